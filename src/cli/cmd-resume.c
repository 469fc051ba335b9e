/*
 * partalign resume: `resume DEVICE` is `fix --move-data --yes DEVICE` for a
 * disk that has a journal: the plan comes from the journal, the data moves
 * on from its last progress record, then the table is written.  It parses
 * its own options and runs fix_run() (fix-run.c) with them.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "cli/fix-opts.h"
#include "cli/fix-run.h"
#include "core/exitcodes.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: partalign resume [options] DEVICE...\n"
	    "\n"
	    "Finish an interrupted 'partalign fix --move-data' on each DEVICE: move the "
	    "rest\n"
	    "of the data from the journal's last record, then write the new table.\n"
	    "\n"
	    "Options:\n"
	    "      --journal DIR     where the journals are\n"
	    "                        (default %s)\n"
	    "      --backup-dir DIR  where table backups go\n"
	    "                        (default %s/backup)\n"
	    "      --verify          re-read the moved data and compare the checksums\n"
	    "  -q, --quiet           no progress on the terminal\n"
	    "      --wait SECONDS    wait this long for the disk lock (default 10)\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Exit status as for fix; 0 when there is nothing to resume.\n"
	    "See partalign-resume(8).\n",
	    move_journal_dir_default(), PA_STATEDIR);
}

int cmd_resume(int argc, char **argv)
{
	enum { OPT_JOURNAL = 256, OPT_BACKUP, OPT_VERIFY, OPT_WAIT };
	static const struct option longopts[] = {
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"verify", no_argument, NULL, OPT_VERIFY},
	    {"quiet", no_argument, NULL, 'q'},
	    {"wait", required_argument, NULL, OPT_WAIT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct fix_opts o;
	int c;

	fix_opts_init(&o, true);
	o.yes = true;
	o.plan.move_data = true;
	o.move.resume_only = true;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JOURNAL:
			o.move.journal_dir = optarg;
			break;
		case OPT_BACKUP:
			o.backup_dir = optarg;
			break;
		case OPT_WAIT:
			if (!fix_parse_wait(optarg, &o.wait_ms))
				return PA_EXIT_USAGE;
			break;
		case OPT_VERIFY:
			o.move.verify = true;
			break;
		case 'q':
			o.move.quiet = true;
			break;
		default:
			return cli_usage(usage, c == 'h');
		}
	}
	if (optind == argc || argc - optind > 256) {
		msg_err(NULL, 0, optind == argc ? "no device given" : "too many devices");
		return PA_EXIT_USAGE;
	}
	return fix_run(&o, argv + optind, (size_t)(argc - optind));
}
