/*
 * Unit tests of shared/spawn.c: programs are found in SPAWN_PATH (and
 * PARTALIGN_TOOLDIR), never through the inherited PATH; output is captured;
 * the exit status and signals come back; the child's environment is reduced.
 * A directory of stand-in programs is put first in PATH to show it is ignored;
 * as PARTALIGN_TOOLDIR it is used only while no one but root can change it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "shared/spawn.h"
#include "shared/trust.h"

static char dir[256];

static void stand_in(const char *name, const char *body)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, 0755), 0);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "%s/pa-spawn-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	stand_in("sh", "echo fake; exit 42");
	stand_in("pa-only-in-path", "exit 0");
	setenv("PATH", dir, 1);
	unsetenv(SPAWN_TOOLDIR_ENV);
	return 0;
}

static int teardown(void **state)
{
	char cmd[1024];

	setenv("PATH", SPAWN_PATH, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_lookup_ignores_path(void **state)
{
	char p[512];
	struct spawn_result r;
	const char *only[] = {"pa-only-in-path", NULL};
	const char *sh[] = {"sh", "-c", "exit 3", NULL};

	assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), -ENOENT);
	assert_int_equal(spawn(only, 0, &r), -ENOENT);
	assert_null(r.out);
	assert_int_equal(spawn_lookup("sh", p, sizeof(p)), 0);
	assert_true(strncmp(p, dir, strlen(dir)) != 0);
	assert_int_equal(spawn(sh, SPAWN_OUT, &r), 0);
	assert_int_equal(r.status, 3); /* the system's sh, not the stand-in (42) */
	assert_string_equal(r.out, "");
	spawn_result_free(&r);
}

static void test_tooldir(void **state)
{
	char p[512], want[512];
	struct spawn_result r;
	const char *only[] = {"pa-only-in-path", NULL};
	const char *sh[] = {"sh", "-c", "exit 3", NULL};

	setenv(SPAWN_TOOLDIR_ENV, dir, 1);
	snprintf(want, sizeof(want), "%s/pa-only-in-path", dir);
	assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), 0);
	assert_string_equal(p, want);
	assert_int_equal(spawn(only, 0, &r), 0);
	assert_int_equal(r.status, 0);
	/* first in the tool directory, before the system's */
	assert_int_equal(spawn(sh, SPAWN_OUT, &r), 0);
	assert_int_equal(r.status, 42);
	assert_string_equal(r.out, "fake\n");
	spawn_result_free(&r);
	/* a relative or list value is not a tool directory */
	setenv(SPAWN_TOOLDIR_ENV, "relative", 1);
	assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), -ENOENT);
	snprintf(p, sizeof(p), "/nonexistent:%s", dir);
	setenv(SPAWN_TOOLDIR_ENV, p, 1);
	assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), -ENOENT);
	unsetenv(SPAWN_TOOLDIR_ENV);
}

/* PARTALIGN_TOOLDIR or a program in it that others could change is not used. */
static void test_tooldir_untrusted(void **state)
{
	char p[512], prog[512];
	struct spawn_result r;
	struct trust_fail f;
	const char *sh[] = {"sh", "-c", "exit 3", NULL};
	static const mode_t bad[] = {0775, 0777, 0757};
	size_t i;

	setenv(SPAWN_TOOLDIR_ENV, dir, 1);
	assert_string_equal(spawn_tooldir(&f), dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(chmod(dir, bad[i]), 0);
		assert_null(spawn_tooldir(&f));
		assert_int_equal(f.why,
				 bad[i] & 2 ? TRUST_OTHER_WRITE : TRUST_GROUP_WRITE);
		assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), -ENOENT);
		assert_int_equal(spawn(sh, SPAWN_OUT, &r), 0);
		assert_int_equal(r.status, 3); /* the system's sh, not the stand-in */
		spawn_result_free(&r);
	}
	assert_int_equal(chmod(dir, 0700), 0);
	/* a program others may write, in a good directory */
	snprintf(prog, sizeof(prog), "%s/pa-only-in-path", dir);
	assert_int_equal(chmod(prog, 0775), 0);
	assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), -ENOENT);
	assert_int_equal(chmod(prog, 0755), 0);
	assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), 0);
	/* a directory another user owns (needs root to make) */
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_null(spawn_tooldir(&f));
		assert_int_equal(f.why, TRUST_OWNER);
		assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), -ENOENT);
		assert_int_equal(chown(dir, 0, 0), 0);
		assert_int_equal(spawn_lookup("pa-only-in-path", p, sizeof(p)), 0);
	}
	unsetenv(SPAWN_TOOLDIR_ENV);
}

static void test_capture(void **state)
{
	struct spawn_result r;
	const char *both[] = {"sh", "-c", "echo out; echo err >&2; echo out2", NULL};
	const char *big[] = {"sh", "-c",
			     "head -c 300000 /dev/zero | tr '\\0' o; "
			     "head -c 200000 /dev/zero | tr '\\0' e >&2",
			     NULL};

	assert_int_equal(spawn(both, SPAWN_OUT | SPAWN_ERR, &r), 0);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "out\nout2\n");
	assert_int_equal(r.outlen, 9);
	assert_string_equal(r.err, "err\n");
	spawn_result_free(&r);
	assert_null(r.out);

	assert_int_equal(spawn(both, SPAWN_ERR | SPAWN_QUIET, &r), 0);
	assert_null(r.out);
	assert_string_equal(r.err, "err\n");
	spawn_result_free(&r);

	/* more than a pipe holds on both streams at once */
	assert_int_equal(spawn(big, SPAWN_OUT | SPAWN_ERR, &r), 0);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.outlen, 300000);
	assert_int_equal(r.errlen, 200000);
	assert_int_equal(strspn(r.out, "o"), 300000);
	spawn_result_free(&r);
}

/* SPAWN_QUIET: what is not captured goes to /dev/null, not to our stdout */
static void test_quiet(void **state)
{
	struct spawn_result r;
	const char *echo[] = {"sh", "-c", "echo loud; echo loud >&2", NULL};
	char p[512], buf[64] = "";
	int fd, saved_out = dup(1), saved_err = dup(2);
	ssize_t n;

	snprintf(p, sizeof(p), "%s/stdout", dir);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	dup2(fd, 1);
	dup2(fd, 2);
	int rc = spawn(echo, SPAWN_QUIET, &r);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	assert_int_equal(rc, 0);
	assert_int_equal(r.status, 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_int_equal(n, 0);

	/* without it, the child writes to our stdout */
	fflush(stdout);
	saved_out = dup(1);
	dup2(fd, 1);
	rc = spawn(echo, SPAWN_ERR, &r);
	dup2(saved_out, 1);
	close(saved_out);
	assert_int_equal(rc, 0);
	assert_string_equal(r.err, "loud\n");
	spawn_result_free(&r);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_int_equal(n, 5);
	assert_memory_equal(buf, "loud\n", 5);
	close(fd);
}

/* SPAWN_OUT_TO_ERR: stdout joins the captured stderr, in the order written */
static void test_out_to_err(void **state)
{
	struct spawn_result r;
	const char *both[] = {"sh", "-c", "echo 1; echo 2 >&2; echo 3", NULL};

	assert_int_equal(spawn(both, SPAWN_ERR | SPAWN_OUT_TO_ERR, &r), 0);
	assert_null(r.out);
	assert_string_equal(r.err, "1\n2\n3\n");
	spawn_result_free(&r);
	/* SPAWN_OUT wins */
	assert_int_equal(spawn(both, SPAWN_OUT | SPAWN_ERR | SPAWN_OUT_TO_ERR, &r), 0);
	assert_string_equal(r.out, "1\n3\n");
	assert_string_equal(r.err, "2\n");
	spawn_result_free(&r);
}

static void test_status(void **state)
{
	struct spawn_result r;
	const char *ex[] = {"sh", "-c", "exit 7", NULL};
	const char *sig[] = {"sh", "-c", "kill -TERM $$", NULL};
	const char *abs[] = {"/bin/sh", "-c", "exit 0", NULL};

	assert_int_equal(spawn(ex, 0, &r), 0);
	assert_int_equal(r.status, 7);
	assert_int_equal(spawn(sig, 0, &r), 0);
	assert_int_equal(r.status, 128 + 15);
	assert_int_equal(spawn(abs, 0, &r), 0);
	assert_int_equal(r.status, 0);
}

static void test_not_found(void **state)
{
	struct spawn_result r;
	const char *none[] = {"partalign-no-such-program", NULL};
	const char *abs[] = {"/nonexistent/partalign-no-such-program", NULL};
	const char *empty[] = {NULL};
	char p[512];

	assert_int_equal(spawn(none, SPAWN_OUT | SPAWN_ERR, &r), -ENOENT);
	assert_null(r.out);
	assert_null(r.err);
	assert_int_equal(spawn(abs, SPAWN_OUT, &r), -ENOENT);
	assert_null(r.out);
	assert_int_equal(spawn(empty, 0, &r), -EINVAL);
	/* a directory or a file that is not executable is not a program */
	snprintf(p, sizeof(p), "%s/notexec", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	setenv(SPAWN_TOOLDIR_ENV, dir, 1);
	assert_int_equal(spawn_lookup("notexec", p, sizeof(p)), -ENOENT);
	unsetenv(SPAWN_TOOLDIR_ENV);
}

static void test_environment(void **state)
{
	struct spawn_result r;
	const char *env[] = {"sh", "-c", "env | sort", NULL};

	setenv("HOME", "/root", 1);
	setenv("LD_PRELOAD_NOT", "x", 1);
	setenv("PARTALIGN_JOURNAL", "/tmp/j", 1);
	setenv("LANG", "de_DE.UTF-8", 1);
	assert_int_equal(spawn(env, SPAWN_OUT, &r), 0);
	assert_int_equal(r.status, 0);
	/* sh itself may add PWD (and SHLVL, _): everything else is ours */
	assert_contains(r.out, "LC_ALL=C\n");
	assert_contains(r.out, "PARTALIGN_JOURNAL=/tmp/j\n");
	assert_contains(r.out, "PATH=" SPAWN_PATH "\n");
	assert_not_contains(r.out, "HOME=");
	assert_not_contains(r.out, "LANG=");
	assert_not_contains(r.out, "LD_PRELOAD_NOT");
	spawn_result_free(&r);
	unsetenv("PARTALIGN_JOURNAL");
	unsetenv("LD_PRELOAD_NOT");
}

static void test_stdin_null(void **state)
{
	struct spawn_result r;
	const char *cat[] = {"sh", "-c", "cat; echo done", NULL};

	assert_int_equal(spawn(cat, SPAWN_OUT, &r), 0);
	assert_string_equal(r.out, "done\n");
	spawn_result_free(&r);
}

/* A stand-in script @name in directory @sub of the test's, mode @mode. */
static void stand_in_at(const char *sub, const char *name, const char *body, mode_t mode)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s/%s", dir, sub, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static pid_t swapper;

static int swap_teardown(void **state)
{
	if (swapper > 0) {
		kill(swapper, SIGKILL);
		waitpid(swapper, NULL, 0);
		swapper = 0;
	}
	unsetenv(SPAWN_TOOLDIR_ENV);
	return teardown(state);
}

/*
 * What runs is what was judged.  PARTALIGN_TOOLDIR is a link (root's, in a
 * directory only root can change) that another process points, over and
 * over, at a directory with a trusted pa-race-tool (it prints "good") and at
 * one whose pa-race-tool its group may write (it prints "evil"; judged, it
 * is refused and the program is then not found).  In 400 runs evil must never
 * run, whichever directory the check saw: before, the program was judged
 * through the link and then run by the link's path again, and a swap in
 * between ran the other one.
 */
static void test_tooldir_swap(void **state)
{
	char good[300], bad[300], link[300], tmp[300];
	const char *argv[] = {"pa-race-tool", NULL};
	int ran_good = 0, ran_evil = 0, not_found = 0, i;
	struct spawn_result r;

	snprintf(good, sizeof(good), "%s/good", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	snprintf(link, sizeof(link), "%s/tools", dir);
	snprintf(tmp, sizeof(tmp), "%s/tools.new", dir);
	assert_int_equal(mkdir(good, 0755), 0);
	assert_int_equal(mkdir(bad, 0755), 0);
	stand_in_at("good", "pa-race-tool", "echo good", 0755);
	stand_in_at("bad", "pa-race-tool", "echo evil", 0775);
	assert_int_equal(symlink(good, link), 0);
	swapper = fork();
	assert_true(swapper >= 0);
	if (swapper == 0) {
		for (i = 0;; i++) {
			unlink(tmp);
			if (symlink(i % 2 ? good : bad, tmp) < 0 || rename(tmp, link) < 0)
				_exit(1);
			/* a swap about as often as a spawn takes */
			usleep(200);
		}
	}
	setenv(SPAWN_TOOLDIR_ENV, link, 1);
	for (i = 0; i < 400; i++) {
		int rc = spawn(argv, SPAWN_OUT | SPAWN_QUIET, &r);

		if (rc == -ENOENT) {
			not_found++;
			continue;
		}
		assert_int_equal(rc, 0);
		if (strcmp(r.out, "good\n") == 0)
			ran_good++;
		else if (strcmp(r.out, "evil\n") == 0)
			ran_evil++;
		else
			fail_msg("pa-race-tool said '%s' (status %d)", r.out, r.status);
		spawn_result_free(&r);
	}
	print_message("pa-race-tool: good %d, evil %d, not found %d of 400\n", ran_good,
		      ran_evil, not_found);
	assert_int_equal(ran_evil, 0);
	assert_true(ran_good > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_lookup_ignores_path, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tooldir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tooldir_untrusted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_quiet, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_out_to_err, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_environment, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stdin_null, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tooldir_swap, setup, swap_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
