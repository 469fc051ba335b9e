/*
 * One disk of plan and fix up to the question: scan it, take its lock, open
 * it (O_EXCL, read-only), scan it again under the lock, say why it is in
 * use, read its table into a shadow, compute the plan with its refusals,
 * an unfinished move (fix-move.c), and stage the new table so libparted
 * has accepted it before anyone is asked.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "apply/apply.h"
#include "cli/cli.h"
#include "cli/fix-move.h"
#include "cli/fix-prepare.h"
#include "cli/fix-write.h"
#include "core/exitcodes.h"
#include "core/plan.h"
#include "core/refusal.h"
#include "scan/scan.h"

/* Scan @arg's neighbourhood into j->devs and find it there. */
static int scan_one(struct msg_log *log, const char *arg, struct fix_job *j,
		    struct pa_dev **dev)
{
	char *names[] = {(char *)arg};
	struct pa_scan_opts so = {.names = names, .nnames = 1};
	struct pa_diags diags = {0};
	int rc;

	devlist_free(&j->devs);
	rc = scan_devices(&so, &j->devs, &diags);
	msg_log_diags(log, &diags);
	diags_free(&diags);
	return rc < 0 ? rc : scan_lookup(&j->devs, arg, dev);
}

/*
 * The open counts plan_refusal_map_in_use() judges multipath map @map by:
 * its own and those of its kpartx partition maps.
 */
char *fix_map_in_use(const struct pa_devlist *l, const struct pa_dev *map)
{
	int *opens = calloc(l->n ? l->n : 1, sizeof(*opens));
	char *why;
	size_t i;

	if (!opens)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];

		opens[i] = -1;
		if ((d == map ||
		     (d->kind == PA_KIND_PART && d->disk == map && d->dm_uuid)) &&
		    scan_dm_open_count(d->major, d->minor, &opens[i]) < 0)
			opens[i] = -1;
	}
	why = plan_refusal_map_in_use(l, map, opens);
	free(opens);
	return why;
}

/*
 * Scan @arg, open and lock it, and scan again under the lock.  Exit bits:
 * 0 to go on with *devp, and the open's result in *open_rc (-EBUSY: the
 * disk is in use, -EWOULDBLOCK: locked, other -errno: not opened).
 */
static int lock_disk(const struct fix_opts *o, const char *arg, struct fix_job *j,
		     struct pa_dev **devp, int *open_rc)
{
	struct pa_dev *dev = NULL;
	dev_t was, now = 0;
	int rc;

	rc = scan_one(o->log, arg, j, &dev);
	if (rc < 0) {
		if (rc == -ENOTBLK)
			msg_log_err(o->log, arg, 0, "not a block device");
		else if (rc == -ENODEV)
			msg_log_err(o->log, arg, 0, "not a disk partalign can fix");
		else
			msg_log_err(o->log, arg, -rc, "cannot open");
		return PA_EXIT_ERROR;
	}
	if (dev->kind == PA_KIND_PART) {
		msg_log_err(o->log, arg, 0, "is a partition: name its whole disk%s%s",
			    dev->disk ? ", " : "", dev->disk ? dev->disk->path : "");
		return PA_EXIT_USAGE;
	}
	/*
	 * A multipath map is claimed by its own kpartx partition maps, so it
	 * cannot be opened O_EXCL; its users are counted instead (fix_map_in_use).
	 */
	was = makedev(dev->major, dev->minor);
	rc = apply_disk_open(
	    dev->path, PA_DISK_LOCK | (dev->kind == PA_KIND_MPATH ? 0 : PA_DISK_EXCL),
	    o->wait_ms, &j->disk);
	/* what another holder of the lock did is visible only now: scan again */
	if (rc == 0 && (rc = scan_one(o->log, arg, j, &dev)) < 0) {
		msg_log_err(o->log, arg, -rc, "cannot scan");
		return PA_EXIT_ERROR;
	}
	if (rc == 0 && (apply_disk_same(&j->disk, major(was), minor(was), &now) < 0 ||
			(now = makedev(dev->major, dev->minor)) != was)) {
		msg_log_err(
		    o->log, NULL, 0,
		    "refused: %s changed while waiting for its lock (was %u:%u, now "
		    "%u:%u)",
		    arg, major(was), minor(was), major(now), minor(now));
		apply_disk_close(&j->disk);
		return PA_EXIT_ERROR;
	}
	*devp = dev;
	*open_rc = rc;
	return PA_EXIT_OK;
}

int fix_open_look(struct msg_log *log, const struct pa_devlist *l,
		  const struct pa_dev *dev, int rc, struct pa_disk *disk, char **inuse)
{
	*inuse = plan_refusal_in_use(l, dev);
	if (rc == -EBUSY) {
		if (!*inuse)
			*inuse = refusal_busy(dev->name);
		/* still show the plan: look without claiming, never to write */
		rc = apply_disk_open(dev->path, 0, 0, disk);
	}
	if (rc == -EWOULDBLOCK)
		msg_log_err(log, dev->path, 0,
			    "locked by another process (partalign or udev); try again");
	else if (rc < 0)
		msg_log_err(log, dev->path, -rc, "cannot open");
	if (rc < 0) {
		free(*inuse);
		*inuse = NULL;
		return PA_EXIT_ERROR;
	}
	/* write-protected: refused like a disk in use, before any backup or journal */
	if (!*inuse && apply_disk_is_readonly(disk))
		*inuse = refusal_readonly(dev->path);
	return PA_EXIT_OK;
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
	struct pa_dev *dev = NULL;
	char *inuse = NULL, dmg[256];
	int rc, st;

	st = lock_disk(o, arg, j, &dev, &rc);
	if (st)
		return st;
	j->dev = dev;
	st = fix_open_look(o->log, l, dev, rc, &j->disk, &inuse);
	if (st)
		return st;
	j->opened = true;
	rc = 0;
	/* a process that opened the disk or a partition without O_EXCL (ASM, dd) */
	if (!inuse && (rc = apply_proof_take(&j->disk, l, dev, &j->proof)) == 0 &&
	    apply_proof_openers(j->proof) == -EBUSY)
		inuse = fix_change_text(apply_proof_change(j->proof), l);
	/* a map: users no process shows (a mount, LVM) are in its open counts */
	if (!inuse && rc == 0 && dev->kind == PA_KIND_MPATH)
		inuse = fix_map_in_use(l, dev);
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
