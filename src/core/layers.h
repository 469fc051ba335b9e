/*
 * A scanned device judged through the layers below it (core/layers.c): the
 * storage stack built from the device list and judged by core/stack.c, the
 * command that would fix it, and the file system's stripe geometry.
 */
#ifndef PARTALIGN_LAYERS_H
#define PARTALIGN_LAYERS_H

#include <stddef.h>

#include "core/align.h"
#include "core/device.h"

struct pa_fs_clauses; /* core/stack-advise.h */

/*
 * A stacked dm device (LVM, crypt, other dm; not a multipath map or a kpartx
 * partition) whose table the scanner read, an md array whose layout it read
 * (d->md_known), or a partition of such an array, whose every lower device
 * is in @l and known in turn (a partition at a known start, a dm device with
 * a table, an md array with a known layout and every member in @l, or a
 * bottom device: disk, loop, multipath map, md array of unknown layout with
 * its own topology): judge it at its place on the bottom devices (core/stack.h) and
 * replace the verdicts and reasons of @out (filled by align_check_dev() first),
 * setting out->stack_known, abs_start and layers.  The reasons name devices
 * of @l.  Returns 0 when it did, 1 when the layout is not known (@out
 * untouched), or a negative errno.
 */
int layers_check(const struct pa_devlist *l, const struct pa_dev *d,
		 const struct pa_grain *policy, struct pa_check *out);

/*
 * What would fix stacked device @d (as layers_check() judges it): the
 * command for the layer its worst miss blames (stack_advise()), written to
 * @buf; empty when nothing is misaligned.  Returns 0, 1 when the layout is
 * not known (@buf empty), or a negative errno.
 */
int layers_advise(const struct pa_devlist *l, const struct pa_dev *d,
		  const struct pa_grain *policy, char *buf, size_t len);

/*
 * --probe: the stripe geometry of the file system on @d (d->fs_geom_known)
 * against the minimum and the sane optimal I/O size of @d itself (a
 * partition: its disk's; a striped LV or md array: the chunk and the chunk x
 * data disks the kernel derives), by stack_fs_check().  PA_VERDICT_NA with an
 * empty @reason when no geometry was read.  @reason gets "XFS swidth 128 KiB,
 * the device's optimal I/O is 192 KiB", @fix the mkfs command that would
 * match (may be NULL), @cl where each clause of @reason is (may be NULL).
 */
enum pa_verdict layers_check_fs(const struct pa_dev *d, char *reason, size_t len,
				char *fix, size_t fixlen, struct pa_fs_clauses *cl);

#endif
