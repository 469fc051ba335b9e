/*
 * fix --move-data and resume on the command line: the hooks plan.c, fix.c
 * and check.c call, implemented in move-cli.c (cli_move_warn_pending in
 * move-pending.c).  They print; src/apply/move.c does not.
 */
#ifndef PARTALIGN_MOVE_CLI_H
#define PARTALIGN_MOVE_CLI_H

#include <stdbool.h>

#include "apply/move.h"
#include "cli/cli.h"
#include "core/device.h"
#include "core/plan.h"

struct cli_move_opts {
	const char *journal_dir; /* NULL: move_journal_dir_default() */
	bool verify;
	bool quiet;
	bool resume_only; /* resume: never start a move, only finish one */
};

/*
 * After plan_compute(): a disk whose table carries a move marker has an
 * unfinished move.  It is announced on stderr; without --move-data
 * (@po->move_data) the disk is refused; with it the journal whose move id
 * the marker records is looked for (the marker's path, --journal DIR, the
 * default directory), opened into *mv, and the plan rebuilt from it --
 * without it the disk is refused, naming the move.  A 0.1 journal name
 * for the disk refuses it too; a journal left over on an unmarked disk is
 * warned about (cli_move_warn_stray, @l the host's devices).  Its errors go
 * into @log too (may be NULL).  0 or -errno.
 */
int cli_move_prepare(struct msg_log *log, const struct cli_move_opts *mo,
		     const struct pa_plan_opts *po, const struct pa_devlist *l,
		     const struct pa_dev *dev, struct pa_plan *p, struct pa_mover **mv);

/*
 * After the in-use checks: refuse a journal directory on the disk being
 * moved, or on a file system that does not outlive a power cut.
 */
int cli_move_check_location(const struct cli_move_opts *mo, const struct pa_plan_opts *po,
			    const struct pa_devlist *l, const struct pa_dev *dev,
			    struct pa_plan *p);

/*
 * A journal named for @w in @dir, on a disk that records no move: a crash
 * came after the journal was made and before the disk was marked, or after
 * the final table and before the journal was removed.  Warns that nothing
 * of that move is left to do on this disk, and removes nothing: a copy of
 * the disk (the same GUIDs) may carry that move; the warning names the disk
 * of @l (may be NULL) that does, when its marker is known.  1 when one was
 * found.
 */
int cli_move_warn_stray(const char *dir, const struct pa_dev *w,
			const struct pa_devlist *l);

/* check: warn about each (named) disk with an unfinished move; returns exit bits. */
int cli_move_warn_pending(const struct pa_devlist *l, char **names, int nnames);

#endif
