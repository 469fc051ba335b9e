/*
 * A scanned device through the layers below it (issue #15): the storage
 * stack built from the device list (partitions, dm tables, LVM PVs and
 * extents read with --probe, md arrays) as core/stack.h describes it,
 * judged by stack.c, and the stripe geometry of the file system on top.
 * The stack is built in one allocation per call and freed before return;
 * the names in a verdict's reasons point into the device list.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/layers.h"
#include "core/stack-advise.h"

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
	const struct pa_dm_table *t = d->dm_table;
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
				      strcmp(lo->lvm_vg ? lo->lvm_vg : "",
					     first->lvm_vg ? first->lvm_vg : "") != 0))
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
	sd->vg = first->lvm_vg ? first->lvm_vg : "";
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
		const struct pa_dm_table *t = d->dm_table;
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

/* The verdict a stack's reason leads with: the worst one missed. */
static enum pa_reason_verdict worst_of(const struct pa_stack_verdict *v)
{
	return v->physical == PA_VERDICT_MISALIGNED  ? PA_RV_PHYSICAL
	       : v->optimal == PA_VERDICT_MISALIGNED ? PA_RV_OPTIMAL
						     : PA_RV_POLICY;
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

int layers_check(const struct pa_devlist *l, const struct pa_dev *d,
		 const struct pa_grain *policy, struct pa_check *out)
{
	struct stack_build *b = NULL;
	struct pa_stack_verdict v;
	struct pa_stack s;
	struct pa_reason note;
	unsigned int top;
	const char *bottom = NULL;
	bool extent = false;
	unsigned int k;
	size_t n = 0;
	int r = stack_judge(l, d, policy, &b, &s, &top, &v);

	if (r == 0) {
		bottom = b->dev[v.bottom].name; /* owned by @l */
		extent = b->dev[top].kind == PA_STACK_LV &&
			 !stack_extent_ok(&b->dev[top], v.bottom_grain, &note);
		/* "vda>vda1>dm-2": the disk first */
		out->layers[0] = '\0';
		for (k = v.nroute; k-- > 0 && n + 1 < sizeof(out->layers);) {
			snprintf(out->layers + n, sizeof(out->layers) - n, "%s%s",
				 stack_dev_name(&s, v.route[k]), k ? ">" : "");
			n += strlen(out->layers + n);
		}
	}
	free(b);
	if (r)
		return r;
	out->physical = v.physical;
	out->optimal = v.optimal;
	out->policy = v.policy;
	out->stack_known = true;
	out->abs_start = v.abs;
	out->why = v.why;
	out->why.form = PA_REASONS_STACKED;
	out->why.nwalk = v.why.n;
	out->why.worst = worst_of(&v);
	if (v.optimal == PA_VERDICT_NA) {
		struct pa_reason *no = &out->why.r[out->why.n++];

		memset(no, 0, sizeof(*no));
		no->kind = PA_REASON_NO_OPT;
		no->verdict = PA_RV_OPTIMAL;
		no->space = bottom;
	}
	if (extent)
		out->why.r[out->why.n++] = note;
	return 0;
}

int layers_advise(const struct pa_devlist *l, const struct pa_dev *d,
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

enum pa_verdict layers_check_fs(const struct pa_dev *d, char *reason, size_t len,
				char *fix, size_t fixlen, struct pa_fs_clauses *cl)
{
	struct pa_fs_geom g = {0};
	uint64_t size = d->disk ? d->disk->size : d->size;
	const char *why;

	if (len)
		reason[0] = '\0';
	if (fix && fixlen)
		fix[0] = '\0';
	if (cl)
		cl->n = 0;
	if (!d->fs_geom_known)
		return PA_VERDICT_NA;
	g.fs = d->fs_name;
	g.unit = d->fs_unit;
	g.width = d->fs_width;
	g.blocksize = d->fs_blocksize;
	return stack_fs_check(&g, d->topo.min_io,
			      align_optimal_usable(&d->topo, size, &why), reason, len,
			      fix, fixlen, cl);
}
