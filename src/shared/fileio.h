/*
 * File I/O helpers used by every layer above the core: whole writes and reads,
 * directories, and the one way a file is published (temporary file in the
 * target directory, fsync, rename, directory fsync).
 *
 * All return 0 or -errno.  Nothing here prints.
 */
#ifndef PARTALIGN_SHARED_FILEIO_H
#define PARTALIGN_SHARED_FILEIO_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* All of @buf to @fd; EINTR and short writes are retried.  A write of 0 bytes is -EIO. */
int write_all(int fd, const void *buf, size_t len);

/* @len bytes from @fd at @off (pread); EINTR and short reads retried; end of file is
 * -EIO. */
int pread_all(int fd, void *buf, size_t len, uint64_t off);

/* The same, but end of file ends the read early: *@done says how many bytes came. */
int pread_upto(int fd, void *buf, size_t len, uint64_t off, size_t *done);

/*
 * Drop the page cache of [@off, @off + @len) of @fd (0, 0: all of it), the
 * range widened to whole pages: a partition at sector 63 starts inside a
 * page, and posix_fadvise() keeps a page the range covers only in part, so
 * a signature another device's cache wrote there would be read stale.
 */
void cache_drop(int fd, uint64_t off, uint64_t len);

/* The same, the part past end of file read as zeros (a label reader's view of a disk). */
int pread_zero(int fd, void *buf, size_t len, uint64_t off);

/* @len bytes to @fd at @off (pwrite); EINTR and short writes retried. */
int pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/*
 * The whole file at @path, NUL-terminated, in *@text (malloc'd: the caller frees it).
 * -EFBIG when it holds more than @max bytes; -EILSEQ when it holds a NUL byte (it is
 * not text then).  *@text is NULL on failure.
 */
int read_text(const char *path, size_t max, char **text);

/*
 * The whole file at @path in *@buf (malloc'd, the caller frees it; one NUL byte is added
 * after the data, not counted in *@len).  -EFBIG above @max bytes.
 */
int read_file(const char *path, size_t max, void **buf, size_t *len);
/* The same from the open @fd, read from where it stands to its end. */
int read_fd(int fd, size_t max, void **buf, size_t *len);

/*
 * A sysfs or proc attribute at @path (relative to @dfd; AT_FDCWD for none) in @buf:
 * one read of at most @len - 1 bytes (such files come whole in one read), NUL-terminated,
 * trailing newlines, spaces and tabs removed.
 */
int read_attr_at(int dfd, const char *path, char *buf, size_t len);

/* The directory @path relative to @dfd (AT_FDCWD for none), open for readdir(); NULL
 * and errno set when it cannot be opened.  closedir() closes it. */
DIR *dir_open_at(int dfd, const char *path);

/* The directory part of @path, malloc'd: "." for a bare name, "/" for "/x"; NULL
 * without memory. */
char *path_dir(const char *path);

/* @dir and every missing parent, each made with @mode; existing directories are fine,
 * an existing non-directory is -ENOTDIR. */
int mkdir_p(const char *dir, mode_t mode);

/* Do two directory names name the same directory (either may not exist yet)? */
bool dir_same(const char *a, const char *b);

/* fsync() of the directory @dir: makes its entries (a rename, a new file) durable. */
int fsync_dir(const char *dir);

/*
 * Atomic replace of @path by @data: a temporary file in @path's directory (O_EXCL,
 * @mode exactly, not masked), written, fsynced, renamed over @path, then the directory
 * fsynced.  A crash leaves the old file or the new one, never a part; the temporary is
 * removed on every failure.
 */
int file_publish(const char *path, const void *data, size_t len, mode_t mode);

/*
 * The same in steps, for a file written in pieces.  file_tmp_open() creates the
 * temporary (".BASE.XXXXXX" beside @path, never matching "*.rules" or "*.pt";
 * O_EXCL | O_NOFOLLOW: nothing already there is opened); the caller writes
 * t->fd; file_tmp_publish() fsyncs, renames and fsyncs the directory,
 * file_tmp_abort() removes it.  Either of those two ends the struct (closes and
 * frees all) and must be called once after a successful open; after a failed open
 * or a first end they do nothing (publish returns -EBADF).
 * file_tmp_openat() does the same for the file @name in the directory open as
 * @dfd (a trusted one, shared/trust.h): every step is relative to it.
 *
 * FILE_TMP_LOCK: hold an exclusive flock() on the directory from open to the end,
 * and first remove temporaries of @path left by a run that died before its rename.
 * t->step, after a failure, names the step that failed ("create", "write", "sync",
 * "rename", "sync-dir", "open-dir", "lock").
 */
enum { FILE_TMP_LOCK = 1 };

struct file_tmp {
	int fd;	    /* the temporary, open to read and write (as mkostemp) */
	int dfd;    /* the directory */
	char *path; /* the file's name in the directory */
	char *tmp;  /* the temporary's name there */
	const char *step;
};

int file_tmp_open(struct file_tmp *t, const char *path, mode_t mode, unsigned flags);
int file_tmp_openat(struct file_tmp *t, int dfd, const char *name, mode_t mode,
		    unsigned flags);
int file_tmp_publish(struct file_tmp *t);
/* file_tmp_publish() that hands the open temporary, now @path, to the caller in *@fd
 * (the caller closes it); on failure *@fd is -1. */
int file_tmp_publish_fd(struct file_tmp *t, int *fd);
void file_tmp_abort(struct file_tmp *t);

#endif
