/*
 * File-system stripe geometry from the superblock (issue #15): XFS sb_unit,
 * sb_width and sb_blocksize, ext4 s_raid_stride, s_raid_stripe_width and the
 * block size.  Pure: the caller reads the first FSGEOM_READ_LEN bytes of the
 * device (--probe, src/scan/probe.c) and hands them in; nothing here does I/O
 * or allocates.  The result is a struct pa_fs_geom (core/stack-advise.h) that
 * stack_fs_check() judges.
 */
#ifndef PARTALIGN_FSGEOM_H
#define PARTALIGN_FSGEOM_H

#include <stddef.h>

#include "core/stack-advise.h"

/* Bytes from the start of the device that hold both superblocks (XFS at 0,
   ext4 at 1024). */
#define FSGEOM_READ_LEN 2048

/*
 * Parse the XFS superblock at the start of @buf (@len bytes).  Returns 0 with
 * *g filled (g->fs "XFS"), -EINVAL when @buf is too short, the magic is not
 * "XFSB" or the block size is no power of two from 512 B to 64 KiB.
 */
int fsgeom_xfs(const void *buf, size_t len, struct pa_fs_geom *g);

/*
 * Parse the ext2/3/4 superblock at byte 1024 of @buf.  Returns 0 with *g
 * filled (g->fs "ext4"), -EINVAL when @buf is too short, the magic is not
 * 0xEF53 or the block size is not 1 KiB to 64 KiB.
 */
int fsgeom_ext4(const void *buf, size_t len, struct pa_fs_geom *g);

/* By FSTYPE as blkid names it ("xfs", "ext4"); -EOPNOTSUPP for any other. */
int fsgeom_parse(const char *fstype, const void *buf, size_t len, struct pa_fs_geom *g);

#endif
