/*
 * Oracle ASM udev rules, pure part: the map.  The tokenizer (shared with
 * provision's config, core/provconf.c), device selectors (wwn:, serial:,
 * partuuid:), the map file parser and the checks of each entry.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/rules.h"

/* A copy of user input fit for a one-line message: non-printables as '?'. */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = isprint((unsigned char)s[i]) && isascii((unsigned char)s[i])
			     ? s[i]
			     : '?';
	buf[i] = '\0';
	return buf;
}

/* ---- the map --------------------------------------------------------- */

size_t rules_fields_split(char *line, const char *blanks, char **field, size_t max)
{
	size_t n = 0;

	for (;;) {
		line += strspn(line, blanks);
		if (!*line || *line == '#')
			return n;
		if (n == max)
			return max + 1;
		field[n++] = line;
		line += strcspn(line, blanks);
		if (*line)
			*line++ = '\0';
	}
}

int rules_spec_parse(const char *spec, enum rules_sel *sel, const char **value)
{
	static const struct {
		const char *prefix;
		enum rules_sel sel;
	} pre[] = {
	    {"wwn:", RULES_SEL_WWN},
	    {"serial:", RULES_SEL_SERIAL},
	    {"partuuid:", RULES_SEL_PARTUUID},
	};
	size_t i;

	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i].prefix);

		if (strncasecmp(spec, pre[i].prefix, n) == 0) {
			if (!spec[n])
				return -EINVAL;
			*sel = pre[i].sel;
			*value = spec + n;
			return 0;
		}
	}
	if (spec[0] != '/')
		return -EINVAL;
	*sel = RULES_SEL_PATH;
	*value = spec;
	return 0;
}

static int entry_check(const char *name, const char *device, const char *owner,
		       const char *group, const char *mode, char *normmode,
		       const char *origin, struct pa_diags *diags)
{
	enum rules_sel sel;
	const char *v;
	char b[128];
	int bad = 0, rc;

	if (!rules_name_is_valid(name)) {
		bad = 1;
		rc = diag_add(
		    diags, origin, 0,
		    "ASM name '%s' is not valid: use 1 to %d of A-Z a-z 0-9 _ . -, "
		    "starting with a letter, a digit or _",
		    shown(name, b, sizeof(b)), RULES_NAME_MAX);
		if (rc < 0)
			return rc;
	}
	if (rules_spec_parse(device, &sel, &v) < 0) {
		bad = 1;
		rc = diag_add(
		    diags, origin, 0,
		    "device '%s' of %s: expected a /dev path, wwn:ID, serial:ID or "
		    "partuuid:UUID",
		    shown(device, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	if (owner && !rules_account_is_valid(owner)) {
		bad = 1;
		rc = diag_add(diags, origin, 0,
			      "owner '%s' of %s is not a valid user name",
			      shown(owner, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	if (group && !rules_account_is_valid(group)) {
		bad = 1;
		rc = diag_add(diags, origin, 0,
			      "group '%s' of %s is not a valid group name",
			      shown(group, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	if (mode && !rules_mode_normalize(mode, normmode)) {
		bad = 1;
		rc = diag_add(diags, origin, 0,
			      "mode '%s' of %s: expected 3 or 4 octal digits, e.g. 0660",
			      shown(mode, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	return bad ? -EINVAL : 0;
}

int rules_map_add(struct rules_map *m, const char *name, const char *device,
		  const char *owner, const char *group, const char *mode,
		  const char *origin, struct pa_diags *diags)
{
	struct rules_entry *e;
	char normmode[8];
	bool fail = false;
	int rc;

	rc = entry_check(name, device, owner, group, mode, normmode, origin, diags);
	if (rc < 0)
		return rc;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct rules_entry *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	e = &m->v[m->n];
	memset(e, 0, sizeof(*e));
	e->name = rules_strdup_opt(name, &fail);
	e->device = rules_strdup_opt(device, &fail);
	e->owner = rules_strdup_opt(owner, &fail);
	e->group = rules_strdup_opt(group, &fail);
	e->mode = rules_strdup_opt(mode ? normmode : NULL, &fail);
	e->origin = rules_strdup_opt(origin, &fail);
	m->n++;
	return fail ? -ENOMEM : 0;
}

int rules_map_add_arg(struct rules_map *m, const char *arg, struct pa_diags *diags)
{
	const char *eq = strchr(arg, '=');
	char *name;
	char b[128];
	int rc;

	if (!eq || eq == arg || !eq[1])
		return diag_add(diags, "--disk", 0, "'%s': expected NAME=DEVICE",
				shown(arg, b, sizeof(b)))
			   ?: -EINVAL;
	name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		return -ENOMEM;
	rc = rules_map_add(m, name, eq + 1, NULL, NULL, NULL, "--disk", diags);
	free(name);
	return rc;
}

int rules_map_parse(struct rules_map *m, const char *text, const char *file,
		    struct pa_diags *diags)
{
	const char *p = text;
	unsigned int lineno = 0;
	bool bad = false;
	int rc;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = strndup(p, len);
		char *field[5];
		char origin[4096];
		size_t nf;

		if (!line)
			return -ENOMEM;
		lineno++;
		snprintf(origin, sizeof(origin), "%s:%u", file, lineno);
		nf = rules_fields_split(line, " \t\r", field, 5);
		rc = 0;
		if (nf == 1 || nf > 5) {
			rc = diag_add(diags, origin, 0,
				      "expected 'name device [owner [group [mode]]]'");
			if (rc == 0)
				rc = -EINVAL;
		} else if (nf >= 2) {
			rc =
			    rules_map_add(m, field[0], field[1], nf > 2 ? field[2] : NULL,
					  nf > 3 ? field[3] : NULL,
					  nf > 4 ? field[4] : NULL, origin, diags);
		}
		free(line);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			bad = true;
		p += len;
		if (*p == '\n')
			p++;
	}
	return bad ? -EINVAL : 0;
}

int rules_map_check_names(const struct rules_map *m, struct pa_diags *diags)
{
	size_t i, j;
	int bad = 0, rc;

	for (i = 0; i < m->n; i++)
		for (j = 0; j < i; j++) {
			if (strcasecmp(m->v[i].name, m->v[j].name) != 0)
				continue;
			bad = 1;
			rc = diag_add(
			    diags, m->v[i].origin, 0,
			    "name %s given twice (also %s as %s): one name, one device",
			    m->v[i].name, m->v[j].origin, m->v[j].name);
			if (rc < 0)
				return rc;
			break;
		}
	return bad ? -EINVAL : 0;
}

void rules_map_free(struct rules_map *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].device);
		free(m->v[i].owner);
		free(m->v[i].group);
		free(m->v[i].mode);
		free(m->v[i].origin);
	}
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}
