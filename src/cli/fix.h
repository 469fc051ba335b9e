/*
 * The types of a plan, fix or resume run, shared by the files that carry
 * it out: the options (struct fix_opts, set by fix-opts.c or by resume and
 * provision themselves) and one disk's state from its scan to its result
 * (struct fix_job).  No functions: each fix-*.c file has its own header.
 * The calls go one way: cmd-plan.c, cmd-fix.c, cmd-resume.c and
 * provision-probe.c -> fix-run.c -> fix-prepare.c (fix-move.c), fix-table.c,
 * fix-advice.c, fix-write.c -> src/apply.
 */
#ifndef PARTALIGN_CLI_FIX_H
#define PARTALIGN_CLI_FIX_H

#include <stdbool.h>

#include "apply/apply.h"
#include "apply/move.h"
#include "cli/cli.h"
#include "core/device.h"
#include "core/plan.h"

struct fix_move_opts {
	const char *journal_dir; /* NULL: move_journal_dir_default() */
	bool verify;
	bool quiet;
	bool resume_only; /* resume: never start a move, only finish one */
};

struct fix_opts {
	bool fix;
	bool yes;
	const char *name;
	const char *backup_dir;
	int wait_ms;
	struct pa_plan_opts plan;
	struct out_opts out;
	struct fix_move_opts move; /* --move-data: journal, --verify, --quiet */
	struct msg_log *log;	   /* a caller's (provision): the errors of the run */
};

/* A partition's file system off the device's stripe, and the mkfs that matches;
   or an ASM member off its grain and ASM's online move (@asm_group set). */
struct fix_fsadv {
	unsigned int num;
	char *reason;
	char *fix;
	char *asm_group;
};

/* One disk of fix_run(), from its scan to what was written. */
struct fix_job {
	struct pa_devlist
	    devs; /* this disk and its neighbourhood, scanned under the lock */
	const struct pa_dev *dev;
	struct pa_disk disk;
	bool opened;
	struct pa_proof *proof; /* what the plan was made from, proven at the gate */
	struct pa_shadow *sh;
	struct pa_plan plan;
	bool planned;
	bool kernel_stale; /* the kernel's partitions differ from the table */
	char *backup;
	const char *result;
	struct pa_mover *mv;	/* --move-data: the journal, once opened or created */
	bool nothing_to_resume; /* resume: the disk records no move */
	/* a stacked device (LV, crypt, dm) off its grain: what is off, and the
	   command for the layer that would fix it (partalign writes nothing there) */
	char *stack_reason;
	char *advice;
	/* plan: file systems on the disk's partitions made for another stripe */
	struct fix_fsadv *fsadv;
	size_t nfsadv;
	/* plan: who holds what, read from /proc once for the run (NULL: fix,
	   which looks again for each disk before its question) */
	struct pa_opener_index *openers;
};

#endif
