/*
 * One write orchestration for fix, resume and restore (execute.h): what
 * happens past the last refusal, in the order that keeps a disk
 * recoverable: the backup before the gate, the data move before the table
 * that points at it, the kernel told last.  Nothing here prints; the
 * caller's hooks and the result carry everything the user is told.
 *
 * The caller owns the job's disk, shadow, plan and journal; the regions
 * and buffers read here are freed here; r->backup goes to the caller.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/execute.h"
#include "core/label.h"
#include "core/marker.h"
#include "shared/fileio.h"
#include "shared/spawn.h"

#define MAX_KPARTS 256

/* What the table write writes: regions, their contents, how many. */
struct regions {
	struct pa_extent *regs;
	void **bufs;
	size_t n;
	bool borrowed; /* restore: the buffers point into the backup */
};

static void regions_free(struct regions *g)
{
	size_t i;

	for (i = 0; g->bufs && !g->borrowed && i < g->n; i++)
		free(g->bufs[i]);
	free(g->bufs);
	free(g->regs);
}

/* fix: the sectors the staged table changes, as the shadow holds them. */
static int regions_of_shadow(struct pa_shadow *sh, struct regions *g)
{
	size_t i;
	int rc = apply_shadow_regions(sh, &g->regs, &g->n);

	g->bufs = calloc(g->n ? g->n : 1, sizeof(*g->bufs));
	if (rc == 0 && !g->bufs)
		rc = -ENOMEM;
	for (i = 0; rc == 0 && i < g->n; i++)
		rc = apply_shadow_read(sh, &g->regs[i], &g->bufs[i]);
	return rc;
}

/* The kernel's partitions after a fix: the plan's steps but the dropped ones. */
static size_t kparts_of_plan(const struct pa_plan *p, struct pa_kpart *k)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		if (p->v[i].kind != PA_STEP_DROP)
			k[n++] = (struct pa_kpart){p->v[i].num, p->v[i].new_start,
						   p->v[i].new_size};
	return n;
}

/* After a restore: the partitions of the table now on the disk. */
static int kparts_of_disk(const struct apply_request *rq,
			  const struct apply_report_ops *ops, struct pa_kpart *k,
			  size_t *n)
{
	struct pa_diags msgs = {0};
	struct pa_shadow *sh = NULL;
	struct pa_table t;
	size_t i;
	int rc = apply_table_read(rq->disk, &sh, &t, &msgs);

	if (ops->diags)
		ops->diags(ops->arg, &msgs);
	diags_free(&msgs);
	if (rc == 0 && t.unreadable) {
		/* libparted cannot read what was written: tell the kernel nothing */
		plan_table_free(&t);
		apply_shadow_free(sh);
		rc = -EIO;
	}
	if (rc < 0)
		return rc;
	*n = 0;
	/* the kernel sizes a dos extended container as two sectors */
	for (i = 0; i < t.n && *n < MAX_KPARTS; i++)
		k[(*n)++] =
		    (struct pa_kpart){t.v[i].num, t.v[i].start,
				      t.v[i].extended ? t.logical * 2ull : t.v[i].size};
	plan_table_free(&t);
	apply_shadow_free(sh);
	return 0;
}

/*
 * --discard-data: before the write, the signatures the plan destroys (the
 * whole disk's for --new, each re-created partition's old area); after it,
 * whatever the new partitions' areas hold.
 */
static int wipe_steps(struct pa_writer *w, const struct pa_plan *p, bool after,
		      unsigned int *num)
{
	unsigned int wiped;
	size_t i;
	int rc;

	for (i = 0; i < p->n; i++) {
		const struct pa_step *s = &p->v[i];

		if (s->kind == PA_STEP_CREATE && !after && p->table.signature)
			rc = apply_wipe(w, 0, p->table.disk_size, &wiped);
		else if (s->kind == PA_STEP_RECREATE && !after && s->old->signature)
			rc = apply_wipe(w, s->old->start, s->old->size, &wiped);
		else if ((s->kind == PA_STEP_RECREATE || s->kind == PA_STEP_CREATE) &&
			 after)
			rc = apply_wipe(w, s->new_start, s->new_size, &wiped);
		else
			continue;
		if (rc < 0) {
			*num = s->num;
			return rc;
		}
	}
	return 0;
}

/* The table backup, before the gate: fix's of @g, restore's of rq->save. */
static int save_backup(const struct apply_request *rq, const struct regions *g,
		       struct apply_result *r)
{
	struct label_id after;
	const struct pa_backup *b = rq->restore;
	char *id = apply_disk_id(rq->dev);
	uint64_t move_id = rq->mv && *rq->mv ? move_journal(*rq->mv)->move_id : 0;
	int rc;

	if (!id)
		return -ENOMEM;
	if (b)
		rc = apply_backup_save(rq->disk, rq->backup_dir, id, rq->save, rq->nsave,
				       b->label->kind != LABEL_ID_NONE ? b->label : NULL,
				       0, &r->backup);
	else if ((rc = apply_shadow_identity(rq->sh, &after)) == 0)
		rc = apply_backup_save(rq->disk, rq->backup_dir, id, g->regs, g->n,
				       &after, move_id, &r->backup);
	free(id);
	return rc;
}

/*
 * The separator kpartx put between the map's name and the partition number
 * in the names of the partition maps there now ("mpatha-part1": "-part"),
 * or NULL for kpartx's default.
 */
static const char *kpartx_separator(const struct pa_devlist *l, const struct pa_dev *map)
{
	static char sep[32];
	size_t i, n;

	if (!map->dm_name)
		return NULL;
	n = strlen(map->dm_name);
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];
		size_t len, end;

		if (d->kind != PA_KIND_PART || d->disk != map || !d->dm_name ||
		    strncmp(d->dm_name, map->dm_name, n) != 0)
			continue;
		len = strlen(d->dm_name);
		end = len;
		while (end > n && d->dm_name[end - 1] >= '0' &&
		       d->dm_name[end - 1] <= '9')
			end--;
		if (end == len || end - n >= sizeof(sep))
			continue;
		memcpy(sep, d->dm_name + n, end - n);
		sep[end - n] = '\0';
		return sep;
	}
	return NULL;
}

/* how often kpartx is run before its failure counts, and the waits between */
#define KPARTX_TRIES 4
#define KPARTX_WAIT_MS 250

/*
 * kpartx -u [-p SEP] MAP: 0 when it ran and succeeded.  The write's close
 * sends udev a change event of the map, and the kpartx rule of the host's
 * multipath-tools runs kpartx too: when that one creates a partition map
 * between our kpartx's look and its create, ours fails ("create ioctl ...
 * failed: Device or resource busy") though the map is there.  kpartx -u is
 * run again then (it reloads a map that exists), quietly but for the last
 * time, whose complaints the admin sees.
 */
static int run_kpartx(const char *map, const char *sep)
{
	const char *argv[] = {"kpartx", "-u", "-p", sep, map, NULL};
	struct spawn_result res;
	int rc = 0, i;

	if (!sep) {
		argv[2] = map;
		argv[3] = NULL;
	}
	for (i = 0; i < KPARTX_TRIES; i++) {
		if (i)
			usleep((useconds_t)KPARTX_WAIT_MS * 1000 * (unsigned)i);
		rc = spawn(argv, i + 1 < KPARTX_TRIES ? SPAWN_QUIET : 0, &res);
		if (rc == 0 && res.status != 0)
			rc = -EIO;
		spawn_result_free(&res);
		if (rc != -EIO)
			break;
	}
	return rc;
}

/*
 * Tell the kernel.  A multipath map's partitions are dm maps that kpartx
 * keeps: kpartx must be able to open the map, so the gate and the disk go
 * first, and the maps are named as the ones there now (Debian: "-part").
 */
static void kernel_step(const struct apply_request *rq,
			const struct apply_report_ops *ops, const struct pa_kpart *kp,
			size_t nk, struct pa_writer **w, struct apply_result *r)
{
	struct pa_diags msgs = {0};
	int rc = apply_kernel_sync(rq->disk, rq->dev, kp, nk, &msgs);

	if (ops->diags)
		ops->diags(ops->arg, &msgs);
	diags_free(&msgs);
	if (rc == 0 && !apply_kernel_matches(rq->dev, kp, nk))
		rc = -EBUSY;
	if (rc == -EOPNOTSUPP && rq->kpartx) {
		const char *sep = kpartx_separator(rq->devs, rq->dev);

		apply_gate_close(*w);
		*w = NULL;
		apply_disk_close(rq->disk);
		r->disk_closed = true;
		r->kpartx_sep = sep;
		r->kernel = run_kpartx(rq->dev->path, sep) == 0
				? APPLY_KERNEL_KPARTX
				: APPLY_KERNEL_KPARTX_FAILED;
	} else {
		r->kernel = rc < 0 ? APPLY_KERNEL_STALE : APPLY_KERNEL_SYNCED;
	}
}

/* The sequence stops at @stage, before it puts back anything it took. */
static int stop(const struct apply_report_ops *ops, struct apply_result *r,
		enum apply_stage stage, int err)
{
	r->stage = stage;
	r->err = err;
	if (ops->stopped)
		ops->stopped(ops->arg, r);
	return err;
}

/* dmsetup remove NAME: 0, or -EBUSY when the map stays (it is open). */
static int remove_map(const char *name)
{
	const char *argv[] = {"dmsetup", "remove", name, NULL};
	struct spawn_result res;
	int rc = spawn(argv, SPAWN_QUIET, &res);

	if (rc == 0 && res.status != 0)
		rc = -EBUSY;
	spawn_result_free(&res);
	return rc;
}

/*
 * Give the kernel back the moving partitions among the first @n steps where
 * the table on the disk still shows them (their old start, no marker in the
 * primary copy yet): a move that stopped leaves what a reboot would show.
 * A partition the marker hides stays away: its data is half moved.
 */
static void reattach_moving(const struct apply_request *rq, size_t n)
{
	const struct pa_plan *p = rq->plan;
	struct pa_marker m;
	size_t k;

	if (rq->dev->dm_uuid) {
		/* kpartx reads the table as the kernel would: hidden entries are skipped
		 */
		run_kpartx(rq->dev->path, kpartx_separator(rq->devs, rq->dev));
		return;
	}
	if (apply_disk_marker(rq->disk, &m) < 0)
		return; /* cannot tell what the disk says: leave them away */
	for (k = 0; k < n && k < p->n; k++) {
		const struct pa_marker_part *mp = marker_part(&m, p->v[k].num);

		if (p->v[k].kind != PA_STEP_MOVE || (mp && mp->primary && mp->hidden))
			continue;
		apply_kernel_add(rq->disk, p->v[k].num, p->v[k].old->start,
				 p->v[k].old->size);
	}
}

/* The partitions a write took from the kernel before its first byte. */
struct taken {
	struct pa_kpart v[MAX_KPARTS];
	size_t n;
	bool maps; /* a multipath map: kpartx partition maps were removed */
};

/* Is @d (a kpartx partition map) in @kp, the kernel's partitions after the write? */
static bool map_stays(const struct pa_dev *d, const struct pa_kpart *kp, size_t nk)
{
	size_t i;

	for (i = 0; d->start_known && i < nk; i++)
		if (kp[i].num == d->partno && kp[i].start == d->start &&
		    kp[i].size == d->size)
			return true;
	return false;
}

/*
 * Before the first byte of any table write (fix, fix --new, --move-data,
 * resume, restore, provision): every partition whose entry the write
 * changes (@kp: the kernel's partitions after it; NULL with restore, which
 * may change them all) is taken away from the kernel -- BLKPG, or for a
 * multipath map its kpartx partition map with dmsetup remove -- so that
 * nothing can open it while its entry or its data change, and so that the
 * kernel never keeps a partition the new table contradicts.  The kernel
 * decides: a partition it will not let go is in use (an opener, a mount,
 * swap, a holder, a loop device or a mapping over it), whatever /proc
 * showed; then everything taken goes back and nothing is written.
 */
static int take_changing(const struct apply_request *rq,
			 const struct apply_report_ops *ops, const struct pa_kpart *kp,
			 size_t nk, struct taken *t, struct apply_result *r)
{
	size_t i;
	int rc = 0;

	t->n = 0;
	t->maps = false;
	if (!rq->dev->dm_uuid) {
		rc = apply_kernel_take(rq->disk, rq->dev, kp, kp ? nk : 0, t->v,
				       MAX_KPARTS, &t->n, &r->num);
		return rc < 0 ? stop(ops, r, APPLY_STAGE_TAKE, rc) : 0;
	}
	t->maps = true;
	for (i = 0; i < rq->devs->n && rc == 0; i++) {
		const struct pa_dev *d = rq->devs->v[i];

		if (d->kind != PA_KIND_PART || d->disk != rq->dev || !d->dm_name ||
		    d->kernel_missing || (kp && map_stays(d, kp, nk)))
			continue;
		rc = remove_map(d->dm_name);
		if (rc < 0)
			r->num = d->partno;
	}
	if (rc == 0)
		return 0;
	/* put back what was taken, where it was: nothing is written yet */
	run_kpartx(rq->dev->path, kpartx_separator(rq->devs, rq->dev));
	return stop(ops, r, APPLY_STAGE_TAKE, rc);
}

/* Nothing of the table is written: the kernel gets back what was taken. */
static void give_back(const struct apply_request *rq, const struct taken *t)
{
	if (t->maps)
		run_kpartx(rq->dev->path, kpartx_separator(rq->devs, rq->dev));
	else
		apply_kernel_give(rq->disk, t->v, t->n);
}

/*
 * Before the backup, which records its move id: the journal of a new move,
 * durably on its file system (and a pointer to it in the default
 * directory when it is elsewhere).  The disk is not written.
 */
static int journal_new(const struct apply_request *rq, const struct apply_report_ops *ops)
{
	const char *dir = move_journal_dir(rq->journal_dir);
	struct pa_journal j;
	char *id = apply_disk_id(rq->dev);
	int rc =
	    id ? apply_move_journal(rq->disk, rq->plan, id, &rq->knobs, &j) : -ENOMEM;

	free(id);
	if (rc == 0)
		rc = move_create(dir,
				 dir_same(dir, move_journal_dir_default())
				     ? NULL
				     : move_journal_dir_default(),
				 &j, rq->mv);
	if (rc == 0 && ops->journal)
		ops->journal(ops->arg, move_path(*rq->mv),
			     move_journal(*rq->mv)->move_id);
	return rc;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Ctrl-C, SIGTERM, SIGHUP: stop the move between chunks (it is resumable anyway). */
static void catch_signals(bool on, struct sigaction *old)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (on)
			sigaction(sigs[i], &sa, &old[i]);
		else
			sigaction(sigs[i], &old[i], NULL);
	}
}

/* The mover's progress: reported, and the stop request polled. */
static bool on_progress(void *arg, const struct pa_move_progress *p)
{
	const struct apply_report_ops *ops = arg;

	if (ops->progress)
		ops->progress(ops->arg, p);
	return stop_signal != 0;
}

/*
 * Past the gate, before the table write: mark the disk, move the data,
 * verify it when asked.  0 when the table may be written now.
 */
static int move_step(const struct apply_request *rq, const struct apply_report_ops *ops,
		     struct pa_writer *w, struct apply_result *r)
{
	struct pa_mover *mv = *rq->mv;
	struct sigaction old[3];
	struct pa_move_stats st;
	int rc;

	if (!mv)
		return 0; /* no change: nothing to move */
	/*
	 * The disk records the move before its first data write; on a resume
	 * again, since a cut may have left the marker half written, and so that
	 * it names where the journal is now.
	 */
	rc = apply_marker_write(rq->disk, w, move_journal(mv), move_path_abs(mv));
	if (rc < 0)
		return stop(ops, r, APPLY_STAGE_MARKER, rc);
	if (move_journal(mv)->disk_size != rq->disk->size ||
	    move_journal(mv)->logical != rq->disk->logical)
		return stop(ops, r, APPLY_STAGE_FOREIGN, -EINVAL);
	stop_signal = 0;
	catch_signals(true, old);
	rc = move_run(mv, w, on_progress, (void *)ops, &st);
	catch_signals(false, old);
	if (ops->moved)
		ops->moved(ops->arg, rc, &st);
	if (rc < 0) {
		r->signal = rc == -EINTR ? (int)stop_signal : 0;
		return stop(ops, r, APPLY_STAGE_MOVE, rc);
	}
	if (!rq->verify)
		return 0;
	rc = move_verify(mv, w, &r->bad);
	if (rc < 0)
		return stop(ops, r, APPLY_STAGE_VERIFY, rc);
	if (ops->verified)
		ops->verified(ops->arg);
	return 0;
}

/*
 * Past the gate: take the changing partitions from the kernel, move, wipe,
 * write, wipe; 0 or the -errno of r->stage.  @kp: the kernel's partitions
 * after the write (NULL: restore, all may change).
 */
static int write_step(const struct apply_request *rq, const struct apply_report_ops *ops,
		      struct pa_writer *w, struct regions *g, bool write,
		      const struct pa_kpart *kp, size_t nk, struct apply_result *r)
{
	struct taken *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return stop(ops, r, APPLY_STAGE_TAKE, -ENOMEM);
	if ((write || rq->move) && (rc = take_changing(rq, ops, kp, nk, t, r)) < 0)
		goto out;
	if (rq->move && (rc = move_step(rq, ops, w, r)) < 0) {
		/* the marker may be on the disk: what it hides stays away */
		reattach_moving(rq, rq->plan->n);
		goto out;
	}
	/* a move takes long: the table is written only on the disk proven again */
	if (rq->move && (rc = apply_gate_prove(w)) < 0) {
		reattach_moving(rq, rq->plan->n);
		rc = stop(ops, r, APPLY_STAGE_REPROOF, rc);
		goto out;
	}
	rc = 0;
	if (!write)
		goto out;
	if (rq->discard && (rc = wipe_steps(w, rq->plan, false, &r->num)) < 0) {
		give_back(rq, t);
		rc = stop(ops, r, APPLY_STAGE_WIPE, rc);
		goto out;
	}
	if (rq->restore &&
	    (rc = apply_backup_order(rq->restore, &g->regs, &g->bufs, &g->n)) < 0) {
		give_back(rq, t);
		rc = stop(ops, r, APPLY_STAGE_ORDER, rc);
		goto out;
	}
	rc = apply_write_regions(w, g->regs, g->bufs, g->n, &r->written);
	if (rc < 0) {
		/* part of the table may be written: what was taken stays away */
		rc = stop(ops, r, APPLY_STAGE_WRITE, rc);
		goto out;
	}
	if (rq->discard && (rc = wipe_steps(w, rq->plan, true, &r->num)) < 0)
		rc = stop(ops, r, APPLY_STAGE_WIPE_AFTER, rc);
out:
	free(t);
	return rc;
}

/* The new table is written: the move's journal is done with. */
static void journal_finish(const struct apply_request *rq,
			   const struct apply_report_ops *ops)
{
	int rc;

	if (!rq->mv || !*rq->mv)
		return;
	rc = move_finish(*rq->mv);
	if (rc < 0 && ops->finished)
		ops->finished(ops->arg, move_path(*rq->mv), rc);
}

int apply_execute(const struct apply_request *rq, const struct apply_report_ops *ops,
		  struct apply_result *r)
{
	static const struct apply_report_ops none;
	struct regions g = {.borrowed = rq->restore != NULL};
	struct pa_kpart kp[MAX_KPARTS];
	struct pa_writer *w = NULL;
	bool write = rq->restore || rq->plan->changes, fresh = false;
	size_t nk = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!ops)
		ops = &none;
	if (!rq->restore && rq->plan->n > MAX_KPARTS)
		return stop(ops, r, APPLY_STAGE_LIMIT, -E2BIG);
	if (!rq->restore)
		nk = kparts_of_plan(rq->plan, kp);
	/* a disk resized since the plan (at the prompt, say) is said as that,
	   not as the backup's read failing past its new end */
	if ((rc = apply_proof_geometry(rq->proof, rq->disk)) < 0)
		return stop(ops, r, rc == -ESTALE ? APPLY_STAGE_PROOF : APPLY_STAGE_GATE,
			    rc);
	if (write && !rq->restore && (rc = regions_of_shadow(rq->sh, &g)) < 0) {
		rc = stop(ops, r, APPLY_STAGE_PREPARE, rc);
		goto out;
	}
	/* a new move's journal first: the backup records its move id */
	if (write && rq->move && !*rq->mv) {
		if ((rc = journal_new(rq, ops)) < 0) {
			rc = stop(ops, r, APPLY_STAGE_JOURNAL, rc);
			goto out;
		}
		fresh = true;
	}
	if (write && (rc = save_backup(rq, &g, r)) < 0) {
		rc = stop(ops, r, APPLY_STAGE_BACKUP, rc);
		goto out;
	}
	if (write && ops->saved)
		ops->saved(ops->arg, r->backup);
	if (!rq->restore)
		apply_proof_expect(rq->proof, rq->plan);
	rc = apply_gate_open(rq->disk, rq->proof, &w);
	if (rc < 0) {
		rc = stop(ops, r,
			  apply_proof_change(rq->proof)->kind ? APPLY_STAGE_PROOF
							      : APPLY_STAGE_GATE,
			  rc);
		goto out;
	}
	rc = write_step(rq, ops, w, &g, write, rq->restore ? NULL : kp, nk, r);
	if (rc < 0)
		goto out;
	fresh = false;
	journal_finish(rq, ops);
	if (rq->restore && kparts_of_disk(rq, ops, kp, &nk) < 0)
		r->kernel = APPLY_KERNEL_STALE;
	else
		kernel_step(rq, ops, kp, nk, &w, r);
	rc = 0;
out:
	if (fresh && rc < 0 && r->stage < APPLY_STAGE_MARKER) {
		/* nothing written to the disk: the new move's journal goes */
		move_finish(*rq->mv);
		move_free(*rq->mv);
		*rq->mv = NULL;
	}
	apply_gate_close(w);
	regions_free(&g);
	return rc;
}

void apply_result_free(struct apply_result *r)
{
	free(r->backup);
	r->backup = NULL;
}
