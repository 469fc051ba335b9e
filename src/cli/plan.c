/*
 * partalign plan and fix, and fix_run() that resume shares.  `plan` is
 * `fix` that stops at the write gate: both scan the named disks, lock
 * them, read each table into a shadow, compute the plan, stage it in the
 * shadow with libparted and show it.  Only `fix` then hands the disk to
 * fix_execute() (fix.c), whose apply_execute() opens the gate.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "apply/apply.h"
#include "cli/cli.h"
#include "cli/fix.h"
#include "cli/trusted.h"
#include "core/exitcodes.h"
#include "core/plan.h"
#include "core/units.h"
#include "scan/scan.h"

enum {
	PC_DISK,
	PC_LABEL,
	PC_NUM,
	PC_NAME,
	PC_TYPE,
	PC_ACTION,
	PC_OLD_START,
	PC_OLD_END,
	PC_OLD_SIZE,
	PC_NEW_START,
	PC_NEW_END,
	PC_NEW_SIZE,
	PC_OLD_PHYS,
	PC_OLD_OPT,
	PC_OLD_POLICY,
	PC_NEW_PHYS,
	PC_NEW_OPT,
	PC_NEW_POLICY,
	PC_DESTROYS,
	PC_GRAIN,
	PC_REFUSED,
	PC_NOTE,
	PC_RESULT,
	PC_BACKUP,
	PC_ADVICE,
};

#define N OUT_JSON_NUMBER
#define S OUT_JSON_STRING
#define R SCOLS_FL_RIGHT
static const struct out_col pcols[] = {
    [PC_DISK] = {"DISK", 0.1, 0, S, "whole disk or multipath map (/dev/mapper/NAME)"},
    [PC_LABEL] = {"LABEL", 6, 0, S, "partition table type: old->new"},
    [PC_NUM] = {"NUM", 2, R, N, "partition number (kept)"},
    [PC_NAME] = {"NAME", 0.1, SCOLS_FL_TRUNC, S, "partition name (GPT), kept"},
    [PC_TYPE] = {"TYPE", 0.1, SCOLS_FL_TRUNC, S, "GPT type GUID or dos system id"},
    [PC_ACTION] = {"ACTION", 6, 0, S, "keep, recreate, create, drop"},
    [PC_OLD_START] = {"OLD-START", 8, R, N,
		      "current start: bytes; on a terminal sectors (63s)"},
    [PC_OLD_END] = {"OLD-END", 8, R, N, "current last byte"},
    [PC_OLD_SIZE] = {"OLD-SIZE", 6, R, N, "current size"},
    [PC_NEW_START] = {"NEW-START", 8, R, N,
		      "planned start: bytes; on a terminal sectors"},
    [PC_NEW_END] = {"NEW-END", 8, R, N, "planned last byte"},
    [PC_NEW_SIZE] = {"NEW-SIZE", 6, R, N, "planned size"},
    [PC_OLD_PHYS] = {"OLD-PHYS", 4, 0, S, "PHYSICAL verdict now"},
    [PC_OLD_OPT] = {"OLD-OPT", 4, 0, S, "OPTIMAL verdict now"},
    [PC_OLD_POLICY] = {"OLD-POLICY", 4, 0, S, "POLICY verdict now"},
    [PC_NEW_PHYS] = {"NEW-PHYS", 4, 0, S, "PHYSICAL verdict after the fix"},
    [PC_NEW_OPT] = {"NEW-OPT", 4, 0, S, "OPTIMAL verdict after the fix"},
    [PC_NEW_POLICY] = {"NEW-POLICY", 4, 0, S, "POLICY verdict after the fix"},
    [PC_DESTROYS] = {"DESTROYS", 0.1, 0, S, "signature the fix would destroy"},
    [PC_GRAIN] = {"GRAIN", 6, R, N, "placement grain, bytes"},
    [PC_REFUSED] = {"REFUSED", 0.2, SCOLS_FL_TRUNC, S,
		    "why the disk will not be touched"},
    [PC_NOTE] = {"NOTE", 0.1, SCOLS_FL_TRUNC, S, "size changes and other remarks"},
    [PC_RESULT] = {"RESULT", 0.1, 0, S, "fix: what happened"},
    [PC_BACKUP] = {"BACKUP", 0.1, 0, S, "fix: the table backup file"},
    [PC_ADVICE] = {"ADVICE", 0.1, 0, S,
		   "stacked device off its grain: the command for the layer that "
		   "would fix it"},
};
#undef N
#undef S
#undef R

/*
 * A table to a terminal: what fits 80 columns; the verdicts with -o.  A
 * refusal is said on stderr there (add_rows), in full.
 */
static const int terminal_defaults[] = {PC_DISK,      PC_NUM,	    PC_NAME,
					PC_ACTION,    PC_OLD_START, PC_OLD_SIZE,
					PC_NEW_START, PC_NEW_SIZE,  PC_DESTROYS};
/* A table to a pipe or file: the columns it always had */
static const int plan_defaults[] = {
    PC_DISK,	 PC_NUM,	PC_NAME,     PC_ACTION,	  PC_OLD_START,
    PC_OLD_SIZE, PC_NEW_START,	PC_NEW_SIZE, PC_OLD_PHYS, PC_OLD_POLICY,
    PC_NEW_PHYS, PC_NEW_POLICY, PC_DESTROYS, PC_REFUSED};
static const int script_defaults[] = {
    PC_DISK,	 PC_LABEL,     PC_NUM,	      PC_NAME,	   PC_TYPE,
    PC_ACTION,	 PC_OLD_START, PC_OLD_END,    PC_OLD_SIZE, PC_NEW_START,
    PC_NEW_END,	 PC_NEW_SIZE,  PC_OLD_PHYS,   PC_OLD_OPT,  PC_OLD_POLICY,
    PC_NEW_PHYS, PC_NEW_OPT,   PC_NEW_POLICY, PC_DESTROYS, PC_GRAIN,
    PC_REFUSED,	 PC_NOTE,      PC_RESULT,     PC_BACKUP,   PC_ADVICE};

static void job_free(struct fix_job *j)
{
	apply_proof_free(j->proof);
	apply_shadow_free(j->sh);
	if (j->opened)
		apply_disk_close(&j->disk);
	plan_free(&j->plan);
	free(j->backup);
	fix_advice_free(j);
	move_free(j->mv);
	devlist_free(&j->devs);
}

static void set_verdicts(struct libscols_line *ln, size_t i, int col,
			 const struct pa_check *c)
{
	switch (col) {
	case PC_OLD_PHYS:
	case PC_NEW_PHYS:
		out_set_str(ln, i, align_verdict_name(c->physical));
		break;
	case PC_OLD_OPT:
	case PC_NEW_OPT:
		out_set_str(ln, i, align_verdict_name(c->optimal));
		break;
	default:
		out_set_str(ln, i, align_verdict_name(c->policy));
		break;
	}
}

/* The NOTE of a row: what the plan did that the other columns do not say. */
static const char *row_note(const struct fix_job *j, const struct pa_step *s)
{
	const struct pa_plan *p = &j->plan;

	if (s && s->resized)
		return "size rounded down to the grain to fit";
	if (j->planned && p->table.damaged && !p->refusal)
		return "a damaged GPT copy: fix rewrites both";
	if (j->planned && plan_gpt_end(&p->table) == PA_GPT_END_GROWN && !p->refusal &&
	    p->changes)
		return "the disk grew: fix writes the backup GPT at its end";
	if (!s && j->kernel_stale)
		return "the kernel's partitions differ from the table";
	if (!s && j->planned && !p->refusal)
		return "no partitions";
	return NULL;
}

/*
 * NOTE (@advice false) or ADVICE of a row: the plan's remark, else a
 * partition's file-system advice, else the stacked device's.
 */
static const char *row_text(const struct fix_job *j, const struct pa_step *s, bool advice)
{
	const struct fix_fsadv *f = s ? fix_fsadv_of(j, s->num) : NULL;

	if (advice)
		return f ? f->fix : j->advice;
	if (row_note(j, s))
		return row_note(j, s);
	return f ? f->reason : j->stack_reason;
}

static int add_row(const struct fix_opts *o, struct libscols_table *tb, const int *sel,
		   size_t nsel, const struct fix_job *j, const struct pa_step *s)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	const struct pa_plan *p = &j->plan;
	char buf[128];
	size_t i;

	if (!ln)
		return -ENOMEM;
	for (i = 0; i < nsel; i++) {
		switch (sel[i]) {
		case PC_DISK:
			/* a multipath map by the name lsblk and multipath -ll give it */
			if (j->dev->dm_name &&
			    snprintf(buf, sizeof(buf), "/dev/mapper/%s",
				     j->dev->dm_name) < (int)sizeof(buf))
				out_set_str(ln, i, buf);
			else
				out_set_str(ln, i, j->dev->path);
			break;
		case PC_LABEL:
			if (j->planned) {
				snprintf(buf, sizeof(buf), "%s->%s",
					 plan_label_name(p->table.label),
					 plan_label_name(p->new_label));
				out_set_str(ln, i, buf);
			}
			break;
		case PC_NUM:
			if (s)
				out_set_u64(ln, i, s->num);
			break;
		case PC_NAME:
			if (s && s->kind == PA_STEP_CREATE)
				out_set_str(ln, i, o->name);
			else if (s && s->old)
				out_set_str(ln, i, s->old->name);
			break;
		case PC_TYPE:
			if (s && s->old)
				out_set_str(ln, i, s->old->type);
			break;
		case PC_ACTION:
			out_set_str(ln, i, s ? plan_step_name(s->kind) : "none");
			break;
		case PC_OLD_START:
			if (s && s->old)
				out_set_start(&o->out, ln, i, s->old->start,
					      j->dev->topo.logical);
			break;
		case PC_OLD_END:
			if (s && s->old)
				out_set_u64(ln, i, s->old->start + s->old->size - 1);
			break;
		case PC_OLD_SIZE:
			if (s && s->old)
				out_set_size(&o->out, ln, i, s->old->size);
			break;
		case PC_NEW_START:
			if (s && s->kind != PA_STEP_DROP)
				out_set_start(&o->out, ln, i, s->new_start,
					      j->dev->topo.logical);
			break;
		case PC_NEW_END:
			if (s && s->kind != PA_STEP_DROP)
				out_set_u64(ln, i, s->new_start + s->new_size - 1);
			break;
		case PC_NEW_SIZE:
			if (s && s->kind != PA_STEP_DROP)
				out_set_size(&o->out, ln, i, s->new_size);
			break;
		case PC_OLD_PHYS:
		case PC_OLD_OPT:
		case PC_OLD_POLICY:
			if (s && s->old && s->kind != PA_STEP_DROP)
				set_verdicts(ln, i, sel[i], &s->before);
			break;
		case PC_NEW_PHYS:
		case PC_NEW_OPT:
		case PC_NEW_POLICY:
			if (s && s->kind != PA_STEP_DROP)
				set_verdicts(ln, i, sel[i], &s->after);
			break;
		case PC_DESTROYS:
			if (s && s->old && s->kind == PA_STEP_RECREATE)
				out_set_str(ln, i, s->old->signature);
			else if (s && s->kind == PA_STEP_CREATE)
				out_set_str(ln, i, p->table.signature);
			break;
		case PC_GRAIN:
			if (j->planned && p->place_grain)
				out_set_u64(ln, i, p->place_grain);
			break;
		case PC_REFUSED:
			out_set_str(ln, i, p->refusal);
			break;
		case PC_NOTE:
			out_set_str(ln, i, row_text(j, s, false));
			break;
		case PC_RESULT:
			out_set_str(ln, i, j->result);
			break;
		case PC_BACKUP:
			out_set_str(ln, i, j->backup);
			break;
		case PC_ADVICE:
			out_set_str(ln, i, row_text(j, s, true));
			break;
		}
	}
	return 0;
}

static int add_rows(const struct fix_opts *o, struct libscols_table *tb, const int *sel,
		    size_t nsel, const struct fix_job *j)
{
	size_t i;
	int rc = 0;

	/* a terminal table has no REFUSED column (fix says it on stderr itself) */
	if (o->out.terminal && !o->fix && j->plan.refusal)
		msg_warn(j->dev->path, "fix would refuse it: %s", j->plan.refusal);
	if (!j->plan.n)
		return add_row(o, tb, sel, nsel, j, NULL);
	for (i = 0; i < j->plan.n && rc == 0; i++)
		rc = add_row(o, tb, sel, nsel, j, &j->plan.v[i]);
	return rc;
}

/* Replace any refusal by @why: being in use outranks everything else. */
static int refuse_first(struct pa_plan *p, const char *why)
{
	free(p->refusal);
	p->refusal = NULL;
	return plan_refuse(p, "%s", why);
}

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

/* Everything before the gate.  Returns exit bits. */
static int prepare(const struct fix_opts *o, const char *arg, struct fix_job *j)
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
	inuse = plan_refusal_in_use(l, dev);
	if (rc == -EBUSY) {
		if (!inuse &&
		    asprintf(&inuse, "%s cannot be opened exclusively: it is in use",
			     dev->name) < 0)
			inuse = NULL;
		/* still show the plan: look without claiming, never to write */
		rc = apply_disk_open(dev->path, 0, 0, &j->disk);
	}
	if (rc == -EWOULDBLOCK) {
		msg_log_err(o->log, dev->path, 0,
			    "locked by another process (partalign or udev); try again");
		free(inuse);
		return PA_EXIT_ERROR;
	}
	if (rc < 0) {
		msg_log_err(o->log, dev->path, -rc, "cannot open");
		free(inuse);
		return PA_EXIT_ERROR;
	}
	j->opened = true;
	/* write-protected: refused like a disk in use, before any backup or journal */
	if (!inuse && apply_disk_is_readonly(&j->disk) &&
	    asprintf(&inuse, "%s is read-only (write-protected)", dev->path) < 0)
		inuse = NULL;
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
			rc = cli_move_prepare(o->log, &o->move, &o->plan, l, dev,
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
	if (!j->plan.refusal && j->plan.changes &&
	    plan_table_damage(&j->plan.table, dmg, sizeof(dmg)))
		msg_warn(dev->path, "%s: fix rewrites both copies", dmg);
	/* a disk in use is refused only when something would be written to it */
	if (inuse && (j->plan.changes || j->kernel_stale || j->plan.refusal))
		rc = refuse_first(&j->plan, inuse);
	free(inuse);
	if (rc == 0)
		rc = cli_move_check_location(&o->move, &o->plan, l, dev, &j->plan);
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
	if (j->plan.changes || j->kernel_stale)
		return PA_EXIT_MISALIGNED; /* what `plan` reports; `fix` acts on it */
	return PA_EXIT_OK;
}

static bool confirm(const struct fix_job *j)
{
	char line[16];
	size_t i, moves = 0;

	for (i = 0; i < j->plan.n; i++)
		moves += j->plan.v[i].kind == PA_STEP_MOVE;
	if (moves)
		fprintf(stderr,
			"Move the data of %zu partition%s and rewrite the table of %s? "
			"[y/N] ",
			moves, moves == 1 ? "" : "s", j->dev->path);
	else
		fprintf(stderr, "Re-create the partition table of %s%s? [y/N] ",
			j->dev->path,
			j->plan.destroys ? " and wipe the signatures listed" : "");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

/*
 * Wait (30 s at most) until udevd has handled the events of the new
 * partitions, as udevadm settle does: libudev's view of udevd's queue.
 */
static void settle(void)
{
	struct udev *udev;
	struct udev_queue *q;
	int waited;

	if (access("/run/udev/control", F_OK) != 0)
		return; /* no udevd: nothing to wait for */
	udev = udev_new();
	q = udev ? udev_queue_new(udev) : NULL;
	for (waited = 0; q && waited < 30000 && !udev_queue_get_queue_is_empty(q);
	     waited += 50)
		usleep(50 * 1000);
	udev_queue_unref(q);
	udev_unref(udev);
}

static void usage(FILE *f, bool fix)
{
	fprintf(
	    f,
	    "Usage: partalign %s [options] DEVICE...\n"
	    "\n"
	    "%s"
	    "\n"
	    "Options:\n"
	    "  -a, --align SIZE      policy grain (default 2MiB; units s, B, KiB, MiB"
	    "...)\n"
	    "      --label gpt|keep  gpt (default) converts a dos table; keep keeps it "
	    "dos\n"
	    "      --new             partition a blank disk: one partition, grain to "
	    "grain\n"
	    "      --name NAME       GPT name of the partition made by --new\n"
	    "      --discard-data    allow destroying signatures, and wipe them\n"
	    "      --move-data       move misaligned partitions' data to aligned starts\n"
	    "      --journal DIR     where --move-data keeps its journal\n"
	    "                        (default %s)\n"
	    "      --verify          --move-data: re-read the moved data, compare "
	    "checksums\n"
	    "  -q, --quiet           --move-data: no progress on the terminal\n"
	    "%s"
	    "      --backup-dir DIR  where table backups go\n"
	    "                        (default %s/backup)\n"
	    "      --wait SECONDS    wait this long for the disk lock (default 10)\n"
	    "  -J, --json            JSON output\n"
	    "  -P, --pairs           KEY=\"value\" output\n"
	    "  -r, --raw             raw output\n"
	    "  -n, --noheadings      no column headings\n"
	    "  -b, --bytes           sizes and starts in bytes in the table\n"
	    "  -o, --output LIST     columns to print (+LIST appends to the defaults;\n"
	    "                        the verdicts on a terminal: -o "
	    "+OLD-POLICY,NEW-POLICY)\n"
	    "      --list-columns    list the columns and exit\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Exit status: 0 nothing to do, %s4 misalignment %s, 8 operational\n"
	    "error, 16 usage error (OR-ed together).  See partalign-%s(8).\n",
	    fix ? "fix" : "plan",
	    fix ? "Re-create the partitions of each DEVICE on the policy grain as GPT.\n"
		  "Refuses disks in use or holding data; saves the table first.\n"
		: "Show what 'partalign fix' would change on each DEVICE.  Writes "
		  "nothing.\n",
	    move_journal_dir_default(),
	    fix ? "  -y, --yes             do not ask for confirmation\n" : "",
	    PA_STATEDIR,
	    fix ? "1 fixed, 2 written but the kernel has the old\ntable, " : "",
	    fix ? "left (refused or partly done)" : "to fix (or refused)",
	    fix ? "fix" : "plan");
}

/* Options that do not go together, and a device to work on. */
static int parse_check(const struct fix_opts *o, bool no_device)
{
	if (o->plan.move_data && (o->plan.new_disk || o->plan.discard_data)) {
		msg_err(NULL, 0,
			"--move-data keeps the data: not with --new or --discard-data");
		return PA_EXIT_USAGE;
	}
	if (o->name && !o->plan.new_disk) {
		msg_err(NULL, 0, "--name goes with --new");
		return PA_EXIT_USAGE;
	}
	if (no_device) {
		msg_err(NULL, 0, "no device given");
		usage(stderr, o->fix);
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

static int parse(int argc, char **argv, struct fix_opts *o)
{
	enum {
		OPT_LABEL = 256,
		OPT_NEW,
		OPT_NAME,
		OPT_DISCARD,
		OPT_BACKUP,
		OPT_WAIT,
		OPT_COLS,
		OPT_MOVE,
		OPT_JOURNAL,
		OPT_VERIFY
	};
	static const struct option longopts[] = {
	    {"align", required_argument, NULL, 'a'},
	    {"label", required_argument, NULL, OPT_LABEL},
	    {"new", no_argument, NULL, OPT_NEW},
	    {"name", required_argument, NULL, OPT_NAME},
	    {"discard-data", no_argument, NULL, OPT_DISCARD},
	    {"move-data", no_argument, NULL, OPT_MOVE},
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"verify", no_argument, NULL, OPT_VERIFY},
	    {"quiet", no_argument, NULL, 'q'},
	    {"yes", no_argument, NULL, 'y'},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"wait", required_argument, NULL, OPT_WAIT},
	    {"json", no_argument, NULL, 'J'},
	    {"pairs", no_argument, NULL, 'P'},
	    {"raw", no_argument, NULL, 'r'},
	    {"noheadings", no_argument, NULL, 'n'},
	    {"bytes", no_argument, NULL, 'b'},
	    {"output", required_argument, NULL, 'o'},
	    {"list-columns", no_argument, NULL, OPT_COLS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, o->fix ? "a:yqJPrnbo:h" : "a:qJPrnbo:h",
				longopts, NULL)) != -1) {
		if (out_parse_opt(c, optarg, &o->out))
			continue;
		switch (c) {
		case 'a':
			if (!cli_parse_grain(optarg, &o->plan.grain))
				return PA_EXIT_USAGE;
			break;
		case OPT_LABEL:
			if (strcmp(optarg, "keep") == 0) {
				o->plan.keep_label = true;
			} else if (strcmp(optarg, "gpt") != 0) {
				msg_err(NULL, 0, "--label %s: expected gpt or keep",
					optarg);
				return PA_EXIT_USAGE;
			}
			break;
		case OPT_NEW:
			o->plan.new_disk = true;
			break;
		case OPT_NAME:
			if (strlen(optarg) > 36) {
				msg_err(NULL, 0, "--name: at most 36 characters (GPT)");
				return PA_EXIT_USAGE;
			}
			o->name = optarg;
			break;
		case OPT_DISCARD:
			o->plan.discard_data = true;
			break;
		case OPT_MOVE:
			o->plan.move_data = true;
			break;
		case OPT_JOURNAL:
			o->move.journal_dir = optarg;
			break;
		case OPT_VERIFY:
			o->move.verify = true;
			break;
		case 'q':
			o->move.quiet = true;
			break;
		case 'y':
			if (!o->fix) {
				msg_err(NULL, 0,
					"plan writes nothing: --yes belongs to fix");
				return PA_EXIT_USAGE;
			}
			o->yes = true;
			break;
		case OPT_BACKUP:
			o->backup_dir = optarg;
			break;
		case OPT_WAIT:
			if (!fix_parse_wait(optarg, &o->wait_ms))
				return PA_EXIT_USAGE;
			break;
		case OPT_COLS:
			out_list_columns(pcols, sizeof(pcols) / sizeof(pcols[0]));
			exit(PA_EXIT_OK);
		case 'h':
			usage(stdout, o->fix);
			exit(PA_EXIT_OK);
		default:
			usage(stderr, o->fix);
			return PA_EXIT_USAGE;
		}
	}
	return parse_check(o, optind == argc);
}

bool fix_parse_wait(const char *arg, int *ms)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < 0 || v > 3600) {
		msg_err(NULL, 0, "--wait %s: expected seconds (0-3600)", arg);
		return false;
	}
	*ms = (int)v * 1000;
	return true;
}

void fix_opts_init(struct fix_opts *o, bool fix)
{
	*o = (struct fix_opts){
	    .fix = fix, .wait_ms = 10000, .backup_dir = PA_STATEDIR "/backup"};
	o->plan.grain = PA_GRAIN_DEFAULT;
}

int fix_run(struct fix_opts *op, char *const *devices, size_t njobs)
{
	struct fix_opts o = *op;
	struct libscols_table *tb = NULL;
	struct fix_job *jobs = NULL;
	int sel[OUT_MAXCOLS];
	size_t nsel = 0, i;
	bool fix = o.fix;
	int status = PA_EXIT_OK;

	out_detect_terminal(&o.out);
	if (out_select(&o.out, pcols, sizeof(pcols) / sizeof(pcols[0]),
		       o.out.format != OUT_TABLE ? script_defaults
		       : o.out.terminal		 ? terminal_defaults
						 : plan_defaults,
		       o.out.format != OUT_TABLE ? sizeof(script_defaults) / sizeof(int)
		       : o.out.terminal		 ? sizeof(terminal_defaults) / sizeof(int)
						 : sizeof(plan_defaults) / sizeof(int),
		       sel, &nsel) < 0)
		return PA_EXIT_USAGE;
	if (fix && !o.yes && !isatty(STDIN_FILENO)) {
		msg_err(NULL, 0,
			"fix needs confirmation and standard input is not a terminal: "
			"use --yes");
		return PA_EXIT_USAGE;
	}
	{
		/* where backups and journals go or come from, before any disk */
		const char *dirs[] = {fix ? o.backup_dir : NULL,
				      o.plan.move_data ? o.move.journal_dir : NULL,
				      o.plan.move_data ? move_journal_dir_default()
						       : NULL};

		if (cli_trust_dirs(o.log, dirs, 3) != PA_EXIT_OK)
			return PA_EXIT_ERROR;
	}

	jobs = calloc(njobs ? njobs : 1, sizeof(*jobs));
	tb = out_table_new(&o.out, fix ? "fix" : "plan", pcols, sel, nsel);
	if (!jobs || !tb) {
		msg_log_err(o.log, NULL, ENOMEM, "cannot start");
		status |= PA_EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < njobs; i++) {
		struct fix_job *j = &jobs[i];
		int st = prepare(&o, devices[i], j), adv;

		adv = fix_stack_advice(&o, j, &st);
		if (fix_fs_advice(&o, j) < 0)
			st |= PA_EXIT_ERROR;
		st |= adv;
		if (j->advice)
			status |= PA_EXIT_MISALIGNED; /* fix cannot mend it either */

		if (!fix || !j->planned || (st & (PA_EXIT_ERROR | PA_EXIT_USAGE))) {
			status |= st;
			if (j->planned)
				add_rows(&o, tb, sel, nsel, j);
			continue;
		}
		/* fix: the write gate */
		if (j->nothing_to_resume) {
			j->result = "nothing to resume";
			if (o.out.format == OUT_TABLE)
				printf("%s: nothing to resume (the disk records no "
				       "unfinished "
				       "move)\n",
				       j->dev->path);
		} else if (j->plan.refusal) {
			msg_log_err(o.log, j->dev->path, 0, "refused: %s",
				    j->plan.refusal);
			j->result = "refused";
			status |= st;
		} else if (!j->plan.changes && !j->kernel_stale && !j->mv) {
			j->result = "nothing to do";
		} else {
			if (o.out.format == OUT_TABLE) {
				struct libscols_table *one =
				    out_table_new(&o.out, "fix", pcols, sel, nsel);

				if (one) {
					add_rows(&o, one, sel, nsel, j);
					out_print(one);
					scols_unref_table(one);
				}
			}
			if (!o.yes && !confirm(j)) {
				j->result = "not confirmed";
				status |= PA_EXIT_MISALIGNED;
			} else {
				status |= fix_execute(&o, j);
			}
		}
		if (o.out.format != OUT_TABLE)
			add_rows(&o, tb, sel, nsel, j);
		else if (j->result && !strcmp(j->result, "nothing to do"))
			printf("%s: nothing to do\n", j->dev->path);
		job_free(j);
		memset(j, 0, sizeof(*j));
		settle();
	}
	if (!fix || o.out.format != OUT_TABLE)
		status |= out_print(tb);
	if (!fix && o.out.format == OUT_TABLE)
		fix_print_advice(jobs, njobs);
out:
	for (i = 0; jobs && i < njobs; i++)
		job_free(&jobs[i]);
	free(jobs);
	scols_unref_table(tb);
	return status;
}

static int run(int argc, char **argv, bool fix)
{
	struct fix_opts o;
	int status;

	fix_opts_init(&o, fix);
	status = parse(argc, argv, &o);
	if (status)
		return status;
	return fix_run(&o, argv + optind, (size_t)(argc - optind));
}

int cmd_plan(int argc, char **argv)
{
	return run(argc, argv, false);
}

int cmd_fix(int argc, char **argv)
{
	return run(argc, argv, true);
}
