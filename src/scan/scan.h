/*
 * The scanner: fills a struct pa_devlist from sysfs, the udev database files,
 * /proc, the device-mapper tables and, only when asked (--probe), libblkid.
 * The default scan opens no device node and reads no device data, so a dead
 * SAN path cannot hang it.  Every file it reads can sit below a root
 * directory (a `partalign dump`, check --sysroot) instead of the host's /.
 */
#ifndef PARTALIGN_SCAN_H
#define PARTALIGN_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

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
	/*
	 * A directory that stands for the host's / (sys/class/block,
	 * sys/dev/block, run/udev/data, proc/self/mountinfo, proc/swaps, and
	 * dm/<major>:<minor> for the device-mapper tables a live scan asks the
	 * kernel for), as `partalign dump` writes it.  NULL: the host itself.
	 */
	const char *root;
};

/*
 * Enumerate the block devices of the host or of o->root (all, or o->names
 * and their neighbourhood) into @out (empty on entry).  What could not be
 * read and was left out (a kpartx map's start when the dump has no table for
 * it) is reported in @diags; the return value is 0, or -errno when the scan
 * as a whole failed (-ENOENT: no sys/class/block below o->root).
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
 * scan_lookup() for a devlist scanned below @root (NULL: the host, as
 * scan_lookup).  Below a root no device node exists: @path is matched by
 * name ("/dev/sdb", "sdb", "/dev/mapper/NAME", "/dev/dm-3").  Returns 0 or
 * -ENODEV.
 */
int scan_lookup_root(const struct pa_devlist *l, const char *root, const char *path,
		     struct pa_dev **out);

/*
 * One block device, for partalign udev: /sys/class/block/@name ("sdb1",
 * "dm-3") below @root (NULL: the host) read exactly as scan_devices() reads
 * it, with the device below it when it is a partition (its disk, or a kpartx
 * map's multipath map) and nothing else: no enumeration of the host, no
 * mount table.  *out points into @l.  Returns 0, -EINVAL (not a kernel
 * name), -ENOENT (no such device), -ENODEV (a device the scan skips: unbound
 * loop, ram, empty) or -errno.
 */
int scan_sysfs_read_one(const char *root, const char *name, struct pa_devlist *l,
			struct pa_dev **out);

/*
 * The files below a device's sysfs directory that the scan reads, NULL
 * terminated ("size", "queue/logical_block_size", "dm/uuid"...); holders/
 * and slaves/ are read as directories besides.  `partalign dump` copies
 * exactly these.
 */
extern const char *const scan_sysfs_attrs[];

/*
 * md arrays (src/scan/md.c).  The files of each member directory
 * md/dev-NAME/ that the scan reads (NULL terminated; its "block" link
 * besides), for `partalign dump`.
 */
extern const char *const scan_md_member_attrs[];

/*
 * The layout of the md array whose sysfs directory is @dfd into d->md_*
 * (md_known when every raid slot has one member and the level is 0, 1, 4,
 * 5, 6 or RAID10 near).  An unusable layout is left unknown; returns 0, or
 * -ENOMEM.
 */
int scan_md_read(int dfd, struct pa_dev *d);

/* "raid5" -> 5 (raid0, 1, 4, 5, 6, 10); -EOPNOTSUPP for any other md/level. */
int scan_md_level(const char *text, unsigned int *level);

/* RAID10's md/layout -> its near copies; -EOPNOTSUPP for far or offset layouts. */
int scan_md_raid10_copies(uint64_t layout, unsigned int *copies);

/*
 * --probe: open @whole read-only, read its on-disk table and the signatures
 * of its children with libblkid.  Partitions found only on disk are added
 * to @l.  An unreadable device is a diagnostic, not a failure.
 */
int scan_probe_disk(struct pa_devlist *l, struct pa_dev *whole, struct pa_diags *diags);

/*
 * Only the move marker of @whole's own table (core/marker.h), read-only:
 * whole->move and a row in @l for each partition it hides (core/movestate.h).
 * 0 (also when the disk cannot be read), -ENOMEM.
 */
int scan_probe_marker(struct pa_devlist *l, struct pa_dev *whole);

/*
 * What libblkid finds at @off..@off+@size (0: to the end) of the open
 * device @fd: "xfs", "LVM2_member", "oracleasm", "swap", a nested "dos"...
 * "ambivalent: ext4, xfs" when several signatures are there where libblkid
 * expects one (it calls that ambivalent and names none; it is data all the
 * same).  NULL when nothing is found.  Reads only.
 */
char *scan_probe_signature(int fd, uint64_t off, uint64_t size);

/* Start (in bytes) of dm device @major:@minor inside the single device below it. */
int scan_dm_linear_start(unsigned int major, unsigned int minor, uint64_t *start);

/*
 * The table of dm device @major:@minor as `dmsetup table` prints it, one
 * "START LENGTH TYPE PARAMS" line per target, malloc'd in *text (for
 * partalign dump).  Returns 0 or -errno (no device-mapper: -ENOENT).
 */
int scan_dm_table_text(unsigned int major, unsigned int minor, char **text);

/*
 * The start (bytes) of the single linear target at sector 0 in the table
 * text @text (scan_dm_table_text's format); -EOPNOTSUPP for anything else.
 */
int scan_dm_table_text_start(const char *text, uint64_t *start);

/*
 * Parse a table text (scan_dm_table_text's format: "START LENGTH TYPE ARGS"
 * per line, sectors of 512 bytes) of linear, striped and crypt targets into
 * @t, in bytes.  0, or -EOPNOTSUPP for any other target, a device given by
 * path, more than PA_DM_TARGETS_MAX targets or PA_DM_STRIPES_MAX stripes,
 * gaps or overlaps, or a value that does not fit.
 */
int scan_dm_table_parse(const char *text, struct pa_dm_table *t);

/* How many times dm device @major:@minor is open (DM_DEV_STATUS). */
int scan_dm_open_count(unsigned int major, unsigned int minor, int *count);

/* Mount points and swap areas by device number, from @root/proc (internal; root "" is /).
 */
int scan_mounts_fill(struct pa_devlist *l, const char *root);
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

/* What holds a device (processes, loop devices, ...): scan/holders.h. */

/*
 * Oracle ASM header blocks (src/scan/asm.c, issue #34).  A device is read
 * when udev's database (or libblkid, after --probe) calls it oracleasm, or
 * when udev has no entry for it: its first ASMHDR_BLOCK bytes, and, when they
 * hold a header, the backup block in allocation unit 1; read-only, O_DIRECT
 * where the device takes it, in a child process that is given up on after
 * PA_ASM_TIMEOUT_S seconds without an answer; only the devices l->v[i] with
 * @want[i] when @want is not NULL.  Below @root (a dump) the blocks come
 * from its asm/MAJ:MIN files instead.  Fills d->asm_hdr of each
 * device read; what could not be read is a diagnostic.  With @dumps, also a
 * calloc'd array parallel to l->v of the blocks read (NULL entries for the
 * devices not read; scan_asm_dumps_free(*dumps, l->n)).  0 or -errno.
 */
#define PA_ASM_TIMEOUT_S 10
struct asmhdr_dump;
bool scan_asm_candidate(const struct pa_dev *d);
int scan_asm_read(struct pa_devlist *l, const char *root, const bool *want,
		  struct asmhdr_dump ***dumps, struct pa_diags *diags);
void scan_asm_dumps_free(struct asmhdr_dump **dumps, size_t n);

#endif
