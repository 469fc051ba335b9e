/*
 * What holds one block device that the kernel will not let go of, asked of
 * the host when it happens: a mount (mountinfo, by device number), a swap
 * area (/proc/swaps, by the device number of the node it names), a kernel
 * holder (sysfs holders/: a dm map, an md array, bcache), a loop device set
 * up on it (LOOP_GET_STATUS64's backing device number, or sysfs
 * loop/backing_file's node), or a process (openers.c).  And who holds the
 * flock(2) lock of a disk node (/proc/locks).  Nothing is written, no
 * device is opened but loop devices, read-only, for their status.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "scan/holders.h"
#include "shared/fileio.h"
#include "shared/hex.h"

dev_t scan_loop_rdev(uint64_t huge)
{
	/* the kernel's new_encode_dev(): minor's low byte, major, minor's rest */
	unsigned int ma = (unsigned int)((huge & 0xfff00) >> 8);
	unsigned int mi = (unsigned int)((huge & 0xff) | ((huge >> 12) & 0xfff00));

	return makedev(ma, mi);
}

/* mountinfo's and swaps' \ooo escapes (space, tab, newline, backslash) */
static int octal_escape(const char *s)
{
	if (s[0] != '\\' || s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' ||
	    s[3] < '0' || s[3] > '7')
		return -1;
	return (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0') ?: -1;
}

int scan_mount_of(FILE *mountinfo, dev_t dev, char *mp, size_t len)
{
	char *line = NULL, buf[4096];
	size_t cap = 0;
	int found = 0;

	while (!found && getline(&line, &cap, mountinfo) > 0) {
		unsigned int ma, mi;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, buf) != 3 ||
		    makedev(ma, mi) != dev)
			continue;
		unescape4(buf, octal_escape);
		snprintf(mp, len, "%s", buf);
		found = 1;
	}
	free(line);
	return found;
}

int scan_swap_of(FILE *swaps, dev_t dev, char *path, size_t len)
{
	char *line = NULL, buf[4096];
	size_t cap = 0;
	int found = 0;

	while (!found && getline(&line, &cap, swaps) > 0) {
		struct stat st;

		if (sscanf(line, "%4095s", buf) != 1 || buf[0] != '/')
			continue;
		unescape4(buf, octal_escape);
		if (stat(buf, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dev)
			continue;
		snprintf(path, len, "%s", buf);
		found = 1;
	}
	free(line);
	return found;
}

/*
 * The device the bound loop device @name is set up on, or 0 (a file).  The
 * kernel gives the backing file's rdev in lo_rdevice; kernels before 5.x
 * give its st_dev there when it is not a block device, which the node's own
 * st_dev (lo_device) tells apart: a block device's node never lives on the
 * device it names.
 */
static dev_t loop_backing(const char *name)
{
	struct loop_info64 info;
	char path[PATH_MAX], *text = NULL;
	struct stat st;
	dev_t dev = 0;
	int fd, asked = 0;

	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		asked = fstat(fd, &st) == 0 && S_ISBLK(st.st_mode) &&
			ioctl(fd, LOOP_GET_STATUS64, &info) == 0;
		close(fd);
	}
	if (asked)
		return info.lo_rdevice && info.lo_rdevice != info.lo_device
			   ? scan_loop_rdev(info.lo_rdevice)
			   : 0;
	/* the loop device cannot be asked: the node its backing_file names */
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name);
	if (read_text(path, PATH_MAX, &text) == 0) {
		text[strcspn(text, "\n")] = '\0';
		if (stat(text, &st) == 0 && S_ISBLK(st.st_mode))
			dev = st.st_rdev;
		free(text);
	}
	return dev;
}

int scan_loops_over(const dev_t *devs, size_t n, struct pa_holder *h)
{
	DIR *dd = opendir("/sys/block");
	struct dirent *de;
	int count = 0;

	if (!dd)
		return -errno;
	memset(h, 0, sizeof(*h));
	while ((de = readdir(dd))) {
		char path[PATH_MAX];
		struct stat st;
		dev_t b;
		size_t i;

		/* a loop device that is set up has its loop/ directory */
		snprintf(path, sizeof(path), "/sys/block/%s/loop", de->d_name);
		if (strncmp(de->d_name, "loop", 4) != 0 || stat(path, &st) < 0)
			continue;
		b = loop_backing(de->d_name);
		for (i = 0; b && i < n && devs[i] != b; i++)
			;
		if (!b || i == n)
			continue;
		if (!count++) {
			h->kind = PA_HOLDER_LOOP;
			h->dev = b;
			h->fd = -1;
			snprintf(h->name, sizeof(h->name), "%s", de->d_name);
		}
	}
	closedir(dd);
	return count;
}

/* The first entry of @dev's holders/ directory in sysfs: 1 with @h, or 0. */
static int kernel_holder(dev_t dev, struct pa_holder *h)
{
	char path[PATH_MAX], name[128];
	struct dirent *de;
	DIR *dd;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", major(dev),
		 minor(dev));
	dd = opendir(path);
	if (!dd)
		return 0;
	while (!found && (de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		h->kind = PA_HOLDER_STACK;
		snprintf(h->name, sizeof(h->name), "%s", de->d_name);
		/* a dm map by its name too */
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name", de->d_name);
		if (read_attr_at(AT_FDCWD, path, name, sizeof(name)) == 0)
			snprintf(h->comm, sizeof(h->comm), "%.31s", name);
		found = 1;
	}
	closedir(dd);
	return found;
}

static int from_file(const char *path, int (*fn)(FILE *, dev_t, char *, size_t),
		     dev_t dev, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f)
		return 0;
	rc = fn(f, dev, out, len);
	fclose(f);
	return rc;
}

int scan_holder_of(dev_t dev, struct pa_holder *h)
{
	struct pa_openers o;
	int rc;

	memset(h, 0, sizeof(*h));
	h->dev = dev;
	h->fd = -1;
	if (from_file("/proc/self/mountinfo", scan_mount_of, dev, h->name,
		      sizeof(h->name)) > 0) {
		h->kind = PA_HOLDER_MOUNT;
		return 0;
	}
	if (from_file("/proc/swaps", scan_swap_of, dev, h->name, sizeof(h->name)) > 0) {
		h->kind = PA_HOLDER_SWAP;
		return 0;
	}
	if (kernel_holder(dev, h))
		return 0;
	rc = scan_loops_over(&dev, 1, h);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = scan_openers(&dev, 1, &o);
	if (rc < 0)
		return rc;
	if (!o.n) {
		memset(h, 0, sizeof(*h));
		h->dev = dev;
		h->fd = -1;
		return -ENOENT;
	}
	*h = o.v[0];
	return 0;
}

int scan_lock_holder(int fd, struct pa_holder *h)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	pid_t self = getpid();
	int rc = -ENOENT;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	if (fstat(fd, &st) < 0)
		return -errno;
	f = fopen("/proc/locks", "re");
	if (!f)
		return -errno;
	while (rc == -ENOENT && getline(&line, &cap, f) > 0) {
		struct pa_lock_line k;

		if (scan_locks_line(line, &k) < 0 || k.waiter || !k.flock ||
		    makedev(k.major, k.minor) != st.st_dev ||
		    k.inode != (uint64_t)st.st_ino || k.pid == self)
			continue;
		h->kind = PA_HOLDER_FD;
		h->pid = k.pid > 0 ? k.pid : 0;
		h->dev = st.st_rdev;
		rc = 0;
	}
	free(line);
	fclose(f);
	if (rc == 0 && h->pid) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%ld/comm", (long)h->pid);
		(void)read_attr_at(AT_FDCWD, path, h->comm, sizeof(h->comm));
	}
	return rc;
}
