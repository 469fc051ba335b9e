/*
 * partalign rules --from-asm [DEVICE...]: the map made from the Oracle ASM
 * disk headers (issue #34), the move from ASMLib labels to udev names in
 * one command.  The headers are read read-only (src/scan/asm.c), audited
 * (core/asm-audit.c) and turned into map entries (core/rules-asm.c); what
 * each device is named, and why, is said on standard error.  A device whose
 * header could not be read stops the run: the rules would miss a disk.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rules-fromasm.h"
#include "core/asm-audit.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

/* What each entry names, on stderr. */
static void tell(const struct pa_asm_audit *a, const struct rules_map *m)
{
	size_t i, k;

	for (i = 0; i < m->n; i++)
		for (k = 0; k < a->n; k++) {
			const struct pa_asm_row *r = &a->v[k];
			bool label;
			const char *name = rules_asm_name(r, &label);

			if (strcmp(r->shown, m->v[i].device) || !name)
				continue;
			if (r->h->dskname[0])
				fprintf(
				    stderr,
				    "%s: %s: ASM disk %s of %s (%s): named %s (its %s)\n",
				    PA_PROG, r->shown, r->h->dskname, r->h->grpname,
				    r->status, name,
				    label ? "ASMLib label" : "ASM disk name");
			else
				fprintf(stderr,
					"%s: %s: an ASMLib label without an ASM header "
					"(%s): named %s\n",
					PA_PROG, r->shown, r->status, name);
			break;
		}
}

int rules_from_asm(struct pa_devlist *l, char **names, size_t n, struct rules_map *m,
		   struct msg_log *log)
{
	const struct pa_dev **only = calloc(n ? n : 1, sizeof(*only));
	struct pa_asm_audit a = {0};
	struct pa_diags diags = {0};
	bool *want = NULL;
	int status = PA_EXIT_OK, rc;
	size_t i;

	if (!only)
		goto nomem;
	for (i = 0; i < n; i++) {
		struct pa_dev *d;

		rc = scan_lookup(l, names[i], &d);
		if (rc < 0) {
			msg_log_err(log, names[i], rc == -ENODEV ? 0 : -rc,
				    rc == -ENODEV
					? "not found among the block devices of "
					  "the host"
					: "cannot use it");
			status = PA_EXIT_ERROR;
		}
		only[i] = d;
	}
	if (status)
		goto out;
	want = calloc(l->n ? l->n : 1, sizeof(*want));
	if (!want)
		goto nomem;
	for (i = 0; i < l->n; i++)
		want[i] = rules_asm_wanted(l->v[i], only, n);
	rc = scan_asm_read(l, NULL, want, NULL, &diags);
	if (rc < 0)
		goto nomem;
	if (diags.n) {
		msg_log_diags(log, &diags);
		msg_log_err(log, NULL, 0,
			    "not written: the rules would miss the disks whose header "
			    "could not be read (name the devices to read)");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (asm_audit_run(l, &a) < 0 ||
	    rules_map_from_asm(m, &a, only, n, &diags) == -ENOMEM)
		goto nomem;
	if (diags.n) {
		msg_log_diags(log, &diags);
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (!m->n) {
		msg_log_err(log, NULL, 0,
			    "no Oracle ASM disk group member or provisioned disk found%s",
			    n ? " on the devices named" : "");
		status = PA_EXIT_ERROR;
		goto out;
	}
	tell(&a, m);
	goto out;
nomem:
	msg_log_err(log, NULL, ENOMEM, "cannot read the ASM headers");
	status = PA_EXIT_ERROR;
out:
	free(want);
	free(only);
	asm_audit_free(&a);
	diags_free(&diags);
	return status;
}
