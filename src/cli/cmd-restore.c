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
#include "core/label.h"
#include "cli/cli.h"
#include "cli/fix-write.h"
#include "cli/trusted.h"
#include "core/marker.h"
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

/* Scan @arg and its neighbourhood into @l and find it there. */
static int scan_one(const char *arg, struct pa_devlist *l, struct pa_dev **dev)
{
	char *names[] = {(char *)arg};
	struct pa_scan_opts so = {.names = names, .nnames = 1};
	struct pa_diags diags = {0};
	int rc;

	devlist_free(l);
	rc = scan_devices(&so, l, &diags);
	msg_diags(&diags);
	diags_free(&diags);
	return rc < 0 ? rc : scan_lookup(l, arg, dev);
}

static void text_of(const struct label_id *id, char *buf, size_t len)
{
	if (label_identity_format(id, buf, len) < 0)
		snprintf(buf, len, "?");
}

/*
 * The identity rule.  Format 2: the disk's label identity must be the one
 * of the table the backup holds or of the table partalign wrote over it,
 * and the device id must be the backup's; --force waives one of the two:
 * the device id (a disk moved to another controller), or the label when
 * the disk has none that can be identified.  Format 1 has only the device
 * id, which --force cannot waive.  0 to go on, or PA_EXIT_ERROR (said).
 */
static int identity_ok(const struct pa_backup *b, struct pa_disk *d, const char *path,
		       const char *id, bool force)
{
	struct label_id *cur;
	const struct label_id *wrote = b->after;
	char have[64], held[64], after[64] = "";
	bool id_ok = strcmp(id, b->id) == 0, label_ok;
	int rc;

	if (b->format == 1) {
		if (id_ok)
			return 0;
		msg_err(path, 0, "refused: the backup is of %s, this disk is %s", b->id,
			id);
		return PA_EXIT_ERROR;
	}
	cur = malloc(sizeof(*cur));
	if (!cur)
		return PA_EXIT_ERROR;
	rc = apply_disk_identity(d, cur);
	if (rc < 0) {
		msg_err(path, -rc, "cannot read the partition table");
		free(cur);
		return PA_EXIT_ERROR;
	}
	if (wrote && label_identity_same(wrote, b->label))
		wrote = NULL; /* fix rewrote the table in place: one identity */
	text_of(cur, have, sizeof(have));
	text_of(b->label, held, sizeof(held));
	if (wrote)
		text_of(wrote, after, sizeof(after));
	label_ok =
	    cur->kind != LABEL_ID_NONE && (label_identity_same(cur, b->label) ||
					   (wrote && label_identity_same(cur, wrote)));
	rc = PA_EXIT_ERROR;
	if (!label_ok && cur->kind != LABEL_ID_NONE) {
		msg_err(path, 0,
			"refused: the backup is of the table %s%s%s%s, this disk has %s",
			held, wrote ? " (or " : "", after,
			wrote ? ", which partalign wrote over it)" : "", have);
	} else if (!label_ok && !force) {
		msg_err(path, 0,
			"refused: the disk has no partition table to identify it by "
			"(the backup is of %s); --force restores it if the device id "
			"matches",
			held);
	} else if (!label_ok && !id_ok) {
		msg_err(path, 0,
			"refused: the disk has no partition table to identify it by and "
			"the backup is of %s, this disk is %s",
			b->id, id);
	} else if (!id_ok && !force) {
		msg_err(path, 0,
			"refused: the backup is of %s, this disk is %s (its label %s "
			"matches: --force if the disk has moved)",
			b->id, id, have);
	} else {
		if (!id_ok)
			msg_warn(
			    path,
			    "the backup is of %s, this disk is %s; restoring (--force, "
			    "its label %s matches)",
			    b->id, id, have);
		if (!label_ok)
			msg_warn(path,
				 "no partition table to identify the disk by; restoring "
				 "(--force, the device id %s matches)",
				 id);
		rc = 0;
	}
	free(cur);
	return rc;
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
					 .nsave = nsave};
	struct apply_result r;
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
	if (r.kernel != APPLY_KERNEL_SYNCED) {
		msg_err(dev->path, 0,
			"restored, but the kernel still uses the old table");
		status |= PA_EXIT_REBOOT | PA_EXIT_CHANGED;
	}
	printf("%s: %s (%" PRIu64 " bytes written)\n", dev->path,
	       r.written ? "restored" : "already holds this table", r.written);
	return status;
}

/* The disk itself: write-protected, an unfinished move, a backup taken before one. */
static int disk_refusal(const struct pa_backup *b, struct pa_disk *d,
			const struct pa_dev *dev)
{
	struct pa_marker mk;
	int rc;

	if (apply_disk_is_readonly(d)) {
		msg_err(dev->path, 0, "refused: %s is read-only (write-protected)",
			dev->path);
		return PA_EXIT_ERROR;
	}
	rc = apply_disk_marker(d, &mk);
	if (rc != 0) {
		if (rc > 0)
			msg_err(dev->path, 0,
				"refused: an unfinished data move (move id %0*" PRIx64
				") is recorded on the disk: finish it with 'partalign "
				"resume %s'",
				mk.id32 ? 8 : 16, mk.move_id, dev->path);
		else
			msg_err(dev->path, -rc, "cannot read the partition table");
		return PA_EXIT_ERROR;
	}
	if (b->move_id) {
		msg_err(dev->path, 0,
			"refused: the backup was taken before data move %016" PRIx64
			"; its partitions' data has moved since",
			b->move_id);
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_OK;
}

/* The backup must be of a disk of this size and sector size, its regions on it. */
static int backup_refusal(const struct pa_backup *b, const struct pa_disk *d,
			  const struct pa_dev *dev)
{
	size_t i;

	if (d->size != b->size || d->logical != b->logical) {
		msg_err(dev->path, 0,
			"refused: the backup is of a %" PRIu64 "-byte disk with %" PRIu32
			"-byte sectors, this one has %" PRIu64 " and %" PRIu32,
			b->size, b->logical, d->size, d->logical);
		return PA_EXIT_ERROR;
	}
	for (i = 0; i < b->n; i++)
		if (b->regs[i].off + b->regs[i].len > d->size ||
		    b->regs[i].off % d->logical || b->regs[i].len % d->logical) {
			msg_err(dev->path, 0,
				"refused: the backup has a region off the disk");
			return PA_EXIT_ERROR;
		}
	return PA_EXIT_OK;
}

static int restore(const struct pa_backup *b, const char *file, const char *arg,
		   struct pa_devlist *l, struct pa_dev *dev, const struct ropts *o)
{
	struct pa_disk d;
	char *id = NULL, *inuse = NULL;
	dev_t was = makedev(dev->major, dev->minor), now = 0;
	uint64_t bad = 0;
	struct pa_extent *save = NULL;
	struct pa_proof *proof = NULL;
	size_t nsave = 0;
	int rc, status = PA_EXIT_OK;

	if (b->format == 1)
		msg_warn(file,
			 "a format-1 backup: it names its disk only by the device id "
			 "(%s), so a clone of that disk cannot be told apart",
			 b->id);
	inuse = plan_refusal_in_use(l, dev);
	if (inuse) {
		msg_err(dev->path, 0, "refused: %s", inuse);
		free(inuse);
		return PA_EXIT_ERROR;
	}
	rc = apply_disk_open(dev->path, PA_DISK_LOCK | PA_DISK_EXCL, 10000, &d);
	if (rc < 0) {
		msg_err(dev->path, rc == -EWOULDBLOCK ? 0 : -rc,
			rc == -EBUSY ? "refused: in use"
			: rc == -EWOULDBLOCK
			    ? "locked by another process (partalign or udev); "
			      "try again"
			    : "cannot open");
		return PA_EXIT_ERROR;
	}
	/* the lock wait leaves time to replace the node, or to mount the disk */
	rc = scan_one(arg, l, &dev);
	if (rc < 0) {
		msg_err(arg, -rc, "cannot scan");
		status = PA_EXIT_ERROR;
		goto out;
	}
	rc = apply_disk_same(&d, major(was), minor(was), &now);
	if (rc == 0 && makedev(dev->major, dev->minor) != was) {
		now = makedev(dev->major, dev->minor);
		rc = -ESTALE;
	}
	if (rc < 0) {
		msg_err(NULL, 0,
			"refused: %s changed while waiting for its lock (was %u:%u, "
			"now %u:%u)",
			arg, major(was), minor(was), major(now), minor(now));
		status = PA_EXIT_ERROR;
		goto out;
	}
	inuse = plan_refusal_in_use(l, dev);
	if (inuse) {
		msg_err(dev->path, 0, "refused: %s", inuse);
		status = PA_EXIT_ERROR;
		goto out;
	}
	/* what the checks below read is what the gate proves again */
	rc = apply_proof_take(&d, l, dev, &proof);
	if (rc < 0) {
		msg_err(dev->path, -rc, "cannot read the partition table");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (apply_proof_openers(proof) == -EBUSY) {
		inuse = fix_change_text(apply_proof_change(proof), l);
		msg_err(dev->path, 0, "refused: %s: stop it first",
			inuse ? inuse : "in use");
		status = PA_EXIT_ERROR;
		goto out;
	}
	status = disk_refusal(b, &d, dev);
	if (status != PA_EXIT_OK)
		goto out;
	id = apply_disk_id(dev);
	if (!id) {
		status = PA_EXIT_ERROR;
		goto out;
	}
	status = backup_refusal(b, &d, dev);
	if (status != PA_EXIT_OK)
		goto out;
	status = identity_ok(b, &d, dev->path, id, o->force);
	if (status != PA_EXIT_OK)
		goto out;
	rc = apply_backup_check(b, &d, &bad, &save, &nsave);
	if (rc == -ERANGE) {
		msg_err(dev->path, 0,
			"refused: the backup has a region at byte %" PRIu64
			" that is no label sector of its table",
			bad);
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (rc < 0) {
		msg_err(dev->path, -rc, "cannot read the partition table");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (!o->yes) {
		char line[16];

		fprintf(stderr, "Write the partition table saved %s back to %s? [y/N] ",
			b->created ? b->created : "", dev->path);
		if (!fgets(line, sizeof(line), stdin) ||
		    (line[0] != 'y' && line[0] != 'Y')) {
			status = PA_EXIT_ERROR;
			goto out;
		}
	}
	status = write_back(b, &d, proof, l, dev, o, save, nsave);
out:
	apply_proof_free(proof);
	apply_disk_close(&d);
	free(inuse);
	free(save);
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
	struct pa_scan_opts so = {0};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0};
	struct pa_backup b;
	struct pa_dev *dev = NULL;
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
	so.names = argv + optind + 1;
	so.nnames = 1;
	rc = scan_devices(&so, &devs, &diags);
	status = msg_diags(&diags);
	if (rc == 0)
		rc = scan_lookup(&devs, argv[optind + 1], &dev);
	if (rc < 0) {
		msg_err(argv[optind + 1], -rc == ENODEV ? 0 : -rc,
			rc == -ENODEV ? "not a disk partalign knows" : "cannot open");
		status |= PA_EXIT_ERROR;
	} else if (dev->kind == PA_KIND_PART) {
		msg_err(argv[optind + 1], 0, "is a partition: name its whole disk");
		status |= PA_EXIT_USAGE;
	} else {
		status |= restore(&b, argv[optind], argv[optind + 1], &devs, dev, &o);
	}
	apply_backup_free(&b);
	diags_free(&diags);
	devlist_free(&devs);
	return status;
}
