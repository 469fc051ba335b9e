/*
 * partalign restore FILE DEVICE: write a table backup (made by fix) back to
 * the disk it came from, then make the kernel see the restored table.
 * Refuses another disk: the size, sector size and identity must match.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/apply.h"
#include "cli/cli.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

static void usage(FILE *f)
{
	fputs("Usage: partalign restore [options] FILE DEVICE\n"
	      "\n"
	      "Write the partition-table backup FILE (saved by partalign fix) back to\n"
	      "DEVICE, which must be the disk it was taken from.\n"
	      "\n"
	      "Options:\n"
	      "  -y, --yes             do not ask for confirmation\n"
	      "      --backup-dir DIR  where the backup of the current table goes\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 nothing to do, 1 restored, 2 restored but the kernel has the\n"
	      "old table, 8 error or refused, 16 usage error.\n",
	      f);
}

/* The partitions of the table now on the disk, for the kernel. */
static int table_parts(struct pa_disk *d, struct pa_kpart *k, size_t max, size_t *n)
{
	struct pa_diags msgs = {0};
	struct pa_shadow *sh = NULL;
	struct pa_table t;
	size_t i;
	int rc = apply_table_read(d, &sh, &t, &msgs);

	msg_diags(&msgs);
	pa_diags_free(&msgs);
	if (rc < 0)
		return rc;
	*n = 0;
	for (i = 0; i < t.n && *n < max; i++)
		k[(*n)++] = (struct pa_kpart){t.v[i].num, t.v[i].start,
					      t.v[i].extended ? t.logical * 2ull : t.v[i].size};
	plan_table_free(&t);
	apply_shadow_free(sh);
	return 0;
}

static int restore(const struct pa_backup *b, const struct pa_devlist *l,
		   const struct pa_dev *dev, bool yes, const char *backup_dir)
{
	struct pa_diags msgs = {0};
	struct pa_writer *w = NULL;
	struct pa_disk d;
	struct pa_kpart k[256];
	char *id = apply_disk_id(dev), *inuse = NULL, *saved = NULL;
	uint64_t written = 0;
	struct pa_extent *regs = NULL;
	void **bufs = NULL;
	size_t n = 0, i, nregs = 0;
	int rc, status = PA_EXIT_OK;

	if (!id)
		return PA_EXIT_ERROR;
	if (strcmp(id, b->id) != 0) {
		msg_err(dev->path, 0, "refused: the backup is of %s, this disk is %s", b->id, id);
		free(id);
		return PA_EXIT_ERROR;
	}
	inuse = plan_refusal_in_use(l, dev);
	if (inuse) {
		msg_err(dev->path, 0, "refused: %s", inuse);
		free(inuse);
		free(id);
		return PA_EXIT_ERROR;
	}
	rc = apply_disk_open(dev->path, PA_DISK_LOCK | PA_DISK_EXCL, 10000, &d);
	if (rc < 0) {
		msg_err(dev->path, -rc, rc == -EBUSY ? "refused: in use" : "cannot open");
		free(id);
		return PA_EXIT_ERROR;
	}
	if (d.size != b->size || d.logical != b->logical) {
		msg_err(dev->path, 0,
			"refused: the backup is of a %" PRIu64 "-byte disk with %" PRIu32
			"-byte sectors, this one has %" PRIu64 " and %" PRIu32,
			b->size, b->logical, d.size, d.logical);
		status = PA_EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < b->n; i++)
		if (b->regs[i].off + b->regs[i].len > d.size || b->regs[i].off % d.logical ||
		    b->regs[i].len % d.logical) {
			msg_err(dev->path, 0, "refused: the backup has a region off the disk");
			status = PA_EXIT_ERROR;
			goto out;
		}
	if (!yes) {
		char line[16];

		fprintf(stderr, "Write the partition table saved %s back to %s? [y/N] ",
			b->created ? b->created : "", dev->path);
		if (!fgets(line, sizeof(line), stdin) || (line[0] != 'y' && line[0] != 'Y')) {
			status = PA_EXIT_ERROR;
			goto out;
		}
	}
	/* what is there now is worth a backup too */
	rc = apply_backup_save(&d, backup_dir, id, b->regs, b->n, &saved);
	if (rc < 0) {
		msg_err(dev->path, -rc, "cannot save the current table in %s; nothing written",
			backup_dir);
		status = PA_EXIT_ERROR;
		goto out;
	}
	printf("%s: current table saved to %s\n", dev->path, saved);
	rc = apply_backup_order(b, &regs, &bufs, &nregs);
	if (rc == 0)
		rc = apply_gate_open(&d, &w);
	if (rc == 0)
		rc = apply_write_regions(w, regs, bufs, nregs, &written);
	if (rc < 0) {
		msg_err(dev->path, -rc, "restore failed");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (written)
		status |= PA_EXIT_CHANGED;
	rc = table_parts(&d, k, sizeof(k) / sizeof(k[0]), &n);
	if (rc == 0)
		rc = apply_kernel_sync(&d, dev, k, n, &msgs);
	msg_diags(&msgs);
	if (rc == 0 && !apply_kernel_matches(dev, k, n))
		rc = -EBUSY;
	if (rc < 0) {
		msg_err(dev->path, 0, "restored, but the kernel still uses the old table");
		status |= PA_EXIT_REBOOT | PA_EXIT_CHANGED;
	}
	printf("%s: %s (%" PRIu64 " bytes written)\n", dev->path,
	       written ? "restored" : "already holds this table", written);
out:
	apply_gate_close(w);
	apply_disk_close(&d);
	pa_diags_free(&msgs);
	free(saved);
	free(regs);
	free(bufs);
	free(id);
	return status;
}

int cmd_restore(int argc, char **argv)
{
	enum { OPT_BACKUP = 256 };
	static const struct option longopts[] = {
		{"yes", no_argument, NULL, 'y'},
		{"backup-dir", required_argument, NULL, OPT_BACKUP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *backup_dir = PA_STATEDIR "/backup";
	struct pa_scan_opts so = {0};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0};
	struct pa_backup b;
	struct pa_dev *dev = NULL;
	bool yes = false;
	int c, rc, status;

	while ((c = getopt_long(argc, argv, "yh", longopts, NULL)) != -1) {
		switch (c) {
		case 'y':
			yes = true;
			break;
		case OPT_BACKUP:
			backup_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return PA_EXIT_OK;
		default:
			usage(stderr);
			return PA_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	if (!yes && !isatty(STDIN_FILENO)) {
		msg_err(NULL, 0, "restore needs confirmation and standard input is not a "
				 "terminal: use --yes");
		return PA_EXIT_USAGE;
	}
	rc = apply_backup_load(argv[optind], &b);
	if (rc < 0) {
		msg_err(argv[optind], -rc, rc == -EBADMSG ? "not a partalign backup, or damaged"
							  : "cannot read");
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
		status |= restore(&b, &devs, dev, yes, backup_dir);
	}
	apply_backup_free(&b);
	pa_diags_free(&diags);
	pa_devlist_free(&devs);
	return status;
}
