/*
 * What partalign rules needs beyond the scan: a read-only libblkid probe of
 * one device the user named (signature, partition entry).
 */
#ifndef PARTALIGN_SCAN_IDS_H
#define PARTALIGN_SCAN_IDS_H

#include "core/device.h"

/*
 * Open @d read-only and probe it with libblkid.  *signature becomes the
 * malloc'd type of what it holds ("xfs", "LVM2_member", "oracleasm"), the
 * text "several signatures" when libblkid finds conflicting ones, or NULL.
 * Fills what udev did not know: for a kernel partition part_uuid and
 * part_scheme (libblkid reads the table of its disk, as udev's blkid builtin
 * does), for a whole device pttype.  For a kernel partition also whether
 * its disk's table was read (ondisk_checked, ondisk_uuid) or the disk was
 * read and holds no table (ondisk_no_table).  Returns 0, or -errno when the
 * device cannot be opened or read.
 */
int scan_ids_probe(struct pa_dev *d, char **signature);

#endif
