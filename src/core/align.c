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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/align.h"
#include "core/stack.h"
#include "core/units.h"

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

uint64_t align_physical_grain(const struct pa_topology *t)
{
	uint64_t g = t->physical;

	if (t->min_io > g)
		g = t->min_io;
	if (t->logical > g)
		g = t->logical;
	return g ? g : 512;
}

uint64_t align_optimal_usable(const struct pa_topology *t, uint64_t dev_size,
			      const char **why)
{
	uint64_t opt = t->opt_io;
	uint64_t phys = align_physical_grain(t);

	*why = NULL;
	if (opt == 0)
		return 0;
	/*
	 * 0xffff sectors is what some USB bridges and RAID controllers put in
	 * the Block Limits VPD page when they mean "no limit": a controller
	 * error, not a real optimal size.
	 */
	if (opt == 0xffffull * 512 || (t->logical && opt == 0xffffull * t->logical)) {
		*why = "0xffff sectors, a controller error";
		return 0;
	}
	if (opt % phys) {
		*why = "not a multiple of the physical sector and minimum I/O";
		return 0;
	}
	if (opt >= PA_OPT_IO_MAX || (dev_size && opt > dev_size)) {
		*why = "implausibly large";
		return 0;
	}
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

static void reason_add(struct pa_check *c, const char *fmt, ...)
{
	size_t used = strlen(c->reason);
	va_list ap;

	if (used && used + 2 < sizeof(c->reason)) {
		memcpy(c->reason + used, "; ", 3);
		used += 2;
	}
	if (used >= sizeof(c->reason) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(c->reason + used, sizeof(c->reason) - used, fmt, ap);
	va_end(ap);
}

/* "512 B past a 4 KiB boundary" style detail for a start that misses @grain */
static void reason_off(struct pa_check *c, const char *what, uint64_t start,
		       uint64_t grain, uint64_t offset)
{
	char a[32], b[32], o[32];
	uint64_t r = residue(start, grain, offset);

	units_exact(r, a, sizeof(a));
	units_exact(grain, b, sizeof(b));
	if (offset % grain)
		reason_add(c, "%s: %s past a %s boundary (alignment offset %s)", what, a,
			   b, units_exact(offset % grain, o, sizeof(o)));
	else
		reason_add(c, "%s: %s past a %s boundary", what, a, b);
}

static enum pa_verdict judge(struct pa_check *c, const char *what, uint64_t start,
			     uint64_t grain, uint64_t offset)
{
	if (residue(start, grain, offset) == 0)
		return PA_VERDICT_OK;
	reason_off(c, what, start, grain, offset);
	return PA_VERDICT_MISALIGNED;
}

void align_check(const struct pa_topology *t, uint64_t dev_size, enum pa_region region,
		 uint64_t start, const struct pa_grain *policy, bool kalign_known,
		 int64_t kernel_align, struct pa_check *c)
{
	bool cannot = t->align_off < 0;
	uint64_t off = cannot ? 0 : (uint64_t)t->align_off;
	const char *why;
	char a[32], b[32];

	memset(c, 0, sizeof(*c));
	c->phys_grain = align_physical_grain(t);
	c->opt_grain = align_optimal_usable(t, dev_size, &why);
	c->policy_grain = align_policy_bytes(policy, t->logical);

	/* PHYSICAL */
	if (cannot) {
		c->physical = PA_VERDICT_MISALIGNED;
		reason_add(c, "physical: the kernel reports alignment offset -1 "
			      "(the device stack cannot be aligned)");
	} else {
		c->physical = judge(c, "physical", start, c->phys_grain, off);
	}
	if (region == PA_REGION_PART) {
		c->kalign_predicted_known = true;
		c->kalign_predicted = align_kernel_offset(t, start);
		if (kalign_known && kernel_align != c->kalign_predicted) {
			c->kalign_mismatch = true;
			if (c->physical == PA_VERDICT_OK)
				c->physical = PA_VERDICT_MISALIGNED;
			reason_add(
			    c,
			    "physical: the kernel reports alignment_offset %" PRId64
			    ", expected %" PRId64,
			    kernel_align, c->kalign_predicted);
		}
	}

	/* OPTIMAL */
	if (!c->opt_grain) {
		c->optimal = PA_VERDICT_NA;
		if (why)
			reason_add(c, "optimal: %" PRIu32 " B ignored (%s)", t->opt_io,
				   why);
		else
			reason_add(c, "optimal: the device reports no optimal I/O size");
	} else if (cannot) {
		c->optimal = PA_VERDICT_MISALIGNED;
		reason_add(c, "optimal: the kernel reports alignment offset -1");
	} else if (region == PA_REGION_STACKED && c->opt_grain != c->phys_grain &&
		   residue(start, c->phys_grain, off) == 0) {
		/* the kernel stacks its offset on the physical grain only: on it,
		   the place on the optimal I/O is not known */
		c->optimal = PA_VERDICT_NA;
		reason_add(c,
			   "optimal: stacked device, its place on the disk below is not "
			   "known (the kernel's offset is on the physical grain only)");
	} else {
		c->optimal = judge(c, "optimal", start, c->opt_grain, off);
	}

	/* POLICY */
	if (region == PA_REGION_STACKED) {
		c->policy = PA_VERDICT_NA;
		reason_add(c,
			   "policy: stacked device, its place on the disk below is not "
			   "known (physical uses the kernel's offset)");
	} else if (!c->policy_grain) {
		c->policy = PA_VERDICT_NA;
		reason_add(c,
			   "policy: grain %s is not a multiple of the %s logical sector",
			   units_grain(policy, a, sizeof(a)),
			   units_exact(t->logical, b, sizeof(b)));
	} else {
		c->policy = judge(c, "policy", start, c->policy_grain, off);
	}

	if (region == PA_REGION_WHOLE && c->physical == PA_VERDICT_OK &&
	    c->policy == PA_VERDICT_OK)
		reason_add(
		    c, "whole device without a partition table: aligned by construction");
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

/* ---- stacked devices through their layers (issue #15) ---- */

struct stack_build {
	const struct pa_devlist *l;
	const struct pa_dev *from[PA_STACK_DEVS_MAX]; /* scanned device of each entry */
	struct pa_stack_dev dev[PA_STACK_DEVS_MAX];
	struct pa_stack_seg seg[PA_STACK_DEVS_MAX][PA_DM_TARGETS_MAX];
	struct pa_stack_ref ref[PA_STACK_DEVS_MAX][PA_DM_TARGETS_MAX][PA_DM_STRIPES_MAX];
	/* the PVs of an LV (build_lv) */
	struct pa_stack_pv pv[PA_STACK_DEVS_MAX][PA_DM_TARGETS_MAX * PA_DM_STRIPES_MAX];
	unsigned int n;
	/* the members of every md array of the stack, each array's in one run */
	struct pa_stack_member member[PA_STACK_DEVS_MAX];
	unsigned int nmember;
};

/* Segment @k of entry @i from dm target @t, its stripes in b->ref[i][k]. */
static void set_seg(struct stack_build *b, unsigned int i, unsigned int k,
		    const struct pa_dm_target *t)
{
	b->seg[i][k] = (struct pa_stack_seg){
	    .start = t->start,
	    .length = t->length,
	    .stripes = t->stripes,
	    .chunk = t->chunk,
	    .to = b->ref[i][k],
	};
}

static bool is_stacked_dm(const struct pa_dev *d)
{
	return d->kind == PA_KIND_LVM || d->kind == PA_KIND_CRYPT ||
	       d->kind == PA_KIND_DM;
}

static int build_add(struct stack_build *b, const struct pa_dev *d, unsigned int depth,
		     unsigned int *idx);

/* Members in a stripe's data: RAID0 all, RAID1 one, RAID4/5 n - 1, RAID6 n - 2,
   RAID10 near n / copies; 0 for a layout that has none of them. */
static unsigned int md_data_disks(const struct pa_dev *d)
{
	unsigned int n = d->md_nmembers;

	switch (d->md_level) {
	case 0:
		return n;
	case 1:
		return 1;
	case 4:
	case 5:
		return n >= 2 ? n - 1 : 0;
	case 6:
		return n >= 3 ? n - 2 : 0;
	case 10:
		return d->md_copies ? n / d->md_copies : 0;
	}
	return 0;
}

/*
 * An md array whose layout the scan read (d->md_known): its members into the
 * stack first, then @sd filled as PA_STACK_MD.  0, or 1 when a member is not
 * known (not in the scan, or its own place below unknown).
 */
static int build_md(struct stack_build *b, const struct pa_dev *d, unsigned int depth,
		    struct pa_stack_dev *sd)
{
	unsigned int low[PA_MD_MEMBERS_MAX], k, first;
	unsigned int n = d->md_nmembers, ndata = md_data_disks(d);
	int r;

	if (!n || n > PA_MD_MEMBERS_MAX || !d->md_members || !ndata)
		return 1;
	for (k = 0; k < n; k++) {
		const struct pa_dev *lo =
		    d->md_members[k].name ? devlist_find_name(b->l, d->md_members[k].name)
					  : NULL;

		if (!lo || lo == d)
			return 1;
		r = build_add(b, lo, depth + 1, &low[k]);
		if (r)
			return r;
	}
	if (b->nmember + n > PA_STACK_DEVS_MAX)
		return 1;
	first = b->nmember;
	for (k = 0; k < n; k++)
		b->member[first + k] = (struct pa_stack_member){
		    .dev = low[k], .data_offset = d->md_members[k].data_offset};
	b->nmember += n;
	sd->kind = PA_STACK_MD;
	sd->level = d->md_level;
	sd->chunk = d->md_chunk;
	sd->data_disks = ndata;
	sd->copies = d->md_copies;
	sd->nmembers = n;
	sd->members = &b->member[first];
	return 0;
}

/*
 * An LVM LV (entry @i) whose every target is linear or striped and lands on
 * PE boundaries of PVs of one VG that --probe read (pe_start, extent size):
 * its segments in extents of those PVs, so that the reason can blame
 * pe_start or the extents.  False when it is not such an LV: it is then
 * modelled as the plain dm table it also is.
 */
static bool build_lv(struct stack_build *b, const struct pa_dev *d, unsigned int i,
		     unsigned int low[][PA_DM_STRIPES_MAX], struct pa_stack_dev *sd)
{
	const struct pa_dm_table *t = &d->dm_table;
	const struct pa_dev *first = NULL;
	unsigned int k, j, p, npv = 0;

	if (d->kind != PA_KIND_LVM)
		return false;
	for (k = 0; k < t->n; k++) {
		if (t->t[k].crypt)
			return false;
		for (j = 0; j < t->t[k].stripes; j++) {
			const struct pa_dev *lo = b->from[low[k][j]];
			uint64_t off = t->t[k].to[j].offset;

			if (!lo->lvm_pv_known || !lo->lvm_extent_size ||
			    off < lo->lvm_pe_start ||
			    (off - lo->lvm_pe_start) % lo->lvm_extent_size)
				return false;
			if (first && (lo->lvm_extent_size != first->lvm_extent_size ||
				      strcmp(lo->lvm_vg, first->lvm_vg) != 0))
				return false;
			if (!first)
				first = lo;
			for (p = 0; p < npv && b->pv[i][p].dev != low[k][j]; p++)
				;
			if (p == npv)
				b->pv[i][npv++] = (struct pa_stack_pv){
				    .dev = low[k][j], .pe_start = lo->lvm_pe_start};
			b->ref[i][k][j] = (struct pa_stack_ref){
			    .dev = p,
			    .offset = (off - lo->lvm_pe_start) / lo->lvm_extent_size};
		}
		set_seg(b, i, k, &t->t[k]);
	}
	if (!first)
		return false;
	sd->kind = PA_STACK_LV;
	sd->vg = first->lvm_vg;
	sd->extent_size = first->lvm_extent_size;
	sd->npvs = npv;
	sd->pvs = b->pv[i];
	sd->nsegs = t->n;
	sd->segs = b->seg[i];
	return true;
}

/* Add @d (after what it stands on) and return its index in *idx; 1: not known. */
static int build_add(struct stack_build *b, const struct pa_dev *d, unsigned int depth,
		     unsigned int *idx)
{
	struct pa_stack_dev sd = {.name = d->name, .size = d->size};
	unsigned int i, k, j;
	int r;

	for (i = 0; i < b->n; i++)
		if (b->from[i] == d) {
			*idx = i;
			return 0;
		}
	if (depth > PA_STACK_DEPTH_MAX)
		return 1;
	if (is_stacked_dm(d)) {
		const struct pa_dm_table *t = &d->dm_table;
		unsigned int low[PA_DM_TARGETS_MAX][PA_DM_STRIPES_MAX];

		if (!d->dm_table_known || !t->n)
			return 1;
		for (k = 0; k < t->n; k++)
			for (j = 0; j < t->t[k].stripes; j++) {
				const struct pa_dev *lo = devlist_find_devno(
				    b->l, t->t[k].to[j].major, t->t[k].to[j].minor);

				if (!lo || lo == d)
					return 1;
				r = build_add(b, lo, depth + 1, &low[k][j]);
				if (r)
					return r;
			}
		if (b->n >= PA_STACK_DEVS_MAX)
			return 1;
		i = b->n;
		if (build_lv(b, d, i, low, &sd)) {
			/* an LV on PVs read with --probe: in extents */
		} else if (t->n == 1 && t->t[0].crypt) {
			sd.kind = PA_STACK_CRYPT;
			sd.lower = low[0][0];
			sd.offset = t->t[0].to[0].offset;
		} else {
			sd.kind = PA_STACK_DM;
			sd.nsegs = t->n;
			sd.segs = b->seg[i];
			for (k = 0; k < t->n; k++) {
				for (j = 0; j < t->t[k].stripes; j++)
					b->ref[i][k][j] = (struct pa_stack_ref){
					    .dev = low[k][j],
					    .offset = t->t[k].to[j].offset};
				set_seg(b, i, k, &t->t[k]);
			}
		}
	} else if (d->kind == PA_KIND_PART) {
		unsigned int lower;

		if (!d->start_known || !d->disk)
			return 1;
		r = build_add(b, d->disk, depth + 1, &lower);
		if (r)
			return r;
		if (b->n >= PA_STACK_DEVS_MAX)
			return 1;
		i = b->n;
		sd.kind = PA_STACK_PART;
		sd.lower = lower;
		sd.offset = d->start;
	} else if (d->kind == PA_KIND_MD && d->md_known) {
		r = build_md(b, d, depth, &sd);
		if (r)
			return r;
		if (b->n >= PA_STACK_DEVS_MAX)
			return 1;
		i = b->n;
	} else {
		/* the bottom: a disk, loop device, multipath map or md array of an
		   unknown layout */
		if (b->n >= PA_STACK_DEVS_MAX)
			return 1;
		i = b->n;
		sd.kind = PA_STACK_DISK;
		sd.topo = d->topo;
	}
	b->from[i] = d;
	b->dev[i] = sd;
	b->n++;
	*idx = i;
	return 0;
}

/*
 * Whose row is judged through the stack: a dm device with a table, an md
 * array with a known layout, and a partition of such an array.
 */
static bool stack_walkable(const struct pa_dev *d)
{
	if (is_stacked_dm(d))
		return d->dm_table_known;
	if (d->kind == PA_KIND_MD)
		return d->md_known;
	return d->kind == PA_KIND_PART && d->start_known && d->disk &&
	       d->disk->kind == PA_KIND_MD && d->disk->md_known;
}

/*
 * An LV's extent size against the grain its first segment needs on the disk
 * (stack_extent_ok): a note after the verdicts' reasons, since the LVs
 * allocated after this one's extents walk off the grain.
 */
static void lv_extent_note(const struct pa_stack_dev *lv,
			   const struct pa_stack_verdict *v, char *why, size_t len)
{
	if (lv->kind != PA_STACK_LV || stack_extent_ok(lv, v->bottom_grain, why, len))
		why[0] = '\0';
}

/* Which verdict a clause of a stack reason is about: 4 physical, 2 optimal, 1 policy. */
static int clause_kind(const char *c, size_t n)
{
	if (n == 3 && memcmp(c, "...", 3) == 0)
		return 0; /* no room for more */
	if (memmem(c, n, "policy grain", 12))
		return 1;
	if (memmem(c, n, "optimal I/O", 11) || memmem(c, n, "stripe width", 12))
		return 2;
	return 4; /* physical sector, chunk, alignment offset -1 */
}

/*
 * @v's reason into @out, the clause of the worst miss first and labelled
 * with its verdict ("optimal: ..."), the other clauses after it in order.
 */
static void worst_first(const struct pa_stack_verdict *v, char *out, size_t len)
{
	int want = v->physical == PA_VERDICT_MISALIGNED	 ? 4
		   : v->optimal == PA_VERDICT_MISALIGNED ? 2
							 : 1;
	const char *label = want == 4	? "physical: "
			    : want == 2 ? "optimal: "
					: "policy: ";
	const char *r = v->reason, *c, *e, *pick = NULL;
	size_t pn = 0, used;

	out[0] = '\0';
	if (!r[0])
		return;
	for (c = r; *c && !pick; c = *e ? e + 2 : e) {
		e = strstr(c, "; ");
		if (!e)
			e = c + strlen(c);
		if (clause_kind(c, (size_t)(e - c)) == want) {
			pick = c;
			pn = (size_t)(e - c);
		}
	}
	if (!pick) {
		pick = r;
		pn = strcspn(r, ";");
	}
	snprintf(out, len, "%s%.*s", label, (int)pn, pick);
	for (c = r; *c; c = *e ? e + 2 : e) {
		e = strstr(c, "; ");
		if (!e)
			e = c + strlen(c);
		if (c == pick)
			continue;
		used = strlen(out);
		snprintf(out + used, len - used, "; %.*s", (int)(e - c), c);
	}
}

/*
 * Build the stack below @d and judge @d in it.  0 with *bp (to free; what *s
 * points into), *top and *v set; 1 when the layout is not known or the model
 * refuses it (*bp NULL or to free); -ENOMEM.
 */
static int stack_judge(const struct pa_devlist *l, const struct pa_dev *d,
		       const struct pa_grain *policy, struct stack_build **bp,
		       struct pa_stack *s, unsigned int *top, struct pa_stack_verdict *v)
{
	struct stack_build *b;
	int r;

	*bp = NULL;
	if (!stack_walkable(d))
		return 1;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	*bp = b;
	b->l = l;
	r = build_add(b, d, 0, top);
	if (r)
		return r;
	*s = (struct pa_stack){.ndevs = b->n, .dev = b->dev};
	return stack_check_dev(s, *top, policy, v) < 0 ? 1 : 0;
}

int align_check_stacked(const struct pa_devlist *l, const struct pa_dev *d,
			const struct pa_grain *policy, struct pa_check *out)
{
	struct stack_build *b = NULL;
	struct pa_stack_verdict v;
	struct pa_stack s;
	unsigned int top;
	const char *p, *bottom = NULL;
	char note[256] = "";
	size_t n = 0;
	int r = stack_judge(l, d, policy, &b, &s, &top, &v);

	if (r == 0) {
		bottom = b->dev[v.bottom].name; /* owned by @l */
		lv_extent_note(&b->dev[top], &v, note, sizeof(note));
	}
	free(b);
	if (r)
		return r;
	out->physical = v.physical;
	out->optimal = v.optimal;
	out->policy = v.policy;
	out->stack_known = true;
	out->abs_start = v.abs;
	worst_first(&v, out->reason, sizeof(out->reason));
	if (v.optimal == PA_VERDICT_NA) {
		size_t used = strlen(out->reason);

		snprintf(out->reason + used, sizeof(out->reason) - used,
			 "%soptimal: %s reports no usable optimal I/O size",
			 used ? "; " : "", bottom ? bottom : "the disk");
	}
	if (note[0]) {
		size_t used = strlen(out->reason);

		snprintf(out->reason + used, sizeof(out->reason) - used, "%s%s",
			 used ? "; " : "", note);
	}
	/* "vda -> vda1 -> dm-2" as "vda>vda1>dm-2" */
	for (p = v.path; *p && n + 1 < sizeof(out->layers);) {
		if (strncmp(p, " -> ", 4) == 0) {
			out->layers[n++] = '>';
			p += 4;
		} else {
			out->layers[n++] = *p++;
		}
	}
	out->layers[n] = '\0';
	return 0;
}

int align_advise_stacked(const struct pa_devlist *l, const struct pa_dev *d,
			 const struct pa_grain *policy, char *buf, size_t len)
{
	struct stack_build *b = NULL;
	struct pa_stack_verdict v;
	struct pa_stack s;
	unsigned int top;
	int r;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	r = stack_judge(l, d, policy, &b, &s, &top, &v);
	if (r == 0 && stack_advise(&s, top, &v, buf, len) < 0)
		r = 1; /* a layout the advice refuses: none */
	free(b);
	return r;
}

/* ---- the file system on a device (issue #15, --probe) ---- */

enum pa_verdict align_check_fs(const struct pa_dev *d, char *reason, size_t len,
			       char *fix, size_t fixlen)
{
	struct pa_fs_geom g = {0};
	uint64_t size = d->disk ? d->disk->size : d->size;
	const char *why;

	if (len)
		reason[0] = '\0';
	if (fix && fixlen)
		fix[0] = '\0';
	if (!d->fs_geom_known)
		return PA_VERDICT_NA;
	g.fs = d->fs_name;
	g.unit = d->fs_unit;
	g.width = d->fs_width;
	g.blocksize = d->fs_blocksize;
	return stack_fs_check(&g, d->topo.min_io,
			      align_optimal_usable(&d->topo, size, &why), reason, len,
			      fix, fixlen);
}
