/*
 * plan on a disk whose partitions hold Oracle ASM disk group members (issue
 * #34): a misaligned member gets the online route as advice -- a new disk
 * partitioned on the grain, then ASM's ADD DISK ... DROP DISK ... REBALANCE
 * -- beside the offline one (fix --move-data with the disk group
 * dismounted).  The headers are read read-only as check --asm reads them;
 * fix itself refuses a member as before (its signature is data).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fix-advice.h"
#include "core/asm-audit.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

/* The plan's step for partition @num, or NULL. */
static const struct pa_step *step_of(const struct fix_job *j, unsigned int num)
{
	size_t i;

	for (i = 0; i < j->plan.n; i++)
		if (j->plan.v[i].num == num && j->plan.v[i].old)
			return &j->plan.v[i];
	return NULL;
}

static int add(struct fix_job *j, const struct pa_asm_row *r, const char *sql)
{
	char *reason;

	if (asprintf(&reason,
		     "asm: ASM disk %s of disk group %s is misaligned; ASM can move "
		     "its data online",
		     r->h->dskname, r->h->grpname) < 0)
		reason = NULL;
	return fix_fsadv_add(j, r->d->partno, reason, sql, r->h->grpname);
}

int fix_asm_advice(const struct fix_opts *o, struct fix_job *j)
{
	char *names[1];
	struct pa_scan_opts so = {.names = names, .nnames = 1};
	struct pa_devlist l = {0};
	struct pa_diags diags = {0};
	struct pa_asm_audit a = {0};
	size_t i;
	int rc;

	if (o->fix || !j->dev || !j->planned || j->dev->kind == PA_KIND_PART)
		return 0;
	names[0] = j->dev->path;
	rc = scan_devices(&so, &l, &diags);
	if (rc == 0)
		rc = scan_asm_read(&l, NULL, NULL, NULL, &diags);
	if (rc == 0)
		rc = asm_audit_run(&l, &a);
	for (i = 0; rc == 0 && i < a.n; i++) {
		const struct pa_asm_row *r = &a.v[i];
		const struct pa_step *s;
		char sql[512];

		if (r->d->kind != PA_KIND_PART || !r->d->disk ||
		    strcmp(r->d->disk->name, j->dev->name) != 0 ||
		    !(s = step_of(j, r->d->partno)))
			continue;
		if (!align_check_exit(&s->before) && !(r->exit & PA_EXIT_MISALIGNED))
			continue;
		if (asm_audit_advice(r, sql, sizeof(sql)) == 0)
			rc = add(j, r, sql);
	}
	asm_audit_free(&a);
	devlist_free(&l);
	diags_free(&diags); /* unreadable headers: no advice, the plan stands */
	return rc == -ENOMEM ? rc : 0;
}
