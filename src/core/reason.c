/*
 * The words of the reasons (core/reason.h): the one place where a verdict's
 * reason becomes text.  The checks (align.c, stack.c, layers.c) record kinds
 * and numbers; everything that prints a reason renders it here.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/reason.h"
#include "core/units.h"

void reason_add(struct pa_reasons *l, const struct pa_reason *r)
{
	unsigned int i;

	l->form = PA_REASONS_WALK;
	for (i = 0; i < l->n; i++)
		if (memcmp(&l->r[i], r, sizeof(*r)) == 0)
			return;
	if (l->n + 1 < PA_REASONS_ADD_MAX) {
		l->r[l->n++] = *r;
		return;
	}
	if (l->n + 1 == PA_REASONS_ADD_MAX) {
		memset(&l->r[l->n], 0, sizeof(l->r[l->n]));
		l->r[l->n].kind = PA_REASON_MORE;
		l->n++;
	}
}

const char *reason_verdict_word(enum pa_reason_verdict v)
{
	switch (v) {
	case PA_RV_PHYSICAL:
		return "physical";
	case PA_RV_OPTIMAL:
		return "optimal";
	case PA_RV_POLICY:
		return "policy";
	case PA_RV_ASM:
		return "asm";
	case PA_RV_NONE:
		break;
	}
	return "";
}

const char *reason_opt_why_text(enum pa_opt_why w)
{
	switch (w) {
	case PA_OPT_FFFF:
		return "0xffff sectors, a controller error";
	case PA_OPT_NOT_PHYS:
		return "not a multiple of the physical sector and minimum I/O";
	case PA_OPT_IMPLAUSIBLE:
		return "implausibly large";
	case PA_OPT_ABSENT:
		break;
	}
	return "";
}

static const char *kind_name(const char *s)
{
	return s ? s : "?";
}

/* The summand of a stacked offset: "partition vda1 at 1 MiB", "pe_start 1 MiB" */
static void term_text(const struct pa_reason *r, char *buf, size_t len)
{
	const char *n = kind_name(r->layer);
	char a[32], b[32];

	units_exact(r->value, a, sizeof(a));
	switch (r->term) {
	case PA_TERM_PART_START:
		snprintf(buf, len, "partition %s at %s", n, a);
		break;
	case PA_TERM_DM_OFFSET:
		snprintf(buf, len, "table offset %s of %s", a, n);
		break;
	case PA_TERM_PAYLOAD:
		snprintf(buf, len, "payload offset %s of %s", a, n);
		break;
	case PA_TERM_DATA_OFFSET:
		snprintf(buf, len, "data offset %s of %s", a, n);
		break;
	case PA_TERM_ROW:
		snprintf(buf, len, "chunk rows %s of %s", a, n);
		break;
	case PA_TERM_PE_START:
		snprintf(buf, len, "pe_start %s", a);
		break;
	case PA_TERM_EXTENTS:
		snprintf(buf, len, "extent %" PRIu64 " x %s of VG %s", r->count,
			 units_exact(r->extent_size, b, sizeof(b)), r->vg ? r->vg : "?");
		break;
	case PA_TERM_WITHIN:
		snprintf(buf, len, "offset %s into %s", a, n);
		break;
	}
}

/* The grain a stacked offset missed: "optimal I/O of vda", "policy grain" */
static void grain_text(const struct pa_reason *r, char *buf, size_t len)
{
	const char *n = kind_name(r->space);
	char a[32];

	switch (r->grain) {
	case PA_GRAIN_PHYSICAL:
		snprintf(buf, len, "physical sector and minimum I/O of %s", n);
		break;
	case PA_GRAIN_OPTIMAL:
		snprintf(buf, len, "optimal I/O of %s", n);
		break;
	case PA_GRAIN_POLICY:
		snprintf(buf, len, "policy grain");
		break;
	case PA_GRAIN_CHUNK:
		snprintf(buf, len, "chunk of %s", n);
		break;
	case PA_GRAIN_STRIPE:
		snprintf(buf, len, "stripe width (%u x %s chunk) of %s", r->ndata,
			 units_exact(r->c, a, sizeof(a)), n);
		break;
	}
}

/* A summand of a stack that takes the offset off a grain. */
static void layer_text(const struct pa_reason *r, char *buf, size_t len)
{
	char g[32], at[32], t1[128], t0[128], what[96], s2[32], b[32];

	units_exact(r->b, g, sizeof(g));
	units_exact(r->at, at, sizeof(at));
	grain_text(r, what, sizeof(what));
	term_text(r, t1, sizeof(t1));
	if (!r->on) {
		snprintf(buf, len, "%s: %s is no multiple of the %s %s%s%s%s", t1,
			 units_exact(r->sum, t0, sizeof(t0)), g, what,
			 r->lands ? " (the segment lands at " : "", r->lands ? at : "",
			 r->lands ? ")" : "");
		return;
	}
	units_exact(r->base, b, sizeof(b));
	if (r->base_term == PA_TERM_PART_START)
		snprintf(t0, sizeof(t0), "partition %s at %s", kind_name(r->base_dev), b);
	else if (r->base_term == PA_TERM_PE_START)
		snprintf(t0, sizeof(t0), "PE 0 of the PV on %s at %s",
			 kind_name(r->base_dev), b);
	else
		snprintf(t0, sizeof(t0), "%s %s at %s", r->base_word,
			 kind_name(r->base_dev), b);
	snprintf(buf, len, "%s on %s: %s is no multiple of the %s %s%s%s%s", t1, t0,
		 units_exact(r->sum, s2, sizeof(s2)), g, what,
		 r->lands ? " (the segment lands at " : "", r->lands ? at : "",
		 r->lands ? ")" : "");
}

/* "disk DATA_0001 of DATA" */
static void asm_disk(const struct pa_reason *r, char *buf, size_t len)
{
	if (r->layer && *r->layer && r->vg && *r->vg)
		snprintf(buf, len, "disk %s of %s", r->layer, r->vg);
	else if (r->layer && *r->layer)
		snprintf(buf, len, "disk %s", r->layer);
	else
		snprintf(buf, len, "the disk");
}

/* The backup's place: "the backup in AU 1 block 254 (byte 2088960)" */
static void asm_backup(const struct pa_reason *r, char *buf, size_t len)
{
	snprintf(buf, len, "the backup in AU 1 block %" PRIu64 " (byte %" PRIu64 ")",
		 r->count, r->a);
}

/* The words of the Oracle ASM findings (core/asm-audit.c). */
static void asm_text(const struct pa_reason *r, char *buf, size_t len)
{
	char d[96], bk[96], a[32], b[32], c[32], au[48] = "";

	asm_disk(r, d, sizeof(d));
	asm_backup(r, bk, sizeof(bk));
	switch (r->kind) {
	case PA_REASON_ASM_MIXED:
		snprintf(buf, len,
			 "disk group %s mixes %" PRIu64 "-byte (%s) and %" PRIu64
			 "-byte (%s) logical sectors: ASM refuses that (ORA-15085)",
			 kind_name(r->vg), r->a, kind_name(r->base_dev), r->b,
			 kind_name(r->space));
		break;
	case PA_REASON_ASM_SECSIZE:
		snprintf(buf, len,
			 "%s: the header says %" PRIu64
			 "-byte sectors, the kernel %" PRIu64 " (ORA-15085)",
			 d, r->a, r->b);
		break;
	case PA_REASON_ASM_DUPLICATE:
		if (r->space)
			snprintf(
			    buf, len,
			    "%s is also on %s: ASM must see it only as %s (ORA-15020)", d,
			    kind_name(r->base_dev), r->space);
		else
			snprintf(buf, len,
				 "%s is also on %s: ASM must see only one of them "
				 "(ORA-15020)",
				 d, kind_name(r->base_dev));
		break;
	case PA_REASON_ASM_TABLE:
		if (r->b != 1048576)
			snprintf(au, sizeof(au), " ausz=%" PRIu64, r->b);
		if (r->value)
			snprintf(buf, len,
				 "a %s partition table is written over the header of %s: "
				 "%s holds it ('kfed repair %s%s' restores it)",
				 kind_name(r->base_word), d, bk, kind_name(r->space), au);
		else
			snprintf(buf, len,
				 "a %s partition table is written over the header of %s, "
				 "and %s holds no copy of it",
				 kind_name(r->base_word), d, bk);
		break;
	case PA_REASON_ASM_OFF_AU:
		snprintf(buf, len, "%s starts %s past a %s allocation unit boundary", d,
			 units_exact(r->a, a, sizeof(a)),
			 units_exact(r->b, b, sizeof(b)));
		break;
	case PA_REASON_ASM_BACKUP:
		if (r->value == 2)
			snprintf(buf, len, "%s differs from the header in %s", bk,
				 kind_name(r->base_word));
		else
			snprintf(buf, len, "%s %s", bk,
				 r->value ? "holds no copy of the header"
					  : "could not be read");
		break;
	case PA_REASON_ASM_TRUNCATED:
		snprintf(buf, len,
			 "the header says %" PRIu64 " allocation units of %s, the device "
			 "holds %s: ASM cannot mount a truncated disk (ORA-15036)",
			 r->a, units_exact(r->b, b, sizeof(b)),
			 units_exact(r->c, c, sizeof(c)));
		break;
	case PA_REASON_ASM_DAMAGED:
		snprintf(buf, len, "the ASM header is damaged: %s",
			 kind_name(r->base_word));
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

void reason_text(const struct pa_reason *r, char *buf, size_t len)
{
	char a[32], b[32], c[32], what[96];

	if (!len)
		return;
	buf[0] = '\0';
	switch (r->kind) {
	case PA_REASON_OFF_GRAIN:
		units_exact(r->a, a, sizeof(a));
		units_exact(r->b, b, sizeof(b));
		if (r->c)
			snprintf(buf, len, "%s past a %s boundary (alignment offset %s)",
				 a, b, units_exact(r->c, c, sizeof(c)));
		else
			snprintf(buf, len, "%s past a %s boundary", a, b);
		break;
	case PA_REASON_CANNOT_ALIGN:
		snprintf(buf, len, "the kernel reports alignment offset -1%s",
			 r->verdict == PA_RV_PHYSICAL
			     ? " (the device stack cannot be aligned)"
			     : "");
		break;
	case PA_REASON_KERNEL_OFFSET:
		snprintf(buf, len,
			 "the kernel reports alignment_offset %" PRId64
			 ", expected %" PRId64,
			 r->s1, r->s2);
		break;
	case PA_REASON_OPT_IGNORED:
		snprintf(buf, len, "%" PRIu64 " B ignored (%s)", r->a,
			 reason_opt_why_text(r->opt_why));
		break;
	case PA_REASON_OPT_ABSENT:
		snprintf(buf, len, "the device reports no optimal I/O size");
		break;
	case PA_REASON_STACKED_UNKNOWN:
		snprintf(buf, len,
			 "stacked device, its place on the disk below is not known %s",
			 r->verdict == PA_RV_OPTIMAL
			     ? "(the kernel's offset is on the physical grain only)"
			     : "(physical uses the kernel's offset)");
		break;
	case PA_REASON_GRAIN_UNUSABLE: {
		struct pa_grain g = {.value = r->a, .sectors = r->sectors};

		snprintf(buf, len, "grain %s is not a multiple of the %s logical sector",
			 units_grain(&g, a, sizeof(a)), units_exact(r->b, b, sizeof(b)));
		break;
	}
	case PA_REASON_WHOLE:
		snprintf(buf, len, "whole device %s: aligned by construction",
			 r->a ? "with a partition table but no partition"
			      : "without a partition table");
		break;
	case PA_REASON_LAYER:
		layer_text(r, buf, len);
		break;
	case PA_REASON_BYTE0:
		grain_text(r, what, sizeof(what));
		snprintf(buf, len, "byte 0 of %s is no multiple of the %s %s",
			 kind_name(r->layer), units_exact(r->b, b, sizeof(b)), what);
		break;
	case PA_REASON_DISK_CANNOT:
		snprintf(buf, len, "%s: the kernel reports alignment offset -1",
			 kind_name(r->space));
		break;
	case PA_REASON_CHUNK_SECTOR:
		snprintf(buf, len,
			 "chunk %s of %s is no multiple of the %s physical sector and "
			 "minimum I/O of %s",
			 units_exact(r->a, a, sizeof(a)), kind_name(r->layer),
			 units_exact(r->b, b, sizeof(b)), kind_name(r->space));
		break;
	case PA_REASON_CHUNK_STRADDLE:
		snprintf(buf, len, "chunk %s of %s straddles the %s optimal I/O of %s",
			 units_exact(r->a, a, sizeof(a)), kind_name(r->layer),
			 units_exact(r->b, b, sizeof(b)), kind_name(r->space));
		break;
	case PA_REASON_NO_OPT:
		snprintf(buf, len, "%s reports no usable optimal I/O size",
			 r->space ? r->space : "the disk");
		break;
	case PA_REASON_EXTENT_SIZE:
		snprintf(
		    buf, len,
		    "extent size %s of VG %s is no multiple of the %s grain: every LV "
		    "after the first extents walks off it",
		    units_exact(r->a, a, sizeof(a)), r->vg ? r->vg : "?",
		    units_exact(r->b, b, sizeof(b)));
		break;
	case PA_REASON_MORE:
		snprintf(buf, len, "...");
		break;
	case PA_REASON_ASM_MIXED:
	case PA_REASON_ASM_SECSIZE:
	case PA_REASON_ASM_DUPLICATE:
	case PA_REASON_ASM_TABLE:
	case PA_REASON_ASM_OFF_AU:
	case PA_REASON_ASM_BACKUP:
	case PA_REASON_ASM_TRUNCATED:
	case PA_REASON_ASM_DAMAGED:
		asm_text(r, buf, len);
		break;
	}
}

/* ---- composing the clauses ---- */

struct out {
	char *buf;
	size_t len;
	struct pa_reason_span *spans;
	unsigned int nspans;
};

static void span(struct out *o, size_t from, enum pa_reason_verdict label)
{
	size_t end = strlen(o->buf);

	if (o->spans && o->nspans < PA_REASON_SPANS_MAX && end > from)
		o->spans[o->nspans++] = (struct pa_reason_span){
		    .off = from, .len = end - from, .label = label};
}

/* One clause "label: words" after "; ", cut where the text ends. */
static void plain_add(struct out *o, const struct pa_reason *r)
{
	size_t used = strlen(o->buf), n;
	enum pa_reason_verdict label =
	    r->kind == PA_REASON_WHOLE ? PA_RV_NONE : r->verdict;

	if (used && used + 2 < o->len) {
		memcpy(o->buf + used, "; ", 3);
		used += 2;
	}
	if (used >= o->len - 1)
		return;
	n = (size_t)snprintf(o->buf + used, o->len - used, "%s%s",
			     reason_verdict_word(label), label ? ": " : "");
	if (used + n < o->len - 1)
		reason_text(r, o->buf + used + n, o->len - used - n);
	span(o, used, label);
}

/*
 * The walk's clauses as they fit in PA_REASON_TEXT_MAX ("; ..." once for
 * those that do not): which of them, in order, into @keep (-1: "...").
 */
static unsigned int walk_fit(const struct pa_reasons *l, unsigned int nwalk, int *keep)
{
	char piece[PA_REASON_TEXT_MAX];
	size_t used = 0, n;
	unsigned int i, k = 0;
	bool more = false;

	for (i = 0; i < nwalk; i++) {
		if (l->r[i].kind == PA_REASON_MORE) {
			n = PA_REASON_TEXT_MAX; /* no room, whatever the words */
		} else {
			reason_text(&l->r[i], piece, sizeof(piece));
			n = strlen(piece);
		}
		if (used + 2 + n >= PA_REASON_TEXT_MAX) {
			if (!more && used + 5 < PA_REASON_TEXT_MAX) {
				keep[k++] = -1;
				used += 5;
				more = true;
			}
			continue;
		}
		used += (used ? 2 : 0) + n;
		keep[k++] = (int)i;
		more = false;
	}
	return k;
}

static void walk_item(struct out *o, const struct pa_reasons *l, int i, const char *sep,
		      const char *label, enum pa_reason_verdict lv)
{
	char words[PA_REASON_TEXT_MAX];
	size_t used = strlen(o->buf);

	if (i < 0)
		snprintf(words, sizeof(words), "...");
	else
		reason_text(&l->r[i], words, sizeof(words));
	snprintf(o->buf + used, o->len - used, "%s%s%s", sep, label, words);
	span(o, used + strlen(sep), lv);
}

/* The walk's clauses, the one about the worst verdict first and labelled. */
static void stacked_render(struct out *o, const struct pa_reasons *l)
{
	int keep[PA_REASONS_MAX + 1];
	unsigned int k = walk_fit(l, l->nwalk, keep), i, pick = 0;
	enum pa_reason_verdict want = l->worst;
	char note[256], words[PA_REASON_TEXT_MAX];
	size_t used;

	if (k) {
		for (i = 0; i < k; i++)
			if (keep[i] >= 0 && l->r[keep[i]].verdict == want) {
				pick = i;
				break;
			}
		snprintf(words, sizeof(words), "%s: ", reason_verdict_word(want));
		walk_item(o, l, keep[pick], "", words, want);
		for (i = 0; i < k; i++)
			if (i != pick)
				walk_item(o, l, keep[i], "; ", "", PA_RV_NONE);
	}
	for (i = l->nwalk; i < l->n; i++) {
		const struct pa_reason *r = &l->r[i];
		bool opt = r->kind == PA_REASON_NO_OPT;

		if (r->kind == PA_REASON_EXTENT_SIZE)
			reason_text(r, note, sizeof(note));
		else
			reason_text(r, words, sizeof(words));
		used = strlen(o->buf);
		snprintf(o->buf + used, o->len - used, "%s%s%s", used ? "; " : "",
			 opt ? "optimal: " : "", opt ? words : note);
		span(o, used + (used ? 2 : 0), opt ? PA_RV_OPTIMAL : PA_RV_NONE);
	}
}

size_t reason_render(const struct pa_reasons *l, char *buf, size_t len,
		     struct pa_reason_span *spans, unsigned int *nspans)
{
	char text[PA_REASON_TEXT_MAX] = "";
	struct out o = {.buf = text, .len = sizeof(text), .spans = spans};
	unsigned int i;

	if (l->form == PA_REASONS_STACKED) {
		stacked_render(&o, l);
	} else if (l->form == PA_REASONS_WALK) {
		int keep[PA_REASONS_MAX + 1];
		unsigned int k = walk_fit(l, l->n, keep);

		for (i = 0; i < k; i++)
			walk_item(&o, l, keep[i], i ? "; " : "", "", PA_RV_NONE);
	} else {
		for (i = 0; i < l->n; i++)
			plain_add(&o, &l->r[i]);
	}
	if (nspans)
		*nspans = o.nspans;
	if (len)
		snprintf(buf, len, "%s", text);
	return strlen(text);
}
