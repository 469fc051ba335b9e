/*
 * The refusal rules of plan, fix and resume that need no device (refusal.h):
 * an unfinished move and its journal, the place of a new move's journal, a
 * disk in use, and which refusal outranks which.  Pure: the facts come in
 * as arguments (src/apply finds them), the words go out as malloc'd text.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/label.h"
#include "core/refusal.h"

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, f);
	rc = vasprintf(&s, f, ap);
	va_end(ap);
	return rc < 0 ? NULL : s;
}

const char *refusal_move_id(uint64_t id, bool id32, char *buf, size_t len)
{
	if (id32)
		snprintf(buf, len, "%08" PRIx32, (uint32_t)id);
	else
		snprintf(buf, len, "%016" PRIx64, id);
	return buf;
}

/* "WHAT: TRUST; RULE TAIL": a journal, or the place recorded for it, not trusted. */
static char *untrusted(char *what, const struct refusal_move *m, const char *tail)
{
	char *s = what && m->trust && m->rule
		      ? fmt("%s: %s; %s%s", what, m->trust, m->rule, tail)
		      : NULL;

	free(what);
	return s;
}

/* The journal of a marked disk is in none of the places looked at. */
static char *no_journal(const struct refusal_move *m)
{
	bool other = strcmp(m->dir, m->default_dir) != 0;
	char *where = m->recorded
			  ? fmt(" (the disk says it was written to %s)", m->recorded)
			  : strdup("");
	char *s = where ? fmt("an unfinished data move (move id %s) is recorded on the "
			      "disk, but its journal is not in %s%s%s%s: give the "
			      "directory that holds it, 'partalign resume --journal DIR "
			      "%s'",
			      m->id, m->dir, other ? " nor in " : "",
			      other ? m->default_dir : "", where, m->disk)
			: NULL;

	free(where);
	return s;
}

int refusal_move_text(const struct refusal_move *m, char **why)
{
	*why = NULL;
	switch (m->kind) {
	case REFUSAL_MOVE_NONE:
	case REFUSAL_MOVE_OPENED:
		return 0;
	case REFUSAL_MOVE_OLD_JOURNAL:
		*why = fmt("a move journal of partalign 0.1 (%s) is there for this "
			   "disk, which carries no move marker: finish that move with "
			   "the partalign that started it, or move the file away if it "
			   "is not this disk's",
			   m->path);
		break;
	case REFUSAL_MOVE_HINT_UNTRUSTED:
		*why = untrusted(fmt("the journal of the unfinished data move (move id "
				     "%s) is recorded as %s",
				     m->id, m->recorded),
				 m,
				 ": move it into one and give that to 'partalign "
				 "resume --journal DIR'");
		break;
	case REFUSAL_MOVE_NO_JOURNAL:
		*why = no_journal(m);
		break;
	case REFUSAL_MOVE_FOUND:
		*why = fmt("an unfinished data move (move id %s, journal %s): finish "
			   "it with 'partalign resume %s'",
			   m->id, m->path, m->disk);
		break;
	case REFUSAL_MOVE_UNTRUSTED:
		*why = untrusted(
		    fmt("the journal %s of the unfinished move %s", m->path, m->id), m,
		    "");
		break;
	case REFUSAL_MOVE_UNREADABLE:
		*why = fmt("the journal %s of the unfinished move %s cannot be read",
			   m->path, m->id);
		break;
	case REFUSAL_MOVE_FOREIGN:
		*why = fmt("the journal %s is not this disk's: %s", m->path, m->foreign);
		break;
	}
	return *why ? 0 : -ENOMEM;
}

char *refusal_journal_foreign(const struct pa_journal *j, const struct pa_table *t)
{
	size_t m, i;

	for (m = 0; m < j->n; m++) {
		const struct pa_jmove *v = &j->v[m];

		for (i = 0; i < t->n && t->v[i].num != v->num; i++)
			;
		if (i == t->n)
			continue; /* journal_plan says what is missing */
		if (v->entry.uuid[0] &&
		    (!t->v[i].uuid || strcasecmp(t->v[i].uuid, v->entry.uuid)))
			return fmt("partition %u has the GUID %s, the journal's has %s",
				   v->num, t->v[i].uuid ? t->v[i].uuid : "none",
				   v->entry.uuid);
	}
	if (strncmp(j->label, "gpt:", 4) == 0 && t->label != PA_LABEL_GPT)
		return fmt("the journal is of a GPT disk (%s)", j->label);
	if (strncmp(j->label, "gpt:", 4) == 0 && t->ident[0] &&
	    strcasecmp(t->ident, j->label))
		return fmt("the journal is of the table %s, this disk has %s", j->label,
			   t->ident);
	if (strncmp(j->label, "dos:", 4) == 0 && t->label != PA_LABEL_MSDOS)
		return fmt("the journal is of a dos disk (%s)", j->label);
	return NULL;
}

bool refusal_journal_place_matters(const struct pa_plan_opts *po, const struct pa_plan *p)
{
	return po->move_data && (p->changes || p->refusal) && !p->table.marked;
}

char *refusal_journal_volatile(const char *dir, const char *fstype)
{
	return fmt("the journal directory %s is on %s, which does not outlive a power "
		   "cut: give --journal on a disk file system (not the disk being "
		   "moved)",
		   dir, fstype);
}

char *refusal_journal_on_disk(const char *dir, const char *where)
{
	return fmt("the journal directory %s is on %s, on the disk being moved: give "
		   "--journal on another disk",
		   dir, where);
}

char *refusal_busy(const char *name)
{
	return fmt("%s cannot be opened exclusively: it is in use", name);
}

char *refusal_readonly(const char *path)
{
	return fmt("%s is read-only (write-protected)", path);
}

bool refusal_in_use_applies(const struct pa_plan *p, bool stale)
{
	return p->changes || stale || p->refusal;
}

int refusal_replace(struct pa_plan *p, const char *why)
{
	if (!why)
		return -ENOMEM;
	free(p->refusal);
	p->refusal = NULL;
	return plan_refuse(p, "%s", why);
}

/* A refusal text that could not be made stands for "no memory", never for "go on". */
static char nomem_text[] = "";

static char *must(char *s)
{
	return s ? s : nomem_text;
}

static void text_of(const struct label_id *id, char *buf, size_t len)
{
	if (!id || label_identity_format(id, buf, len) < 0)
		snprintf(buf, len, "?");
}

/* The disk itself: write-protected, an unfinished move, a backup taken before one. */
static char *restore_disk(const struct refusal_restore *r)
{
	if (r->readonly)
		return must(refusal_readonly(r->path));
	if (r->marked)
		return must(fmt("an unfinished data move (move id %0*" PRIx64
				") is recorded "
				"on the disk: finish it with 'partalign resume %s'",
				r->marker_id32 ? 8 : 16, r->marker_id, r->path));
	if (r->move_id)
		return must(fmt("the backup was taken before data move %016" PRIx64
				"; its partitions' data has moved since",
				r->move_id));
	return NULL;
}

/* The backup must be of a disk of this size and sector size, its regions on it. */
static char *restore_fit(const struct refusal_restore *r)
{
	size_t i;

	if (r->disk_size != r->size || r->disk_logical != r->logical)
		return must(fmt("the backup is of a %" PRIu64 "-byte disk with %" PRIu32
				"-byte sectors, this one has %" PRIu64 " and %" PRIu32,
				r->size, r->logical, r->disk_size, r->disk_logical));
	for (i = 0; i < r->nregs; i++)
		if (r->regs[i].off + r->regs[i].len > r->disk_size ||
		    r->regs[i].off % r->disk_logical || r->regs[i].len % r->disk_logical)
			return must(fmt("the backup has a region off the disk"));
	return NULL;
}

/* The identity rule (refusal.h); the warnings of what --force waived into @warn. */
static char *restore_identity(const struct refusal_restore *r, char **warn)
{
	const struct label_id *wrote = r->wrote;
	char have[64], held[64], after[64] = "";
	bool id_ok = strcmp(r->disk_id, r->backup_id) == 0, label_ok;

	if (r->format == 1)
		return id_ok ? NULL
			     : fmt("the backup is of %s, this disk is %s", r->backup_id,
				   r->disk_id);
	if (wrote && label_identity_same(wrote, r->held))
		wrote = NULL; /* fix rewrote the table in place: one identity */
	text_of(r->cur, have, sizeof(have));
	text_of(r->held, held, sizeof(held));
	if (wrote)
		text_of(wrote, after, sizeof(after));
	label_ok = r->cur->kind != LABEL_ID_NONE &&
		   (label_identity_same(r->cur, r->held) ||
		    (wrote && label_identity_same(r->cur, wrote)));
	if (!label_ok && r->cur->kind != LABEL_ID_NONE)
		return must(fmt("the backup is of the table %s%s%s%s, this disk has %s",
				held, wrote ? " (or " : "", after,
				wrote ? ", which partalign wrote over it)" : "", have));
	if (!label_ok && !r->force)
		return must(fmt("the disk has no partition table to identify it by (the "
				"backup is of %s); --force restores it if the device id "
				"matches",
				held));
	if (!label_ok && !id_ok)
		return must(
		    fmt("the disk has no partition table to identify it by and the "
			"backup is of %s, this disk is %s",
			r->backup_id, r->disk_id));
	if (!id_ok && !r->force)
		return must(
		    fmt("the backup is of %s, this disk is %s (its label %s matches: "
			"--force if the disk has moved)",
			r->backup_id, r->disk_id, have));
	if (!id_ok)
		*warn =
		    fmt("the backup is of %s, this disk is %s; restoring (--force, its "
			"label %s matches)",
			r->backup_id, r->disk_id, have);
	else if (!label_ok)
		*warn = fmt("no partition table to identify the disk by; restoring "
			    "(--force, the device id %s matches)",
			    r->disk_id);
	return NULL;
}

char *refusal_restore(const struct refusal_restore *r, char **warn, int *err)
{
	char *why;

	*warn = NULL;
	*err = 0;
	why = restore_disk(r);
	if (!why)
		why = restore_fit(r);
	if (!why)
		why = restore_identity(r, warn);
	if (why) {
		free(*warn);
		*warn = NULL;
	}
	if (why == nomem_text) {
		*err = -ENOMEM;
		return NULL;
	}
	return why;
}
