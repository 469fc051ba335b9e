/*
 * The configuration of `partalign provision`: one Oracle ASM disk a line,
 * "NAME SELECTOR [owner=U] [group=G] [mode=M]", SELECTOR a /dev path,
 * wwn:ID, serial:ID or size:SIZE; global lines "owner U", "group G",
 * "mode M", "align SIZE", "rules FILE"; '#' comments.  Pure: parses text the
 * caller has read, with the tokenizer and the validators of the map parser
 * (core/rules.h).
 *
 * Ownership: a struct provconf owns every string of its disks; provconf_free()
 * releases them.  A disk's value points into its selector.
 */
#ifndef PARTALIGN_PROVCONF_H
#define PARTALIGN_PROVCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/align.h"
#include "core/diag.h"

/* GPT partition names hold 36 UTF-16 code units; fix --name enforces it too. */
#define PROVCONF_NAME_MAX 36
#define PROVCONF_LINE_MAX 1024
#define PROVCONF_FIELDS_MAX 8

enum provconf_sel {
	PROVCONF_SEL_PATH,
	PROVCONF_SEL_WWN,
	PROVCONF_SEL_SERIAL,
	PROVCONF_SEL_SIZE,
};

struct provconf_disk {
	char *name;
	char *selector; /* as written */
	enum provconf_sel sel;
	const char *value; /* into selector, after the prefix */
	uint64_t size;	   /* size: in bytes */
	char *owner;	   /* NULL: the global one */
	char *group;
	char mode[8]; /* "": the global one; else four octal digits */
	char *where;  /* "FILE:LINE" */
};

struct provconf {
	struct provconf_disk *v;
	size_t n, cap;
	char *owner, *group;   /* NULL: not given */
	char *align;	       /* as written, NULL: not given */
	char *rules;	       /* absolute file name, NULL: not given */
	char mode[8];	       /* "": not given */
	struct pa_grain grain; /* align, else PA_GRAIN_DEFAULT */
	/* the line of each global (0: not given yet), for "given twice" */
	size_t owner_line, group_line, mode_line, align_line, rules_line;
};

/*
 * Parse the configuration text @text (@len bytes, may hold NUL bytes) read
 * from @file into @c (zeroed by the caller).  Every bad line becomes one
 * diagnostic named "FILE:LINE" (a file without disks one named FILE).
 * Returns 0, -EINVAL (a diagnostic was added) or -ENOMEM.  @c holds the good
 * lines either way; free it with provconf_free().
 */
int provconf_parse(struct provconf *c, const char *text, size_t len, const char *file,
		   struct pa_diags *diags);

void provconf_free(struct provconf *c);

/* The owner, group and mode a disk's rule gets: its own, the global one, the default. */
const char *provconf_owner(const struct provconf *c, const struct provconf_disk *d);
const char *provconf_group(const struct provconf *c, const struct provconf_disk *d);
const char *provconf_mode(const struct provconf *c, const struct provconf_disk *d);

#endif
