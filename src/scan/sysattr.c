/*
 * Reading a device's sysfs attributes: one openat() and one read() per file,
 * relative to the device's directory descriptor, into the caller's buffers;
 * and the topology (queue limits, alignment offset) made of them.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <sys/syscall.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan/sysattr.h"
#include "shared/fileio.h"

bool sysattr_u64(int dfd, const char *attr, uint64_t *v)
{
	char buf[64], *end;

	if (read_attr_at(dfd, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0';
}

bool sysattr_s64(int dfd, const char *attr, int64_t *v)
{
	char buf[64], *end;

	if (read_attr_at(dfd, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return errno == 0 && *end == '\0';
}

bool sysattr_exists(int dfd, const char *attr)
{
	return faccessat(dfd, attr, F_OK, 0) == 0;
}

/* Copy a string attribute, NULL when absent or empty. */
char *sysattr_dup(int dfd, const char *attr)
{
	char buf[1024];
	char *s = buf;

	if (read_attr_at(dfd, attr, buf, sizeof(buf)) < 0)
		return NULL;
	while (*s == ' ')
		s++;
	return *s ? strdup(s) : NULL;
}

void sysattr_read_file(int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t n = 0, r;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return;
	/* a short read is the end: sysfs gives a whole attribute in one read */
	while ((size_t)n < len - 1 && (r = read(fd, buf + n, len - 1 - (size_t)n)) > 0) {
		n += r;
		if ((size_t)r < len - 1 - (size_t)(n - r))
			break;
	}
	close(fd);
	buf[n] = '\0';
}

/*
 * The topology of a whole device.  A missing, empty or zero attribute takes
 * the kernel's own default (logical 512, physical and minimum I/O the
 * logical size, optimal I/O 0: none).
 */
void sysattr_topology(int syspath, struct pa_topology *t)
{
	uint64_t v;
	int64_t s;

	t->logical =
	    sysattr_u64(syspath, "queue/logical_block_size", &v) && v && v <= UINT32_MAX
		? (uint32_t)v
		: 512;
	t->physical =
	    sysattr_u64(syspath, "queue/physical_block_size", &v) && v && v <= UINT32_MAX
		? (uint32_t)v
		: t->logical;
	t->min_io =
	    sysattr_u64(syspath, "queue/minimum_io_size", &v) && v && v <= UINT32_MAX
		? (uint32_t)v
		: t->logical;
	t->opt_io = sysattr_u64(syspath, "queue/optimal_io_size", &v) && v <= UINT32_MAX
			? (uint32_t)v
			: 0;
	/* libblkid clamps -1 to 0; the kernel's "cannot align" must survive */
	t->align_off = sysattr_s64(syspath, "alignment_offset", &s) ? s : 0;
}

/* A directory entry as getdents64(2) returns it (EL8's glibc has no wrapper). */
struct dirent64_raw {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * Names in directory @sub of the device (holders/, slaves/), space-separated.
 * getdents64 on the directory's descriptor, no DIR stream: sysfs fills the
 * buffer as far as the entries go, so a read that leaves room for one more
 * entry (NAME_MAX) is the last one, and a device's directory is read in two
 * system calls besides open and close.
 */
int sysattr_names(int dfd, const char *sub, char **list)
{
	union {
		char b[8192];
		struct dirent64_raw align;
	} buf;
	long n;
	int fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return 0;
	do {
		long k;

		n = syscall(SYS_getdents64, fd, buf.b, sizeof(buf.b));
		for (k = 0; rc == 0 && k < n;) {
			const struct dirent64_raw *de = (const void *)(buf.b + k);

			if (de->name[0] != '.')
				rc = device_strlist_append(list, de->name, ' ');
			k += de->reclen;
		}
	} while (rc == 0 && n > 0 &&
		 (size_t)n + sizeof(struct dirent64_raw) + NAME_MAX + 1 > sizeof(buf.b));
	close(fd);
	return rc;
}
