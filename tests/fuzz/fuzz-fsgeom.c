/*
 * The superblock readers of src/core/fsgeom.c: the input is the first bytes
 * of a device (XFS superblock at 0, ext4 at 1024).  A parse that succeeds
 * gives a power-of-two block size in range and byte sizes that are whole
 * blocks; stack_fs_check(, NULL) then judges them without overflow.
 */
#include "config.h"

#include "fuzz.h"

#include "core/fsgeom.h"

static void check(int rc, const struct pa_fs_geom *g, uint32_t lo)
{
	char why[512], fix[128];

	FZ_ASSERT(rc == 0 || rc == -EINVAL);
	if (rc)
		return;
	FZ_ASSERT(g->fs != NULL);
	FZ_ASSERT(g->blocksize >= lo && g->blocksize <= 65536);
	FZ_ASSERT((g->blocksize & (g->blocksize - 1)) == 0);
	FZ_ASSERT(g->unit % g->blocksize == 0 && g->width % g->blocksize == 0);
	(void)stack_fs_check(g, 4096, 196608, why, sizeof(why), fix, sizeof(fix), NULL);
	FZ_ASSERT(strlen(why) < sizeof(why) && strlen(fix) < sizeof(fix));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly @size bytes: a read past it is a heap error */
	unsigned char *b = malloc(size ? size : 1);
	struct pa_fs_geom g;

	if (!b)
		return 0;
	if (size)
		memcpy(b, data, size);
	check(fsgeom_xfs(b, size, &g), &g, 512);
	check(fsgeom_ext4(b, size, &g), &g, 1024);
	FZ_ASSERT(fsgeom_parse("vfat", b, size, &g) == -EOPNOTSUPP);
	free(b);
	return 0;
}
