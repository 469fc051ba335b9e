/*
 * Unit tests of the alignment arithmetic (core/align.c): the three verdicts
 * on topologies seen in the wild (util-linux and parted test suites, USB
 * bridges, RAID stripes, 4Kn disks), the kernel's per-partition
 * alignment_offset, and the rounding helpers.  Every topology is a struct
 * built here; expectations are worked out by hand or by the test's own
 * arithmetic, never by calling the code under test.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "unit.h"

#include "core/align.h"
#include "core/layers.h"

#define SECT 512ull
#define DEV_SIZE (1 * TiB)

static struct pa_topology topo(uint32_t logical, uint32_t physical, uint32_t min_io,
			       uint32_t opt_io, int64_t align_off)
{
	struct pa_topology t = {
	    .logical = logical,
	    .physical = physical,
	    .min_io = min_io,
	    .opt_io = opt_io,
	    .align_off = align_off,
	};
	return t;
}

/* A partition at @start bytes, default policy, kernel offset not known. */
static void check_part(const struct pa_topology *t, uint64_t start, struct pa_check *c)
{
	struct pa_grain g = PA_GRAIN_DEFAULT;

	align_check(t, DEV_SIZE, PA_REGION_PART, start, &g, false, 0, c);
}

static void test_verdict_names(void **state)
{
	assert_string_equal(align_verdict_name(PA_VERDICT_OK), "ok");
	assert_string_equal(align_verdict_name(PA_VERDICT_MISALIGNED), "misaligned");
	assert_string_equal(align_verdict_name(PA_VERDICT_NA), "n/a");
}

/*
 * util-linux tests/ts/blkid (align-512-4K-63): 512 logical, 4096 physical,
 * minimum I/O 4096, alignment offset 3584 (the first aligned sector is 7).
 */
static void test_util_linux_512_4k_63(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 0, 3584);
	static const uint64_t good[] = {7, 20487, 40967};
	struct pa_check c;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		check_part(&t, good[i] * SECT, &c);
		assert_int_equal(c.physical, PA_VERDICT_OK);
		assert_int_equal(c.phys_grain, 4096);
		assert_true(c.kalign_predicted_known);
		assert_int_equal(c.kalign_predicted, 0);
		assert_not_contains(why_text(&c.why), "physical");
	}

	check_part(&t, 2048 * SECT, &c);
	assert_int_equal(c.physical, PA_VERDICT_MISALIGNED);
	assert_contains(why_text(&c.why), "physical");
	/* 1 MiB is 512 bytes past the aligned byte 1 MiB - 512 */
	assert_contains(why_text(&c.why), "512 B");
	assert_contains(why_text(&c.why), "3584 B");
	assert_int_equal(c.kalign_predicted, 3584);
}

/* parted tests/t9030-align-check.sh: starts 60..69 there, only 63 is aligned. */
static void test_parted_t9030(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 0, 3584);
	struct pa_check c;
	uint64_t s;

	for (s = 60; s <= 69; s++) {
		check_part(&t, s * SECT, &c);
		if (s == 63) {
			assert_int_equal(c.physical, PA_VERDICT_OK);
		} else {
			assert_int_equal(c.physical, PA_VERDICT_MISALIGNED);
			assert_contains(why_text(&c.why), "physical");
		}
	}
}

static void test_512e_no_offset(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 0, 0);
	struct pa_check c;

	check_part(&t, 63 * SECT, &c);
	assert_int_equal(c.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(c.policy, PA_VERDICT_MISALIGNED);
	assert_contains(why_text(&c.why), "physical");
	assert_contains(why_text(&c.why), "3584 B past a 4 KiB boundary");
	assert_int_equal(c.kalign_predicted, 512);
	/* one explanation per verdict, kept apart */
	assert_true(strncmp(why_text(&c.why), "physical: ", 10) == 0);
	assert_contains(why_text(&c.why), "; optimal: ");
	assert_contains(why_text(&c.why), "; policy: ");

	check_part(&t, 2048 * SECT, &c);
	assert_int_equal(c.physical, PA_VERDICT_OK);
	assert_int_equal(c.kalign_predicted, 0);
	/* 1 MiB is not on the default 2 MiB policy grain */
	assert_int_equal(c.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(c.policy_grain, 2 * MiB);

	check_part(&t, 4096 * SECT, &c);
	assert_int_equal(c.physical, PA_VERDICT_OK);
	assert_int_equal(c.policy, PA_VERDICT_OK);
	assert_int_equal(c.optimal, PA_VERDICT_NA);
}

/* 0xffff sectors: what broken USB bridges report as "optimal". */
static void test_optimal_0xffff(void **state)
{
	static const struct {
		uint32_t logical, physical, opt;
		const char *shown;
	} cases[] = {
	    {512, 512, 0xffffu * 512, "33553920"},
	    {512, 4096, 0xffffu * 512, "33553920"},
	    {4096, 4096, 0xffffu * 4096, "268431360"},
	};
	const char *why;
	struct pa_check c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pa_topology t = topo(cases[i].logical, cases[i].physical,
					    cases[i].physical, cases[i].opt, 0);

		assert_int_equal(align_optimal_usable(&t, DEV_SIZE, &why), 0);
		assert_non_null(why);
		assert_contains(why, "0xffff");

		check_part(&t, 4 * MiB, &c);
		assert_int_equal(c.optimal, PA_VERDICT_NA);
		assert_int_equal(c.opt_grain, 0);
		assert_int_equal(c.physical, PA_VERDICT_OK);
		assert_int_equal(c.policy, PA_VERDICT_OK);
		assert_contains(why_text(&c.why), "optimal");
		assert_contains(why_text(&c.why), "0xffff");
		assert_contains(why_text(&c.why), cases[i].shown);
	}
}

static void test_align_offset_minus_one(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 1 * MiB, -1);
	static const uint64_t starts[] = {0, 7 * SECT, 63 * SECT, 2048 * SECT, 4 * MiB};
	struct pa_check c;
	size_t i;

	assert_int_equal(align_kernel_offset(&t, 0), -1);
	assert_int_equal(align_kernel_offset(&t, 1 * MiB), -1);
	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		check_part(&t, starts[i], &c);
		assert_int_equal(c.physical, PA_VERDICT_MISALIGNED);
		/* no start can be aligned to a stripe on a stack that cannot align */
		assert_int_equal(c.optimal, PA_VERDICT_MISALIGNED);
		assert_contains(why_text(&c.why), "physical");
		assert_contains(why_text(&c.why), "-1");
		assert_int_equal(c.kalign_predicted, -1);
	}
	/* the kernel agreeing on -1 is no extra mismatch */
	align_check(&t, DEV_SIZE, PA_REGION_PART, 4 * MiB, &PA_GRAIN_DEFAULT, true, -1,
		    &c);
	assert_false(c.kalign_mismatch);
	assert_int_equal(c.physical, PA_VERDICT_MISALIGNED);
}

static void expect_optimal_ignored(struct pa_topology t, uint64_t dev_size,
				   bool explained)
{
	struct pa_grain g = PA_GRAIN_DEFAULT;
	const char *why = "unset";
	struct pa_check c;

	assert_int_equal(align_optimal_usable(&t, dev_size, &why), 0);
	if (explained)
		assert_non_null(why);
	else
		assert_null(why);
	align_check(&t, dev_size, PA_REGION_PART, 8 * MiB, &g, false, 0, &c);
	assert_int_equal(c.optimal, PA_VERDICT_NA);
	assert_int_equal(c.opt_grain, 0);
	assert_contains(why_text(&c.why), "optimal");
	/* ignoring optimal does not spoil the other two */
	assert_int_equal(c.physical, PA_VERDICT_OK);
	assert_int_equal(c.policy, PA_VERDICT_OK);
}

static void test_optimal_ignored(void **state)
{
	/* absent */
	expect_optimal_ignored(topo(512, 4096, 4096, 0, 0), DEV_SIZE, false);
	/* not a multiple of the physical sector */
	expect_optimal_ignored(topo(512, 4096, 4096, 6144, 0), DEV_SIZE, true);
	expect_optimal_ignored(topo(512, 4096, 4096, 1 * MiB + 512, 0), DEV_SIZE, true);
	/* a multiple of physical, not of the minimum I/O */
	expect_optimal_ignored(topo(512, 4096, 65536, 98304, 0), DEV_SIZE, true);
	/* implausibly large */
	expect_optimal_ignored(topo(512, 4096, 4096, PA_OPT_IO_MAX, 0), DEV_SIZE, true);
	expect_optimal_ignored(topo(512, 4096, 4096, 128 * MiB, 0), DEV_SIZE, true);
	expect_optimal_ignored(topo(512, 4096, 4096, 2 * GiB, 0), DEV_SIZE, true);
	/* larger than the device */
	expect_optimal_ignored(topo(512, 4096, 4096, 1 * MiB, 0), 512 * KiB, true);
}

static void test_optimal_usable(void **state)
{
	struct pa_topology t;
	const char *why;

	t = topo(512, 4096, 4096, 1 * MiB, 0);
	assert_int_equal(align_optimal_usable(&t, DEV_SIZE, &why), 1 * MiB);
	assert_null(why);
	/* device size 0 means unknown, not "smaller than everything" */
	assert_int_equal(align_optimal_usable(&t, 0, &why), 1 * MiB);
	/* exactly the device size is still plausible */
	assert_int_equal(align_optimal_usable(&t, 1 * MiB, &why), 1 * MiB);
	/* just below the limit */
	t = topo(512, 4096, 4096, PA_OPT_IO_MAX - 4096, 0);
	assert_int_equal(align_optimal_usable(&t, DEV_SIZE, &why), PA_OPT_IO_MAX - 4096);
	/* 0xfffe sectors is a real (if odd) size on a 512-byte disk */
	t = topo(512, 512, 512, 0xfffeu * 512, 0);
	assert_int_equal(align_optimal_usable(&t, DEV_SIZE, &why), 0xfffeu * 512);
}

static void expect3(const struct pa_topology *t, uint64_t start, enum pa_verdict phys,
		    enum pa_verdict opt, enum pa_verdict pol)
{
	struct pa_check c;

	check_part(t, start, &c);
	if (c.physical != phys || c.optimal != opt || c.policy != pol) {
		print_error("start %" PRIu64 " on %" PRIu32 "/%" PRIu32 " min %" PRIu32
			    " opt %" PRIu32 " off %" PRId64
			    ": got %s/%s/%s, want %s/%s/%s (%s)\n",
			    start, t->logical, t->physical, t->min_io, t->opt_io,
			    t->align_off, align_verdict_name(c.physical),
			    align_verdict_name(c.optimal), align_verdict_name(c.policy),
			    align_verdict_name(phys), align_verdict_name(opt),
			    align_verdict_name(pol), why_text(&c.why));
		fail();
	}
	if (phys == PA_VERDICT_OK && opt == PA_VERDICT_OK && pol == PA_VERDICT_OK)
		assert_string_equal(why_text(&c.why), "");
	if (opt == PA_VERDICT_MISALIGNED)
		assert_contains(why_text(&c.why), "optimal");
	if (pol == PA_VERDICT_MISALIGNED)
		assert_contains(why_text(&c.why), "policy");
}

#define OK PA_VERDICT_OK
#define BAD PA_VERDICT_MISALIGNED
#define NA PA_VERDICT_NA

static void test_optimal_valid(void **state)
{
	struct pa_topology t;
	struct pa_check c;

	t = topo(512, 4096, 4096, 1 * MiB, 0);
	check_part(&t, 2 * MiB, &c);
	assert_int_equal(c.opt_grain, 1 * MiB);
	expect3(&t, 2048 * SECT, OK, OK, BAD);
	expect3(&t, 4096 * SECT, OK, OK, OK);
	expect3(&t, 3072 * SECT, OK, BAD, BAD);
	expect3(&t, 63 * SECT, BAD, BAD, BAD);

	t = topo(512, 4096, 4096, 2 * MiB, 0);
	expect3(&t, 4096 * SECT, OK, OK, OK);
	expect3(&t, 2048 * SECT, OK, BAD, BAD);
	expect3(&t, 6 * MiB, OK, OK, OK);

	t = topo(512, 4096, 4096, 8 * MiB, 0);
	expect3(&t, 16384 * SECT, OK, OK, OK);
	expect3(&t, 4096 * SECT, OK, BAD, OK);
	expect3(&t, 24 * MiB, OK, OK, OK);
	expect3(&t, 26 * MiB, OK, BAD, OK);
}

/* md RAID 5 over 4 disks, 64 KiB chunk: min_io 64 KiB, opt_io 3 x 64 KiB. */
static void test_optimal_raid_stripe(void **state)
{
	struct pa_topology t = topo(512, 4096, 65536, 196608, 0);
	struct pa_check c;

	check_part(&t, 0, &c);
	assert_int_equal(c.opt_grain, 196608);
	assert_int_equal(c.phys_grain, 65536);
	expect3(&t, 6 * MiB, OK, OK, OK);     /* 32 stripes */
	expect3(&t, 196608 * 32, OK, OK, OK); /* the same */
	expect3(&t, 1 * MiB, OK, BAD, BAD);   /* 16 chunks, 5 1/3 stripes */
	expect3(&t, 2 * MiB, OK, BAD, OK);
	expect3(&t, 196608, OK, OK, BAD);
	expect3(&t, 196608 + 4096, BAD, BAD, BAD); /* inside a chunk */

	/* the same stripe on plain 4096 minimum I/O */
	t = topo(512, 4096, 4096, 196608, 0);
	expect3(&t, 196608 * 5, OK, OK, BAD);
	expect3(&t, 196608 * 5 + 4096, OK, BAD, BAD);
}

/* The alignment offset shifts all three grains. */
static void test_optimal_with_offset(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 1 * MiB, 3584);

	expect3(&t, 2 * MiB + 3584, OK, OK, OK);
	expect3(&t, 1 * MiB + 3584, OK, OK, BAD);
	expect3(&t, 7 * SECT, OK, OK, OK);
	expect3(&t, 1 * MiB + 3584 + 4096, OK, BAD, BAD);
	expect3(&t, 2 * MiB, BAD, BAD, BAD);
	expect3(&t, 2048 * SECT, BAD, BAD, BAD);

	t = topo(512, 4096, 65536, 196608, 3584);
	expect3(&t, 196608 * 32 + 3584, OK, OK, OK);
	expect3(&t, 196608 * 32, BAD, BAD, BAD);
}

/* 4Kn: logical 4096, starts given in 4096-byte sectors. */
static void test_4kn(void **state)
{
	struct pa_topology t = topo(4096, 4096, 4096, 0, 0);
	struct pa_grain eight = {.value = 8, .sectors = true};
	struct pa_check c;
	uint64_t s;

	for (s = 1; s < 600; s++) {
		check_part(&t, s * 4096, &c);
		assert_int_equal(c.physical, OK);
		assert_int_equal(c.policy, s % 512 == 0 ? OK : BAD);
		assert_int_equal(c.optimal, NA);
		assert_int_equal(c.kalign_predicted, 0);
	}

	align_check(&t, DEV_SIZE, PA_REGION_PART, 8 * 4096, &eight, false, 0, &c);
	assert_int_equal(c.policy_grain, 32768);
	assert_int_equal(c.policy, OK);
	align_check(&t, DEV_SIZE, PA_REGION_PART, 4 * 4096, &eight, false, 0, &c);
	assert_int_equal(c.policy, BAD);
	assert_contains(why_text(&c.why), "policy");

	t = topo(4096, 4096, 4096, 1 * MiB, 0);
	expect3(&t, 256 * 4096, OK, OK, BAD);
	expect3(&t, 512 * 4096, OK, OK, OK);
	expect3(&t, 300 * 4096, OK, BAD, BAD);

	/* 4096 logical on 16 KiB physical */
	t = topo(4096, 16384, 16384, 0, 0);
	expect3(&t, 4 * 4096, OK, NA, BAD);
	expect3(&t, 5 * 4096, BAD, NA, BAD);
	expect3(&t, 512 * 4096, OK, NA, OK);
}

static void test_policy_grain(void **state)
{
	struct pa_topology t512 = topo(512, 4096, 4096, 0, 0);
	struct pa_topology t4k = topo(4096, 4096, 4096, 0, 0);
	struct pa_grain g;
	struct pa_check c;

	g = PA_GRAIN_DEFAULT;
	assert_int_equal(g.value, 2 * MiB);
	assert_false(g.sectors);
	assert_int_equal(align_policy_bytes(&g, 512), 2 * MiB);
	assert_int_equal(align_policy_bytes(&g, 4096), 2 * MiB);

	g = (struct pa_grain){.value = 8, .sectors = true};
	assert_int_equal(align_policy_bytes(&g, 512), 4096);
	assert_int_equal(align_policy_bytes(&g, 4096), 32768);
	/* no logical size known: 512 */
	assert_int_equal(align_policy_bytes(&g, 0), 4096);
	align_check(&t512, DEV_SIZE, PA_REGION_PART, 8 * SECT, &g, false, 0, &c);
	assert_int_equal(c.policy_grain, 4096);
	assert_int_equal(c.policy, OK);
	align_check(&t512, DEV_SIZE, PA_REGION_PART, 4 * SECT, &g, false, 0, &c);
	assert_int_equal(c.policy, BAD);

	/* sectors that overflow 64 bits in bytes */
	g = (struct pa_grain){.value = UINT64_MAX / 512 + 1, .sectors = true};
	assert_int_equal(align_policy_bytes(&g, 512), 0);

	/* bytes that are not whole logical sectors */
	g = (struct pa_grain){.value = 1000, .sectors = false};
	assert_int_equal(align_policy_bytes(&g, 512), 0);
	align_check(&t512, DEV_SIZE, PA_REGION_PART, 1 * MiB, &g, false, 0, &c);
	assert_int_equal(c.policy, NA);
	assert_int_equal(c.policy_grain, 0);
	assert_int_equal(c.physical, OK);
	assert_contains(why_text(&c.why), "policy");
	assert_contains(why_text(&c.why), "1000 B");

	g = (struct pa_grain){.value = 6144, .sectors = false};
	assert_int_equal(align_policy_bytes(&g, 512), 6144);
	assert_int_equal(align_policy_bytes(&g, 4096), 0);
	align_check(&t4k, DEV_SIZE, PA_REGION_PART, 1 * MiB, &g, false, 0, &c);
	assert_int_equal(c.policy, NA);
	assert_contains(why_text(&c.why), "4 KiB");

	g = (struct pa_grain){.value = 0, .sectors = false};
	assert_int_equal(align_policy_bytes(&g, 512), 0);
}

static void test_whole_device(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 1 * MiB, 0);
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;

	align_check(&t, DEV_SIZE, PA_REGION_WHOLE, 0, &g, false, 0, &c);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, OK);
	assert_int_equal(c.policy, OK);
	assert_false(c.kalign_predicted_known);
	assert_false(c.kalign_mismatch);
	assert_contains(why_text(&c.why), "aligned by construction");

	/* a whole disk whose first aligned byte is 3584 */
	t = topo(512, 4096, 4096, 0, 3584);
	align_check(&t, DEV_SIZE, PA_REGION_WHOLE, 0, &g, false, 0, &c);
	assert_int_equal(c.physical, BAD);
	assert_int_equal(c.policy, BAD);
	assert_contains(why_text(&c.why), "physical");
	assert_not_contains(why_text(&c.why), "aligned by construction");

	/* the same with a one-sector policy that start 0 does meet */
	g = (struct pa_grain){.value = 1, .sectors = true};
	align_check(&t, DEV_SIZE, PA_REGION_WHOLE, 0, &g, false, 0, &c);
	assert_int_equal(c.physical, BAD);
	assert_int_equal(c.policy, OK);
	assert_not_contains(why_text(&c.why), "aligned by construction");
	g = PA_GRAIN_DEFAULT;

	/* the kernel's value is only compared for partitions */
	t = topo(512, 4096, 4096, 0, 0);
	align_check(&t, DEV_SIZE, PA_REGION_WHOLE, 0, &g, true, 512, &c);
	assert_false(c.kalign_mismatch);
	assert_int_equal(c.physical, OK);
}

static void test_stacked(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 1 * MiB, 0);
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;

	align_check(&t, DEV_SIZE, PA_REGION_STACKED, 0, &g, false, 0, &c);
	assert_int_equal(c.policy, NA);
	assert_int_equal(c.physical, OK);
	/* the kernel's offset is on the 4 KiB physical grain: on the 1 MiB
	   optimal I/O the place is not known */
	assert_int_equal(c.optimal, NA);
	assert_false(c.kalign_predicted_known);
	assert_contains(why_text(&c.why), "policy");
	assert_contains(why_text(&c.why), "optimal: stacked device");
	assert_not_contains(why_text(&c.why), "aligned by construction");

	/* an optimal I/O of the physical grain is the physical verdict */
	t = topo(512, 4096, 4096, 4096, 0);
	align_check(&t, DEV_SIZE, PA_REGION_STACKED, 0, &g, false, 0, &c);
	assert_int_equal(c.optimal, OK);
	assert_not_contains(why_text(&c.why), "optimal:");

	/* the dm device's own offset says the stack is misaligned */
	t = topo(512, 4096, 4096, 1 * MiB, 512);
	align_check(&t, DEV_SIZE, PA_REGION_STACKED, 0, &g, false, 0, &c);
	assert_int_equal(c.physical, BAD);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, NA);
}

/* ---- the kernel's alignment_offset of a partition ---- */

/*
 * Linux block/blk-settings.c, queue_limit_alignment_offset(), in bytes:
 *   granularity = max(physical_block_size, io_min)
 *   (granularity + alignment_offset - start % granularity) % granularity
 */
static int64_t linux_alignment_offset(const struct pa_topology *t, uint64_t start)
{
	uint64_t gran = t->physical > t->min_io ? t->physical : t->min_io;

	if (t->align_off < 0)
		return -1;
	return (int64_t)((gran + (uint64_t)t->align_off - start % gran) % gran);
}

/* Every start around a few bases on one topology; counts what it saw. */
static void kernel_offset_starts(const struct pa_topology *t, size_t *checked,
				 size_t *aligned)
{
	static const uint64_t bases[] = {0, 1 * GiB, 3 * TiB + 7 * 512,
					 (1ull << 50) + 4096};
	struct pa_grain g = PA_GRAIN_DEFAULT;
	uint64_t gran = t->physical > t->min_io ? t->physical : t->min_io;
	size_t bi;

	for (bi = 0; bi < sizeof(bases) / sizeof(bases[0]); bi++) {
		uint64_t end = bases[bi] + 2 * gran + 3 * t->logical;
		uint64_t s;

		for (s = bases[bi]; s < end; s += t->logical) {
			int64_t want = linux_alignment_offset(t, s);
			int64_t got = align_kernel_offset(t, s);
			struct pa_check c;

			if (got != want) {
				print_error("%" PRIu32 "/%" PRIu32 " min %" PRIu32
					    " off %" PRId64 " start %" PRIu64
					    ": kernel %" PRId64 ", got %" PRId64 "\n",
					    t->logical, t->physical, t->min_io,
					    t->align_off, s, want, got);
				fail();
			}
			align_check(t, DEV_SIZE, PA_REGION_PART, s, &g, true, want, &c);
			assert_false(c.kalign_mismatch);
			assert_true(c.kalign_predicted_known);
			assert_int_equal(c.kalign_predicted, want);
			assert_int_equal(c.physical, want == 0 ? OK : BAD);
			*aligned += want == 0;

			/* any other value the kernel could report */
			align_check(t, DEV_SIZE, PA_REGION_PART, s, &g, true, want + 512,
				    &c);
			assert_true(c.kalign_mismatch);
			assert_int_equal(c.physical, BAD);
			assert_contains(why_text(&c.why), "alignment_offset");
			(*checked)++;
		}
	}
}

static void test_kernel_offset_formula(void **state)
{
	static const uint32_t logicals[] = {512, 4096};
	static const uint32_t physicals[] = {512, 4096, 8192, 16384};
	static const uint32_t min_ios[] = {0, 512, 4096, 65536, 196608, 524288};
	size_t li, pi, mi, checked = 0, aligned = 0;

	for (li = 0; li < sizeof(logicals) / sizeof(logicals[0]); li++) {
		for (pi = 0; pi < sizeof(physicals) / sizeof(physicals[0]); pi++) {
			for (mi = 0; mi < sizeof(min_ios) / sizeof(min_ios[0]); mi++) {
				uint32_t lg = logicals[li], ph = physicals[pi];
				uint32_t mio = min_ios[mi];
				uint32_t step = ph / 8 > lg ? ph / 8 : lg;
				uint32_t off;

				if (ph < lg || (mio && mio % lg))
					continue;
				/* kernel offsets stay below the physical block */
				for (off = 0; off < ph; off += step) {
					struct pa_topology t = topo(lg, ph, mio, 0, off);

					kernel_offset_starts(&t, &checked, &aligned);
				}
			}
		}
	}
	/* the loops really ran, and saw both outcomes */
	assert_true(checked > 10000);
	assert_true(aligned > 100 && aligned < checked);
}

static void test_kernel_mismatch(void **state)
{
	struct pa_topology t = topo(512, 4096, 4096, 0, 0);
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;

	/* our arithmetic says aligned, the kernel says 512 bytes off */
	align_check(&t, DEV_SIZE, PA_REGION_PART, 2 * MiB, &g, true, 512, &c);
	assert_true(c.kalign_mismatch);
	assert_int_equal(c.kalign_predicted, 0);
	assert_int_equal(c.physical, BAD);
	assert_int_equal(c.policy, OK);
	assert_contains(why_text(&c.why), "physical");
	assert_contains(why_text(&c.why), "alignment_offset 512");

	/* the kernel says the stack cannot be aligned */
	align_check(&t, DEV_SIZE, PA_REGION_PART, 2 * MiB, &g, true, -1, &c);
	assert_true(c.kalign_mismatch);
	assert_int_equal(c.physical, BAD);
	assert_contains(why_text(&c.why), "-1");

	/* agreement, also when both say misaligned */
	align_check(&t, DEV_SIZE, PA_REGION_PART, 63 * SECT, &g, true, 512, &c);
	assert_false(c.kalign_mismatch);
	assert_int_equal(c.physical, BAD);
	assert_not_contains(why_text(&c.why), "alignment_offset");

	/* unknown kernel value: nothing to compare */
	align_check(&t, DEV_SIZE, PA_REGION_PART, 2 * MiB, &g, false, 512, &c);
	assert_false(c.kalign_mismatch);
	assert_int_equal(c.physical, OK);
}

static void test_physical_grain(void **state)
{
	struct pa_topology t;

	t = topo(512, 4096, 4096, 0, 0);
	assert_int_equal(align_physical_grain(&t), 4096);
	t = topo(512, 4096, 65536, 0, 0);
	assert_int_equal(align_physical_grain(&t), 65536);
	t = topo(512, 512, 0, 0, 0);
	assert_int_equal(align_physical_grain(&t), 512);
	t = topo(4096, 0, 0, 0, 0);
	assert_int_equal(align_physical_grain(&t), 4096);
	t = topo(0, 0, 0, 0, 0);
	assert_int_equal(align_physical_grain(&t), 512);
}

/* ---- align_up / align_down / align_distance ---- */

/* (a - b) mod m, m > 0, without the code under test */
static uint64_t mod_diff(uint64_t a, uint64_t b, uint64_t m)
{
	__int128 r = ((__int128)a - (__int128)b) % (__int128)m;

	return (uint64_t)(r < 0 ? r + m : r);
}

static void test_round_edges(void **state)
{
	const uint64_t top = 1ull << 63;

	/* zero grain: nothing to round to */
	assert_int_equal(align_up(12345, 0, 0), 12345);
	assert_int_equal(align_down(12345, 0, 7), 12345);
	assert_int_equal(align_distance(12345, 0, 0), 0);

	/* zero */
	assert_int_equal(align_up(0, 4096, 0), 0);
	assert_int_equal(align_down(0, 4096, 0), 0);
	assert_int_equal(align_distance(0, 4096, 0), 0);
	assert_int_equal(align_up(0, 4096, 3584), 3584);
	assert_int_equal(align_distance(0, 4096, 3584), 3584);

	/* exact boundaries */
	assert_int_equal(align_up(8192, 4096, 0), 8192);
	assert_int_equal(align_down(8192, 4096, 0), 8192);
	assert_int_equal(align_distance(8192, 4096, 0), 0);
	assert_int_equal(align_up(3584, 4096, 3584), 3584);
	assert_int_equal(align_down(7680, 4096, 3584), 7680);

	/* one off either side */
	assert_int_equal(align_up(8193, 4096, 0), 12288);
	assert_int_equal(align_down(8191, 4096, 0), 4096);
	assert_int_equal(align_distance(8193, 4096, 0), 4095);
	assert_int_equal(align_distance(8191, 4096, 0), 1);

	/* offset larger than the grain counts modulo the grain */
	assert_int_equal(align_up(0, 4096, 7680), 3584);
	assert_int_equal(align_down(4095, 4096, 7680), 3584);
	assert_int_equal(align_distance(3584, 4096, 7680), 0);
	assert_int_equal(align_up(5000, 4096, 4096 * 1000 + 512), 2 * 4096 + 512);

	/* no aligned byte at or below */
	assert_int_equal(align_down(100, 4096, 3584), 0);
	assert_int_equal(align_down(3583, 4096, 3584), 0);

	/* near 2^63 and the top of the range */
	assert_int_equal(align_up(top - 1, 4096, 0), top);
	assert_int_equal(align_down(top + 4095, 4096, 0), top);
	assert_int_equal(align_up(top + 1, 4096, 3584), top + 3584);
	assert_int_equal(align_down(UINT64_MAX, 4096, 0), UINT64_MAX - 4095);
	assert_int_equal(align_down(UINT64_MAX, 4096, 3584), UINT64_MAX - 511);
	assert_int_equal(align_distance(top + 1, top, 0), top - 1);
	assert_int_equal(align_up(1, top, 0), top);
	assert_int_equal(align_down(UINT64_MAX, top, 0), top);
	assert_int_equal(align_down(UINT64_MAX, top, 5), top + 5);
	assert_int_equal(align_up(6, top, 5), top + 5);
	assert_int_equal(align_up(top - 1, 1ull << 62, 0), top);
	assert_int_equal(align_distance(UINT64_MAX, top, top - 1), 0);
}

/* Many values, checked against the definitions in the header. */
static void test_round_properties(void **state)
{
	static const uint64_t grains[] = {
	    1,	       512, 4096, 196608, 1 * MiB, 33553920, 1ull << 40, (1ull << 62) + 3,
	    1ull << 63};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t gi;
	int i;

	for (gi = 0; gi < sizeof(grains) / sizeof(grains[0]); gi++) {
		uint64_t g = grains[gi];

		for (i = 0; i < 2000; i++) {
			uint64_t from, off, r, up, down;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* half of the values small, half over the whole range */
			from = i & 1 ? x : x % (4 * g + 1);
			off = (i & 2) ? x >> 3 : (x >> 11) % g;
			if (from > UINT64_MAX - g)
				from -= g; /* leave room to round up */

			r = mod_diff(from, off, g);
			up = r ? from + (g - r) : from;
			down = r <= from ? from - r : 0;

			if (align_up(from, g, off) != up ||
			    align_down(from, g, off) != down ||
			    align_distance(from, g, off) != up - from) {
				print_error("from %" PRIu64 " grain %" PRIu64
					    " off %" PRIu64 ": up %" PRIu64 "/%" PRIu64
					    " down %" PRIu64 "/%" PRIu64 "\n",
					    from, g, off, align_up(from, g, off), up,
					    align_down(from, g, off), down);
				fail();
			}
		}
	}
}

/* ---- align_check_dev ---- */

static void test_check_dev_kinds(void **state)
{
	static const struct {
		enum pa_kind kind;
		enum pa_region region; /* what the kind is checked as */
	} kinds[] = {
	    {PA_KIND_DISK, PA_REGION_WHOLE},  {PA_KIND_LOOP, PA_REGION_WHOLE},
	    {PA_KIND_MPATH, PA_REGION_WHOLE}, {PA_KIND_MD, PA_REGION_WHOLE},
	    {PA_KIND_LVM, PA_REGION_STACKED}, {PA_KIND_CRYPT, PA_REGION_STACKED},
	    {PA_KIND_DM, PA_REGION_STACKED},
	};
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct pa_dev d = {.kind = kinds[i].kind, .size = 10 * GiB};

		d.topo = topo(512, 4096, 4096, 1 * MiB, 0);
		/* these fields mean nothing for a whole or stacked device */
		d.start_known = true;
		d.start = 63 * SECT;
		d.kalign_known = true;
		d.kernel_align = 512;

		align_check_dev(&d, &g, &c);
		assert_int_equal(c.physical, OK);
		assert_false(c.kalign_predicted_known);
		assert_false(c.kalign_mismatch);
		if (kinds[i].region == PA_REGION_WHOLE) {
			assert_int_equal(c.optimal, OK);
			assert_int_equal(c.policy, OK);
			assert_contains(why_text(&c.why), "aligned by construction");
		} else {
			/* its place on the optimal I/O below is not known */
			assert_int_equal(c.optimal, NA);
			assert_int_equal(c.policy, NA);
			assert_contains(why_text(&c.why), "stacked");
		}

		/* a device whose own alignment offset is not 0 */
		d.topo.align_off = 3584;
		align_check_dev(&d, &g, &c);
		assert_int_equal(c.physical, BAD);
		assert_not_contains(why_text(&c.why), "aligned by construction");
	}
}

static void test_check_dev_partition(void **state)
{
	struct pa_dev disk = {.kind = PA_KIND_DISK, .size = 1 * GiB};
	struct pa_dev part = {.kind = PA_KIND_PART, .disk = &disk, .size = 512 * KiB};
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;

	disk.topo = topo(512, 4096, 4096, 1 * MiB, 3584);
	part.topo = disk.topo;
	part.start_known = true;

	part.start = 7 * SECT;
	align_check_dev(&part, &g, &c);
	assert_true(c.kalign_predicted_known);
	assert_int_equal(c.kalign_predicted, 0);
	assert_int_equal(c.physical, OK);
	/* optimal judged against the disk's size, not the 512 KiB partition's */
	assert_int_equal(c.opt_grain, 1 * MiB);
	assert_int_equal(c.optimal, OK);
	assert_int_equal(c.policy, OK);

	part.start = 2048 * SECT;
	align_check_dev(&part, &g, &c);
	assert_int_equal(c.physical, BAD);
	assert_int_equal(c.kalign_predicted, 3584);
	assert_not_contains(why_text(&c.why), "aligned by construction");

	/* the kernel's own value is compared */
	part.start = 7 * SECT;
	part.kalign_known = true;
	part.kernel_align = 0;
	align_check_dev(&part, &g, &c);
	assert_false(c.kalign_mismatch);
	assert_int_equal(c.physical, OK);
	part.kernel_align = 512;
	align_check_dev(&part, &g, &c);
	assert_true(c.kalign_mismatch);
	assert_int_equal(c.physical, BAD);
	assert_contains(why_text(&c.why), "alignment_offset");

	/* a partition whose start is unknown is checked like a stacked device */
	part.start_known = false;
	part.topo.align_off = 0;
	align_check_dev(&part, &g, &c);
	assert_int_equal(c.policy, NA);
	assert_false(c.kalign_predicted_known);
	assert_false(c.kalign_mismatch);
	assert_contains(why_text(&c.why), "stacked");
}

/*
 * layers_check: dm devices judged through their tables.  The disk
 * vda (512/4096, optimal I/O 192 KiB), vda1 at 6 MiB; the expected numbers
 * are worked out by hand: 6 + 1 = 7 MiB is no multiple of 192 KiB (7 MiB /
 * 192 KiB = 37.33) or of 2 MiB; 6 + 6 = 12 MiB is a multiple of both
 * (64 x 192 KiB); a crypt payload at 2 MiB on the second map lands at
 * 14 MiB: 74.67 x 192 KiB, 7 x 2 MiB.
 */
static void test_check_stacked(void **state)
{
	char n_vda[] = "vda", n_vda1[] = "vda1", n_lv[] = "dm-2", n_cr[] = "dm-3";
	struct pa_dev disk = {.name = n_vda,
			      .major = 254,
			      .minor = 0,
			      .kind = PA_KIND_DISK,
			      .size = 64 * MiB};
	struct pa_dev part = {.name = n_vda1,
			      .major = 254,
			      .minor = 1,
			      .kind = PA_KIND_PART,
			      .size = 48 * MiB,
			      .disk = &disk,
			      .start_known = true,
			      .start = 6 * MiB};
	struct pa_dev lv = {.name = n_lv,
			    .major = 253,
			    .minor = 2,
			    .kind = PA_KIND_LVM,
			    .size = 8 * MiB,
			    .dm_table_known = true,
			    .dm_table = &(struct pa_dm_table){0}};
	struct pa_dev cr = {.name = n_cr,
			    .major = 253,
			    .minor = 3,
			    .kind = PA_KIND_CRYPT,
			    .size = 4 * MiB,
			    .dm_table_known = true,
			    .dm_table = &(struct pa_dm_table){0}};
	struct pa_dev *v[] = {&disk, &part, &lv, &cr};
	struct pa_devlist l = {.v = v, .n = 4, .cap = 4};
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;

	(void)state;
	disk.topo = topo(512, 4096, 4096, 196608, 0);
	part.topo = disk.topo;
	lv.topo = disk.topo;
	cr.topo = disk.topo;
	lv.dm_table->n = 1;
	lv.dm_table->t[0].length = 8 * MiB;
	lv.dm_table->t[0].stripes = 1;
	lv.dm_table->t[0].to[0].major = 254;
	lv.dm_table->t[0].to[0].minor = 1;
	lv.dm_table->t[0].to[0].offset = 1 * MiB;

	align_check_dev(&lv, &g, &c);
	assert_int_equal(layers_check(&l, &lv, &g, &c), 0);
	assert_true(c.stack_known);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, BAD);
	assert_int_equal(c.abs_start, 7 * MiB);
	assert_string_equal(c.layers, "vda>vda1>dm-2");
	assert_contains(why_text(&c.why),
			"optimal: table offset 1 MiB of dm-2 on partition vda1 "
			"at 6 MiB: 7 MiB is no multiple of the 192 KiB optimal "
			"I/O of vda");
	assert_not_contains(why_text(&c.why), "stacked device");

	lv.dm_table->t[0].to[0].offset = 6 * MiB;
	align_check_dev(&lv, &g, &c);
	assert_int_equal(layers_check(&l, &lv, &g, &c), 0);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, OK);
	assert_int_equal(c.policy, OK);
	assert_int_equal(c.abs_start, 12 * MiB);
	assert_string_equal(why_text(&c.why), "");

	/* crypt on the LV: one more layer, its payload offset */
	cr.dm_table->n = 1;
	cr.dm_table->t[0].length = 4 * MiB;
	cr.dm_table->t[0].stripes = 1;
	cr.dm_table->t[0].crypt = true;
	cr.dm_table->t[0].to[0].major = 253;
	cr.dm_table->t[0].to[0].minor = 2;
	cr.dm_table->t[0].to[0].offset = 2 * MiB;
	align_check_dev(&cr, &g, &c);
	assert_int_equal(layers_check(&l, &cr, &g, &c), 0);
	assert_int_equal(c.physical, OK);
	assert_int_equal(c.optimal, BAD);
	assert_int_equal(c.policy, OK);
	assert_int_equal(c.abs_start, 14 * MiB);
	assert_string_equal(c.layers, "vda>vda1>dm-2>dm-3");
	assert_contains(why_text(&c.why), "payload offset 2 MiB of dm-3");

	/* not known: a device below that the scan does not have, no table, a
	   partition at an unknown start, a kpartx partition: @out untouched */
	lv.dm_table->t[0].to[0].minor = 9;
	align_check_dev(&lv, &g, &c);
	assert_int_equal(layers_check(&l, &lv, &g, &c), 1);
	assert_false(c.stack_known);
	assert_int_equal(c.policy, NA);
	assert_contains(why_text(&c.why), "stacked device");
	lv.dm_table->t[0].to[0].minor = 1;
	part.start_known = false;
	assert_int_equal(layers_check(&l, &lv, &g, &c), 1);
	part.start_known = true;
	lv.dm_table_known = false;
	assert_int_equal(layers_check(&l, &lv, &g, &c), 1);
	assert_int_equal(layers_check(&l, &part, &g, &c), 1);
	/* a table that does not fit on the device below: refused, as before */
	lv.dm_table_known = true;
	lv.dm_table->t[0].to[0].offset = 45 * MiB;
	assert_int_equal(layers_check(&l, &lv, &g, &c), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_names),
	    cmocka_unit_test(test_check_stacked),
	    cmocka_unit_test(test_util_linux_512_4k_63),
	    cmocka_unit_test(test_parted_t9030),
	    cmocka_unit_test(test_512e_no_offset),
	    cmocka_unit_test(test_optimal_0xffff),
	    cmocka_unit_test(test_align_offset_minus_one),
	    cmocka_unit_test(test_optimal_ignored),
	    cmocka_unit_test(test_optimal_usable),
	    cmocka_unit_test(test_optimal_valid),
	    cmocka_unit_test(test_optimal_raid_stripe),
	    cmocka_unit_test(test_optimal_with_offset),
	    cmocka_unit_test(test_4kn),
	    cmocka_unit_test(test_policy_grain),
	    cmocka_unit_test(test_whole_device),
	    cmocka_unit_test(test_stacked),
	    cmocka_unit_test(test_kernel_offset_formula),
	    cmocka_unit_test(test_kernel_mismatch),
	    cmocka_unit_test(test_physical_grain),
	    cmocka_unit_test(test_round_edges),
	    cmocka_unit_test(test_round_properties),
	    cmocka_unit_test(test_check_dev_kinds),
	    cmocka_unit_test(test_check_dev_partition),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
