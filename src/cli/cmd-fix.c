/*
 * partalign fix: re-create the partitions of each disk on the grain
 * (--move-data: move their data first).  The options are fix-opts.c's, the
 * run fix-run.c's.
 */
#include "config.h"

#include <getopt.h>

#include "cli/cli.h"
#include "cli/fix-opts.h"
#include "cli/fix-run.h"

int cmd_fix(int argc, char **argv)
{
	struct fix_opts o;
	int status;

	fix_opts_init(&o, true);
	status = fix_opts_parse(argc, argv, &o);
	if (status)
		return status;
	return fix_run(&o, argv + optind, (size_t)(argc - optind));
}
