/*
 * plan, fix and resume on the command line.  cmd_plan, cmd_fix (plan.c) and
 * cmd_resume (resume.c) parse their own options into a struct fix_opts and
 * run fix_run(); plan.c scans, plans and shows each disk and hands a fix
 * past its last refusal to fix_execute() (fix.c), which runs the write
 * sequence of src/apply and says what happened.  Calls go one way only:
 * resume.c -> plan.c -> fix.c -> move-cli.c.
 */
#ifndef PARTALIGN_FIX_H
#define PARTALIGN_FIX_H

#include <stdbool.h>

#include "apply/apply.h"
#include "apply/move.h"
#include "cli/cli.h"
#include "cli/move-cli.h"
#include "core/device.h"
#include "core/plan.h"

struct fix_opts {
	bool fix;
	bool yes;
	const char *name;
	const char *backup_dir;
	int wait_ms;
	struct pa_plan_opts plan;
	struct out_opts out;
	struct cli_move_opts move; /* --move-data: journal, --verify, --quiet */
	struct msg_log *log;	   /* a caller's (provision): the errors of the run */
};

/* The defaults of plan (@fix false) or fix. */
void fix_opts_init(struct fix_opts *o, bool fix);

/* --wait SECONDS into *ms; false with a message on error. */
bool fix_parse_wait(const char *arg, int *ms);

/*
 * Plan (o->fix false) or fix each of the @n @devices in turn, as the
 * options say, and print the table.  Returns the exit bits, OR-ed.
 */
int fix_run(struct fix_opts *o, char *const *devices, size_t n);

/*
 * A multipath map's users, from the device-mapper's open counts of the map
 * and its kpartx partition maps (plan_refusal_map_in_use() judges them):
 * a malloc'd reason, or NULL when it is not in use.
 */
char *fix_map_in_use(const struct pa_devlist *l, const struct pa_dev *map);

/* A partition's file system off the device's stripe, and the mkfs that matches. */
struct fix_fsadv {
	unsigned int num;
	char *reason;
	char *fix;
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
};

/*
 * After prepare(): a stacked device (an LV, crypt or other dm device, an md
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

/* The advice of partition @num of @j, or NULL. */
const struct fix_fsadv *fix_fsadv_of(const struct fix_job *j, unsigned int num);

/* What fix_stack_advice() and fix_fs_advice() kept in @j. */
void fix_advice_free(struct fix_job *j);

/* plan's table: each stacked device's and file system's advice below it */
void fix_print_advice(const struct fix_job *jobs, size_t n);

/*
 * What apply_proof_change() found, as words for a message ("the primary
 * GPT entries changed (byte 1536)", "/dev/sdb1 is open by process 4242
 * (dd)"); device numbers named from @l.  malloc'd, NULL on ENOMEM.
 */
char *fix_change_text(const struct pa_change *c, const struct pa_devlist *l);

/*
 * Past the confirmation: write @j's plan (apply_execute), tell what
 * happened, set j->result and j->backup.  Returns exit bits.
 */
int fix_execute(const struct fix_opts *o, struct fix_job *j);

#endif
