/*
 * Messages on stderr: one line each, naming the device first.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/exitcodes.h"
#include "core/units.h"

/*
 * What a permission error means to an admin who is not root: partalign
 * reads devices and writes tables, backups and rules only as root.
 */
const char *msg_root_hint(int err)
{
	return (err == EACCES || err == EPERM) && geteuid() != 0
		   ? "; run partalign as root"
		   : "";
}

/* The text after "partalign: " of an error, into @log (replacing what it held). */
static void record(struct msg_log *log, const char *device, int err, const char *fmt,
		   va_list ap)
{
	char *msg = NULL, *line = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	if (asprintf(&line, "%s%s%s%s%s%s", device && *device ? device : "",
		     device && *device ? ": " : "", msg, err ? ": " : "",
		     err ? strerror(err) : "", msg_root_hint(err)) >= 0) {
		free(log->last);
		log->last = line;
	}
	free(msg);
}

static void vmsg(struct msg_log *log, const char *kind, const char *device, int err,
		 const char *fmt, va_list ap)
{
	if (log && !kind) {
		va_list aq;

		va_copy(aq, ap);
		record(log, device, err, fmt, aq);
		va_end(aq);
	}
	fprintf(stderr, "%s: ", PA_PROG);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	if (device && *device)
		fprintf(stderr, "%s: ", device);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s%s", strerror(err), msg_root_hint(err));
	fputc('\n', stderr);
}

void msg_err(const char *device, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, NULL, device, err, fmt, ap);
	va_end(ap);
}

void msg_log_err(struct msg_log *log, const char *device, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(log, NULL, device, err, fmt, ap);
	va_end(ap);
}

void msg_warn(const char *device, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, "warning", device, 0, fmt, ap);
	va_end(ap);
}

int msg_diags(const struct pa_diags *d)
{
	return msg_log_diags(NULL, d);
}

int msg_log_diags(struct msg_log *log, const struct pa_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		msg_log_err(log, d->v[i].device, d->v[i].err, "%s", d->v[i].msg);
	return d->n ? PA_EXIT_ERROR : PA_EXIT_OK;
}

void msg_log_free(struct msg_log *log)
{
	free(log->last);
	log->last = NULL;
}

bool cli_parse_grain(const char *arg, struct pa_grain *g)
{
	int rc = units_parse_grain(arg, g);

	if (rc == -ERANGE) {
		msg_err(NULL, 0, "--align %s: too large", arg);
		return false;
	}
	if (rc < 0) {
		msg_err(NULL, 0,
			"--align %s: expected a positive size with a unit "
			"(s, B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), e.g. 2MiB or 4096s",
			arg);
		return false;
	}
	if (!g->sectors && g->value % 512) {
		msg_err(NULL, 0, "--align %s: not a multiple of 512 bytes", arg);
		return false;
	}
	return true;
}

int cli_usage(void (*usage)(FILE *), bool help)
{
	usage(help ? stdout : stderr);
	return help ? PA_EXIT_OK : PA_EXIT_USAGE;
}
