/*
 * Whole reads and writes, directories, and publishing a file by rename.
 *
 * file_tmp_* own the temporary file from open to publish or abort: on every
 * failure the temporary is unlinked before the error goes back, so a failed
 * run leaves nothing beside the target.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n =
		    pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
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
	size_t len = 0, cap = 4096;
	char *buf;
	int fd, rc = 0;

	*out = NULL;
	*outlen = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
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
	close(fd);
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
	DIR *dir;
	int fd = dup(dfd);

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
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

int file_tmp_open(struct file_tmp *t, const char *path, mode_t mode, unsigned flags)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir;
	int rc;

	*t = (struct file_tmp){.fd = -1, .dfd = -1, .step = "open-dir"};
	if (!*base)
		return -EISDIR;
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	t->path = strdup(path);
	if (!dir || !t->path || asprintf(&t->tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		t->tmp = NULL;
		free(dir);
		tmp_clear(t);
		return -ENOMEM;
	}
	t->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (t->dfd < 0)
		goto fail_errno;
	if (flags & FILE_TMP_LOCK) {
		t->step = "lock";
		if (flock(t->dfd, LOCK_EX) < 0)
			goto fail_errno;
		remove_stale_temps(t->dfd, base);
	}
	t->step = "create";
	t->fd = mkostemp(t->tmp, O_CLOEXEC); /* O_CREAT | O_EXCL, mode 0600 */
	if (t->fd < 0)
		goto fail_errno;
	if (fchmod(t->fd, mode) < 0) {
		rc = -errno;
		unlink(t->tmp);
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

int file_tmp_publish(struct file_tmp *t)
{
	int rc = 0;

	if (!t->path)
		return -EBADF;
	t->step = "sync";
	if (fsync(t->fd) < 0)
		rc = -errno;
	if (close(t->fd) < 0 && rc == 0)
		rc = -errno;
	t->fd = -1;
	if (rc == 0) {
		t->step = "rename";
		if (rename(t->tmp, t->path) < 0)
			rc = -errno;
	}
	if (rc < 0) {
		unlink(t->tmp);
		tmp_clear(t);
		return rc;
	}
	t->step = "sync-dir";
	if (fsync(t->dfd) < 0)
		rc = -errno;
	tmp_clear(t);
	return rc;
}

void file_tmp_abort(struct file_tmp *t)
{
	if (!t->path)
		return;
	unlink(t->tmp);
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
