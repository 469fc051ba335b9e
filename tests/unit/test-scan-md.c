/*
 * The md reader of the scanner (src/scan/md.c) on sysfs trees built here in
 * a temporary directory: md/level, chunk_size, raid_disks, layout and the
 * member directories md/dev-NAME/{slot,offset,size,block}, as the kernel
 * (drivers/md/md.c) lays them out.  What the layout is, and when it is left
 * unknown.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#include "scan/scan.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/md0/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* member directory dev-NAME with slot, offset (sectors), size (KiB), block link */
static void member(const char *name, const char *slot, const char *offset,
		   const char *size)
{
	char p[256], rel[64], target[128];

	snprintf(p, sizeof(p), "%s/md0/md/dev-%s", root, name);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(rel, sizeof(rel), "md/dev-%s/slot", name);
	put(rel, slot);
	snprintf(rel, sizeof(rel), "md/dev-%s/offset", name);
	put(rel, offset);
	snprintf(rel, sizeof(rel), "md/dev-%s/size", name);
	put(rel, size);
	/* the kernel's link goes up to the member's own sysfs directory */
	snprintf(p, sizeof(p), "%s/md0/md/dev-%s/block", root, name);
	snprintf(target, sizeof(target), "../../../../../virtio3/block/vdx/%s", name);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	char p[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/pa-test-scan-md.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/md0", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/md0/md", root);
	assert_int_equal(mkdir(p, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void read_md(struct pa_dev *d)
{
	char p[256];
	int dfd;

	memset(d, 0, sizeof(*d));
	snprintf(p, sizeof(p), "%s/md0", root);
	dfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(scan_md_read(dfd, d), 0);
	close(dfd);
}

static void md_clear(struct pa_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->md_nmembers; i++)
		free(d->md_members[i].name);
	free(d->md_members);
	memset(d, 0, sizeof(*d));
}

static void test_levels(void **state)
{
	unsigned int l = 99, c = 99;

	(void)state;
	assert_int_equal(scan_md_level("raid0", &l), 0);
	assert_int_equal(l, 0);
	assert_int_equal(scan_md_level("raid10", &l), 0);
	assert_int_equal(l, 10);
	assert_int_equal(scan_md_level("raid6", &l), 0);
	assert_int_equal(l, 6);
	assert_int_equal(scan_md_level("linear", &l), -EOPNOTSUPP);
	assert_int_equal(scan_md_level("container", &l), -EOPNOTSUPP);
	assert_int_equal(scan_md_level("", &l), -EOPNOTSUPP);
	/* RAID10: near 2 (0x102), far 2 (0x201), offset (0x10102) */
	assert_int_equal(scan_md_raid10_copies(0x102, &c), 0);
	assert_int_equal(c, 2);
	assert_int_equal(scan_md_raid10_copies(0x201, &c), -EOPNOTSUPP);
	assert_int_equal(scan_md_raid10_copies(0x10102, &c), -EOPNOTSUPP);
}

/* RAID5 over three members listed out of slot order, and a spare. */
static void test_raid5(void **state)
{
	struct pa_dev d;

	(void)state;
	put("md/level", "raid5\n");
	put("md/chunk_size", "65536\n");
	put("md/raid_disks", "3\n");
	put("md/layout", "2\n");
	member("vdd1", "0\n", "12288\n", "18432\n");
	member("vdb1", "2\n", "12288\n", "18432\n");
	member("vdc1", "1\n", "4104\n", "18432\n");
	member("vde1", "none\n", "12288\n", "18432\n");
	read_md(&d);
	assert_true(d.md_known);
	assert_int_equal(d.md_level, 5);
	assert_int_equal(d.md_chunk, 64 * KiB);
	assert_int_equal(d.md_raid_disks, 3);
	assert_int_equal(d.md_nmembers, 3);
	assert_string_equal(d.md_members[0].name, "vdd1");
	assert_string_equal(d.md_members[1].name, "vdc1");
	assert_string_equal(d.md_members[2].name, "vdb1");
	assert_int_equal(d.md_members[0].data_offset, 6 * MiB);
	assert_int_equal(d.md_members[1].data_offset, 2052 * KiB);
	md_clear(&d);

	/* degraded: slot 2 has no member */
	teardown(state);
	setup(state);
	put("md/level", "raid5\n");
	put("md/chunk_size", "65536\n");
	put("md/raid_disks", "3\n");
	member("vdd1", "0\n", "12288\n", "18432\n");
	member("vdc1", "1\n", "12288\n", "18432\n");
	read_md(&d);
	assert_false(d.md_known);
	assert_null(d.md_members);

	/* a reshape: raid_disks "3 (4)" */
	member("vdb1", "2\n", "12288\n", "18432\n");
	put("md/raid_disks", "3 (4)\n");
	read_md(&d);
	assert_false(d.md_known);
	put("md/raid_disks", "3\n");
	read_md(&d);
	assert_true(d.md_known);
	md_clear(&d);

	/* two members claiming one slot */
	member("vde1", "1\n", "12288\n", "18432\n");
	read_md(&d);
	assert_false(d.md_known);
}

/* RAID0 in one zone, and over members of different sizes (several zones). */
static void test_raid0(void **state)
{
	struct pa_dev d;

	(void)state;
	put("md/level", "raid0\n");
	put("md/chunk_size", "524288\n");
	put("md/raid_disks", "2\n");
	member("sda", "0\n", "2048\n", "1000\n");
	member("sdb", "1\n", "2048\n", "1000\n");
	read_md(&d);
	assert_true(d.md_known);
	assert_int_equal(d.md_chunk, 512 * KiB);
	assert_int_equal(d.md_members[1].data_offset, 1 * MiB);
	assert_string_equal(d.md_members[1].name, "sdb");
	md_clear(&d);
	put("md/dev-sdb/size", "2000\n");
	read_md(&d);
	assert_false(d.md_known);
	/* no chunk size: unknown */
	put("md/dev-sdb/size", "1000\n");
	put("md/chunk_size", "0\n");
	read_md(&d);
	assert_false(d.md_known);
}

/* RAID1 needs no chunk; RAID10 far copies are not followed. */
static void test_raid1_raid10(void **state)
{
	struct pa_dev d;

	(void)state;
	put("md/level", "raid1\n");
	put("md/chunk_size", "0\n");
	put("md/raid_disks", "2\n");
	member("vdb", "0\n", "264192\n", "1000\n");
	member("vdc", "1\n", "264192\n", "1000\n");
	read_md(&d);
	assert_true(d.md_known);
	assert_int_equal(d.md_level, 1);
	assert_int_equal(d.md_chunk, 0);
	assert_int_equal(d.md_members[0].data_offset, 129 * MiB);
	md_clear(&d);

	put("md/level", "raid10\n");
	put("md/chunk_size", "65536\n");
	put("md/layout", "513\n"); /* 0x201: far 2 */
	read_md(&d);
	assert_false(d.md_known);
	put("md/layout", "258\n"); /* 0x102: near 2 */
	read_md(&d);
	assert_true(d.md_known);
	assert_int_equal(d.md_copies, 2);
	md_clear(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_levels),
	    cmocka_unit_test_setup_teardown(test_raid5, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_raid0, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_raid1_raid10, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
