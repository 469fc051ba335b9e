/*
 * Reasons as data (core/reason.h): the words of every kind exactly as the
 * outputs show them, the order of a stacked device's clauses and the labels
 * check orders its terminal table by, both from the verdict fields (a device
 * named "policy grain" changes nothing), the exit bits from the verdicts, the
 * "; ..." of a reason with no room left, and the dedup of a repeated reason.
 */
#include "config.h"

#include <stdio.h>

#include "unit.h"

#include "core/align.h"
#include "core/exitcodes.h"

static struct pa_reason mk(enum pa_reason_kind kind, enum pa_reason_verdict v)
{
	struct pa_reason r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.verdict = v;
	return r;
}

static const char *text(const struct pa_reason *r)
{
	static char buf[PA_REASON_TEXT_MAX];

	reason_text(r, buf, sizeof(buf));
	return buf;
}

/* A summand of a stack: "partition vda1 at 1 MiB" missing a grain of vda. */
static struct pa_reason layer(enum pa_stack_term_kind t, enum pa_grain_kind g,
			      enum pa_reason_verdict v, const char *name)
{
	struct pa_reason r = mk(PA_REASON_LAYER, v);

	r.term = t;
	r.grain = g;
	r.layer = name;
	r.space = "vda";
	r.value = 1 * MiB;
	r.sum = 1 * MiB;
	r.b = g == PA_GRAIN_POLICY ? 2 * MiB : g == PA_GRAIN_OPTIMAL ? 192 * KiB : 4096;
	return r;
}

static void test_words_one_device(void **state)
{
	struct pa_reason r;

	(void)state;
	r = mk(PA_REASON_OFF_GRAIN, PA_RV_PHYSICAL);
	r.a = 3584;
	r.b = 4096;
	assert_string_equal(text(&r), "3584 B past a 4 KiB boundary");
	r.c = 512;
	assert_string_equal(text(&r),
			    "3584 B past a 4 KiB boundary (alignment offset 512 B)");
	r = mk(PA_REASON_CANNOT_ALIGN, PA_RV_PHYSICAL);
	assert_string_equal(text(&r),
			    "the kernel reports alignment offset -1 (the device "
			    "stack cannot be aligned)");
	r.verdict = PA_RV_OPTIMAL;
	assert_string_equal(text(&r), "the kernel reports alignment offset -1");
	r = mk(PA_REASON_KERNEL_OFFSET, PA_RV_PHYSICAL);
	r.s1 = 512;
	r.s2 = 0;
	assert_string_equal(text(&r),
			    "the kernel reports alignment_offset 512, expected 0");
	r = mk(PA_REASON_OPT_IGNORED, PA_RV_OPTIMAL);
	r.a = 33553920;
	r.opt_why = PA_OPT_FFFF;
	assert_string_equal(text(&r),
			    "33553920 B ignored (0xffff sectors, a controller error)");
	r.opt_why = PA_OPT_NOT_PHYS;
	assert_contains(text(&r),
			"(not a multiple of the physical sector and minimum I/O)");
	r.opt_why = PA_OPT_IMPLAUSIBLE;
	assert_contains(text(&r), "(implausibly large)");
	r = mk(PA_REASON_OPT_ABSENT, PA_RV_OPTIMAL);
	assert_string_equal(text(&r), "the device reports no optimal I/O size");
	r = mk(PA_REASON_STACKED_UNKNOWN, PA_RV_OPTIMAL);
	assert_string_equal(text(&r),
			    "stacked device, its place on the disk below is not known "
			    "(the kernel's offset is on the physical grain only)");
	r.verdict = PA_RV_POLICY;
	assert_string_equal(text(&r),
			    "stacked device, its place on the disk below is not "
			    "known (physical uses the kernel's offset)");
	r = mk(PA_REASON_GRAIN_UNUSABLE, PA_RV_POLICY);
	r.a = 3000;
	r.b = 4096;
	assert_string_equal(text(&r),
			    "grain 3000 B is not a multiple of the 4 KiB logical "
			    "sector");
	r = mk(PA_REASON_WHOLE, PA_RV_NONE);
	assert_string_equal(
	    text(&r), "whole device without a partition table: aligned by construction");
}

static void test_words_stack(void **state)
{
	struct pa_reason r;

	(void)state;
	r = layer(PA_TERM_PE_START, PA_GRAIN_OPTIMAL, PA_RV_OPTIMAL, "vda1");
	r.on = true;
	r.base_term = PA_TERM_PART_START;
	r.base_dev = "vda1";
	r.base = 6 * MiB;
	r.sum = 7 * MiB;
	assert_string_equal(text(&r),
			    "pe_start 1 MiB on partition vda1 at 6 MiB: 7 MiB is "
			    "no multiple of the 192 KiB optimal I/O of vda");
	r = layer(PA_TERM_DATA_OFFSET, PA_GRAIN_PHYSICAL, PA_RV_PHYSICAL, "md0");
	r.value = 2052 * KiB;
	r.sum = 2052 * KiB;
	r.lands = true;
	r.at = 8196 * KiB;
	assert_string_equal(text(&r),
			    "data offset 2052 KiB of md0: 2052 KiB is no multiple "
			    "of the 4 KiB physical sector and minimum I/O of vda "
			    "(the segment lands at 8196 KiB)");
	r = layer(PA_TERM_PAYLOAD, PA_GRAIN_POLICY, PA_RV_POLICY, "luks");
	r.on = true;
	r.base_term = PA_TERM_DM_OFFSET;
	r.base_word = "dm device";
	r.base_dev = "dm-0";
	r.base = 0;
	assert_string_equal(text(&r),
			    "payload offset 1 MiB of luks on dm device dm-0 at 0 "
			    "B: 1 MiB is no multiple of the 2 MiB policy grain");
	r = layer(PA_TERM_EXTENTS, PA_GRAIN_POLICY, PA_RV_POLICY, "lv");
	r.count = 10;
	r.extent_size = 4 * MiB;
	r.vg = "vg";
	assert_contains(text(&r), "extent 10 x 4 MiB of VG vg: ");
	r = layer(PA_TERM_ROW, PA_GRAIN_STRIPE, PA_RV_OPTIMAL, "md0");
	r.space = "md0";
	r.c = 64 * KiB;
	r.ndata = 3;
	r.b = 192 * KiB;
	assert_contains(text(&r), "chunk rows 1 MiB of md0: 1 MiB is no multiple of the "
				  "192 KiB stripe width (3 x 64 KiB chunk) of md0");
	r = layer(PA_TERM_DM_OFFSET, PA_GRAIN_CHUNK, PA_RV_PHYSICAL, "dm-2");
	r.space = "md0";
	assert_contains(text(&r),
			"table offset 1 MiB of dm-2: 1 MiB is no multiple of the "
			"4 KiB chunk of md0");
	r = layer(PA_TERM_WITHIN, PA_GRAIN_PHYSICAL, PA_RV_PHYSICAL, "dm-2");
	assert_contains(text(&r), "offset 1 MiB into dm-2: ");
	r.kind = PA_REASON_BYTE0;
	assert_string_equal(text(&r),
			    "byte 0 of dm-2 is no multiple of the 4 KiB physical "
			    "sector and minimum I/O of vda");
	r = mk(PA_REASON_DISK_CANNOT, PA_RV_PHYSICAL);
	r.space = "vda";
	assert_string_equal(text(&r), "vda: the kernel reports alignment offset -1");
	r = mk(PA_REASON_CHUNK_SECTOR, PA_RV_PHYSICAL);
	r.a = 2048;
	r.b = 4096;
	r.layer = "md0";
	r.space = "vda";
	assert_string_equal(text(&r), "chunk 2 KiB of md0 is no multiple of the 4 KiB "
				      "physical sector and minimum I/O of vda");
	r.kind = PA_REASON_CHUNK_STRADDLE;
	r.a = 128 * KiB;
	r.b = 192 * KiB;
	assert_string_equal(
	    text(&r), "chunk 128 KiB of md0 straddles the 192 KiB optimal I/O of vda");
	r = mk(PA_REASON_NO_OPT, PA_RV_OPTIMAL);
	assert_string_equal(text(&r), "the disk reports no usable optimal I/O size");
	r.space = "vdc";
	assert_string_equal(text(&r), "vdc reports no usable optimal I/O size");
	r = mk(PA_REASON_EXTENT_SIZE, PA_RV_NONE);
	r.a = 4 * MiB;
	r.b = 192 * KiB;
	r.vg = "vg0";
	assert_string_equal(text(&r),
			    "extent size 4 MiB of VG vg0 is no multiple of the "
			    "192 KiB grain: every LV after the first extents walks "
			    "off it");
	r = mk(PA_REASON_MORE, PA_RV_NONE);
	assert_string_equal(text(&r), "...");
}

/* One device: each clause labelled with its verdict, in the order recorded. */
static void test_plain_labels(void **state)
{
	struct pa_reasons l = {0};
	struct pa_reason_span sp[PA_REASON_SPANS_MAX];
	char buf[PA_REASON_TEXT_MAX];
	unsigned int n;

	(void)state;
	l.r[l.n] = mk(PA_REASON_OFF_GRAIN, PA_RV_PHYSICAL);
	l.r[l.n].a = 512;
	l.r[l.n++].b = 4096;
	l.r[l.n++] = mk(PA_REASON_OPT_ABSENT, PA_RV_OPTIMAL);
	l.r[l.n++] = mk(PA_REASON_WHOLE, PA_RV_NONE);
	reason_render(&l, buf, sizeof(buf), sp, &n);
	assert_string_equal(buf, "physical: 512 B past a 4 KiB boundary; optimal: the "
				 "device reports no optimal I/O size; whole device "
				 "without a partition table: aligned by construction");
	assert_int_equal(n, 3);
	assert_int_equal(sp[0].label, PA_RV_PHYSICAL);
	assert_int_equal(sp[1].label, PA_RV_OPTIMAL);
	assert_int_equal(sp[2].label, PA_RV_NONE);
	assert_int_equal(sp[1].off, strlen("physical: 512 B past a 4 KiB boundary; "));
	l.n = 0;
	assert_int_equal(reason_render(&l, buf, sizeof(buf), sp, &n), 0);
	assert_string_equal(buf, "");
	assert_int_equal(n, 0);
}

/*
 * A stacked device: the clause about the worst verdict first, labelled; the
 * choice made on the verdict field alone.  The policy clause's layer is
 * named "optimal I/O" and the optimal clause's "policy grain": words that
 * would have fooled a classification by text.
 */
static void test_stacked_order(void **state)
{
	struct pa_reasons l = {0};
	struct pa_reason r;
	struct pa_reason_span sp[PA_REASON_SPANS_MAX];
	char buf[PA_REASON_TEXT_MAX], pol[PA_REASON_TEXT_MAX], opt[PA_REASON_TEXT_MAX],
	    phys[PA_REASON_TEXT_MAX];
	unsigned int n;

	(void)state;
	r = layer(PA_TERM_DM_OFFSET, PA_GRAIN_POLICY, PA_RV_POLICY, "optimal I/O");
	snprintf(pol, sizeof(pol), "%s", text(&r));
	reason_add(&l, &r);
	r = layer(PA_TERM_DM_OFFSET, PA_GRAIN_OPTIMAL, PA_RV_OPTIMAL, "policy grain");
	snprintf(opt, sizeof(opt), "%s", text(&r));
	reason_add(&l, &r);
	reason_add(&l, &r); /* the same again: once */
	assert_int_equal(l.n, 2);
	assert_int_equal(l.form, PA_REASONS_WALK);
	reason_render(&l, buf, sizeof(buf), NULL, NULL);
	assert_int_equal(strlen(buf), strlen(pol) + 2 + strlen(opt));

	l.form = PA_REASONS_STACKED;
	l.nwalk = l.n;
	l.worst = PA_RV_OPTIMAL;
	l.r[l.n++] = mk(PA_REASON_NO_OPT, PA_RV_OPTIMAL); /* a note: after the walk */
	reason_render(&l, buf, sizeof(buf), sp, &n);
	assert_int_equal(strncmp(buf, "optimal: ", 9), 0);
	assert_int_equal(strncmp(buf + 9, opt, strlen(opt)), 0);
	assert_int_equal(strncmp(buf + 9 + strlen(opt), "; ", 2), 0);
	assert_int_equal(strncmp(buf + 11 + strlen(opt), pol, strlen(pol)), 0);
	assert_contains(buf, "; optimal: the disk reports no usable optimal I/O size");
	assert_int_equal(n, 3);
	assert_int_equal(sp[0].label, PA_RV_OPTIMAL);
	assert_int_equal(sp[1].label, PA_RV_NONE);
	assert_int_equal(sp[2].label, PA_RV_OPTIMAL);

	/* physical outranks both, wherever it is in the walk */
	r = layer(PA_TERM_PART_START, PA_GRAIN_PHYSICAL, PA_RV_PHYSICAL, "vda1");
	snprintf(phys, sizeof(phys), "%s", text(&r));
	l.r[2] = r;
	l.nwalk = 3;
	l.n = 3;
	l.worst = PA_RV_PHYSICAL;
	reason_render(&l, buf, sizeof(buf), NULL, NULL);
	assert_int_equal(strncmp(buf, "physical: ", 10), 0);
	assert_int_equal(strncmp(buf + 10, phys, strlen(phys)), 0);

	/* no clause of the worst verdict: the first leads, with the label */
	l.worst = PA_RV_POLICY;
	l.r[0].verdict = PA_RV_OPTIMAL;
	reason_render(&l, buf, sizeof(buf), NULL, NULL);
	assert_int_equal(strncmp(buf, "policy: ", 8), 0);
	assert_int_equal(strncmp(buf + 8, pol, strlen(pol)), 0);
}

/* More than fits: "; ..." once, and a full list ends with PA_REASON_MORE. */
static void test_no_room(void **state)
{
	struct pa_reasons l = {0};
	struct pa_reason r;
	char buf[PA_REASON_TEXT_MAX];
	unsigned int k;

	(void)state;
	for (k = 0; k < 40; k++) {
		r = layer(PA_TERM_DM_OFFSET, PA_GRAIN_PHYSICAL, PA_RV_PHYSICAL, "dm-1");
		r.value = (k + 1) * 512;
		r.sum = r.value;
		reason_add(&l, &r);
	}
	assert_int_equal(l.n, PA_REASONS_ADD_MAX);
	assert_int_equal(l.r[l.n - 1].kind, PA_REASON_MORE);
	reason_render(&l, buf, sizeof(buf), NULL, NULL);
	assert_true(strlen(buf) < PA_REASON_TEXT_MAX);
	assert_contains(buf, "; ...");
	assert_not_contains(strstr(buf, "; ...") + 5, "...");
	assert_int_equal(
	    strncmp(buf, "table offset 512 B of dm-1: 512 B is no multiple", 48), 0);
}

/* The exit bit of a check comes from its three verdicts. */
static void test_exit_bits(void **state)
{
	struct pa_topology t = {.logical = 512, .physical = 4096, .min_io = 4096};
	struct pa_grain g = PA_GRAIN_DEFAULT;
	struct pa_check c;

	(void)state;
	align_check(&t, 1ull << 30, PA_REGION_PART, 1 * MiB, &g, false, 0, &c);
	assert_int_equal(c.physical, PA_VERDICT_OK);
	assert_int_equal(c.policy, PA_VERDICT_MISALIGNED);
	assert_int_equal(align_check_exit(&c), PA_EXIT_MISALIGNED);
	/* the misaligned policy's reason first, before the note on optimal I/O */
	assert_int_equal(c.why.r[0].kind, PA_REASON_OFF_GRAIN);
	assert_int_equal(c.why.r[0].verdict, PA_RV_POLICY);
	assert_int_equal(c.why.r[1].kind, PA_REASON_OPT_ABSENT);
	align_check(&t, 1ull << 30, PA_REGION_PART, 2 * MiB, &g, false, 0, &c);
	assert_int_equal(align_check_exit(&c), PA_EXIT_OK);
	assert_int_equal(c.why.n, 1); /* the absent optimal I/O: a note only */
	assert_int_equal(c.why.r[0].kind, PA_REASON_OPT_ABSENT);
	align_check(&t, 1ull << 30, PA_REGION_PART, 63 * 512, &g, false, 0, &c);
	assert_int_equal(c.physical, PA_VERDICT_MISALIGNED);
	assert_int_equal(align_check_exit(&c), PA_EXIT_MISALIGNED);
	assert_int_equal(c.why.r[0].verdict, PA_RV_PHYSICAL);
	assert_int_equal(c.why.r[0].a, 3584);
	/* the clauses of the misaligned verdicts first, the n/a note after */
	assert_string_equal(
	    why_text(&c.why),
	    "physical: 3584 B past a 4 KiB boundary; policy: 32256 B past "
	    "a 2 MiB boundary; optimal: the device reports no optimal I/O "
	    "size");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_words_one_device), cmocka_unit_test(test_words_stack),
	    cmocka_unit_test(test_plain_labels),     cmocka_unit_test(test_stacked_order),
	    cmocka_unit_test(test_no_room),	     cmocka_unit_test(test_exit_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
