/*
 * Enumeration of block devices: /sys/class/block, the topology from sysfs,
 * identities from the udev database (the files libudev reads).  Fills plain
 * structs (core/device.h); the analyzer never sees sysfs.  One reader serves
 * the whole scan (check, rules, plan...) and the single device of partalign
 * udev, so the two cannot disagree; every path it opens is below a root,
 * "" for the host or a `partalign dump` directory (check --sysroot).
 *
 * The scan owns nothing after it returns: the devlist holds copies of every
 * string it needs.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "scan/scan.h"
#include "scan/sysattr.h"
#include "scan/udevprops.h"
#include "shared/fileio.h"

/*
 * sysfs and the udev database are read directly, relative to one directory
 * fd per device.  Profiling a host with 4,000 block devices showed libudev
 * spending about 50 syscalls per device (path canonicalisation, hashmaps)
 * before the first attribute was read; this way it is about 10.
 */

/*
 * Every file below a device's sysfs directory that this file reads (besides
 * the holders/ and slaves/ directories), for partalign dump; and "dev",
 * which the scan takes from uevent but people and scripts read.
 */
const char *const scan_sysfs_attrs[] = {
    "uevent",
    "dev",
    "size",
    "partition",
    "start",
    "alignment_offset",
    "hidden",
    "queue/logical_block_size",
    "queue/physical_block_size",
    "queue/minimum_io_size",
    "queue/optimal_io_size",
    "dm/uuid",
    "dm/name",
    "md/level",
    "md/chunk_size",
    "md/raid_disks",
    "md/layout",
    "loop/backing_file",
    "serial",
    "wwid",
    "device/wwid",
    "device/model",
    "device/serial",
    NULL,
};

/* One scan: where it reads and what it collects on the way. */
struct scan {
	const char *root; /* "" for the host: paths stay absolute, as umockdev wants */
	bool sysroot;
	int cfd; /* <root>/sys/class/block */
	struct props u;
	struct pa_diags *diags;
};

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

/*
 * One entry of /sys/class/block (s->cfd) into @out; nothing is added for a
 * device the scan skips.  A partition's d->parent_name is the kernel name of
 * its disk (the directory above it in sysfs), a kpartx map's that of its map.
 */
/* A partition's number, start and kernel alignment, and the name of its disk. */
static void read_part(struct scan *s, const char *name, int dfd, const char *uevent,
		      struct pa_dev *d)
{
	char link[PATH_MAX];
	const char *pn;
	uint64_t v;
	ssize_t n;
	size_t len;
	int cfd = s->cfd;

	d->kind = PA_KIND_PART;
	/* PARTN= of the uevent already read is the sysfs "partition" attribute */
	if ((pn = udevprops_get(uevent, "", "PARTN", &len)) && len && len < 10 &&
	    strspn(pn, "0123456789") >= len)
		d->partno = (unsigned int)strtoul(pn, NULL, 10);
	else if (sysattr_u64(dfd, "partition", &v))
		d->partno = (unsigned int)v;
	if (sysattr_u64(dfd, "start", &v)) {
		/* sysfs counts in 512-byte units on every device */
		d->start = v * 512;
		d->start_known = true;
	}
	d->kalign_known = sysattr_s64(dfd, "alignment_offset", &d->kernel_align);
	/* the disk is the directory above: .../block/sda/sda1 */
	n = readlinkat(cfd, name, link, sizeof(link) - 1);
	if (n > 0) {
		char *slash;

		link[n] = '\0';
		slash = strrchr(link, '/');
		if (slash) {
			*slash = '\0';
			slash = strrchr(link, '/');
			d->parent_name = strdup(slash ? slash + 1 : link);
		}
	}
}

/* Anything but a kernel partition: its topology and kind. */
static int read_whole(int dfd, const char *name, struct pa_dev *d)
{
	int rc;

	sysattr_topology(dfd, &d->topo);
	if (strncmp(name, "dm-", 3) == 0 && sysattr_exists(dfd, "dm")) {
		d->dm_uuid = sysattr_dup(dfd, "dm/uuid");
		d->dm_name = sysattr_dup(dfd, "dm/name");
		d->kind = dm_kind(d->dm_uuid);
		if (d->kind == PA_KIND_PART) {
			/* kpartx partition: its own offset is the stacked one */
			d->kalign_known = true;
			d->kernel_align = d->topo.align_off;
			d->partno = (unsigned int)strtoul(d->dm_uuid + 4, NULL, 10);
			rc = sysattr_names(dfd, "slaves", &d->parent_name);
			if (rc < 0)
				return rc;
		} else if (d->kind != PA_KIND_MPATH) {
			/* a stacked dm device: what it stands on, for a named scan */
			rc = sysattr_names(dfd, "slaves", &d->parent_name);
			if (rc < 0)
				return rc;
		}
	} else if (strncmp(name, "md", 2) == 0 && sysattr_exists(dfd, "md")) {
		d->kind = PA_KIND_MD;
		/* the layout and the members below, for check to follow (issue #15) */
		rc = scan_md_read(dfd, d);
		if (rc == 0)
			rc = sysattr_names(dfd, "slaves", &d->parent_name);
		if (rc < 0)
			return rc;
	} else if (strncmp(name, "loop", 4) == 0) {
		d->kind = PA_KIND_LOOP;
		d->backing_file = sysattr_dup(dfd, "loop/backing_file");
	} else {
		d->kind = PA_KIND_DISK;
	}
	return 0;
}

static int add_device(struct scan *s, const char *name, struct pa_devlist *out)
{
	struct props *u = &s->u;
	int cfd = s->cfd;
	char link[PATH_MAX];
	unsigned int ma = 0, mi = 0;
	struct pa_dev *d = NULL;
	const char *devname;
	bool part;
	uint64_t v, size;
	size_t len;
	int dfd, rc = -ENOMEM;

	if (name[0] == '.' || skip_name(name))
		return 0;
	dfd = openat(cfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0; /* gone since the listing */
	if (!sysattr_u64(dfd, "size", &size) || size == 0) {
		rc = 0; /* unbound loop, empty drive */
		goto out;
	}
	sysattr_read_file(dfd, "uevent", u->uevent, sizeof(u->uevent));
	part = (devname = udevprops_get(u->uevent, "", "DEVTYPE", &len)) && len == 9 &&
	       strncmp(devname, "partition", 9) == 0;
	if (strncmp(name, "loop", 4) == 0 && !part && !sysattr_exists(dfd, "loop")) {
		rc = 0;
		goto out;
	}
	if (strncmp(name, "nvme", 4) == 0 && !part && sysattr_u64(dfd, "hidden", &v) &&
	    v) {
		rc = 0; /* NVMe multipath per-controller node */
		goto out;
	}
	/* MAJOR= and MINOR= are in the uevent already read */
	{
		const char *vma = udevprops_get(u->uevent, "", "MAJOR", &len);
		const char *vmi =
		    vma ? udevprops_get(u->uevent, "", "MINOR", &len) : NULL;

		if (!vma || !vmi) {
			rc = 0;
			goto out;
		}
		ma = (unsigned int)strtoul(vma, NULL, 10);
		mi = (unsigned int)strtoul(vmi, NULL, 10);
	}
	snprintf(link, sizeof(link), "%s/run/udev/data/b%u:%u", s->root, ma, mi);
	sysattr_read_file(AT_FDCWD, link, u->db, sizeof(u->db));

	d = device_new();
	if (!d)
		goto out;
	d->size = size * 512;
	d->major = ma;
	d->minor = mi;
	d->name = strdup(name);
	devname = udevprops_get(u->uevent, "", "DEVNAME", &len);
	if (asprintf(&d->path, "/dev/%.*s", devname ? (int)len : (int)strlen(name),
		     devname ? devname : name) < 0)
		d->path = NULL;
	if (!d->name || !d->path)
		goto fail;

	if (part) {
		read_part(s, name, dfd, u->uevent, d);
	} else {
		rc = read_whole(dfd, name, d);
		if (rc < 0)
			goto fail;
	}
	rc = -ENOMEM;
	if (udevprops_fill(u, d, dfd, part || d->kind == PA_KIND_PART) < 0 ||
	    sysattr_names(dfd, "holders", &d->holders) < 0)
		goto fail;
	if (d->kind == PA_KIND_MPATH && sysattr_names(dfd, "slaves", &d->paths) < 0)
		goto fail;
	rc = devlist_add(out, d);
	if (rc == 0)
		goto out;
fail:
	device_free(d);
out:
	close(dfd);
	return rc;
}

/* Lookup by kernel name during linking: a sorted index, so 4,000 devices stay cheap. */
struct name_index {
	struct pa_dev **v;
	size_t n;
};

static int cmp_dev_name(const void *a, const void *b)
{
	return strcmp((*(struct pa_dev *const *)a)->name,
		      (*(struct pa_dev *const *)b)->name);
}

static int cmp_key_name(const void *key, const void *b)
{
	return strcmp(key, (*(struct pa_dev *const *)b)->name);
}

static struct pa_dev *index_find(const struct name_index *ix, const char *name,
				 size_t len)
{
	char key[256];
	struct pa_dev **hit;

	if (len >= sizeof(key))
		return NULL;
	memcpy(key, name, len);
	key[len] = '\0';
	hit = bsearch(key, ix->v, ix->n, sizeof(*ix->v), cmp_key_name);
	return hit ? *hit : NULL;
}

static int link_multipath(const struct name_index *ix, struct pa_devlist *l,
			  struct pa_dev *map)
{
	const char *p = map->paths;
	size_t i;

	while (p && *p) {
		size_t n = strcspn(p, " ");
		struct pa_dev *path = index_find(ix, p, n);

		if (path) {
			path->is_path = true;
			path->map = map;
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	/* a kernel that parsed a path's table also made partitions of it */
	for (i = 0; i < l->n; i++)
		if (l->v[i]->disk && l->v[i]->disk->map == map) {
			l->v[i]->is_path = true;
			l->v[i]->map = map;
		}
	return 0;
}

/*
 * A partition whose disk was not kept is debris: "losetup -d" leaves the
 * BLKPG partitions of a loop device behind on an unbound, size-0 disk.
 */
static void drop_orphans(struct pa_devlist *l)
{
	size_t i, k = 0;

	for (i = 0; i < l->n; i++) {
		if (l->v[i]->kind == PA_KIND_PART && !l->v[i]->disk)
			device_free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
}

/*
 * Where kpartx map @d starts on its map: the kernel's table, or below a root
 * the dump's copy of it (dm/<major>:<minor>).  Only a missing copy is said.
 */
static int dm_start(struct scan *s, const struct pa_dev *d, uint64_t *start)
{
	char path[PATH_MAX], text[4096];

	if (!s->sysroot)
		return scan_dm_linear_start(d->major, d->minor, start);
	snprintf(path, sizeof(path), "%s/dm/%u:%u", s->root, d->major, d->minor);
	if (access(path, R_OK) < 0) {
		int rc = -errno;

		if (s->diags && diag_add(s->diags, d->path, rc,
					 "no device-mapper table in %s/dm: start unknown",
					 s->root) < 0)
			return -ENOMEM;
		return rc;
	}
	sysattr_read_file(AT_FDCWD, path, text, sizeof(text));
	return scan_dm_table_text_start(text, start);
}

/* A dm device whose table check follows down (LVM, crypt, other dm). */
static bool dm_stacked(const struct pa_dev *d)
{
	return d->kind == PA_KIND_LVM || d->kind == PA_KIND_CRYPT ||
	       d->kind == PA_KIND_DM;
}

/*
 * The table of a stacked dm device (LVM, crypt, other dm; not a multipath
 * map or a kpartx partition), for check to follow it down (issue #15): the
 * kernel's, or the dump's copy.  A table that cannot be read or parsed is
 * left unknown: the device is then judged as before.  A copy missing below a
 * root (a collection made without dmsetup) is said, as dm_start() says it:
 * the check of such a tree must not report a place it does not know as
 * free of findings.
 */
/* The table in @text into d->dm_table (allocated: most devices have none). */
static int dm_parse(struct pa_dev *d, const char *text)
{
	struct pa_dm_table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (scan_dm_table_parse(text, t) == 0) {
		d->dm_table = t;
		d->dm_table_known = true;
	} else {
		free(t);
	}
	return 0;
}

static int dm_read_table(struct scan *s, struct pa_dev *d)
{
	char path[PATH_MAX], text[4096];
	char *live = NULL;
	int rc;

	if (!s->sysroot) {
		if (scan_dm_table_text(d->major, d->minor, &live) < 0)
			return 0;
		rc = dm_parse(d, live);
		free(live);
		return rc;
	}
	snprintf(path, sizeof(path), "%s/dm/%u:%u", s->root, d->major, d->minor);
	if (access(path, R_OK) < 0) {
		rc = -errno;
		if (s->diags &&
		    diag_add(s->diags, d->path, rc,
			     "no device-mapper table in %s/dm: place below unknown",
			     s->root) < 0)
			return -ENOMEM;
		return 0;
	}
	sysattr_read_file(AT_FDCWD, path, text, sizeof(text));
	return dm_parse(d, text);
}

/* Second pass: partitions to their disks, kpartx maps to their map, paths to maps. */
static int link_devices(struct scan *s, struct pa_devlist *l)
{
	struct name_index ix = {.n = l->n};
	size_t i;
	int rc = 0;

	ix.v = malloc((l->n ? l->n : 1) * sizeof(*ix.v));
	if (!ix.v)
		return -ENOMEM;
	if (l->n) /* l->v is NULL for an empty list, and memcpy wants a pointer */
		memcpy(ix.v, l->v, l->n * sizeof(*ix.v));
	qsort(ix.v, ix.n, sizeof(*ix.v), cmp_dev_name);

	for (i = 0; i < l->n; i++) {
		struct pa_dev *d = l->v[i];

		if (d->kind != PA_KIND_PART || !d->parent_name)
			continue;
		d->disk = index_find(&ix, d->parent_name, strcspn(d->parent_name, " "));
		if (!d->disk)
			continue;
		if (!d->dm_uuid)
			d->topo = d->disk->topo;
		else if (dm_start(s, d, &d->start) == 0) {
			/* a kpartx map at a known start is a partition of the map */
			d->start_known = true;
			d->topo = d->disk->topo;
		}
		d->disk->nparts++;
		if (!d->model && d->disk->model)
			d->model = strdup(d->disk->model);
		if (!d->serial && d->disk->serial)
			d->serial = strdup(d->disk->serial);
		if (!d->wwn && d->disk->wwn)
			d->wwn = strdup(d->disk->wwn);
	}
	for (i = 0; i < l->n && rc == 0; i++)
		if (l->v[i]->kind == PA_KIND_MPATH)
			rc = link_multipath(&ix, l, l->v[i]);
	for (i = 0; i < l->n && rc == 0; i++)
		if (dm_stacked(l->v[i]))
			rc = dm_read_table(s, l->v[i]);
	free(ix.v);
	drop_orphans(l);
	return rc;
}

/* Names still to visit and already visited, for the scan of named devices. */
struct worklist {
	char **v;
	size_t n, cap, next;
};

static int work_add(struct worklist *w, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strlen(w->v[i]) == len && strncmp(w->v[i], name, len) == 0)
			return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		char **v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n] = strndup(name, len);
	return w->v[w->n++] ? 0 : -ENOMEM;
}

static int work_add_list(struct worklist *w, const char *list)
{
	int rc = 0;

	while (list && *list && rc == 0) {
		size_t n = strcspn(list, " ");

		if (n)
			rc = work_add(w, list, n);
		list += n;
		while (*list == ' ')
			list++;
	}
	return rc;
}

/*
 * Below a root there are no device nodes: the kernel name of a user's path
 * comes from its text ("/dev/sdb1", "sdb1", "/dev/mapper/NAME").
 */
static bool root_kernel_name(const struct scan *s, const char *path, char *name,
			     size_t len)
{
	const char *p = strncmp(path, "/dev/", 5) == 0 ? path + 5 : path;
	struct dirent *de;
	char buf[256], attr[PATH_MAX];
	DIR *dir;
	int fd;
	bool found = false;

	if (strncmp(p, "mapper/", 7) != 0) {
		if (!*p || strchr(p, '/') || p[0] == '.' ||
		    faccessat(s->cfd, p, F_OK, 0) < 0)
			return false;
		snprintf(name, len, "%s", p);
		return true;
	}
	fd = openat(s->cfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && (de = readdir(dir))) {
		if (strncmp(de->d_name, "dm-", 3) != 0)
			continue;
		snprintf(attr, sizeof(attr), "%s/dm/name", de->d_name);
		if (read_attr_at(s->cfd, attr, buf, sizeof(buf)) == 0 &&
		    strcmp(buf, p + 7) == 0) {
			snprintf(name, len, "%s", de->d_name);
			found = true;
		}
	}
	closedir(dir);
	return found;
}

/* The whole disk in /sys/class/block for a user's path (a partition's disk). */
static int work_add_path(struct worklist *w, const struct scan *s, const char *path)
{
	char link[PATH_MAX], sys[PATH_MAX], name[256];
	struct stat st;
	char *base, *slash;
	ssize_t n;

	if (s->sysroot) {
		if (!root_kernel_name(s, path, name, sizeof(name)))
			return 0; /* the caller reports it */
		n = readlinkat(s->cfd, name, link, sizeof(link) - 1);
	} else {
		if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
			return 0; /* the caller reports it */
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		n = readlink(sys, link, sizeof(link) - 1);
	}
	if (n <= 0)
		return 0;
	link[n] = '\0';
	base = strrchr(link, '/');
	if (!base)
		return 0;
	*base++ = '\0';
	snprintf(sys, sizeof(sys), "%s/partition", base);
	if (faccessat(s->cfd, sys, F_OK, 0) == 0 && (slash = strrchr(link, '/')))
		return work_add(w, slash + 1, strlen(slash + 1));
	return work_add(w, base, strlen(base));
}

/* The partitions of whole disk @name: its sysfs subdirectories with a "partition". */
static int work_add_partitions(struct worklist *w, int cfd, const char *name)
{
	char sub[PATH_MAX];
	struct dirent *de;
	DIR *dir = dir_open_at(cfd, name);
	int rc = 0;

	if (!dir)
		return 0;
	while (rc == 0 && (de = readdir(dir))) {
		if (strncmp(de->d_name, name, strlen(name)) != 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/partition", de->d_name);
		if (faccessat(dirfd(dir), sub, F_OK, 0) == 0)
			rc = work_add(w, de->d_name, strlen(de->d_name));
	}
	closedir(dir);
	return rc;
}

static void work_free(struct worklist *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
}

static int scan_named(struct scan *s, const struct pa_scan_opts *o,
		      struct pa_devlist *out)
{
	struct worklist w = {0};
	size_t i;
	int rc = 0;

	for (i = 0; i < o->nnames && rc == 0; i++)
		rc = work_add_path(&w, s, o->names[i]);
	while (rc == 0 && w.next < w.n) {
		const char *name = w.v[w.next++];
		size_t before = out->n;
		struct pa_dev *d;

		rc = add_device(s, name, out);
		if (rc < 0 || out->n == before)
			continue;
		d = out->v[before];
		if (d->kind != PA_KIND_PART)
			rc = work_add_partitions(&w, s->cfd, name);
		if (rc == 0)
			rc = work_add_list(&w, d->holders);
		if (rc == 0 && d->kind == PA_KIND_MPATH)
			rc = work_add_list(&w, d->paths);
		/* a partition's disk; a stacked dm device's lower devices (issue #15) */
		if (rc == 0 && d->kind != PA_KIND_MPATH)
			rc = work_add_list(&w, d->parent_name);
	}
	work_free(&w);
	return rc;
}

/* A scan below @root (NULL or "": the host): s->cfd open, or -errno. */
static int scan_open(const char *root, struct pa_diags *diags, struct scan **out)
{
	char path[PATH_MAX];
	struct scan *s = malloc(sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->root = root ? root : "";
	s->sysroot = s->root[0] != '\0';
	s->diags = diags;
	if ((size_t)snprintf(path, sizeof(path), "%s/sys/class/block", s->root) >=
	    sizeof(path)) {
		free(s);
		return -ENAMETOOLONG;
	}
	s->cfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->cfd < 0) {
		rc = -errno;
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static void scan_close(struct scan *s)
{
	close(s->cfd);
	free(s);
}

int scan_devices(const struct pa_scan_opts *o, struct pa_devlist *out,
		 struct pa_diags *diags)
{
	struct scan *s;
	struct dirent *de;
	DIR *dir;
	int fd, rc;

	rc = scan_open(o ? o->root : NULL, diags, &s);
	if (rc < 0)
		return rc;
	if (o && o->names) {
		rc = scan_named(s, o, out);
	} else {
		fd = openat(s->cfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		dir = fd < 0 ? NULL : fdopendir(fd);
		if (!dir) {
			rc = -errno;
			if (fd >= 0)
				close(fd);
			scan_close(s);
			return rc;
		}
		while (rc == 0 && (de = readdir(dir)))
			rc = add_device(s, de->d_name, out);
		closedir(dir);
	}
	if (rc == 0)
		rc = link_devices(s, out);
	if (rc == 0)
		rc = scan_mounts_fill(out, s->root);
	scan_close(s);
	return rc;
}

int scan_sysfs_read_one(const char *root, const char *name, struct pa_devlist *l,
			struct pa_dev **out)
{
	struct worklist w = {0};
	struct scan *s;
	size_t before = l->n;
	bool top_stacked, follow;
	int rc;

	if (!*name || strchr(name, '/') || name[0] == '.')
		return -EINVAL;
	rc = scan_open(root, NULL, &s);
	if (rc < 0)
		return rc;
	if (faccessat(s->cfd, name, F_OK, 0) < 0) {
		rc = -errno;
		goto out;
	}
	rc = add_device(s, name, l);
	if (rc < 0)
		goto out;
	if (l->n == before) {
		rc = -ENODEV;
		goto out;
	}
	/*
	 * a partition is read with what it lives on, a stacked dm device or an
	 * md array with its layers down to the disk (as check judges it), and
	 * only that; a partition of an md array with the array's members too
	 */
	top_stacked = dm_stacked(l->v[before]) || l->v[before]->kind == PA_KIND_MD;
	follow = l->v[before]->kind == PA_KIND_PART || top_stacked;
	if (follow)
		rc = work_add_list(&w, l->v[before]->parent_name);
	while (rc == 0 && w.next < w.n) {
		size_t k = l->n;

		rc = add_device(s, w.v[w.next++], l);
		if (rc == 0 && l->n > k && follow &&
		    (dm_stacked(l->v[k]) || l->v[k]->kind == PA_KIND_PART ||
		     l->v[k]->kind == PA_KIND_MD))
			rc = work_add_list(&w, l->v[k]->parent_name);
	}
	if (rc == 0)
		rc = link_devices(s, l);
	if (rc == 0) {
		*out = devlist_find_name(l, name);
		if (!*out)
			rc = -ENODEV; /* a partition whose disk the scan skips */
	}
out:
	work_free(&w);
	scan_close(s);
	return rc;
}

int scan_lookup(const struct pa_devlist *l, const char *path, struct pa_dev **out)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*out = devlist_find_devno(l, major(st.st_rdev), minor(st.st_rdev));
	return *out ? 0 : -ENODEV;
}

int scan_lookup_root(const struct pa_devlist *l, const char *root, const char *path,
		     struct pa_dev **out)
{
	const char *p = strncmp(path, "/dev/", 5) == 0 ? path + 5 : path;
	size_t i;

	if (!root || !*root)
		return scan_lookup(l, path, out);
	for (i = 0; i < l->n; i++) {
		struct pa_dev *d = l->v[i];

		if ((d->path && strcmp(d->path, path) == 0) || strcmp(d->name, p) == 0 ||
		    (strncmp(p, "mapper/", 7) == 0 && d->dm_name &&
		     strcmp(d->dm_name, p + 7) == 0)) {
			*out = d;
			return 0;
		}
	}
	return -ENODEV;
}
