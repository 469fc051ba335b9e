/*
 * Unit tests of shared/fileio.c in a temporary directory: whole writes and
 * reads (read_text's limit), mkdir_p, and file_publish, which must leave no
 * temporary file behind whatever step fails.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "shared/fileio.h"

static char dir[256];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "%s/pa-fileio-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *at(const char *name)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

/* The names in directory @d, sorted, space-separated, "." and ".." left out. */
static char *listing(const char *d)
{
	static char s[1024];
	struct dirent **de;
	int n = scandir(d, &de, NULL, alphasort);

	s[0] = '\0';
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (strcmp(de[i]->d_name, ".") && strcmp(de[i]->d_name, "..")) {
			strcat(s, s[0] ? " " : "");
			strcat(s, de[i]->d_name);
		}
		free(de[i]);
	}
	free(de);
	return s;
}

static void put(const char *path, const char *s, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, s, len), 0);
	assert_int_equal(close(fd), 0);
}

static void test_write_all_pipe(void **state)
{
	static char big[256 * 1024], back[sizeof(big)];
	int p[2];
	pid_t pid;
	size_t got = 0;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* a pipe takes 64 KiB at a time: short writes are retried */
		close(p[0]);
		_exit(write_all(p[1], big, sizeof(big)) == 0 ? 0 : 1);
	}
	close(p[1]);
	while (got < sizeof(back)) {
		ssize_t n = read(p[0], back + got, sizeof(back) - got);

		assert_true(n > 0);
		got += (size_t)n;
	}
	close(p[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_memory_equal(big, back, sizeof(big));
	/* a closed descriptor is an error, not a loop */
	assert_int_equal(write_all(p[1], "x", 1), -EBADF);
}

static void test_read_text(void **state)
{
	char *t = (char *)1;

	put(at("ten"), "0123456789", 10);
	assert_int_equal(read_text(at("ten"), 10, &t), 0);
	assert_string_equal(t, "0123456789");
	free(t);
	t = (char *)1;
	assert_int_equal(read_text(at("ten"), 9, &t), -EFBIG);
	assert_null(t);
	assert_int_equal(read_text(at("ten"), 0, &t), -EFBIG);

	put(at("empty"), "", 0);
	assert_int_equal(read_text(at("empty"), 0, &t), 0);
	assert_string_equal(t, "");
	free(t);

	put(at("nul"), "a\0b", 3);
	assert_int_equal(read_text(at("nul"), 100, &t), -EILSEQ);
	assert_null(t);

	assert_int_equal(read_text(at("missing"), 100, &t), -ENOENT);
	assert_null(t);
	assert_int_equal(read_text(dir, 100, &t), -EISDIR);
}

static void test_read_text_big(void **state)
{
	size_t n = 3 * 4096 + 17;
	char *s = malloc(n), *t;

	assert_non_null(s);
	memset(s, 'x', n);
	put(at("big"), s, n);
	assert_int_equal(read_text(at("big"), n, &t), 0);
	assert_int_equal(strlen(t), n);
	free(t);
	assert_int_equal(read_text(at("big"), n - 1, &t), -EFBIG);
	assert_int_equal(read_text(at("big"), 8192, &t), -EFBIG);
	assert_int_equal(read_text(at("big"), 8193, &t), -EFBIG);
	free(s);
}

static void test_pread_all(void **state)
{
	char b[4];
	int fd;

	put(at("f"), "abcdefgh", 8);
	fd = open(at("f"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread_all(fd, b, 4, 2), 0);
	assert_memory_equal(b, "cdef", 4);
	assert_int_equal(pread_all(fd, b, 4, 6), -EIO); /* end of file */
	assert_int_equal(pread_zero(fd, b, 4, 6), 0);
	assert_memory_equal(b, "gh\0\0", 4);
	assert_int_equal(pread_zero(fd, b, 4, 100), 0);
	assert_memory_equal(b, "\0\0\0\0", 4);
	close(fd);
}

static void test_mkdir_p(void **state)
{
	struct stat st;

	assert_int_equal(mkdir_p(at("a/b//c/"), 0700), 0);
	assert_int_equal(stat(at("a/b/c"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(mkdir_p(at("a/b/c"), 0700), 0); /* existing: fine */
	assert_int_equal(mkdir_p(dir, 0700), 0);
	put(at("file"), "x", 1);
	assert_int_equal(mkdir_p(at("file"), 0700), -ENOTDIR);
	assert_int_equal(mkdir_p(at("file/sub"), 0700), -ENOTDIR);
	assert_int_equal(mkdir_p("", 0700), -EINVAL);
}

static void test_fsync_dir(void **state)
{
	assert_int_equal(fsync_dir(dir), 0);
	assert_int_equal(fsync_dir(at("missing")), -ENOENT);
	put(at("file"), "x", 1);
	assert_int_equal(fsync_dir(at("file")), -ENOTDIR);
}

static void test_publish(void **state)
{
	struct stat st;
	char *t;
	mode_t old = umask(077);

	assert_int_equal(file_publish(at("out.rules"), "one\n", 4, 0644), 0);
	umask(old);
	assert_int_equal(read_text(at("out.rules"), 100, &t), 0);
	assert_string_equal(t, "one\n");
	free(t);
	assert_int_equal(stat(at("out.rules"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644); /* exactly, not masked */
	assert_int_equal(file_publish(at("out.rules"), "two\n", 4, 0600), 0);
	assert_int_equal(read_text(at("out.rules"), 100, &t), 0);
	assert_string_equal(t, "two\n");
	free(t);
	assert_int_equal(stat(at("out.rules"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(listing(dir), "out.rules");
	/* a relative name publishes in the current directory */
	char cwd[512];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(file_publish("rel", "r", 1, 0644), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(access(at("rel"), F_OK), 0);
}

static void test_publish_missing_dir(void **state)
{
	assert_int_equal(file_publish(at("nodir/out"), "x", 1, 0644), -ENOENT);
	assert_string_equal(listing(dir), "");
	assert_int_equal(file_publish(at("out/"), "x", 1, 0644), -EISDIR);
	assert_string_equal(listing(dir), "");
}

/* rename fails after the temporary was written: it goes, the target stays */
static void test_publish_rename_fails(void **state)
{
	assert_int_equal(mkdir(at("target"), 0755), 0);
	put(at("target/keep"), "k", 1);
	assert_true(file_publish(at("target"), "x", 1, 0644) < 0);
	assert_string_equal(listing(dir), "target");
	assert_string_equal(listing(at("target")), "keep");
}

/* a write that fails (the file size limit): the temporary goes, the old file stays */
static void test_publish_write_fails(void **state)
{
	struct rlimit old, lim;
	static char big[8192];
	char *t;

	put(at("f"), "old", 3);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = file_publish(at("f"), big, sizeof(big), 0644);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, -EFBIG);
	assert_string_equal(listing(dir), "f");
	assert_int_equal(read_text(at("f"), 100, &t), 0);
	assert_string_equal(t, "old");
	free(t);
}

/* A uid no account has (60000 and up), or 0 when none is free. */
static uid_t unused_uid(void)
{
	uid_t u;

	for (u = 60000; u < 65000; u++)
		if (!getpwuid(u) && !getgrgid((gid_t)u))
			return u;
	return 0;
}

/*
 * file_publish() of @path as user and group @uid, in a child (root may write
 * anywhere, so root's own try would prove nothing): its result.
 */
static int publish_as(uid_t uid, const char *path)
{
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int rc;

		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		    setresuid(uid, uid, uid) < 0 || geteuid() != uid)
			_exit(100);
		rc = file_publish(path, "x", 1, 0644);
		_exit(rc <= 0 && rc > -100 ? -rc : 99);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 100); /* the uid could not be taken */
	return -WEXITSTATUS(st);
}

/*
 * A read-only directory: EACCES, nothing left in it.  As root (CI) the
 * publish runs as an unused uid, for whom the directory is read-only too.
 */
static void test_publish_readonly_dir(void **state)
{
	struct stat st;
	uid_t uid;

	assert_int_equal(mkdir(at("ro"), 0555), 0);
	if (geteuid() != 0) {
		assert_int_equal(file_publish(at("ro/out"), "x", 1, 0644), -EACCES);
	} else {
		uid = unused_uid();
		assert_int_not_equal(uid, 0);
		/* the test's directory (0700) must let that user through */
		assert_int_equal(stat(dir, &st), 0);
		assert_int_equal(chmod(dir, 0711), 0);
		assert_int_equal(publish_as(uid, at("ro/out")), -EACCES);
		assert_int_equal(chmod(dir, st.st_mode & 07777), 0);
	}
	assert_string_equal(listing(at("ro")), "");
}

/* the steps: abort leaves nothing; a lock removes a dead run's temporaries */
static void test_tmp_steps(void **state)
{
	struct file_tmp t;

	assert_int_equal(file_tmp_open(&t, at("x.rules"), 0644, 0), 0);
	assert_int_equal(write_all(t.fd, "part", 4), 0);
	assert_true(strncmp(listing(dir), ".x.rules.", 9) == 0);
	file_tmp_abort(&t);
	file_tmp_abort(&t); /* a second end does nothing */
	assert_int_equal(file_tmp_publish(&t), -EBADF);
	assert_string_equal(listing(dir), "");

	put(at(".x.rules.AbC123"), "stale", 5);
	put(at(".x.rules.keep"), "other", 5);
	assert_int_equal(file_tmp_open(&t, at("x.rules"), 0644, FILE_TMP_LOCK), 0);
	assert_int_equal(write_all(t.fd, "new", 3), 0);
	assert_int_equal(file_tmp_publish(&t), 0);
	assert_string_equal(listing(dir), ".x.rules.keep x.rules");
}

static void test_read_attr(void **state)
{
	char b[8];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	assert_true(dfd >= 0);
	put(at("size"), "4096 \t\n", 8);
	assert_int_equal(read_attr_at(dfd, "size", b, sizeof(b)), 0);
	assert_string_equal(b, "4096");
	put(at("long"), "0123456789\n", 11);
	assert_int_equal(read_attr_at(AT_FDCWD, at("long"), b, sizeof(b)), 0);
	assert_string_equal(b, "0123456"); /* cut to the buffer */
	assert_int_equal(read_attr_at(dfd, "missing", b, sizeof(b)), -ENOENT);
	assert_string_equal(b, "");
	close(dfd);
}

static void test_dir_open_at(void **state)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	struct dirent *de;
	DIR *d;
	int n = 0;

	assert_true(dfd >= 0);
	assert_int_equal(mkdir(at("sub"), 0755), 0);
	put(at("sub/x"), "x", 1);
	d = dir_open_at(dfd, "sub");
	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, "x") == 0;
	closedir(d);
	assert_int_equal(n, 1);
	errno = 0;
	assert_null(dir_open_at(dfd, "sub/x"));
	assert_int_equal(errno, ENOTDIR);
	assert_null(dir_open_at(dfd, "missing"));
	assert_int_equal(errno, ENOENT);
	close(dfd);
}

static void test_path_dir(void **state)
{
	static const char *const cases[][2] = {
	    {"a", "."}, {"/a", "/"}, {"/a/b", "/a"}, {"a/b/c", "a/b"}, {"/", "/"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = path_dir(cases[i][0]);

		assert_string_equal(d, cases[i][1]);
		free(d);
	}
}

/* file_tmp_publish_fd: the file is in place and the descriptor still writes to it */
static void test_publish_fd(void **state)
{
	struct file_tmp t;
	char *s;
	int fd;

	assert_int_equal(file_tmp_open(&t, at("j.journal"), 0600, FILE_TMP_LOCK), 0);
	assert_int_equal(pwrite_all(t.fd, "head", 4, 0), 0);
	assert_int_equal(file_tmp_publish_fd(&t, &fd), 0);
	assert_true(fd >= 0);
	assert_string_equal(listing(dir), "j.journal");
	assert_int_equal(pwrite_all(fd, "more", 4, 4), 0);
	close(fd);
	assert_int_equal(read_text(at("j.journal"), 100, &s), 0);
	assert_string_equal(s, "headmore");
	free(s);
	assert_int_equal(file_tmp_publish_fd(&t, &fd), -EBADF);
	assert_int_equal(fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_write_all_pipe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_text, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_text_big, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pread_all, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mkdir_p, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fsync_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_publish, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_publish_missing_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_publish_rename_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_publish_write_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_publish_readonly_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tmp_steps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_attr, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dir_open_at, setup, teardown),
	    cmocka_unit_test(test_path_dir),
	    cmocka_unit_test_setup_teardown(test_publish_fd, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
