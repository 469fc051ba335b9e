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

/* Drop the last name of canonical @path ("/" stays "/"). */
static void up(char *path)
{
	char *slash = strrchr(path, '/');

	if (slash == path)
		path[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/*
 * Each name of @rest appended to canonical @out ("." and empty names
 * dropped, ".." refused: there is nothing to resolve it against): what is
 * below the first missing directory.
 */
static int append_missing(char *out, const char *rest)
{
	char tmp[PATH_MAX], name[NAME_MAX + 1];

	while (*rest) {
		size_t len = strcspn(rest, "/");

		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, rest, len);
		name[len] = '\0';
		rest += len;
		while (*rest == '/')
			rest++;
		if (!len || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0)
			return -EINVAL;
		memcpy(tmp, out, sizeof(tmp));
		if (join(out, tmp, name) < 0)
			return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * @dir absolute and canonical in @out (PATH_MAX), resolved as realpath()
 * does, name by name, the missing rest appended.  Every symbolic link on
 * the way is judged: one that neither root nor @owner owns could be
 * pointed elsewhere by its owner between this check and a later use of the
 * path: -EPERM with @f naming it (TRUST_LINK_OWNER).
 */
static int canonical(const char *dir, char *out, uid_t owner, struct trust_fail *f)
{
	char rest[PATH_MAX], tmp[PATH_MAX], name[NAME_MAX + 1], cand[PATH_MAX];
	int links = 0;

	if (!dir || !*dir)
		return -EINVAL;
	if (dir[0] == '/') {
		if (snprintf(rest, sizeof(rest), "%s", dir) >= (int)sizeof(rest))
			return -ENAMETOOLONG;
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (join(rest, cwd, dir) < 0)
			return -ENAMETOOLONG;
	}
	strcpy(out, "/");
	while (rest[0]) {
		const char *p = rest;
		size_t len;
		struct stat st;
		ssize_t n;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, p, len);
		name[len] = '\0';
		memmove(rest, p + len, strlen(p + len) + 1);
		if (!len || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			up(out);
			continue;
		}
		if (join(cand, out, name) < 0)
			return -ENAMETOOLONG;
		if (lstat(cand, &st) < 0) {
			if (errno != ENOENT)
				return -errno;
			memcpy(out, cand, sizeof(cand));
			return append_missing(out, rest);
		}
		if (!S_ISLNK(st.st_mode)) {
			if (!S_ISDIR(st.st_mode) && rest[strspn(rest, "/")])
				return -ENOTDIR;
			memcpy(out, cand, sizeof(cand));
			continue;
		}
		if (++links > 40)
			return -ELOOP;
		if (st.st_uid != 0 && st.st_uid != owner) {
			fail_set(f, TRUST_LINK_OWNER, cand, strlen(cand), &st, 0);
			return -EPERM;
		}
		n = readlink(cand, tmp, sizeof(tmp) - 1);
		if (n < 0)
			return -errno;
		tmp[n] = '\0';
		if ((size_t)n + 1 + strlen(rest) + 1 > sizeof(rest))
			return -ENAMETOOLONG;
		/* the link's text, then what was left after it */
		memmove(rest + n + 1, rest, strlen(rest) + 1);
		memcpy(rest, tmp, (size_t)n);
		rest[n] = '/';
		if (tmp[0] == '/')
			strcpy(out, "/");
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
	rc = canonical(dir, canon, owner, f);
	if (rc == -EPERM) {
		f->leaf = false;
		return rc;
	}
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

int trust_program_at(const char *dir, const char *name, int *dfdp, struct stat *stp,
		     struct trust_fail *f)
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
	if (rc == 0 && dfdp) {
		*dfdp = dfd;
		if (stp)
			*stp = st;
		return 0;
	}
	close(dfd);
	return rc;
}

int trust_program(const char *dir, const char *name, struct trust_fail *f)
{
	return trust_program_at(dir, name, NULL, NULL, f);
}
