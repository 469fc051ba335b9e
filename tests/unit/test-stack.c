/*
 * Unit tests of alignment through a storage stack (core/stack.c): LVM
 * linear and striped, md RAID0 and RAID5, LUKS2, LV on md on partitions, LV
 * on a partition of a multipath map, file-system stripe geometry, advice,
 * and hostile input.  Every stack is built here from structs; every expected
 * offset is worked out by hand in the comments, never by the code under test.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "unit.h"

#include "core/stack-advise.h"

/* virtio disk of issue #15: 512 logical, 4096 physical, optimal I/O 3 x 64 KiB */
static const struct pa_topology virtio = {
    .logical = 512, .physical = 4096, .min_io = 4096, .opt_io = 196608, .align_off = 0};
/* a disk with no optimal I/O */
static const struct pa_topology plain = {
    .logical = 512, .physical = 4096, .min_io = 4096, .opt_io = 0, .align_off = 0};

static const struct pa_grain policy_2m = PA_GRAIN_DEFAULT;

static struct pa_stack_dev disk(const char *name, struct pa_topology t)
{
	return (struct pa_stack_dev){
	    .name = name, .kind = PA_STACK_DISK, .size = 100 * GiB, .topo = t};
}

static struct pa_stack_dev part(const char *name, unsigned int lower, uint64_t start)
{
	return (struct pa_stack_dev){.name = name,
				     .kind = PA_STACK_PART,
				     .size = 50 * GiB,
				     .lower = lower,
				     .offset = start};
}

static struct pa_stack_verdict check(const struct pa_stack_dev *devs, unsigned int n,
				     unsigned int dev, const struct pa_grain *policy)
{
	struct pa_stack s = {.ndevs = n, .dev = devs};
	struct pa_stack_verdict v;

	assert_int_equal(stack_check_dev(&s, dev, policy, &v), 0);
	return v;
}

static void advise(const struct pa_stack_dev *devs, unsigned int n, unsigned int dev,
		   const struct pa_stack_verdict *v, char *buf, size_t len)
{
	struct pa_stack s = {.ndevs = n, .dev = devs};

	assert_int_equal(stack_advise(&s, dev, v, buf, len), 0);
}

/*
 * Issue #15: partition at 6 MiB (6291456 = 32 x 196608: on the stripe, and
 * 3 x 2 MiB), PV made with --dataalignment 1m: pe_start 1 MiB, so the LV
 * starts at disk byte 7 MiB = 7340032.
 *   7340032 % 4096 = 0                      physical ok
 *   7340032 = 37 x 196608 + 65536           optimal misaligned
 *   7340032 = 3 x 2 MiB + 1 MiB             policy misaligned
 * 6 MiB was on both grains, 7 MiB is not: pe_start is to blame.
 */
static const struct pa_stack_ref lv7_to[] = {{.dev = 0, .offset = 0}};
static const struct pa_stack_seg lv7_seg[] = {
    {.start = 0, .length = 1 * GiB, .stripes = 1, .to = lv7_to}};
static const struct pa_stack_pv lv7_pv[] = {{.dev = 1, .pe_start = 1 * MiB}};

static void test_issue_example(void **state)
{
	struct pa_stack_dev d[3] = {disk("vda", virtio), part("vda1", 0, 6 * MiB)};
	struct pa_stack_verdict v;
	char fix[256];

	d[2] = (struct pa_stack_dev){.name = "vg-lv",
				     .kind = PA_STACK_LV,
				     .size = 1 * GiB,
				     .vg = "vg",
				     .extent_size = 4 * MiB,
				     .npvs = 1,
				     .pvs = lv7_pv,
				     .nsegs = 1,
				     .segs = lv7_seg};
	v = check(d, 3, 2, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.abs, 7 * MiB);
	assert_int_equal(v.bottom, 0);
	assert_string_equal(v.path, "vda -> vda1 -> vg-lv");
	assert_true(v.blamed);
	assert_int_equal(v.blame, PA_TERM_PE_START);
	assert_int_equal(v.blame_dev, 1);
	assert_int_equal(v.grain, 196608);
	assert_contains(why_text(&v.why),
			"pe_start 1 MiB on partition vda1 at 6 MiB: 7 MiB is no "
			"multiple of the 192 KiB optimal I/O of vda");
	assert_contains(why_text(&v.why),
			"7 MiB is no multiple of the 2 MiB policy grain");

	/*
	 * A pe_start that satisfies 4 KiB, 192 KiB and 2 MiB: lcm = 2^21 x 3 =
	 * 6 MiB; the partition (6 MiB) is on it, so no alignment offset.
	 */
	advise(d, 3, 2, &v, fix, sizeof(fix));
	assert_contains(fix, "pvcreate --dataalignment 6m NEWPV; vgextend vg NEWPV; "
			     "pvmove /dev/vda1 NEWPV");

	/* with a 64 KiB policy: lcm(4 KiB, 192 KiB, 64 KiB) = 192 KiB */
	{
		struct pa_grain g64 = {.value = 64 * KiB};

		v = check(d, 3, 2, &g64);
		assert_int_equal(v.policy, PA_VERDICT_OK); /* 7 MiB = 112 x 64 KiB */
		advise(d, 3, 2, &v, fix, sizeof(fix));
		assert_contains(fix, "pvcreate --dataalignment 192k NEWPV");
	}
}

/*
 * Aligned LVM: partition 6 MiB, pe_start 6 MiB -> LV 1 at 12 MiB
 * (12582912 = 64 x 196608 = 6 x 2 MiB).  LV 2 starts at PE 10 of a 4 MiB
 * extent VG: 12 MiB + 40 MiB = 52 MiB = 54525952 = 277 x 196608 + 65536:
 * off the stripe (52 MiB is still 26 x 2 MiB: policy ok), and the extents
 * are to blame, 12 MiB was on it.  With 6 MiB extents, LV 2 at 12 + 60 =
 * 72 MiB = 384 x 196608 = 36 x 2 MiB: aligned.
 */
static const struct pa_stack_pv lv12_pv[] = {{.dev = 1, .pe_start = 6 * MiB}};
static const struct pa_stack_ref lv2_to[] = {{.dev = 0, .offset = 10}};
static const struct pa_stack_seg lv2_seg[] = {
    {.start = 0, .length = 1 * GiB, .stripes = 1, .to = lv2_to}};

static struct pa_stack_dev lv(const char *name, uint64_t extent,
			      const struct pa_stack_pv *pv, unsigned int npv,
			      const struct pa_stack_seg *seg, unsigned int nseg)
{
	return (struct pa_stack_dev){.name = name,
				     .kind = PA_STACK_LV,
				     .size = 1 * GiB,
				     .vg = "vg",
				     .extent_size = extent,
				     .npvs = npv,
				     .pvs = pv,
				     .nsegs = nseg,
				     .segs = seg};
}

static void test_lvm_aligned_and_extent_size(void **state)
{
	struct pa_stack_dev d[4] = {disk("vda", virtio), part("vda1", 0, 6 * MiB),
				    lv("vg-lv1", 4 * MiB, lv12_pv, 1, lv7_seg, 1),
				    lv("vg-lv2", 4 * MiB, lv12_pv, 1, lv2_seg, 1)};
	struct pa_stack_verdict v;
	char why[256], fix[256];
	struct pa_reason note;

	v = check(d, 4, 2, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_OK);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 12 * MiB);
	assert_false(v.blamed);
	assert_string_equal(why_text(&v.why), "");
	advise(d, 4, 2, &v, fix, sizeof(fix));
	assert_string_equal(fix, "");

	v = check(d, 4, 3, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 52 * MiB);
	assert_int_equal(v.blame, PA_TERM_EXTENTS);
	assert_contains(
	    why_text(&v.why),
	    "extent 10 x 4 MiB of VG vg on PE 0 of the PV on vda1 at "
	    "12 MiB: 52 MiB is no multiple of the 192 KiB optimal I/O of vda");
	/* 4 MiB = 21 x 192 KiB + 64 KiB */
	assert_false(stack_extent_ok(&d[3], 196608, &note));
	reason_text(&note, why, sizeof(why));
	assert_contains(why,
			"extent size 4 MiB of VG vg is no multiple of the 192 KiB grain");
	/* the fix grain is lcm(4 KiB, 192 KiB, 2 MiB) = 6 MiB; 6 MiB >= 4 MiB */
	advise(d, 4, 3, &v, fix, sizeof(fix));
	assert_contains(fix, "vgcreate -s 6m NEWVG NEWPV");

	d[3].extent_size = 6 * MiB;
	v = check(d, 4, 3, &policy_2m);
	assert_int_equal(v.optimal, PA_VERDICT_OK);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 72 * MiB);
	assert_true(stack_extent_ok(&d[3], 196608, NULL));
}

/*
 * Striped LV over two PVs (vda1 at 1 MiB, vdb1 at sector 2049 = 1049088),
 * pe_start 1 MiB, 2 stripes of 64 KiB.  The first row puts chunk 0 on each
 * PV at PE 0: vda at 1 MiB + 1 MiB = 2 MiB (ok); vdb at 1049088 + 1048576 =
 * 2097664 B, and 2097664 % 4096 = 512: physically misaligned, the partition
 * start is to blame (1049088 % 4096 = 512 already).
 */
static const struct pa_stack_pv str_pv[] = {{.dev = 2, .pe_start = 1 * MiB},
					    {.dev = 3, .pe_start = 1 * MiB}};
static const struct pa_stack_ref str_to[] = {{.dev = 0, .offset = 0},
					     {.dev = 1, .offset = 0}};
static const struct pa_stack_seg str_seg[] = {
    {.start = 0, .length = 1 * GiB, .stripes = 2, .chunk = 64 * KiB, .to = str_to}};

static void test_striped_lv(void **state)
{
	struct pa_stack_dev d[5] = {disk("vda", plain), disk("vdb", plain),
				    part("vda1", 0, 1 * MiB), part("vdb1", 1, 2049 * 512),
				    lv("vg-str", 4 * MiB, str_pv, 2, str_seg, 1)};
	struct pa_stack_verdict v;
	char fix[256];

	v = check(d, 5, 4, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.optimal, PA_VERDICT_OK); /* 0 is on the 128 KiB stripe width */
	assert_int_equal(v.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.bottom, 1);
	assert_int_equal(v.abs, 2097664);
	assert_string_equal(v.path, "vdb -> vdb1 -> vg-str");
	assert_int_equal(v.blame, PA_TERM_PART_START);
	assert_int_equal(v.blame_dev, 3);
	assert_contains(why_text(&v.why),
			"partition vdb1 at 1049088 B: 1049088 B is no multiple of "
			"the 4 KiB physical sector and minimum I/O of vdb (the segment "
			"lands at 2097664 B)");
	advise(d, 5, 4, &v, fix, sizeof(fix));
	assert_string_equal(fix, "partalign plan /dev/vdb");

	/* both at 1 MiB: 2 MiB on each disk, all ok */
	d[3].offset = 1 * MiB;
	v = check(d, 5, 4, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_OK);
	assert_int_equal(v.policy, PA_VERDICT_OK);
}

/*
 * md RAID5 over three partitions at 1 MiB, chunk 64 KiB, 2 data disks,
 * data offset 2052 sectors = 1026 KiB: each member's data starts at
 * 1 MiB + 1026 KiB = 2050 KiB = 2099200 B, 2050 KiB % 4 KiB = 2 KiB:
 * physically misaligned, the data offset is to blame (1 MiB was on 4 KiB).
 * Fix: the smallest data offset >= 1026 KiB putting 1 MiB + offset on the
 * lcm(4 KiB, 2 MiB) = 2 MiB grain: 4 MiB - 1 MiB = 3072 KiB.
 */
static const struct pa_stack_member r5_members[] = {
    {.dev = 3, .data_offset = 1026 * KiB},
    {.dev = 4, .data_offset = 1026 * KiB},
    {.dev = 5, .data_offset = 1026 * KiB}};

static void test_md_raid5_data_offset(void **state)
{
	struct pa_stack_dev d[7] = {disk("vda", plain),	      disk("vdb", plain),
				    disk("vdc", plain),	      part("vda1", 0, 1 * MiB),
				    part("vdb1", 1, 1 * MiB), part("vdc1", 2, 1 * MiB)};
	struct pa_stack_verdict v;
	char fix[256];

	d[6] = (struct pa_stack_dev){.name = "md0",
				     .kind = PA_STACK_MD,
				     .size = 10 * GiB,
				     .level = 5,
				     .chunk = 64 * KiB,
				     .data_disks = 2,
				     .nmembers = 3,
				     .members = r5_members};
	v = check(d, 7, 6, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.optimal,
			 PA_VERDICT_OK); /* md0 at 0, disks without optimal I/O */
	assert_int_equal(v.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.abs, 2050 * KiB);
	assert_int_equal(v.blame, PA_TERM_DATA_OFFSET);
	assert_int_equal(v.blame_dev, 6);
	assert_contains(why_text(&v.why),
			"data offset 1026 KiB of md0 on partition vda1 at 1 MiB: "
			"2050 KiB is no multiple of the 4 KiB physical sector");
	assert_contains(why_text(&v.why),
			"on partition vdb1 at 1 MiB"); /* every member judged */
	assert_contains(why_text(&v.why), "; ...");    /* and the rest left out */
	advise(d, 7, 6, &v, fix, sizeof(fix));
	assert_string_equal(
	    fix, "mdadm --create /dev/md0 --level=5 --raid-devices=3 "
		 "--chunk=64K --data-offset=3072K /dev/vda1 /dev/vdb1 /dev/vdc1");
}

/*
 * md RAID0 over two partitions at 6 MiB of virtio disks (192 KiB optimal
 * I/O), data offset 6 MiB: data at 12 MiB (64 x 192 KiB): on every grain.
 * Chunk 128 KiB: 192 KiB is no multiple of 128 KiB nor 128 of 192, so the
 * chunks straddle the disks' stripes (optimal misaligned, the chunk to
 * blame).  Fix: chunk lcm(128 KiB, 192 KiB) = 384 KiB.  With chunk 64 KiB
 * (192 = 3 x 64) it is fine.
 */
static const struct pa_stack_member r0_members[] = {{.dev = 2, .data_offset = 6 * MiB},
						    {.dev = 3, .data_offset = 6 * MiB}};

static void test_md_raid0_chunk(void **state)
{
	struct pa_stack_dev d[5] = {disk("vda", virtio), disk("vdb", virtio),
				    part("vda1", 0, 6 * MiB), part("vdb1", 1, 6 * MiB)};
	struct pa_stack_verdict v;
	char fix[256];

	d[4] = (struct pa_stack_dev){.name = "md0",
				     .kind = PA_STACK_MD,
				     .size = 10 * GiB,
				     .level = 0,
				     .chunk = 128 * KiB,
				     .data_disks = 2,
				     .nmembers = 2,
				     .members = r0_members};
	v = check(d, 5, 4, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 12 * MiB);
	assert_int_equal(v.blame, PA_TERM_ROW);
	assert_contains(why_text(&v.why),
			"chunk 128 KiB of md0 straddles the 192 KiB optimal I/O of vda");
	advise(d, 5, 4, &v, fix, sizeof(fix));
	assert_contains(fix,
			"mdadm --create /dev/md0 --level=0 --raid-devices=2 --chunk=384K "
			"--data-offset=6144K /dev/vda1 /dev/vdb1");

	d[4].chunk = 64 * KiB;
	v = check(d, 5, 4, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_OK);
	assert_int_equal(v.policy, PA_VERDICT_OK);
}

/*
 * LV on md on partitions: md0 RAID0 over vda1, vdb1, vdc1 (all at 1 MiB,
 * data offset 1 MiB), chunk 64 KiB: its own optimal I/O is 3 x 64 KiB =
 * 192 KiB.  A PV on md0 with pe_start 1 MiB: 1 MiB = 16 x 64 KiB (on the
 * chunk) but 1048576 = 5 x 196608 + 65536 (off the stripe width), and not a
 * multiple of 2 MiB: pe_start is to blame.  Chunk 16 lands on member 16 % 3
 * = 1 (vdb1), row 16 / 3 = 5: at 5 x 64 KiB = 320 KiB of its data, which
 * starts at 1 MiB + 1 MiB: disk byte 2 MiB + 320 KiB = 2368 KiB (4 KiB ok).
 */
static const struct pa_stack_member r0b_members[] = {{.dev = 3, .data_offset = 1 * MiB},
						     {.dev = 4, .data_offset = 1 * MiB},
						     {.dev = 5, .data_offset = 1 * MiB}};
static const struct pa_stack_pv onmd_pv[] = {{.dev = 6, .pe_start = 1 * MiB}};

static void test_lv_on_md_on_partitions(void **state)
{
	struct pa_stack_dev d[8] = {disk("vda", plain),	      disk("vdb", plain),
				    disk("vdc", plain),	      part("vda1", 0, 1 * MiB),
				    part("vdb1", 1, 1 * MiB), part("vdc1", 2, 1 * MiB)};
	struct pa_stack_verdict v;
	char fix[256];

	d[6] = (struct pa_stack_dev){.name = "md0",
				     .kind = PA_STACK_MD,
				     .size = 30 * GiB,
				     .level = 0,
				     .chunk = 64 * KiB,
				     .data_disks = 3,
				     .nmembers = 3,
				     .members = r0b_members};
	d[7] = lv("vg-lv", 4 * MiB, onmd_pv, 1, lv7_seg, 1);
	v = check(d, 8, 7, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.bottom, 1);
	assert_int_equal(v.abs, 2368 * KiB);
	assert_string_equal(v.path, "vdb -> vdb1 -> md0 -> vg-lv");
	assert_int_equal(v.blame, PA_TERM_PE_START);
	assert_int_equal(v.blame_dev, 6);
	assert_contains(why_text(&v.why),
			"pe_start 1 MiB: 1 MiB is no multiple of the 192 KiB stripe "
			"width (3 x 64 KiB chunk) of md0");
	/* lcm(192 KiB, 2 MiB) = 6 MiB, md0 starts at 0 */
	advise(d, 8, 7, &v, fix, sizeof(fix));
	assert_contains(fix, "pvcreate --dataalignment 6m NEWPV; vgextend vg NEWPV; "
			     "pvmove /dev/md0 NEWPV");

	/* md0 itself: byte 0 at 2 MiB of every disk, all ok */
	v = check(d, 8, 6, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 2 * MiB);

	/*
	 * vdb1 at sector 2049 (1049088 B): the LV's first chunk on vdb now at
	 * 1049088 + 1 MiB + 320 KiB = 2425344 B, % 4096 = 512: physically
	 * misaligned.  That outranks the array's optimal miss: the partition
	 * is blamed and advised on.
	 */
	d[4].offset = 2049 * 512;
	v = check(d, 8, 7, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.abs, 2425344);
	assert_int_equal(v.blame, PA_TERM_PART_START);
	assert_int_equal(v.blame_dev, 4);
	advise(d, 8, 7, &v, fix, sizeof(fix));
	assert_string_equal(fix, "partalign plan /dev/vdb");
}

/*
 * LUKS2 with the default 16 MiB payload offset on the aligned LV of
 * test_lvm_aligned (12 MiB): 28 MiB = 29360128 = 149 x 196608 + 65536: off
 * the stripe; 12 MiB was on it, so the payload offset is to blame.  Fix: the
 * smallest payload >= 16 MiB with 12 MiB + payload on 6 MiB: 30 - 12 =
 * 18 MiB = 36864 sectors.  The same on a plain disk with a partition at
 * 2 MiB: 18 MiB, a multiple of 4 KiB and 2 MiB: ok.
 */
static void test_luks2_payload(void **state)
{
	struct pa_stack_dev d[4] = {disk("vda", virtio), part("vda1", 0, 6 * MiB),
				    lv("vg-lv1", 4 * MiB, lv12_pv, 1, lv7_seg, 1)};
	struct pa_stack_dev p[3] = {disk("sda", plain), part("sda2", 0, 2 * MiB)};
	struct pa_stack_verdict v;
	char fix[256];

	d[3] = (struct pa_stack_dev){.name = "luks",
				     .kind = PA_STACK_CRYPT,
				     .size = 512 * MiB,
				     .lower = 2,
				     .offset = 16 * MiB};
	v = check(d, 4, 3, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 28 * MiB);
	assert_string_equal(v.path, "vda -> vda1 -> vg-lv1 -> luks");
	assert_int_equal(v.blame, PA_TERM_PAYLOAD);
	assert_contains(
	    why_text(&v.why),
	    "payload offset 16 MiB of luks on PE 0 of the PV on vda1 at "
	    "12 MiB: 28 MiB is no multiple of the 192 KiB optimal I/O of vda");
	advise(d, 4, 3, &v, fix, sizeof(fix));
	assert_contains(fix, "cryptsetup luksFormat --offset 36864 NEWDEV");

	p[2] = (struct pa_stack_dev){.name = "luks",
				     .kind = PA_STACK_CRYPT,
				     .size = 1 * GiB,
				     .lower = 1,
				     .offset = 16 * MiB};
	v = check(p, 3, 2, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_NA);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 18 * MiB);
}

/*
 * A multipath map (one linear segment over path sda), a kpartx partition
 * mpatha1 at 6 MiB, the issue's PV (pe_start 1 MiB) on it: 7 MiB again.
 */
static const struct pa_stack_ref mp_to[] = {{.dev = 0, .offset = 0}};
static const struct pa_stack_seg mp_seg[] = {
    {.start = 0, .length = 100 * GiB, .stripes = 1, .to = mp_to}};
static const struct pa_stack_pv mp_pv[] = {{.dev = 2, .pe_start = 1 * MiB}};

static void test_lv_on_multipath_partition(void **state)
{
	struct pa_stack_dev d[4] = {disk("sda", virtio)};
	struct pa_stack_verdict v;

	d[1] = (struct pa_stack_dev){.name = "mpatha",
				     .kind = PA_STACK_DM,
				     .size = 100 * GiB,
				     .nsegs = 1,
				     .segs = mp_seg};
	d[2] = part("mpatha1", 1, 6 * MiB);
	d[3] = lv("vg-lv", 4 * MiB, mp_pv, 1, lv7_seg, 1);
	v = check(d, 4, 3, &policy_2m);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.abs, 7 * MiB);
	assert_string_equal(v.path, "sda -> mpatha -> mpatha1 -> vg-lv");
	assert_contains(why_text(&v.why), "pe_start 1 MiB on partition mpatha1 at 6 MiB");
}

/*
 * Two segments: the first at PE 0 (12 MiB, aligned as above), the second
 * (from 512 MiB of the LV) at PE 2: 12 MiB + 2 x 4 MiB = 20 MiB = 20971520 =
 * 106 x 196608 + 131072: off the stripe, the extents to blame (12 MiB was
 * on it).  The second segment is the worst.
 */
static const struct pa_stack_ref two_to1[] = {{.dev = 0, .offset = 2}};
static const struct pa_stack_seg two_seg[] = {
    {.start = 0, .length = 512 * MiB, .stripes = 1, .to = lv7_to},
    {.start = 512 * MiB, .length = 512 * MiB, .stripes = 1, .to = two_to1}};

static void test_worst_segment(void **state)
{
	struct pa_stack_dev d[3] = {disk("vda", virtio), part("vda1", 0, 6 * MiB),
				    lv("vg-lv", 4 * MiB, lv12_pv, 1, two_seg, 2)};
	struct pa_stack_verdict v;

	v = check(d, 3, 2, &policy_2m);
	assert_int_equal(v.seg, 1);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_OK); /* 20 MiB = 10 x 2 MiB */
	assert_int_equal(v.abs, 20 * MiB);
	assert_contains(why_text(&v.why), "extent 2 x 4 MiB of VG vg");
}

/*
 * A dm linear table with two segments over vda (512/4096), policy 2048
 * sectors = 2048 x 512 = 1 MiB on this disk.  The first segment at 1 MiB is
 * on every grain; the second (from 1 GiB of the map) at 3 GiB + 512 B =
 * 3221225472 + 512 = 3221225984 B, % 4096 = 512 and % 1 MiB = 512: off the
 * physical sector and the policy.  The table offset is to blame (no summand
 * below it).
 */
static const struct pa_stack_ref lin_to0[] = {{.dev = 0, .offset = 1 * MiB}};
static const struct pa_stack_ref lin_to1[] = {{.dev = 0, .offset = 3 * GiB + 512}};
static const struct pa_stack_seg lin_seg[] = {
    {.start = 0, .length = 1 * GiB, .stripes = 1, .to = lin_to0},
    {.start = 1 * GiB, .length = 1 * GiB, .stripes = 1, .to = lin_to1}};

static void test_dm_linear_offset(void **state)
{
	struct pa_stack_dev d[2] = {disk("vda", plain)};
	struct pa_grain sectors = {.value = 2048, .sectors = true};
	struct pa_stack_verdict v;
	char fix[256];

	d[1] = (struct pa_stack_dev){.name = "data",
				     .kind = PA_STACK_DM,
				     .size = 2 * GiB,
				     .nsegs = 2,
				     .segs = lin_seg};
	v = check(d, 2, 1, &sectors);
	assert_int_equal(v.seg, 1);
	assert_int_equal(v.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.abs, 3 * GiB + 512);
	assert_int_equal(v.blame, PA_TERM_DM_OFFSET);
	assert_int_equal(v.blame_dev, 1);
	assert_contains(why_text(&v.why),
			"table offset 3221225984 B of data: 3221225984 B is no "
			"multiple of the 4 KiB physical sector");
	advise(d, 2, 1, &v, fix, sizeof(fix));
	assert_contains(fix,
			"dm device data: a table whose offsets are multiples of 1 MiB");
}

/* Hostile input: refused, never wrapped. */
static void test_hostile(void **state)
{
	struct pa_stack_dev d[3] = {disk("vda", virtio), part("vda1", 0, 6 * MiB)};
	struct pa_stack s = {.ndevs = 2, .dev = d};
	struct pa_stack_verdict v;
	struct pa_stack_ref to[2] = {{.dev = 0, .offset = 0}, {.dev = 0, .offset = 0}};
	struct pa_stack_seg seg = {.start = 0, .length = 1 * GiB, .stripes = 2, .to = to};
	struct pa_stack_pv pv = {.dev = 1, .pe_start = 1 * MiB};
	struct pa_stack_member m[2] = {{.dev = 1, .data_offset = 0},
				       {.dev = 1, .data_offset = 0}};
	unsigned int bad;

	/* partition start near 2^64: start + size wraps */
	d[1].offset = UINT64_MAX - 4095;
	assert_int_equal(stack_check_dev(&s, 1, &policy_2m, &v), -ERANGE);
	assert_int_equal(stack_validate(&s, &bad), -ERANGE);
	assert_int_equal(bad, 1);
	/* past the end of the disk without wrapping */
	d[1].offset = 60 * GiB;
	assert_int_equal(stack_check_dev(&s, 1, &policy_2m, &v), -ERANGE);
	d[1].offset = 6 * MiB;
	assert_int_equal(stack_check_dev(&s, 1, &policy_2m, &v), 0);
	/* a layer may not refer to itself or to a later device */
	d[1].lower = 1;
	assert_int_equal(stack_check_dev(&s, 1, &policy_2m, &v), -EINVAL);
	d[1].lower = 0;
	assert_int_equal(stack_check_dev(&s, 5, &policy_2m, &v), -EINVAL);

	s.ndevs = 3;
	/* dm striped: chunk 0, then stripe count 0 */
	d[2] = (struct pa_stack_dev){.name = "dm-0",
				     .kind = PA_STACK_DM,
				     .size = 1 * GiB,
				     .nsegs = 1,
				     .segs = &seg};
	to[0].dev = to[1].dev = 1;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	seg.chunk = 64 * KiB;
	seg.stripes = 0;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	seg.stripes = 2;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), 0);
	/* chunk x stripes wraps */
	seg.chunk = 1ull << 63;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	seg.chunk = 64 * KiB;
	/* a stripe offset near 2^64 */
	to[1].offset = UINT64_MAX - 100;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	to[1].offset = 0;
	/* a segment whose start + length wraps */
	seg.start = UINT64_MAX - 10;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	seg.start = 0;

	/* LV: a PE number whose byte offset wraps, extent size 0 */
	seg.stripes = 1;
	to[0].dev = 0;
	to[0].offset = 1ull << 50; /* x 4 MiB = 2^72 */
	d[2] = lv("vg-lv", 4 * MiB, &pv, 1, &seg, 1);
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	to[0].offset = 0;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), 0);
	d[2].extent_size = 0;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	d[2].extent_size = 4 * MiB;
	pv.pe_start = UINT64_MAX;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	pv.pe_start = 1 * MiB;
	to[0].dev = 7; /* no such PV */
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	to[0].dev = 0;

	/* md: chunk 0, data offset near 2^64, a level that does not exist */
	d[2] = (struct pa_stack_dev){.name = "md0",
				     .kind = PA_STACK_MD,
				     .size = 1 * GiB,
				     .level = 0,
				     .chunk = 0,
				     .data_disks = 2,
				     .nmembers = 2,
				     .members = m};
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	d[2].chunk = 64 * KiB;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), 0);
	m[1].data_offset = UINT64_MAX - 511;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	m[1].data_offset = 0;
	d[2].chunk = UINT64_MAX / 2 + 1; /* x 2 data disks = 2^64 */
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -ERANGE);
	d[2].chunk = 64 * KiB;
	d[2].level = 3;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	d[2].level = 5; /* 2 members: 1 data disk, not 2 */
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);
	d[2].data_disks = 1;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), 0);
	d[2].nmembers = 0;
	assert_int_equal(stack_check_dev(&s, 2, &policy_2m, &v), -EINVAL);

	/* empty stacks */
	s.ndevs = 0;
	assert_int_equal(stack_check_dev(&s, 0, &policy_2m, &v), -EINVAL);
	assert_int_equal(stack_check_dev(NULL, 0, &policy_2m, &v), -EINVAL);
}

/*
 * File-system geometry.  XFS on md RAID5 with 64 KiB chunk and 3 data disks
 * (minimum I/O 64 KiB, optimal 192 KiB): sunit 16 x 4 KiB = 64 KiB, swidth
 * 32 x 4 KiB = 128 KiB: wrong width (128 KiB is no multiple of 192 KiB);
 * mkfs.xfs -d su=64k,sw=3 would match (192 / 64 = 3).  swidth 48 blocks
 * = 192 KiB is right.  ext4 stride 16 and stripe_width 48 (4 KiB blocks)
 * match; stripe_width 32 does not.
 */
static void test_fs_geometry(void **state)
{
	struct pa_fs_geom g;
	char why[256], fix[128];

	assert_int_equal(stack_fs_xfs(16, 32, 4096, &g), 0);
	assert_int_equal(g.unit, 64 * KiB);
	assert_int_equal(g.width, 128 * KiB);
	assert_int_equal(stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), fix,
					sizeof(fix), NULL),
			 PA_VERDICT_MISALIGNED);
	assert_contains(why, "XFS swidth 128 KiB, the device's optimal I/O is 192 KiB");
	assert_string_equal(fix, "mkfs.xfs -d su=64k,sw=3");

	assert_int_equal(stack_fs_xfs(16, 48, 4096, &g), 0);
	assert_int_equal(stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), fix,
					sizeof(fix), NULL),
			 PA_VERDICT_OK);
	assert_string_equal(why, "");
	assert_string_equal(fix, "");

	/* sunit 8 x 4 KiB = 32 KiB against a 64 KiB chunk */
	assert_int_equal(stack_fs_xfs(8, 48, 4096, &g), 0);
	assert_int_equal(
	    stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), NULL, 0, NULL),
	    PA_VERDICT_MISALIGNED);
	assert_contains(why, "XFS sunit 32 KiB, the device's minimum I/O is 64 KiB");

	assert_int_equal(stack_fs_ext4(16, 48, 4096, &g), 0);
	assert_int_equal(stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), fix,
					sizeof(fix), NULL),
			 PA_VERDICT_OK);
	assert_int_equal(stack_fs_ext4(16, 32, 4096, &g), 0);
	assert_int_equal(stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), fix,
					sizeof(fix), NULL),
			 PA_VERDICT_MISALIGNED);
	assert_contains(why,
			"ext4 stripe_width 128 KiB, the device's optimal I/O is 192 KiB");
	assert_string_equal(fix, "mkfs.ext4 -b 4096 -E stride=16,stripe_width=48");

	/* the issue's virtio disk: minimum I/O 4 KiB is a sector, so su = 192 KiB */
	assert_int_equal(stack_fs_xfs(0, 0, 4096, &g), 0);
	assert_int_equal(
	    stack_fs_check(&g, 4096, 192 * KiB, why, sizeof(why), fix, sizeof(fix), NULL),
	    PA_VERDICT_MISALIGNED);
	assert_contains(
	    why, "XFS has no stripe geometry, the device's optimal I/O is 192 KiB");
	assert_string_equal(fix, "mkfs.xfs -d su=192k,sw=1");

	/* nothing on either side: n/a */
	assert_int_equal(
	    stack_fs_check(&g, 4096, 0, why, sizeof(why), fix, sizeof(fix), NULL),
	    PA_VERDICT_NA);

	/* hostile: the largest superblock numbers do not wrap (2^32 x 2^32 < 2^64) */
	assert_int_equal(stack_fs_xfs(UINT32_MAX, UINT32_MAX, UINT32_MAX, &g), 0);
	assert_int_equal(g.width, (uint64_t)UINT32_MAX * UINT32_MAX);
	assert_int_equal(stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), fix,
					sizeof(fix), NULL),
			 PA_VERDICT_MISALIGNED);
	assert_int_equal(stack_fs_xfs(16, 48, 0, &g), -EINVAL);
}

/* The text of clause @i of @cl in @why. */
static void assert_clause(const char *why, const struct pa_fs_clauses *cl, unsigned int i,
			  const char *want)
{
	assert_true(i < cl->n);
	assert_int_equal(cl->v[i].len, strlen(want));
	assert_memory_equal(why + cl->v[i].off, want, strlen(want));
}

/*
 * Each miss is a clause, and the reason says where each is: sunit 24 KiB
 * (6 blocks) against a 64 KiB minimum I/O, swidth 100 KiB (25 blocks)
 * against 192 KiB and no multiple of the sunit.  In a buffer too short for
 * all three, the last clause is "...".  One clause of the n/a kind alone.
 */
static void test_fs_clauses(void **state)
{
	struct pa_fs_geom g;
	struct pa_fs_clauses cl;
	char why[256], small[100];

	(void)state;
	assert_int_equal(stack_fs_xfs(6, 25, 4096, &g), 0);
	assert_int_equal(
	    stack_fs_check(&g, 64 * KiB, 192 * KiB, why, sizeof(why), NULL, 0, &cl),
	    PA_VERDICT_MISALIGNED);
	assert_int_equal(cl.n, 3);
	assert_clause(why, &cl, 0,
		      "XFS swidth 100 KiB, the device's optimal I/O is 192 KiB");
	assert_clause(why, &cl, 1,
		      "XFS sunit 24 KiB, the device's minimum I/O is 64 KiB");
	assert_clause(why, &cl, 2,
		      "XFS swidth 100 KiB is no multiple of its sunit 24 KiB");
	assert_int_equal(strlen(why), cl.v[2].off + cl.v[2].len);

	assert_int_equal(
	    stack_fs_check(&g, 64 * KiB, 192 * KiB, small, sizeof(small), NULL, 0, &cl),
	    PA_VERDICT_MISALIGNED);
	assert_int_equal(cl.n, 2);
	assert_clause(small, &cl, 0,
		      "XFS swidth 100 KiB, the device's optimal I/O is 192 KiB");
	assert_clause(small, &cl, 1, "...");
	assert_string_equal(small + cl.v[1].off - 2, "; ...");

	assert_int_equal(stack_fs_check(&g, 64 * KiB, 0, why, sizeof(why), NULL, 0, &cl),
			 PA_VERDICT_NA);
	assert_int_equal(cl.n, 1);
	assert_clause(why, &cl, 0,
		      "XFS swidth 100 KiB, the device reports no optimal I/O size");
}

/*
 * RAID10 near-2 over four partitions (vdd1 at sector 2049 = 1049088 B),
 * chunk 512 KiB, 2 data disks, data offset 1 MiB.  md0's byte 0 is a row
 * start: chunk 0 in slots 0, 1 (members 0, 1), chunk 1 in slots 2, 3
 * (members 2, 3), all at row 0: 1 MiB + 1 MiB = 2 MiB on vda..vdc, and
 * 1049088 + 1048576 = 2097664 B on vdd, 2097664 % 4096 = 512: physically
 * misaligned by the partition.  RAID1 over vda1 and vdb1 (data offset
 * 1 MiB): 2 MiB on both, ok.
 */
static const struct pa_stack_member r10_members[] = {{.dev = 4, .data_offset = 1 * MiB},
						     {.dev = 5, .data_offset = 1 * MiB},
						     {.dev = 6, .data_offset = 1 * MiB},
						     {.dev = 7, .data_offset = 1 * MiB}};

static void test_md_raid10_raid1(void **state)
{
	struct pa_stack_dev d[9] = {
	    disk("vda", plain),	      disk("vdb", plain),
	    disk("vdc", plain),	      disk("vdd", plain),
	    part("vda1", 0, 1 * MiB), part("vdb1", 1, 1 * MiB),
	    part("vdc1", 2, 1 * MiB), part("vdd1", 3, 2049 * 512)};
	struct pa_stack_verdict v;

	d[8] = (struct pa_stack_dev){.name = "md0",
				     .kind = PA_STACK_MD,
				     .size = 10 * GiB,
				     .level = 10,
				     .chunk = 512 * KiB,
				     .data_disks = 2,
				     .copies = 2,
				     .nmembers = 4,
				     .members = r10_members};
	v = check(d, 9, 8, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.bottom, 3);
	assert_int_equal(v.abs, 2097664);
	assert_int_equal(v.blame, PA_TERM_PART_START);
	assert_int_equal(v.blame_dev, 7);
	assert_string_equal(v.path, "vdd -> vdd1 -> md0");

	/* three copies of two data disks do not fit four members */
	d[8].copies = 3;
	{
		struct pa_stack s = {.ndevs = 9, .dev = d};

		assert_int_equal(stack_check_dev(&s, 8, &policy_2m, &v), -EINVAL);
	}

	d[8] = (struct pa_stack_dev){.name = "md1",
				     .kind = PA_STACK_MD,
				     .size = 10 * GiB,
				     .level = 1,
				     .data_disks = 1,
				     .nmembers = 2,
				     .members = r10_members};
	v = check(d, 9, 8, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_OK);
	assert_int_equal(v.optimal, PA_VERDICT_NA);
	assert_int_equal(v.policy, PA_VERDICT_OK);
	assert_int_equal(v.abs, 2 * MiB);
}

/*
 * The kernel's "cannot align" (alignment offset -1) on the disk: physical
 * and optimal are misaligned wherever the partition is, as in align_check().
 * bottom_grain of an aligned LV: lcm(4 KiB, 192 KiB, 2 MiB) = 6 MiB, and a
 * 4 MiB extent size is no multiple of it.
 */
static void test_cannot_align_and_bottom_grain(void **state)
{
	struct pa_topology bad = virtio;
	struct pa_stack_dev d[3] = {disk("vda", bad), part("vda1", 0, 6 * MiB),
				    lv("vg-lv1", 4 * MiB, lv12_pv, 1, lv7_seg, 1)};
	struct pa_stack_verdict v;
	char why[256];
	struct pa_reason note;

	v = check(d, 3, 2, &policy_2m);
	assert_int_equal(v.bottom_grain, 6 * MiB);
	assert_false(stack_extent_ok(&d[2], v.bottom_grain, &note));
	reason_text(&note, why, sizeof(why));
	assert_contains(why,
			"extent size 4 MiB of VG vg is no multiple of the 6 MiB grain");

	d[0].topo.align_off = -1;
	v = check(d, 3, 2, &policy_2m);
	assert_int_equal(v.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(v.optimal, PA_VERDICT_MISALIGNED);
	assert_contains(why_text(&v.why), "vda: the kernel reports alignment offset -1");
}

/* A chain of 20 partitions, each at 0 of the one below: deeper than PA_STACK_DEPTH_MAX.
 */
static void test_too_deep(void **state)
{
	struct pa_stack_dev d[21];
	struct pa_stack s = {.ndevs = 21, .dev = d};
	struct pa_stack_verdict v;
	unsigned int i;

	d[0] = disk("vda", plain);
	for (i = 1; i < 21; i++) {
		d[i] = part("p", i - 1, 0);
		d[i].size = 1 * GiB;
	}
	assert_int_equal(stack_check_dev(&s, 20, &policy_2m, &v), -E2BIG);
	/* 16 layers are fine */
	assert_int_equal(stack_check_dev(&s, 15, &policy_2m, &v), 0);
	assert_int_equal(v.physical, PA_VERDICT_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_issue_example),
	    cmocka_unit_test(test_lvm_aligned_and_extent_size),
	    cmocka_unit_test(test_striped_lv),
	    cmocka_unit_test(test_md_raid5_data_offset),
	    cmocka_unit_test(test_md_raid0_chunk),
	    cmocka_unit_test(test_lv_on_md_on_partitions),
	    cmocka_unit_test(test_luks2_payload),
	    cmocka_unit_test(test_lv_on_multipath_partition),
	    cmocka_unit_test(test_worst_segment),
	    cmocka_unit_test(test_dm_linear_offset),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_fs_geometry),
	    cmocka_unit_test(test_fs_clauses),
	    cmocka_unit_test(test_md_raid10_raid1),
	    cmocka_unit_test(test_cannot_align_and_bottom_grain),
	    cmocka_unit_test(test_too_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
