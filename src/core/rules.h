/*
 * Oracle ASM udev rules: the map of ASM names to devices, the choice of the
 * udev key that names each device, the checks that keep a rule from matching
 * the wrong device (or none, or two), and the rules text itself.  Pure: works
 * on scanned struct pa_dev values and on strings the caller has read.
 *
 * Ownership: a rules_map owns its entries' strings; a rules_set owns its
 * rules' strings and borrows their devices (the pa_devlist must outlive it).
 * Strings returned by rules_text() and rules_diff() are the caller's to free().
 */
#ifndef PARTALIGN_RULES_H
#define PARTALIGN_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device.h"
#include "core/diag.h"

#define RULES_DEFAULT_OWNER "grid"
#define RULES_DEFAULT_GROUP "asmadmin"
#define RULES_DEFAULT_MODE "0660"
#define RULES_LINK_DIR "oracleasm"
#define RULES_DEFAULT_OUTPUT "/etc/udev/rules.d/99-oracle-asmdevices.rules"
/*
 * On every rule: udev's 60-block.rules watches block devices with inotify,
 * so each close of an ASM disk written by the database becomes a change event
 * that re-runs the rules (and briefly drops and re-creates the links).  ":="
 * keeps a later rules file from turning the watch back on.
 */
#define RULES_OPTIONS "nowatch"
#define RULES_NAME_MAX 64
#define RULES_VALUE_MAX 256

enum rules_match {
	RULES_MATCH_AUTO,
	RULES_MATCH_PARTUUID, /* ENV{ID_PART_ENTRY_UUID} */
	RULES_MATCH_SERIAL,   /* ENV{ID_SERIAL} (+ ENV{PARTN} for a partition) */
	RULES_MATCH_WWN,      /* ENV{ID_WWN} (+ ENV{PARTN} for a partition) */
	RULES_MATCH_DMUUID,   /* ENV{DM_UUID} */
};

/* "auto", "partuuid", "serial", "wwn", "dm-uuid" -> @m; 0 or -EINVAL. */
int rules_match_parse(const char *s, enum rules_match *m);
const char *rules_match_name(enum rules_match m);

/*
 * Strings that may go into a rules file.  A value inside a match ("==") must
 * not be able to end the string, start a substitution or act as a glob, so only
 * [A-Za-z0-9] and "-_.:+,=/@~" are allowed there.  Comment text may also hold
 * spaces and other printable ASCII, but never quotes, backslashes, '$', '%',
 * newlines or other control bytes.  Both return NULL when @s is safe, else a
 * static phrase naming the first offending byte ("a double quote").
 */
const char *rules_value_unsafe(const char *s);
const char *rules_text_unsafe(const char *s);

/* ASM names: 1..RULES_NAME_MAX of [A-Za-z0-9_.-], starting with a letter, digit or '_'.
 */
bool rules_name_is_valid(const char *s);
/* strdup(s), NULL for NULL; sets *fail when the copy fails. */
char *rules_strdup_opt(const char *s, bool *fail);
/* A byte allowed in an ASM disk name (the link below /dev/oracleasm). */
bool rules_name_char(int c);
/* User and group names (or numeric ids): [A-Za-z0-9_.-], not starting with '-'. */
bool rules_account_is_valid(const char *s);
/* An octal mode of 3 or 4 digits up to 07777, written back as four digits into @out. */
bool rules_mode_normalize(const char *s, char out[8]);

/*
 * The tokenizer of the line-based files (the map, provision's configuration):
 * split @line in place into fields separated by runs of bytes of @blanks; a
 * field starting with '#' ends the line (a comment).  Returns the number of
 * fields; when there are more than @max, returns @max + 1 with the first @max
 * in @field.
 */
size_t rules_fields_split(char *line, const char *blanks, char **field, size_t max);

/* How the user named a device. */
enum rules_sel {
	RULES_SEL_PATH,	    /* "/dev/sdb1", a by-id link */
	RULES_SEL_WWN,	    /* "wwn:0x5000c500a1b2c3d4[-partN]" */
	RULES_SEL_SERIAL,   /* "serial:XYZ[-partN]" */
	RULES_SEL_PARTUUID, /* "partuuid:..." */
};

/* Split @spec; *value points into @spec.  0 or -EINVAL. */
int rules_spec_parse(const char *spec, enum rules_sel *sel, const char **value);

/*
 * Find the device a wwn:, serial: or partuuid: selector names in @l.  A
 * multipath path (or a partition of one) resolves to its map (or the map's
 * partition).  Returns 0 with *out set, -ENODEV (nothing has it) or -EEXIST
 * (several devices have it: *out and *other are two of them).
 */
int rules_spec_find(const struct pa_devlist *l, enum rules_sel sel, const char *value,
		    struct pa_dev **out, struct pa_dev **other);

/* One line of the map: ASM name -> device. */
struct rules_entry {
	char *name;
	char *device; /* as given: a path, or wwn:, serial:, partuuid: */
	char *owner;  /* NULL: the command's default */
	char *group;
	char *mode;   /* normalized to four octal digits */
	char *origin; /* "FILE:LINE" or "--disk", for messages */
};

struct rules_map {
	struct rules_entry *v;
	size_t n;
	size_t cap;
};

/*
 * Add one entry after checking its name, device syntax, owner, group and
 * mode; a bad entry becomes a diagnostic naming @origin and -EINVAL.
 * -ENOMEM otherwise fatal.
 */
int rules_map_add(struct rules_map *m, const char *name, const char *device,
		  const char *owner, const char *group, const char *mode,
		  const char *origin, struct pa_diags *diags);

/* "NAME=DEVICE" of --disk. */
int rules_map_add_arg(struct rules_map *m, const char *arg, struct pa_diags *diags);

/*
 * Parse a map file's text: "name device [owner group mode]" per line, '#'
 * starts a comment at the start of a line or after blanks.  Every bad line
 * is a diagnostic "FILE:LINE"; returns 0, -EINVAL (some line bad) or -ENOMEM.
 */
int rules_map_parse(struct rules_map *m, const char *text, const char *file,
		    struct pa_diags *diags);

/* One name twice (names compared without case: ASM ignores it); -EINVAL with diagnostics.
 */
int rules_map_check_names(const struct rules_map *m, struct pa_diags *diags);

void rules_map_free(struct rules_map *m);

enum rules_devtype {
	RULES_DEVTYPE_ANY,	 /* device-mapper: DM_UUID says it all */
	RULES_DEVTYPE_DISK,	 /* ENV{DEVTYPE}=="disk" */
	RULES_DEVTYPE_PARTITION, /* ENV{DEVTYPE}=="partition" */
};

struct rules_rule {
	char *name;
	char *owner;
	char *group;
	char *mode;
	enum rules_match match; /* never AUTO */
	bool wwn_ext;		/* the WWN key is ID_WWN_WITH_EXTENSION */
	char *value;		/* the ID matched */
	enum rules_devtype devtype;
	unsigned int partn; /* ENV{PARTN}, when the key is the disk's; 0 none */
	char *comment;	    /* what the device is, in words */
	const struct pa_dev *dev;
};

/*
 * How the rules' map was given, for the file's header, which says how to
 * change the file (borrowed strings; all empty: --disk).
 */
struct rules_origin {
	const char *map;    /* the first --map FILE (its real path), or NULL */
	size_t nmaps;	    /* how many --map were given */
	bool disks;	    /* --disk NAME=DEVICE was given too */
	const char *config; /* provision: its configuration's path, or NULL */
	bool asm_headers;   /* --from-asm: the Oracle ASM disk headers */
};

struct rules_set {
	struct rules_rule *v;
	size_t n;
	size_t cap;
	struct rules_origin origin; /* for rules_text()'s header */
};

/* The udev key of a match: "ENV{ID_SERIAL}". */
const char *rules_match_key(enum rules_match m);
/* The key of a rule: as rules_match_key(), or ENV{ID_WWN_WITH_EXTENSION}. */
const char *rules_rule_key(const struct rules_rule *r);

/*
 * The rule naming @d as @name.  Refuses (a diagnostic naming @d and the cause,
 * then -errno) a multipath path, a disk holding partitions, a device without
 * the requested (or any usable) ID (-ENODATA), a match key that cannot work
 * for this kind of device (-EINVAL), and any hardware string that would be
 * written but is unsafe (-EILSEQ).  On success the rule is appended to @s.
 */
int rules_set_add(struct rules_set *s, const struct pa_dev *d, enum rules_match m,
		  const char *name, const char *owner, const char *group,
		  const char *mode, struct pa_diags *diags);

/*
 * Number of devices of @l that @r matches as udev would see them (a
 * partition inherits its disk's ID_SERIAL and ID_WWN); *other is set to one
 * that is not r->dev, or NULL.
 */
size_t rules_rule_matches(const struct pa_devlist *l, const struct rules_rule *r,
			  const struct pa_dev **other);

/*
 * Checks across the set: two names for one device, and rules that would
 * match more than their own device (cloned VM disks, unmanaged second paths).
 * -EEXIST with diagnostics.
 */
int rules_set_check(const struct rules_set *s, const struct pa_devlist *l,
		    struct pa_diags *diags);

void rules_set_free(struct rules_set *s);

/*
 * The rules file: a header saying how the file was made (s->origin) and so
 * how to change it, then one commented rule per name, sorted by name.
 */
char *rules_text(const struct rules_set *s);

/*
 * A unified diff (3 lines of context) from @old to @new, "" when equal, NULL
 * on ENOMEM.  @old may be NULL (no file yet).
 */
char *rules_diff(const char *old, const char *new, const char *old_label,
		 const char *new_label);

/* A line of another rules file that claims a link or device of the set. */
struct rules_claim {
	size_t line; /* 1-based, first line of a continued rule */
	size_t rule; /* index in the set */
	bool link;   /* claims the link name (else: matches the same ID) */
};

/*
 * Lines of rules file text @text (comments skipped, continuation lines
 * joined) that claim "oracleasm/NAME" or match the ID of a rule of @s.
 * *out is malloc'd (free it); returns 0 or -ENOMEM.
 */
int rules_find_claims(const char *text, const struct rules_set *s,
		      struct rules_claim **out, size_t *n);

/* The link names ("oracleasm/NAME") an existing rules text creates; *names malloc'd. */
int rules_text_links(const char *text, char ***names, size_t *n);
void rules_strv_free(char **v, size_t n);

/* Whether passwd/group file text has an entry @name (first field). */
bool rules_dbfile_has(const char *text, const char *name);

/*
 * rules --from-asm (core/rules-asm.c): the entries of @m made from the ASM
 * headers of audit @a, for the devices of @only (and what lies on them; all
 * when @n is 0): each member or provisioned disk named by its ASMLib label,
 * else its ASM disk name, its device by path; a multipath path gives way to
 * its map.  One ASM disk on several such devices, or a disk without a name,
 * is a diagnostic.  0, -EEXIST / -ENODATA (diagnostics) or -ENOMEM.
 */
struct pa_asm_audit;
struct pa_asm_row;
int rules_map_from_asm(struct rules_map *m, const struct pa_asm_audit *a,
		       const struct pa_dev *const *only, size_t n,
		       struct pa_diags *diags);
/* Whether @d is, or lies on (a partition of, a path of), one of the @n
   devices @only; true when @n is 0. */
bool rules_asm_wanted(const struct pa_dev *d, const struct pa_dev *const *only, size_t n);
/* The name --from-asm gives row @r's disk (*label: it is the ASMLib label). */
const char *rules_asm_name(const struct pa_asm_row *r, bool *label);

/* "10 GiB", "9.5 GiB", "512 B": exact when whole, else one decimal. */
const char *rules_size_words(uint64_t bytes, char *buf, size_t len);

#endif
