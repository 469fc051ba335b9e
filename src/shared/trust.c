/*
 * The trust check of the directories and files partalign keeps its state in
 * (trust.h): one canonical path, walked from "/" with openat() and O_NOFOLLOW,
 * each step judged by fstat() of the descriptor it opened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/fileio.h"
#include "shared/trust.h"

enum trust_why trust_judge(const struct stat *st, uid_t owner, bool dir, bool leaf)
{
	if (dir && !S_ISDIR(st->st_mode))
		return TRUST_NOT_DIR;
	if (!dir && !S_ISREG(st->st_mode))
		return TRUST_NOT_FILE;
	if (st->st_uid != 0 && st->st_uid != owner)
		return TRUST_OWNER;
	/* no one else can rename or remove root's entries in a sticky directory */
	if (dir && !leaf && (st->st_mode & S_ISVTX))
		return TRUST_OK;
	if (st->st_mode & S_IWOTH)
		return TRUST_OTHER_WRITE;
	if (st->st_mode & S_IWGRP)
		return TRUST_GROUP_WRITE;
	return TRUST_OK;
}

static void fail_set(struct trust_fail *f, enum trust_why why, const char *path,
		     size_t len, const struct stat *st, int err)
{
	f->why = why;
	f->uid = st ? st->st_uid : 0;
	f->mode = st ? st->st_mode : 0;
	f->err = err;
	if (len >= sizeof(f->path))
		len = sizeof(f->path) - 1;
	memcpy(f->path, path, len);
	f->path[len] = '\0';
}

/* @a + "/" + @b into @out (PATH_MAX), without a double slash after "/". */
static int join(char *out, const char *a, const char *b)
{
	size_t al = strlen(a);
	int n =
	    snprintf(out, PATH_MAX, "%s%s%s", a, al && a[al - 1] == '/' ? "" : "/", b);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * @dir absolute and canonical in @out (PATH_MAX): realpath() of the longest
 * part that exists, the missing rest appended ("." and empty names dropped,
 * ".." refused: there is nothing to resolve it against).
 */
static int canonical(const char *dir, char *out)
{
	char buf[PATH_MAX], rest[PATH_MAX] = "", tmp[PATH_MAX];
	char *slash;

	if (!dir || !*dir)
		return -EINVAL;
	if (dir[0] == '/') {
		if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
			return -ENAMETOOLONG;
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (join(buf, cwd, dir) < 0)
			return -ENAMETOOLONG;
	}
	while (!realpath(buf, out)) {
		size_t len = strlen(buf);

		if (errno != ENOENT)
			return -errno;
		while (len > 1 && buf[len - 1] == '/')
			buf[--len] = '\0';
		slash = strrchr(buf, '/');
		if (strcmp(slash + 1, "..") == 0)
			return -EINVAL;
		if (slash[1] && strcmp(slash + 1, ".") != 0) {
			if (snprintf(tmp, sizeof(tmp), "%s%s%s", slash + 1,
				     *rest ? "/" : "", rest) >= (int)sizeof(tmp))
				return -ENAMETOOLONG;
			memcpy(rest, tmp, sizeof(rest));
		}
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (*rest) {
		memcpy(tmp, out, sizeof(tmp));
		return join(out, tmp, rest);
	}
	return 0;
}

/* A name that could not be opened as a directory: judged by what it is. */
static int not_opened(int fd, const char *name, const char *canon, size_t len,
		      struct trust_fail *f)
{
	int err = errno;
	struct stat st;

	if ((err == ELOOP || err == ENOTDIR) &&
	    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		fail_set(f, TRUST_NOT_DIR, canon, len, &st, 0);
		return -EPERM;
	}
	fail_set(f, TRUST_ERROR, canon, len, NULL, err);
	return -err;
}

/* Open @name below @fd as a directory, making it first with TRUST_CREATE. */
static int open_step(int fd, const char *name, unsigned flags)
{
	const int o = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int nfd = openat(fd, name, o);

	if (nfd < 0 && errno == ENOENT && (flags & TRUST_CREATE)) {
		if (mkdirat(fd, name, 0700) < 0 && errno != EEXIST)
			return -1;
		nfd = openat(fd, name, o);
	}
	return nfd;
}

int trust_dir_open(const char *dir, unsigned flags, int *dfd, struct trust_fail *f)
{
	char canon[PATH_MAX], name[NAME_MAX + 1];
	const char *p;
	uid_t owner = geteuid();
	struct stat st;
	enum trust_why why;
	int fd, rc;

	memset(f, 0, sizeof(*f));
	if (dfd)
		*dfd = -1;
	rc = canonical(dir, canon);
	if (rc < 0) {
		fail_set(f, TRUST_ERROR, dir ? dir : "", dir ? strlen(dir) : 0, NULL,
			 -rc);
		return rc;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		fail_set(f, TRUST_ERROR, "/", 1, NULL, -rc);
		goto out;
	}
	p = canon;
	while (*p == '/')
		p++;
	why = trust_judge(&st, owner, true, *p == '\0');
	if (why) {
		fail_set(f, why, "/", 1, &st, 0);
		rc = -EPERM;
		goto out;
	}
	while (*p) {
		size_t len = strcspn(p, "/"), upto = (size_t)(p - canon) + len;
		int nfd;

		if (len > NAME_MAX) {
			rc = -ENAMETOOLONG;
			fail_set(f, TRUST_ERROR, canon, upto, NULL, -rc);
			goto out;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		while (*p == '/')
			p++;
		nfd = open_step(fd, name, flags);
		if (nfd < 0) {
			rc = not_opened(fd, name, canon, upto, f);
			goto out;
		}
		close(fd);
		fd = nfd;
		if (fstat(fd, &st) < 0) {
			rc = -errno;
			fail_set(f, TRUST_ERROR, canon, upto, NULL, -rc);
			goto out;
		}
		why = trust_judge(&st, owner, true, *p == '\0');
		if (why) {
			fail_set(f, why, canon, upto, &st, 0);
			rc = -EPERM;
			goto out;
		}
	}
	f->leaf = true;
	fail_set(f, TRUST_OK, canon, strlen(canon), &st, 0);
	rc = 0;
	if (dfd) {
		*dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (*dfd < 0) {
			rc = -errno;
			fail_set(f, TRUST_ERROR, canon, strlen(canon), NULL, -rc);
		}
	}
out:
	if (rc == -EPERM || rc == -ENOENT)
		f->leaf = strlen(f->path) == strlen(canon);
	if (fd >= 0)
		close(fd);
	return rc;
}

int trust_file_openat(int dfd, const char *dir, const char *name, int oflags, int *fd,
		      struct trust_fail *f)
{
	char path[PATH_MAX];
	enum trust_why why;
	struct stat st;
	int rc;

	if (join(path, dir, name) < 0)
		snprintf(path, sizeof(path), "%s", name);
	memset(f, 0, sizeof(*f)); /* @dir may be f->path */
	f->leaf = true;
	*fd = openat(dfd, name, oflags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		rc = -errno;
		/* a link (ELOOP), a directory (EISDIR), a fifo without a reader */
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode)) {
			fail_set(f, TRUST_NOT_FILE, path, strlen(path), &st, 0);
			return -EPERM;
		}
		fail_set(f, TRUST_ERROR, path, strlen(path), NULL, -rc);
		return rc;
	}
	if (fstat(*fd, &st) < 0) {
		rc = -errno;
		fail_set(f, TRUST_ERROR, path, strlen(path), NULL, -rc);
		goto fail;
	}
	why = trust_judge(&st, geteuid(), false, true);
	if (why) {
		fail_set(f, why, path, strlen(path), &st, 0);
		rc = -EPERM;
		goto fail;
	}
	if (!(oflags & O_NONBLOCK) && fcntl(*fd, F_SETFL, oflags & ~O_ACCMODE) < 0) {
		rc = -errno;
		fail_set(f, TRUST_ERROR, path, strlen(path), NULL, -rc);
		goto fail;
	}
	return 0;
fail:
	close(*fd);
	*fd = -1;
	return rc;
}

int trust_file_open(const char *path, int oflags, int *fd, struct trust_fail *f)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir = path_dir(path);
	int dfd, rc;

	*fd = -1;
	if (!dir)
		return -ENOMEM;
	rc = trust_dir_open(dir, 0, &dfd, f);
	if (rc == 0) {
		/* f->path: the directory as walked, so that @f names the file so */
		rc = trust_file_openat(dfd, f->path, base, oflags, fd, f);
		close(dfd);
	} else {
		f->leaf = false; /* the directory of the file failed */
	}
	free(dir);
	return rc;
}

int trust_program(const char *dir, const char *name, struct trust_fail *f)
{
	struct stat st;
	enum trust_why why;
	int dfd, rc = trust_dir_open(dir, 0, &dfd, f);

	if (rc < 0)
		return rc;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = -errno;
	} else if ((why = trust_judge(&st, geteuid(), false, true))) {
		char path[PATH_MAX];

		if (join(path, dir, name) < 0)
			snprintf(path, sizeof(path), "%s", name);
		fail_set(f, why, path, strlen(path), &st, 0);
		rc = -EPERM;
	} else if (!(st.st_mode & 0111)) {
		rc = -EACCES;
	}
	close(dfd);
	return rc;
}
