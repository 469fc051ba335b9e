/*
 * The Oracle ASM audit (core/asm-audit.h): one row per device whose first
 * block holds an ASM header or ASMLib label, the findings of each device on
 * its own (damage, a table over the header, the backup, the sector size, the
 * allocation unit, a truncated disk), then those across devices (one ASM
 * disk on several devices, a disk group mixing sector sizes).  The words
 * are reason.c's.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/asm-audit.h"
#include "core/exitcodes.h"

const char *asm_audit_devname(const struct pa_dev *d)
{
	return d->dm_name ? d->dm_name : d->name;
}

/*
 * Which device of one ASM disk ASM should see: a multipath map (or its kpartx
 * partition) first, then a disk or partition, then a device stacked on one
 * (a loop device over a block device, a dm device), a multipath path last.
 */
static unsigned int rank_of(const struct pa_dev *d)
{
	const struct pa_dev *w = d->kind == PA_KIND_PART && d->disk ? d->disk : d;

	if (d->is_path)
		return 3;
	if (w->kind == PA_KIND_MPATH)
		return 0;
	if ((d->kind == PA_KIND_LOOP && d->backing_file &&
	     strncmp(d->backing_file, "/dev/", 5) == 0) ||
	    d->kind == PA_KIND_DM || d->kind == PA_KIND_LVM || d->kind == PA_KIND_CRYPT)
		return 2;
	return 1;
}

static struct pa_reason *add(struct pa_asm_row *r, enum pa_reason_kind kind, int bit)
{
	struct pa_reason *x;

	if (r->why.n >= PA_REASONS_MAX)
		return NULL;
	x = &r->why.r[r->why.n++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->verdict = PA_RV_ASM;
	x->layer = r->h->dskname[0] ? r->h->dskname : r->h->label;
	x->vg = r->h->grpname;
	r->exit |= bit;
	return x;
}

/* "a, b" into @buf: the fields of @mask. */
static void field_list(unsigned int mask, char *buf, size_t len)
{
	unsigned int i;
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i < ASMHDR_F_COUNT; i++)
		if (mask & (1u << i))
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
						 "%s%s", used ? ", " : "",
						 asmhdr_field_name(1u << i));
}

/* The findings of one device on its own. */
static void own_findings(struct pa_asm_row *r)
{
	const struct pa_dev *d = r->d;
	const struct pa_asm *a = d->asm_hdr;
	const struct asm_hdr *h = r->h;
	struct pa_reason *x;
	bool backup_ok = a->backup_tried && a->backup.read &&
			 asmhdr_is_header(&a->backup.h) &&
			 asmhdr_compare(h, &a->backup.h) == 0;

	if (h->kind == ASMHDR_DAMAGED &&
	    (x = add(r, PA_REASON_ASM_DAMAGED, PA_EXIT_ASM))) {
		asmhdr_bad_text(h, r->words, sizeof(r->words));
		x->base_word = r->words;
	}
	if (a->table != ASMHDR_TABLE_NONE && asmhdr_is_header(h) &&
	    (x = add(r, PA_REASON_ASM_TABLE, PA_EXIT_ASM))) {
		x->base_word = asmhdr_table_name(a->table);
		x->count = a->backup.block;
		x->a = a->backup.offset;
		x->b = h->ausize;
		x->value = backup_ok;
		x->space = r->shown;
	}
	if (h->kind != ASMHDR_HEADER)
		return;
	if (a->table == ASMHDR_TABLE_NONE && a->backup_tried && a->backup.read &&
	    (!asmhdr_is_header(&a->backup.h) || !backup_ok) &&
	    (x = add(r, PA_REASON_ASM_BACKUP, PA_EXIT_ASM))) {
		x->count = a->backup.block;
		x->a = a->backup.offset;
		x->value = asmhdr_is_header(&a->backup.h) ? 2 : 1;
		if (x->value == 2) {
			field_list(asmhdr_compare(h, &a->backup.h), r->words,
				   sizeof(r->words));
			x->base_word = r->words;
		}
	}
	if (!r->member)
		return;
	if ((uint64_t)h->dsksize * h->ausize > d->size &&
	    (x = add(r, PA_REASON_ASM_TRUNCATED, PA_EXIT_ASM))) {
		x->a = h->dsksize;
		x->b = h->ausize;
		x->c = d->size;
	}
	if (d->topo.logical && h->secsize != d->topo.logical &&
	    (x = add(r, PA_REASON_ASM_SECSIZE, PA_EXIT_ASM))) {
		x->a = h->secsize;
		x->b = d->topo.logical;
	}
	if (d->kind == PA_KIND_PART && d->start_known && d->start % h->ausize &&
	    (x = add(r, PA_REASON_ASM_OFF_AU, PA_EXIT_MISALIGNED))) {
		x->a = d->start % h->ausize;
		x->b = h->ausize;
	}
}

bool asm_audit_same_disk(const struct pa_asm_row *x, const struct pa_asm_row *y)
{
	const struct asm_hdr *a = x->h, *b = y->h;

	if (asmhdr_is_header(a) && asmhdr_is_header(b))
		return a->dskname[0] && a->dsknum == b->dsknum &&
		       strcmp(a->dskname, b->dskname) == 0 &&
		       strcmp(a->grpname, b->grpname) == 0;
	return a->kind == ASMHDR_LABEL && b->kind == ASMHDR_LABEL && a->label[0] &&
	       strcmp(a->label, b->label) == 0;
}

static void append(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used + strlen(s) + 6 >= len) {
		if (used + 5 < len && !strstr(buf, "..."))
			snprintf(buf + used, len - used, ", ...");
		return;
	}
	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s);
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a, b" of @names (@n of them) by name into @buf. */
static void name_list(const char **names, size_t n, char *buf, size_t len)
{
	size_t i;

	qsort(names, n, sizeof(names[0]), cmp_names);
	for (i = 0; i < n; i++)
		append(buf, len, names[i]);
}

/* One ASM disk on several devices: each names the others and the one to use. */
static void duplicates(struct pa_asm_audit *a)
{
	const char *names[32];
	size_t i, j, k;

	for (i = 0; i < a->n; i++) {
		struct pa_asm_row *r = &a->v[i];
		const struct pa_asm_row *best = r;
		size_t nbest = 1;
		struct pa_reason *x;

		for (j = 0, k = 0; j < a->n; j++) {
			const struct pa_asm_row *o = &a->v[j];

			if (j == i || !asm_audit_same_disk(r, o))
				continue;
			if (k < sizeof(names) / sizeof(names[0]))
				names[k++] = asm_audit_devname(o->d);
			if (o->rank < best->rank) {
				best = o;
				nbest = 1;
			} else if (o->rank == best->rank) {
				nbest++;
			}
		}
		if (!k || !(x = add(r, PA_REASON_ASM_DUPLICATE, PA_EXIT_ASM)))
			continue;
		/* by name: the same words whatever the order of the scan */
		name_list(names, k, r->others, sizeof(r->others));
		x->base_dev = r->others;
		if (nbest == 1) {
			r->use = best->d;
			snprintf(r->use_path, sizeof(r->use_path), "%s", best->shown);
			x->space = r->use_path;
		}
	}
}

/* A disk group's members (one device per ASM disk) on two sector sizes. */
static void mixed_sizes(struct pa_asm_audit *a)
{
	const char *names[2][32];
	size_t i, j, k[2];

	for (i = 0; i < a->n; i++) {
		struct pa_asm_row *r = &a->v[i];
		uint32_t sz[2] = {0, 0};
		struct pa_reason *x;
		int lo;

		if (!r->member)
			continue;
		k[0] = k[1] = 0;
		for (j = 0; j < a->n; j++) {
			const struct pa_asm_row *o = &a->v[j];
			uint32_t s = o->d->topo.logical;
			int w = !sz[0] || s == sz[0] ? 0 : !sz[1] || s == sz[1] ? 1 : -1;

			if (!o->member || strcmp(o->h->grpname, r->h->grpname) || !s ||
			    w < 0)
				continue;
			sz[w] = s;
			if (k[w] < 32)
				names[w][k[w]++] = asm_audit_devname(o->d);
		}
		if (!sz[1] || !(x = add(r, PA_REASON_ASM_MIXED, PA_EXIT_ASM)))
			continue;
		/* the smaller size first, whatever the order of the scan */
		lo = sz[0] < sz[1] ? 0 : 1;
		name_list(names[lo], k[lo], r->sizes[0], sizeof(r->sizes[0]));
		name_list(names[!lo], k[!lo], r->sizes[1], sizeof(r->sizes[1]));
		x->a = sz[lo];
		x->b = sz[!lo];
		x->base_dev = r->sizes[0];
		x->space = r->sizes[1];
	}
}

int asm_audit_run(const struct pa_devlist *l, struct pa_asm_audit *a)
{
	size_t i, n = 0;

	a->v = NULL;
	a->n = 0;
	for (i = 0; i < l->n; i++)
		n += asmhdr_found(l->v[i]->asm_hdr);
	if (!n)
		return 0;
	a->v = calloc(n, sizeof(*a->v));
	if (!a->v)
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];
		struct pa_asm_row *r;

		if (!asmhdr_found(d->asm_hdr))
			continue;
		r = &a->v[a->n++];
		r->d = d;
		r->h = &d->asm_hdr->first.h;
		r->status = asmhdr_shown_status(r->h);
		r->member =
		    r->h->kind == ASMHDR_HEADER && r->h->hdrsts == ASMHDR_ST_MEMBER;
		r->rank = rank_of(d);
		r->why.form = PA_REASONS_PLAIN;
		if (d->dm_name)
			snprintf(r->shown, sizeof(r->shown), "/dev/mapper/%s",
				 d->dm_name);
		else
			snprintf(r->shown, sizeof(r->shown), "%s", d->path);
		own_findings(r);
	}
	duplicates(a);
	mixed_sizes(a);
	return 0;
}

void asm_audit_free(struct pa_asm_audit *a)
{
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

const struct pa_asm_row *asm_audit_row(const struct pa_asm_audit *a,
				       const struct pa_dev *d)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->v[i].d == d)
			return &a->v[i];
	return NULL;
}

int asm_audit_cmp(const struct pa_asm_row *x, const struct pa_asm_row *y)
{
	const char *gx = x->h->grpname, *gy = y->h->grpname;
	int c;

	/* the disks of a group first, those without one after */
	if (!*gx != !*gy)
		return *gx ? -1 : 1;
	if ((c = strcmp(gx, gy)) != 0)
		return c;
	if (asmhdr_is_header(x->h) && asmhdr_is_header(y->h) &&
	    x->h->dsknum != y->h->dsknum)
		return x->h->dsknum < y->h->dsknum ? -1 : 1;
	if ((c = strcmp(x->h->dskname, y->h->dskname)) != 0)
		return c;
	if ((c = strcmp(x->h->label, y->h->label)) != 0)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(asm_audit_devname(x->d), asm_audit_devname(y->d));
}

/* An identifier as ASM writes them in SQL: letters, digits, _, $ and #. */
static bool sql_identifier(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$' && *s != '#')
			return false;
	return true;
}

int asm_audit_advice(const struct pa_asm_row *r, char *buf, size_t len)
{
	const struct asm_hdr *h = r->h;

	if (!r->member || !sql_identifier(h->grpname) || !sql_identifier(h->dskname))
		return -EINVAL;
	snprintf(buf, len,
		 "partition a new disk on the grain (partalign fix --new), name it "
		 "for ASM (partalign rules), then as SYSASM: ALTER DISKGROUP %s ADD "
		 "DISK '<new path>' DROP DISK %s REBALANCE POWER %d;",
		 h->grpname, h->dskname, ASM_AUDIT_POWER);
	return 0;
}
