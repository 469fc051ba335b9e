/*
 * Advice for a storage stack (core/stack.h) and the file system on top: the
 * command that would fix the layer a verdict blames, and a file system's
 * stripe geometry against the device below it.  Pure: the caller owns every
 * buffer.
 */
#ifndef PARTALIGN_STACK_ADVISE_H
#define PARTALIGN_STACK_ADVISE_H

#include <stddef.h>
#include <stdint.h>

#include "core/align.h"
#include "core/stack.h"

/*
 * The command that would fix what @v blames, for a layer partalign does not
 * rewrite: pvcreate --dataalignment + pvmove (pe_start), vgcreate -s (extent
 * size), cryptsetup luksFormat --offset (payload), mdadm --create
 * --data-offset (md), partalign plan (partition).  Writes an empty
 * string when nothing is blamed.  Returns 0, or -EINVAL / -ERANGE.
 */
int stack_advise(const struct pa_stack *s, unsigned int dev,
		 const struct pa_stack_verdict *v, char *buf, size_t len);

/* File-system stripe geometry, in bytes (0: the file system has none). */
struct pa_fs_geom {
	const char *fs;	    /* "XFS" or "ext4", for reasons */
	uint64_t unit;	    /* XFS sunit, ext4 stride */
	uint64_t width;	    /* XFS swidth, ext4 stripe_width */
	uint32_t blocksize; /* file-system block size, bytes (for the ext4 command) */
};

/* From superblock numbers: XFS sb_unit/sb_width and ext4 s_raid_stride/
   s_raid_stripe_width, all in file-system blocks of @blocksize bytes. */
int stack_fs_xfs(uint32_t sb_unit, uint32_t sb_width, uint32_t blocksize,
		 struct pa_fs_geom *g);
int stack_fs_ext4(uint32_t stride, uint32_t stripe_width, uint32_t blocksize,
		  struct pa_fs_geom *g);

/* Where each clause of a file system's reason is in its text (@off, @len):
   a clause names one miss, or is "..." when the text had no room for more. */
#define PA_FS_CLAUSES_MAX 4
struct pa_fs_clauses {
	unsigned int n;
	struct {
		uint16_t off, len;
	} v[PA_FS_CLAUSES_MAX];
};

/*
 * The file system's geometry against the device it sits on (its minimum and
 * optimal I/O in bytes; an md array or striped LV: chunk and chunk x data
 * disks; a minimum I/O of 4 KiB or less counts as a sector, not a chunk, for
 * the suggested command).  Ok when
 * the unit is a multiple of @min_io and the width a multiple of @opt_io;
 * n/a when the device reports no optimal I/O and the file system has no
 * geometry.  The reason names both ("XFS swidth 128 KiB, the device's optimal
 * I/O is 192 KiB"), "; " between the clauses of several misses, whose
 * places go to @cl (may be NULL); @fix gets the mkfs command that would
 * match (may be NULL).
 */
enum pa_verdict stack_fs_check(const struct pa_fs_geom *g, uint64_t min_io,
			       uint64_t opt_io, char *reason, size_t len, char *fix,
			       size_t fixlen, struct pa_fs_clauses *cl);

#endif
