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
#include "core/movestate.h"
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

char *rules_strdup_opt(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
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

bool rules_name_char(int c)
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
		if (!isascii((unsigned char)s[i]) ||
		    !rules_name_char((unsigned char)s[i]))
			return false;
	return true;
}

bool rules_account_is_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > 32 || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) ||
		    !rules_name_char((unsigned char)s[i]))
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

/* ---- devices as udev sees them --------------------------------------- */

static bool is_kernel_part(const struct pa_dev *d)
{
	return d->kind == PA_KIND_PART && !d->dm_uuid;
}

/* A udev property of @d, or its disk's when a kernel partition has none. */
#define INHERITED(d, field)                                                              \
	((d)->field			  ? (d)->field                                   \
	 : is_kernel_part(d) && (d)->disk ? (d)->disk->field                             \
					  : NULL)

/* ID_SERIAL on @d: a kernel partition inherits its disk's (60-persistent-storage). */
static const char *udev_serial(const struct pa_dev *d)
{
	return INHERITED(d, id_serial);
}

static const char *udev_wwn(const struct pa_dev *d)
{
	return INHERITED(d, id_wwn);
}

/*
 * ID_WWN_WITH_EXTENSION, when it says more than ID_WWN.  An NAA-6 WWN is
 * 128 bits; ID_WWN holds only the first 64, which arrays often share between
 * all their LUNs (the LUN is in the extension), so a rule on ID_WWN alone
 * would name every LUN of the array.
 */
static const char *udev_wwn_ext_raw(const struct pa_dev *d)
{
	return INHERITED(d, id_wwn_ext);
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
	rc = diag_add(diags, d->path, 0, "%s", msg);
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
/* A kernel partition: its GPT PARTUUID, or its disk's WWN or serial and the
 * partition number. */
static int choose_part(const struct pa_dev *d, enum rules_match *m, const char **value,
		       enum rules_devtype *devtype, unsigned int *partn, const char *wwn,
		       const char *serial, struct pa_diags *diags)
{
	const char *asked = rules_match_name(*m);
	bool gpt = d->part_uuid && (d->part_scheme ? strcmp(d->part_scheme, "gpt") == 0
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
			return refuse(diags, d, ENODATA,
				      "--match partuuid: the partition has no PARTUUID "
				      "(ID_PART_ENTRY_UUID)");
		*value = d->part_uuid;
		return 0;
	case RULES_MATCH_WWN:
	case RULES_MATCH_SERIAL:
		*value = *m == RULES_MATCH_WWN ? wwn : serial;
		if (!*value)
			return refuse(diags, d, ENODATA,
				      "--match %s: udev knows no %s of its disk (%s)",
				      asked, match_prop(*m), no_id_hint(d));
		if (!d->partno)
			return refuse(diags, d, EINVAL,
				      "--match %s: the partition number is not known",
				      asked);
		*partn = d->partno;
		return 0;
	case RULES_MATCH_DMUUID:
		return refuse(diags, d, EINVAL,
			      "--match dm-uuid: not a device-mapper device");
	}
	return -EINVAL;
}

/* A device-mapper device (a multipath map, a kpartx partition): its DM_UUID. */
static int choose_dm(const struct pa_dev *d, enum rules_match *m, const char **value,
		     enum rules_devtype *devtype, struct pa_diags *diags)
{
	const char *asked = rules_match_name(*m);

	*devtype = RULES_DEVTYPE_ANY;
	if (d->kind == PA_KIND_MPATH && d->nparts)
		return refuse(diags, d, EINVAL,
			      "multipath map %s holds %u partition(s): name a partition, "
			      "not the whole map",
			      map_label(d), d->nparts);
	if (*m != RULES_MATCH_AUTO && *m != RULES_MATCH_DMUUID)
		return refuse(diags, d, EINVAL,
			      "--match %s cannot name a device-mapper device: udev "
			      "matches it by DM_UUID (--match dm-uuid or auto)",
			      asked);
	*m = RULES_MATCH_DMUUID;
	*value = d->dm_uuid;
	return 0;
}

/* A whole disk or loop device without a table: its WWN or serial. */
static int choose_disk(const struct pa_dev *d, enum rules_match *m, const char **value,
		       enum rules_devtype *devtype, const char *wwn, const char *serial,
		       struct pa_diags *diags)
{
	const char *asked = rules_match_name(*m);

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

static int choose(const struct pa_dev *d, enum rules_match *m, const char **value,
		  enum rules_devtype *devtype, unsigned int *partn, bool *ext,
		  struct pa_diags *diags)
{
	const char *serial = udev_serial(d), *wwn_ext = udev_wwn_ext(d);
	const char *wwn = wwn_ext ? wwn_ext : udev_wwn(d);

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
	if (is_kernel_part(d))
		return choose_part(d, m, value, devtype, partn, wwn, serial, diags);
	if (d->dm_uuid)
		return choose_dm(d, m, value, devtype, diags);
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

	return choose_disk(d, m, value, devtype, wwn, serial, diags);
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
	if (marker_type_is_move(d->part_type) ||
	    (d->disk && move_state_part(d->disk->move, d->partno)))
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
	r.name = rules_strdup_opt(name, &fail);
	r.owner = rules_strdup_opt(owner, &fail);
	r.group = rules_strdup_opt(group, &fail);
	r.mode = rules_strdup_opt(mode, &fail);
	r.value = rules_strdup_opt(value, &fail);
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
				rc = diag_add(diags, r->dev->path, 0,
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
			rc = diag_add(
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
