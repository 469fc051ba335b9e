/*
 * Oracle ASM udev rules, pure part: the text.  The deterministic rules file
 * for a rule set, the unified diff of --dry-run, and the scan of other rules
 * files (and udev's database) for links that a rule set would claim too.
 * The parser, the key choice and the refusals are in rules.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rules.h"

/* ---- text -------------------------------------------------------------- */

struct buf {
	char *s;
	size_t len;
	size_t cap;
	bool fail;
};

static void buf_add(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void buf_add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->fail)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->fail = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = (b->cap ? b->cap : 256) * 2;
			char *s;

			while (cap - b->len <= (size_t)n)
				cap *= 2;
			s = realloc(b->s, cap);
			if (!s) {
				b->fail = true;
				return;
			}
			b->s = s;
			b->cap = cap;
		}
	}
}

static char *buf_take(struct buf *b)
{
	if (!b->s && !b->fail)
		buf_add(b, "%s", "");
	if (b->fail) {
		free(b->s);
		return NULL;
	}
	return b->s;
}

static int cmp_rule_name(const void *a, const void *b)
{
	const struct rules_rule *x = *(const struct rules_rule *const *)a;
	const struct rules_rule *y = *(const struct rules_rule *const *)b;

	return strcmp(x->name, y->name);
}

/* @path for a comment line: a byte that could end it or hide in it becomes '?' */
static void path_add(struct buf *b, const char *path)
{
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++)
		buf_add(b, "%c", *p < 0x20 || *p == 0x7f ? '?' : *p);
}

/* The header's lines on how the file was made, and what to run to change it. */
static void header_origin(struct buf *b, const struct rules_origin *o)
{
	if (o->config) {
		buf_add(b, "# Written by partalign provision from ");
		path_add(b, o->config);
		buf_add(b, "\n# Do not edit: change that configuration and run "
			   "partalign provision again.\n");
	} else if (o->asm_headers) {
		buf_add(
		    b, "# Written by partalign rules --from-asm from the Oracle ASM disk "
		       "headers.\n# Do not edit: run partalign rules --from-asm again "
		       "(a disk left out loses\n# its rule).\n");
	} else if (o->map && !o->disks && o->nmaps == 1) {
		buf_add(b, "# Written by partalign rules from the map ");
		path_add(b, o->map);
		buf_add(
		    b, "\n# Do not edit: change the map and run 'partalign rules --map ");
		path_add(b, o->map);
		buf_add(b, "' again.\n");
	} else if (o->map) {
		buf_add(b, "# Written by partalign rules from the map ");
		path_add(b, o->map);
		buf_add(b,
			"%s%s\n# Do not edit: run partalign rules again with the same "
			"maps and --disk\n# (a disk left out loses its rule).\n",
			o->nmaps > 1 ? " and other maps" : "",
			o->disks ? " and --disk" : "");
	} else {
		buf_add(
		    b, "# Written by partalign rules --disk NAME=DEVICE from the devices "
		       "named.\n# Do not edit: run partalign rules again with a --disk "
		       "for every ASM disk\n# (a disk left out loses its rule).\n");
	}
}

char *rules_text(const struct rules_set *s)
{
	const struct rules_rule **v = calloc(s->n ? s->n : 1, sizeof(*v));
	struct buf b = {0};
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < s->n; i++)
		v[i] = &s->v[i];
	qsort(v, s->n, sizeof(*v), cmp_rule_name);

	buf_add(&b,
		"# Oracle ASM disks: /dev/%s/NAME with the owner, group and mode ASM "
		"needs.\n",
		RULES_LINK_DIR);
	header_origin(&b, &s->origin);
	for (i = 0; i < s->n; i++) {
		const struct rules_rule *r = v[i];

		buf_add(&b, "\n# %s: %s\n", r->name, r->comment);
		buf_add(&b, "ACTION==\"add|change\", SUBSYSTEM==\"block\", ");
		if (r->devtype == RULES_DEVTYPE_PARTITION)
			buf_add(&b, "ENV{DEVTYPE}==\"partition\", ");
		else if (r->devtype == RULES_DEVTYPE_DISK)
			buf_add(&b, "ENV{DEVTYPE}==\"disk\", ");
		buf_add(&b, "%s==\"%s\", ", rules_rule_key(r), r->value);
		if (r->partn)
			buf_add(&b, "ENV{PARTN}==\"%u\", ", r->partn);
		buf_add(&b,
			"SYMLINK+=\"%s/%s\", OWNER=\"%s\", GROUP=\"%s\", MODE=\"%s\", "
			"OPTIONS:=\"%s\"\n",
			RULES_LINK_DIR, r->name, r->owner, r->group, r->mode,
			RULES_OPTIONS);
	}
	free(v);
	return buf_take(&b);
}

/* ---- unified diff ------------------------------------------------------ */

struct lines {
	const char **p; /* start of each line */
	size_t *len;	/* without the newline */
	size_t n;
	bool last_nl; /* the text ends with a newline */
};

static int split_lines(const char *text, struct lines *l)
{
	const char *p = text ? text : "";
	size_t cap = 1, n = 0;

	for (const char *q = p; *q; q++)
		if (*q == '\n')
			cap++;
	l->p = calloc(cap, sizeof(*l->p));
	l->len = calloc(cap, sizeof(*l->len));
	if (!l->p || !l->len)
		return -ENOMEM;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		l->p[n] = p;
		l->len[n] = len;
		n++;
		p += len;
		if (*p == '\n')
			p++;
	}
	l->n = n;
	l->last_nl = !text || !*text || text[strlen(text) - 1] == '\n';
	return 0;
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->p[i], b->p[j], a->len[i]) == 0;
}

enum { OP_SAME, OP_DEL, OP_ADD };

struct op {
	int type;
	size_t a, b; /* line index in old, new (the one that applies) */
};

/* Edit script by longest common subsequence; a plain replace for huge inputs. */
static int edit_script(const struct lines *a, const struct lines *b, struct op **out,
		       size_t *nout)
{
	size_t n = a->n, m = b->n, i, j, k = 0;
	struct op *ops = calloc(n + m + 1, sizeof(*ops));
	uint32_t *t = NULL;

	if (!ops)
		return -ENOMEM;
	if (n && m && (n + 1) * (m + 1) <= (8u << 20))
		t = calloc((n + 1) * (m + 1), sizeof(*t));
	if (t) {
#define T(x, y) t[(x) * (m + 1) + (y)]
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				T(i, j) = line_eq(a, i, b, j) ? T(i + 1, j + 1) + 1
					  : T(i + 1, j) >= T(i, j + 1) ? T(i + 1, j)
								       : T(i, j + 1);
		i = j = 0;
		while (i < n && j < m) {
			if (line_eq(a, i, b, j)) {
				ops[k++] = (struct op){OP_SAME, i++, j++};
			} else if (T(i + 1, j) >= T(i, j + 1)) {
				ops[k++] = (struct op){OP_DEL, i++, j};
			} else {
				ops[k++] = (struct op){OP_ADD, i, j++};
			}
		}
#undef T
		free(t);
	} else {
		i = j = 0;
	}
	while (i < n)
		ops[k++] = (struct op){OP_DEL, i++, j};
	while (j < m)
		ops[k++] = (struct op){OP_ADD, i, j++};
	*out = ops;
	*nout = k;
	return 0;
}

static void hunk_range(struct buf *b, char sign, size_t start, size_t count)
{
	if (count == 1)
		buf_add(b, "%c%zu", sign, start + 1);
	else
		buf_add(b, "%c%zu,%zu", sign, count ? start + 1 : start, count);
}

static void emit_line(struct buf *b, char sign, const struct lines *l, size_t i)
{
	buf_add(b, "%c%.*s\n", sign, (int)l->len[i], l->p[i]);
	if (i + 1 == l->n && !l->last_nl)
		buf_add(b, "\\ No newline at end of file\n");
}

char *rules_diff(const char *old, const char *new, const char *old_label,
		 const char *new_label)
{
	enum { CONTEXT = 3 };
	struct lines a = {0}, b = {0};
	struct op *ops = NULL;
	struct buf out = {0};
	size_t nops = 0, i = 0;
	char *res = NULL;

	if (split_lines(old, &a) < 0 || split_lines(new, &b) < 0 ||
	    edit_script(&a, &b, &ops, &nops) < 0)
		goto done;
	for (i = 0; i < nops && ops[i].type == OP_SAME; i++)
		;
	if (i < nops)
		buf_add(&out, "--- %s\n+++ %s\n", old ? old_label : "/dev/null",
			new_label);
	i = 0;
	while (i < nops) {
		size_t first, last, h, oa, ob, ca = 0, cb = 0;

		while (i < nops && ops[i].type == OP_SAME)
			i++;
		if (i == nops)
			break;
		first = i >= CONTEXT ? i - CONTEXT : 0;
		/* extend while the next change is within 2 * CONTEXT lines */
		last = i;
		for (h = i; h < nops; h++) {
			if (ops[h].type != OP_SAME)
				last = h;
			else if (h - last > 2 * CONTEXT)
				break;
		}
		h = last + CONTEXT + 1 < nops ? last + CONTEXT + 1 : nops;
		oa = ops[first].a;
		ob = ops[first].b;
		for (i = first; i < h; i++) {
			if (ops[i].type != OP_ADD)
				ca++;
			if (ops[i].type != OP_DEL)
				cb++;
		}
		buf_add(&out, "@@ ");
		hunk_range(&out, '-', oa, ca);
		buf_add(&out, " ");
		hunk_range(&out, '+', ob, cb);
		buf_add(&out, " @@\n");
		for (i = first; i < h; i++) {
			if (ops[i].type == OP_SAME)
				emit_line(&out, ' ', &a, ops[i].a);
			else if (ops[i].type == OP_DEL)
				emit_line(&out, '-', &a, ops[i].a);
			else
				emit_line(&out, '+', &b, ops[i].b);
		}
	}
	res = buf_take(&out);
	out.s = NULL;
done:
	free(out.s);
	free(ops);
	free(a.p);
	free(a.len);
	free(b.p);
	free(b.len);
	return res;
}

/* ---- other rules files ------------------------------------------------- */

/* Whether @line holds "oracleasm/NAME" with NAME ending there. */
static bool line_has_link(const char *line, const char *name)
{
	const char *p = line;
	size_t dl = strlen(RULES_LINK_DIR), nl = strlen(name);

	while ((p = strstr(p, RULES_LINK_DIR "/"))) {
		const char *q = p + dl + 1;

		if (strncmp(q, name, nl) == 0 && !rules_name_char((unsigned char)q[nl]) &&
		    (p == line || !rules_name_char((unsigned char)p[-1])))
			return true;
		p = q;
	}
	return false;
}

static bool line_has_value(const char *line, const char *value)
{
	const char *p = line;
	size_t n = strlen(value);

	while ((p = strchr(p, '"'))) {
		if (strncmp(p + 1, value, n) == 0 && p[1 + n] == '"')
			return true;
		p++;
	}
	return false;
}

int rules_find_claims(const char *text, const struct rules_set *s,
		      struct rules_claim **out, size_t *n)
{
	const char *p = text;
	size_t lineno = 0, cap = 0;
	struct buf logical = {0};
	size_t first = 0;

	*out = NULL;
	*n = 0;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		bool cont = len && p[len - 1] == '\\';
		size_t i;

		lineno++;
		if (!logical.len)
			first = lineno;
		buf_add(&logical, "%.*s", (int)(cont ? len - 1 : len), p);
		p += len;
		if (*p == '\n')
			p++;
		if (cont && *p)
			continue;
		if (logical.fail) {
			free(logical.s);
			free(*out);
			*out = NULL;
			return -ENOMEM;
		}
		{
			const char *l = logical.s;

			while (*l == ' ' || *l == '\t')
				l++;
			for (i = 0; *l && *l != '#' && i < s->n; i++) {
				bool link = line_has_link(l, s->v[i].name);

				if (!link && !line_has_value(l, s->v[i].value))
					continue;
				if (*n == cap) {
					size_t nc = cap ? cap * 2 : 8;
					struct rules_claim *v =
					    realloc(*out, nc * sizeof(*v));

					if (!v) {
						free(logical.s);
						free(*out);
						*out = NULL;
						return -ENOMEM;
					}
					*out = v;
					cap = nc;
				}
				(*out)[(*n)++] = (struct rules_claim){first, i, link};
			}
		}
		logical.len = 0;
		logical.s[0] = '\0';
	}
	free(logical.s);
	return 0;
}

int rules_text_links(const char *text, char ***names, size_t *n)
{
	const char *p = text;
	size_t cap = 0;
	static const char key[] = "SYMLINK+=\"" RULES_LINK_DIR "/";

	*names = NULL;
	*n = 0;
	while ((p = strstr(p, key))) {
		const char *q = p + strlen(key);
		size_t len = 0;
		char *name;

		while (rules_name_char((unsigned char)q[len]))
			len++;
		p = q + len;
		if (!len || q[len] != '"')
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			char **v = realloc(*names, nc * sizeof(*v));

			if (!v)
				goto nomem;
			*names = v;
			cap = nc;
		}
		name = strndup(q, len);
		if (!name)
			goto nomem;
		(*names)[(*n)++] = name;
	}
	return 0;
nomem:
	rules_strv_free(*names, *n);
	*names = NULL;
	*n = 0;
	return -ENOMEM;
}

void rules_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

bool rules_dbfile_has(const char *text, const char *name)
{
	const char *p = text;
	size_t n = strlen(name);

	while (p && *p) {
		if (strncmp(p, name, n) == 0 && p[n] == ':')
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}
