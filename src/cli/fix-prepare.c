/*
 * One disk of plan and fix up to the question: the look every writer shares
 * (apply_look: the scan, the lock, the claiming open, the scan under the
 * lock, why it is in use), said here; then the proof (the processes that
 * have it open), its table read into a shadow, the plan with its refusals,
 * an unfinished move (fix-move.c), and the new table staged so libparted
 * has accepted it before anyone is asked.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "apply/apply.h"
#include "apply/look.h"
#include "cli/cli.h"
#include "cli/fix-move.h"
#include "cli/fix-prepare.h"
#include "cli/fix-write.h"
#include "core/exitcodes.h"
#include "core/plan.h"
#include "core/refusal.h"
#include "scan/scan.h"

int fix_look_said(struct msg_log *log, const char *arg, const struct apply_look *lk)
{
	const struct pa_dev *dev = lk->dev;

	msg_log_diags(log, &lk->diags);
	switch (lk->stop) {
	case APPLY_LOOK_OK:
		return PA_EXIT_OK;
	case APPLY_LOOK_SCAN:
		if (lk->err == -ENOTBLK)
			msg_log_err(log, arg, 0, "not a block device");
		else if (lk->err == -ENODEV)
			msg_log_err(log, arg, 0, "not a disk partalign can fix");
		else
			msg_log_err(log, arg, -lk->err, "cannot open");
		return PA_EXIT_ERROR;
	case APPLY_LOOK_PART:
		msg_log_err(log, arg, 0, "is a partition: name its whole disk%s%s",
			    dev->disk ? ", " : "", dev->disk ? dev->disk->path : "");
		return PA_EXIT_USAGE;
	case APPLY_LOOK_RESCAN:
		msg_log_err(log, arg, -lk->err, "cannot scan");
		return PA_EXIT_ERROR;
	case APPLY_LOOK_CHANGED:
		msg_log_err(
		    log, NULL, 0,
		    "refused: %s changed while waiting for its lock (was %u:%u, now "
		    "%u:%u)",
		    arg, major(lk->was), minor(lk->was), major(lk->now), minor(lk->now));
		return PA_EXIT_ERROR;
	case APPLY_LOOK_LOCKED: {
		/* who holds the lock, from /proc/locks: partalign, udev, another */
		char *who = fix_locked_text(&lk->disk);

		msg_log_err(log, dev->path, who ? 0 : ENOMEM, "%s",
			    who ? who : "locked by another process");
		free(who);
		return PA_EXIT_ERROR;
	}
	case APPLY_LOOK_OPEN:
		msg_log_err(log, dev->path, -lk->err, "cannot open");
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_ERROR;
}

int fix_look(struct msg_log *log, const char *arg, int wait_ms, struct apply_look *lk)
{
	int rc = apply_look(arg, wait_ms, APPLY_LOOK_SHOW, lk);

	if (rc < 0) {
		msg_log_err(log, arg, -rc, "cannot look at it");
		return PA_EXIT_ERROR;
	}
	return fix_look_said(log, arg, lk);
}

/* The look's disk and scan into @j (which owns them from now on); its in-use reason. */
static char *look_take(struct apply_look *lk, struct fix_job *j)
{
	char *inuse = lk->inuse;

	j->devs = lk->devs;
	j->dev = lk->dev;
	j->disk = lk->disk;
	j->opened = lk->opened;
	memset(&lk->devs, 0, sizeof(lk->devs));
	lk->opened = false;
	lk->inuse = NULL;
	return inuse;
}

/* Would the plan re-create, move, create or drop a partition? */
static bool moves_partitions(const struct pa_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].kind != PA_STEP_KEEP)
			return true;
	return false;
}

int fix_prepare(const struct fix_opts *o, const char *arg, struct fix_job *j)
{
	const struct pa_devlist *l = &j->devs;
	struct pa_diags msgs = {0};
	struct apply_look lk;
	const struct pa_dev *dev;
	char *inuse = NULL, dmg[256];
	int rc, st;

	st = fix_look(o->log, arg, o->wait_ms, &lk);
	if (st == PA_EXIT_OK)
		inuse = look_take(&lk, j);
	apply_look_free(&lk);
	if (st)
		return st;
	dev = j->dev;
	rc = 0;
	/* a process that opened the disk or a partition without O_EXCL (ASM, dd) */
	if (!inuse && (rc = apply_proof_take(&j->disk, l, dev, &j->proof)) == 0 &&
	    apply_proof_openers(j->proof, j->openers) == -EBUSY)
		inuse = fix_change_text(apply_proof_change(j->proof), l);
	/* a map: users no process shows (a mount, LVM) are in its open counts */
	if (!inuse && rc == 0 && dev->kind == PA_KIND_MPATH)
		inuse = apply_map_in_use(l, dev);
	{
		struct pa_table t;

		if (!j->proof)
			rc = apply_proof_take(&j->disk, l, dev, &j->proof);
		if (rc == 0)
			rc = apply_table_read(&j->disk, &j->sh, &t, &msgs);
		if (rc == 0) {
			j->kernel_stale = plan_kernel_stale(l, dev, &t);
			rc = plan_compute(&t, &dev->topo, &o->plan, &j->plan);
		}
		if (rc == 0)
			rc = fix_move_prepare(o->log, &o->move, &o->plan, l, dev,
					      &j->plan, &j->mv);
	}
	if (rc == 0 && o->move.resume_only && !j->plan.table.marked && !j->plan.refusal) {
		j->planned = true;
		j->nothing_to_resume = true;
		free(inuse);
		return PA_EXIT_OK;
	}
	if (rc < 0) {
		msg_log_diags(o->log, &msgs);
		msg_log_err(o->log, dev->path, -rc, "cannot read the partition table");
		diags_free(&msgs);
		free(inuse);
		return PA_EXIT_ERROR;
	}
	j->planned = true;
	if (j->plan.table.label == PA_LABEL_MSDOS && j->plan.table.other_gpt)
		msg_warn(dev->path,
			 "a valid GPT header is on the disk too (%s), beside its dos "
			 "table: read as dos, as the kernel and libparted read it; a "
			 "dos -> GPT conversion that stopped, or another tool's leftover",
			 j->plan.table.other_gpt == 1 ? "sector 1" : "the last sector");
	if (!j->plan.refusal && j->plan.changes &&
	    plan_table_damage(&j->plan.table, dmg, sizeof(dmg)))
		msg_warn(dev->path, "%s: fix rewrites both copies", dmg);
	/* a disk in use is refused only when something would be written to it */
	if (inuse && refusal_in_use_applies(&j->plan, j->kernel_stale))
		rc = refusal_replace(&j->plan, inuse);
	free(inuse);
	if (rc == 0)
		rc = fix_move_check_location(&o->move, &o->plan, l, dev, &j->plan);
	if (rc == 0 && !j->plan.refusal && j->plan.changes) {
		/* plan and fix both stage: libparted must accept the new table */
		rc = o->plan.move_data
			 ? move_table_stage(j->sh, &j->plan,
					    j->mv ? move_journal(j->mv) : NULL, &msgs)
			 : apply_table_stage(j->sh, &j->plan, o->name, &msgs);
		if (rc < 0) {
			msg_log_diags(o->log, &msgs);
			msg_log_err(o->log, dev->path, -rc,
				    "libparted refused the new table");
			diags_free(&msgs);
			return PA_EXIT_ERROR;
		}
	}
	diags_free(&msgs);
	if (j->plan.refusal)
		return PA_EXIT_MISALIGNED;
	if (moves_partitions(&j->plan))
		return PA_EXIT_MISALIGNED; /* what `plan` reports; `fix` acts on it */
	if (j->plan.changes || j->kernel_stale)
		return PA_EXIT_UPKEEP; /* to write, but every partition stays */
	return PA_EXIT_OK;
}
