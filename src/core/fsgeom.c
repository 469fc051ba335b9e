/*
 * The stripe geometry of XFS and ext4 from their superblocks, read from a
 * byte buffer the scanner filled.  Every field is range-checked before use;
 * the byte sizes are computed by stack_fs_xfs()/stack_fs_ext4() in 64 bits
 * (32 x 32 bits cannot wrap).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/fsgeom.h"
#include "shared/endian.h"

/* XFS superblock (xfs_format.h, struct xfs_dsb), big-endian */
#define XFS_MAGIC "XFSB"
#define XFS_OFF_BLOCKSIZE 4
#define XFS_OFF_UNIT 184
#define XFS_OFF_WIDTH 188
#define XFS_SB_MIN 192

/* ext2/3/4 superblock (struct ext4_super_block) at byte 1024, little-endian */
#define EXT4_SB 1024
#define EXT4_OFF_LOG_BLOCK 0x18
#define EXT4_OFF_MAGIC 0x38
#define EXT4_OFF_STRIDE 0x164
#define EXT4_OFF_STRIPE_WIDTH 0x170
#define EXT4_MAGIC 0xEF53
#define EXT4_SB_MIN (EXT4_OFF_STRIPE_WIDTH + 4)

int fsgeom_xfs(const void *buf, size_t len, struct pa_fs_geom *g)
{
	const unsigned char *b = buf;
	uint32_t bs;

	memset(g, 0, sizeof(*g));
	if (!b || len < XFS_SB_MIN || memcmp(b, XFS_MAGIC, 4) != 0)
		return -EINVAL;
	bs = get_be32(b + XFS_OFF_BLOCKSIZE);
	if (bs < 512 || bs > 65536 || (bs & (bs - 1)))
		return -EINVAL;
	return stack_fs_xfs(get_be32(b + XFS_OFF_UNIT), get_be32(b + XFS_OFF_WIDTH), bs,
			    g);
}

int fsgeom_ext4(const void *buf, size_t len, struct pa_fs_geom *g)
{
	const unsigned char *b = buf;
	uint32_t log;

	memset(g, 0, sizeof(*g));
	if (!b || len < EXT4_SB + EXT4_SB_MIN ||
	    get_le16(b + EXT4_SB + EXT4_OFF_MAGIC) != EXT4_MAGIC)
		return -EINVAL;
	/* the block size is 1024 << s_log_block_size: 1 KiB to 64 KiB */
	log = get_le32(b + EXT4_SB + EXT4_OFF_LOG_BLOCK);
	if (log > 6)
		return -EINVAL;
	return stack_fs_ext4(get_le16(b + EXT4_SB + EXT4_OFF_STRIDE),
			     get_le32(b + EXT4_SB + EXT4_OFF_STRIPE_WIDTH), 1024u << log,
			     g);
}

int fsgeom_parse(const char *fstype, const void *buf, size_t len, struct pa_fs_geom *g)
{
	memset(g, 0, sizeof(*g));
	if (!fstype)
		return -EOPNOTSUPP;
	if (strcmp(fstype, "xfs") == 0)
		return fsgeom_xfs(buf, len, g);
	if (strcmp(fstype, "ext4") == 0)
		return fsgeom_ext4(buf, len, g);
	return -EOPNOTSUPP;
}
