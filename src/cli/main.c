/*
 * partalign: find, plan and fix misaligned partitions; name Oracle ASM disks.
 * The dispatcher: global options, then one function per subcommand.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/exitcodes.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{"check", cmd_check, "report the alignment of every partition (the audit)"},
	{"plan", cmd_plan, "show what fix would change on each disk (dry run)"},
	{"fix", cmd_fix, "re-create partitions on the policy grain"},
	{"restore", cmd_restore, "write a partition-table backup back to its disk"},
	{"rules", cmd_rules, "write udev rules naming Oracle ASM disks"},
	{"provision", cmd_provision, "kickstart/Ansible entry: partition, check, name"},
	{"udev", cmd_udev, "alignment state of one partition, for the shipped udev rule"},
};

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: partalign [--help|--version] COMMAND [options] [ARGS]\n\nCommands:\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\nRun 'partalign COMMAND --help' for a command's options; see partalign(8).\n", f);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return PA_EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", PA_PROG, PACKAGE_VERSION);
		return PA_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			char prog[64];

			/* getopt names the program by argv[0]: "partalign check: ..." */
			snprintf(prog, sizeof(prog), "%s %s", PA_PROG, commands[i].name);
			argv[1] = prog;
			return commands[i].fn(argc - 1, argv + 1);
		}
	msg_err(NULL, 0, "unknown command '%s' (see partalign --help)", argv[1]);
	return PA_EXIT_USAGE;
}
