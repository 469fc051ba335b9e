/*
 * Oracle ASM udev rules, pure part: the map parser, the choice of the udev key
 * per device, the refusals, the simulation of which scanned devices a rule
 * would match (clone detection), the deterministic rules text, the unified
 * diff of --dry-run, and the scan of other rules files for conflicting claims.
 *
 * Every value written into a rule comes from the udev database (or libblkid,
 * which udev's blkid builtin also uses), never from sysfs guesses: a rule is
 * only useful if udev sees the same string.  Hardware strings are checked
 * before they are written, so a crafted serial or model cannot end the quoted
 * value and inject a rule of its own.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/marker.h"
#include "core/rules.h"

static const char *const match_names[] = {
    [RULES_MATCH_AUTO] = "auto",      [RULES_MATCH_PARTUUID] = "partuuid",
    [RULES_MATCH_SERIAL] = "serial",  [RULES_MATCH_WWN] = "wwn",
    [RULES_MATCH_DMUUID] = "dm-uuid",
};

int rules_match_parse(const char *s, enum rules_match *m)
{
	size_t i;

	for (i = 0; i < sizeof(match_names) / sizeof(match_names[0]); i++)
		if (strcmp(s, match_names[i]) == 0) {
			*m = (enum rules_match)i;
			return 0;
		}
	return -EINVAL;
}

const char *rules_match_name(enum rules_match m)
{
	return match_names[m];
}

const char *rules_match_key(enum rules_match m)
{
	switch (m) {
	case RULES_MATCH_PARTUUID:
		return "ENV{ID_PART_ENTRY_UUID}";
	case RULES_MATCH_SERIAL:
		return "ENV{ID_SERIAL}";
	case RULES_MATCH_WWN:
		return "ENV{ID_WWN}";
	case RULES_MATCH_DMUUID:
		return "ENV{DM_UUID}";
	case RULES_MATCH_AUTO:
		break;
	}
	return "?";
}

const char *rules_rule_key(const struct rules_rule *r)
{
	if (r->match == RULES_MATCH_WWN && r->wwn_ext)
		return "ENV{ID_WWN_WITH_EXTENSION}";
	return rules_match_key(r->match);
}

/* The udev property behind a match, for messages. */
static const char *match_prop(enum rules_match m)
{
	switch (m) {
	case RULES_MATCH_PARTUUID:
		return "ID_PART_ENTRY_UUID";
	case RULES_MATCH_SERIAL:
		return "ID_SERIAL";
	case RULES_MATCH_WWN:
		return "ID_WWN";
	case RULES_MATCH_DMUUID:
		return "DM_UUID";
	case RULES_MATCH_AUTO:
		break;
	}
	return "?";
}

/* ---- safe strings ---------------------------------------------------- */

static const char *byte_unsafe(unsigned char c, bool value)
{
	if (c == '\n')
		return "a newline";
	if (c == '\r')
		return "a carriage return";
	if (c < 0x20 || c == 0x7f)
		return "a control byte";
	if (c >= 0x80)
		return "a non-ASCII byte";
	if (c == '"')
		return "a double quote";
	if (c == '\'')
		return "a single quote";
	if (c == '`')
		return "a backquote";
	if (c == '\\')
		return "a backslash";
	if (c == '$' || c == '%')
		return "a udev substitution character ('$' or '%')";
	if (!value)
		return NULL;
	/*
	 * A blank is plain text to udev's match (fnmatch): udev keeps the
	 * blanks of a virtio serial in ID_SERIAL ("$attr{serial}"), and a rule
	 * must name the string udev stores.
	 */
	if (c == ' ')
		return NULL;
	if (strchr("*?[]|", c))
		return "a glob character ('*', '?', '[', ']' or '|')";
	if (!isalnum(c) && !strchr("-_.:+,=/@~", c))
		return "a character not allowed in a udev match value";
	return NULL;
}

static const char *str_unsafe(const char *s, bool value)
{
	const unsigned char *p;
	const char *why;

	if (!s || !*s)
		return "nothing (it is empty)";
	if (strlen(s) > RULES_VALUE_MAX)
		return "too many bytes";
	for (p = (const unsigned char *)s; *p; p++)
		if ((why = byte_unsafe(*p, value)))
			return why;
	return NULL;
}

const char *rules_value_unsafe(const char *s)
{
	return str_unsafe(s, true);
}

const char *rules_text_unsafe(const char *s)
{
	return str_unsafe(s, false);
}

static bool name_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

bool rules_name_is_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > RULES_NAME_MAX)
		return false;
	if (!isalnum((unsigned char)s[0]) && s[0] != '_')
		return false;
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) || !name_char((unsigned char)s[i]))
			return false;
	return true;
}

bool rules_account_is_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 32 || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) || !name_char((unsigned char)s[i]))
			return false;
	return true;
}

bool rules_mode_normalize(const char *s, char out[8])
{
	size_t n = strlen(s), i;
	unsigned long v;

	if (n < 3 || n > 4)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '7')
			return false;
	v = strtoul(s, NULL, 8);
	snprintf(out, 8, "%04lo", v);
	return true;
}

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
		rc = pa_diag_add(
		    diags, origin, 0,
		    "ASM name '%s' is not valid: use 1 to %d of A-Z a-z 0-9 _ . -, "
		    "starting with a letter, a digit or _",
		    shown(name, b, sizeof(b)), RULES_NAME_MAX);
		if (rc < 0)
			return rc;
	}
	if (rules_spec_parse(device, &sel, &v) < 0) {
		bad = 1;
		rc = pa_diag_add(
		    diags, origin, 0,
		    "device '%s' of %s: expected a /dev path, wwn:ID, serial:ID or "
		    "partuuid:UUID",
		    shown(device, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	if (owner && !rules_account_is_valid(owner)) {
		bad = 1;
		rc = pa_diag_add(diags, origin, 0,
				 "owner '%s' of %s is not a valid user name",
				 shown(owner, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	if (group && !rules_account_is_valid(group)) {
		bad = 1;
		rc = pa_diag_add(diags, origin, 0,
				 "group '%s' of %s is not a valid group name",
				 shown(group, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	if (mode && !rules_mode_normalize(mode, normmode)) {
		bad = 1;
		rc = pa_diag_add(
		    diags, origin, 0,
		    "mode '%s' of %s: expected 3 or 4 octal digits, e.g. 0660",
		    shown(mode, b, sizeof(b)), name);
		if (rc < 0)
			return rc;
	}
	return bad ? -EINVAL : 0;
}

static char *dup_or_null(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
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
	e->name = dup_or_null(name, &fail);
	e->device = dup_or_null(device, &fail);
	e->owner = dup_or_null(owner, &fail);
	e->group = dup_or_null(group, &fail);
	e->mode = dup_or_null(mode ? normmode : NULL, &fail);
	e->origin = dup_or_null(origin, &fail);
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
		return pa_diag_add(diags, "--disk", 0, "'%s': expected NAME=DEVICE",
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
			rc = pa_diag_add(diags, origin, 0,
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
			rc = pa_diag_add(
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

/* ---- devices as udev sees them --------------------------------------- */

static bool is_kernel_part(const struct pa_dev *d)
{
	return d->kind == PA_KIND_PART && !d->dm_uuid;
}

/* ID_SERIAL on @d: a kernel partition inherits its disk's (60-persistent-storage). */
static const char *udev_serial(const struct pa_dev *d)
{
	if (d->id_serial)
		return d->id_serial;
	if (is_kernel_part(d) && d->disk)
		return d->disk->id_serial;
	return NULL;
}

static const char *udev_wwn(const struct pa_dev *d)
{
	if (d->id_wwn)
		return d->id_wwn;
	if (is_kernel_part(d) && d->disk)
		return d->disk->id_wwn;
	return NULL;
}

/*
 * ID_WWN_WITH_EXTENSION, when it says more than ID_WWN.  An NAA-6 WWN is
 * 128 bits; ID_WWN holds only the first 64, which arrays often share between
 * all their LUNs (the LUN is in the extension), so a rule on ID_WWN alone
 * would name every LUN of the array.
 */
static const char *udev_wwn_ext_raw(const struct pa_dev *d)
{
	if (d->id_wwn_ext)
		return d->id_wwn_ext;
	if (is_kernel_part(d) && d->disk)
		return d->disk->id_wwn_ext;
	return NULL;
}

static const char *udev_wwn_ext(const struct pa_dev *d)
{
	const char *w = udev_wwn(d), *x = udev_wwn_ext_raw(d);

	return x && (!w || strcmp(x, w) != 0) ? x : NULL;
}

static const char *rule_prop(const struct rules_rule *r)
{
	return r->match == RULES_MATCH_WWN && r->wwn_ext ? "ID_WWN_WITH_EXTENSION"
							 : match_prop(r->match);
}

/* "36001405..." of "mpath-36001405..." or "part1-mpath-36001405..." */
static const char *mpath_wwid(const struct pa_dev *d)
{
	const char *p;

	if (!d->dm_uuid)
		return NULL;
	if (strncmp(d->dm_uuid, "mpath-", 6) == 0)
		return d->dm_uuid + 6;
	p = strstr(d->dm_uuid, "-mpath-");
	return p && strncmp(d->dm_uuid, "part", 4) == 0 ? p + 7 : NULL;
}

static bool wwn_eq(const char *have, const char *want)
{
	if (!have)
		return false;
	if (strcasecmp(have, want) == 0)
		return true;
	/* "0x5000c500a1b2c3d4" and "5000c500a1b2c3d4" name the same WWN */
	if (strncasecmp(have, "0x", 2) == 0 && strcasecmp(have + 2, want) == 0)
		return true;
	return strncasecmp(want, "0x", 2) == 0 && strcasecmp(have, want + 2) == 0;
}

static bool whole_has(const struct pa_dev *d, enum rules_sel sel, const char *v)
{
	if (d->kind == PA_KIND_PART || d->kernel_missing)
		return false;
	if (sel == RULES_SEL_WWN)
		return wwn_eq(d->id_wwn, v) || wwn_eq(d->wwn, v) ||
		       (d->kind == PA_KIND_MPATH && wwn_eq(mpath_wwid(d), v));
	return (d->id_serial && strcmp(d->id_serial, v) == 0) ||
	       (d->serial && strcmp(d->serial, v) == 0);
}

/* Partition @partno of whole device @w: a kernel partition or a kpartx map. */
static struct pa_dev *child_part(const struct pa_devlist *l, const struct pa_dev *w,
				 unsigned int partno)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i]->kind == PA_KIND_PART && l->v[i]->disk == w &&
		    l->v[i]->partno == partno && !l->v[i]->kernel_missing)
			return l->v[i];
	return NULL;
}

/* Collect distinct candidates; paths become their maps. */
static void cand_add(struct pa_dev **c, size_t *n, struct pa_dev *d)
{
	size_t i;

	if (d->is_path && d->map)
		d = d->map;
	for (i = 0; i < *n; i++)
		if (c[i] == d)
			return;
	if (*n < 2)
		c[*n] = d;
	(*n)++;
}

static size_t find_wholes(const struct pa_devlist *l, enum rules_sel sel, const char *v,
			  struct pa_dev **c)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		if (whole_has(l->v[i], sel, v))
			cand_add(c, &n, l->v[i]);
	return n;
}

int rules_spec_find(const struct pa_devlist *l, enum rules_sel sel, const char *value,
		    struct pa_dev **out, struct pa_dev **other)
{
	struct pa_dev *c[2] = {NULL, NULL};
	size_t n = 0, i;

	*out = *other = NULL;
	if (sel == RULES_SEL_PARTUUID) {
		for (i = 0; i < l->n; i++) {
			struct pa_dev *p = l->v[i];

			if (!is_kernel_part(p) || !p->part_uuid || p->kernel_missing ||
			    strcasecmp(p->part_uuid, value) != 0)
				continue;
			if (p->is_path && p->map) {
				/* the kernel read the table of a path: use the map's
				 * partition */
				struct pa_dev *k = child_part(l, p->map, p->partno);

				if (k)
					p = k;
			}
			cand_add(c, &n, p);
		}
	} else if (sel == RULES_SEL_WWN || sel == RULES_SEL_SERIAL) {
		n = find_wholes(l, sel, value, c);
		if (n == 0) {
			/* "ID-partN", as in the /dev/disk/by-id link names */
			const char *s = strstr(value, "-part");
			const char *last = NULL;
			char *base;

			while (s) {
				last = s;
				s = strstr(s + 1, "-part");
			}
			if (last && last[5] &&
			    strspn(last + 5, "0123456789") == strlen(last + 5)) {
				unsigned int partno =
				    (unsigned int)strtoul(last + 5, NULL, 10);
				struct pa_dev *w[2] = {NULL, NULL};
				size_t nw;

				base = strndup(value, (size_t)(last - value));
				if (!base)
					return -ENOMEM;
				nw = find_wholes(l, sel, base, w);
				free(base);
				for (i = 0; i < nw && i < 2; i++) {
					struct pa_dev *p = child_part(l, w[i], partno);

					if (p)
						cand_add(c, &n, p);
				}
			}
		}
	} else {
		return -EINVAL;
	}
	if (n == 0)
		return -ENODEV;
	*out = c[0];
	if (n > 1) {
		*other = c[1];
		return -EEXIST;
	}
	return 0;
}

/* ---- rules ------------------------------------------------------------ */

const char *rules_size_words(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned int u = 0;
	uint64_t whole, rem, tenths;

	while (u < 6 && bytes >> (10 * (u + 1)))
		u++;
	if (u == 0) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	whole = bytes >> (10 * u);
	rem = bytes & ((1ull << (10 * u)) - 1);
	if (rem == 0) {
		snprintf(buf, len, "%" PRIu64 " %s", whole, unit[u]);
		return buf;
	}
	/* rounded down: "9.9 GiB" is never more than the device has; rem < 2^60 */
	tenths = (rem * 10) >> (10 * u);
	snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " %s", whole, tenths, unit[u]);
	return buf;
}

/* What to tell an admin whose disk has no ID udev could match. */
static const char *no_id_hint(const struct pa_dev *d)
{
	const struct pa_dev *w = is_kernel_part(d) && d->disk ? d->disk : d;
	const char *model = w->model ? w->model : "";

	if (w->kind == PA_KIND_LOOP)
		return "a loop device has no serial number or WWN: put a GPT table on it "
		       "and "
		       "name the partition (matched by its PARTUUID)";
	if (strncmp(w->name, "vd", 2) == 0)
		return "virtio disks need a serial number (qemu -device "
		       "virtio-blk,serial=...; "
		       "libvirt <serial>), or use a GPT partition (PARTUUID)";
	if (strcasestr(model, "vmware") || strcasestr(model, "virtual"))
		return "on VMware set disk.EnableUUID=TRUE in the VM's configuration, or "
		       "use a "
		       "GPT partition (PARTUUID)";
	return "virtio disks need a serial number, VMware disks need "
	       "disk.EnableUUID=TRUE; "
	       "or use a GPT partition (PARTUUID)";
}

static int refuse(struct pa_diags *diags, const struct pa_dev *d, int err,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int refuse(struct pa_diags *diags, const struct pa_dev *d, int err,
		  const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	rc = pa_diag_add(diags, d->path, 0, "%s", msg);
	free(msg);
	return rc < 0 ? rc : -err;
}

static const char *map_label(const struct pa_dev *map)
{
	return map->dm_name ? map->dm_name : map->name;
}

/* The comment: what the device is, in words.  Fails on an unsafe hardware string. */
static int describe(const struct pa_dev *d, enum rules_match m, char **out,
		    struct pa_diags *diags)
{
	const struct pa_dev *w = d->disk ? d->disk : d;
	const char *model = w->model ? w->model : d->model;
	const char *wwn = udev_wwn_ext(d) ? udev_wwn_ext(d)
			  : udev_wwn(d)	  ? udev_wwn(d)
					  : d->wwn;
	const char *wwid = mpath_wwid(d);
	const char *serial = m == RULES_MATCH_SERIAL ? udev_serial(d) : NULL;
	const char *why;
	char sz[32], wsz[32], what[256];
	bool kpart = is_kernel_part(d);

	if (model && (why = rules_text_unsafe(model)))
		return refuse(
		    diags, d, EILSEQ,
		    "the model name the hardware reports contains %s; such a string is "
		    "never written to a rules file",
		    why);
	if (wwn && !wwid && (why = rules_text_unsafe(wwn)))
		return refuse(
		    diags, d, EILSEQ,
		    "the WWN the hardware reports contains %s; such a string is never "
		    "written to a rules file",
		    why);
	if (wwid && (why = rules_value_unsafe(wwid)))
		return refuse(
		    diags, d, EILSEQ,
		    "the multipath WWID contains %s; such a string is never written to "
		    "a rules file",
		    why);
	rules_size_words(d->size, sz, sizeof(sz));
	rules_size_words(w->size, wsz, sizeof(wsz));
	if (d->kind == PA_KIND_PART && d->dm_uuid)
		snprintf(what, sizeof(what), "partition %u (%s) of a multipath map (%s)",
			 d->partno, sz, wsz);
	else if (d->kind == PA_KIND_MPATH)
		snprintf(what, sizeof(what), "multipath map (%s)", sz);
	else if (d->dm_uuid)
		snprintf(what, sizeof(what), "device-mapper device (%s)", sz);
	else if (kpart && model)
		snprintf(what, sizeof(what), "partition %u (%s) of %s (%s)", d->partno,
			 sz, model, wsz);
	else if (kpart)
		snprintf(what, sizeof(what), "partition %u (%s) of a %s %s", d->partno,
			 sz, wsz, w->kind == PA_KIND_LOOP ? "loop device" : "disk");
	else if (model)
		snprintf(what, sizeof(what), "whole disk %s (%s)", model, sz);
	else
		snprintf(what, sizeof(what), "whole %s disk", sz);

	if (asprintf(out, "%s%s%s%s%s%s%s", what, wwid ? ", WWID " : "", wwid ? wwid : "",
		     !wwid && wwn ? ", WWN " : "", !wwid && wwn ? wwn : "",
		     serial ? ", serial " : "", serial ? serial : "") < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Pick the match for @d and its value; 0 or a refusal. */
static int choose(const struct pa_dev *d, enum rules_match *m, const char **value,
		  enum rules_devtype *devtype, unsigned int *partn, bool *ext,
		  struct pa_diags *diags)
{
	const char *serial = udev_serial(d), *wwn_ext = udev_wwn_ext(d);
	const char *wwn = wwn_ext ? wwn_ext : udev_wwn(d);
	const char *asked = rules_match_name(*m);

	*ext = wwn_ext != NULL;

	*partn = 0;
	if (d->is_path && d->map) {
		if (d->kind == PA_KIND_PART)
			return refuse(
			    diags, d, EINVAL,
			    "is partition %u of a path of multipath map %s: name the "
			    "map's partition (its kpartx device) instead",
			    d->partno, map_label(d->map));
		return refuse(
		    diags, d, EINVAL,
		    "is a path of multipath map %s: name the map (/dev/mapper/%s) or "
		    "its partition instead; a rule on a path breaks when the path "
		    "changes",
		    map_label(d->map), map_label(d->map));
	}
	if (is_kernel_part(d)) {
		bool gpt =
		    d->part_uuid && (d->part_scheme ? strcmp(d->part_scheme, "gpt") == 0
						    : strlen(d->part_uuid) == 36);

		*devtype = RULES_DEVTYPE_PARTITION;
		if (*m == RULES_MATCH_AUTO)
			*m = gpt      ? RULES_MATCH_PARTUUID
			     : wwn    ? RULES_MATCH_WWN
			     : serial ? RULES_MATCH_SERIAL
				      : RULES_MATCH_AUTO;
		switch (*m) {
		case RULES_MATCH_AUTO:
			return refuse(
			    diags, d, ENODATA,
			    "no usable ID: no GPT partition UUID, and udev knows no WWN "
			    "or serial number of its disk (%s)",
			    no_id_hint(d));
		case RULES_MATCH_PARTUUID:
			if (!d->part_uuid)
				return refuse(
				    diags, d, ENODATA,
				    "--match partuuid: the partition has no PARTUUID "
				    "(ID_PART_ENTRY_UUID)");
			*value = d->part_uuid;
			return 0;
		case RULES_MATCH_WWN:
		case RULES_MATCH_SERIAL:
			*value = *m == RULES_MATCH_WWN ? wwn : serial;
			if (!*value)
				return refuse(
				    diags, d, ENODATA,
				    "--match %s: udev knows no %s of its disk (%s)",
				    asked, match_prop(*m), no_id_hint(d));
			if (!d->partno)
				return refuse(
				    diags, d, EINVAL,
				    "--match %s: the partition number is not known",
				    asked);
			*partn = d->partno;
			return 0;
		case RULES_MATCH_DMUUID:
			return refuse(diags, d, EINVAL,
				      "--match dm-uuid: not a device-mapper device");
		}
	}
	if (d->dm_uuid) {
		*devtype = RULES_DEVTYPE_ANY;
		if (d->kind == PA_KIND_MPATH && d->nparts)
			return refuse(
			    diags, d, EINVAL,
			    "multipath map %s holds %u partition(s): name a partition, "
			    "not the whole map",
			    map_label(d), d->nparts);
		if (*m != RULES_MATCH_AUTO && *m != RULES_MATCH_DMUUID)
			return refuse(
			    diags, d, EINVAL,
			    "--match %s cannot name a device-mapper device: udev "
			    "matches it by DM_UUID (--match dm-uuid or auto)",
			    asked);
		*m = RULES_MATCH_DMUUID;
		*value = d->dm_uuid;
		return 0;
	}
	if (d->kind == PA_KIND_MD)
		return refuse(
		    diags, d, ENODATA,
		    "no usable ID: an md RAID device; give ASM the member disks "
		    "instead (ASM mirrors itself)");
	if (d->kind == PA_KIND_DM || d->kind == PA_KIND_LVM || d->kind == PA_KIND_CRYPT)
		return refuse(diags, d, ENODATA,
			      "no usable ID: a device-mapper device without a "
			      "DM UUID");
	if (d->kind == PA_KIND_PART)
		return refuse(diags, d, ENODATA,
			      "no usable ID: an unknown kind of partition");

	/* a whole disk or loop device */
	*devtype = RULES_DEVTYPE_DISK;
	if (d->nparts || d->pttype)
		return refuse(
		    diags, d, EINVAL,
		    "holds a%s%s partition table: name a partition, not the whole "
		    "disk (ASM would overwrite the table)",
		    d->pttype ? " " : "", d->pttype ? d->pttype : "");
	if (*m == RULES_MATCH_AUTO)
		*m = wwn      ? RULES_MATCH_WWN
		     : serial ? RULES_MATCH_SERIAL
			      : RULES_MATCH_AUTO;
	switch (*m) {
	case RULES_MATCH_AUTO:
		return refuse(diags, d, ENODATA,
			      "no usable ID: udev knows no WWN or serial "
			      "number of this disk (%s)",
			      no_id_hint(d));
	case RULES_MATCH_PARTUUID:
		return refuse(diags, d, EINVAL,
			      "--match partuuid: a whole disk has no partition UUID");
	case RULES_MATCH_DMUUID:
		return refuse(diags, d, EINVAL,
			      "--match dm-uuid: not a device-mapper device");
	case RULES_MATCH_WWN:
	case RULES_MATCH_SERIAL:
		*value = *m == RULES_MATCH_WWN ? wwn : serial;
		if (!*value)
			return refuse(diags, d, ENODATA,
				      "--match %s: udev knows no %s of this disk (%s)",
				      asked, match_prop(*m), no_id_hint(d));
		return 0;
	}
	return -EINVAL;
}

static void rule_free(struct rules_rule *r)
{
	free(r->name);
	free(r->owner);
	free(r->group);
	free(r->mode);
	free(r->value);
	free(r->comment);
}

int rules_set_add(struct rules_set *s, const struct pa_dev *d, enum rules_match m,
		  const char *name, const char *owner, const char *group,
		  const char *mode, struct pa_diags *diags)
{
	struct rules_rule r;
	const char *value = NULL, *why;
	bool fail = false;
	int rc;

	memset(&r, 0, sizeof(r));
	if (marker_type_is_move(d->part_type))
		return refuse(diags, d, EBUSY,
			      "its disk records an unfinished data move (partalign fix "
			      "--move-data): finish it with 'partalign resume %s' first",
			      d->disk ? d->disk->path : d->path);
	rc = choose(d, &m, &value, &r.devtype, &r.partn, &r.wwn_ext, diags);
	if (rc < 0)
		return rc;
	if ((why = rules_value_unsafe(value))) {
		const char *what = m == RULES_MATCH_SERIAL   ? "serial number (ID_SERIAL)"
				   : m == RULES_MATCH_WWN    ? "WWN (ID_WWN)"
				   : m == RULES_MATCH_DMUUID ? "DM UUID"
							     : "partition UUID";

		return refuse(
		    diags, d, EILSEQ,
		    "the %s udev reports for this device contains %s; such a string is "
		    "never written to a rules file (it could inject a rule)",
		    what, why);
	}
	rc = describe(d, m, &r.comment, diags);
	if (rc < 0)
		return rc;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct rules_rule *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			free(r.comment);
			return -ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	r.match = m;
	r.dev = d;
	r.name = dup_or_null(name, &fail);
	r.owner = dup_or_null(owner, &fail);
	r.group = dup_or_null(group, &fail);
	r.mode = dup_or_null(mode, &fail);
	r.value = dup_or_null(value, &fail);
	if (fail) {
		rule_free(&r);
		return -ENOMEM;
	}
	s->v[s->n++] = r;
	return 0;
}

static bool rule_matches_dev(const struct rules_rule *r, const struct pa_dev *x)
{
	bool kpart = is_kernel_part(x);
	const char *v = NULL;

	if (x->kernel_missing)
		return false;
	if (r->devtype == RULES_DEVTYPE_PARTITION && !kpart)
		return false;
	if (r->devtype == RULES_DEVTYPE_DISK && kpart)
		return false;
	if (r->partn && x->partno != r->partn)
		return false;
	switch (r->match) {
	case RULES_MATCH_PARTUUID:
		v = kpart ? x->part_uuid : NULL;
		break;
	case RULES_MATCH_SERIAL:
		v = udev_serial(x);
		break;
	case RULES_MATCH_WWN:
		v = r->wwn_ext ? udev_wwn_ext_raw(x) : udev_wwn(x);
		break;
	case RULES_MATCH_DMUUID:
		v = x->dm_uuid;
		break;
	case RULES_MATCH_AUTO:
		break;
	}
	return v && strcmp(v, r->value) == 0;
}

size_t rules_rule_matches(const struct pa_devlist *l, const struct rules_rule *r,
			  const struct pa_dev **other)
{
	size_t i, n = 0;

	*other = NULL;
	for (i = 0; i < l->n; i++) {
		if (!rule_matches_dev(r, l->v[i]))
			continue;
		n++;
		if (l->v[i] != r->dev && !*other)
			*other = l->v[i];
	}
	return n;
}

int rules_set_check(const struct rules_set *s, const struct pa_devlist *l,
		    struct pa_diags *diags)
{
	size_t i, j;
	int bad = 0, rc;

	for (i = 0; i < s->n; i++) {
		const struct rules_rule *r = &s->v[i];
		const struct pa_dev *other;

		for (j = 0; j < i; j++)
			if (s->v[j].dev == r->dev) {
				bad = 1;
				rc = pa_diag_add(diags, r->dev->path, 0,
						 "two names for one device: %s and %s",
						 s->v[j].name, r->name);
				if (rc < 0)
					return rc;
			}
		rules_rule_matches(l, r, &other);
		if (other) {
			char part[32] = "";

			if (r->partn)
				snprintf(part, sizeof(part), " with partition %u",
					 r->partn);
			bad = 1;
			rc = pa_diag_add(
			    diags, r->dev->path, 0,
			    "%s %s%s is not unique: %s has it too (a cloned VM disk, "
			    "or a disk seen through two paths without multipath); a rule "
			    "for %s would name both",
			    rule_prop(r), r->value, part, other->path, r->name);
			if (rc < 0)
				return rc;
		}
	}
	return bad ? -EEXIST : 0;
}

void rules_set_free(struct rules_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		rule_free(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

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
		"needs.\n"
		"# Written by partalign rules from the devices it found.  Do not edit: "
		"change\n"
		"# the map and run partalign rules again.\n",
		RULES_LINK_DIR);
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

		if (strncmp(q, name, nl) == 0 && !name_char((unsigned char)q[nl]) &&
		    (p == line || !name_char((unsigned char)p[-1])))
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

		while (name_char((unsigned char)q[len]))
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
