/*
 * rules --from-asm, pure part (issue #34): the map of ASM names to devices
 * made from the disk headers the scan read (core/asm-audit.h).  Each disk
 * group member or provisioned disk is named by its ASMLib label when it has
 * one, else by its ASM disk name; a multipath path gives way to its map;
 * one ASM disk on two devices that are not a map and its paths is refused.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/asm-audit.h"
#include "core/rules.h"

bool rules_asm_wanted(const struct pa_dev *d, const struct pa_dev *const *only, size_t n)
{
	const struct pa_dev *w = d->disk ? d->disk : d;
	size_t i;

	if (!n)
		return true;
	for (i = 0; i < n; i++)
		if (only[i] == d || only[i] == w || only[i] == d->map ||
		    only[i] == w->map)
			return true;
	return false;
}

/* A member of a disk group, or a disk provisioned for one (ASMLib). */
static bool nameable(const struct pa_asm_row *r)
{
	const struct asm_hdr *h = r->h;

	if (h->kind == ASMHDR_LABEL)
		return true;
	return h->kind == ASMHDR_HEADER &&
	       (h->hdrsts == ASMHDR_ST_MEMBER || h->hdrsts == ASMHDR_ST_PROVISIONED);
}

/* The name of row @r's disk: its ASMLib label, else its ASM disk name. */
const char *rules_asm_name(const struct pa_asm_row *r, bool *label)
{
	*label = r->h->label[0] && rules_name_is_valid(r->h->label);
	if (*label)
		return r->h->label;
	return r->h->dskname[0] ? r->h->dskname : NULL;
}

/* How many wanted rows show the same ASM disk as @r (@r too). */
static size_t wanted_twins(const struct pa_asm_audit *a, const struct pa_asm_row *r,
			   const struct pa_dev *const *only, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < a->n; i++)
		k += (&a->v[i] == r || asm_audit_same_disk(&a->v[i], r)) &&
		     rules_asm_wanted(a->v[i].d, only, n);
	return k;
}

static bool is_duplicate(const struct pa_asm_row *r)
{
	unsigned int k;

	for (k = 0; k < r->why.n; k++)
		if (r->why.r[k].kind == PA_REASON_ASM_DUPLICATE)
			return true;
	return false;
}

int rules_map_from_asm(struct rules_map *m, const struct pa_asm_audit *a,
		       const struct pa_dev *const *only, size_t n, struct pa_diags *diags)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < a->n && rc != -ENOMEM; i++) {
		const struct pa_asm_row *r = &a->v[i];
		const char *name, *disk = r->h->dskname[0] ? r->h->dskname : r->h->label;
		char origin[200];
		bool label;

		if (!rules_asm_wanted(r->d, only, n) || !nameable(r))
			continue;
		if (is_duplicate(r) && r->use && r->use != r->d) {
			if (rules_asm_wanted(r->use, only, n))
				continue; /* the device ASM should see gets the rule */
			rc = diag_add(diags, r->shown, 0,
				      "ASM disk %s is also on %s: name %s, the one ASM "
				      "should use",
				      disk, r->others, r->use_path)
				 ?: -EEXIST;
			continue;
		}
		if (is_duplicate(r) && !r->use && wanted_twins(a, r, only, n) > 1) {
			rc = diag_add(
				 diags, r->shown, 0,
				 "ASM disk %s is also on %s: refusing to name one disk "
				 "twice; give the device ASM should use (rules "
				 "--from-asm DEVICE)",
				 disk, r->others)
				 ?: -EEXIST;
			continue;
		}
		name = rules_asm_name(r, &label);
		if (!name) {
			rc = diag_add(diags, r->shown, 0,
				      "its ASM header names no disk (no ASMLib label, no "
				      "disk name): give it a name with --disk NAME=%s",
				      r->shown)
				 ?: -ENODATA;
			continue;
		}
		snprintf(origin, sizeof(origin), "the ASM header of %s", r->shown);
		if (rules_map_add(m, name, r->shown, NULL, NULL, NULL, origin, diags) ==
		    -ENOMEM)
			rc = -ENOMEM;
	}
	return rc;
}
