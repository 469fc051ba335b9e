/*
 * The configuration parser of `partalign provision` (see core/provconf.h).
 * Lines are split by the map parser's tokenizer and their names, accounts,
 * modes and IDs checked by its validators (core/rules.c), so a name or a
 * mode the map accepts is accepted here too.  Every bad line is reported,
 * and the parse goes on to the next one.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/provconf.h"
#include "core/rules.h"
#include "core/units.h"

struct parser {
	struct provconf *c;
	const char *file;
	struct pa_diags *diags;
	size_t line;
	unsigned int errors;
	bool nomem;
};

static void perr(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One diagnostic "FILE:LINE: message". */
static void perr(struct parser *p, const char *fmt, ...)
{
	char *where = NULL, *msg = NULL;
	va_list ap;
	int rc;

	p->errors++;
	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0 || asprintf(&where, "%s:%zu", p->file, p->line) < 0) {
		free(rc < 0 ? NULL : msg);
		p->nomem = true;
		return;
	}
	if (diag_add(p->diags, where, 0, "%s", msg) < 0)
		p->nomem = true;
	free(where);
	free(msg);
}

static char *dup(struct parser *p, const char *s)
{
	char *d = strdup(s);

	if (!d)
		p->nomem = true;
	return d;
}

/* "--align"-style size; false with a diagnostic. */
static bool parse_size(struct parser *p, const char *what, const char *s,
		       struct pa_grain *g, bool sectors_ok)
{
	int rc = units_parse_grain(s, g);

	if (rc == -ERANGE) {
		perr(p, "%s %s: too large", what, s);
		return false;
	}
	if (rc < 0) {
		perr(p,
		     "%s %s: expected a positive size with a unit (B, kB, MB, GB, TB, "
		     "KiB, MiB, GiB, TiB%s), e.g. 2MiB",
		     what, s, sectors_ok ? ", s" : "");
		return false;
	}
	return true;
}

static bool rules_file_ok(struct parser *p, const char *v)
{
	size_t len = strlen(v);

	if (v[0] != '/' || len >= PATH_MAX || v[len - 1] == '/') {
		perr(p, "rules %s: expected an absolute file name", v);
		return false;
	}
	if (len < 7 || strcmp(v + len - 6, ".rules") != 0) {
		perr(p, "rules %s: udev reads only files ending in .rules", v);
		return false;
	}
	return true;
}

/* The value of a global line; false with a diagnostic. */
static bool global_value(struct parser *p, const char *k, const char *v)
{
	struct provconf *c = p->c;

	if (strcmp(k, "owner") == 0 || strcmp(k, "group") == 0) {
		if (!rules_account_is_valid(v)) {
			perr(p, "%s %s: not a valid %s name", k, v,
			     k[0] == 'o' ? "user" : "group");
			return false;
		}
		*(k[0] == 'o' ? &c->owner : &c->group) = dup(p, v);
	} else if (strcmp(k, "mode") == 0) {
		if (!rules_mode_normalize(v, c->mode)) {
			perr(p, "mode %s: expected 3 or 4 octal digits, e.g. 0660", v);
			return false;
		}
	} else if (strcmp(k, "align") == 0) {
		if (!parse_size(p, "align", v, &c->grain, true))
			return false;
		if (!c->grain.sectors && c->grain.value % 512) {
			perr(p, "align %s: not a multiple of 512 bytes", v);
			return false;
		}
		c->align = dup(p, v);
	} else {
		if (!rules_file_ok(p, v))
			return false;
		c->rules = dup(p, v);
	}
	return true;
}

/* A global line: "owner grid", "mode 0660", ... */
static void global_line(struct parser *p, char **tok, size_t ntok)
{
	struct provconf *c = p->c;
	const char *k = tok[0];
	size_t *seen;

	if (ntok != 2) {
		perr(p, "'%s' takes exactly one value, e.g. '%s %s'", k, k,
		     strcmp(k, "owner") == 0   ? RULES_DEFAULT_OWNER
		     : strcmp(k, "group") == 0 ? RULES_DEFAULT_GROUP
		     : strcmp(k, "mode") == 0  ? RULES_DEFAULT_MODE
		     : strcmp(k, "align") == 0 ? "2MiB"
					       : RULES_DEFAULT_OUTPUT);
		return;
	}
	seen = strcmp(k, "owner") == 0	 ? &c->owner_line
	       : strcmp(k, "group") == 0 ? &c->group_line
	       : strcmp(k, "mode") == 0	 ? &c->mode_line
	       : strcmp(k, "align") == 0 ? &c->align_line
					 : &c->rules_line;
	if (*seen) {
		perr(p, "'%s' given twice (first on line %zu)", k, *seen);
		return;
	}
	if (global_value(p, k, tok[1]))
		*seen = p->line;
}

/* size:SIZE, in bytes; false with a diagnostic. */
static bool size_selector(struct parser *p, struct provconf_disk *d, const char *s)
{
	struct pa_grain g;

	if (!parse_size(p, "size:", d->value, &g, false))
		return false;
	if (g.sectors) {
		perr(p,
		     "%s: a size in sectors depends on the disk's sector size: "
		     "give bytes with a unit, e.g. size:100GiB",
		     s);
		return false;
	}
	d->size = g.value;
	return true;
}

/* The selector of a disk line; false with a diagnostic. */
static bool selector(struct parser *p, struct provconf_disk *d, const char *s)
{
	static const struct {
		const char *prefix;
		enum provconf_sel kind;
	} kinds[] = {{"wwn:", PROVCONF_SEL_WWN},
		     {"serial:", PROVCONF_SEL_SERIAL},
		     {"size:", PROVCONF_SEL_SIZE}};
	const size_t nkinds = sizeof(kinds) / sizeof(kinds[0]);
	const char *bad;
	size_t i;

	d->selector = dup(p, s);
	if (!d->selector)
		return false;
	if (s[0] == '/') {
		d->sel = PROVCONF_SEL_PATH;
		d->value = d->selector;
		if (strlen(s) >= PATH_MAX) {
			perr(p, "device path too long");
			return false;
		}
		return true;
	}
	for (i = 0; i < nkinds; i++)
		if (strncmp(s, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
			break;
	if (i == nkinds) {
		if (strncmp(s, "partuuid:", 9) == 0)
			perr(p,
			     "%s: provision names whole disks; partuuid: selects a "
			     "partition (use partalign rules --map for those)",
			     s);
		else
			perr(
			    p,
			    "%s: expected a device path (/dev/...), wwn:ID, serial:ID or "
			    "size:SIZE",
			    s);
		return false;
	}
	d->sel = kinds[i].kind;
	d->value = d->selector + strlen(kinds[i].prefix);
	if (!*d->value) {
		perr(p, "%s: empty %s", s, kinds[i].prefix);
		return false;
	}
	if (d->sel == PROVCONF_SEL_SIZE)
		return size_selector(p, d, s);
	bad = rules_value_unsafe(d->value);
	if (bad) {
		perr(p, "%s: holds %s, which no %s can contain", s, bad,
		     d->sel == PROVCONF_SEL_WWN ? "WWN udev knows" : "serial udev knows");
		return false;
	}
	return true;
}

/* owner= or group= of a disk line. */
static bool account_opt(struct parser *p, char **slot, const char *k, const char *v)
{
	if (*slot) {
		perr(p, "%s= given twice", k);
		return false;
	}
	if (!rules_account_is_valid(v)) {
		perr(p, "%s=%s: not a valid %s name", k, v,
		     k[0] == 'o' ? "user" : "group");
		return false;
	}
	*slot = dup(p, v);
	return *slot != NULL;
}

/* "owner=grid", "group=...", "mode=..." after the selector. */
static bool disk_opt(struct parser *p, struct provconf_disk *d, const char *t)
{
	const char *eq = strchr(t, '=');
	size_t klen = eq ? (size_t)(eq - t) : 0;
	const char *v = eq ? eq + 1 : NULL;

	if (!eq || klen == 0) {
		perr(p, "'%s': expected owner=USER, group=GROUP or mode=MODE", t);
		return false;
	}
	if (klen == 5 && strncmp(t, "owner", 5) == 0)
		return account_opt(p, &d->owner, "owner", v);
	if (klen == 5 && strncmp(t, "group", 5) == 0)
		return account_opt(p, &d->group, "group", v);
	if (klen == 4 && strncmp(t, "mode", 4) == 0) {
		if (d->mode[0]) {
			perr(p, "mode= given twice");
			return false;
		}
		if (!rules_mode_normalize(v, d->mode)) {
			perr(p, "mode=%s: expected 3 or 4 octal digits, e.g. 0660", v);
			return false;
		}
		return true;
	}
	perr(p, "'%.*s=': unknown; expected owner=, group= or mode=", (int)klen, t);
	return false;
}

static void disk_free(struct provconf_disk *d)
{
	free(d->name);
	free(d->selector);
	free(d->owner);
	free(d->group);
	free(d->where);
}

/* A name or selector that an earlier disk line already has; false with a diagnostic. */
static bool disk_unique(struct parser *p, const char *name, const struct provconf_disk *d)
{
	const struct provconf *c = p->c;
	bool ok = true;
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (strcasecmp(c->v[i].name, name) == 0) {
			perr(p, "%s: the name is already used on %s (ASM ignores case)",
			     name, c->v[i].where);
			ok = false;
		} else if (d->sel != PROVCONF_SEL_SIZE &&
			   strcmp(c->v[i].selector, d->selector) == 0) {
			perr(p, "%s: %s already names %s", name, d->selector,
			     c->v[i].name);
			ok = false;
		}
	}
	return ok;
}

static bool disk_append(struct parser *p, struct provconf_disk *d, const char *name)
{
	struct provconf *c = p->c;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct provconf_disk *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			p->nomem = true;
			return false;
		}
		c->v = v;
		c->cap = cap;
	}
	d->name = dup(p, name);
	if (asprintf(&d->where, "%s:%zu", p->file, p->line) < 0) {
		d->where = NULL;
		p->nomem = true;
	}
	if (!d->name || !d->where)
		return false;
	c->v[c->n++] = *d;
	return true;
}

/* A disk line: NAME SELECTOR [owner=U] [group=G] [mode=M]. */
static void disk_line(struct parser *p, char **tok, size_t ntok)
{
	struct provconf_disk d = {0};
	bool ok;
	size_t i;

	if (!rules_name_is_valid(tok[0]) || strlen(tok[0]) > PROVCONF_NAME_MAX) {
		perr(p,
		     "'%s': not a keyword (owner, group, mode, align, rules) nor a valid "
		     "ASM disk name (1 to %d of A-Z a-z 0-9 _ . -, not starting with "
		     "'.' or '-')",
		     tok[0], PROVCONF_NAME_MAX);
		return;
	}
	if (ntok < 2) {
		perr(p,
		     "%s: no device: expected 'NAME SELECTOR [owner=U] "
		     "[group=G] [mode=M]'",
		     tok[0]);
		return;
	}
	ok = selector(p, &d, tok[1]);
	for (i = 2; ok && i < ntok; i++)
		ok = disk_opt(p, &d, tok[i]);
	if (!ok || !disk_unique(p, tok[0], &d) || !disk_append(p, &d, tok[0]))
		disk_free(&d);
}

static bool is_keyword(const char *s)
{
	return strcmp(s, "owner") == 0 || strcmp(s, "group") == 0 ||
	       strcmp(s, "mode") == 0 || strcmp(s, "align") == 0 ||
	       strcmp(s, "rules") == 0;
}

/* One line, without its newline: printable ASCII, then fields. */
static void one_line(struct parser *p, char *s, size_t len)
{
	char *tok[PROVCONF_FIELDS_MAX];
	size_t ntok, i;

	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b == '\r' && i + 1 == len) {
			perr(p, "ends in a carriage return: save the file with "
				"Unix line endings");
			return;
		}
		if ((b < 0x20 && b != '\t') || b >= 0x7f) {
			perr(p,
			     "byte 0x%02x at column %zu: only printable ASCII, "
			     "blanks and tabs are allowed",
			     b, i + 1);
			return;
		}
	}
	ntok = rules_fields_split(s, " \t", tok, PROVCONF_FIELDS_MAX);
	if (ntok > PROVCONF_FIELDS_MAX) {
		perr(p, "too many fields (at most %d)", PROVCONF_FIELDS_MAX);
		return;
	}
	if (ntok == 0)
		return;
	if (is_keyword(tok[0]))
		global_line(p, tok, ntok);
	else
		disk_line(p, tok, ntok);
}

int provconf_parse(struct provconf *c, const char *text, size_t len, const char *file,
		   struct pa_diags *diags)
{
	struct parser p = {.c = c, .file = file, .diags = diags};
	const char *end = text + len;
	char *buf;

	c->grain = PA_GRAIN_DEFAULT;
	buf = malloc(PROVCONF_LINE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	while (text < end && !p.nomem) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t n = nl ? (size_t)(nl - text) : (size_t)(end - text);

		p.line++;
		if (memchr(text, '\0', n)) {
			perr(&p, "holds a NUL byte: not a text file");
			break;
		}
		if (n > PROVCONF_LINE_MAX) {
			perr(&p, "longer than %d bytes", PROVCONF_LINE_MAX);
		} else {
			memcpy(buf, text, n);
			buf[n] = '\0';
			one_line(&p, buf, n);
		}
		text += n + (nl ? 1 : 0);
	}
	free(buf);
	if (!p.nomem && !p.errors && c->n == 0) {
		p.errors++;
		if (diag_add(
			diags, file, 0,
			"no disks: expected lines 'NAME SELECTOR [owner=U] [group=G] "
			"[mode=M]'") < 0)
			p.nomem = true;
	}
	if (p.nomem)
		return -ENOMEM;
	return p.errors ? -EINVAL : 0;
}

void provconf_free(struct provconf *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		disk_free(&c->v[i]);
	free(c->v);
	free(c->owner);
	free(c->group);
	free(c->align);
	free(c->rules);
	memset(c, 0, sizeof(*c));
}

const char *provconf_owner(const struct provconf *c, const struct provconf_disk *d)
{
	return d->owner ? d->owner : c->owner ? c->owner : RULES_DEFAULT_OWNER;
}

const char *provconf_group(const struct provconf *c, const struct provconf_disk *d)
{
	return d->group ? d->group : c->group ? c->group : RULES_DEFAULT_GROUP;
}

const char *provconf_mode(const struct provconf *c, const struct provconf_disk *d)
{
	return d->mode[0] ? d->mode : c->mode[0] ? c->mode : RULES_DEFAULT_MODE;
}
