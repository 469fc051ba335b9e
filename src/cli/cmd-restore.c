/*
 * partalign restore FILE DEVICE: write a table backup (made by fix) back to
 * the disk it came from, then make the kernel see the restored table.
 * Refuses another disk: the size, sector size, the label identity (GPT
 * disk GUID, dos signature) and the device id must match (see the man page
 * for the rule and what --force relaxes), and every region of the backup
 * must be a label sector of the table it holds or of the table on the disk.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "apply/apply.h"
#include "apply/execute.h"
#include "apply/look.h"
#include "core/label.h"
#include "cli/cli.h"
#include "cli/fix-prepare.h"
#include "cli/fix-write.h"
#include "cli/restore-table.h"
#include "cli/trusted.h"
#include "core/marker.h"
#include "core/refusal.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

struct ropts {
	bool yes;
	bool force;
	const char *backup_dir;
};

static void usage(FILE *f)
{
	fputs("Usage: partalign restore [options] FILE DEVICE\n"
	      "\n"
	      "Write the partition-table backup FILE (saved by partalign fix) back to\n"
	      "DEVICE, which must be the disk it was taken from.\n"
	      "\n"
	      "Options:\n"
	      "  -y, --yes             do not ask for confirmation\n"
	      "      --force           accept a disk whose device id changed (its label\n"
	      "                        matches), or one without a partition table whose\n"
	      "                        device id matches\n"
	      "      --backup-dir DIR  where the backup of the current table goes\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 nothing to do, 1 restored, 2 restored but the kernel\n"
	      "has the old table, 8 error or refused, 16 usage error.\n",
	      f);
}

static void hook_saved(void *arg, const char *path)
{
	const struct pa_dev *dev = arg;

	printf("%s: current table saved to %s\n", dev->path, path);
}

static void hook_diags(void *arg, const struct pa_diags *d)
{
	msg_diags(d);
}

/*
 * Past the last refusal (apply_execute): what is there now is worth a
 * backup too (@save); the table restored goes over it, then the kernel is
 * told.  Returns exit bits.
 */
static int write_back(const struct pa_backup *b, struct pa_disk *d,
		      struct pa_proof *proof, const struct pa_devlist *l,
		      const struct pa_dev *dev, const struct ropts *o,
		      const struct pa_extent *save, size_t nsave)
{
	const struct apply_report_ops ops = {
	    .arg = (void *)dev, .saved = hook_saved, .diags = hook_diags};
	const struct apply_request rq = {.disk = d,
					 .proof = proof,
					 .dev = dev,
					 .devs = l,
					 .backup_dir = o->backup_dir,
					 .restore = b,
					 .save = save,
					 .nsave = nsave,
					 .kpartx = true};
	struct apply_result r;
	const char *done = "restored";
	int rc = apply_execute(&rq, &ops, &r), status = PA_EXIT_OK;

	apply_result_free(&r);
	if (rc < 0 && r.stage == APPLY_STAGE_BACKUP) {
		msg_err(dev->path, -rc,
			"cannot save the current table in %s; nothing written",
			o->backup_dir);
		return PA_EXIT_ERROR;
	}
	if (rc < 0 && r.stage == APPLY_STAGE_TAKE) {
		fix_take_refused(NULL, l, dev, &r);
		return PA_EXIT_ERROR;
	}
	if (rc < 0 && r.stage == APPLY_STAGE_PROOF) {
		const struct pa_change *c = apply_proof_change(proof);
		char *what = fix_change_text(c, l);

		if (c->kind == PA_CHANGE_OPENED || c->kind == PA_CHANGE_MAP_OPEN)
			msg_err(dev->path, 0,
				"refused: %s: stop it first; nothing written",
				what ? what : "in use");
		else
			msg_err(dev->path, 0,
				"refused: the disk changed since it was read: %s; "
				"nothing written, run the restore again",
				what ? what : "");
		free(what);
		return PA_EXIT_ERROR;
	}
	if (rc < 0) {
		msg_err(dev->path, -rc, "restore failed");
		return PA_EXIT_ERROR;
	}
	if (r.written)
		status |= PA_EXIT_CHANGED;
	if (r.kernel == APPLY_KERNEL_KPARTX_FAILED) {
		msg_err(dev->path, 0,
			"restored; update the partition maps with 'kpartx -u%s%s %s'",
			r.kpartx_sep ? " -p " : "", r.kpartx_sep ? r.kpartx_sep : "",
			dev->path);
		status |= PA_EXIT_REBOOT | PA_EXIT_CHANGED;
	} else if (r.kernel == APPLY_KERNEL_STALE) {
		msg_err(dev->path, 0,
			"restored, but the kernel still uses the old table");
		status |= PA_EXIT_REBOOT | PA_EXIT_CHANGED;
	}
	if (!r.written)
		done = "already holds this table";
	else if (r.kernel == APPLY_KERNEL_KPARTX)
		done = "restored, partition maps updated by kpartx";
	printf("%s: %s (%" PRIu64 " bytes written)\n", dev->path, done, r.written);
	return status;
}

/* Say where the look at @arg stopped, in restore's words; exit bits (0: go on). */
static int look_said(const char *arg, const struct apply_look *lk)
{
	if (lk->stop == APPLY_LOOK_SCAN && lk->err == -ENODEV) {
		msg_diags(&lk->diags);
		msg_err(arg, 0, "not a disk partalign knows");
		return PA_EXIT_ERROR;
	}
	if (lk->stop == APPLY_LOOK_PART) {
		msg_diags(&lk->diags);
		msg_err(arg, 0, "is a partition: name its whole disk");
		return PA_EXIT_USAGE;
	}
	if (fix_look_said(NULL, arg, lk) != PA_EXIT_OK)
		return PA_EXIT_ERROR;
	if (lk->inuse) {
		msg_err(lk->dev->path, 0, "refused: %s", lk->inuse);
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_OK;
}

/* What the refusal rules of core/refusal.c read of backup @b and disk @d. */
static int restore_facts(const struct pa_backup *b, struct pa_disk *d,
			 const struct pa_dev *dev, const struct ropts *o,
			 struct refusal_restore *rr, struct label_id *cur, char **id,
			 struct refusal_region **regs)
{
	struct pa_marker mk;
	size_t i;
	int rc = apply_disk_marker(d, &mk), marked = rc;

	if (rc >= 0 && b->format != 1)
		rc = apply_disk_identity(d, cur);
	if (rc < 0)
		return rc;
	if (!(*id = apply_disk_id(dev)) || !(*regs = calloc(b->n + 1, sizeof(**regs))))
		return -ENOMEM;
	for (i = 0; i < b->n; i++)
		(*regs)[i] = (struct refusal_region){b->regs[i].off, b->regs[i].len};
	*rr = (struct refusal_restore){.format = b->format,
				       .backup_id = b->id,
				       .size = b->size,
				       .logical = b->logical,
				       .held = b->label,
				       .wrote = b->after,
				       .move_id = b->move_id,
				       .regs = *regs,
				       .nregs = b->n,
				       .disk_id = *id,
				       .disk_size = d->size,
				       .disk_logical = d->logical,
				       .readonly = apply_disk_is_readonly(d),
				       .path = dev->path,
				       .marked = marked == 1,
				       .marker_id = mk.move_id,
				       .marker_id32 = mk.id32,
				       .cur = cur,
				       .force = o->force};
	return 0;
}

/* The table now beside the one the backup holds, then the question. */
static int show_and_ask(const struct pa_backup *b, struct pa_disk *d, const char *path,
			const struct ropts *o)
{
	struct pa_table now, then;
	struct pa_shadow *s1 = NULL, *s2 = NULL;
	struct pa_diags msgs = {0};
	char line[16];
	int rc = apply_table_read(d, &s1, &now, &msgs);

	if (rc == 0) {
		rc = apply_table_read_over(d, b->regs, (void *const *)b->data, b->n, &s2,
					   &then, &msgs);
		if (rc == 0) {
			restore_table_show(path, &now, &then);
			plan_table_free(&then);
		}
		plan_table_free(&now);
	}
	apply_shadow_free(s1);
	apply_shadow_free(s2);
	diags_free(&msgs);
	fflush(stdout);
	if (o->yes)
		return PA_EXIT_OK;
	fprintf(stderr, "Write the partition table saved %s back to %s? [y/N] ",
		b->created ? b->created : "", path);
	if (fgets(line, sizeof(line), stdin) && (line[0] == 'y' || line[0] == 'Y'))
		return PA_EXIT_OK;
	msg_err(path, 0, "not confirmed: nothing written");
	return PA_EXIT_ERROR;
}

static int restore(const struct pa_backup *b, const char *file, const char *arg,
		   const struct ropts *o)
{
	struct refusal_restore rr;
	struct refusal_region *regs = NULL;
	struct label_id *cur = calloc(1, sizeof(*cur));
	struct pa_extent *save = NULL;
	struct pa_proof *proof = NULL;
	struct apply_look lk;
	char *id = NULL, *why = NULL, *warn = NULL, *held = NULL;
	uint64_t bad = 0;
	size_t nsave = 0;
	int rc, err = 0, status;

	if (b->format == 1)
		msg_warn(file,
			 "a format-1 backup: it names its disk only by the device id "
			 "(%s), so a clone of that disk cannot be told apart",
			 b->id);
	/* the look every writer shares (apply/look.c), claiming: in use is the end */
	rc = apply_look(arg, 10000, APPLY_LOOK_CLAIM, &lk);
	if (rc < 0 || !cur) {
		msg_err(arg, rc < 0 ? -rc : ENOMEM, "cannot look at it");
		status = PA_EXIT_ERROR;
		goto out;
	}
	status = look_said(arg, &lk);
	if (status != PA_EXIT_OK)
		goto out;
	/* what the checks below read is what the gate proves again */
	rc = apply_proof_take(&lk.disk, &lk.devs, lk.dev, &proof);
	if (rc == 0 && apply_proof_openers(proof, NULL) == -EBUSY) {
		held = fix_change_text(apply_proof_change(proof), &lk.devs);
		msg_err(lk.dev->path, 0, "refused: %s: stop it first",
			held ? held : "in use");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (rc == 0)
		rc = restore_facts(b, &lk.disk, lk.dev, o, &rr, cur, &id, &regs);
	if (rc == 0 && (why = refusal_restore(&rr, &warn, &err)))
		msg_err(lk.dev->path, 0, "refused: %s", why);
	if (rc == 0 && !why && !err && warn)
		msg_warn(lk.dev->path, "%s", warn);
	if (rc == 0 && !why && !err)
		rc = apply_backup_check(b, &lk.disk, &bad, &save, &nsave);
	if (rc == -ERANGE)
		msg_err(lk.dev->path, 0,
			"refused: the backup has a region at byte %" PRIu64
			" that is no label sector of its table",
			bad);
	else if (rc < 0 || err < 0)
		msg_err(lk.dev->path, rc < 0 ? -rc : -err,
			"cannot read the partition table");
	if (rc < 0 || err < 0 || why)
		status = PA_EXIT_ERROR;
	else
		status = show_and_ask(b, &lk.disk, lk.dev->path, o);
	if (status == PA_EXIT_OK)
		status = write_back(b, &lk.disk, proof, &lk.devs, lk.dev, o, save, nsave);
out:
	apply_proof_free(proof);
	apply_look_free(&lk);
	free(held);
	free(why);
	free(warn);
	free(save);
	free(regs);
	free(cur);
	free(id);
	return status;
}

int cmd_restore(int argc, char **argv)
{
	enum { OPT_BACKUP = 256, OPT_FORCE };
	static const struct option longopts[] = {
	    {"yes", no_argument, NULL, 'y'},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct ropts o = {.backup_dir = PA_STATEDIR "/backup"};
	struct pa_backup b;
	struct trust_fail tf;
	int c, rc, status;

	while ((c = getopt_long(argc, argv, "yh", longopts, NULL)) != -1) {
		switch (c) {
		case 'y':
			o.yes = true;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_BACKUP:
			o.backup_dir = optarg;
			break;
		default:
			return cli_usage(usage, c == 'h');
		}
	}
	if (argc - optind != 2) {
		if (argc - optind > 2)
			msg_err(NULL, 0,
				"unexpected argument '%s' (restore takes FILE DEVICE)",
				argv[optind + 2]);
		else
			msg_err(NULL, 0, "no %s given",
				argc == optind ? "backup file" : "device");
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	if (!o.yes && !isatty(STDIN_FILENO)) {
		msg_err(NULL, 0,
			"restore needs confirmation and standard input is not a "
			"terminal: use --yes");
		return PA_EXIT_USAGE;
	}
	if (cli_trust_dirs(NULL, &o.backup_dir, 1) != PA_EXIT_OK)
		return PA_EXIT_ERROR;
	rc = apply_backup_load_trusted(argv[optind], &b, &tf);
	if (rc < 0) {
		if (rc == -EPERM)
			cli_trust_refuse(NULL, argv[optind], &tf, cli_trust_rule(&tf));
		else if (rc == -EBADMSG)
			msg_err(argv[optind], 0,
				"not a partalign backup, or damaged (checksum, "
				"truncated or edited); nothing written to %s",
				argv[optind + 1]);
		else
			msg_err(argv[optind], -rc, "cannot read; nothing written to %s",
				argv[optind + 1]);
		return PA_EXIT_ERROR;
	}
	status = restore(&b, argv[optind], argv[optind + 1], &o);
	apply_backup_free(&b);
	return status;
}
