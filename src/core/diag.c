/*
 * The diagnostics list.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"

int diag_add(struct pa_diags *l, const char *device, int err, const char *fmt, ...)
{
	struct pa_diag *d;
	va_list ap;
	int rc;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct pa_diag *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	d = &l->v[l->n];
	d->device = strdup(device ? device : "");
	d->err = err < 0 ? -err : err;
	va_start(ap, fmt);
	rc = vasprintf(&d->msg, fmt, ap);
	va_end(ap);
	if (rc < 0 || !d->device) {
		free(d->device);
		if (rc >= 0)
			free(d->msg);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

void diags_free(struct pa_diags *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].device);
		free(l->v[i].msg);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
