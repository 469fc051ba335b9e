/*
 * plan and fix above the partition table: a stacked device judged at its
 * place on the disks below, and the command that would fix the layer to
 * blame.  Partalign rewrites partition tables only; here it advises.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fix-advice.h"
#include "core/exitcodes.h"
#include "core/layers.h"
#include "scan/scan.h"

static bool is_stacked(const struct pa_dev *d)
{
	return d->kind == PA_KIND_LVM || d->kind == PA_KIND_CRYPT ||
	       d->kind == PA_KIND_DM || d->kind == PA_KIND_MD;
}

/*
 * @path and what it stands on, scanned afresh and probed as check --probe
 * does (read-only: the PV labels and VG metadata, the file systems'
 * superblocks), so that an LV is judged in extents; j->devs stays as fix
 * uses it.
 */
static int scan_probed(const char *path, struct pa_devlist *l, struct pa_dev **d)
{
	char *names[] = {(char *)path};
	struct pa_scan_opts so = {.names = names, .nnames = 1};
	struct pa_diags diags = {0};
	size_t i;
	int rc = scan_devices(&so, l, &diags);

	for (i = 0; rc >= 0 && i < l->n; i++)
		if (!l->v[i]->disk && scan_probe_disk(l, l->v[i], &diags) == -ENOMEM)
			rc = -ENOMEM;
	diags_free(&diags);
	return rc < 0 ? rc : scan_lookup(l, path, d);
}

/* "A; B" into @buf from the stack's advice and the file system's */
static void join(char *buf, size_t len, const char *a, const char *b)
{
	snprintf(buf, len, "%s%s%s", a, *a && *b ? "; " : "", b);
}

int fix_stack_advice(const struct fix_opts *o, struct fix_job *j, int *st)
{
	struct pa_devlist l = {0};
	struct pa_dev *d = NULL;
	struct pa_check c;
	char adv[1024] = "", fsr[PA_REASON_MAX] = "", fsfix[256] = "";
	char buf[sizeof(adv) + sizeof(fsfix) + 2], reason[PA_REASON_TEXT_MAX] = "",
						   why[sizeof(reason) + sizeof(fsr) + 2];
	int rc = PA_EXIT_OK;

	if (!j->dev || !is_stacked(j->dev))
		return PA_EXIT_OK;
	/* an LV without a partition table is the usual case, not a refusal */
	if (j->planned && j->plan.table.label == PA_LABEL_NONE && !o->plan.new_disk &&
	    j->plan.refusal && !j->plan.changes && !j->kernel_stale) {
		free(j->plan.refusal);
		j->plan.refusal = NULL;
		*st &= ~PA_EXIT_MISALIGNED;
	}
	if (scan_probed(j->dev->path, &l, &d) < 0 || !d)
		goto out;
	align_check_dev(d, &o->plan.grain, &c);
	if (layers_check(&l, d, &o->plan.grain, &c) != 0 ||
	    layers_advise(&l, d, &o->plan.grain, adv, sizeof(adv)) != 0)
		adv[0] = '\0';
	else
		reason_render(&c.why, reason, sizeof(reason), NULL, NULL);
	if (layers_check_fs(d, fsr, sizeof(fsr), fsfix, sizeof(fsfix), NULL) !=
	    PA_VERDICT_MISALIGNED)
		fsr[0] = fsfix[0] = '\0';
	if (!adv[0] && !fsfix[0])
		goto out;
	join(buf, sizeof(buf), adv, fsfix);
	join(why, sizeof(why), reason, fsr[0] ? "fs: " : "");
	if (fsr[0])
		strncat(why, fsr, sizeof(why) - strlen(why) - 1);
	j->stack_reason = strdup(why);
	j->advice = strdup(buf);
	if (!j->stack_reason || !j->advice) {
		msg_log_err(o->log, j->dev->path, ENOMEM, "cannot keep the advice");
		rc = PA_EXIT_ERROR;
		goto out;
	}
	if (o->out.format == OUT_TABLE && o->fix)
		msg_warn(j->dev->path,
			 "%s; partalign writes nothing above a partition: %s",
			 j->stack_reason, j->advice);
	rc = PA_EXIT_MISALIGNED;
out:
	devlist_free(&l);
	return rc;
}

int fix_fsadv_add(struct fix_job *j, unsigned int num, char *reason, const char *fix,
		  const char *asm_group)
{
	struct fix_fsadv *v = realloc(j->fsadv, (j->nfsadv + 1) * sizeof(*v));

	if (!v) {
		free(reason);
		return -ENOMEM;
	}
	j->fsadv = v;
	v = &j->fsadv[j->nfsadv];
	*v = (struct fix_fsadv){.num = num,
				.reason = reason,
				.fix = strdup(fix),
				.asm_group = asm_group ? strdup(asm_group) : NULL};
	if (!v->reason || !v->fix || (asm_group && !v->asm_group)) {
		free(v->reason);
		free(v->fix);
		free(v->asm_group);
		return -ENOMEM;
	}
	j->nfsadv++;
	return 0;
}

int fix_fs_advice(const struct fix_opts *o, struct fix_job *j)
{
	struct pa_devlist l = {0};
	struct pa_dev *d = NULL;
	size_t i;
	int rc = 0;

	if (o->fix || !j->dev || is_stacked(j->dev) || j->dev->kind == PA_KIND_PART)
		return 0;
	if (scan_probed(j->dev->path, &l, &d) < 0 || !d)
		goto out;
	for (i = 0; i < l.n && rc == 0; i++) {
		const struct pa_dev *p = l.v[i];
		char why[PA_REASON_MAX], fix[256], *reason;

		if (p->disk != d || p->kind != PA_KIND_PART ||
		    layers_check_fs(p, why, sizeof(why), fix, sizeof(fix), NULL) !=
			PA_VERDICT_MISALIGNED ||
		    !fix[0])
			continue;
		if (asprintf(&reason, "fs: %s", why) < 0)
			reason = NULL;
		rc = fix_fsadv_add(j, p->partno, reason, fix, NULL);
	}
out:
	devlist_free(&l);
	return rc;
}

const struct fix_fsadv *fix_fsadv_of(const struct fix_job *j, unsigned int num)
{
	size_t i;

	for (i = 0; i < j->nfsadv; i++)
		if (j->fsadv[i].num == num)
			return &j->fsadv[i];
	return NULL;
}

void fix_advice_free(struct fix_job *j)
{
	size_t k;

	free(j->stack_reason);
	free(j->advice);
	for (k = 0; k < j->nfsadv; k++) {
		free(j->fsadv[k].reason);
		free(j->fsadv[k].fix);
		free(j->fsadv[k].asm_group);
	}
	free(j->fsadv);
	j->stack_reason = j->advice = NULL;
	j->fsadv = NULL;
	j->nfsadv = 0;
}

void fix_print_advice(const struct fix_job *jobs, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		if (jobs[i].advice)
			printf("%s: %s\n  fix: %s\n", jobs[i].dev->path,
			       jobs[i].stack_reason, jobs[i].advice);
		for (k = 0; k < jobs[i].nfsadv; k++)
			if (jobs[i].fsadv[k].asm_group)
				printf(
				    "%s partition %u: %s\n  fix online: %s\n  fix "
				    "offline: dismount disk group %s, then partalign fix "
				    "--move-data %s\n",
				    jobs[i].dev->path, jobs[i].fsadv[k].num,
				    jobs[i].fsadv[k].reason, jobs[i].fsadv[k].fix,
				    jobs[i].fsadv[k].asm_group, jobs[i].dev->path);
			else
				printf(
				    "%s partition %u: %s\n  fix: %s (a new file system: "
				    "copy the data over)\n",
				    jobs[i].dev->path, jobs[i].fsadv[k].num,
				    jobs[i].fsadv[k].reason, jobs[i].fsadv[k].fix);
	}
}
