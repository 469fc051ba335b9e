/*
 * An unfinished move and the place of a new move's journal, while plan,
 * fix and resume read a disk (fix-move.c).
 */
#ifndef PARTALIGN_CLI_FIX_MOVE_H
#define PARTALIGN_CLI_FIX_MOVE_H

#include "apply/move.h"
#include "cli/cli.h"
#include "cli/fix.h"
#include "core/device.h"
#include "core/plan.h"

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
int fix_move_prepare(struct msg_log *log, const struct fix_move_opts *mo,
		     const struct pa_plan_opts *po, const struct pa_devlist *l,
		     const struct pa_dev *dev, struct pa_plan *p, struct pa_mover **mv);

/*
 * After the in-use checks: refuse a journal directory on the disk being
 * moved, or on a file system that does not outlive a power cut.
 */
int fix_move_check_location(const struct fix_move_opts *mo, const struct pa_plan_opts *po,
			    const struct pa_devlist *l, const struct pa_dev *dev,
			    struct pa_plan *p);

#endif
