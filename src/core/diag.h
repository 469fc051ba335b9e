/*
 * Diagnostics collected below the CLI: each names a device and an errno,
 * and the CLI turns them into one line on stderr.  Nothing below cli/ prints.
 */
#ifndef PARTALIGN_DIAG_H
#define PARTALIGN_DIAG_H

#include <stddef.h>

struct pa_diag {
	char *device; /* "/dev/sdb" or a file name */
	int err;      /* positive errno, 0 when the message says it all */
	char *msg;    /* "cannot open", "is a multipath path of dm-3" */
};

struct pa_diags {
	struct pa_diag *v;
	size_t n;
	size_t cap;
};

/* Record one diagnostic; returns 0 or -ENOMEM. */
int diag_add(struct pa_diags *l, const char *device, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diags_free(struct pa_diags *l);

#endif
