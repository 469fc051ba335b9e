/*
 * plan and fix above the partition table (fix-advice.c): a stacked device
 * judged at its place on the disks below, a partition's file system
 * against the stripe, and the command that would fix the layer to blame.
 */
#ifndef PARTALIGN_CLI_FIX_ADVICE_H
#define PARTALIGN_CLI_FIX_ADVICE_H

#include <stddef.h>

#include "cli/fix.h"

/*
 * After fix_prepare(): a stacked device (an LV, crypt or other dm device, an md
 * array) judged at its place on the disks below, with the PV labels and the
 * file system read as check --probe reads them, into j->stack_reason and
 * j->advice (the command for the layer blamed, and mkfs for a file system
 * off the stripe).  A stacked device without a partition table is not
 * refused for that (*st loses the bit).  Returns exit bits (4 with advice).
 */
int fix_stack_advice(const struct fix_opts *o, struct fix_job *j, int *st);

/*
 * plan on a disk: the file systems of its partitions read as check --probe
 * reads them, each one made for another stripe into j->fsadv.  Advice only:
 * the exit status stays what the partition table gives.  0 or -ENOMEM.
 */
int fix_fs_advice(const struct fix_opts *o, struct fix_job *j);

/*
 * plan on a disk: its partitions that hold a misaligned Oracle ASM disk
 * group member (headers read as check --asm reads them), each with ASM's
 * online move (fix-asm.c) into j->fsadv.  0 or -ENOMEM.
 */
int fix_asm_advice(const struct fix_opts *o, struct fix_job *j);

/* The advice of partition @num of @j, or NULL. */
const struct fix_fsadv *fix_fsadv_of(const struct fix_job *j, unsigned int num);

/*
 * One more advice for partition @num: @reason is taken (NULL: it could not
 * be made, -ENOMEM), @fix and @asm_group (NULL but for an ASM member)
 * copied.  0 or -ENOMEM (nothing added).
 */
int fix_fsadv_add(struct fix_job *j, unsigned int num, char *reason, const char *fix,
		  const char *asm_group);

/* What fix_stack_advice() and fix_fs_advice() kept in @j. */
void fix_advice_free(struct fix_job *j);

/* plan's table: each stacked device's and file system's advice below it */
void fix_print_advice(const struct fix_job *jobs, size_t n);

#endif
