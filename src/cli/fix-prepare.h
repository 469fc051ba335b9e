/*
 * One disk of plan and fix up to the question (fix-prepare.c).
 */
#ifndef PARTALIGN_CLI_FIX_PREPARE_H
#define PARTALIGN_CLI_FIX_PREPARE_H

#include "apply/look.h"
#include "cli/fix.h"
#include "core/device.h"

/*
 * Everything before the gate for disk @arg into @j: the lock, the scans,
 * the in-use checks, the plan and its refusals, the staged table.  Exit
 * bits: 4 with something to fix or a refusal (j->plan.refusal), 8 or 16
 * when it could not be planned (said on stderr).
 */
int fix_prepare(const struct fix_opts *o, const char *arg, struct fix_job *j);

/*
 * Say where apply_look() of @arg stopped, through @log (nothing when it got
 * through), and the scans' diagnostics.  Exit bits: 0 to go on, 8 or 16.
 */
int fix_look_said(struct msg_log *log, const char *arg, const struct apply_look *lk);

/*
 * apply_look(@arg, @wait_ms, APPLY_LOOK_SHOW) into @lk, and what
 * fix_look_said() says of it ("cannot look at it" when the look itself
 * failed).  Exit bits: 0 to go on.  @lk is to be freed either way.
 */
int fix_look(struct msg_log *log, const char *arg, int wait_ms, struct apply_look *lk);

#endif
