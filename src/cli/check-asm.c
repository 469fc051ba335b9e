/*
 * partalign check --asm (and the ASM columns of --probe): the Oracle ASM
 * header blocks read by the scanner (src/scan/asm.c), audited by the core
 * (core/asm-audit.c), shown in the columns ASM-GROUP, ASM-DISK, ASM-STATUS,
 * ASM-AU, ASM-SECSIZE and ASM-LABEL, and, for --asm, the rows of every
 * device that carries a header, one disk group after the other.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/check-asm.h"
#include "cli/cli.h"
#include "core/rules.h"
#include "scan/scan.h"

int check_asm_read(struct pa_devlist *l, const char *root, struct pa_asm_audit *a,
		   struct pa_diags *diags)
{
	char dir[4096];
	struct stat st;
	int rc;

	if (root && *root) {
		snprintf(dir, sizeof(dir), "%s/asm", root);
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			msg_warn(root,
				 "holds no ASM header blocks (made by partalign dump "
				 "without --asm, or partalign-collect --no-asm): no ASM "
				 "disk is shown");
	}
	rc = scan_asm_read(l, root, NULL, NULL, diags);

	return rc < 0 ? rc : asm_audit_run(l, a);
}

static const struct pa_asm_audit *sort_audit;

static int cmp_rows(const void *x, const void *y)
{
	const struct pa_asm_row *a = asm_audit_row(sort_audit,
						   *(const struct pa_dev *const *)x),
				*b = asm_audit_row(sort_audit,
						   *(const struct pa_dev *const *)y);

	return asm_audit_cmp(a, b);
}

int check_asm_select(const struct pa_devlist *l, const struct pa_asm_audit *a,
		     const char *root, char **names, int nnames, struct check_pick **rows,
		     size_t *nrows)
{
	const struct pa_dev **v = calloc(a->n ? a->n : 1, sizeof(*v));
	const struct pa_dev **only =
	    calloc(nnames > 0 ? (size_t)nnames : 1, sizeof(*only));
	struct check_pick *p;
	size_t i, n = 0, m = 0;
	int k;

	if (!v || !only) {
		free(v);
		free(only);
		return -ENOMEM;
	}
	/* the devices named, each found once; a name not found selects nothing */
	for (k = 0; k < nnames; k++) {
		struct pa_dev *d;

		if (scan_lookup_root(l, root, names[k], &d) == 0)
			only[m++] = d;
	}
	for (i = 0; i < a->n; i++)
		if (nnames == 0 || (m && rules_asm_wanted(a->v[i].d, only, m)))
			v[n++] = a->v[i].d;
	free(only);
	sort_audit = a;
	qsort(v, n, sizeof(*v), cmp_rows);
	p = calloc(n ? n : 1, sizeof(*p));
	if (!p) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		p[i].d = v[i];
		p[i].checked = !v[i]->is_path && device_is_checked(v[i]);
	}
	free(v);
	free(*rows);
	*rows = p;
	*nrows = n;
	return 0;
}

int check_asm_cell(struct libscols_line *ln, size_t i, int which,
		   const struct pa_asm_row *r)
{
	const struct asm_hdr *h = r ? r->h : NULL;
	bool hdr = h && h->kind == ASMHDR_HEADER;

	if (!h)
		return 0;
	switch (which) {
	case 0:
		return out_set_str(ln, i, asmhdr_is_header(h) ? h->grpname : NULL);
	case 1:
		return out_set_str(ln, i, asmhdr_is_header(h) ? h->dskname : NULL);
	case 2:
		return out_set_str(ln, i, r->status);
	case 3:
		return hdr ? out_set_u64(ln, i, h->ausize) : 0;
	case 4:
		return hdr ? out_set_u64(ln, i, h->secsize) : 0;
	case 5:
		return out_set_str(ln, i, h->label[0] ? h->label : NULL);
	}
	return 0;
}

int check_asm_default_columns(struct out_opts *o)
{
	static const char table[] = "ASM-GROUP,ASM-DISK,ASM-STATUS,NAME,TYPE,START,"
				    "LOG-SEC,ASM-SECSIZE,ASM-AU,ASM-LABEL,POLICY,REASON";
	static const char terminal[] = "ASM-GROUP,ASM-DISK,ASM-STATUS,NAME,START,POLICY,"
				       "REASON";
	static char more[4096];
	const char *d = o->terminal ? terminal : table;

	if (!o->columns) {
		o->columns = d;
	} else if (o->columns[0] == '+') {
		if ((size_t)snprintf(more, sizeof(more), "%s,%s", d, o->columns + 1) >=
		    sizeof(more)) {
			msg_err(NULL, 0, "too many columns");
			return -1;
		}
		o->columns = more;
	}
	return 0;
}

static char asm_text[PA_REASON_TEXT_MAX];

unsigned int check_asm_spans(const struct pa_asm_row *r, const char **text,
			     struct pa_reason_span *spans)
{
	unsigned int n = 0;

	*text = asm_text;
	asm_text[0] = '\0';
	if (r)
		reason_render(&r->why, asm_text, sizeof(asm_text), spans, &n);
	return n;
}

void check_asm_path_reason(const struct pa_asm_row *r, char *buf, size_t len)
{
	size_t used = strlen(buf);

	if (!r || !r->why.n)
		return;
	reason_render(&r->why, asm_text, sizeof(asm_text), NULL, NULL);
	snprintf(buf + used, len > used ? len - used : 0, "; %s", asm_text);
}
