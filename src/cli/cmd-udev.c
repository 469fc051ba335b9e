/*
 * partalign udev DEVNAME: the alignment state of one block device as
 * KEY=value lines for udev's IMPORT{program} (the shipped rule runs it for
 * every partition that appears or changes).  It reads sysfs and the udev
 * database only -- the device and its disk, never the rest of the host --
 * through the scan's own reader (scan_sysfs_read_one), so its verdicts are
 * check's, and opens no device, so it is fast and cannot hang on a dead path.  With --log
 * it also reports a misaligned device to syslog (the shipped rule's RUN+= on "add").
 *
 * Output, each value safe for udev and for a POSIX shell's eval:
 *   PARTALIGN_PHYSICAL=ok|misaligned|n/a
 *   PARTALIGN_OPTIMAL=ok|misaligned|n/a
 *   PARTALIGN_POLICY=ok|misaligned|n/a
 *   PARTALIGN_REASON='...'   (only when a verdict is not ok)
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "cli/cli.h"
#include "core/align.h"
#include "core/layers.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

static void usage(FILE *f)
{
	fputs("Usage: partalign udev [options] DEVNAME\n"
	      "\n"
	      "Print the alignment state of one partition (kernel name, e.g. sdb1) as\n"
	      "PARTALIGN_PHYSICAL, PARTALIGN_OPTIMAL, PARTALIGN_POLICY and\n"
	      "PARTALIGN_REASON lines for udev's IMPORT{program}.  Reads sysfs only.\n"
	      "\n"
	      "Options:\n"
	      "  -a, --align SIZE  policy grain (default 2MiB)\n"
	      "      --log         also log a physically or optimally misaligned device\n"
	      "                    to syslog, and print nothing\n"
	      "      --sysroot DIR read the device from DIR (a partalign dump), not the "
	      "host\n"
	      "  -h, --help        this text\n"
	      "\n"
	      "Exit status: 0 state printed, 8 no such device, 16 usage error.\n",
	      f);
}

/* Only bytes that need no quoting inside '...' and mean nothing to udev. */
static void shell_safe(const char *in, char *out, size_t len)
{
	size_t i, k = 0;

	for (i = 0; in[i] && k + 1 < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '\'')
			continue;
		out[k++] = isascii(c) && (isalnum(c) || strchr(" ,.;:()/_+-=<>", c))
			       ? (char)c
			       : '_';
	}
	out[k] = '\0';
}

enum {
	OPT_LOG = 1000,
	OPT_SYSROOT,
};

int cmd_udev(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"align", required_argument, NULL, 'a'},
	    {"log", no_argument, NULL, OPT_LOG},
	    {"sysroot", required_argument, NULL, OPT_SYSROOT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pa_grain grain = PA_GRAIN_DEFAULT;
	struct pa_devlist l = {0};
	struct pa_dev *d = NULL;
	struct pa_check c;
	char text[PA_REASON_TEXT_MAX], reason[PA_REASON_TEXT_MAX];
	const char *name, *root = NULL;
	bool log = false;
	int opt, rc, status = PA_EXIT_OK;

	while ((opt = getopt_long(argc, argv, "a:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			if (!cli_parse_grain(optarg, &grain))
				return PA_EXIT_USAGE;
			break;
		case OPT_LOG:
			log = true;
			break;
		case OPT_SYSROOT:
			root = optarg;
			break;
		default:
			return cli_usage(usage, opt == 'h');
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	name = argv[optind];
	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;

	rc = scan_sysfs_read_one(root, name, &l, &d);
	if (rc < 0) {
		msg_err(name, rc == -EINVAL || rc == -ENODEV ? 0 : -rc,
			rc == -EINVAL	? "not a kernel device name"
			: rc == -ENODEV ? "not a device partalign checks "
					  "(unbound loop, ram or zram, or empty)"
					: "cannot read it in sysfs");
		devlist_free(&l);
		return PA_EXIT_ERROR;
	}
	align_check_dev(d, &grain, &c);
	/* a stacked dm device whose layers are known: at its place, as check does */
	if (layers_check(&l, d, &grain, &c) < 0) {
		msg_err(name, ENOMEM, "cannot judge the stack");
		devlist_free(&l);
		return PA_EXIT_ERROR;
	}
	reason_render(&c.why, text, sizeof(text), NULL, NULL);
	shell_safe(text, reason, sizeof(reason));

	if (log) {
		if (c.physical == PA_VERDICT_MISALIGNED ||
		    c.optimal == PA_VERDICT_MISALIGNED) {
			openlog(PA_PROG, LOG_PID, LOG_DAEMON);
			syslog(LOG_WARNING, "%s: misaligned partition: %s", d->name,
			       reason);
			closelog();
		}
	} else {
		printf("PARTALIGN_PHYSICAL=%s\n", align_verdict_name(c.physical));
		printf("PARTALIGN_OPTIMAL=%s\n", align_verdict_name(c.optimal));
		printf("PARTALIGN_POLICY=%s\n", align_verdict_name(c.policy));
		if (c.physical != PA_VERDICT_OK || c.optimal != PA_VERDICT_OK ||
		    c.policy != PA_VERDICT_OK)
			printf("PARTALIGN_REASON='%s'\n", reason);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			msg_err(NULL, errno, "write error on stdout");
			status = PA_EXIT_ERROR;
		}
	}
	devlist_free(&l);
	return status;
}
