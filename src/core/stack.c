/*
 * Alignment through a storage stack.  The caller describes the stack as
 * plain structs (core/stack.h); this module walks byte 0 of each segment of a
 * stacked device down to every disk it lands on, keeping the summands of the
 * offset (partition start, pe_start, extents, data offset...) so that a
 * misalignment can be blamed on the layer whose summand broke it.  Pure
 * integer math: no I/O, no printing, no allocation.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/stack.h"

#define TERMS_MAX (2 * PA_STACK_DEPTH_MAX + 2)

struct term {
	enum pa_stack_term_kind kind;
	unsigned int dev; /* the device whose layout contributes it */
	uint64_t value;
	uint64_t count; /* PA_TERM_EXTENTS: the PE number */
};

/* One way down the stack: the summands of the offset, bottom first. */
struct walk {
	struct term t[TERMS_MAX];
	unsigned int n;
	unsigned int path[PA_STACK_DEPTH_MAX + 1]; /* top first */
	unsigned int npath;
	uint64_t chunk; /* chunk of the nearest md/striped layer above, 0 if none */
	unsigned int chunk_dev;
};

struct ctx {
	const struct pa_stack *s;
	const struct pa_grain *policy;
	struct pa_stack_verdict *v; /* the segment being judged */
	int score;		    /* of the worst landing recorded in *v */
	unsigned long steps;	    /* layers visited, bounded by PA_STACK_STEPS_MAX */
	int blame_sev;		    /* of v->blame: 4 physical, 2 optimal, 1 policy */
};

const char *stack_dev_name(const struct pa_stack *s, unsigned int i)
{
	return s->dev[i].name ? s->dev[i].name : "?";
}

const char *stack_kind_word(enum pa_stack_kind k)
{
	switch (k) {
	case PA_STACK_DISK:
		return "disk";
	case PA_STACK_PART:
		return "partition";
	case PA_STACK_DM:
		return "dm device";
	case PA_STACK_CRYPT:
		return "crypt device";
	case PA_STACK_MD:
		return "md array";
	case PA_STACK_LV:
		return "LV";
	}
	return "device";
}

/* (x - off) mod g without underflow; g > 0 */
static uint64_t residue(uint64_t x, uint64_t g, uint64_t off)
{
	uint64_t a = x % g, b = off % g;

	return a >= b ? a - b : g - (b - a);
}

/* ---- validation ---- */

static int check_ref(const struct pa_stack *s, unsigned int self, unsigned int lower,
		     uint64_t offset, uint64_t length)
{
	uint64_t end;

	if (lower >= self)
		return -EINVAL;
	if (__builtin_add_overflow(offset, length, &end))
		return -ERANGE;
	return end > s->dev[lower].size ? -ERANGE : 0;
}

static int validate_segs(const struct pa_stack *s, unsigned int i)
{
	const struct pa_stack_dev *d = &s->dev[i];
	uint64_t prev_end = 0;
	unsigned int k, j;

	if (!d->nsegs || !d->segs)
		return -EINVAL;
	if (d->kind == PA_STACK_LV && (!d->extent_size || !d->npvs || !d->pvs))
		return -EINVAL;
	if (d->npvs > PA_STACK_FANOUT_MAX)
		return -E2BIG;
	for (k = 0; k < d->npvs; k++)
		if (d->pvs[k].dev >= i)
			return -EINVAL;
	for (k = 0; k < d->nsegs; k++) {
		const struct pa_stack_seg *g = &d->segs[k];
		uint64_t end, width, per;

		if (!g->length || !g->stripes || !g->to)
			return -EINVAL;
		if (g->stripes > PA_STACK_FANOUT_MAX)
			return -E2BIG;
		if (__builtin_add_overflow(g->start, g->length, &end))
			return -ERANGE;
		if (g->start < prev_end || end > d->size)
			return -ERANGE;
		prev_end = end;
		if (g->stripes > 1) {
			if (!g->chunk)
				return -EINVAL;
			if (__builtin_mul_overflow(g->chunk, (uint64_t)g->stripes,
						   &width))
				return -ERANGE;
			if (g->length % width)
				return -EINVAL;
		}
		per = g->length / g->stripes;
		for (j = 0; j < g->stripes; j++) {
			uint64_t off = g->to[j].offset;
			unsigned int lower = g->to[j].dev;
			int r;

			if (d->kind == PA_STACK_LV) {
				uint64_t pe;

				if (lower >= d->npvs)
					return -EINVAL;
				if (__builtin_mul_overflow(off, d->extent_size, &pe) ||
				    __builtin_add_overflow(pe, d->pvs[lower].pe_start,
							   &off))
					return -ERANGE;
				lower = d->pvs[lower].dev;
			}
			r = check_ref(s, i, lower, off, per);
			if (r)
				return r;
		}
	}
	return 0;
}

static int validate_md(const struct pa_stack *s, unsigned int i)
{
	const struct pa_stack_dev *d = &s->dev[i];
	unsigned int n = d->nmembers, k;
	uint64_t width, rows, need;

	if (!n || !d->members)
		return -EINVAL;
	if (n > PA_STACK_FANOUT_MAX)
		return -E2BIG;
	switch (d->level) {
	case 0:
		if (d->data_disks != n)
			return -EINVAL;
		break;
	case 1:
		break;
	case 4:
	case 5:
		if (n < 2 || d->data_disks != n - 1)
			return -EINVAL;
		break;
	case 6:
		if (n < 3 || d->data_disks != n - 2)
			return -EINVAL;
		break;
	case 10:
		/* both at most n, n at most PA_STACK_FANOUT_MAX: no wrap */
		if (!d->copies || d->copies > n || !d->data_disks || d->data_disks > n ||
		    d->copies * d->data_disks > n)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (d->level != 1) {
		if (!d->chunk)
			return -EINVAL;
		if (__builtin_mul_overflow(d->chunk, (uint64_t)d->data_disks, &width))
			return -ERANGE;
		/* the rows of chunks each member holds */
		if (d->level == 10) {
			uint64_t chunks = d->size / d->chunk + (d->size % d->chunk != 0);

			/* near layout: copies x chunks slots over n members */
			if (__builtin_mul_overflow(chunks, (uint64_t)d->copies, &chunks))
				return -ERANGE;
			rows = chunks / n + (chunks % n != 0);
		} else {
			rows = d->size / width + (d->size % width != 0);
		}
		if (__builtin_mul_overflow(rows, d->chunk, &need))
			return -ERANGE;
	} else {
		need = d->size;
	}
	for (k = 0; k < n; k++) {
		int r =
		    check_ref(s, i, d->members[k].dev, d->members[k].data_offset, need);

		if (r)
			return r;
	}
	return 0;
}

int stack_validate(const struct pa_stack *s, unsigned int *bad)
{
	unsigned int i;
	int r = 0;

	*bad = 0;
	if (!s || !s->dev || !s->ndevs)
		return -EINVAL;
	if (s->ndevs > PA_STACK_DEVS_MAX)
		return -E2BIG;
	for (i = 0; i < s->ndevs && !r; i++) {
		const struct pa_stack_dev *d = &s->dev[i];

		*bad = i;
		switch (d->kind) {
		case PA_STACK_DISK:
			if (d->topo.align_off < -1)
				r = -EINVAL;
			break;
		case PA_STACK_PART:
		case PA_STACK_CRYPT:
			r = check_ref(s, i, d->lower, d->offset, d->size);
			break;
		case PA_STACK_DM:
		case PA_STACK_LV:
			r = validate_segs(s, i);
			break;
		case PA_STACK_MD:
			r = validate_md(s, i);
			break;
		default:
			r = -EINVAL;
		}
	}
	return r;
}

/* ---- the walk ---- */

static int term_push_front(struct walk *w, enum pa_stack_term_kind kind, unsigned int dev,
			   uint64_t value, uint64_t count)
{
	if (w->n >= TERMS_MAX)
		return -E2BIG;
	memmove(&w->t[1], &w->t[0], w->n * sizeof(w->t[0]));
	w->t[0] = (struct term){.kind = kind, .dev = dev, .value = value, .count = count};
	w->n++;
	return 0;
}

/*
 * Entering segment @seg_start of @dev at @delta bytes into it: the summands
 * so far add up to the offset on @dev; they still explain the offset into
 * the segment only when the segment starts at 0.
 */
static void terms_rebase(struct walk *w, unsigned int dev, uint64_t seg_start,
			 uint64_t delta)
{
	if (!seg_start)
		return;
	w->n = 0;
	if (delta)
		term_push_front(w, PA_TERM_WITHIN, dev, delta, 0);
}

static int verdict_score(const struct pa_stack_verdict *v)
{
	return (v->physical == PA_VERDICT_MISALIGNED) * 4 +
	       (v->optimal == PA_VERDICT_MISALIGNED) * 2 +
	       (v->policy == PA_VERDICT_MISALIGNED);
}

static void merge(enum pa_verdict *into, enum pa_verdict v)
{
	if (v > *into)
		*into = v;
}

/* The grain judged: its kind and device; a stripe width: the chunk and data disks. */
static struct pa_reason grain_of(const struct ctx *c, enum pa_grain_kind kind,
				 unsigned int dev, uint64_t chunk, unsigned int ndata)
{
	struct pa_reason r;

	memset(&r, 0, sizeof(r));
	r.grain = kind;
	r.verdict = kind == PA_GRAIN_POLICY ? PA_RV_POLICY
		    : kind == PA_GRAIN_OPTIMAL || kind == PA_GRAIN_STRIPE
			? PA_RV_OPTIMAL
			: PA_RV_PHYSICAL;
	if (kind != PA_GRAIN_POLICY)
		r.space = stack_dev_name(c->s, dev);
	if (kind == PA_GRAIN_STRIPE) {
		r.c = chunk;
		r.ndata = ndata;
	}
	return r;
}

/* Summand @t of a walk as the one to blame in @r. */
static void blame_term(const struct pa_stack *s, const struct term *t,
		       struct pa_reason *r)
{
	r->term = t->kind;
	r->layer = stack_dev_name(s, t->dev);
	if (t->kind == PA_TERM_EXTENTS) {
		r->count = t->count;
		r->extent_size = s->dev[t->dev].extent_size;
		r->vg = s->dev[t->dev].vg;
	} else {
		r->value = t->value;
	}
}

/*
 * Judge offset @x (the sum of w's terms) of space @space against @grain,
 * counted from @off; @r is the grain (grain_of()).  A miss is blamed on the
 * last summand that took the partial sum off the grain.
 */
static enum pa_verdict judge(struct ctx *c, const struct walk *w, unsigned int space,
			     uint64_t x, uint64_t grain, uint64_t off, struct pa_reason r,
			     uint64_t fix, int sev)
{
	const struct pa_stack *s = c->s;
	struct pa_stack_verdict *v = c->v;
	uint64_t sum = 0, before = 0, base = 0;
	bool on = residue(0, grain, off) == 0;
	unsigned int k, blame = 0;

	if (!residue(x, grain, off))
		return PA_VERDICT_OK;
	for (k = 0; k < w->n; k++) {
		bool was = on;

		before = sum;
		sum += w->t[k].value; /* cannot wrap: the walk checked every sum */
		on = residue(sum, grain, off) == 0;
		if (was && !on) {
			blame = k;
			base = before;
		}
	}
	r.b = grain;
	if (!w->n) {
		r.kind = PA_REASON_BYTE0;
		r.layer = stack_dev_name(s, space);
		reason_add(&v->why, &r);
		return PA_VERDICT_MISALIGNED;
	}
	r.kind = PA_REASON_LAYER;
	blame_term(s, &w->t[blame], &r);
	r.sum = base + w->t[blame].value;
	if (blame + 1 < w->n) {
		r.lands = true;
		r.at = x;
	}
	if (blame > 0) {
		const struct term *p = &w->t[blame - 1];

		r.on = true;
		r.base_term = p->kind;
		r.base_dev = stack_dev_name(s, p->dev);
		r.base = base;
		if (p->kind != PA_TERM_PART_START && p->kind != PA_TERM_PE_START)
			r.base_word = stack_kind_word(s->dev[p->dev].kind);
		else
			r.base_term = p->kind;
	}
	reason_add(&v->why, &r);
	if (sev > c->blame_sev) {
		/* the most severe miss is the one to blame (and to advise on) */
		c->blame_sev = sev;
		v->blamed = true;
		v->blame = w->t[blame].kind;
		v->blame_dev = w->t[blame].dev;
		v->grain = grain;
		v->blame_base = base;
		v->fix_grain = fix;
	}
	return PA_VERDICT_MISALIGNED;
}

/*
 * An md array or striped segment judges the offset on itself (counted from
 * the segment): its chunk as minimum I/O, chunk x data disks as optimal, and
 * the policy grain (in bytes; a grain in sectors counts 512-byte sectors).
 */
static int judge_map(struct ctx *c, const struct walk *w, unsigned int dev, uint64_t x,
		     uint64_t chunk, unsigned int ndata)
{
	uint64_t width, fix, pol = align_policy_bytes(c->policy, 512);

	if (__builtin_mul_overflow(chunk, (uint64_t)ndata, &width))
		return -ERANGE;
	fix = align_lcm(width, pol);
	if (!fix)
		fix = width;
	merge(&c->v->physical, judge(c, w, dev, x, chunk, 0,
				     grain_of(c, PA_GRAIN_CHUNK, dev, 0, 0), fix, 4));
	merge(&c->v->optimal,
	      judge(c, w, dev, x, width, 0,
		    grain_of(c, PA_GRAIN_STRIPE, dev, chunk, ndata), fix, 2));
	if (pol)
		merge(&c->v->policy,
		      judge(c, w, dev, x, pol, 0, grain_of(c, PA_GRAIN_POLICY, dev, 0, 0),
			    fix, 1));
	return 0;
}

static void judge_disk(struct ctx *c, const struct walk *w, unsigned int disk, uint64_t x)
{
	const struct pa_stack_dev *d = &c->s->dev[disk];
	struct pa_stack_verdict *v = c->v;
	enum pa_verdict phys, opt, pol;
	uint64_t pg, og, lg, off, fix;
	bool cannot = d->topo.align_off < 0;
	struct pa_reason r;
	int score, sev;
	unsigned int k;

	pg = align_physical_grain(&d->topo);
	og = align_optimal_usable(&d->topo, d->size, &(const char *){NULL});
	lg = align_policy_bytes(c->policy, d->topo.logical);
	off = cannot ? 0 : (uint64_t)d->topo.align_off;
	fix = align_lcm(align_lcm(pg, og), lg);

	if (cannot) {
		phys = PA_VERDICT_MISALIGNED;
		r = grain_of(c, PA_GRAIN_PHYSICAL, disk, 0, 0);
		r.kind = PA_REASON_DISK_CANNOT;
		reason_add(&v->why, &r);
	} else {
		phys = judge(c, w, disk, x, pg, off,
			     grain_of(c, PA_GRAIN_PHYSICAL, disk, 0, 0), fix, 4);
	}
	if (og && cannot) {
		opt = PA_VERDICT_MISALIGNED; /* as align_check(): nothing is aligned there
					      */
	} else if (og) {
		opt = judge(c, w, disk, x, og, off,
			    grain_of(c, PA_GRAIN_OPTIMAL, disk, 0, 0), fix, 2);
	} else {
		opt = PA_VERDICT_NA;
	}
	for (k = 0; k < w->n && w->t[k].kind != PA_TERM_ROW; k++)
		;
	if (lg && k == w->n) {
		pol = judge(c, w, disk, x, lg, off,
			    grain_of(c, PA_GRAIN_POLICY, disk, 0, 0), fix, 1);
	} else {
		/* inside an md member or a stripe: the policy was judged on the array */
		pol = PA_VERDICT_NA;
	}
	if (w->chunk) {
		memset(&r, 0, sizeof(r));
		r.layer = stack_dev_name(c->s, w->chunk_dev);
		r.space = stack_dev_name(c->s, disk);
		r.a = w->chunk;
		if (w->chunk % pg) {
			phys = PA_VERDICT_MISALIGNED;
			r.kind = PA_REASON_CHUNK_SECTOR;
			r.verdict = PA_RV_PHYSICAL;
			r.b = pg;
			reason_add(&v->why, &r);
		}
		if (og && w->chunk % og && og % w->chunk) {
			opt = PA_VERDICT_MISALIGNED;
			r.kind = PA_REASON_CHUNK_STRADDLE;
			r.verdict = PA_RV_OPTIMAL;
			r.b = og;
			reason_add(&v->why, &r);
		}
		sev = w->chunk % pg ? 4 : og && w->chunk % og && og % w->chunk ? 2 : 0;
		if (sev > c->blame_sev) {
			c->blame_sev = sev;
			v->blamed = true;
			v->blame = PA_TERM_ROW;
			v->blame_dev = w->chunk_dev;
			v->grain = w->chunk % pg ? pg : og;
			v->blame_base = 0;
			v->fix_grain = align_lcm(w->chunk, v->grain);
		}
	}
	merge(&v->physical, phys);
	merge(&v->optimal, opt);
	merge(&v->policy, pol);

	score = (phys == PA_VERDICT_MISALIGNED) * 4 + (opt == PA_VERDICT_MISALIGNED) * 2 +
		(pol == PA_VERDICT_MISALIGNED);
	if (c->score < 0 || score > c->score) {
		size_t used = 0;

		c->score = score;
		v->bottom = disk;
		v->abs = x;
		v->bottom_grain = fix;
		v->path[0] = '\0';
		memcpy(v->route, w->path, w->npath * sizeof(w->path[0]));
		v->nroute = w->npath;
		for (k = w->npath; k-- > 0 && used + 1 < sizeof(v->path);) {
			snprintf(v->path + used, sizeof(v->path) - used, "%s%s",
				 stack_dev_name(c->s, w->path[k]), k ? " -> " : "");
			used = strlen(v->path);
		}
	}
}

static int descend(struct ctx *c, unsigned int dev, uint64_t x, struct walk w);
static int descend_stripe(struct ctx *c, unsigned int dev, const struct pa_stack_seg *g,
			  unsigned int i, uint64_t rowoff, struct walk w);

static const struct pa_stack_seg *seg_at(const struct pa_stack_dev *d, uint64_t x)
{
	unsigned int k;

	for (k = 0; k < d->nsegs; k++)
		if (x >= d->segs[k].start && x - d->segs[k].start < d->segs[k].length)
			return &d->segs[k];
	return NULL;
}

/* Byte @delta of a striped (or linear) segment: the stripe and the offset on it. */
static int stripe_of(const struct pa_stack_seg *g, uint64_t delta, unsigned int *i,
		     uint64_t *rowoff)
{
	uint64_t q, row;

	if (g->stripes == 1) {
		*i = 0;
		*rowoff = delta;
		return 0;
	}
	q = delta / g->chunk;
	*i = (unsigned int)(q % g->stripes);
	if (__builtin_mul_overflow(q / g->stripes, g->chunk, &row) ||
	    __builtin_add_overflow(row, delta % g->chunk, rowoff))
		return -ERANGE;
	return 0;
}

static int descend_seg(struct ctx *c, unsigned int dev, uint64_t x, struct walk w)
{
	const struct pa_stack_dev *d = &c->s->dev[dev];
	const struct pa_stack_seg *g = seg_at(d, x);
	uint64_t delta, rowoff;
	unsigned int i;
	int r;

	if (!g)
		return -ERANGE;
	delta = x - g->start;
	terms_rebase(&w, dev, g->start, delta);
	if (g->stripes > 1) {
		r = judge_map(c, &w, dev, delta, g->chunk, g->stripes);
		if (r)
			return r;
	}
	/* chunk * stripes cannot wrap: stack_validate() checked it */
	if (g->stripes > 1 && delta % (g->chunk * g->stripes) == 0) {
		/* a row start: the first chunk on every stripe */
		for (i = 0; i < g->stripes; i++) {
			r = descend_stripe(c, dev, g, i, delta / g->stripes, w);
			if (r)
				return r;
		}
		return 0;
	}
	r = stripe_of(g, delta, &i, &rowoff);
	if (r)
		return r;
	return descend_stripe(c, dev, g, i, rowoff, w);
}

/* Byte @rowoff of stripe @i of segment @g of @dev (linear: i 0, rowoff = delta). */
static int descend_stripe(struct ctx *c, unsigned int dev, const struct pa_stack_seg *g,
			  unsigned int i, uint64_t rowoff, struct walk w)
{
	const struct pa_stack_dev *d = &c->s->dev[dev];
	uint64_t base, lower_x;
	unsigned int lower;
	int r;

	if (g->stripes > 1) {
		w.n = 0;
		w.chunk = g->chunk;
		w.chunk_dev = dev;
		if (rowoff && (r = term_push_front(&w, PA_TERM_ROW, dev, rowoff, 0)))
			return r;
	}
	if (d->kind == PA_STACK_LV) {
		const struct pa_stack_pv *pv = &d->pvs[g->to[i].dev];
		uint64_t ext;

		if (__builtin_mul_overflow(g->to[i].offset, d->extent_size, &ext) ||
		    __builtin_add_overflow(pv->pe_start, ext, &base))
			return -ERANGE;
		if ((ext && (r = term_push_front(&w, PA_TERM_EXTENTS, dev, ext,
						 g->to[i].offset))) ||
		    (r = term_push_front(&w, PA_TERM_PE_START, pv->dev, pv->pe_start, 0)))
			return r;
		lower = pv->dev;
	} else {
		base = g->to[i].offset;
		if (base && (r = term_push_front(&w, PA_TERM_DM_OFFSET, dev, base, 0)))
			return r;
		lower = g->to[i].dev;
	}
	if (__builtin_add_overflow(base, rowoff, &lower_x))
		return -ERANGE;
	return descend(c, lower, lower_x, w);
}

static int descend_md(struct ctx *c, unsigned int dev, uint64_t x, struct walk w)
{
	const struct pa_stack_dev *d = &c->s->dev[dev];
	unsigned int n = d->nmembers, k;
	uint64_t q, within;
	int r;

	if (d->level == 1) {
		for (k = 0; k < n; k++) {
			struct walk m = w;
			uint64_t lx;

			if (__builtin_add_overflow(d->members[k].data_offset, x, &lx))
				return -ERANGE;
			if (d->members[k].data_offset &&
			    (r = term_push_front(&m, PA_TERM_DATA_OFFSET, dev,
						 d->members[k].data_offset, 0)))
				return r;
			r = descend(c, d->members[k].dev, lx, m);
			if (r)
				return r;
		}
		return 0;
	}
	r = judge_map(c, &w, dev, x, d->chunk, d->data_disks);
	if (r)
		return r;
	q = x / d->chunk;
	within = x % d->chunk;
	for (k = 0; k < n; k++) {
		uint64_t row, rowoff, lx;
		unsigned int member = k;
		struct walk m = w;

		if (d->level == 0) {
			/* RAID0: chunk q is on member q % n, row q / n; a row start: all
			 */
			/* chunk * n cannot wrap: stack_validate() checked chunk *
			 * data_disks */
			if (x % (d->chunk * n) && k != q % n)
				continue;
			row = q / n;
		} else if (d->level == 10) {
			/*
			 * near layout: copy c of chunk q in slot q * copies + c;
			 * at a row start, the copies of all its data_disks chunks
			 */
			uint64_t slot;

			if (k >= d->copies *
				     (x % (d->chunk * d->data_disks) ? 1 : d->data_disks))
				break;
			if (__builtin_mul_overflow(q, (uint64_t)d->copies, &slot) ||
			    __builtin_add_overflow(slot, (uint64_t)k, &slot))
				return -ERANGE;
			member = (unsigned int)(slot % n);
			row = slot / n;
		} else {
			/*
			 * RAID4/5/6: the row is q / data disks on whichever member
			 * the layout rotates it to; every member holds that row at
			 * the same place, data or parity, so all are judged.
			 */
			row = q / d->data_disks;
		}
		if (__builtin_mul_overflow(row, d->chunk, &rowoff) ||
		    __builtin_add_overflow(rowoff, within, &rowoff) ||
		    __builtin_add_overflow(rowoff, d->members[member].data_offset, &lx))
			return -ERANGE;
		m.n = 0;
		m.chunk = d->chunk;
		m.chunk_dev = dev;
		if ((rowoff && (r = term_push_front(&m, PA_TERM_ROW, dev, rowoff, 0))) ||
		    (d->members[member].data_offset &&
		     (r = term_push_front(&m, PA_TERM_DATA_OFFSET, dev,
					  d->members[member].data_offset, 0))))
			return r;
		r = descend(c, d->members[member].dev, lx, m);
		if (r)
			return r;
	}
	return 0;
}

static int descend(struct ctx *c, unsigned int dev, uint64_t x, struct walk w)
{
	const struct pa_stack_dev *d = &c->s->dev[dev];
	uint64_t lx;
	int r;

	if (w.npath > PA_STACK_DEPTH_MAX || ++c->steps > PA_STACK_STEPS_MAX)
		return -E2BIG;
	w.path[w.npath++] = dev;
	switch (d->kind) {
	case PA_STACK_DISK:
		judge_disk(c, &w, dev, x);
		return 0;
	case PA_STACK_PART:
	case PA_STACK_CRYPT:
		if (__builtin_add_overflow(d->offset, x, &lx))
			return -ERANGE;
		if (d->offset &&
		    (r = term_push_front(&w,
					 d->kind == PA_STACK_PART ? PA_TERM_PART_START
								  : PA_TERM_PAYLOAD,
					 dev, d->offset, 0)))
			return r;
		return descend(c, d->lower, lx, w);
	case PA_STACK_DM:
	case PA_STACK_LV:
		return descend_seg(c, dev, x, w);
	case PA_STACK_MD:
		return descend_md(c, dev, x, w);
	}
	return -EINVAL;
}

int stack_check_dev(const struct pa_stack *s, unsigned int dev,
		    const struct pa_grain *policy, struct pa_stack_verdict *out)
{
	const struct pa_stack_dev *d;
	unsigned int bad, k, nseg;
	int r, worst = -1;

	memset(out, 0, sizeof(*out));
	r = stack_validate(s, &bad);
	if (r)
		return r;
	if (dev >= s->ndevs)
		return -EINVAL;
	d = &s->dev[dev];
	nseg = (d->kind == PA_STACK_DM || d->kind == PA_STACK_LV) ? d->nsegs : 1;
	for (k = 0; k < nseg; k++) {
		struct pa_stack_verdict v;
		struct walk w;
		struct ctx c = {.s = s, .policy = policy, .v = &v, .score = -1};
		uint64_t x = d->kind == PA_STACK_DM || d->kind == PA_STACK_LV
				 ? d->segs[k].start
				 : 0;

		memset(&v, 0, sizeof(v));
		memset(&w, 0, sizeof(w));
		v.seg = k;
		r = descend(&c, dev, x, w);
		if (r) {
			memset(out, 0, sizeof(*out));
			return r;
		}
		if (verdict_score(&v) > worst) {
			worst = verdict_score(&v);
			*out = v;
		}
	}
	return 0;
}

bool stack_extent_ok(const struct pa_stack_dev *lv, uint64_t grain, struct pa_reason *why)
{
	if (!grain || !lv->extent_size || lv->extent_size % grain == 0)
		return true;
	if (why) {
		memset(why, 0, sizeof(*why));
		why->kind = PA_REASON_EXTENT_SIZE;
		why->a = lv->extent_size;
		why->vg = lv->vg;
		why->b = grain;
	}
	return false;
}
