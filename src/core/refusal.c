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
