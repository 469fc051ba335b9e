/*
 * Unit tests of shared/trust.c: the judgement of one stat (pure), then the
 * walk on real directories below a fresh one in /tmp (root-owned and sticky,
 * so it may be above a trusted one): modes, owners, a sticky parent, links,
 * missing directories made 0700, and the files read from a trusted one.
 * The owner cases that need another uid run as root only.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "shared/trust.h"

static char base[256]; /* canonical */

static struct stat st_of(mode_t mode, uid_t uid)
{
	struct stat st = {.st_mode = mode, .st_uid = uid};

	return st;
}

static void test_judge(void **state)
{
	struct stat st;

	st = st_of(S_IFDIR | 0755, 0);
	assert_int_equal(trust_judge(&st, 0, true, true), TRUST_OK);
	st = st_of(S_IFDIR | 0775, 0);
	assert_int_equal(trust_judge(&st, 0, true, true), TRUST_GROUP_WRITE);
	assert_int_equal(trust_judge(&st, 0, true, false), TRUST_GROUP_WRITE);
	st = st_of(S_IFDIR | 0777, 0);
	assert_int_equal(trust_judge(&st, 0, true, true), TRUST_OTHER_WRITE);
	assert_int_equal(trust_judge(&st, 0, true, false), TRUST_OTHER_WRITE);
	/* sticky: fine above, not as the directory itself */
	st = st_of(S_IFDIR | 01777, 0);
	assert_int_equal(trust_judge(&st, 0, true, false), TRUST_OK);
	assert_int_equal(trust_judge(&st, 0, true, true), TRUST_OTHER_WRITE);
	/* a sticky directory another user owns: that user may rename in it */
	st = st_of(S_IFDIR | 01777, 1000);
	assert_int_equal(trust_judge(&st, 0, true, false), TRUST_OWNER);
	st = st_of(S_IFDIR | 0700, 1000);
	assert_int_equal(trust_judge(&st, 0, true, true), TRUST_OWNER);
	assert_int_equal(trust_judge(&st, 1000, true, true), TRUST_OK);
	st = st_of(S_IFREG | 0600, 0);
	assert_int_equal(trust_judge(&st, 0, true, true), TRUST_NOT_DIR);
	assert_int_equal(trust_judge(&st, 0, false, true), TRUST_OK);
	st = st_of(S_IFREG | 0602, 0);
	assert_int_equal(trust_judge(&st, 0, false, true), TRUST_OTHER_WRITE);
	st = st_of(S_IFREG | 01666, 0); /* sticky means nothing on a file */
	assert_int_equal(trust_judge(&st, 0, false, false), TRUST_OTHER_WRITE);
	st = st_of(S_IFLNK | 0777, 0);
	assert_int_equal(trust_judge(&st, 0, false, true), TRUST_NOT_FILE);
	st = st_of(S_IFIFO | 0600, 0);
	assert_int_equal(trust_judge(&st, 0, false, true), TRUST_NOT_FILE);
}

static void path_of(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", base, rel);
}

static void mkdir_mode(const char *rel, mode_t mode)
{
	char p[PATH_MAX];

	path_of(p, rel);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, mode), 0);
}

/*
 * trust_dir_open(@rel) must end with @rc and @why, naming @bad (relative),
 * the directory asked about itself (@bad_is_it) or one above it.
 */
static void expect_dir(const char *rel, unsigned flags, int rc, enum trust_why why,
		       const char *bad, bool bad_is_it)
{
	char p[PATH_MAX], want[PATH_MAX];
	struct trust_fail f;
	int dfd = -1;

	path_of(p, rel);
	assert_int_equal(trust_dir_open(p, flags, &dfd, &f), rc);
	assert_int_equal(f.why, why);
	if (rc == 0) {
		assert_true(dfd >= 0);
		close(dfd);
	} else {
		assert_int_equal(dfd, -1);
	}
	if (bad) {
		path_of(want, bad);
		assert_string_equal(f.path, want);
		assert_int_equal(f.leaf, bad_is_it);
	}
}

static int setup(void **state)
{
	char t[] = "/tmp/pa-trust-XXXXXX", real[PATH_MAX];

	/* realpath() wants PATH_MAX bytes (_FORTIFY_SOURCE checks it) */
	if (!mkdtemp(t) || !realpath(t, real) ||
	    snprintf(base, sizeof(base), "%s", real) >= (int)sizeof(base))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", base, base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_dirs(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct trust_fail f;
	struct stat st;
	int dfd;

	/* the fresh directory: 0700, below the sticky /tmp */
	path_of(p, "");
	assert_int_equal(trust_dir_open(p, 0, &dfd, &f), 0);
	assert_string_equal(f.path, base);
	assert_int_equal(fstat(dfd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	close(dfd);

	mkdir_mode("ok", 0755);
	expect_dir("ok", 0, 0, TRUST_OK, NULL, false);
	mkdir_mode("group", 0770);
	expect_dir("group", 0, -EPERM, TRUST_GROUP_WRITE, "group", true);
	mkdir_mode("other", 0777);
	expect_dir("other", 0, -EPERM, TRUST_OTHER_WRITE, "other", true);
	/* a directory above that others may write, not sticky: names it */
	mkdir_mode("other/sub", 0700);
	expect_dir("other/sub", 0, -EPERM, TRUST_OTHER_WRITE, "other", false);
	expect_dir("other/sub/new", TRUST_CREATE, -EPERM, TRUST_OTHER_WRITE, "other",
		   false);
	path_of(p, "other/sub/new");
	assert_int_equal(access(p, F_OK), -1); /* not made */
	/* sticky above is fine; sticky itself is not */
	mkdir_mode("sticky", 01777);
	mkdir_mode("sticky/sub", 0700);
	expect_dir("sticky/sub", 0, 0, TRUST_OK, NULL, false);
	expect_dir("sticky", 0, -EPERM, TRUST_OTHER_WRITE, "sticky", true);
	/* a trailing slash, "." and a relative path are the same directory */
	path_of(p, "ok/./");
	assert_int_equal(trust_dir_open(p, 0, NULL, &f), 0);
	path_of(q, "ok");
	assert_string_equal(f.path, q);
	assert_non_null(getcwd(p, sizeof(p)));
	assert_int_equal(chdir(base), 0);
	assert_int_equal(trust_dir_open("ok", 0, NULL, &f), 0);
	assert_string_equal(f.path, q);
	assert_int_equal(trust_dir_open("other", 0, NULL, &f), -EPERM);
	assert_int_equal(chdir(p), 0);
}

static void test_missing_and_links(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct trust_fail f;
	struct stat st;

	/* missing below trusted ones: -ENOENT naming the first missing one */
	expect_dir("a/b", 0, -ENOENT, TRUST_ERROR, "a", false);
	expect_dir("a/b", TRUST_CREATE, 0, TRUST_OK, NULL, false);
	path_of(p, "a");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	path_of(p, "a/b");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	path_of(p, "a/x/../c"); /* nothing to resolve ".." against */
	assert_int_equal(trust_dir_open(p, TRUST_CREATE, NULL, &f), -EINVAL);

	/* a link to an untrusted directory: the target is judged, and named */
	mkdir_mode("open", 0777);
	path_of(p, "open");
	path_of(q, "link");
	assert_int_equal(symlink(p, q), 0);
	expect_dir("link", 0, -EPERM, TRUST_OTHER_WRITE, "open", true);
	/* to a trusted one: fine */
	mkdir_mode("closed", 0700);
	path_of(p, "closed");
	path_of(q, "link2");
	assert_int_equal(symlink(p, q), 0);
	expect_dir("link2", 0, 0, TRUST_OK, NULL, false);
	/* a file where a directory should be */
	path_of(p, "file");
	assert_int_equal(close(open(p, O_CREAT | O_WRONLY, 0600)), 0);
	path_of(p, "file/x");
	assert_int_equal(trust_dir_open(p, TRUST_CREATE, NULL, &f), -ENOTDIR);
	assert_int_equal(f.why, TRUST_ERROR);
}

static void test_owner(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];

	if (geteuid() != 0) {
		/* another owner needs chown: root (CI runs as root) */
		print_message("skipped: another owner needs chown, which needs root\n");
		skip();
	}
	mkdir_mode("theirs", 0700);
	path_of(p, "theirs");
	assert_int_equal(chown(p, 65534, 65534), 0);
	expect_dir("theirs", 0, -EPERM, TRUST_OWNER, "theirs", true);
	mkdir_mode("theirs/sub", 0700);
	expect_dir("theirs/sub", 0, -EPERM, TRUST_OWNER, "theirs", false);
	/* a link of another user's to a trusted directory: named, and refused */
	mkdir_mode("ours", 0700);
	path_of(p, "ours");
	path_of(q, "their-link");
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(lchown(q, 65534, 65534), 0);
	expect_dir("their-link", 0, -EPERM, TRUST_LINK_OWNER, "their-link", false);
	expect_dir("their-link/new", TRUST_CREATE, -EPERM, TRUST_LINK_OWNER, "their-link",
		   false);
	path_of(p, "ours/new");
	assert_int_equal(access(p, F_OK), -1); /* nothing made through it */
	/* a link of root's to it: used */
	path_of(p, "ours");
	path_of(q, "root-link");
	assert_int_equal(symlink(p, q), 0);
	expect_dir("root-link", 0, 0, TRUST_OK, NULL, false);
}

static void put_file(const char *rel, mode_t mode)
{
	char p[PATH_MAX];
	int fd;

	path_of(p, rel);
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void test_files(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct trust_fail f;
	int fd;

	mkdir_mode("files", 0700);
	put_file("files/good", 0600);
	path_of(p, "files/good");
	assert_int_equal(trust_file_open(p, O_RDONLY, &fd, &f), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	put_file("files/open", 0666);
	path_of(p, "files/open");
	assert_int_equal(trust_file_open(p, O_RDONLY, &fd, &f), -EPERM);
	assert_int_equal(f.why, TRUST_OTHER_WRITE);
	assert_string_equal(f.path, p);
	assert_int_equal(fd, -1);
	put_file("files/group", 0620);
	path_of(p, "files/group");
	assert_int_equal(trust_file_open(p, O_RDWR, &fd, &f), -EPERM);
	assert_int_equal(f.why, TRUST_GROUP_WRITE);
	/* a link is not followed, even to a good file */
	path_of(p, "files/good");
	path_of(q, "files/link");
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(trust_file_open(q, O_RDONLY, &fd, &f), -EPERM);
	assert_int_equal(f.why, TRUST_NOT_FILE);
	assert_true(S_ISLNK(f.mode));
	/* a fifo: refused at once, not waited on */
	path_of(p, "files/fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(trust_file_open(p, O_RDONLY, &fd, &f), -EPERM);
	assert_int_equal(f.why, TRUST_NOT_FILE);
	/* a good file in a directory others may write */
	mkdir_mode("opendir", 0700);
	put_file("opendir/good", 0600);
	path_of(p, "opendir");
	assert_int_equal(chmod(p, 0757), 0);
	path_of(p, "opendir/good");
	assert_int_equal(trust_file_open(p, O_RDONLY, &fd, &f), -EPERM);
	assert_int_equal(f.why, TRUST_OTHER_WRITE);
	assert_false(f.leaf);
	path_of(q, "opendir");
	assert_string_equal(f.path, q);
	path_of(p, "files/none");
	assert_int_equal(trust_file_open(p, O_RDONLY, &fd, &f), -ENOENT);
}

static void test_program(void **state)
{
	char p[PATH_MAX];
	struct trust_fail f;

	mkdir_mode("bin", 0755);
	put_file("bin/tool", 0755);
	put_file("bin/gtool", 0775);
	put_file("bin/noexec", 0644);
	path_of(p, "bin");
	assert_int_equal(trust_program(p, "tool", &f), 0);
	assert_int_equal(trust_program(p, "gtool", &f), -EPERM);
	assert_int_equal(f.why, TRUST_GROUP_WRITE);
	assert_int_equal(trust_program(p, "noexec", &f), -EACCES);
	assert_int_equal(trust_program(p, "none", &f), -ENOENT);
	assert_int_equal(chmod(p, 0775), 0);
	assert_int_equal(trust_program(p, "tool", &f), -EPERM);
	assert_int_equal(f.why, TRUST_GROUP_WRITE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_judge),
	    cmocka_unit_test_setup_teardown(test_dirs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_and_links, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_owner, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_program, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
