/*
 * partalign provision: the helpers every provision file uses -- out of
 * memory (fatal), progress notes on stderr, a disk's outcome and remarks,
 * and a call of fix or rules in process with their stdout on our stderr.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/provision.h"
#include "core/exitcodes.h"

void prov_nomem(void)
{
	msg_err(NULL, ENOMEM, "provision");
	exit(PA_EXIT_ERROR);
}

char *prov_strdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		prov_nomem();
	return d;
}

static char *prov_vasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		prov_nomem();
	return s;
}

char *prov_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = prov_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void prov_note(const char *who, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: provision: ", PA_PROG);
	if (who)
		fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int prov_fail(struct disk *d, enum action a, const char *fmt, ...)
{
	va_list ap;

	d->action = a;
	free(d->reason);
	va_start(ap, fmt);
	d->reason = prov_vasprintf(fmt, ap);
	va_end(ap);
	msg_err(d->cfg->name, 0, "%s", d->reason);
	return -1;
}

void prov_remark(struct disk *d, const char *fmt, ...)
{
	va_list ap;
	char *s, *both;

	va_start(ap, fmt);
	s = prov_vasprintf(fmt, ap);
	va_end(ap);
	if (!d->reason) {
		d->reason = s;
		return;
	}
	both = prov_asprintf("%s; %s", d->reason, s);
	free(d->reason);
	free(s);
	d->reason = both;
}

int prov_call(int (*fn)(void *ctx), void *ctx)
{
	int saved, rc;

	fflush(stdout);
	fflush(stderr);
	saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		rc = -errno;
		if (saved >= 0)
			close(saved);
		msg_err(NULL, -rc,
			"cannot send the standard output to the standard error");
		return rc;
	}
	rc = fn(ctx);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) < 0) {
		msg_err(NULL, errno, "cannot restore the standard output");
		exit(PA_EXIT_ERROR);
	}
	close(saved);
	return rc;
}
