/*
 * layers_check on md arrays (issue #15): the stack built from the
 * scanner's md fields (md_level, md_chunk, md_members...) and judged
 * through the array.  Three virtio disks vdb, vdc, vdd (512/4096, optimal
 * I/O 192 KiB), one partition each at 6 MiB of 24 MiB, an array over the
 * three partitions (chunk 64 KiB).  The expected numbers are worked out by
 * hand in the comments, never by calling the code under test.
 */
#include "config.h"

#include <stdio.h>

#include "unit.h"

#include "core/align.h"
#include "core/layers.h"

#define OK PA_VERDICT_OK
#define BAD PA_VERDICT_MISALIGNED
#define NA PA_VERDICT_NA

struct md_fixture {
	char name[9][16];
	struct pa_dev disk[3], part[3], md, mdpart, lv;
	struct pa_md_member member[3];
	struct pa_dev *v[9];
	struct pa_devlist l;
	struct pa_dm_table lv_table;
};

static void fixture(struct md_fixture *f, unsigned int level, uint64_t data_offset)
{
	struct pa_topology t = {.logical = 512,
				.physical = 4096,
				.min_io = 4096,
				.opt_io = 196608,
				.align_off = 0};
	unsigned int k, ndata = level == 0 ? 3 : 2;

	memset(f, 0, sizeof(*f));
	for (k = 0; k < 3; k++) {
		snprintf(f->name[k], sizeof(f->name[k]), "vd%c", 'b' + k);
		snprintf(f->name[3 + k], sizeof(f->name[3 + k]), "vd%c1", 'b' + k);
		f->disk[k] = (struct pa_dev){.name = f->name[k],
					     .major = 254,
					     .minor = 16 * (k + 1),
					     .kind = PA_KIND_DISK,
					     .size = 32 * MiB,
					     .topo = t};
		f->part[k] = (struct pa_dev){.name = f->name[3 + k],
					     .major = 254,
					     .minor = 16 * (k + 1) + 1,
					     .kind = PA_KIND_PART,
					     .size = 24 * MiB,
					     .disk = &f->disk[k],
					     .start_known = true,
					     .start = 6 * MiB,
					     .topo = t};
		f->member[k] = (struct pa_md_member){.name = f->name[3 + k],
						     .data_offset = data_offset};
	}
	snprintf(f->name[6], sizeof(f->name[6]), "md0");
	snprintf(f->name[7], sizeof(f->name[7]), "dm-0");
	snprintf(f->name[8], sizeof(f->name[8]), "md0p1");
	f->md = (struct pa_dev){.name = f->name[6],
				.major = 9,
				.minor = 0,
				.kind = PA_KIND_MD,
				/* each member's data, rounded down to the chunk */
				.size = ndata * ((24 * MiB - data_offset) / (64 * KiB)) *
					(64 * KiB),
				.topo = t,
				.md_known = true,
				.md_level = level,
				.md_chunk = 64 * KiB,
				.md_raid_disks = 3,
				.md_nmembers = 3,
				.md_members = f->member};
	f->md.topo.opt_io = (uint32_t)(ndata * 64 * KiB);
	f->mdpart = (struct pa_dev){.name = f->name[8],
				    .major = 259,
				    .minor = 0,
				    .kind = PA_KIND_PART,
				    .size = 4 * MiB,
				    .disk = &f->md,
				    .start_known = true,
				    .start = 6 * MiB,
				    .topo = f->md.topo};
	f->lv = (struct pa_dev){.name = f->name[7],
				.major = 253,
				.minor = 0,
				.kind = PA_KIND_LVM,
				.size = 4 * MiB,
				.topo = f->md.topo,
				.dm_table_known = true,
				.dm_table = &f->lv_table};
	f->lv_table = (struct pa_dm_table){0};
	f->lv.dm_table->n = 1;
	f->lv.dm_table->t[0].length = 4 * MiB;
	f->lv.dm_table->t[0].stripes = 1;
	f->lv.dm_table->t[0].to[0].major = 9;
	f->lv.dm_table->t[0].to[0].minor = 0;
	for (k = 0; k < 3; k++) {
		f->v[k] = &f->disk[k];
		f->v[3 + k] = &f->part[k];
	}
	f->v[6] = &f->md;
	f->v[7] = &f->lv;
	f->v[8] = &f->mdpart;
	f->l = (struct pa_devlist){.v = f->v, .n = 9, .cap = 9};
}

static void judge(struct md_fixture *f, struct pa_dev *d, struct pa_check *c)
{
	struct pa_grain g = PA_GRAIN_DEFAULT;

	align_check_dev(d, &g, c);
	assert_int_equal(layers_check(&f->l, d, &g, c), 0);
	assert_true(c->stack_known);
}

/* RAID0, data offset 1 MiB: byte 0 on every member at 6 + 1 = 7 MiB, which
   is no multiple of 192 KiB (37.33) or of 2 MiB; physical 4 KiB is fine. */
static void test_raid0_offset_off(void **state)
{
	struct md_fixture f;
	struct pa_check c;

	(void)state;
	fixture(&f, 0, 1 * MiB);
	judge(&f, &f.md, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, BAD);
	assert_int_equal(c.abs_start, 7 * MiB);
	assert_string_equal(c.layers, "vdb>vdb1>md0");
	assert_contains(why_text(&c.why),
			"optimal: data offset 1 MiB of md0 on partition vdb1 at "
			"6 MiB: 7 MiB is no multiple of the 192 KiB optimal I/O "
			"of vdb");
	assert_contains(why_text(&c.why), "2 MiB policy grain");
	assert_not_contains(why_text(&c.why), "whole device");
}

/* RAID0 and RAID5, data offset 6 MiB: 12 MiB = 64 x 192 KiB = 6 x 2 MiB. */
static void test_offset_ok(void **state)
{
	static const unsigned int levels[] = {0, 5};
	struct md_fixture f;
	struct pa_check c;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		fixture(&f, levels[i], 6 * MiB);
		judge(&f, &f.md, &c);
		assert_int_equal(c.physical, OK);
		assert_int_equal(c.optimal, OK);
		assert_int_equal(c.policy, OK);
		assert_int_equal(c.abs_start, 12 * MiB);
		assert_string_equal(why_text(&c.why), "");
	}
}

/* RAID5 with data offset 4 KiB + 2 MiB: 8 MiB + 4 KiB; physical ok,
   optimal and policy not. */
static void test_raid5_offset_off(void **state)
{
	struct md_fixture f;
	struct pa_check c;

	(void)state;
	fixture(&f, 5, 2 * MiB + 4 * KiB);
	judge(&f, &f.md, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, BAD);
	assert_int_equal(c.abs_start, 8 * MiB + 4 * KiB);
	assert_contains(
	    why_text(&c.why),
	    "data offset 2052 KiB of md0 on partition vdb1 at 6 MiB: 8196 KiB");
}

/*
 * An LV on the RAID5 (data offset 6 MiB) at table offset 1 MiB: on the array
 * a multiple of the 64 KiB chunk and the 128 KiB stripe width but not of
 * 2 MiB (policy); chunk 16 is row 8 on the members, 512 KiB in, on the disk
 * 6 + 6 MiB + 512 KiB = 12.5 MiB, no multiple of 192 KiB (66.67).  At 6 MiB:
 * row 48, 3 MiB in, 15 MiB on the disk = 80 x 192 KiB: all fine.
 */
static void test_lv_on_raid5(void **state)
{
	struct md_fixture f;
	struct pa_check c;

	(void)state;
	fixture(&f, 5, 6 * MiB);
	f.lv.dm_table->t[0].to[0].offset = 1 * MiB;
	judge(&f, &f.lv, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, BAD);
	assert_int_equal(c.abs_start, 12 * MiB + 512 * KiB);
	assert_string_equal(c.layers, "vdb>vdb1>md0>dm-0");
	/* the worst miss is the optimal one: its clause comes first, so labelled,
	   and the policy clause (found first on the way down) after it */
	assert_true(strncmp(why_text(&c.why), "optimal: ", 9) == 0);
	assert_true(strstr(why_text(&c.why), "optimal I/O") != NULL &&
		    strstr(why_text(&c.why), "optimal I/O") <
			strstr(why_text(&c.why), "policy grain"));
	assert_true(strstr(why_text(&c.why), "; ") <
		    strstr(why_text(&c.why), "policy grain"));

	f.lv.dm_table->t[0].to[0].offset = 6 * MiB;
	judge(&f, &f.lv, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, OK);
	assert_int_equal(c.policy, OK);
	assert_int_equal(c.abs_start, 15 * MiB);
}

/* A partition of the array at 6 MiB: the same place as the LV at 6 MiB. */
static void test_partition_of_md(void **state)
{
	struct md_fixture f;
	struct pa_check c;

	(void)state;
	fixture(&f, 5, 6 * MiB);
	judge(&f, &f.mdpart, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, OK);
	assert_int_equal(c.policy, OK);
	assert_int_equal(c.abs_start, 15 * MiB);
	assert_string_equal(c.layers, "vdb>vdb1>md0>md0p1");
}

/* RAID1 over the whole disks (no partitions), data offset 1 MiB: byte 0 at
   1 MiB of both, no multiple of 192 KiB or 2 MiB; the reason names the disk. */
static void test_raid1_whole_disks(void **state)
{
	struct md_fixture f;
	struct pa_check c;

	(void)state;
	fixture(&f, 1, 1 * MiB);
	f.member[0].name = f.name[0];
	f.member[1].name = f.name[1];
	f.md.md_nmembers = 2;
	f.md.md_raid_disks = 2;
	f.md.md_chunk = 0;
	f.md.size = 31 * MiB;
	judge(&f, &f.md, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, BAD);
	assert_int_equal(c.abs_start, 1 * MiB);
	assert_string_equal(c.layers, "vdb>md0");
	assert_contains(why_text(&c.why),
			"optimal: data offset 1 MiB of md0: 1 MiB is no multiple "
			"of the 192 KiB optimal I/O of vdb");
	assert_contains(why_text(&c.why), "of vdc");
}

/* Not known: the layout unread, a member the scan does not have, a member
   partition at an unknown start, no data disks: judged as before. */
static void test_md_unknown(void **state)
{
	struct md_fixture f;
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;
	char gone[] = "vdz1";

	(void)state;
	fixture(&f, 0, 1 * MiB);
	f.md.md_known = false;
	align_check_dev(&f.md, &g, &c);
	assert_int_equal(layers_check(&f.l, &f.md, &g, &c), 1);
	assert_false(c.stack_known);
	assert_contains(why_text(&c.why), "whole device");
	/* the LV on it: md0 is a bottom device of its own topology again */
	f.lv.dm_table->t[0].to[0].offset = 1 * MiB;
	judge(&f, &f.lv, &c);
	assert_string_equal(c.layers, "md0>dm-0");
	f.md.md_known = true;

	f.member[2].name = gone;
	assert_int_equal(layers_check(&f.l, &f.md, &g, &c), 1);
	assert_int_equal(layers_check(&f.l, &f.lv, &g, &c), 1);
	f.member[2].name = f.name[5];

	f.part[1].start_known = false;
	assert_int_equal(layers_check(&f.l, &f.md, &g, &c), 1);
	f.part[1].start_known = true;

	f.md.md_level = 6;
	f.md.md_nmembers = 2; /* RAID6 over 2: no data disk */
	assert_int_equal(layers_check(&f.l, &f.md, &g, &c), 1);
	f.md.md_nmembers = 3;
	f.md.md_level = 0;

	/* an array larger than its members hold: refused by the model */
	f.md.size = 100 * MiB;
	assert_int_equal(layers_check(&f.l, &f.md, &g, &c), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raid0_offset_off),
	    cmocka_unit_test(test_offset_ok),
	    cmocka_unit_test(test_raid5_offset_off),
	    cmocka_unit_test(test_lv_on_raid5),
	    cmocka_unit_test(test_partition_of_md),
	    cmocka_unit_test(test_raid1_whole_disks),
	    cmocka_unit_test(test_md_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
