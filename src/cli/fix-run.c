/*
 * plan and fix, disk after disk: fix_run() prepares each named disk
 * (fix-prepare.c), shows its plan (fix-table.c), and for fix asks [y/N]
 * and hands it to fix_execute() (fix-write.c), whose apply_execute() is
 * the one write sequence.  `plan` is `fix` that stops before the question:
 * both read and stage the same way.  resume and provision call fix_run()
 * with options they set themselves.
 */
#include "config.h"

#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply.h"
#include "cli/cli.h"
#include "cli/fix-advice.h"
#include "cli/fix-prepare.h"
#include "cli/fix-run.h"
#include "cli/fix-table.h"
#include "cli/fix-write.h"
#include "cli/trusted.h"
#include "core/exitcodes.h"
#include "core/plan.h"
#include "scan/scan.h"

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
		fprintf(stderr, "Re-create the partition table of %s%s%s? [y/N] ",
			j->dev->path, fix_table_converts(j) ? " as GPT" : "",
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

int fix_run(struct fix_opts *op, char *const *devices, size_t njobs)
{
	struct fix_opts o = *op;
	struct libscols_table *tb = NULL;
	struct fix_job *jobs = NULL;
	struct pa_opener_index openers = {0};
	int sel[OUT_MAXCOLS];
	size_t nsel = 0, i;
	bool fix = o.fix;
	int status = PA_EXIT_OK;

	out_detect_terminal(&o.out);
	if (fix_table_select(&o.out, sel, &nsel) < 0)
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
	tb = fix_table_new(&o.out, fix ? "fix" : "plan", sel, nsel);
	if (!jobs || !tb) {
		msg_log_err(o.log, NULL, ENOMEM, "cannot start");
		status |= PA_EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < njobs; i++) {
		struct fix_job *j = &jobs[i];
		int st, adv;

		j->openers = fix ? NULL : &openers;
		st = fix_prepare(&o, devices[i], j);

		adv = fix_stack_advice(&o, j, &st);
		if (fix_fs_advice(&o, j) < 0 || fix_asm_advice(&o, j) < 0)
			st |= PA_EXIT_ERROR;
		st |= adv;
		if (j->advice)
			status |= PA_EXIT_MISALIGNED; /* fix cannot mend it either */

		if (!fix || !j->planned || (st & (PA_EXIT_ERROR | PA_EXIT_USAGE))) {
			status |= st;
			if (j->planned)
				fix_table_add(&o, tb, sel, nsel, j);
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
				    fix_table_new(&o.out, "fix", sel, nsel);

				if (one) {
					fix_table_add(&o, one, sel, nsel, j);
					out_print(one);
					scols_unref_table(one);
				}
				fix_table_label_note(&o, j);
			}
			if (!o.yes && !confirm(j)) {
				j->result = "not confirmed";
				status |= PA_EXIT_MISALIGNED;
				if (o.out.format == OUT_TABLE)
					printf("%s: not confirmed: nothing written\n",
					       j->dev->path);
			} else {
				status |= fix_execute(&o, j);
			}
		}
		if (o.out.format != OUT_TABLE)
			fix_table_add(&o, tb, sel, nsel, j);
		else if (j->result && !strcmp(j->result, "nothing to do"))
			printf("%s: nothing to do\n", j->dev->path);
		job_free(j);
		memset(j, 0, sizeof(*j));
		settle();
	}
	if (!fix || o.out.format != OUT_TABLE)
		status |= out_print(tb);
	for (i = 0; !fix && i < njobs; i++)
		fix_table_label_note(&o, &jobs[i]);
	if (!fix && o.out.format == OUT_TABLE)
		fix_print_advice(jobs, njobs);
out:
	for (i = 0; jobs && i < njobs; i++)
		job_free(&jobs[i]);
	free(jobs);
	scols_unref_table(tb);
	scan_openers_index_free(&openers);
	return status;
}
