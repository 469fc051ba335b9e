/*
 * Unfinished moves and left-over journals, warned about (move-pending.c):
 * by `check` for every disk, and by plan, fix and resume for the disk they
 * read.  The audit program has it too: it links no libparted.
 */
#ifndef PARTALIGN_CLI_MOVE_PENDING_H
#define PARTALIGN_CLI_MOVE_PENDING_H

#include "apply/move.h"
#include "core/device.h"

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

/*
 * check: the unfinished move of each (named) whole disk of @l into its
 * ->move (udev's database, the disk's table when --probe read it and, on
 * this host (@host), a journal in the default directory), a warning for
 * each, and a row added for each moving partition the kernel does not
 * have.  Returns exit bits.
 */
int cli_move_states(struct pa_devlist *l, char **names, int nnames, bool host);

#endif
