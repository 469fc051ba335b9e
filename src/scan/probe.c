/*
 * --probe: the only part of the scan that opens devices.  For a whole
 * device it reads the on-disk partition table with libblkid, compares it
 * with what the kernel uses, and names the signature (filesystem, LVM, md,
 * oracleasm, swap) at the start of each partition.  Of an xfs or ext4 file
 * system it reads the superblock's stripe geometry (core/fsgeom.c parses
 * it), of an LVM2 PV its label and VG metadata (scan/lvm.c).  Opened
 * read-only.
 */
#include "config.h"

#include <blkid.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsgeom.h"
#include "core/marker.h"
#include "core/movestate.h"
#include "shared/fileio.h"
#include "scan/lvm.h"
#include "scan/scan.h"

/*
 * Two or more signatures where one is expected (an ext4 with a stale xfs
 * superblock in its first sector): libblkid's safe probe calls that
 * "ambivalent" and names none, and udev records no type.  It is data all
 * the same, maybe two file systems' worth: named "ambivalent: ext4, xfs",
 * each type found by probing on past the first.
 */
static char *ambivalent(blkid_probe pr)
{
	char *res = strdup("ambivalent:");
	const char *type;
	size_t n = 0;

	blkid_reset_probe(pr);
	while (res && n < 8 && blkid_do_probe(pr) == 0) {
		char *more;

		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) != 0 &&
		    blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) != 0)
			continue;
		if (asprintf(&more, "%s%s %s", res, n++ ? "," : "", type) < 0)
			more = NULL;
		free(res);
		res = more;
	}
	return res;
}

char *scan_probe_signature(int fd, uint64_t off, uint64_t size)
{
	blkid_probe pr = blkid_new_probe();
	const char *type = NULL;
	char *res = NULL;
	int rc;

	if (!pr)
		return NULL;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		/* a partition table inside a partition counts as content too */
		blkid_probe_enable_partitions(pr, 1);
		rc = blkid_do_safeprobe(pr);
		if (rc == 0 &&
		    (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 ||
		     blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0) &&
		    type)
			res = strdup(type);
		else if (rc == -2)
			res = ambivalent(pr);
	}
	blkid_free_probe(pr);
	return res;
}

/*
 * The entry's type as the table on the disk has it (GPT GUID, dos "0xNN").
 * udev's value stays unless the disk's is the move marker's: that one
 * must be seen even when udev's database is older than the disk.
 */
static void disk_type(struct pa_dev *p, blkid_partition bp)
{
	char buf[8];
	const char *t = blkid_partition_get_type_string(bp);

	if (!t && blkid_partition_get_type(bp) > 0) {
		snprintf(buf, sizeof(buf), "0x%02x", blkid_partition_get_type(bp) & 0xff);
		t = buf;
	}
	if (!t || (p->part_type && !marker_type_is_move(t)))
		return;
	free(p->part_type);
	p->part_type = strdup(t);
}

static int add_ondisk_only(struct pa_devlist *l, struct pa_dev *w, blkid_partition bp)
{
	unsigned int partno = (unsigned int)blkid_partition_get_partno(bp);
	uint64_t start = (uint64_t)blkid_partition_get_start(bp) * 512;
	uint64_t size = (uint64_t)blkid_partition_get_size(bp) * 512;
	bool digit = isdigit((unsigned char)w->name[strlen(w->name) - 1]);
	struct pa_dev *d = device_new();
	int rc;

	if (!d)
		return -ENOMEM;
	d->kind = PA_KIND_PART;
	d->disk = w;
	d->topo = w->topo;
	d->partno = partno;
	d->start = start;
	d->start_known = true;
	d->size = size;
	d->probed = true;
	d->ondisk_found = true;
	d->ondisk_start = start;
	d->ondisk_size = size;
	d->kernel_missing = true;
	/* its type and name from the table: a marked entry must be seen as one */
	disk_type(d, bp);
	if (blkid_partition_get_name(bp))
		d->part_name = strdup(blkid_partition_get_name(bp));
	if (asprintf(&d->name, "%s%s%u", w->name, digit ? "p" : "", partno) < 0)
		d->name = NULL;
	if (d->name && asprintf(&d->path, "/dev/%s", d->name) < 0)
		d->path = NULL;
	if (!d->name || !d->path) {
		device_free(d);
		return -ENOMEM;
	}
	rc = devlist_add(l, d);
	if (rc < 0) {
		device_free(d);
		return rc;
	}
	w->nparts++;
	return 0;
}

/*
 * The stripe geometry of the xfs or ext4 file system at byte @off of the open
 * device @fd (the device itself or the disk of partition @d).  A superblock
 * that does not parse leaves @d without one: FSTYPE came from udev or
 * libblkid, which may know more kinds of damage than we do.
 */
static void probe_fs_geom(int fd, struct pa_dev *d, uint64_t off)
{
	unsigned char b[FSGEOM_READ_LEN];
	struct pa_fs_geom g;
	ssize_t n;

	if (!d->fstype || off > INT64_MAX)
		return;
	n = pread(fd, b, sizeof(b), (off_t)off);
	if (n <= 0 || fsgeom_parse(d->fstype, b, (size_t)n, &g) != 0)
		return;
	d->fs_geom_known = true;
	d->fs_name = g.fs;
	d->fs_unit = g.unit;
	d->fs_width = g.width;
	d->fs_blocksize = g.blocksize;
}

static int rd_fd(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_zero(*(int *)ctx, buf, len, off);
}

/*
 * The move marker in the disk's own table: this build's hides the moving
 * entries from libblkid, so only the raw table tells them (core/marker.h).
 */
static int probe_marker(struct pa_devlist *l, struct pa_dev *w, int fd)
{
	struct marker_io io = {rd_fd, NULL, &fd, w->topo.logical, w->size};
	struct pa_move_state *s;
	struct pa_marker m;
	size_t i;
	int rc;

	if (!w->topo.logical || w->size < w->topo.logical)
		return 0;
	rc = marker_find(&io, &m);
	if (rc < 0)
		return 0; /* unreadable: the table's own probe says so */
	w->marker_read = true;
	if (rc == 0)
		return 0;
	if (!(s = move_state_of(w)))
		return -ENOMEM;
	s->seen = PA_MOVE_SEEN_MARKER;
	s->disk = true;
	s->id = m.move_id;
	s->id32 = m.id32;
	for (i = 0; i < m.n; i++) {
		const struct pa_marker_part *p = &m.parts[i];
		struct pa_move_part mp = {p->num, p->from, p->len, p->to};

		if (move_state_add_part(s, &mp) < 0)
			return -ENOMEM;
	}
	return move_state_add_rows(l, w);
}

int scan_probe_marker(struct pa_devlist *l, struct pa_dev *whole)
{
	int fd = open(whole->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc;

	if (fd < 0)
		return 0;
	rc = probe_marker(l, whole, fd);
	close(fd);
	return rc;
}

static bool is_pv(const struct pa_dev *d)
{
	return d->fstype && strcmp(d->fstype, "LVM2_member") == 0;
}

int scan_probe_disk(struct pa_devlist *l, struct pa_dev *w, struct pa_diags *diags)
{
	blkid_partlist parts = NULL;
	blkid_probe pr;
	size_t nkernel = l->n;
	bool read_ok;
	size_t i;
	int fd, n = 0, k, rc = 0;

	fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return diag_add(diags, w->path, errno, "cannot open for --probe");
	pr = blkid_new_probe();
	if (!pr) {
		close(fd);
		return -ENOMEM;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		rc = diag_add(diags, w->path, errno, "cannot probe");
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (blkid_do_safeprobe(pr) == 0)
		parts = blkid_probe_get_partitions(pr);
	/* a table is there: a partition missing from it is missing (stale udev) */
	read_ok = parts != NULL;
	if (read_ok && (rc = probe_marker(l, w, fd)) < 0)
		goto out;
	if (parts) {
		blkid_parttable tab = blkid_partlist_get_table(parts);

		if (tab && !w->pttype && blkid_parttable_get_type(tab))
			w->pttype = strdup(blkid_parttable_get_type(tab));
		n = blkid_partlist_numof_partitions(parts);
	}

	/* kernel partitions of this disk against the on-disk entries */
	for (i = 0; i < nkernel; i++) {
		struct pa_dev *p = l->v[i];

		if (p->disk != w || p->kernel_missing)
			continue;
		p->probed = true;
		p->ondisk_checked = read_ok && !p->dm_uuid;
		for (k = 0; k < n; k++) {
			blkid_partition bp = blkid_partlist_get_partition(parts, k);

			if ((unsigned int)blkid_partition_get_partno(bp) == p->partno) {
				disk_type(p, bp);
				/* the table knows what udev would have told; the name
				   of a marked entry (the move id) is the disk's */
				if ((!p->part_name ||
				     marker_type_is_move(p->part_type)) &&
				    blkid_partition_get_name(bp)) {
					free(p->part_name);
					p->part_name =
					    strdup(blkid_partition_get_name(bp));
				}
				if (!p->part_uuid && blkid_partition_get_uuid(bp))
					p->part_uuid =
					    strdup(blkid_partition_get_uuid(bp));
				/* the disk's own, against udev's (a stale database) */
				if (!p->ondisk_uuid && blkid_partition_get_uuid(bp))
					p->ondisk_uuid =
					    strdup(blkid_partition_get_uuid(bp));
				p->ondisk_found = true;
				p->ondisk_start =
				    (uint64_t)blkid_partition_get_start(bp) * 512;
				p->ondisk_size =
				    (uint64_t)blkid_partition_get_size(bp) * 512;
			}
		}
	}
	for (k = 0; k < n && rc == 0; k++) {
		blkid_partition bp = blkid_partlist_get_partition(parts, k);
		unsigned int no = (unsigned int)blkid_partition_get_partno(bp);
		bool known = false;

		/* logical msdos partitions inside an extended one are listed too;
		   a moving partition the marker's rows added is known */
		for (i = 0; i < l->n && !known; i++)
			known = l->v[i]->disk == w && l->v[i]->partno == no;
		if (!known)
			rc = add_ondisk_only(l, w, bp);
	}

	/* what each partition (or the whole device) holds */
	for (i = 0; i < l->n && rc == 0; i++) {
		struct pa_dev *p = l->v[i];

		if (p->disk != w || p->fstype || !p->start_known)
			continue;
		p->fstype = scan_probe_signature(fd, p->start, p->size);
	}
	if (rc == 0 && w->nparts == 0 && !w->fstype)
		w->fstype = scan_probe_signature(fd, 0, 0);

	/* the file systems' stripe geometry, the PVs' pe_start and extent size */
	for (i = 0; i < l->n && rc == 0; i++) {
		struct pa_dev *p = l->v[i];

		if (p->disk != w || !p->start_known || p->kernel_missing)
			continue;
		probe_fs_geom(fd, p, p->start);
		if (is_pv(p) && scan_lvm_probe(fd, p, p->start, p->size) == -ENOMEM)
			rc = -ENOMEM;
	}
	if (rc == 0 && w->nparts == 0) {
		probe_fs_geom(fd, w, 0);
		if (is_pv(w) && scan_lvm_probe(fd, w, 0, w->size) == -ENOMEM)
			rc = -ENOMEM;
	}
out:
	blkid_free_probe(pr);
	close(fd);
	return rc;
}
