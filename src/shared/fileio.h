/*
 * File I/O helpers used by every layer above the core: whole writes and reads,
 * directories, and the one way a file is published (temporary file in the
 * target directory, fsync, rename, directory fsync).
 *
 * All return 0 or -errno.  Nothing here prints.
 */
#ifndef PARTALIGN_SHARED_FILEIO_H
#define PARTALIGN_SHARED_FILEIO_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* All of @buf to @fd; EINTR and short writes are retried.  A write of 0 bytes is -EIO. */
int write_all(int fd, const void *buf, size_t len);

/* @len bytes from @fd at @off (pread); EINTR and short reads retried; end of file is
 * -EIO. */
int pread_all(int fd, void *buf, size_t len, uint64_t off);

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

/* @dir and every missing parent, each made with @mode; existing directories are fine,
 * an existing non-directory is -ENOTDIR. */
int mkdir_p(const char *dir, mode_t mode);

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
 * temporary (".BASE.XXXXXX" beside @path, never matching "*.rules" or "*.pt"); the
 * caller writes t->fd; file_tmp_publish() fsyncs, renames and fsyncs the directory,
 * file_tmp_abort() removes it.  Either of those two ends the struct (closes and
 * frees all) and must be called once after a successful open; after a failed open
 * or a first end they do nothing (publish returns -EBADF).
 *
 * FILE_TMP_LOCK: hold an exclusive flock() on the directory from open to the end,
 * and first remove temporaries of @path left by a run that died before its rename.
 * t->step, after a failure, names the step that failed ("create", "write", "sync",
 * "rename", "sync-dir", "open-dir", "lock").
 */
enum { FILE_TMP_LOCK = 1 };

struct file_tmp {
	int fd;	 /* the temporary, open for writing */
	int dfd; /* the directory */
	char *path;
	char *tmp;
	const char *step;
};

int file_tmp_open(struct file_tmp *t, const char *path, mode_t mode, unsigned flags);
int file_tmp_publish(struct file_tmp *t);
void file_tmp_abort(struct file_tmp *t);

#endif
