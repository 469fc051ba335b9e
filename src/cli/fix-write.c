/*
 * fix past its confirmation: the write sequence of src/apply
 * (apply_execute) with the report callbacks that show what happens while
 * it runs (the journal, the backup, the move's progress), and the
 * messages, table cells and exit bits of its outcome.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "apply/execute.h"
#include "cli/fix-write.h"
#include "core/exitcodes.h"
#include "scan/scan.h"
#include "shared/size.h"

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

/* Who holds @dev, in words: "DEV is open by process 1234 (qemu)" and others. */
static int opened_text(char **s, const struct pa_change *c, const char *dev)
{
	const char *more = c->count > 1 ? " and others" : "";

	switch (c->holder) {
	case PA_HOLDER_THREAD_FD:
		return asprintf(s, "%s is open by thread %ld of process %ld (%s)%s", dev,
				(long)c->tid, (long)c->pid, c->comm, more);
	case PA_HOLDER_MAP:
		return asprintf(s, "process %ld (%s) has %s mapped%s", (long)c->pid,
				c->comm, dev, more);
	case PA_HOLDER_LOOP:
		return asprintf(s, "%s is used by loop device /dev/%s%s", dev, c->comm,
				more);
	default:
		return asprintf(s, "%s is open by process %ld (%s)%s", dev, (long)c->pid,
				c->comm, more);
	}
}

char *fix_locked_text(const struct pa_disk *d)
{
	const struct pa_holder *h = &d->locker;
	const char *who = h->comm;
	char *s = NULL;

	if (!h->pid)
		return strdup("locked by another process; try again");
	/* the dispatcher execs partalign-apply: either name is partalign */
	if (strncmp(who, "partalign", 9) == 0)
		who = "partalign";
	else if (strcmp(who, "systemd-udevd") == 0 || strcmp(who, "(udev-worker)") == 0 ||
		 strcmp(who, "udevd") == 0)
		who = "udev";
	else if (!*who)
		who = "another process";
	if (asprintf(&s, "locked by %s (pid %ld); try again", who, (long)h->pid) < 0)
		return NULL;
	return s;
}

/*
 * What holds partition @p, in words, as the host shows it now
 * (scan_holder_of: a mount, swap, a holder, a loop device set up on it, a
 * process, one of its threads or a mapping); what the scan @l saw when the
 * host shows nothing.  The kernel's EBUSY already decided; this only names.
 */
static void cli_holder_text(const struct pa_devlist *l, const struct pa_dev *p, char *buf,
			    size_t len)
{
	struct pa_holder h;

	buf[0] = '\0';
	if (scan_holder_of(makedev(p->major, p->minor), &h) == 0) {
		switch (h.kind) {
		case PA_HOLDER_MOUNT:
			snprintf(buf, len, "it is mounted on %s", h.name);
			break;
		case PA_HOLDER_SWAP:
			snprintf(buf, len, "it is used as swap");
			break;
		case PA_HOLDER_STACK:
			snprintf(buf, len, "%s holds it", h.name);
			break;
		case PA_HOLDER_LOOP:
			snprintf(buf, len, "loop device /dev/%s is set up on it", h.name);
			break;
		case PA_HOLDER_THREAD_FD:
			snprintf(buf, len, "it is open by thread %ld of process %ld (%s)",
				 (long)h.tid, (long)h.pid, h.comm);
			break;
		case PA_HOLDER_MAP:
			snprintf(buf, len, "process %ld (%s) has it mapped", (long)h.pid,
				 h.comm);
			break;
		case PA_HOLDER_FD:
			snprintf(buf, len, "it is open by process %ld (%s)", (long)h.pid,
				 h.comm);
			break;
		}
		return;
	}
	if (p->mountpoints && strcmp(p->mountpoints, "[SWAP]") == 0)
		snprintf(buf, len, "it is used as swap");
	else if (p->mountpoints)
		snprintf(buf, len, "it is mounted on %.*s",
			 (int)strcspn(p->mountpoints, "\n"), p->mountpoints);
	else if (p->holders)
		snprintf(buf, len, "%s holds it", p->holders);
}

void fix_take_refused(struct msg_log *log, const struct pa_devlist *l,
		      const struct pa_dev *disk, const struct apply_result *r)
{
	const struct pa_dev *p = NULL;
	char who[512] = "";
	size_t i;

	for (i = 0; i < l->n && !p; i++)
		if (l->v[i]->kind == PA_KIND_PART && l->v[i]->disk == disk &&
		    l->v[i]->partno == r->num && !l->v[i]->kernel_missing)
			p = l->v[i];
	if (p)
		cli_holder_text(l, p, who, sizeof(who));
	msg_log_err(log, disk->path, 0,
		    "refused: the kernel will not let partition %u%s%s%s go: %s; "
		    "nothing written",
		    r->num, p ? " (" : "", p ? p->path : "", p ? ")" : "",
		    who[0] ? who : "it is in use");
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
		rc = opened_text(&s, c, devno_name(l, c->devno));
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

/* What fix shows while apply_execute() runs. */
struct fix_ctx {
	const struct fix_opts *o;
	struct fix_job *j;
	bool show;  /* the move's progress on the terminal */
	bool shown; /* a progress line is there, to be ended */
};

static void on_journal(void *arg, const char *path, uint64_t move_id)
{
	struct fix_ctx *c = arg;

	if (c->o->out.format == OUT_TABLE)
		printf("%s: move journal %s (move id %016" PRIx64 ")\n", c->j->dev->path,
		       path, move_id);
}

static void on_saved(void *arg, const char *path)
{
	struct fix_ctx *c = arg;

	if (c->o->out.format == OUT_TABLE)
		printf("%s: table saved to %s\n", c->j->dev->path, path);
}

static void on_progress(void *arg, const struct pa_move_progress *p)
{
	struct fix_ctx *c = arg;
	double rate = p->seconds > 0 ? (double)p->done / p->seconds : 0;
	char a[32], b[32];
	long eta = rate > 0 ? (long)((double)(p->total - p->done) / rate) : 0;

	if (!c->show)
		return;
	fprintf(stderr,
		"\r%s: moving partition %u (%zu/%zu): %s of %s, %.0f MB/s, "
		"ETA %ld:%02ld\033[K",
		c->j->dev->path, p->num, p->index + 1, p->count,
		size_human_iec(p->done, a, sizeof(a)),
		size_human_iec(p->total, b, sizeof(b)), rate / 1e6, eta / 60, eta % 60);
	fflush(stderr);
	c->shown = true;
}

static void on_moved(void *arg, int rc, const struct pa_move_stats *st)
{
	struct fix_ctx *c = arg;
	const char *path = c->j->dev->path;
	char a[32], b[32];

	if (c->shown)
		fputc('\n', stderr);
	if (rc < 0 || c->o->out.format != OUT_TABLE)
		return;
	if (st->bytes)
		printf("%s: moved %s in %.2f s, %.0f MB/s%s%s%s\n", path,
		       size_human_iec(st->bytes, a, sizeof(a)), st->seconds,
		       st->seconds > 0 ? (double)st->bytes / st->seconds / 1e6 : 0.0,
		       st->redone ? " (" : "",
		       st->redone ? size_human_iec(st->redone, b, sizeof(b)) : "",
		       st->redone ? " redone from the journal)" : "");
	if (st->checked)
		/* one line of an 80-column terminal for a /dev/sdX name */
		printf("%s: %" PRIu64 " of %" PRIu64
		       " chunks past the last progress record were in place\n",
		       path, st->found, st->checked);
}

static void on_verified(void *arg)
{
	struct fix_ctx *c = arg;

	if (c->o->out.format == OUT_TABLE)
		printf("%s: verified: the moved data matches its checksums\n",
		       c->j->dev->path);
}

static void on_finished(void *arg, const char *journal, int err)
{
	struct fix_ctx *c = arg;

	msg_warn(c->j->dev->path, "cannot remove the finished journal %s: %s", journal,
		 strerror(-err));
}

static void on_diags(void *arg, const struct pa_diags *d)
{
	struct fix_ctx *c = arg;

	msg_log_diags(c->o->log, d);
}

/* The disk is not what the plan was made from: the message. */
static void proof_failed(struct msg_log *log, struct fix_job *j,
			 const struct apply_result *r)
{
	const struct pa_change *c = apply_proof_change(j->proof);
	char *what = fix_change_text(c, &j->devs);
	const char *path = j->dev->path;
	bool busy = c->kind == PA_CHANGE_OPENED || c->kind == PA_CHANGE_MAP_OPEN;

	if (r->stage == APPLY_STAGE_REPROOF) {
		msg_log_err(
		    log, path, 0,
		    "the disk changed during the move: %s; the table is not written "
		    "and the journal is kept: find what changed it, then "
		    "'partalign resume %s'",
		    what ? what : "", path);
		j->result = "move done, table not written";
	} else if (busy) {
		msg_log_err(log, path, 0, "refused: %s: stop it first; nothing written",
			    what ? what : "in use");
		j->result = "refused: in use";
	} else {
		msg_log_err(log, path, 0,
			    "refused: the disk changed since it was read: %s; nothing "
			    "written, run 'partalign plan' again",
			    what ? what : "");
		j->result = "refused: disk changed";
	}
	free(what);
}

/* --move-data stopped before the table: the message. */
static void move_failed(struct msg_log *log, struct fix_job *j,
			const struct apply_result *r)
{
	const char *path = j->dev->path, *journal = j->mv ? move_path(j->mv) : "";

	j->result = "move interrupted";
	if (r->stage == APPLY_STAGE_MARKER)
		msg_log_err(log, path, -r->err,
			    "cannot record the move on the disk; this run moved no data: "
			    "'partalign "
			    "resume %s' tries again (journal %s)",
			    path, journal);
	else if (r->stage == APPLY_STAGE_FOREIGN)
		msg_log_err(log, path, 0,
			    "the journal %s belongs to a disk of another size", journal);
	else if (r->stage == APPLY_STAGE_MOVE && r->err == -EINTR)
		msg_log_err(
		    log, path, 0,
		    "interrupted by signal %d; the journal %s holds all it needs: "
		    "finish with 'partalign resume %s'",
		    r->signal, journal, path);
	else if (r->stage == APPLY_STAGE_MOVE)
		/* the cause first; a disk that went away may come back under another name
		 */
		msg_log_err(
		    log, path, 0,
		    "moving the data stopped: %s; the journal %s holds all it needs: "
		    "finish with 'partalign resume %s' (the disk's name when it is back)",
		    strerror(-r->err), journal, path);
	else if (r->err == -EILSEQ)
		msg_log_err(log, path, 0,
			    "verify: the data at byte %" PRIu64 " does not match "
			    "its checksum; table not written, journal %s kept",
			    r->bad, journal);
	else
		msg_log_err(log, path, -r->err, "verify: cannot re-read the moved data");
}

/* The message of a write that stopped at r->stage, as it stops. */
static void on_stopped(void *arg, const struct apply_result *r)
{
	struct fix_ctx *c = arg;
	const struct fix_opts *o = c->o;
	struct msg_log *log = o->log;
	struct fix_job *j = c->j;
	const char *path = j->dev->path;

	switch (r->stage) {
	case APPLY_STAGE_DONE:
		break;
	case APPLY_STAGE_LIMIT:
		msg_log_err(log, path, 0, "too many partitions");
		break;
	case APPLY_STAGE_PREPARE:
		msg_log_err(log, path, -r->err, "cannot prepare the new table");
		break;
	case APPLY_STAGE_JOURNAL:
		if (r->err == -EOPNOTSUPP)
			msg_log_err(
			    log, path, 0,
			    "the partition table cannot record a move (no valid GPT "
			    "or dos label); nothing moved");
		else
			msg_log_err(log, path, -r->err,
				    "cannot create the move journal in %s; nothing moved",
				    move_journal_dir(o->move.journal_dir));
		break;
	case APPLY_STAGE_BACKUP:
		msg_log_err(log, path, -r->err,
			    "cannot save the table backup in %s; nothing written",
			    o->backup_dir);
		break;
	case APPLY_STAGE_PROOF:
	case APPLY_STAGE_REPROOF:
		proof_failed(o->log, j, r);
		break;
	case APPLY_STAGE_TAKE:
		fix_take_refused(log, &j->devs, j->dev, r);
		j->result = "refused: in use";
		break;
	case APPLY_STAGE_MARKER:
	case APPLY_STAGE_FOREIGN:
	case APPLY_STAGE_MOVE:
	case APPLY_STAGE_VERIFY:
		move_failed(o->log, j, r);
		break;
	case APPLY_STAGE_WIPE:
	case APPLY_STAGE_WIPE_AFTER:
		msg_log_err(log, path, -r->err,
			    "cannot wipe the signatures of partition %u", r->num);
		break;
	case APPLY_STAGE_WRITE:
		j->result = "write failed";
		if (j->mv)
			/* the data has moved: the old table must not come back */
			msg_log_err(log, path, -r->err,
				    "writing the new table failed after the data "
				    "moved; finish with 'partalign resume %s'",
				    path);
		else
			msg_log_err(
			    log, path, -r->err,
			    "writing the new table failed; the backup is %s (partalign "
			    "restore)",
			    r->backup);
		break;
	default:
		msg_log_err(log, path, -r->err, "cannot open for writing");
		break;
	}
}

/* The exit bits of a write that stopped at @stage. */
static int stage_status(enum apply_stage stage)
{
	switch (stage) {
	case APPLY_STAGE_TAKE:
		return PA_EXIT_MISALIGNED; /* refused, as a disk in use is */
	case APPLY_STAGE_JOURNAL:
	case APPLY_STAGE_PROOF:
	case APPLY_STAGE_REPROOF:
	case APPLY_STAGE_MARKER:
	case APPLY_STAGE_FOREIGN:
	case APPLY_STAGE_MOVE:
	case APPLY_STAGE_VERIFY:
	case APPLY_STAGE_WIPE:
	case APPLY_STAGE_WRITE:
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	default:
		return PA_EXIT_ERROR;
	}
}

/* A number from the environment, 0 when unset or not a number. */
static uint64_t env_u64(const char *name)
{
	const char *e = getenv(name);
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return 0;
	errno = 0;
	v = strtoull(e, &end, 10);
	return errno || *end ? 0 : v;
}

/*
 * Benchmark knobs (bench/move-bench): PARTALIGN_MOVE_CHUNK (bytes, a
 * multiple of 4096), PARTALIGN_MOVE_RECORD_MIN (the shortest move that
 * records progress only; 0 the default), PARTALIGN_MOVE_SPLIT (chunks per
 * distance of such a move).  Invalid values are the defaults.
 */
static struct apply_move_knobs knobs_from_env(void)
{
	struct apply_move_knobs k = {.chunk = env_u64("PARTALIGN_MOVE_CHUNK"),
				     .record_min = env_u64("PARTALIGN_MOVE_RECORD_MIN"),
				     .split =
					 (unsigned int)env_u64("PARTALIGN_MOVE_SPLIT")};

	if (k.chunk % PA_JOURNAL_BLOCK || k.chunk > PA_JOURNAL_CHUNK_MAX)
		k.chunk = 0;
	if (k.split > PA_JOURNAL_MIN_WINDOW)
		k.split = 0;
	return k;
}

int fix_execute(const struct fix_opts *o, struct fix_job *j)
{
	struct fix_ctx c = {
	    .o = o, .j = j, .show = !o->move.quiet && isatty(STDERR_FILENO)};
	const struct apply_report_ops ops = {.arg = &c,
					     .journal = on_journal,
					     .saved = on_saved,
					     .progress = on_progress,
					     .moved = on_moved,
					     .verified = on_verified,
					     .finished = on_finished,
					     .diags = on_diags,
					     .stopped = on_stopped};
	const struct apply_request rq = {.disk = &j->disk,
					 .proof = j->proof,
					 .dev = j->dev,
					 .devs = &j->devs,
					 .backup_dir = o->backup_dir,
					 .plan = &j->plan,
					 .sh = j->sh,
					 .discard = o->plan.discard_data,
					 .move = o->plan.move_data &&
						 (j->mv || plan_moves_data(&j->plan)),
					 .verify = o->move.verify,
					 .kpartx = true,
					 .mv = &j->mv,
					 .journal_dir = o->move.journal_dir,
					 .knobs = knobs_from_env()};
	struct apply_result r;
	const char *sep;
	int rc = apply_execute(&rq, &ops, &r), status = PA_EXIT_CHANGED;

	j->backup = r.backup;
	r.backup = NULL;
	if (r.disk_closed)
		j->opened = false;
	if (rc < 0)
		return stage_status(r.stage);
	sep = r.kpartx_sep;
	switch (r.kernel) {
	case APPLY_KERNEL_KPARTX:
		j->result = "fixed, partition maps updated by kpartx";
		break;
	case APPLY_KERNEL_KPARTX_FAILED:
		msg_log_err(o->log, j->dev->path, 0,
			    "table written; update the partition maps with "
			    "'kpartx -u%s%s %s'",
			    sep ? " -p " : "", sep ? sep : "", j->dev->path);
		j->result = "written, partition maps not updated";
		status |= PA_EXIT_REBOOT;
		break;
	case APPLY_KERNEL_STALE:
		msg_log_err(o->log, j->dev->path, 0,
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
