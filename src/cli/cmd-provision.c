/*
 * partalign provision --config FILE: the kickstart %post and Ansible entry
 * point.  The configuration (core/provconf.c) names Oracle ASM disks and how
 * to find them (a path, wwn:, serial: or size:); for each disk the command
 * partitions it when it is blank, checks the partition, and finally writes
 * the udev rules for all of them in one rules run.
 *
 * It lives in partalign-apply, the program that links libparted, and calls
 * the writer and the rules in process, as functions with their options in
 * a struct: the probe of `plan --new` and fix_run() with the options of
 * `fix --new` (provision-probe.c), rules_run() (provision-report.c).
 * Their messages go to stderr as they come; stdout carries only our own
 * report, so --json output stays clean.
 *
 * This file: the options and the order of the steps; the helpers every
 * provision file uses are in provision-util.c.  Ownership: see
 * cli/provision.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/provision.h"
#include "cli/trusted.h"
#include "core/exitcodes.h"
#include "core/provconf.h"
#include "scan/scan.h"

/* Largest configuration read; a real one is a few lines. */
#define CONFIG_MAX (1u << 20)

/* ---- the configuration -------------------------------------------------- */

/* Read and check @file into r->c and one struct disk a line; 0 or -EINVAL. */
static int read_config(struct run *r, const char *file)
{
	struct pa_diags diags = {0};
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f = fopen(file, "re");
	int rc = 0;

	if (!f) {
		msg_err(file, errno, "cannot read the configuration");
		return -EINVAL;
	}
	while (!feof(f) && !ferror(f) && len <= CONFIG_MAX) {
		if (cap - len < 4096) {
			char *t = realloc(text, cap + 65536);

			if (!t)
				prov_nomem();
			text = t;
			cap += 65536;
		}
		len += fread(text + len, 1, cap - len, f);
	}
	if (ferror(f)) {
		msg_err(file, errno, "cannot read the configuration");
		rc = -EINVAL;
	} else if (len > CONFIG_MAX) {
		msg_err(file, 0, "larger than %u bytes: not a configuration", CONFIG_MAX);
		rc = -EINVAL;
	}
	fclose(f);
	if (rc == 0) {
		rc = provconf_parse(&r->c, text, len, file, &diags);
		if (rc == -ENOMEM)
			prov_nomem();
		msg_diags(&diags);
	}
	diags_free(&diags);
	free(text);
	if (rc < 0)
		return rc;
	r->n = r->c.n;
	r->disks = calloc(r->n, sizeof(*r->disks));
	if (!r->disks)
		prov_nomem();
	for (size_t i = 0; i < r->n; i++)
		r->disks[i].cfg = &r->c.v[i];
	return 0;
}

/* ---- the command --------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("Usage: partalign provision --config FILE [options]\n"
	      "\n"
	      "Prepare the Oracle ASM disks a configuration names: partition each blank\n"
	      "disk (one GPT partition on the grain, named like the disk), check the\n"
	      "partitions, and write the udev rules for all of them.  Non-interactive\n"
	      "and idempotent: a second run changes nothing and exits 0.\n"
	      "\n"
	      "Configuration: one disk a line, 'NAME SELECTOR [owner=U] [group=G]\n"
	      "[mode=M]', SELECTOR a /dev path, wwn:ID, serial:ID or size:SIZE (the one\n"
	      "blank disk of that size); global lines 'owner U', 'group G', 'mode M',\n"
	      "'align SIZE', 'rules FILE'; '#' comments.  See partalign-provision(8).\n"
	      "\n"
	      "Options:\n"
	      "  -c, --config FILE     the configuration (required)\n"
	      "  -J, --json            a JSON summary on stdout (logs stay on stderr)\n"
	      "      --root DIR        write the rules into the system mounted at DIR\n"
	      "                        (and the table backups, unless --backup-dir)\n"
	      "      --backup-dir DIR  where fix keeps the table backups\n"
	      "  -a, --align SIZE      policy grain (default: the configuration's, or "
	      "2MiB)\n"
	      "      --no-reload       do not reload or trigger udev\n"
	      "  -n, --dry-run         change nothing; report what would change\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 nothing changed, 1 something changed, 2 written but the\n"
	      "kernel has the old table, 4 a disk refused or misaligned, 8 error, 16\n"
	      "usage or configuration error (OR-ed together).\n",
	      f);
}

static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_ROOT = 256, OPT_BACKUP, OPT_NO_RELOAD };
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, 'J'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"align", required_argument, NULL, 'a'},
	    {"no-reload", no_argument, NULL, OPT_NO_RELOAD},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pa_grain g;
	struct stat st;
	int c;

	while ((c = getopt_long(argc, argv, "c:Ja:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'J':
			o->json = true;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_BACKUP:
			o->backup_dir = optarg;
			break;
		case 'a':
			if (!cli_parse_grain(optarg, &g))
				return PA_EXIT_USAGE;
			o->align = optarg;
			break;
		case OPT_NO_RELOAD:
			o->no_reload = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return PA_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		msg_err(NULL, 0,
			"unexpected argument '%s' (the disks are in --config FILE)",
			argv[optind]);
		return PA_EXIT_USAGE;
	}
	if (!o->config) {
		msg_err(NULL, 0, "--config FILE is required");
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	if (o->root && (!*o->root || stat(o->root, &st) < 0 || !S_ISDIR(st.st_mode))) {
		msg_err(o->root, *o->root ? errno : 0, "--root: not a directory");
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

static void run_free(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->disks[i].device);
		free(r->disks[i].partition);
		free(r->disks[i].reason);
	}
	free(r->disks);
	provconf_free(&r->c);
	for (i = 0; i < r->nprobes; i++)
		provision_probe_free(&r->probes[i]);
	free(r->probes);
	free(r->backup_dir);
	free(r->rules_file);
	free(r->rules_reason);
	devlist_free(&r->devs);
	devlist_free(&r->after);
}

/* The first scan: only the named paths' neighbourhood when every selector is a path. */
static int scan_first(struct run *r)
{
	struct pa_scan_opts so = {0};
	struct pa_diags diags = {0};
	char **names;
	size_t i;
	int rc;

	names = calloc(r->n + 1, sizeof(char *));
	if (!names)
		prov_nomem();
	for (i = 0; i < r->n; i++) {
		if (r->disks[i].cfg->sel != PROVCONF_SEL_PATH)
			break;
		names[i] = (char *)r->disks[i].cfg->value;
	}
	if (i == r->n) {
		so.names = names;
		so.nnames = r->n;
	}
	/* unreadable devices matter only when a selector lands on them */
	rc = scan_devices(&so, &r->devs, &diags);
	free(names);
	diags_free(&diags);
	if (rc < 0)
		msg_err(NULL, -rc, "cannot scan the block devices");
	return rc;
}

/* The exit bits of the disks' results, and a line for each good one. */
static void disks_status(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct disk *d = &r->disks[i];

		if (d->action == ACT_REFUSED)
			r->status |= PA_EXIT_MISALIGNED;
		else if (d->action == ACT_ERROR || d->action == ACT_PENDING)
			r->status |= PA_EXIT_ERROR;
		if (d->changed)
			r->status |= PA_EXIT_CHANGED;
		if (d->action == ACT_CREATED || d->action == ACT_KEPT)
			prov_note(
			    d->cfg->name, "%s%s%s: %s%s", d->device,
			    d->partition ? " -> " : "", d->partition ? d->partition : "",
			    provision_action_names[d->action],
			    r->o.dry_run && d->action == ACT_CREATED ? " (dry run)" : "");
	}
}

int cmd_provision(int argc, char **argv)
{
	struct run r = {0};
	char *msg;
	size_t i;
	int rc;

	rc = parse(argc, argv, &r.o);
	if (rc)
		return rc < 0 ? PA_EXIT_OK : rc;
	if (read_config(&r, r.o.config) < 0) {
		run_free(&r);
		return PA_EXIT_USAGE;
	}
	r.grain = r.c.grain;
	if (r.o.align)
		cli_parse_grain(r.o.align, &r.grain);
	if (r.o.backup_dir)
		r.backup_dir = prov_strdup(r.o.backup_dir);
	else if (r.o.root)
		r.backup_dir = prov_asprintf("%s%s/backup", r.o.root, PA_STATEDIR);
	if (!r.o.dry_run && r.backup_dir) {
		/* where the backups go, before any disk is looked at */
		const char *dirs[] = {r.backup_dir};

		if (cli_trust_dirs(NULL, dirs, 1) != PA_EXIT_OK) {
			run_free(&r);
			return PA_EXIT_ERROR;
		}
	}
	if (scan_first(&r) < 0) {
		run_free(&r);
		return PA_EXIT_ERROR;
	}
	provision_resolve(&r);
	for (i = 0; i < r.n; i++)
		if (r.disks[i].action == ACT_PENDING)
			provision_disk(&r, &r.disks[i]);
	provision_check(&r);
	disks_status(&r);
	provision_rules(&r);
	msg = provision_summary(&r);
	prov_note(NULL, "%s", msg);
	r.status |=
	    r.o.json ? provision_print_json(&r, msg) : provision_print_table(&r, msg);
	free(msg);
	rc = r.status;
	run_free(&r);
	return rc;
}
