/*
 * partalign: find, plan and fix misaligned partitions; name Oracle ASM disks.
 * The dispatcher: global options, then one function per subcommand.
 *
 * This file builds two programs.  `partalign` has every command that reads
 * (check, rules, udev, dump) and does not link libparted: Debian's libparted runs
 * "dmidecode" from a constructor when it is loaded, which an audit that
 * promises to read no device must not do.  The commands that change
 * partition tables (plan, fix, restore, resume, and provision, which calls
 * fix and rules in process) live in `partalign-apply` (built with
 * PA_APPLY_BINARY), which `partalign` runs in its place.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/trusted.h"
#include "core/exitcodes.h"
#include "shared/spawn.h"
#include "shared/sys.h"

#ifdef PA_APPLY_BINARY
#define READER(fn) NULL
#define WRITER(fn) fn
#else
#define READER(fn) fn
#define WRITER(fn) NULL
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv); /* NULL: the other program has it */
	const char *help;
} commands[] = {
    {"check", READER(cmd_check), "report the alignment of every partition (the audit)"},
    {"plan", WRITER(cmd_plan), "show what fix would change on each disk (dry run)"},
    {"fix", WRITER(cmd_fix), "re-create partitions on the policy grain"},
    {"restore", WRITER(cmd_restore), "write a partition-table backup back to its disk"},
    {"resume", WRITER(cmd_resume), "finish an interrupted fix --move-data"},
    {"rules", READER(cmd_rules), "write udev rules naming Oracle ASM disks"},
    {"provision", WRITER(cmd_provision),
     "kickstart/Ansible entry: partition, check, name"},
    {"udev", READER(cmd_udev),
     "alignment state of one partition, for the shipped udev rule"},
    {"dump", READER(cmd_dump),
     "save what check reads into a directory (check --sysroot)"},
};

/*
 * Run @name of directory @dir with @argv, from a descriptor of that
 * directory: the file looked at is the one executed (execveat), not what a
 * path names again later.  Returns only when it did not run.
 */
static void run_from(const char *dir, const char *name, char **argv)
{
	extern char **environ;
	struct stat st;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return;
	if (spawn_program_at(dfd, name, &st) == 0)
		sys_execveat(dfd, name, argv, environ, 0);
	close(dfd);
}

/*
 * Run the other program with the same arguments: the one beside this
 * executable (a build tree), else the installed one.
 */
static int run_other(char **argv)
{
#ifdef PA_APPLY_BINARY
	const char *other = "partalign", *installed = PA_SBINDIR;
#else
	const char *other = "partalign-apply", *installed = PA_PKGLIBEXECDIR;
#endif
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		run_from(dirname(self), other, argv);
	}
	errno = 0;
	run_from(installed, other, argv);
	msg_err(NULL, errno ? errno : ENOENT, "cannot run %s/%s", installed, other);
	return PA_EXIT_ERROR;
}

static void usage(FILE *f)
{
	size_t i;

	fputs(
	    "Usage: partalign [--help|--version] COMMAND [options] [ARGS]\n\nCommands:\n",
	    f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\nRun 'partalign COMMAND --help' for a command's options; see "
	      "partalign-COMMAND(8)\nand partalign(8).\n",
	      f);
}

int main(int argc, char **argv)
{
	size_t i;

	/*
	 * Names in the admin's character set: libparted converts a GPT name
	 * (UTF-16 on disk) with it, libsmartcols sizes a cell by it.  Numbers
	 * (48.8M, JSON) stay C whatever the locale, and so do the messages
	 * (partalign's are English; a translated strerror would break the
	 * documented lines) and the order of names (strcmp, never strcoll).
	 */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	setlocale(LC_MESSAGES, "C");
	setlocale(LC_COLLATE, "C");
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

			if (!commands[i].fn)
				return run_other(argv);
			/* said once, by the program that runs the command */
			cli_trust_tooldir();

			/* getopt names the program by argv[0]: "partalign check: ..." */
			snprintf(prog, sizeof(prog), "%s %s", PA_PROG, commands[i].name);
			argv[1] = prog;
			return commands[i].fn(argc - 1, argv + 1);
		}
	msg_err(NULL, 0, "unknown command '%s' (see partalign --help)", argv[1]);
	return PA_EXIT_USAGE;
}
