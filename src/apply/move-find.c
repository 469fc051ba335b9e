/*
 * An unfinished move of a disk, before its plan is shown: the journal of
 * partalign 0.1 an unmarked disk may have, or the journal of the move a
 * marked disk records (the place the marker names, the journal directory,
 * the default one), opened and checked against the table for a resume.
 * The facts only: core/refusal.c says what they refuse, the cli prints.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apply/move.h"
#include "core/refusal.h"
#include "shared/trust.h"

void apply_move_found_free(struct apply_move_found *f)
{
	free(f->path);
	free(f->foreign);
	f->path = f->foreign = NULL;
}

int apply_move_find(const char *dir, const struct pa_dev *dev, const struct pa_table *t,
		    bool open, struct pa_mover **mv, struct apply_move_found *f)
{
	int rc;

	memset(f, 0, sizeof(*f));
	if (!t->marked) {
		/* a 0.1 journal: its move left no marker, so only that journal knows */
		rc = move_journal_find(dir, dev, &f->path);
		if (rc > 0)
			f->kind = REFUSAL_MOVE_OLD_JOURNAL;
		return rc < 0 ? rc : 0;
	}
	rc = move_journal_find_move(dir, t->move_id, t->move_id32, t->move_journal,
				    &f->path, &f->trust);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		f->kind = f->trust.why != TRUST_OK ? REFUSAL_MOVE_HINT_UNTRUSTED
						   : REFUSAL_MOVE_NO_JOURNAL;
		return 0;
	}
	f->kind = REFUSAL_MOVE_FOUND;
	if (!open)
		return 0;
	rc = move_open(f->path, NULL, mv, &f->trust);
	if (rc == -EPERM) {
		f->kind = REFUSAL_MOVE_UNTRUSTED;
		return 0;
	}
	if (rc < 0) {
		f->kind = REFUSAL_MOVE_UNREADABLE;
		f->err = rc;
		return 0;
	}
	f->foreign = refusal_journal_foreign(move_journal(*mv), t);
	if (f->foreign) {
		f->kind = REFUSAL_MOVE_FOREIGN;
		move_free(*mv);
		*mv = NULL;
		return 0;
	}
	f->kind = REFUSAL_MOVE_OPENED;
	return 0;
}
