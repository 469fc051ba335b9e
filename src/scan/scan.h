/*
 * The scanner: fills a struct pa_devlist from libudev, sysfs, /proc and, only
 * when asked (--probe), libblkid.  The default scan opens no device node and
 * reads no device data, so a dead SAN path cannot hang it.
 */
#ifndef PARTALIGN_SCAN_H
#define PARTALIGN_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/device.h"
#include "core/diag.h"

struct pa_scan_opts {
	/*
	 * Only these devices (paths) and their neighbourhood: the whole disk,
	 * its partitions, the devices holding them (multipath maps, kpartx
	 * maps) and a map's other paths.  NULL: every block device.
	 */
	char *const *names;
	size_t nnames;
};

/*
 * Enumerate the block devices of the host (all, or o->names and their
 * neighbourhood) into @out (empty on entry).
 * Devices that cannot be read are reported in @diags and skipped; the
 * return value is 0, or -errno when the scan as a whole failed.
 */
int scan_devices(const struct pa_scan_opts *o, struct pa_devlist *out,
		 struct pa_diags *diags);

/*
 * The device of @l behind a user-supplied path ("/dev/sdb", "/dev/mapper/x",
 * a by-id link).  Uses stat(2), never open(2).  Returns 0, -ENOENT (no such
 * file), -ENOTBLK (not a block device) or -ENODEV (not in the scan).
 */
int scan_lookup(const struct pa_devlist *l, const char *path, struct pa_dev **out);

/*
 * --probe: open @whole read-only, read its on-disk table and the signatures
 * of its children with libblkid.  Partitions found only on disk are added
 * to @l.  An unreadable device is a diagnostic, not a failure.
 */
int scan_probe_disk(struct pa_devlist *l, struct pa_dev *whole, struct pa_diags *diags);

/*
 * What libblkid finds at @off..@off+@size (0: to the end) of the open
 * device @fd: "xfs", "LVM2_member", "oracleasm", "swap", a nested "dos"...
 * NULL when nothing is found.  Reads only.
 */
char *scan_probe_signature(int fd, uint64_t off, uint64_t size);

/* Start (in bytes) of dm device @major:@minor inside the single device below it. */
int scan_dm_linear_start(unsigned int major, unsigned int minor, uint64_t *start);

/* How many times dm device @major:@minor is open (DM_DEV_STATUS). */
int scan_dm_open_count(unsigned int major, unsigned int minor, int *count);

/* Mount points and swap areas by device number, from /proc (internal). */
int scan_mounts_fill(struct pa_devlist *l);
/* The same from open mountinfo and swaps streams (either may be NULL). */
int scan_mounts_parse(struct pa_devlist *l, FILE *mountinfo, FILE *swaps);

/*
 * The identity properties of @d from the text of its uevent attribute and
 * of its udev database file, as the scan reads them (for the tests).
 */
int scan_props_parse(const char *uevent, const char *db, struct pa_dev *d);

/*
 * The start (bytes) of the single linear target in a DM_TABLE_STATUS reply
 * of @len bytes in @buf (struct dm_ioctl first); -EOPNOTSUPP for anything else.
 */
int scan_dm_table_start(const void *buf, size_t len, uint64_t *start);

#endif
