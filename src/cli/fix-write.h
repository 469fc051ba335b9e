/*
 * fix past its confirmation (fix-write.c): the write sequence of src/apply
 * and what it tells.
 */
#ifndef PARTALIGN_CLI_FIX_WRITE_H
#define PARTALIGN_CLI_FIX_WRITE_H

#include "apply/apply.h"
#include "apply/execute.h"
#include "cli/fix.h"

/*
 * What apply_proof_change() found, as words for a message ("the primary
 * GPT entries changed (byte 1536)", "/dev/sdb1 is open by process 4242
 * (dd)"); device numbers named from @l.  malloc'd, NULL on ENOMEM.
 */
char *fix_change_text(const struct pa_change *c, const struct pa_devlist *l);

/*
 * The refusal of a write that stopped at APPLY_STAGE_TAKE: the kernel
 * would not let partition r->num of @disk go; what holds it, as far as
 * it can be found (cli_holder_text).
 */
void fix_take_refused(struct msg_log *log, const struct pa_devlist *l,
		      const struct pa_dev *disk, const struct apply_result *r);

/*
 * Past the confirmation: write @j's plan (apply_execute), tell what
 * happened, set j->result and j->backup.  Returns exit bits.
 */
int fix_execute(const struct fix_opts *o, struct fix_job *j);

#endif
