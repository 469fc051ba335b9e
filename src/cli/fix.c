/*
 * fix past its confirmation: the write sequence of src/apply
 * (apply_execute) with the hooks that show what happens while it runs,
 * and the messages, table cells and exit bits of its outcome.  The
 * journal and the progress of --move-data are move-cli.c's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "apply/execute.h"
#include "cli/fix.h"
#include "core/exitcodes.h"

/* The hooks of apply_execute(): what fix shows while it writes. */
struct fix_ctx {
	const struct fix_opts *o;
	struct fix_job *j;
	int status; /* exit bits of a journal or move hook that stopped it */
};

static int hook_journal(void *arg)
{
	struct fix_ctx *c = arg;
	struct fix_job *j = c->j;

	c->status = cli_move_journal_new(&c->o->move, j->dev, &j->disk, &j->plan, &j->mv);
	if (c->status != PA_EXIT_OK)
		return -ECANCELED;
	if (c->o->out.format == OUT_TABLE)
		printf("%s: move journal %s (move id %016" PRIx64 ")\n", j->dev->path,
		       move_path(j->mv), move_journal(j->mv)->move_id);
	return 0;
}

static void hook_saved(void *arg, const char *path)
{
	struct fix_ctx *c = arg;

	if (c->o->out.format == OUT_TABLE)
		printf("%s: table saved to %s\n", c->j->dev->path, path);
}

static int hook_move(void *arg, struct pa_writer *w)
{
	struct fix_ctx *c = arg;
	struct fix_job *j = c->j;

	c->status = cli_move_run(&c->o->move, j->dev, &j->disk, &j->plan, &j->mv, w,
				 c->o->out.format == OUT_TABLE);
	return c->status != PA_EXIT_OK ? -ECANCELED : 0;
}

static void hook_moved(void *arg)
{
	struct fix_ctx *c = arg;

	cli_move_done(c->j->dev, c->j->mv);
}

static void hook_diags(void *arg, const struct pa_diags *d)
{
	msg_diags(d);
}

static const char *area_name(enum pa_area a)
{
	switch (a) {
	case PA_AREA_SECTOR0:
		return "sector 0 (the MBR)";
	case PA_AREA_GPT_HEADER:
		return "the primary GPT header";
	case PA_AREA_GPT_ENTRIES:
		return "the primary GPT entries";
	case PA_AREA_GPT_BACKUP_ENTRIES:
		return "the backup GPT entries";
	case PA_AREA_GPT_BACKUP_HEADER:
		return "the backup GPT header";
	case PA_AREA_EBR:
		return "an extended boot record";
	case PA_AREA_DISK_START:
		return "the start of the disk";
	case PA_AREA_DISK_END:
		return "the end of the disk";
	default:
		return "the label";
	}
}

static const char *devno_name(const struct pa_devlist *l, dev_t devno)
{
	const struct pa_dev *d =
	    l ? devlist_find_devno(l, major(devno), minor(devno)) : NULL;
	static char buf[32];

	if (d)
		return d->path;
	snprintf(buf, sizeof(buf), "%u:%u", major(devno), minor(devno));
	return buf;
}

char *fix_change_text(const struct pa_change *c, const struct pa_devlist *l)
{
	char *s = NULL;
	int rc = -1;

	switch (c->kind) {
	case PA_CHANGE_SIZE:
		rc =
		    asprintf(&s, "its size changed from %" PRIu64 " to %" PRIu64 " bytes",
			     c->was, c->now);
		break;
	case PA_CHANGE_SECTORS:
		rc = asprintf(&s,
			      "its sectors changed from %" PRIu64 "/%" PRIu64
			      " to %" PRIu64 "/%" PRIu64 " bytes (logical/physical)",
			      c->was, c->was2, c->now, c->now2);
		break;
	case PA_CHANGE_LABEL:
		rc = asprintf(&s, "%s changed (byte %" PRIu64 ")", area_name(c->area),
			      c->off);
		break;
	case PA_CHANGE_SIGNATURE:
		if (c->num)
			rc = asprintf(&s, "partition %u now holds %s (it held %s)",
				      c->num, *c->now_sig ? c->now_sig : "nothing",
				      *c->was_sig ? c->was_sig : "nothing");
		else
			rc = asprintf(&s, "the disk now holds %s (it held %s)",
				      *c->now_sig ? c->now_sig : "nothing",
				      *c->was_sig ? c->was_sig : "nothing");
		break;
	case PA_CHANGE_OPENED:
		rc = asprintf(&s, "%s is open by process %ld (%s)%s",
			      devno_name(l, c->devno), (long)c->pid, c->comm,
			      c->count > 1 ? " and others" : "");
		break;
	case PA_CHANGE_MAP_OPEN:
		rc =
		    asprintf(&s, "%s is open (%zu open%s besides partalign's)",
			     devno_name(l, c->devno), c->count, c->count == 1 ? "" : "s");
		break;
	default:
		rc = asprintf(&s, "it is not what the plan was made from");
		break;
	}
	return rc < 0 ? NULL : s;
}

/* The disk is not what the plan was made from: the message and exit bits. */
static int proof_failed(struct fix_job *j, const struct apply_result *r)
{
	const struct pa_change *c = apply_proof_change(j->proof);
	char *what = fix_change_text(c, &j->devs);
	const char *path = j->dev->path;
	bool busy = c->kind == PA_CHANGE_OPENED || c->kind == PA_CHANGE_MAP_OPEN;

	if (r->stage == APPLY_STAGE_REPROOF) {
		msg_err(path, 0,
			"the disk changed during the move: %s; the table is not written "
			"and the journal is kept: find what changed it, then "
			"'partalign resume %s'",
			what ? what : "", path);
		j->result = "move done, table not written";
	} else if (busy) {
		msg_err(path, 0, "refused: %s: stop it first; nothing written",
			what ? what : "in use");
		j->result = "refused: in use";
	} else {
		msg_err(path, 0,
			"refused: the disk changed since it was read: %s; nothing "
			"written, run 'partalign plan' again",
			what ? what : "");
		j->result = "refused: disk changed";
	}
	free(what);
	return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
}

/* The message of a write that stopped at r->stage; returns exit bits. */
static int execute_failed(const struct fix_opts *o, struct fix_job *j,
			  const struct apply_result *r, int hook_status)
{
	const char *path = j->dev->path;

	switch (r->stage) {
	case APPLY_STAGE_LIMIT:
		msg_err(path, 0, "too many partitions");
		return PA_EXIT_ERROR;
	case APPLY_STAGE_PREPARE:
		msg_err(path, -r->err, "cannot prepare the new table");
		return PA_EXIT_ERROR;
	case APPLY_STAGE_JOURNAL:
		return hook_status;
	case APPLY_STAGE_BACKUP:
		msg_err(path, -r->err,
			"cannot save the table backup in %s; nothing written",
			o->backup_dir);
		return PA_EXIT_ERROR;
	case APPLY_STAGE_PROOF:
	case APPLY_STAGE_REPROOF:
		return proof_failed(j, r);
	case APPLY_STAGE_DETACH:
		msg_err(path, -r->err,
			"refused: partition %u cannot be taken from the kernel for the "
			"move (it is open); nothing written",
			r->num);
		j->result = "refused: in use";
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	case APPLY_STAGE_MOVE:
		j->result = "move interrupted";
		return hook_status;
	case APPLY_STAGE_WIPE:
	case APPLY_STAGE_WIPE_AFTER:
		msg_err(path, -r->err, "cannot wipe the signatures of partition %u",
			r->num);
		return PA_EXIT_ERROR |
		       (r->stage == APPLY_STAGE_WIPE ? PA_EXIT_MISALIGNED : PA_EXIT_OK);
	case APPLY_STAGE_WRITE:
		j->result = "write failed";
		if (j->mv)
			/* the data has moved: the old table must not come back */
			msg_err(path, -r->err,
				"writing the new table failed after the data "
				"moved; finish with 'partalign resume %s'",
				path);
		else
			msg_err(
			    path, -r->err,
			    "writing the new table failed; the backup is %s (partalign "
			    "restore)",
			    j->backup);
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	default:
		msg_err(path, -r->err, "cannot open for writing");
		return PA_EXIT_ERROR;
	}
}

int fix_execute(const struct fix_opts *o, struct fix_job *j)
{
	struct fix_ctx c = {.o = o, .j = j};
	const struct apply_hooks hooks = {.arg = &c,
					  .journal = hook_journal,
					  .saved = hook_saved,
					  .move = hook_move,
					  .moved = hook_moved,
					  .diags = hook_diags};
	const struct apply_job job = {.disk = &j->disk,
				      .proof = j->proof,
				      .dev = j->dev,
				      .devs = &j->devs,
				      .backup_dir = o->backup_dir,
				      .plan = &j->plan,
				      .sh = j->sh,
				      .discard = o->plan.discard_data,
				      .move = o->plan.move_data,
				      .kpartx = true,
				      .mv = &j->mv,
				      .hooks = &hooks};
	struct apply_result r;
	const char *sep;
	int rc = apply_execute(&job, &r), status = PA_EXIT_CHANGED;

	j->backup = r.backup;
	r.backup = NULL;
	if (r.disk_closed)
		j->opened = false;
	if (rc < 0)
		return execute_failed(o, j, &r, c.status);
	sep = r.kpartx_sep;
	switch (r.kernel) {
	case APPLY_KERNEL_KPARTX:
		j->result = "fixed, partition maps updated by kpartx";
		break;
	case APPLY_KERNEL_KPARTX_FAILED:
		msg_err(j->dev->path, 0,
			"table written; update the partition maps with "
			"'kpartx -u%s%s %s'",
			sep ? " -p " : "", sep ? sep : "", j->dev->path);
		j->result = "written, partition maps not updated";
		status |= PA_EXIT_REBOOT;
		break;
	case APPLY_KERNEL_STALE:
		msg_err(j->dev->path, 0,
			"table written, but the kernel still uses the old one: "
			"reboot, or re-read the table when the disk is not in use");
		j->result = "written, kernel has the old table";
		status |= PA_EXIT_REBOOT;
		break;
	case APPLY_KERNEL_SYNCED:
		j->result = j->plan.changes ? "fixed" : "kernel updated";
		break;
	}
	if (o->out.format == OUT_TABLE)
		printf("%s: %s (%" PRIu64 " bytes of label written)\n", j->dev->path,
		       j->result, r.written);
	return status;
}
