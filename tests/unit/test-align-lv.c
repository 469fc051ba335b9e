/*
 * layers_check() with LVM metadata from --probe (issue #15): an LVM
 * dm device whose table lands on PE boundaries of PVs with a known pe_start
 * and extent size is judged as an LV, so the reason blames pe_start or the
 * extents instead of a bare table offset; without the metadata (plain
 * check) the same device is the dm table it was.  And layers_check_fs(, NULL): a
 * file system's geometry against the device's queue limits.
 */
#include "config.h"

#include <stdio.h>

#include "unit.h"

#include "core/align.h"
#include "core/layers.h"

#define OK PA_VERDICT_OK
#define BAD PA_VERDICT_MISALIGNED
#define NA PA_VERDICT_NA

static struct pa_topology topo(uint32_t l, uint32_t p, uint32_t mi, uint32_t o)
{
	return (struct pa_topology){
	    .logical = l, .physical = p, .min_io = mi, .opt_io = o, .align_off = 0};
}

static char n_vda[] = "vda", n_vda1[] = "vda1", n_vda2[] = "vda2", n_lv[] = "dm-2",
	    n_lv2[] = "dm-3";
static struct pa_dev disk, part, part2, lv, lv2;
static struct pa_dm_table lv_table, lv2_table;
static struct pa_dev *v[] = {&disk, &part, &part2, &lv, &lv2};
static struct pa_devlist l = {.v = v, .n = 5, .cap = 5};

static void linear(struct pa_dev *d, unsigned int k, uint64_t start, uint64_t len,
		   const struct pa_dev *to, uint64_t off)
{
	d->dm_table->n = k + 1;
	d->dm_table->t[k] =
	    (struct pa_dm_target){.start = start, .length = len, .stripes = 1};
	d->dm_table->t[k].to[0].major = to->major;
	d->dm_table->t[k].to[0].minor = to->minor;
	d->dm_table->t[k].to[0].offset = off;
}

static void pv(struct pa_dev *d, uint64_t pe_start, uint64_t ext, const char *vg)
{
	d->lvm_pv_known = true;
	d->lvm_pe_start = pe_start;
	d->lvm_extent_size = ext;
	d->lvm_vg = (char *)vg; /* a literal: these devices are never freed */
}

/* vda (512e, optimal I/O 192 KiB), vda1 at 6 MiB, vda2 at 120 MiB, two LVs */
static int setup(void **state)
{
	(void)state;
	disk = (struct pa_dev){.name = n_vda,
			       .major = 254,
			       .minor = 0,
			       .kind = PA_KIND_DISK,
			       .size = 256 * MiB};
	part = (struct pa_dev){.name = n_vda1,
			       .major = 254,
			       .minor = 1,
			       .kind = PA_KIND_PART,
			       .size = 100 * MiB,
			       .disk = &disk,
			       .start_known = true,
			       .start = 6 * MiB};
	part2 = part;
	part2.name = n_vda2;
	part2.minor = 2;
	part2.start = 120 * MiB;
	lv = (struct pa_dev){.name = n_lv,
			     .major = 253,
			     .minor = 2,
			     .kind = PA_KIND_LVM,
			     .size = 8 * MiB,
			     .dm_table_known = true,
			     .dm_table = &lv_table};
	lv_table = lv2_table = (struct pa_dm_table){0};
	lv2 = lv;
	lv2.dm_table = &lv2_table;
	lv2.name = n_lv2;
	lv2.minor = 3;
	disk.topo = topo(512, 4096, 4096, 196608);
	part.topo = part2.topo = lv.topo = lv2.topo = disk.topo;
	return 0;
}

static void judge(struct pa_dev *d, struct pa_check *c)
{
	struct pa_grain g = PA_GRAIN_DEFAULT;

	align_check_dev(d, &g, c);
	assert_int_equal(layers_check(&l, d, &g, c), 0);
	assert_true(c->stack_known);
}

/* the example: PV with --dataalignment 1m on a partition at 6 MiB */
static void test_pe_start_blamed(void **state)
{
	struct pa_check c;

	(void)state;
	linear(&lv, 0, 0, 8 * MiB, &part, 1 * MiB);
	/* plain check: the table offset */
	judge(&lv, &c);
	assert_contains(why_text(&c.why),
			"table offset 1 MiB of dm-2 on partition vda1 at 6 MiB");
	/* --probe read the PV: pe_start */
	pv(&part, 1 * MiB, 4 * MiB, "vg0");
	judge(&lv, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, BAD);
	assert_int_equal(c.abs_start, 7 * MiB);
	assert_string_equal(c.layers, "vda>vda1>dm-2");
	assert_contains(why_text(&c.why),
			"optimal: pe_start 1 MiB on partition vda1 at 6 MiB: 7 MiB "
			"is no multiple of the 192 KiB optimal I/O of vda");
	assert_not_contains(why_text(&c.why), "table offset");
	/* 4 MiB extents against lcm(4 KiB, 192 KiB, 2 MiB) = 6 MiB */
	assert_contains(why_text(&c.why),
			"extent size 4 MiB of VG vg0 is no multiple of the 6 MiB "
			"grain");
}

/* pe_start on the grain, the second LV after 10 extents of 4 MiB: the extents */
static void test_extents_blamed(void **state)
{
	struct pa_check c;

	(void)state;
	pv(&part, 6 * MiB, 4 * MiB, "vg0");
	linear(&lv, 0, 0, 8 * MiB, &part, 6 * MiB);
	judge(&lv, &c);
	assert_int_equal(c.optimal, OK);
	assert_int_equal(c.policy, OK);
	assert_int_equal(c.abs_start, 12 * MiB);
	/* aligned itself; the note says what happens to the LVs after it */
	assert_contains(why_text(&c.why), "extent size 4 MiB of VG vg0 is no multiple");
	assert_not_contains(why_text(&c.why), "optimal:");
	linear(&lv2, 0, 0, 8 * MiB, &part, 6 * MiB + 10 * 4 * MiB);
	judge(&lv2, &c);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.abs_start, 52 * MiB);
	assert_contains(why_text(&c.why),
			"extent 10 x 4 MiB of VG vg0 on PE 0 of the PV on vda1");
	/* 6 MiB extents: no note */
	pv(&part, 6 * MiB, 6 * MiB, "vg0");
	lv.size = 12 * MiB;
	linear(&lv, 0, 0, 12 * MiB, &part, 6 * MiB + 6 * MiB);
	judge(&lv, &c);
	assert_string_equal(why_text(&c.why), "");
}

/* not an LV of the probed PVs: judged as the dm table */
static void test_not_an_lv(void **state)
{
	struct pa_check c;

	(void)state;
	pv(&part, 1 * MiB, 4 * MiB, "vg0");
	/* off the PE grid */
	linear(&lv, 0, 0, 8 * MiB, &part, 1 * MiB + 512 * KiB);
	judge(&lv, &c);
	assert_contains(why_text(&c.why), "table offset 1536 KiB of dm-2");
	/* below pe_start */
	linear(&lv, 0, 0, 8 * MiB, &part, 512 * KiB);
	judge(&lv, &c);
	assert_contains(why_text(&c.why), "table offset 512 KiB of dm-2");
	/* two PVs of different VGs under one device */
	pv(&part2, 1 * MiB, 4 * MiB, "vg1");
	linear(&lv, 0, 0, 4 * MiB, &part, 1 * MiB);
	linear(&lv, 1, 4 * MiB, 4 * MiB, &part2, 1 * MiB);
	judge(&lv, &c);
	assert_contains(why_text(&c.why), "table offset 1 MiB of dm-2");
	/* the same VG: an LV over two PVs */
	pv(&part2, 1 * MiB, 4 * MiB, "vg0");
	judge(&lv, &c);
	assert_contains(why_text(&c.why), "pe_start 1 MiB on partition vda1 at 6 MiB");
	/* a PV without VG metadata */
	pv(&part, 1 * MiB, 0, "");
	lv.dm_table->n = 1;
	judge(&lv, &c);
	assert_contains(why_text(&c.why), "table offset 1 MiB of dm-2");
	/* not an LVM device */
	pv(&part, 1 * MiB, 4 * MiB, "vg0");
	lv.kind = PA_KIND_DM;
	judge(&lv, &c);
	assert_contains(why_text(&c.why), "table offset 1 MiB of dm-2");
	lv.kind = PA_KIND_LVM;
}

/* striped over two PVs: the PE numbers per stripe */
static void test_striped(void **state)
{
	struct pa_check c;

	(void)state;
	pv(&part, 192 * KiB, 4 * MiB, "vg0");
	pv(&part2, 1 * MiB, 4 * MiB, "vg0");
	lv.dm_table->n = 1;
	lv.dm_table->t[0] = (struct pa_dm_target){
	    .start = 0, .length = 8 * MiB, .stripes = 2, .chunk = 64 * KiB};
	lv.dm_table->t[0].to[0].major = 254;
	lv.dm_table->t[0].to[0].minor = 1;
	lv.dm_table->t[0].to[0].offset = 192 * KiB;
	lv.dm_table->t[0].to[1].major = 254;
	lv.dm_table->t[0].to[1].minor = 2;
	lv.dm_table->t[0].to[1].offset = 1 * MiB;
	judge(&lv, &c);
	/* 120 MiB + 1 MiB = 121 MiB on vda: off the 192 KiB stripe, pe_start to
	   blame; the first stripe at 6 MiB + 192 KiB is on it */
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.abs_start, 121 * MiB);
	assert_contains(why_text(&c.why), "pe_start 1 MiB on partition vda2 at 120 MiB");
}

static void test_fs(void **state)
{
	struct pa_dev d = {.kind = PA_KIND_LVM, .size = 64 * MiB};
	char why[256];

	(void)state;
	d.topo = topo(512, 4096, 64 * KiB, 192 * KiB);
	assert_int_equal(layers_check_fs(&d, why, sizeof(why), NULL, 0, NULL), NA);
	assert_string_equal(why, "");
	d.fs_geom_known = true;
	d.fs_name = "XFS";
	d.fs_blocksize = 4096;
	d.fs_unit = 64 * KiB;
	d.fs_width = 192 * KiB;
	assert_int_equal(layers_check_fs(&d, why, sizeof(why), NULL, 0, NULL), OK);
	d.fs_width = 128 * KiB;
	assert_int_equal(layers_check_fs(&d, why, sizeof(why), NULL, 0, NULL), BAD);
	assert_contains(why, "XFS swidth 128 KiB, the device's optimal I/O is 192 KiB");
	/* an optimal I/O size the checks do not believe counts as none */
	d.topo.opt_io = 0xffff * 512;
	assert_int_equal(layers_check_fs(&d, why, sizeof(why), NULL, 0, NULL), NA);
	/* a partition: its disk's size for the sanity check */
	d.fs_width = 192 * KiB;
	d.topo.opt_io = 192 * KiB;
	assert_int_equal(layers_check_fs(&d, why, sizeof(why), NULL, 0, NULL), OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_pe_start_blamed, setup),
	    cmocka_unit_test_setup(test_extents_blamed, setup),
	    cmocka_unit_test_setup(test_not_an_lv, setup),
	    cmocka_unit_test_setup(test_striped, setup),
	    cmocka_unit_test_setup(test_fs, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
