/*
 * --probe: the LVM2 metadata of a physical volume (src/scan/lvm.c).
 */
#ifndef PARTALIGN_SCAN_LVM_H
#define PARTALIGN_SCAN_LVM_H

#include <stdint.h>

#include "core/device.h"

/*
 * Read, from the open device @fd, the PV label at byte @off (a partition's
 * start, or 0) of the @size-byte device @d carries, its first metadata area
 * and the VG text in it (core/lvmmeta.h), and fill d->lvm_*.  Reads only.
 * 0; -ENOENT when there is no readable PV label (d untouched), -ENOMEM.  A PV
 * whose VG text cannot be read is known with lvm_extent_size 0.
 */
int scan_lvm_probe(int fd, struct pa_dev *d, uint64_t off, uint64_t size);

#endif
