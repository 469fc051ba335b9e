/*
 * Enumeration of block devices through libudev, with the topology read from
 * sysfs and identities from the udev database.  Fills plain structs
 * (core/device.h); the analyzer never sees a udev_device.
 *
 * The scan owns nothing after it returns: the devlist holds copies of every
 * string it needs.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "scan/scan.h"

/* Read a sysfs attribute below @syspath; trailing whitespace trimmed. */
static int attr_read(const char *syspath, const char *attr, char *buf, size_t len)
{
	char p[PATH_MAX];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", syspath, attr) >= sizeof(p))
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

static bool attr_u64(const char *syspath, const char *attr, uint64_t *v)
{
	char buf[64], *end;

	if (attr_read(syspath, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0';
}

static bool attr_s64(const char *syspath, const char *attr, int64_t *v)
{
	char buf[64], *end;

	if (attr_read(syspath, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return errno == 0 && *end == '\0';
}

static bool attr_exists(const char *syspath, const char *attr)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", syspath, attr) >= sizeof(p))
		return false;
	return access(p, F_OK) == 0;
}

/* Copy a string attribute, NULL when absent or empty. */
static char *attr_dup(const char *syspath, const char *attr)
{
	char buf[1024];
	char *s = buf;

	if (attr_read(syspath, attr, buf, sizeof(buf)) < 0)
		return NULL;
	while (*s == ' ')
		s++;
	return *s ? strdup(s) : NULL;
}

static char *prop_dup(struct udev_device *u, const char *key)
{
	const char *v = udev_device_get_property_value(u, key);

	return v && *v ? strdup(v) : NULL;
}

/* First present of several udev properties. */
static char *prop_first(struct udev_device *u, const char *const *keys)
{
	for (; *keys; keys++) {
		char *v = prop_dup(u, *keys);

		if (v)
			return v;
	}
	return NULL;
}

static void read_topology(const char *syspath, struct pa_topology *t)
{
	uint64_t v;
	int64_t s;

	t->logical = attr_u64(syspath, "queue/logical_block_size", &v) ? (uint32_t)v : 512;
	t->physical = attr_u64(syspath, "queue/physical_block_size", &v) ? (uint32_t)v
									  : t->logical;
	t->min_io = attr_u64(syspath, "queue/minimum_io_size", &v) ? (uint32_t)v : t->logical;
	t->opt_io = attr_u64(syspath, "queue/optimal_io_size", &v) ? (uint32_t)v : 0;
	/* libblkid clamps -1 to 0; the kernel's "cannot align" must survive */
	t->align_off = attr_s64(syspath, "alignment_offset", &s) ? s : 0;
}

static int read_holders(const char *syspath, struct pa_dev *d)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	if ((size_t)snprintf(p, sizeof(p), "%s/holders", syspath) >= sizeof(p))
		return 0;
	dir = opendir(p);
	if (!dir)
		return 0;
	while (rc == 0 && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			rc = pa_strlist_append(&d->holders, de->d_name, ' ');
	closedir(dir);
	return rc;
}

static enum pa_kind dm_kind(const char *uuid)
{
	if (!uuid)
		return PA_KIND_DM;
	if (strncmp(uuid, "mpath-", 6) == 0)
		return PA_KIND_MPATH;
	if (strncmp(uuid, "part", 4) == 0 && strstr(uuid, "-mpath-"))
		return PA_KIND_PART;
	if (strncmp(uuid, "LVM-", 4) == 0)
		return PA_KIND_LVM;
	if (strncmp(uuid, "CRYPT-", 6) == 0)
		return PA_KIND_CRYPT;
	return PA_KIND_DM;
}

static bool skip_name(const char *name)
{
	return strncmp(name, "ram", 3) == 0 || strncmp(name, "zram", 4) == 0;
}

/* Identity, contents and partition-table fields from the udev database. */
static int fill_props(struct udev_device *u, struct pa_dev *d, const char *syspath,
		      bool part)
{
	static const char *const serial_keys[] = {"ID_SCSI_SERIAL", "ID_SERIAL_SHORT",
						  "ID_SERIAL", NULL};
	static const char *const wwn_keys[] = {"ID_WWN_WITH_EXTENSION", "ID_WWN", NULL};
	static const char *const name_keys[] = {"ID_PART_ENTRY_NAME", "PARTNAME", NULL};

	d->fstype = prop_dup(u, "ID_FS_TYPE");
	d->model = prop_dup(u, "ID_MODEL");
	d->serial = prop_first(u, serial_keys);
	d->wwn = prop_first(u, wwn_keys);
	d->id_serial = prop_dup(u, "ID_SERIAL");
	d->id_wwn = prop_dup(u, "ID_WWN");
	if (part) {
		d->part_scheme = prop_dup(u, "ID_PART_ENTRY_SCHEME");
		d->part_name = prop_first(u, name_keys);
		d->part_uuid = prop_dup(u, "ID_PART_ENTRY_UUID");
		d->part_type = prop_dup(u, "ID_PART_ENTRY_TYPE");
		return 0;
	}
	d->pttype = prop_dup(u, "ID_PART_TABLE_TYPE");
	/* sysfs knows some identities even without a udev database */
	if (!d->model)
		d->model = attr_dup(syspath, "device/model");
	if (!d->serial)
		d->serial = attr_dup(syspath, "serial"); /* virtio-blk */
	if (!d->serial)
		d->serial = attr_dup(syspath, "device/serial"); /* NVMe controller */
	if (!d->wwn)
		d->wwn = attr_dup(syspath, "wwid"); /* NVMe namespace */
	if (!d->wwn)
		d->wwn = attr_dup(syspath, "device/wwid"); /* SCSI VPD 0x83 */
	return 0;
}

static int add_device(struct udev_device *u, struct pa_devlist *out)
{
	const char *syspath = udev_device_get_syspath(u);
	const char *name = udev_device_get_sysname(u);
	const char *devtype = udev_device_get_devtype(u);
	const char *node = udev_device_get_devnode(u);
	bool part = devtype && strcmp(devtype, "partition") == 0;
	dev_t devno = udev_device_get_devnum(u);
	struct pa_dev *d;
	uint64_t v;
	int rc = -ENOMEM;

	if (!syspath || !name || skip_name(name))
		return 0;
	if (!attr_u64(syspath, "size", &v) || v == 0)
		return 0; /* unbound loop, empty drive */
	if (strncmp(name, "loop", 4) == 0 && !part && !attr_exists(syspath, "loop"))
		return 0;
	if (attr_u64(syspath, "hidden", &v) && v)
		return 0; /* NVMe multipath per-controller node */

	d = pa_dev_new();
	if (!d)
		return -ENOMEM;
	attr_u64(syspath, "size", &v);
	d->size = v * 512;
	d->major = major(devno);
	d->minor = minor(devno);
	d->name = strdup(name);
	if (node)
		d->path = strdup(node);
	else if (asprintf(&d->path, "/dev/%s", name) < 0)
		d->path = NULL;
	if (!d->name || !d->path)
		goto fail;

	if (part) {
		d->kind = PA_KIND_PART;
		if (attr_u64(syspath, "partition", &v))
			d->partno = (unsigned int)v;
		if (attr_u64(syspath, "start", &v)) {
			/* sysfs counts in 512-byte units on every device */
			d->start = v * 512;
			d->start_known = true;
		}
		d->kalign_known = attr_s64(syspath, "alignment_offset", &d->kernel_align);
	} else {
		read_topology(syspath, &d->topo);
		if (attr_exists(syspath, "dm")) {
			d->dm_uuid = attr_dup(syspath, "dm/uuid");
			d->dm_name = attr_dup(syspath, "dm/name");
			d->kind = dm_kind(d->dm_uuid);
			if (d->kind == PA_KIND_PART) {
				/* kpartx partition: its own offset is the stacked one */
				d->kalign_known = true;
				d->kernel_align = d->topo.align_off;
				d->partno = (unsigned int)strtoul(d->dm_uuid + 4, NULL, 10);
			}
		} else if (attr_exists(syspath, "md")) {
			d->kind = PA_KIND_MD;
		} else if (strncmp(name, "loop", 4) == 0) {
			d->kind = PA_KIND_LOOP;
			d->backing_file = attr_dup(syspath, "loop/backing_file");
		} else {
			d->kind = PA_KIND_DISK;
		}
	}
	if (fill_props(u, d, syspath, part || d->kind == PA_KIND_PART) < 0 || read_holders(syspath, d) < 0)
		goto fail;
	rc = pa_devlist_add(out, d);
	if (rc == 0)
		return 0;
fail:
	pa_dev_free(d);
	return rc;
}

/* The one device named in a sysfs directory listing (slaves/), or NULL. */
static struct pa_dev *first_slave(const struct pa_devlist *l, const struct pa_dev *d)
{
	char p[PATH_MAX];
	struct dirent *de;
	struct pa_dev *found = NULL;
	DIR *dir;

	snprintf(p, sizeof(p), "/sys/class/block/%s/slaves", d->name);
	dir = opendir(p);
	if (!dir)
		return NULL;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.' && (found = pa_devlist_find_name(l, de->d_name)))
			break;
	closedir(dir);
	return found;
}

static int link_multipath(struct pa_devlist *l, struct pa_dev *map)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	size_t i;
	int rc = 0;

	snprintf(p, sizeof(p), "/sys/class/block/%s/slaves", map->name);
	dir = opendir(p);
	if (!dir)
		return 0;
	while (rc == 0 && (de = readdir(dir))) {
		struct pa_dev *path;

		if (de->d_name[0] == '.' || !(path = pa_devlist_find_name(l, de->d_name)))
			continue;
		path->is_path = true;
		path->map = map;
		rc = pa_strlist_append(&map->paths, path->name, ' ');
		/* a kernel that parsed the path's table also made partitions of it */
		for (i = 0; i < l->n; i++)
			if (l->v[i]->disk == path) {
				l->v[i]->is_path = true;
				l->v[i]->map = map;
			}
	}
	closedir(dir);
	return rc;
}

/* Second pass: partitions to their disks, kpartx maps to their map, paths to maps. */
static int link_devices(struct udev *udev, struct pa_devlist *l)
{
	size_t i;
	int rc;

	for (i = 0; i < l->n; i++) {
		struct pa_dev *d = l->v[i];

		if (d->kind != PA_KIND_PART)
			continue;
		if (d->dm_uuid) {
			d->disk = first_slave(l, d);
			if (d->disk && scan_dm_linear_start(d->major, d->minor, &d->start) == 0) {
				d->start_known = true;
				d->topo = d->disk->topo;
			}
		} else {
			struct udev_device *u, *p;

			u = udev_device_new_from_devnum(udev, 'b', makedev(d->major, d->minor));
			p = u ? udev_device_get_parent_with_subsystem_devtype(u, "block", "disk")
			      : NULL;
			if (p)
				d->disk = pa_devlist_find_name(l, udev_device_get_sysname(p));
			udev_device_unref(u);
			if (d->disk)
				d->topo = d->disk->topo;
		}
		if (d->disk) {
			d->disk->nparts++;
			if (!d->model && d->disk->model)
				d->model = strdup(d->disk->model);
			if (!d->serial && d->disk->serial)
				d->serial = strdup(d->disk->serial);
			if (!d->wwn && d->disk->wwn)
				d->wwn = strdup(d->disk->wwn);
		}
	}
	for (i = 0; i < l->n; i++)
		if (l->v[i]->kind == PA_KIND_MPATH && (rc = link_multipath(l, l->v[i])) < 0)
			return rc;
	return 0;
}

int scan_devices(const struct pa_scan_opts *o, struct pa_devlist *out,
		 struct pa_diags *diags)
{
	struct udev *udev;
	struct udev_enumerate *en = NULL;
	struct udev_list_entry *e;
	int rc;

	udev = udev_new();
	if (!udev)
		return -ENOMEM;
	en = udev_enumerate_new(udev);
	if (!en) {
		rc = -ENOMEM;
		goto out;
	}
	rc = udev_enumerate_add_match_subsystem(en, "block");
	if (rc == 0)
		rc = udev_enumerate_scan_devices(en);
	if (rc < 0)
		goto out;

	udev_list_entry_foreach(e, udev_enumerate_get_list_entry(en))
	{
		struct udev_device *u;

		u = udev_device_new_from_syspath(udev, udev_list_entry_get_name(e));
		if (!u)
			continue; /* gone since the listing */
		rc = add_device(u, out);
		udev_device_unref(u);
		if (rc < 0)
			goto out;
	}
	rc = link_devices(udev, out);
	if (rc == 0)
		rc = scan_mounts_fill(out);
out:
	udev_enumerate_unref(en);
	udev_unref(udev);
	return rc;
}

int scan_lookup(const struct pa_devlist *l, const char *path, struct pa_dev **out)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*out = pa_devlist_find_devno(l, major(st.st_rdev), minor(st.st_rdev));
	return *out ? 0 : -ENODEV;
}
