/*
 * provision's two questions to the writer, in process: what would fix --new
 * do on this disk (the probe: the steps of `plan --new` up to its report),
 * and fix --new itself.
 *
 * The probe reads the table with libparted as plan does (lock, exclusive
 * open, in-use and read-only refusals, the kernel's view against the table,
 * the plan, an unfinished move, libparted's acceptance of the new table) and
 * keeps the answer as a struct; it writes nothing.  The rules are plan's own
 * (plan_refusal_in_use, plan_kernel_stale, apply_map_in_use), and so is the
 * look every writer shares (apply_look, apply/look.c).  fix --new is
 * fix_run() with the options of `fix --new --name NAME --yes`; its stdout
 * (progress meant for a terminal) joins our stderr, so provision's stdout
 * carries only the report.  The reason of a refusal or failure is the error
 * either of them reports last, through the run's own struct msg_log.
 *
 * Ownership: probes belong to the run (r->probes) and borrow their device.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply.h"
#include "apply/look.h"
#include "cli/cli.h"
#include "cli/fix-move.h"
#include "cli/fix-opts.h"
#include "cli/fix-prepare.h"
#include "cli/fix-run.h"
#include "cli/provision.h"
#include "core/exitcodes.h"
#include "core/plan.h"
#include "core/refusal.h"
#include "scan/scan.h"

/* How long the probe waits for the disk lock, as plan does by default. */
#define PROBE_WAIT_MS 10000

void provision_probe_free(struct probe *pr)
{
	free(pr->pname);
	free(pr->refused);
	free(pr->err);
}

/* The answer of plan @p, as the first row of plan --new would give it. */
static void probe_answer(struct probe *pr, const struct pa_plan *p)
{
	const struct pa_step *s = p->n ? &p->v[0] : NULL;

	pr->action = s ? plan_step_name(s->kind) : "none";
	if (s && s->kind == PA_STEP_KEEP && s->old && s->old->name)
		pr->pname = prov_strdup(s->old->name);
	if (p->refusal && *p->refusal)
		pr->refused = prov_strdup(p->refusal);
	pr->new_aligned = true;
	if (s && s->kind != PA_STEP_DROP) {
		pr->has_start = true;
		pr->new_start = s->new_start;
		pr->new_aligned = s->after.physical != PA_VERDICT_MISALIGNED &&
				  s->after.optimal != PA_VERDICT_MISALIGNED &&
				  s->after.policy != PA_VERDICT_MISALIGNED;
	}
}

/* The plan of fix --new for @dev into @p (planned: *planned); exit bits. */
static int probe_plan(struct msg_log *log, struct run *r, const struct pa_dev *dev,
		      struct pa_plan *p, bool *planned)
{
	struct pa_plan_opts po = {.grain = r->grain, .new_disk = true};
	struct fix_move_opts mo = {0};
	struct pa_mover *mv = NULL; /* stays NULL: no --move-data */
	struct pa_shadow *sh = NULL;
	struct pa_diags msgs = {0};
	struct apply_look lk;
	struct pa_table t;
	char *inuse = NULL;
	bool stale = false;
	int rc, status;

	/* the look every writer shares, as plan does (look.h) */
	status = fix_look(log, dev->path, PROBE_WAIT_MS, &lk);
	if (status != PA_EXIT_OK)
		goto out;
	inuse = lk.inuse;
	lk.inuse = NULL;
	/* a map: users no process shows (a mount, LVM) are in its open counts */
	if (!inuse && lk.claimed && lk.dev->kind == PA_KIND_MPATH)
		inuse = apply_map_in_use(&lk.devs, lk.dev);
	rc = apply_table_read(&lk.disk, &sh, &t, &msgs);
	if (rc == 0) {
		stale = plan_kernel_stale(&lk.devs, lk.dev, &t);
		rc = plan_compute(&t, &lk.dev->topo, &po, p);
	}
	/* an unfinished move refuses the disk, as in plan */
	if (rc == 0)
		rc = fix_move_prepare(log, &mo, &po, &lk.devs, lk.dev, p, &mv);
	if (rc < 0) {
		msg_log_diags(log, &msgs);
		msg_log_err(log, dev->path, -rc, "cannot read the partition table");
		status = PA_EXIT_ERROR;
		goto out;
	}
	*planned = true;
	/* a disk in use is refused only when something would be written to it */
	if (inuse && refusal_in_use_applies(p, stale) && refusal_replace(p, inuse) < 0)
		prov_nomem();
	if (!p->refusal && p->changes && apply_table_stage(sh, p, NULL, &msgs) < 0) {
		msg_log_diags(log, &msgs);
		msg_log_err(log, dev->path, 0, "libparted refused the new table");
		status = PA_EXIT_ERROR;
		goto out;
	}
	status = p->refusal || p->changes || stale ? PA_EXIT_MISALIGNED : PA_EXIT_OK;
out:
	diags_free(&msgs);
	move_free(mv);
	apply_shadow_free(sh);
	apply_look_free(&lk);
	free(inuse);
	return status;
}

/* What fix --new would do on @dev, once per device. */
struct probe *provision_probe(struct run *r, const struct pa_dev *dev)
{
	struct pa_plan plan = {0};
	struct msg_log log = {0};
	bool planned = false;
	struct probe *pr;
	size_t i;

	for (i = 0; i < r->nprobes; i++)
		if (r->probes[i].dev == dev)
			return &r->probes[i];
	if (r->nprobes == r->capprobes) {
		size_t cap = r->capprobes ? r->capprobes * 2 : 16;
		struct probe *v = realloc(r->probes, cap * sizeof(*v));

		if (!v)
			prov_nomem();
		r->probes = v;
		r->capprobes = cap;
	}
	pr = &r->probes[r->nprobes++];
	memset(pr, 0, sizeof(*pr));
	pr->dev = dev;
	pr->rc = probe_plan(&log, r, dev, &plan, &planned);
	pr->err = log.last;
	if (planned)
		probe_answer(pr, &plan);
	plan_free(&plan);
	return pr;
}

static bool probe_says(const struct probe *pr, const char *action)
{
	return !(pr->rc & (PA_EXIT_ERROR | PA_EXIT_USAGE)) && pr->action &&
	       strcmp(pr->action, action) == 0;
}

/*
 * The disk holds exactly the partition fix --new makes.  A refusal beside a
 * "keep" can only be "in use" (the refusals of --new come before any step):
 * harmless when nothing is to be written.
 */
bool provision_probe_keeps(const struct probe *pr)
{
	return probe_says(pr, "keep");
}

/* The disk is blank: fix --new would create the partition. */
bool provision_probe_creates(const struct probe *pr)
{
	return probe_says(pr, "create") && !pr->refused;
}

/* What went wrong with a probe that neither creates, keeps nor refuses. */
const char *provision_probe_failure(const struct probe *pr, char *buf, size_t len)
{
	if (pr->err)
		return pr->err;
	snprintf(buf, len, "cannot tell how to partition it (exit status %d)", pr->rc);
	return buf;
}

/* fix --new on one disk, as fix_run() takes it. */
struct fix_call {
	struct fix_opts o;
	char *device;
};

static int call_fix(void *ctx)
{
	struct fix_call *c = ctx;

	return fix_run(&c->o, &c->device, 1);
}

int provision_fix(struct run *r, struct disk *d)
{
	struct msg_log log = {0};
	struct fix_call c = {.device = d->device};
	const char *err;
	int rc;

	/* fix --new --name NAME --yes [--align SIZE] [--backup-dir DIR] DEVICE */
	fix_opts_init(&c.o, true);
	c.o.plan.new_disk = true;
	c.o.name = d->cfg->name;
	c.o.yes = true;
	c.o.plan.grain = r->grain; /* --align or the configuration's, else the default */
	if (r->backup_dir)
		c.o.backup_dir = r->backup_dir;
	c.o.log = &log;
	rc = prov_call(call_fix, &c);
	err = log.last;
	if (rc < 0) {
		prov_fail(d, ACT_ERROR, "cannot partition it: %s%s", strerror(-rc),
			  msg_root_hint(-rc));
	} else if (rc & (PA_EXIT_ERROR | PA_EXIT_USAGE) || rc >= 32) {
		if (err)
			prov_fail(d, ACT_ERROR, "%s", err);
		else
			prov_fail(d, ACT_ERROR, "partitioning it failed (exit status %d)",
				  rc);
	} else if (rc & PA_EXIT_MISALIGNED) {
		if (err)
			prov_fail(d, ACT_REFUSED, "%s", err);
		else
			prov_fail(d, ACT_REFUSED,
				  "partitioning it was refused (exit status %d)", rc);
	} else {
		rc &= PA_EXIT_CHANGED | PA_EXIT_REBOOT;
		d->reboot = rc & PA_EXIT_REBOOT;
		if (d->reboot)
			prov_remark(d,
				    "the table is written but the kernel still uses the "
				    "old one: reboot, then run provision again");
	}
	msg_log_free(&log);
	return d->action == ACT_ERROR || d->action == ACT_REFUSED ? 0 : rc;
}
