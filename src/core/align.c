/*
 * Alignment arithmetic.  Every function here works on integers handed in by
 * the caller; the scanner has already read sysfs.  The physical rule is the
 * kernel's own (block/blk-settings.c, queue_limit_alignment_offset), so the
 * verdict can be cross-checked against the alignment_offset the kernel
 * publishes for each partition.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/align.h"
#include "core/exitcodes.h"

const char *align_verdict_name(enum pa_verdict v)
{
	switch (v) {
	case PA_VERDICT_OK:
		return "ok";
	case PA_VERDICT_MISALIGNED:
		return "misaligned";
	case PA_VERDICT_NA:
		break;
	}
	return "n/a";
}

int align_check_exit(const struct pa_check *c)
{
	return c->physical == PA_VERDICT_MISALIGNED ||
		       c->optimal == PA_VERDICT_MISALIGNED ||
		       c->policy == PA_VERDICT_MISALIGNED
		   ? PA_EXIT_MISALIGNED
		   : PA_EXIT_OK;
}

uint64_t align_physical_grain(const struct pa_topology *t)
{
	uint64_t g = t->physical;

	if (t->min_io > g)
		g = t->min_io;
	if (t->logical > g)
		g = t->logical;
	return g ? g : 512;
}

uint64_t align_optimal_sane(const struct pa_topology *t, uint64_t dev_size,
			    enum pa_opt_why *why)
{
	uint64_t opt = t->opt_io;
	uint64_t phys = align_physical_grain(t);

	*why = PA_OPT_ABSENT;
	if (opt == 0)
		return 0;
	/*
	 * 0xffff sectors is what some USB bridges and RAID controllers put in
	 * the Block Limits VPD page when they mean "no limit": a controller
	 * error, not a real optimal size.
	 */
	if (opt == 0xffffull * 512 || (t->logical && opt == 0xffffull * t->logical)) {
		*why = PA_OPT_FFFF;
		return 0;
	}
	if (opt % phys) {
		*why = PA_OPT_NOT_PHYS;
		return 0;
	}
	if (opt >= PA_OPT_IO_MAX || (dev_size && opt > dev_size)) {
		*why = PA_OPT_IMPLAUSIBLE;
		return 0;
	}
	return opt;
}

uint64_t align_optimal_usable(const struct pa_topology *t, uint64_t dev_size,
			      const char **why)
{
	enum pa_opt_why w;
	uint64_t opt = align_optimal_sane(t, dev_size, &w);

	*why = w == PA_OPT_ABSENT ? NULL : reason_opt_why_text(w);
	return opt;
}

uint64_t align_policy_bytes(const struct pa_grain *g, uint32_t logical)
{
	uint64_t bytes;

	if (!logical)
		logical = 512;
	if (g->sectors) {
		if (g->value > UINT64_MAX / logical)
			return 0;
		return g->value * logical;
	}
	bytes = g->value;
	if (bytes == 0 || bytes % logical)
		return 0;
	return bytes;
}

/* (start - offset) mod grain, computed without underflow */
static uint64_t residue(uint64_t start, uint64_t grain, uint64_t offset)
{
	uint64_t s = start % grain, o = offset % grain;

	return s >= o ? s - o : grain - (o - s);
}

uint64_t align_distance(uint64_t start, uint64_t grain, uint64_t offset)
{
	if (!grain)
		return 0;
	return (grain - residue(start, grain, offset)) % grain;
}

int64_t align_kernel_offset(const struct pa_topology *t, uint64_t start)
{
	if (t->align_off < 0)
		return -1;
	return (int64_t)align_distance(start, align_physical_grain(t),
				       (uint64_t)t->align_off);
}

uint64_t align_up(uint64_t from, uint64_t grain, uint64_t offset)
{
	if (!grain)
		return from;
	return from + align_distance(from, grain, offset);
}

uint64_t align_down(uint64_t from, uint64_t grain, uint64_t offset)
{
	uint64_t r;

	if (!grain)
		return from;
	r = residue(from, grain, offset);
	return r > from ? 0 : from - r;
}

/* A new reason of @c: @kind, about verdict @v; NULL when the list is full. */
static struct pa_reason *why_add(struct pa_check *c, enum pa_reason_kind kind,
				 enum pa_reason_verdict v)
{
	struct pa_reason *r;

	if (c->why.n >= PA_REASONS_MAX)
		return NULL;
	r = &c->why.r[c->why.n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->verdict = v;
	return r;
}

static enum pa_verdict judge(struct pa_check *c, enum pa_reason_verdict what,
			     uint64_t start, uint64_t grain, uint64_t offset)
{
	uint64_t res = residue(start, grain, offset);
	struct pa_reason *r;

	if (res == 0)
		return PA_VERDICT_OK;
	r = why_add(c, PA_REASON_OFF_GRAIN, what);
	if (r) {
		r->a = res;
		r->b = grain;
		r->c = offset % grain;
	}
	return PA_VERDICT_MISALIGNED;
}

/* Whether @r explains a misaligned verdict of @c (not an n/a note). */
static bool explains_miss(const struct pa_check *c, const struct pa_reason *r)
{
	return (r->verdict == PA_RV_PHYSICAL && c->physical == PA_VERDICT_MISALIGNED) ||
	       (r->verdict == PA_RV_OPTIMAL && c->optimal == PA_VERDICT_MISALIGNED) ||
	       (r->verdict == PA_RV_POLICY && c->policy == PA_VERDICT_MISALIGNED);
}

/*
 * The reasons of the misaligned verdicts first, each group in its order: a
 * cell cut to a terminal's width, a log line, a report shows why the row
 * failed before the notes on what is n/a ("optimal: the device reports no
 * optimal I/O size").
 */
static void misses_first(struct pa_check *c)
{
	struct pa_reason v[PA_REASONS_MAX];
	unsigned int i, k = 0;

	for (i = 0; i < c->why.n; i++)
		if (explains_miss(c, &c->why.r[i]))
			v[k++] = c->why.r[i];
	for (i = 0; i < c->why.n; i++)
		if (!explains_miss(c, &c->why.r[i]))
			v[k++] = c->why.r[i];
	memcpy(c->why.r, v, k * sizeof(v[0]));
}

void align_check(const struct pa_topology *t, uint64_t dev_size, enum pa_region region,
		 uint64_t start, const struct pa_grain *policy, bool kalign_known,
		 int64_t kernel_align, struct pa_check *c)
{
	bool cannot = t->align_off < 0;
	uint64_t off = cannot ? 0 : (uint64_t)t->align_off;
	enum pa_opt_why why;
	struct pa_reason *r;

	memset(c, 0, sizeof(*c));
	c->phys_grain = align_physical_grain(t);
	c->opt_grain = align_optimal_sane(t, dev_size, &why);
	c->policy_grain = align_policy_bytes(policy, t->logical);

	/* PHYSICAL */
	if (cannot) {
		c->physical = PA_VERDICT_MISALIGNED;
		why_add(c, PA_REASON_CANNOT_ALIGN, PA_RV_PHYSICAL);
	} else {
		c->physical = judge(c, PA_RV_PHYSICAL, start, c->phys_grain, off);
	}
	if (region == PA_REGION_PART) {
		c->kalign_predicted_known = true;
		c->kalign_predicted = align_kernel_offset(t, start);
		if (kalign_known && kernel_align != c->kalign_predicted) {
			c->kalign_mismatch = true;
			if (c->physical == PA_VERDICT_OK)
				c->physical = PA_VERDICT_MISALIGNED;
			r = why_add(c, PA_REASON_KERNEL_OFFSET, PA_RV_PHYSICAL);
			if (r) {
				r->s1 = kernel_align;
				r->s2 = c->kalign_predicted;
			}
		}
	}

	/* OPTIMAL */
	if (!c->opt_grain) {
		c->optimal = PA_VERDICT_NA;
		r = why_add(c, why ? PA_REASON_OPT_IGNORED : PA_REASON_OPT_ABSENT,
			    PA_RV_OPTIMAL);
		if (r) {
			r->opt_why = why;
			r->a = why ? t->opt_io : 0;
		}
	} else if (cannot) {
		c->optimal = PA_VERDICT_MISALIGNED;
		why_add(c, PA_REASON_CANNOT_ALIGN, PA_RV_OPTIMAL);
	} else if (region == PA_REGION_STACKED && c->opt_grain != c->phys_grain &&
		   residue(start, c->phys_grain, off) == 0) {
		/* the kernel stacks its offset on the physical grain only: on it,
		   the place on the optimal I/O is not known */
		c->optimal = PA_VERDICT_NA;
		why_add(c, PA_REASON_STACKED_UNKNOWN, PA_RV_OPTIMAL);
	} else {
		c->optimal = judge(c, PA_RV_OPTIMAL, start, c->opt_grain, off);
	}

	/* POLICY */
	if (region == PA_REGION_STACKED) {
		c->policy = PA_VERDICT_NA;
		why_add(c, PA_REASON_STACKED_UNKNOWN, PA_RV_POLICY);
	} else if (!c->policy_grain) {
		c->policy = PA_VERDICT_NA;
		r = why_add(c, PA_REASON_GRAIN_UNUSABLE, PA_RV_POLICY);
		if (r) {
			r->a = policy->value;
			r->sectors = policy->sectors;
			r->b = t->logical;
		}
	} else {
		c->policy = judge(c, PA_RV_POLICY, start, c->policy_grain, off);
	}

	if (region == PA_REGION_WHOLE && c->physical == PA_VERDICT_OK &&
	    c->policy == PA_VERDICT_OK)
		why_add(c, PA_REASON_WHOLE, PA_RV_NONE);
	misses_first(c);
}

void align_check_dev(const struct pa_dev *d, const struct pa_grain *policy,
		     struct pa_check *out)
{
	uint64_t disk_size = d->disk ? d->disk->size : d->size;

	if (d->kind == PA_KIND_PART && d->start_known)
		align_check(&d->topo, disk_size, PA_REGION_PART, d->start, policy,
			    d->kalign_known, d->kernel_align, out);
	else if (d->kind == PA_KIND_PART || d->kind == PA_KIND_LVM ||
		 d->kind == PA_KIND_CRYPT || d->kind == PA_KIND_DM)
		align_check(&d->topo, d->size, PA_REGION_STACKED, 0, policy, false, 0,
			    out);
	else
		align_check(&d->topo, d->size, PA_REGION_WHOLE, 0, policy, false, 0, out);
	/* a table without partitions is still a table: say so, not "without one" */
	if (d->kind != PA_KIND_PART && d->pttype) {
		unsigned int i;

		for (i = 0; i < out->why.n; i++)
			if (out->why.r[i].kind == PA_REASON_WHOLE)
				out->why.r[i].a = 1;
	}
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

uint64_t align_lcm(uint64_t a, uint64_t b)
{
	uint64_t m;

	if (!a || !b)
		return a ? a : b;
	return __builtin_mul_overflow(a / gcd(a, b), b, &m) ? 0 : m;
}
