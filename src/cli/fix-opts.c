/*
 * The options of plan and fix: their usage text, their parser, and what
 * does not go together.  resume (cmd-resume.c) and provision
 * (provision-probe.c) set a struct fix_opts themselves.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "apply/move.h"
#include "cli/cli.h"
#include "cli/fix-opts.h"
#include "cli/fix-table.h"
#include "core/exitcodes.h"

static void usage(FILE *f, bool fix)
{
	fprintf(
	    f,
	    "Usage: partalign %s [options] DEVICE...\n"
	    "\n"
	    "%s"
	    "\n"
	    "Options:\n"
	    "  -a, --align SIZE      policy grain (default 2MiB; units s, B, KiB, MiB"
	    "...)\n"
	    "      --label gpt|keep  gpt (default) converts a dos table; keep keeps it "
	    "dos\n"
	    "      --new             partition a blank disk: one partition, grain to "
	    "grain\n"
	    "      --name NAME       GPT name of the partition made by --new\n"
	    "      --discard-data    allow destroying signatures, and wipe them\n"
	    "      --move-data       move misaligned partitions' data to aligned starts\n"
	    "      --journal DIR     where --move-data keeps its journal\n"
	    "                        (default %s)\n"
	    "      --verify          --move-data: re-read the moved data, compare "
	    "checksums\n"
	    "  -q, --quiet           --move-data: no progress on the terminal\n"
	    "%s"
	    "      --backup-dir DIR  where table backups go\n"
	    "                        (default %s/backup)\n"
	    "      --wait SECONDS    wait this long for the disk lock (default 10)\n"
	    "  -J, --json            JSON output\n"
	    "  -P, --pairs           KEY=\"value\" output\n"
	    "  -r, --raw             raw output\n"
	    "  -n, --noheadings      no column headings\n"
	    "  -b, --bytes           sizes and starts in bytes in the table\n"
	    "  -o, --output LIST     columns to print (+LIST appends to the defaults;\n"
	    "                        the verdicts on a terminal: -o "
	    "+OLD-POLICY,NEW-POLICY)\n"
	    "      --list-columns    list the columns and exit\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "%s"
	    "8 operational error, 16 usage error (OR-ed together).  See "
	    "partalign-%s(8).\n",
	    fix ? "fix" : "plan",
	    fix ? "Re-create the partitions of each DEVICE on the policy grain as GPT.\n"
		  "Refuses disks in use or holding data; saves the table first.\n"
		: "Show what 'partalign fix' would change on each DEVICE.  Writes "
		  "nothing.\n",
	    move_journal_dir_default(),
	    fix ? "  -y, --yes             do not ask for confirmation\n" : "",
	    PA_STATEDIR,
	    fix ? "Exit status: 0 nothing to do, 1 fixed, 2 written but the kernel has "
		  "the old\ntable, 4 misalignment left (refused, not confirmed or partly "
		  "done),\n"
		: "Exit status: 0 nothing to do, 1 changes to make, none of them "
		  "alignment\n(a grown disk's backup GPT, a damaged GPT copy, the "
		  "kernel's partitions),\n4 misalignment to fix (or refused),\n",
	    fix ? "fix" : "plan");
}

/*
 * --name as GPT holds it: characters of the locale's character set (libparted
 * converts them to UTF-16, and writes an empty name for what it cannot),
 * at most 36 UTF-16 units.  0, or -EINVAL with a message.
 */
static int name_check(const char *s)
{
	const char *p = s, *end = s + strlen(s);
	mbstate_t st;
	size_t units = 0, k;
	wchar_t wc;

	memset(&st, 0, sizeof(st));
	while (p < end) {
		k = mbrtowc(&wc, p, (size_t)(end - p), &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			msg_err(NULL, 0,
				"--name: not valid in this locale's character set "
				"(LC_ALL, LC_CTYPE, LANG: a UTF-8 locale, e.g. C.UTF-8)");
			return -EINVAL;
		}
		units += (unsigned long)wc > 0xffff ? 2 : 1;
		p += k;
	}
	if (units > 36) {
		msg_err(NULL, 0, "--name: at most 36 characters (GPT)");
		return -EINVAL;
	}
	return 0;
}

/* Options that do not go together, and a device to work on. */
static int parse_check(const struct fix_opts *o, bool no_device)
{
	if (o->plan.move_data && (o->plan.new_disk || o->plan.discard_data)) {
		msg_err(NULL, 0,
			"--move-data keeps the data: not with --new or --discard-data");
		return PA_EXIT_USAGE;
	}
	if (o->name && !o->plan.new_disk) {
		msg_err(NULL, 0, "--name goes with --new");
		return PA_EXIT_USAGE;
	}
	if (no_device) {
		msg_err(NULL, 0, "no device given");
		usage(stderr, o->fix);
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

int fix_opts_parse(int argc, char **argv, struct fix_opts *o)
{
	enum {
		OPT_LABEL = 256,
		OPT_NEW,
		OPT_NAME,
		OPT_DISCARD,
		OPT_BACKUP,
		OPT_WAIT,
		OPT_COLS,
		OPT_MOVE,
		OPT_JOURNAL,
		OPT_VERIFY
	};
	static const struct option longopts[] = {
	    {"align", required_argument, NULL, 'a'},
	    {"label", required_argument, NULL, OPT_LABEL},
	    {"new", no_argument, NULL, OPT_NEW},
	    {"name", required_argument, NULL, OPT_NAME},
	    {"discard-data", no_argument, NULL, OPT_DISCARD},
	    {"move-data", no_argument, NULL, OPT_MOVE},
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"verify", no_argument, NULL, OPT_VERIFY},
	    {"quiet", no_argument, NULL, 'q'},
	    {"yes", no_argument, NULL, 'y'},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"wait", required_argument, NULL, OPT_WAIT},
	    {"json", no_argument, NULL, 'J'},
	    {"pairs", no_argument, NULL, 'P'},
	    {"raw", no_argument, NULL, 'r'},
	    {"noheadings", no_argument, NULL, 'n'},
	    {"bytes", no_argument, NULL, 'b'},
	    {"output", required_argument, NULL, 'o'},
	    {"list-columns", no_argument, NULL, OPT_COLS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, o->fix ? "a:yqJPrnbo:h" : "a:qJPrnbo:h",
				longopts, NULL)) != -1) {
		if (out_parse_opt(c, optarg, &o->out))
			continue;
		switch (c) {
		case 'a':
			if (!cli_parse_grain(optarg, &o->plan.grain))
				return PA_EXIT_USAGE;
			break;
		case OPT_LABEL:
			if (strcmp(optarg, "keep") == 0) {
				o->plan.keep_label = true;
			} else if (strcmp(optarg, "gpt") != 0) {
				msg_err(NULL, 0, "--label %s: expected gpt or keep",
					optarg);
				return PA_EXIT_USAGE;
			}
			break;
		case OPT_NEW:
			o->plan.new_disk = true;
			break;
		case OPT_NAME:
			if (name_check(optarg) < 0)
				return PA_EXIT_USAGE;
			o->name = optarg;
			break;
		case OPT_DISCARD:
			o->plan.discard_data = true;
			break;
		case OPT_MOVE:
			o->plan.move_data = true;
			break;
		case OPT_JOURNAL:
			o->move.journal_dir = optarg;
			break;
		case OPT_VERIFY:
			o->move.verify = true;
			break;
		case 'q':
			o->move.quiet = true;
			break;
		case 'y':
			if (!o->fix) {
				msg_err(NULL, 0,
					"plan writes nothing: --yes belongs to fix");
				return PA_EXIT_USAGE;
			}
			o->yes = true;
			break;
		case OPT_BACKUP:
			o->backup_dir = optarg;
			break;
		case OPT_WAIT:
			if (!fix_parse_wait(optarg, &o->wait_ms))
				return PA_EXIT_USAGE;
			break;
		case OPT_COLS:
			fix_table_list_columns();
			exit(PA_EXIT_OK);
		case 'h':
			usage(stdout, o->fix);
			exit(PA_EXIT_OK);
		default:
			usage(stderr, o->fix);
			return PA_EXIT_USAGE;
		}
	}
	return parse_check(o, optind == argc);
}

bool fix_parse_wait(const char *arg, int *ms)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < 0 || v > 3600) {
		msg_err(NULL, 0, "--wait %s: expected seconds (0-3600)", arg);
		return false;
	}
	*ms = (int)v * 1000;
	return true;
}

void fix_opts_init(struct fix_opts *o, bool fix)
{
	*o = (struct fix_opts){
	    .fix = fix, .wait_ms = 10000, .backup_dir = PA_STATEDIR "/backup"};
	o->plan.grain = PA_GRAIN_DEFAULT;
}
