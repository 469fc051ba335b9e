/*
 * Plan computation.  Partitions keep their on-disk order and their numbers;
 * a partition already on the placement grain and clear of its predecessor
 * stays where it is (so a second run changes nothing), every other one
 * starts at the next grain boundary after the previous end.  Sizes are kept
 * where the disk allows and rounded down to the grain otherwise.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/units.h"

#define GPT_ENTRIES_BYTES (128u * 128u)
#define MSDOS_MAX_SECTORS (1ull << 32)

const char *plan_step_name(enum pa_step_kind k)
{
	switch (k) {
	case PA_STEP_KEEP:
		return "keep";
	case PA_STEP_RECREATE:
		return "recreate";
	case PA_STEP_CREATE:
		return "create";
	case PA_STEP_DROP:
		return "drop";
	case PA_STEP_MOVE:
		return "move";
	}
	return "unknown";
}

bool plan_moves_data(const struct pa_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].kind == PA_STEP_MOVE)
			return true;
	return false;
}

const char *plan_label_name(enum pa_label l)
{
	switch (l) {
	case PA_LABEL_GPT:
		return "gpt";
	case PA_LABEL_MSDOS:
		return "dos";
	case PA_LABEL_OTHER:
		return "other";
	case PA_LABEL_NONE:
		break;
	}
	return "none";
}

void plan_label_range(enum pa_label label, uint64_t size, uint32_t logical,
		      uint64_t *first, uint64_t *last)
{
	uint64_t entries = (GPT_ENTRIES_BYTES + logical - 1) / logical * logical;

	if (label == PA_LABEL_MSDOS) {
		*first = logical;
		if (size / logical > MSDOS_MAX_SECTORS)
			size = MSDOS_MAX_SECTORS * logical;
		*last = size - 1;
		return;
	}
	/* GPT: protective MBR, header, entries; at the end entries and header */
	*first = 2ull * logical + entries;
	*last = size > *first + logical + entries ? size - logical - entries - 1 : 0;
}

int plan_table_add(struct pa_table *t, const struct pa_entry *e)
{
	struct pa_entry *v = realloc(t->v, (t->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->v = v;
	t->v[t->n++] = *e;
	return 0;
}

void plan_table_free(struct pa_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].type);
		free(t->v[i].uuid);
		free(t->v[i].signature);
	}
	free(t->v);
	free(t->signature);
	free(t->move_journal);
	free(t->broken);
	t->broken = NULL;
	t->v = NULL;
	t->signature = NULL;
	t->move_journal = NULL;
	t->n = 0;
}

void plan_free(struct pa_plan *p)
{
	plan_table_free(&p->table);
	free(p->v);
	free(p->refusal);
	memset(p, 0, sizeof(*p));
}

int plan_refuse(struct pa_plan *p, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (p->refusal)
		return 0;
	va_start(ap, fmt);
	rc = vasprintf(&p->refusal, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		p->refusal = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pa_entry *x = *(const struct pa_entry *const *)a;
	const struct pa_entry *y = *(const struct pa_entry *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->num < y->num ? -1 : x->num > y->num;
}

static int add_step(struct pa_plan *p, const struct pa_step *s)
{
	struct pa_step *v = realloc(p->v, (p->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->v = v;
	p->v[p->n++] = *s;
	return 0;
}

static void judge(const struct pa_topology *topo, const struct pa_plan_opts *o,
		  uint64_t disk_size, uint64_t start, struct pa_check *c)
{
	align_check(topo, disk_size, PA_REGION_PART, start, &o->grain, false, 0, c);
}

/* fix --new: one partition from the first grain boundary to the last whole grain. */
static int plan_new(struct pa_plan *p, const struct pa_topology *topo,
		    const struct pa_plan_opts *o, uint64_t first, uint64_t last)
{
	const struct pa_table *t = &p->table;
	uint64_t start = align_up(first, p->place_grain, p->place_offset);
	uint64_t end = align_down(last + 1, p->place_grain, p->place_offset);
	struct pa_step s = {.kind = PA_STEP_CREATE, .num = 1};
	char a[32];

	if (end <= start)
		return plan_refuse(p, "too small for one %s-aligned partition",
				   units_exact(p->place_grain, a, sizeof(a)));
	s.new_start = start;
	s.new_size = end - start;
	if (t->label == PA_LABEL_GPT && t->n == 1 && t->v[0].start == start &&
	    t->v[0].size == s.new_size) {
		/* what an earlier fix --new made: nothing to do */
		s.kind = PA_STEP_KEEP;
		s.old = &t->v[0];
		s.num = t->v[0].num;
	} else if (t->label != PA_LABEL_NONE || t->n) {
		return plan_refuse(p,
				   "not blank: it has a %s partition table with %zu "
				   "partition%s (use fix without --new)",
				   plan_label_name(t->label), t->n, t->n == 1 ? "" : "s");
	} else if (t->signature) {
		p->destroys = true;
		if (!o->discard_data)
			return plan_refuse(p,
					   "not blank: the whole device holds %s "
					   "(--discard-data to wipe it)",
					   t->signature);
	}
	judge(topo, o, t->disk_size, s.old ? s.old->start : start, &s.before);
	judge(topo, o, t->disk_size, s.new_start, &s.after);
	if (s.kind != PA_STEP_KEEP)
		p->changes++;
	return add_step(p, &s);
}

/* Does the dos table's 2^32-sector limit end the new table before the disk ends? */
static bool dos_limited(const struct pa_plan *p, const struct pa_topology *topo)
{
	return p->new_label == PA_LABEL_MSDOS && topo->logical &&
	       p->table.disk_size / topo->logical > MSDOS_MAX_SECTORS;
}

/*
 * --move-data: the last partition, @prev, would end @over bytes past the
 * last usable byte; @short_before is what a move back lacked (0: none).
 */
static int refuse_past_end(struct pa_plan *p, const struct pa_topology *topo,
			   const struct pa_step *prev, uint64_t over,
			   uint64_t short_before)
{
	char a[64], b[64];

	units_amount(over, a, sizeof(a));
	if (dos_limited(p, topo)) {
		/* a bigger LUN would not help: the dos table ends there */
		units_exact(MSDOS_MAX_SECTORS * topo->logical, b, sizeof(b));
		if (prev->kind == PA_STEP_MOVE)
			return plan_refuse(
			    p,
			    "no room to move partition %u to an aligned "
			    "start: it would end %s past the %s limit of a "
			    "dos table (2^32 sectors)",
			    prev->num, a, b);
		return plan_refuse(
		    p,
		    "partition %u ends %s past the %s limit of a dos table "
		    "(2^32 sectors)",
		    prev->num, a, b);
	}
	if (prev->kind == PA_STEP_MOVE)
		return plan_refuse(p,
				   "no room to move partition %u to an aligned start: "
				   "grow the LUN by %s%s%s%s",
				   prev->num, a, short_before ? " (or free " : "",
				   short_before ? units_amount(short_before, b, sizeof(b))
						: "",
				   short_before ? " before it)" : "");
	return plan_refuse(p, "partition %u ends %s beyond the last usable byte",
			   prev->num, a);
}

/*
 * --move-data: every partition keeps its table entry and size; a misaligned
 * one gets the nearest aligned start the free space allows -- backward when
 * that stays clear of its predecessor (as moved), forward otherwise.  A
 * forward move pushes the cursor, so whatever follows is checked against
 * it, and a refusal says how much room is missing and where.
 */
static int plan_moves(struct pa_plan *p, const struct pa_topology *topo,
		      const struct pa_plan_opts *o, uint64_t first, uint64_t last)
{
	const struct pa_table *t = &p->table;
	const uint64_t g = p->place_grain, off = p->place_offset;
	const struct pa_entry **order = calloc(t->n ? t->n : 1, sizeof(*order));
	uint64_t cursor = first, short_before = 0;
	const struct pa_step *prev = NULL;
	char a[64], b[64];
	size_t i, n = 0;
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		const struct pa_entry *e = &t->v[i];
		struct pa_step s = plan_step_keep(e);

		if (!e->logical) {
			order[n++] = e;
			continue;
		}
		if (align_distance(e->start, g, off) != 0) {
			rc = plan_refuse(
			    p,
			    "partition %u is a dos logical partition: --move-data "
			    "moves primary and GPT partitions only",
			    e->num);
			goto out;
		}
		judge(topo, o, t->disk_size, e->start, &s.before);
		s.after = s.before;
		if ((rc = add_step(p, &s)) < 0)
			goto out;
	}
	qsort(order, n, sizeof(*order), cmp_entry);

	for (i = 0; i < n; i++) {
		const struct pa_entry *e = order[i];
		struct pa_step s = plan_step_keep(e);
		uint64_t down;

		if (e->extended || align_distance(e->start, g, off) == 0) {
			if (e->start < cursor) {
				/* the previous partition moved forward into this one */
				rc = plan_refuse(
				    p,
				    "no room to move partition %u to an aligned start: "
				    "free %s after partition %u%s%s%s",
				    prev ? prev->num : 0,
				    units_amount(cursor - e->start, a, sizeof(a)),
				    prev ? prev->num : 0, short_before ? " (or " : "",
				    short_before
					? units_amount(short_before, b, sizeof(b))
					: "",
				    short_before ? " before it)" : "");
				goto out;
			}
			short_before = 0;
		} else {
			down = align_down(e->start, g, off);
			short_before = 0;
			if (down >= cursor) {
				s.new_start = down;
			} else {
				if (down >= first)
					short_before = cursor - down;
				s.new_start = align_up(
				    e->start > cursor ? e->start : cursor, g, off);
			}
			s.kind = PA_STEP_MOVE;
			p->changes++;
		}
		judge(topo, o, t->disk_size, e->start, &s.before);
		judge(topo, o, t->disk_size, s.new_start, &s.after);
		cursor = s.new_start + s.new_size;
		if ((rc = add_step(p, &s)) < 0)
			goto out;
		prev = &p->v[p->n - 1];
	}
	if (prev && cursor > last + 1)
		rc = refuse_past_end(p, topo, prev, cursor - last - 1, short_before);
	/* nothing to move, but a GPT copy to write again (damaged, or a grown
	   disk's backup away from the end): the table alone, as plain fix */
	if (rc == 0 && !p->changes && !p->refusal &&
	    (t->damaged || plan_gpt_end(t) == PA_GPT_END_GROWN))
		p->changes = 1;
out:
	free(order);
	return rc;
}

static const char *copy_damage(enum pa_gpt_copy c)
{
	switch (c) {
	case PA_GPT_NO_HEADER:
		return "header is damaged (no EFI PART signature)";
	case PA_GPT_BAD_HEADER:
		return "header is damaged (header CRC or fields wrong)";
	case PA_GPT_BAD_ARRAY:
		return "entry array is damaged (its CRC does not match)";
	case PA_GPT_OK:
		break;
	}
	return "is intact";
}

enum pa_gpt_end plan_gpt_end(const struct pa_table *t)
{
	uint64_t nsec = t->logical ? t->disk_size / t->logical : 0;

	if (!t->pmbr || t->gpt_primary || t->gpt_alternate_lba < 2 || !nsec)
		return PA_GPT_END_OK;
	if (t->gpt_alternate_lba >= nsec)
		return PA_GPT_END_SHRUNK;
	return t->gpt_alternate_lba < nsec - 1 ? PA_GPT_END_GROWN : PA_GPT_END_OK;
}

int plan_table_damage(const struct pa_table *t, char *buf, size_t len)
{
	int n = 0;

	if (t->pmbr && !t->gpt_primary && plan_gpt_end(t) == PA_GPT_END_GROWN)
		n = snprintf(buf, len,
			     "the backup GPT is at sector %" PRIu64 ", not at the end "
			     "of the disk (sector %" PRIu64 "): the disk grew",
			     t->gpt_alternate_lba, t->disk_size / t->logical - 1);
	else if (t->pmbr && !t->gpt_primary && plan_gpt_end(t) == PA_GPT_END_SHRUNK)
		n = snprintf(buf, len,
			     "the backup GPT belongs at sector %" PRIu64 ", past the "
			     "end of the disk (sector %" PRIu64 "): the disk shrank",
			     t->gpt_alternate_lba, t->disk_size / t->logical - 1);
	else if (!t->pmbr || (!t->gpt_primary && !t->gpt_backup))
		n = 0;
	else if (t->gpt_primary && t->gpt_backup)
		n = snprintf(buf, len,
			     "both GPT copies are damaged (primary: %s; backup: %s)",
			     copy_damage(t->gpt_primary), copy_damage(t->gpt_backup));
	else if (t->gpt_primary)
		n = snprintf(buf, len, "the primary GPT %s, the backup is intact",
			     copy_damage(t->gpt_primary));
	else
		n = snprintf(buf, len, "the backup GPT %s, the primary is intact",
			     copy_damage(t->gpt_backup));
	if (n <= 0 && len)
		buf[0] = '\0';
	return n < 0 ? 0 : n;
}

/* Tables partalign cannot read or must not rewrite: a refusal with the way out. */
static int refuse_odd(struct pa_plan *p, const struct pa_plan_opts *o)
{
	const struct pa_table *t = &p->table;
	char dmg[256];

	plan_table_damage(t, dmg, sizeof(dmg));
	if (plan_gpt_end(t) == PA_GPT_END_SHRUNK)
		return plan_refuse(
		    p,
		    "the disk is smaller than its GPT says (the backup header "
		    "belongs at sector %" PRIu64 ", the disk ends at sector %" PRIu64
		    "): it shrank, or is a truncated copy; give it its size back, "
		    "or rebuild the GPT for this size with 'sgdisk -e' if every "
		    "partition still fits",
		    t->gpt_alternate_lba, t->disk_size / t->logical - 1);
	if (t->unreadable && t->broken)
		return plan_refuse(
		    p,
		    "the partition table is inconsistent: %s; correct it by hand "
		    "(gdisk, fdisk) or restore a table backup: partalign does not "
		    "guess which entry is right",
		    t->broken);
	if (t->unreadable)
		return plan_refuse(
		    p,
		    "%s: nothing intact to read the table from; restore a table "
		    "backup (partalign restore) or recover it with gdisk",
		    dmg);
	if (t->label == PA_LABEL_NONE && t->pmbr && t->gpt_primary && !t->gpt_backup)
		return plan_refuse(
		    p,
		    "%s%s (%zu partition%s): rebuild the primary from it "
		    "with 'sgdisk -e', or restore a table backup, then run fix "
		    "again",
		    o->new_disk ? "not blank: " : "", dmg, t->backup_parts,
		    t->backup_parts == 1 ? "" : "s");
	if (t->label == PA_LABEL_NONE && t->pmbr && t->gpt_primary && t->gpt_backup &&
	    !o->new_disk)
		return plan_refuse(
		    p,
		    "a protective MBR, but %s: a damaged or half-wiped GPT; "
		    "restore a table backup (partalign restore) or recover it "
		    "with gdisk",
		    dmg);
	return 0;
}

/* Tables partalign reads but must not rewrite; refused only when fix would write. */
static int refuse_rewrite(struct pa_plan *p)
{
	const struct pa_table *t = &p->table;

	if (p->refusal || !p->changes || t->label != PA_LABEL_GPT)
		return 0;
	if (t->gpt_odd_layout && t->gpt_entries_lba && t->gpt_entries_lba != 2)
		return plan_refuse(
		    p,
		    "the GPT entry array starts at LBA %" PRIu64 ", not LBA 2: "
		    "partalign rewrites only the layout parted, fdisk and sgdisk "
		    "write ('sgdisk -j 2' moves the array back when the "
		    "partitions leave room)",
		    t->gpt_entries_lba);
	if (t->gpt_odd_layout)
		return plan_refuse(
		    p, "the GPT entry array is not at LBA 2 or larger than 64 "
		       "MiB: not a layout partalign rewrites");
	/* a hybrid MBR: libparted writes a plain protective MBR, the dos entry goes */
	if (t->hybrid_entry)
		return plan_refuse(
		    p,
		    "sector 0 is a hybrid MBR (dos entry %u, type 0x%02x, "
		    "beside the protective 0xEE one): the new table would drop "
		    "it, and whatever boots or reads the disk through it; make it "
		    "a plain protective MBR first (gdisk: x, n, w) if nothing "
		    "needs it",
		    t->hybrid_entry, t->hybrid_type);
	return 0;
}

static int compute(struct pa_table *t, const struct pa_topology *topo,
		   const struct pa_plan_opts *o, struct pa_plan *p);

int plan_compute(struct pa_table *t, const struct pa_topology *topo,
		 const struct pa_plan_opts *o, struct pa_plan *p)
{
	int rc = compute(t, topo, o, p);

	return rc < 0 ? rc : refuse_rewrite(p);
}

/* Without --new or --move-data: each partition re-created on the grain, or kept. */
static int plan_recreate(struct pa_plan *p, const struct pa_topology *topo,
			 const struct pa_plan_opts *o, uint64_t first, uint64_t last)
{
	const struct pa_table *t = &p->table;
	const struct pa_entry **order = NULL;
	uint64_t cursor;
	char a[64];
	size_t i, n = 0;
	int rc = 0;

	order = calloc(t->n ? t->n : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (t->v[i].logical && p->new_label == PA_LABEL_MSDOS) {
			rc = plan_refuse(
			    p,
			    "partition %u is a dos logical partition: logical "
			    "partitions cannot be kept in a dos table (drop --label "
			    "keep to convert to gpt)",
			    t->v[i].num);
			goto out;
		}
	for (i = 0; i < t->n; i++) {
		if (t->v[i].extended) {
			struct pa_step s = {
			    .kind = PA_STEP_DROP, .old = &t->v[i], .num = t->v[i].num};

			if (p->new_label == PA_LABEL_MSDOS) {
				rc = plan_refuse(
				    p, "an empty dos extended partition cannot be "
				       "kept (drop --label keep)");
				goto out;
			}
			if ((rc = add_step(p, &s)) < 0)
				goto out;
			continue;
		}
		order[n++] = &t->v[i];
	}
	qsort(order, n, sizeof(*order), cmp_entry);

	cursor = first;
	for (i = 0; i < n; i++) {
		const struct pa_entry *e = order[i];
		struct pa_step s = {.old = e, .num = e->num};
		uint64_t room;

		if (align_distance(e->start, p->place_grain, p->place_offset) == 0 &&
		    e->start >= cursor && e->start <= last)
			s.new_start = e->start;
		else
			s.new_start = align_up(cursor, p->place_grain, p->place_offset);
		s.new_size = e->size;
		room = s.new_start <= last ? last + 1 - s.new_start : 0;
		if (s.new_size > room) {
			s.new_size = room / p->place_grain * p->place_grain;
			s.resized = true;
			/* a dos table ends at its 2^32-sector limit, not the disk's */
			if (dos_limited(p, topo) &&
			    (s.new_size == 0 || e->start + e->size > last + 1)) {
				rc = plan_refuse(
				    p,
				    "partition %u does not fit below the %s limit of a "
				    "dos table (2^32 sectors): drop --label keep to "
				    "convert to gpt",
				    e->num,
				    units_exact(MSDOS_MAX_SECTORS * topo->logical, a,
						sizeof(a)));
				goto out;
			}
			if (s.new_size == 0) {
				rc = plan_refuse(
				    p,
				    "partition %u does not fit: it needs %s more at "
				    "the end of the disk",
				    e->num,
				    units_amount(e->size - room + p->place_grain, a,
						 sizeof(a)));
				goto out;
			}
		}
		s.kind = s.new_start == e->start && s.new_size == e->size
			     ? PA_STEP_KEEP
			     : PA_STEP_RECREATE;
		judge(topo, o, t->disk_size, e->start, &s.before);
		judge(topo, o, t->disk_size, s.new_start, &s.after);
		if (s.kind == PA_STEP_RECREATE) {
			p->changes++;
			if (e->signature)
				p->destroys = true;
		}
		cursor = s.new_start + s.new_size;
		if ((rc = add_step(p, &s)) < 0)
			goto out;
	}
	/* one GPT copy is corrupt (a write cut short): the label is written again */
	if ((t->damaged || plan_gpt_end(t) == PA_GPT_END_GROWN) && !p->changes)
		p->changes = 1;
	if (p->destroys && !o->discard_data) {
		for (i = 0; i < p->n; i++)
			if (p->v[i].kind == PA_STEP_RECREATE && p->v[i].old->signature)
				break;
		rc = plan_refuse(p,
				 "partition %u holds %s, which the fix would destroy: "
				 "--move-data to keep it, --discard-data to wipe it",
				 p->v[i].num, p->v[i].old->signature);
	}
out:
	free(order);
	return rc;
}

static int compute(struct pa_table *t, const struct pa_topology *topo,
		   const struct pa_plan_opts *o, struct pa_plan *p)
{
	uint64_t first, last, policy;
	const char *why;
	char a[64], b[64];
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->table = *t;
	memset(t, 0, sizeof(*t));
	t = &p->table;

	policy = align_policy_bytes(&o->grain, topo->logical);
	if (!policy)
		return plan_refuse(
		    p, "policy grain %s is not a multiple of the %s logical sector",
		    units_grain(&o->grain, a, sizeof(a)),
		    units_exact(topo->logical, b, sizeof(b)));
	if (topo->align_off < 0)
		return plan_refuse(
		    p, "the kernel reports alignment offset -1: no start can be "
		       "aligned on this device stack");
	/* a start off the sector boundary cannot be written: sysfs gave a bogus value */
	if (topo->logical && (uint64_t)topo->align_off % topo->logical)
		return plan_refuse(
		    p,
		    "the kernel reports alignment offset %" PRId64 " bytes, not a "
		    "multiple of the %s logical sector",
		    topo->align_off, units_exact(topo->logical, b, sizeof(b)));
	/* one grain that satisfies the policy, the physical and the optimal checks */
	p->place_grain = align_lcm(policy, align_physical_grain(topo));
	if (p->place_grain)
		p->place_grain = align_lcm(
		    p->place_grain, align_optimal_usable(topo, t->disk_size, &why));
	if (!p->place_grain)
		return plan_refuse(
		    p,
		    "policy grain %s and the device's grains have no common "
		    "multiple below 16 EiB",
		    units_grain(&o->grain, a, sizeof(a)));
	p->place_offset = (uint64_t)topo->align_off % p->place_grain;

	if (o->move_data && !o->new_disk)
		p->new_label =
		    t->label; /* the data moves, the table only changes starts */
	else if (o->new_disk)
		p->new_label = PA_LABEL_GPT;
	else if (t->label == PA_LABEL_MSDOS && o->keep_label)
		p->new_label = PA_LABEL_MSDOS;
	else
		p->new_label = PA_LABEL_GPT;
	plan_label_range(p->new_label, t->disk_size, topo->logical, &first, &last);

	if ((rc = refuse_odd(p, o)) < 0 || p->refusal)
		return rc;
	if (o->new_disk)
		return plan_new(p, topo, o, first, last);
	if (t->label == PA_LABEL_NONE)
		return plan_refuse(
		    p, "no partition table (fix --new partitions a blank disk)");
	if (t->label == PA_LABEL_OTHER)
		return plan_refuse(
		    p, "partition table type not supported (only gpt and dos)");
	/* a cursor past the disk would be pushed past 2^64 by align_up() */
	if (p->place_grain > t->disk_size)
		return plan_refuse(p, "placement grain %s is larger than the disk",
				   units_exact(p->place_grain, a, sizeof(a)));
	if (o->move_data)
		return plan_moves(p, topo, o, first, last);

	return plan_recreate(p, topo, o, first, last);
}

static int refuse_dev(char **out, const struct pa_dev *d)
{
	char *nl;

	if (d->mountpoints && strcmp(d->mountpoints, "[SWAP]") == 0)
		return asprintf(out, "%s is in use as swap", d->name) < 0 ? -ENOMEM : 1;
	if (d->mountpoints) {
		nl = strchr(d->mountpoints, '\n');
		return asprintf(out, "%s is mounted on %.*s", d->name,
				nl ? (int)(nl - d->mountpoints)
				   : (int)strlen(d->mountpoints),
				d->mountpoints) < 0
			   ? -ENOMEM
			   : 1;
	}
	return 0;
}

/* A holder that is one of @disk's own kpartx partitions is not a user. */
static const char *foreign_holder(const struct pa_devlist *l, const struct pa_dev *d,
				  const struct pa_dev *disk, char *buf, size_t len)
{
	const char *p = d->holders;

	while (p && *p) {
		size_t n = strcspn(p, " ");
		struct pa_dev *h;

		snprintf(buf, len, "%.*s", (int)n, p);
		h = devlist_find_name(l, buf);
		if (!h || h->kind != PA_KIND_PART || h->disk != disk)
			return buf;
		p += n;
		while (*p == ' ')
			p++;
	}
	return NULL;
}

char *plan_refusal_in_use(const struct pa_devlist *l, const struct pa_dev *disk)
{
	char *out = NULL;
	char buf[64];
	const char *h;
	size_t i;

	if (disk->is_path) {
		const struct pa_dev *m = disk->map;

		if (asprintf(
			&out,
			"%s is a multipath path of %s%s%s%s: fix the map, not a path",
			disk->name, m ? m->name : "a map",
			m && m->dm_name ? " (/dev/mapper/" : "",
			m && m->dm_name ? m->dm_name : "",
			m && m->dm_name ? ")" : "") < 0)
			return NULL;
		return out;
	}
	if (refuse_dev(&out, disk) != 0)
		return out;
	if ((h = foreign_holder(l, disk, disk, buf, sizeof(buf))) &&
	    asprintf(&out, "%s is held by %s (dm, md or LVM)", disk->name, h) >= 0)
		return out;
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];

		if (d->disk != disk || d->kernel_missing)
			continue;
		if (refuse_dev(&out, d) != 0)
			return out;
		if (d->holders) {
			if (asprintf(&out, "%s is held by %s (dm, md or LVM)", d->name,
				     d->holders) < 0)
				return NULL;
			return out;
		}
	}
	return NULL;
}

bool plan_kernel_stale(const struct pa_devlist *l, const struct pa_dev *disk,
		       const struct pa_table *t)
{
	size_t i, j, nk = 0;

	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];
		bool found = false;

		if (d->disk != disk || d->kind != PA_KIND_PART)
			continue;
		/* a moving partition is hidden from the kernel on purpose */
		for (j = 0; j < t->n && !found; j++)
			found = t->v[j].num == d->partno && t->v[j].moving;
		if (found)
			continue;
		nk++;
		/* the kernel sizes a dos extended container as one or two sectors */
		for (j = 0; j < t->n && !found; j++)
			found = t->v[j].num == d->partno && t->v[j].start == d->start &&
				(t->v[j].size == d->size || t->v[j].extended);
		if (!found)
			return true;
	}
	for (j = 0; j < t->n; j++)
		nk += t->v[j].moving;
	return nk != t->n;
}

char *plan_refusal_map_in_use(const struct pa_devlist *l, const struct pa_dev *map,
			      const int *opens)
{
	int parts = 0, self = -1;
	char *why = NULL;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];

		if (d == map)
			self = opens[i];
		if (d->kind != PA_KIND_PART || d->disk != map || !d->dm_uuid)
			continue;
		parts++;
		if (opens[i] > 0) {
			if (asprintf(&why, "%s (partition map %u of %s) is open: in use",
				     d->name, d->partno, map->name) < 0)
				why = NULL;
			return why;
		}
	}
	/* each partition map holds the map open once, and partalign twice */
	if (self > parts + 2 &&
	    asprintf(&why, "%s is open by another process: in use", map->name) < 0)
		why = NULL;
	return why;
}
