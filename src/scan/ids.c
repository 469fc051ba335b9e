/*
 * Two narrow readers.  scan_ids_probe() opens one device the user named,
 * read-only, and asks libblkid what it holds and (for a partition) what its
 * table entry says: udev's own blkid builtin reads the same, so a PARTUUID
 * found here is the ID_PART_ENTRY_UUID udev will match even on a host whose
 * udev database is empty.  scan_sysfs_read_one() reads one device from sysfs
 * for partalign udev, which runs inside udev for every partition event and so
 * must not enumerate the host or open any device.
 */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/marker.h"
#include "scan/ids.h"
#include "shared/fileio.h"

static char *probe_value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0 && v && *v)
		return strdup(v);
	return NULL;
}

static bool is_kernel_part(const struct pa_dev *d)
{
	return d->kind == PA_KIND_PART && !d->dm_uuid;
}

/*
 * Does the disk below partition @d hold a partition table libblkid reads?
 * 1 yes, 0 when the disk was read (it has a size) and holds none, -1 when
 * it tells nothing: it cannot be opened, or reads as empty (umockdev's
 * nodes).  Only a table that is there makes a missing entry mean anything.
 */
static int disk_has_table(const struct pa_dev *d)
{
	blkid_probe pr;
	int found = -1;
	int fd;

	if (!d->disk || !d->disk->path)
		return -1;
	fd = open(d->disk->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	pr = blkid_new_probe();
	if (pr && blkid_probe_set_device(pr, fd, 0, 0) == 0 &&
	    blkid_probe_get_size(pr) > 0) {
		blkid_probe_enable_superblocks(pr, 0);
		blkid_probe_enable_partitions(pr, 1);
		found = blkid_do_safeprobe(pr) == 0 &&
			blkid_probe_lookup_value(pr, "PTTYPE", NULL, NULL) == 0;
	}
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return found;
}

int scan_ids_probe(struct pa_dev *d, char **signature)
{
	blkid_probe pr = NULL;
	int fd, rc = 0, r;

	*signature = NULL;
	fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;

	/* what the device holds */
	pr = blkid_new_probe();
	if (!pr) {
		rc = -ENOMEM;
		goto out;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		rc = errno ? -errno : -EIO;
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 0);
	r = blkid_do_safeprobe(pr);
	if (r == 0)
		*signature = probe_value(pr, "TYPE");
	else if (r == -2)
		*signature = strdup("several signatures");
	blkid_free_probe(pr);
	pr = NULL;

	/* its partition entry, or its own table */
	/* a partition's entry always: its type tells a disk half moved (core/marker.h) */
	if (is_kernel_part(d) || !d->pttype) {
		pr = blkid_new_probe();
		if (!pr) {
			rc = -ENOMEM;
			goto out;
		}
		if (blkid_probe_set_device(pr, fd, 0, 0) < 0)
			goto out;
		blkid_probe_enable_superblocks(pr, 0);
		blkid_probe_enable_partitions(pr, 1);
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
		r = blkid_do_safeprobe(pr);
		/* no entry in a table its disk does have; or no table at all */
		if (is_kernel_part(d) && (r == 0 || r == 1)) {
			int tab = disk_has_table(d);

			if (tab == 1)
				d->ondisk_checked = true;
			d->ondisk_no_table = tab == 0;
		}
		if (r == 0) {
			if (is_kernel_part(d)) {
				char *t = probe_value(pr, "PART_ENTRY_TYPE");

				if (t && (!d->part_type || marker_type_is_move(t))) {
					free(d->part_type);
					d->part_type = t;
				} else {
					free(t);
				}
				free(d->ondisk_uuid);
				d->ondisk_uuid = probe_value(pr, "PART_ENTRY_UUID");
				if (!d->part_uuid && d->ondisk_uuid)
					d->part_uuid = strdup(d->ondisk_uuid);
				if (!d->part_scheme)
					d->part_scheme =
					    probe_value(pr, "PART_ENTRY_SCHEME");
			} else {
				d->pttype = probe_value(pr, "PTTYPE");
			}
		}
	}
out:
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return rc;
}

/* ---- sysfs ------------------------------------------------------------- */

static int attr_read(const char *dir, const char *attr, char *buf, size_t len)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, attr) >= sizeof(p))
		return -ENAMETOOLONG;
	return read_attr_at(AT_FDCWD, p, buf, len);
}

static bool attr_num(const char *dir, const char *attr, long long *v)
{
	char buf[64], *end;

	if (attr_read(dir, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return errno == 0 && *end == '\0';
}

static void read_topo(const char *dir, struct pa_topology *t)
{
	long long v;

	t->logical =
	    attr_num(dir, "queue/logical_block_size", &v) && v > 0 ? (uint32_t)v : 512;
	t->physical = attr_num(dir, "queue/physical_block_size", &v) && v > 0
			  ? (uint32_t)v
			  : t->logical;
	t->min_io = attr_num(dir, "queue/minimum_io_size", &v) && v > 0 ? (uint32_t)v
									: t->logical;
	t->opt_io = attr_num(dir, "queue/optimal_io_size", &v) && v > 0 ? (uint32_t)v : 0;
	t->align_off = attr_num(dir, "alignment_offset", &v) ? v : 0;
}

static struct pa_dev *new_dev(const char *name, const char *dir, struct pa_devlist *l)
{
	struct pa_dev *d = pa_dev_new();
	long long v;

	if (!d)
		return NULL;
	d->name = strdup(name);
	if (asprintf(&d->path, "/dev/%s", name) < 0)
		d->path = NULL;
	if (!d->name || !d->path || pa_devlist_add(l, d) < 0) {
		pa_dev_free(d);
		return NULL;
	}
	if (attr_num(dir, "size", &v) && v > 0)
		d->size = (uint64_t)v * 512;
	return d;
}

int scan_sysfs_read_one(const char *name, struct pa_devlist *l, struct pa_dev **out)
{
	char dir[PATH_MAX], real[PATH_MAX], parent[PATH_MAX], buf[256];
	struct pa_dev *d, *disk = NULL;
	struct stat st;
	long long v;
	char *slash;

	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "/sys/class/block/%s", name);
	if (stat(dir, &st) < 0)
		return -errno;
	if (!realpath(dir, real))
		return -errno;

	if (attr_num(real, "partition", &v)) {
		snprintf(parent, sizeof(parent), "%s", real);
		slash = strrchr(parent, '/');
		if (!slash)
			return -ENOENT;
		*slash = '\0';
		disk = new_dev(strrchr(parent, '/') + 1, parent, l);
		if (!disk)
			return -ENOMEM;
		disk->kind = PA_KIND_DISK;
		read_topo(parent, &disk->topo);
		d = new_dev(name, real, l);
		if (!d)
			return -ENOMEM;
		d->kind = PA_KIND_PART;
		d->disk = disk;
		d->topo = disk->topo;
		d->partno = (unsigned int)v;
		if (attr_num(real, "start", &v) && v >= 0) {
			/* sysfs counts in 512-byte units on every device */
			d->start = (uint64_t)v * 512;
			d->start_known = true;
		}
		if (attr_num(real, "alignment_offset", &v)) {
			d->kalign_known = true;
			d->kernel_align = v;
		}
		disk->nparts = 1;
	} else {
		d = new_dev(name, real, l);
		if (!d)
			return -ENOMEM;
		read_topo(real, &d->topo);
		d->kind = strncmp(name, "loop", 4) == 0 ? PA_KIND_LOOP : PA_KIND_DISK;
		if (attr_read(real, "dm/uuid", buf, sizeof(buf)) == 0) {
			d->kind = PA_KIND_DM;
			if (buf[0]) {
				d->dm_uuid = strdup(buf);
				if (!d->dm_uuid)
					return -ENOMEM;
				if (strncmp(buf, "mpath-", 6) == 0) {
					d->kind = PA_KIND_MPATH;
				} else if (strncmp(buf, "part", 4) == 0 &&
					   strstr(buf, "-mpath-")) {
					/* kpartx: only the stacked offset is known here
					 */
					d->kind = PA_KIND_PART;
					d->partno =
					    (unsigned int)strtoul(buf + 4, NULL, 10);
					d->kalign_known = true;
					d->kernel_align = d->topo.align_off;
				} else if (strncmp(buf, "LVM-", 4) == 0) {
					d->kind = PA_KIND_LVM;
				} else if (strncmp(buf, "CRYPT-", 6) == 0) {
					d->kind = PA_KIND_CRYPT;
				}
			}
		} else if (attr_read(real, "md/level", buf, sizeof(buf)) == 0) {
			d->kind = PA_KIND_MD;
		}
	}
	*out = d;
	return 0;
}
