/*
 * Output through libsmartcols: one column table per command, rendered as a
 * table, --json, --pairs or --raw.  Nothing here pads columns by hand; the
 * one JSON value written by hand is the string of out_json_str(), for the
 * report that is not one table (provision --json).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/exitcodes.h"
#include "shared/size.h"

static int find_col(const struct out_col *cols, size_t ncols, const char *name,
		    size_t len)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		if (strlen(cols[i].name) == len &&
		    strncasecmp(cols[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static bool selected(const int *v, size_t n, int c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == c)
			return true;
	return false;
}

int out_select(const struct out_opts *o, const struct out_col *cols, size_t ncols,
	       const int *defaults, size_t ndefaults, int *sel, size_t *nsel)
{
	const char *p = o->columns;

	*nsel = 0;
	if (!p || *p == '+') {
		memcpy(sel, defaults, ndefaults * sizeof(*sel));
		*nsel = ndefaults;
		if (!p)
			return 0;
		p++;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		int c = find_col(cols, ncols, p, len);

		if (c < 0) {
			msg_err(NULL, 0, "unknown column: %.*s (see --list-columns)",
				(int)len, p);
			return -1;
		}
		if (*nsel == OUT_MAXCOLS) {
			msg_err(NULL, 0, "too many columns");
			return -1;
		}
		/* once each: -o +REFUSED adds nothing when the defaults have it */
		if (!selected(sel, *nsel, c))
			sel[(*nsel)++] = c;
		p += len;
		if (*p == ',')
			p++;
	}
	if (*nsel == 0) {
		msg_err(NULL, 0, "no columns selected");
		return -1;
	}
	return 0;
}

#ifndef HAVE_SCOLS_TABLE_ENABLE_SHELLVAR
/*
 * libsmartcols before 2.38 (RHEL and Oracle Linux 9 have 2.37) has no
 * scols_table_enable_shellvar(): make the --pairs keys shell variable names
 * here by the same rule, any byte but [A-Za-z0-9_] becomes '_' ("MAJ:MIN"
 * -> "MAJ_MIN"), and a leading digit gets a '_' before it.
 */
static const char *shellvar_name(const char *name, char *buf, size_t size)
{
	size_t i = 0;

	if (*name >= '0' && *name <= '9')
		buf[i++] = '_';
	for (; *name && i + 1 < size; name++)
		buf[i++] = (isalnum((unsigned char)*name) || *name == '_') ? *name : '_';
	buf[i] = '\0';
	return buf;
}
#endif

struct libscols_table *out_table_new(const struct out_opts *o, const char *name,
				     const struct out_col *cols, const int *sel,
				     size_t nsel)
{
	struct libscols_table *tb = scols_new_table();
	size_t i;

	if (!tb)
		return NULL;
	scols_table_set_name(tb, name);
	switch (o->format) {
	case OUT_JSON:
		scols_table_enable_json(tb, 1);
		break;
	case OUT_PAIRS:
		scols_table_enable_export(tb, 1);
#ifdef HAVE_SCOLS_TABLE_ENABLE_SHELLVAR
		scols_table_enable_shellvar(tb, 1);
#endif
		break;
	case OUT_RAW:
		scols_table_enable_raw(tb, 1);
		break;
	case OUT_TABLE:
		break;
	}
	scols_table_enable_noheadings(tb, o->noheadings);
	for (i = 0; i < nsel; i++) {
		const struct out_col *c = &cols[sel[i]];
		const char *cname = c->name;
		struct libscols_column *cl;
		int flags = c->flags;
#ifndef HAVE_SCOLS_TABLE_ENABLE_SHELLVAR
		char vname[64];

		if (o->format == OUT_PAIRS)
			cname = shellvar_name(c->name, vname, sizeof(vname));
#endif

		/* a table may truncate long text to the terminal; the others never */
		if (o->format != OUT_TABLE)
			flags &= ~(SCOLS_FL_TRUNC | SCOLS_FL_WRAP);
		cl = scols_table_new_column(tb, cname, c->whint, flags);
		if (!cl) {
			scols_unref_table(tb);
			return NULL;
		}
		scols_column_set_json_type(cl, c->json_type);
	}
	return tb;
}

void out_list_columns(const struct out_col *cols, size_t ncols)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		printf("%14s  %s\n", cols[i].name, cols[i].help);
}

int out_print(struct libscols_table *tb)
{
	int rc = scols_print_table(tb);

	if (fflush(stdout) != 0 || ferror(stdout) || rc != 0) {
		msg_err(NULL, errno, "write error on standard output");
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_OK;
}

int out_set_str(struct libscols_line *ln, size_t i, const char *s)
{
	return s ? scols_line_set_data(ln, i, s) : 0;
}

int out_set_u64(struct libscols_line *ln, size_t i, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	return scols_line_set_data(ln, i, buf);
}

int out_set_s64(struct libscols_line *ln, size_t i, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return scols_line_set_data(ln, i, buf);
}

int out_set_size(const struct out_opts *o, struct libscols_line *ln, size_t i,
		 unsigned long long v)
{
	char buf[32];

	if (o->format != OUT_TABLE || o->bytes)
		return out_set_u64(ln, i, v);
	return scols_line_set_data(ln, i, size_human(v, buf, sizeof(buf)));
}

void out_detect_terminal(struct out_opts *o)
{
	o->terminal = o->format == OUT_TABLE && isatty(STDOUT_FILENO);
}

int out_set_start(const struct out_opts *o, struct libscols_line *ln, size_t i,
		  unsigned long long bytes, unsigned int logical)
{
	char buf[32];

	if (!o->terminal || o->bytes || !logical || bytes % logical)
		return out_set_u64(ln, i, bytes);
	snprintf(buf, sizeof(buf), "%llus", bytes / logical);
	return scols_line_set_data(ln, i, buf);
}

bool out_parse_opt(int c, const char *arg, struct out_opts *o)
{
	switch (c) {
	case 'J':
		o->format = OUT_JSON;
		return true;
	case 'P':
		o->format = OUT_PAIRS;
		return true;
	case 'r':
		o->format = OUT_RAW;
		return true;
	case 'n':
		o->noheadings = true;
		return true;
	case 'b':
		o->bytes = true;
		return true;
	case 'o':
		o->columns = arg;
		return true;
	}
	return false;
}

/*
 * libsmartcols prints one table as {"name": [rows]}; provision's report is an
 * object with scalars, a list and a nested object, so its writer uses this.
 * Every string is escaped: quotes, backslashes, control bytes, and bytes
 * outside ASCII (as \u00XX, so that the output is valid UTF-8 whatever a
 * device string holds).
 */
void out_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
