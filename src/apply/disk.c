/*
 * Opening and locking a whole disk, reading sectors, and the disk identity
 * used to name backups.  The fd here is read-only; writes go through the
 * gate (gate.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply.h"
#include "shared/fileio.h"

int apply_disk_open(const char *path, unsigned int flags, int wait_ms, struct pa_disk *d)
{
	unsigned long long size = 0;
	int lsz = 0;
	unsigned int psz = 0;
	int waited = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->fd = d->lockfd = -1;
	d->lockfd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (d->lockfd < 0)
		return -errno;
	/*
	 * The lock first, waiting for its holder (udev does not probe a disk
	 * locked LOCK_EX; a second partalign waits here), and only then the
	 * exclusive open: the waiter must not mistake the first run's O_EXCL
	 * for a disk in use.
	 */
	while ((flags & PA_DISK_LOCK) && flock(d->lockfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK || waited >= wait_ms) {
			rc = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
			goto fail;
		}
		usleep(100 * 1000);
		waited += 100;
	}
	/* O_EXCL on a block device claims it: refused while mounted or held */
	d->fd = open(path, O_RDONLY | ((flags & PA_DISK_EXCL) ? O_EXCL : 0) | O_CLOEXEC |
			       O_NONBLOCK);
	if (d->fd < 0) {
		rc = -errno;
		goto fail;
	}
	if (ioctl(d->fd, BLKGETSIZE64, &size) < 0 || ioctl(d->fd, BLKSSZGET, &lsz) < 0 ||
	    ioctl(d->fd, BLKPBSZGET, &psz) < 0) {
		rc = -errno;
		goto fail;
	}
	d->size = size;
	d->logical = (uint32_t)lsz;
	d->physical = psz;
	d->path = strdup(path);
	if (!d->path) {
		rc = -ENOMEM;
		goto fail;
	}
	return 0;
fail:
	if (d->fd >= 0)
		close(d->fd);
	close(d->lockfd);
	d->fd = d->lockfd = -1;
	return rc;
}

bool apply_disk_is_readonly(const struct pa_disk *d)
{
	int ro = 0;

	/* BLKROGET: write protection of the device or its disk (losetup -r, sysfs ro) */
	return ioctl(d->fd, BLKROGET, &ro) == 0 && ro;
}

int apply_disk_same(const struct pa_disk *d, unsigned int major, unsigned int minor,
		    dev_t *now)
{
	dev_t want = makedev(major, minor);
	struct stat a, b;

	if (fstat(d->fd, &a) < 0 || fstat(d->lockfd, &b) < 0)
		return -errno;
	if (now)
		*now = a.st_rdev != want ? a.st_rdev : b.st_rdev;
	/* the lock was taken on one node, the disk opened after the wait: both */
	if (!S_ISBLK(a.st_mode) || !S_ISBLK(b.st_mode) || a.st_rdev != want ||
	    b.st_rdev != want)
		return -ESTALE;
	return 0;
}

void apply_disk_close(struct pa_disk *d)
{
	if (d->fd >= 0)
		close(d->fd); /* drops the exclusive claim */
	if (d->lockfd >= 0)
		close(d->lockfd); /* and the flock */
	d->fd = d->lockfd = -1;
	free(d->path);
	d->path = NULL;
}

int apply_disk_read(struct pa_disk *d, const struct pa_extent *r, void **buf)
{
	unsigned char *b = malloc(r->len ? r->len : 1);
	int rc;

	if (!b)
		return -ENOMEM;
	/* cached pages may predate our own O_DIRECT writes: read the disk */
	cache_drop(d->fd, r->off, r->len);
	rc = pread_all(d->fd, b, r->len, r->off);
	if (rc < 0) {
		free(b);
		return rc;
	}
	*buf = b;
	return 0;
}

/* Keep only characters safe in a file name. */
static char *sanitize(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_' ||
		      *p == ':'))
			*p = '_';
	return s;
}

char *apply_disk_id(const struct pa_dev *whole)
{
	char *id = NULL;
	int rc;

	if (whole->wwn)
		rc = asprintf(&id, "wwn:%s", whole->wwn);
	else if (whole->serial)
		rc = asprintf(&id, "serial:%s", whole->serial);
	else if (whole->backing_file)
		rc = asprintf(&id, "file:%s", whole->backing_file);
	else if (whole->dm_uuid)
		rc = asprintf(&id, "dm:%s", whole->dm_uuid);
	else
		rc = asprintf(&id, "name:%s", whole->name);
	return rc < 0 ? NULL : sanitize(id);
}
