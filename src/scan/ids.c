/*
 * scan_ids_probe() opens one device the user named, read-only, and asks
 * libblkid what it holds and (for a partition) what its table entry says:
 * udev's own blkid builtin reads the same, so a PARTUUID found here is the
 * ID_PART_ENTRY_UUID udev will match even on a host whose udev database is
 * empty.  (The sysfs reading of one device for partalign udev is
 * scan_sysfs_read_one() in scan.c: the same reader as the scan's.)
 */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
