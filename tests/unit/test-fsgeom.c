/*
 * Unit tests of core/fsgeom.c: the XFS and ext4 superblock readers on images
 * made by the real mkfs.xfs and mke2fs in a temporary directory, with the
 * expected numbers taken from xfs_db and dumpe2fs (never from partalign), and
 * on hostile buffers: truncated, bad magic, block sizes out of range, fields
 * at their maximum.  Tests whose tool is missing are skipped.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

#include "core/fsgeom.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/pa-fsgeom-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "PATH=$PATH:/sbin:/usr/sbin command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* The first number after "@key" in the output of @cmd (run with sh). */
static uint64_t tool_value(const char *cmd, const char *key)
{
	char line[512], full[1024];
	uint64_t v = UINT64_MAX;
	FILE *f;

	snprintf(full, sizeof(full), "PATH=$PATH:/sbin:/usr/sbin; %s", cmd);
	f = popen(full, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");

		if (strncmp(p, key, strlen(key)) == 0) {
			p += strlen(key);
			p += strcspn(p, "0123456789");
			v = strtoull(p, NULL, 10);
			break;
		}
	}
	pclose(f);
	if (v == UINT64_MAX)
		print_error("'%s' printed no '%s'\n", cmd, key);
	assert_true(v != UINT64_MAX);
	return v;
}

/* A sparse image of @mib MiB made by the command @mkfs (the file appended). */
static const char *image(const char *name, unsigned int mib, const char *mkfs)
{
	static char path[300];
	char cmd[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* TEST_DIR/TEST_DEV/QA_CHECK_FS: xfsprogs 6 then makes file systems under
	   300 MB (what its own test suite does) */
	snprintf(cmd, sizeof(cmd),
		 "PATH=$PATH:/sbin:/usr/sbin; truncate -s %uM '%s' && "
		 "TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 %s '%s' >/dev/null 2>&1",
		 mib, path, mkfs, path);
	assert_int_equal(system(cmd), 0);
	return path;
}

/* The first FSGEOM_READ_LEN bytes of @path, in a buffer of exactly that size. */
static unsigned char *head(const char *path)
{
	unsigned char *b = malloc(FSGEOM_READ_LEN);
	int fd = open(path, O_RDONLY);

	assert_non_null(b);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, FSGEOM_READ_LEN, 0), FSGEOM_READ_LEN);
	close(fd);
	return b;
}

static void xfs_case(const char *name, const char *opts, uint64_t want_unit_bytes,
		     uint64_t want_width_bytes)
{
	char mkfs[256], q[768];
	struct pa_fs_geom g;
	uint64_t unit, width, bs;
	const char *p;
	unsigned char *b;

	snprintf(mkfs, sizeof(mkfs), "mkfs.xfs -q -f -l size=16m -d agcount=2%s", opts);
	p = image(name, 64, mkfs);
	snprintf(q, sizeof(q), "xfs_db -r -c sb -c 'p unit width blocksize' '%s'", p);
	unit = tool_value(q, "unit =");
	width = tool_value(q, "width =");
	bs = tool_value(q, "blocksize =");
	b = head(p);
	assert_int_equal(fsgeom_parse("xfs", b, FSGEOM_READ_LEN, &g), 0);
	assert_string_equal(g.fs, "XFS");
	assert_int_equal(g.blocksize, bs);
	assert_int_equal(g.unit, unit * bs);
	assert_int_equal(g.width, width * bs);
	/* and the numbers mean what mkfs was asked for */
	assert_int_equal(g.unit, want_unit_bytes);
	assert_int_equal(g.width, want_width_bytes);
	/* an XFS image is no ext4 */
	assert_int_equal(fsgeom_ext4(b, FSGEOM_READ_LEN, &g), -EINVAL);
	free(b);
}

static void test_xfs_real(void **state)
{
	struct pa_fs_geom g;
	char why[256], fix[128];
	unsigned char *b;
	const char *p;

	(void)state;
	if (!have("mkfs.xfs") || !have("xfs_db")) {
		print_message("skipped: mkfs.xfs or xfs_db not installed (xfsprogs)\n");
		skip();
	}
	xfs_case("su64k-sw3.xfs", ",su=64k,sw=3", 64 * KiB, 192 * KiB);
	xfs_case("su64k-sw2.xfs", ",su=64k,sw=2", 64 * KiB, 128 * KiB);
	xfs_case("noalign.xfs", ",noalign", 0, 0);

	/* judged on a 192 KiB stripe of 64 KiB chunks, and on the wrong one */
	p = image("judge.xfs", 64, "mkfs.xfs -q -f -l size=16m -d agcount=2,su=64k,sw=2");
	b = head(p);
	assert_int_equal(fsgeom_xfs(b, FSGEOM_READ_LEN, &g), 0);
	assert_int_equal(stack_fs_check(&g, 64 * KiB, 128 * KiB, why, sizeof(why), fix,
					sizeof(fix), NULL),
			 PA_VERDICT_OK);
	assert_int_equal(
	    stack_fs_check(&g, 4096, 192 * KiB, why, sizeof(why), fix, sizeof(fix), NULL),
	    PA_VERDICT_MISALIGNED);
	assert_contains(why, "XFS swidth 128 KiB, the device's optimal I/O is 192 KiB");
	free(b);
}

static void test_ext4_real(void **state)
{
	static const struct {
		const char *name, *opts;
		uint64_t unit, width; /* bytes, what was asked for */
	} c[] = {
	    {"s16-w48.ext4", "-b 4096 -E stride=16,stripe_width=48", 64 * KiB, 192 * KiB},
	    {"s16-w32-1k.ext4", "-b 1024 -E stride=16,stripe_width=32", 16 * KiB,
	     32 * KiB},
	    {"plain.ext4", "-b 4096", 0, 0},
	};
	struct pa_fs_geom g;
	char mkfs[256], q[700];
	unsigned char *b;
	const char *p;
	size_t i;

	(void)state;
	if (!have("mke2fs") || !have("dumpe2fs")) {
		print_message("skipped: mke2fs or dumpe2fs not installed (e2fsprogs)\n");
		skip();
	}
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t stride = 0, width = 0, bs;
		char out[800];

		snprintf(mkfs, sizeof(mkfs), "mke2fs -q -F -t ext4 %s", c[i].opts);
		p = image(c[i].name, 64, mkfs);
		snprintf(q, sizeof(q), "dumpe2fs -h '%s' 2>/dev/null", p);
		bs = tool_value(q, "Block size:");
		/* dumpe2fs prints the RAID lines only when they are set */
		if (c[i].unit) {
			stride = tool_value(q, "RAID stride:");
			width = tool_value(q, "RAID stripe width:");
		} else {
			snprintf(out, sizeof(out), "%s | grep -q RAID", q);
			assert_int_not_equal(system(out), 0);
		}
		b = head(p);
		assert_int_equal(fsgeom_parse("ext4", b, FSGEOM_READ_LEN, &g), 0);
		assert_string_equal(g.fs, "ext4");
		assert_int_equal(g.blocksize, bs);
		assert_int_equal(g.unit, stride * bs);
		assert_int_equal(g.width, width * bs);
		assert_int_equal(g.unit, c[i].unit);
		assert_int_equal(g.width, c[i].width);
		assert_int_equal(fsgeom_xfs(b, FSGEOM_READ_LEN, &g), -EINVAL);
		free(b);
	}
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A hand-made XFS superblock: block size, unit and width in blocks */
static void xfs_sb(unsigned char *b, uint32_t bs, uint32_t unit, uint32_t width)
{
	memset(b, 0, FSGEOM_READ_LEN);
	memcpy(b, "XFSB", 4);
	put_be32(b + 4, bs);
	put_be32(b + 184, unit);
	put_be32(b + 188, width);
}

static void ext4_sb(unsigned char *b, uint32_t log, uint16_t stride, uint32_t width)
{
	memset(b, 0, FSGEOM_READ_LEN);
	b[1024 + 0x38] = 0x53;
	b[1024 + 0x39] = 0xef;
	b[1024 + 0x18] = (unsigned char)log;
	b[1024 + 0x164] = (unsigned char)stride;
	b[1024 + 0x165] = (unsigned char)(stride >> 8);
	b[1024 + 0x170] = (unsigned char)width;
	b[1024 + 0x171] = (unsigned char)(width >> 8);
	b[1024 + 0x172] = (unsigned char)(width >> 16);
	b[1024 + 0x173] = (unsigned char)(width >> 24);
}

static void test_hostile(void **state)
{
	unsigned char b[FSGEOM_READ_LEN];
	struct pa_fs_geom g;
	size_t n;

	(void)state;
	/* the largest fields: 64-bit products, no wrap */
	xfs_sb(b, 65536, UINT32_MAX, UINT32_MAX);
	assert_int_equal(fsgeom_xfs(b, sizeof(b), &g), 0);
	assert_int_equal(g.unit, (uint64_t)UINT32_MAX * 65536);
	assert_int_equal(g.width, (uint64_t)UINT32_MAX * 65536);
	/* truncated: every length short of the fields is refused; each copy sits
	   in a buffer of exactly that size, so a read past it is a heap error */
	for (n = 0; n < 192; n++) {
		unsigned char *t = malloc(n ? n : 1);

		memcpy(t, b, n);
		assert_int_equal(fsgeom_xfs(n ? t : NULL, n, &g), -EINVAL);
		assert_int_equal(g.fs, NULL);
		free(t);
	}
	{
		unsigned char *t = malloc(192);

		memcpy(t, b, 192);
		assert_int_equal(fsgeom_xfs(t, 192, &g), 0);
		free(t);
	}
	/* block sizes out of range or no power of two; bad magic */
	xfs_sb(b, 256, 16, 48);
	assert_int_equal(fsgeom_xfs(b, sizeof(b), &g), -EINVAL);
	xfs_sb(b, 131072, 16, 48);
	assert_int_equal(fsgeom_xfs(b, sizeof(b), &g), -EINVAL);
	xfs_sb(b, 3072, 16, 48);
	assert_int_equal(fsgeom_xfs(b, sizeof(b), &g), -EINVAL);
	xfs_sb(b, 0, 16, 48);
	assert_int_equal(fsgeom_xfs(b, sizeof(b), &g), -EINVAL);
	xfs_sb(b, 4096, 16, 48);
	b[0] = 'x';
	assert_int_equal(fsgeom_xfs(b, sizeof(b), &g), -EINVAL);

	ext4_sb(b, 2, 0xffff, UINT32_MAX);
	assert_int_equal(fsgeom_ext4(b, sizeof(b), &g), 0);
	assert_int_equal(g.blocksize, 4096);
	assert_int_equal(g.unit, 0xffffull * 4096);
	assert_int_equal(g.width, (uint64_t)UINT32_MAX * 4096);
	ext4_sb(b, 6, 1, 3);
	assert_int_equal(fsgeom_ext4(b, sizeof(b), &g), 0);
	assert_int_equal(g.blocksize, 65536);
	/* 1024 << 7 and a shift past 31 bits are refused, not computed */
	ext4_sb(b, 7, 1, 3);
	assert_int_equal(fsgeom_ext4(b, sizeof(b), &g), -EINVAL);
	ext4_sb(b, 200, 1, 3);
	assert_int_equal(fsgeom_ext4(b, sizeof(b), &g), -EINVAL);
	b[1024 + 0x18] = 0xff;
	b[1024 + 0x1b] = 0xff;
	assert_int_equal(fsgeom_ext4(b, sizeof(b), &g), -EINVAL);
	ext4_sb(b, 2, 16, 48);
	b[1024 + 0x38] = 0x54;
	assert_int_equal(fsgeom_ext4(b, sizeof(b), &g), -EINVAL);
	ext4_sb(b, 2, 16, 48);
	for (n = 0; n < 1024 + 0x174; n++) {
		unsigned char *t = malloc(n ? n : 1);

		memcpy(t, b, n);
		assert_int_equal(fsgeom_ext4(n ? t : NULL, n, &g), -EINVAL);
		free(t);
	}
	assert_int_equal(fsgeom_ext4(b, 1024 + 0x174, &g), 0);

	/* other types and none */
	assert_int_equal(fsgeom_parse("btrfs", b, sizeof(b), &g), -EOPNOTSUPP);
	assert_int_equal(fsgeom_parse(NULL, b, sizeof(b), &g), -EOPNOTSUPP);
	assert_int_equal(fsgeom_parse("ext4", NULL, 0, &g), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xfs_real),
	    cmocka_unit_test(test_ext4_real),
	    cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
