/*
 * Output through libsmartcols: one column table per command, rendered as a
 * table, --json, --pairs or --raw.  Nothing here pads columns by hand.  Where
 * an older libsmartcols prints otherwise than 2.38 does, output.c makes the
 * output the same: it writes the --json document itself when the library
 * cannot type its values or lays it out otherwise (util-linux before 2.37;
 * EL8 has 2.32; configure decides), out_json_write(); it makes the --pairs
 * keys shell variable names before 2.38; and it takes off the blanks that
 * libraries before 2.35 put in an empty right-aligned last cell of a table
 * (asked of the library at run time).  The column table (struct out_col) is
 * the one source of names and JSON types.  out_json_str() writes the strings
 * of the report that is not one table (provision --json).
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

/* libsmartcols prints --json: it types the values, lays the document out as 2.37+ */
#if defined(HAVE_SCOLS_COLUMN_SET_JSON_TYPE) && HAVE_DECL_SCOLS_JSON_ARRAY_STRING
#define SCOLS_WRITES_JSON 1
#else
#define SCOLS_WRITES_JSON 0
#endif

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
 * libsmartcols before 2.38 (EL8 has 2.32, EL9 2.37) has no
 * scols_table_enable_shellvar(): make the --pairs keys shell variable names
 * here by its rule: any byte but [A-Za-z0-9] becomes '_' ("MAJ:MIN" ->
 * "MAJ_MIN"), a name that does not start with a letter gets a '_' before
 * it, and a trailing '%' becomes "_PCT".
 */
static const char *shellvar_name(const char *name, char *buf, size_t size)
{
	size_t i = 0;
	const char *s;

	if (!isalpha((unsigned char)*name))
		buf[i++] = '_';
	for (s = name; *s && i + 1 < size; s++)
		buf[i++] = isalnum((unsigned char)*s) ? *s : '_';
	if (s > name && s[-1] == '%' && i + 4 < size) {
		memcpy(buf + i, "PCT", 3);
		i += 3;
	}
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
		/* the column's name and JSON type, for out_json_write() */
		scols_cell_set_userdata(scols_column_get_header(cl), (void *)c);
#if SCOLS_WRITES_JSON
		scols_column_set_json_type(cl, c->json_type == OUT_JSON_NUMBER
						   ? SCOLS_JSON_NUMBER
						   : SCOLS_JSON_STRING);
#endif
	}
	return tb;
}

void out_list_columns(const struct out_col *cols, size_t ncols)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		printf("%14s  %s\n", cols[i].name, cols[i].help);
}

/*
 * A JSON string as libsmartcols writes one: '"' and '\\' escaped, the bytes
 * below 0x20 as \b \t \n \f \r or \u00xx, every other byte as it is (UTF-8
 * stays UTF-8); @lower: ASCII letters in lower case (the keys).
 */
static void scols_json_str(FILE *f, const char *s, bool lower)
{
	static const char short_esc[] = {
	    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r'};

	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < sizeof(short_esc) && short_esc[c])
			fprintf(f, "\\%c", short_esc[c]);
		else if (c < 0x20)
			fprintf(f, "\\u00%02x", c);
		else
			fputc(lower && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c, f);
	}
	fputc('"', f);
}

/*
 * The layout of libsmartcols 2.37 and later: three blanks an indent level,
 * one key a line, objects joined as "},{", an empty table as an empty line
 * between the brackets.  Keys are the column names in lower case; a value
 * is null when its cell is unset or empty.
 */
int out_json_write(struct libscols_table *tb, FILE *f)
{
	size_t ncols = scols_table_get_ncols(tb), i;
	struct libscols_iter *itr = scols_new_iter(SCOLS_ITER_FORWARD);
	const char *name = scols_table_get_name(tb);
	struct libscols_line *ln;
	bool first = true;

	if (!itr)
		return -ENOMEM;
	fputs("{\n   ", f);
	scols_json_str(f, name ? name : "", true);
	fputs(": [\n", f);
	while (scols_table_next_line(tb, itr, &ln) == 0) {
		fputs(first ? "      {\n" : ",{\n", f);
		first = false;
		for (i = 0; i < ncols; i++) {
			struct libscols_cell *hd =
			    scols_column_get_header(scols_table_get_column(tb, i));
			const struct out_col *c = scols_cell_get_userdata(hd);
			struct libscols_cell *ce = scols_line_get_cell(ln, i);
			const char *v = ce ? scols_cell_get_data(ce) : NULL;

			fputs(i ? ",\n         " : "         ", f);
			scols_json_str(f, c ? c->name : scols_cell_get_data(hd), true);
			fputs(": ", f);
			if (!v || !*v)
				fputs("null", f);
			else if (c && c->json_type == OUT_JSON_NUMBER)
				fputs(v, f);
			else
				scols_json_str(f, v, false);
		}
		fputs("\n      }", f);
	}
	fputs("\n   ]\n}\n", f);
	scols_free_iter(itr);
	return ferror(f) ? -EIO : 0;
}

/*
 * libsmartcols before 2.35 (EL8 has 2.32) fills an empty cell of a
 * right-aligned last column with blanks to the column's width; 2.35 and later
 * end the line before it.  Asked once of the library at hand: a table of one
 * right-aligned column "N" and one empty row.
 */
static bool scols_fills_last_cell(void)
{
	static int fills = -1;
	struct libscols_table *tb;
	char *s = NULL;

	if (fills >= 0)
		return fills;
	fills = 0;
	tb = scols_new_table();
	if (tb && scols_table_new_column(tb, "N", 1, SCOLS_FL_RIGHT) &&
	    scols_table_new_line(tb, NULL) && scols_print_table_to_string(tb, &s) == 0)
		fills = s && strcmp(s, "N\n ") == 0;
	free(s);
	scols_unref_table(tb);
	return fills;
}

size_t out_unfill(const char *line, size_t len, size_t width)
{
	size_t blanks = 0;

	while (blanks < len && line[len - 1 - blanks] == ' ')
		blanks++;
	return blanks >= width ? len - width : len;
}

/* A table as libsmartcols 2.35 and later print it, from a library that fills. */
static int print_unfilled(struct libscols_table *tb, size_t last)
{
	FILE *out = scols_table_get_stream(tb), *mem;
	char *buf = NULL, *line, *end;
	size_t size = 0, width;
	int rc;

	mem = open_memstream(&buf, &size);
	if (!mem)
		return -errno;
	scols_table_set_stream(tb, mem);
	rc = scols_print_table(tb);
	scols_table_set_stream(tb, out);
	if (fclose(mem) != 0 && rc == 0)
		rc = -errno;
	width = scols_column_get_width(scols_table_get_column(tb, last));
	for (line = buf; rc == 0 && line && *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		fwrite(line, 1, out_unfill(line, (size_t)(end - line), width), out);
		if (!*end)
			break;
		fputc('\n', out);
	}
	free(buf);
	return rc;
}

int out_print(struct libscols_table *tb)
{
	size_t ncols = scols_table_get_ncols(tb);
	int rc;

	if (!SCOLS_WRITES_JSON && scols_table_is_json(tb))
		rc = out_json_write(tb, scols_table_get_stream(tb));
	else if (!scols_table_is_json(tb) && !scols_table_is_raw(tb) &&
		 !scols_table_is_export(tb) && ncols &&
		 scols_column_is_right(scols_table_get_column(tb, ncols - 1)) &&
		 scols_fills_last_cell())
		rc = print_unfilled(tb, ncols - 1);
	else
		rc = scols_print_table(tb);
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
