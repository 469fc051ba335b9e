/*
 * Whole reads and writes, directories, and publishing a file by rename.
 *
 * file_tmp_* own the temporary file from open to publish or abort: on every
 * failure the temporary is unlinked before the error goes back, so a failed
 * run leaves nothing beside the target.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/fileio.h"

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int pread_upto(int fd, void *buf, size_t len, uint64_t off, size_t *done)
{
	*done = 0;
	while (*done < len) {
		ssize_t n =
		    pread(fd, (char *)buf + *done, len - *done, (off_t)(off + *done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*done += (size_t)n;
	}
	return 0;
}

int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done;
	int rc = pread_upto(fd, buf, len, off, &done);

	return rc < 0 ? rc : done < len ? -EIO : 0;
}

int pread_zero(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done;
	int rc = pread_upto(fd, buf, len, off, &done);

	if (rc < 0)
		return rc;
	memset((char *)buf + done, 0, len - done);
	return 0;
}

int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n =
		    pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

int read_file(const char *path, size_t max, void **out, size_t *outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	*out = NULL;
	*outlen = 0;
	if (fd < 0)
		return -errno;
	rc = read_fd(fd, max, out, outlen);
	close(fd);
	return rc;
}

int read_fd(int fd, size_t max, void **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf;
	int rc = 0;

	*out = NULL;
	*outlen = 0;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap > max) {
				rc = -EFBIG;
				break;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			rc = -EFBIG;
			break;
		}
	}
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int read_text(const char *path, size_t max, char **text)
{
	void *buf;
	size_t len;
	int rc = read_file(path, max, &buf, &len);

	*text = NULL;
	if (rc < 0)
		return rc;
	if (memchr(buf, '\0', len)) {
		free(buf);
		return -EILSEQ;
	}
	*text = buf;
	return 0;
}

int read_attr_at(int dfd, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

DIR *dir_open_at(int dfd, const char *path)
{
	int fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (!dir) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return dir;
}

char *path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static int mkdir_one(const char *dir, mode_t mode)
{
	struct stat st;

	if (mkdir(dir, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(dir, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int mkdir_p(const char *dir, mode_t mode)
{
	char *s, *p;
	int rc = 0;

	if (!dir || !*dir)
		return -EINVAL;
	s = strdup(dir);
	if (!s)
		return -ENOMEM;
	for (p = s + 1; *p && rc == 0; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		rc = mkdir_one(s, mode);
		*p = '/';
	}
	if (rc == 0)
		rc = mkdir_one(s, mode);
	free(s);
	return rc;
}

int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Remove ".BASE.XXXXXX" temporaries of an earlier run that died before its rename. */
static void remove_stale_temps(int dfd, const char *base)
{
	size_t bl = strlen(base);
	struct dirent *de;
	DIR *dir = dir_open_at(dfd, ".");

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		const char *n = de->d_name;

		if (n[0] == '.' && strncmp(n + 1, base, bl) == 0 && n[1 + bl] == '.' &&
		    strlen(n + 2 + bl) == 6)
			unlinkat(dfd, n, 0);
	}
	closedir(dir);
}

static void tmp_clear(struct file_tmp *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->dfd >= 0)
		close(t->dfd);
	free(t->path);
	free(t->tmp);
	t->fd = t->dfd = -1;
	t->path = t->tmp = NULL;
}

/*
 * Create the temporary t->tmp (".BASE.XXXXXX") in t->dfd: O_CREAT | O_EXCL |
 * O_NOFOLLOW, so that nothing planted there (a link, a file) is opened; a
 * name taken is drawn again, a few times.
 */
static int create_tmp(struct file_tmp *t)
{
	static const char chars[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char *tail = t->tmp + strlen(t->tmp) - 6;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		size_t i;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		for (i = 0; i < 6; i++)
			tail[i] = chars[r[i] % (sizeof(chars) - 1)];
		t->fd = openat(t->dfd, t->tmp,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (t->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int file_tmp_openat(struct file_tmp *t, int dfd, const char *name, mode_t mode,
		    unsigned flags)
{
	int rc;

	*t = (struct file_tmp){.fd = -1, .dfd = -1, .step = "open-dir"};
	if (!*name || strchr(name, '/'))
		return -EINVAL;
	t->path = strdup(name);
	if (!t->path || asprintf(&t->tmp, ".%s.XXXXXX", name) < 0) {
		t->tmp = NULL;
		tmp_clear(t);
		return -ENOMEM;
	}
	t->dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (t->dfd < 0)
		goto fail_errno;
	if (flags & FILE_TMP_LOCK) {
		t->step = "lock";
		if (flock(t->dfd, LOCK_EX) < 0)
			goto fail_errno;
		remove_stale_temps(t->dfd, name);
	}
	t->step = "create";
	rc = create_tmp(t);
	if (rc < 0) {
		tmp_clear(t);
		return rc;
	}
	if (fchmod(t->fd, mode) < 0) {
		rc = -errno;
		unlinkat(t->dfd, t->tmp, 0);
		tmp_clear(t);
		return rc;
	}
	t->step = "write";
	return 0;
fail_errno:
	rc = -errno;
	tmp_clear(t);
	return rc;
}

int file_tmp_open(struct file_tmp *t, const char *path, mode_t mode, unsigned flags)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir;
	int dfd, rc;

	*t = (struct file_tmp){.fd = -1, .dfd = -1, .step = "open-dir"};
	if (!*base)
		return -EISDIR;
	dir = path_dir(path);
	if (!dir)
		return -ENOMEM;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = dfd < 0 ? -errno : file_tmp_openat(t, dfd, base, mode, flags);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return rc;
}

/* fsync, close unless @keep, rename, directory fsync. */
static int publish(struct file_tmp *t, bool keep)
{
	int rc = 0;

	t->step = "sync";
	if (fsync(t->fd) < 0)
		rc = -errno;
	if (!keep) {
		if (close(t->fd) < 0 && rc == 0)
			rc = -errno;
		t->fd = -1;
	}
	if (rc < 0)
		return rc;
	t->step = "rename";
	if (renameat(t->dfd, t->tmp, t->dfd, t->path) < 0)
		return -errno;
	free(t->tmp);
	t->tmp = NULL; /* renamed: nothing to remove any more */
	t->step = "sync-dir";
	if (fsync(t->dfd) < 0)
		rc = -errno;
	return rc;
}

static int publish_end(struct file_tmp *t, bool keep, int *fd)
{
	int rc;

	if (fd)
		*fd = -1;
	if (!t->path)
		return -EBADF;
	rc = publish(t, keep);
	if (rc < 0 && t->tmp)
		unlinkat(t->dfd, t->tmp, 0);
	if (rc == 0 && keep) {
		*fd = t->fd;
		t->fd = -1;
	}
	tmp_clear(t);
	return rc;
}

int file_tmp_publish(struct file_tmp *t)
{
	return publish_end(t, false, NULL);
}

int file_tmp_publish_fd(struct file_tmp *t, int *fd)
{
	return publish_end(t, true, fd);
}

void file_tmp_abort(struct file_tmp *t)
{
	if (!t->path)
		return;
	unlinkat(t->dfd, t->tmp, 0);
	tmp_clear(t);
}

int file_publish(const char *path, const void *data, size_t len, mode_t mode)
{
	struct file_tmp t;
	int rc = file_tmp_open(&t, path, mode, 0);

	if (rc < 0)
		return rc;
	rc = write_all(t.fd, data, len);
	if (rc < 0) {
		file_tmp_abort(&t);
		return rc;
	}
	return file_tmp_publish(&t);
}

bool dir_same(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (strcmp(a, b) == 0)
		return true;
	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

void cache_drop(int fd, uint64_t off, uint64_t len)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = ps > 0 ? (uint64_t)ps : 4096, end;

	if (!len) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		return;
	}
	end = off + len < off ? UINT64_MAX : off + len;
	off -= off % page;
	if (end % page && end < UINT64_MAX - page)
		end += page - end % page;
	posix_fadvise(fd, (off_t)off, (off_t)(end - off), POSIX_FADV_DONTNEED);
}
