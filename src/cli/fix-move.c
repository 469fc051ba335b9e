/*
 * The command-line side of an unfinished move, while plan, fix and resume
 * read a disk: what apply_move_find() found is said (the warnings), and
 * the refusal core/refusal.c words for it goes into the plan; the place of
 * a new move's journal likewise.  It calls nothing of the other fix-*.c
 * files.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fix-move.h"
#include "cli/move-pending.h"
#include "cli/trusted.h"
#include "core/refusal.h"
#include "shared/fileio.h"

static const char *jdir(const struct fix_move_opts *mo)
{
	return move_journal_dir(mo ? mo->journal_dir : NULL);
}

/* The refusal of @f, said in its words, over any other of @p. */
static int refuse_move(const struct fix_move_opts *mo, const struct pa_dev *dev,
		       struct pa_plan *p, const struct apply_move_found *f)
{
	const struct pa_table *t = &p->table;
	struct refusal_move m = {.kind = f->kind,
				 .disk = dev->path,
				 .path = f->path,
				 .recorded = t->move_journal,
				 .dir = jdir(mo),
				 .default_dir = move_journal_dir_default(),
				 .foreign = f->foreign};
	char idt[24], *trust = NULL, *why = NULL;
	int rc;

	m.id = refusal_move_id(t->move_id, t->move_id32, idt, sizeof(idt));
	if (f->kind == REFUSAL_MOVE_HINT_UNTRUSTED || f->kind == REFUSAL_MOVE_UNTRUSTED) {
		trust = cli_trust_text(NULL, &f->trust);
		m.trust = trust;
		m.rule = cli_trust_rule(&f->trust);
	}
	rc = refusal_move_text(&m, &why);
	if (rc == 0 && why)
		rc = refusal_replace(p, why);
	free(trust);
	free(why);
	return rc;
}

int fix_move_prepare(struct msg_log *log, const struct fix_move_opts *mo,
		     const struct pa_plan_opts *po, const struct pa_devlist *l,
		     const struct pa_dev *dev, struct pa_plan *p, struct pa_mover **mv)
{
	struct apply_move_found f;
	char idt[24];
	int rc = apply_move_find(jdir(mo), dev, &p->table, po->move_data, mv, &f);

	if (rc < 0)
		return rc;
	refusal_move_id(p->table.move_id, p->table.move_id32, idt, sizeof(idt));
	switch (f.kind) {
	case REFUSAL_MOVE_NONE:
		/* an unmarked disk: a journal left over is said, never used */
		if (cli_move_warn_stray(jdir(mo), dev, l) == 0 &&
		    !dir_same(jdir(mo), move_journal_dir_default()))
			cli_move_warn_stray(move_journal_dir_default(), dev, l);
		break;
	case REFUSAL_MOVE_OLD_JOURNAL:
	case REFUSAL_MOVE_HINT_UNTRUSTED:
		break;
	case REFUSAL_MOVE_NO_JOURNAL:
		msg_warn(dev->path,
			 "unfinished data move %s recorded on the disk; no journal of "
			 "it found",
			 idt);
		break;
	default:
		msg_warn(dev->path, "unfinished data move %s, journal %s", idt, f.path);
		if (f.kind == REFUSAL_MOVE_UNREADABLE)
			msg_log_err(log, dev->path, -f.err, "cannot read the journal %s",
				    f.path);
		break;
	}
	if (f.kind == REFUSAL_MOVE_OPENED) {
		rc = journal_plan(move_journal(*mv), &dev->topo, po, p);
	} else {
		struct pa_journal j;

		/* plain plan and fix: show the move to finish, then refuse it */
		if (f.kind == REFUSAL_MOVE_FOUND && move_journal_peek(f.path, &j) == 0) {
			rc = journal_plan(&j, &dev->topo, po, p);
			journal_free(&j);
			if (rc < 0) {
				apply_move_found_free(&f);
				return rc;
			}
		}
		rc = refuse_move(mo, dev, p, &f);
	}
	apply_move_found_free(&f);
	return rc;
}

int fix_move_check_location(const struct fix_move_opts *mo, const struct pa_plan_opts *po,
			    const struct pa_devlist *l, const struct pa_dev *dev,
			    struct pa_plan *p)
{
	char *where = NULL, *why;
	const char *fstype = NULL;
	int rc;

	if (!refusal_journal_place_matters(po, p))
		return 0; /* nothing to move, or an unfinished move: that outranks this */
	if (move_journal_durable(jdir(mo), &fstype) == -EROFS) {
		why = refusal_journal_volatile(jdir(mo), fstype);
		rc = refusal_replace(p, why);
		free(why);
		return rc;
	}
	rc = move_journal_on_disk(jdir(mo), l, dev, &where);
	if (rc <= 0)
		return 0; /* cannot tell: the journal's own open fails later if it must */
	why = refusal_journal_on_disk(jdir(mo), where);
	free(where);
	rc = refusal_replace(p, why);
	free(why);
	return rc;
}
