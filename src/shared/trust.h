/*
 * Trusted directories and files: where partalign keeps or reads what decides
 * the bytes it writes to a disk as root (table backups, move journals) and
 * the programs of PARTALIGN_TOOLDIR.
 *
 * A directory is trusted when it and every directory above it are owned by
 * root and writable by neither their group nor others, as sshd's StrictModes
 * checks a user's files.  A directory above it may be writable by others when
 * it is sticky (/tmp): no one else can rename or remove what root owns there.
 * A file is trusted when it is a regular file (not a link) in a trusted
 * directory, owned by root and writable by neither its group nor others.
 * "Root" is uid 0, or the user partalign runs as (the same when it can write
 * a disk; a test of this code may run as another user).
 *
 * The path is made canonical once (resolved as realpath() resolves the part
 * that exists, and every symbolic link on the way must be owned by root or
 * that user: another user could point it elsewhere later), then
 * walked from "/" one directory at a time, each opened relative to the one
 * before with O_NOFOLLOW and judged by fstat() of what was opened.  The
 * descriptor returned is the directory judged: files made or read through
 * it with openat() cannot be redirected by a rename or a link planted after
 * the check.
 *
 * All return 0 or -errno; -EPERM when something is not trusted.  Nothing here
 * prints: struct trust_fail says what failed, the cli words it.
 */
#ifndef PARTALIGN_SHARED_TRUST_H
#define PARTALIGN_SHARED_TRUST_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

enum trust_why {
	TRUST_OK = 0,
	TRUST_OWNER,	   /* owned by another user (uid) */
	TRUST_GROUP_WRITE, /* writable by its group (mode) */
	TRUST_OTHER_WRITE, /* writable by others, not sticky or not above (mode) */
	TRUST_NOT_DIR,	   /* a directory was expected (mode) */
	TRUST_NOT_FILE,	   /* a regular file was expected: a link, fifo, device (mode) */
	TRUST_LINK_OWNER,  /* a symbolic link on the way owned by another user (uid) */
	TRUST_ERROR,	   /* could not be looked at (err) */
};

struct trust_fail {
	enum trust_why why;
	bool leaf;	     /* it is the directory or file asked about, not one above */
	uid_t uid;	     /* its owner */
	mode_t mode;	     /* its st_mode */
	int err;	     /* TRUST_ERROR: the errno */
	char path[PATH_MAX]; /* the directory or file that failed (canonical) */
};

/*
 * The judgement of one directory (@dir true) or file from its stat: owned by
 * root or @owner, writable by neither group nor others; a directory above the
 * one asked about (@leaf false) may be writable by others if it is sticky.
 * Pure: no system call.
 */
enum trust_why trust_judge(const struct stat *st, uid_t owner, bool dir, bool leaf);

/* trust_dir_open() flags: make missing directories (mode 0700) on the way. */
enum { TRUST_CREATE = 1 };

/*
 * Walk @dir (absolute, or relative to the working directory) and judge every
 * directory of it.  0 with *@dfd (O_RDONLY | O_DIRECTORY, the caller closes
 * it; @dfd may be NULL) and f->path the directory's canonical path; -EPERM
 * with @f filled when one is not trusted;
 * -ENOENT without TRUST_CREATE when a directory of it does not exist (every
 * one above it is trusted then: creating it would be fine; f->path names it);
 * other -errno with f->why TRUST_ERROR.
 */
int trust_dir_open(const char *dir, unsigned flags, int *dfd, struct trust_fail *f);

/*
 * Open @name in the trusted directory @dfd (whose path is @dir, for @f; it
 * may be f->path) with
 * @oflags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC and judge the file opened (a
 * fifo does not block the open: O_NONBLOCK is cleared again on a regular
 * file).  0 with *@fd; -EPERM with @f filled; -errno (-ENOENT, -ELOOP for a
 * link: TRUST_NOT_FILE).
 */
int trust_file_openat(int dfd, const char *dir, const char *name, int oflags, int *fd,
		      struct trust_fail *f);

/* The same for @path: its directory by trust_dir_open(), then the file. */
int trust_file_open(const char *path, int oflags, int *fd, struct trust_fail *f);

/*
 * Is @name in @dir a trusted program: @dir trusted, @name a trusted regular
 * file there that root may execute?  0, -EPERM (@f filled), -errno.
 */
int trust_program(const char *dir, const char *name, struct trust_fail *f);

/*
 * The same, and when it is: the descriptor of the directory judged in
 * *@dfd (the caller closes it; f->path is its canonical path) and the
 * program's stat in *@st, so that what runs is the file judged: executed
 * relative to @dfd (execveat, not following a link), never by @dir again.
 */
int trust_program_at(const char *dir, const char *name, int *dfd, struct stat *st,
		     struct trust_fail *f);

#endif
