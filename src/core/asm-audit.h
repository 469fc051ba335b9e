/*
 * Oracle ASM disk groups as their headers show them (issue #34): each device
 * that carries an ASM header or ASMLib label, its group, disk and status,
 * and the findings across devices -- a group mixing logical sector sizes, a
 * header whose sector size is not the kernel's, one ASM disk on several
 * block devices, a partition table over a member's header, a member off its
 * allocation unit, a backup header that disagrees, a truncated disk, a
 * damaged header -- as reasons (core/reason.h, verdict PA_RV_ASM) with
 * their exit bits.  Pure: works on a scanned device list whose asm_hdr the
 * scanner filled (src/scan/asm.c).
 *
 * Ownership: the audit owns its rows; their reasons point into the rows and
 * into the device list, which must outlive the audit.
 */
#ifndef PARTALIGN_ASM_AUDIT_H
#define PARTALIGN_ASM_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/asmhdr.h"
#include "core/device.h"
#include "core/reason.h"

#define ASM_AUDIT_NAMES 200

struct pa_asm_row {
	const struct pa_dev *d;
	const struct asm_hdr *h;  /* its first block's header or label */
	const char *status;	  /* "MEMBER", "PROVISIONED", "damaged"... */
	bool member;		  /* an intact header of a disk group member */
	unsigned int rank;	  /* which device ASM should see: lower is better */
	struct pa_reasons why;	  /* the findings, PA_REASONS_PLAIN */
	int exit;		  /* PA_EXIT_ASM and PA_EXIT_MISALIGNED bits */
	const struct pa_dev *use; /* one ASM disk on several devices: the one to use */
	/* words the reasons point to */
	char shown[160]; /* how it is named: "/dev/mapper/mpatha", "/dev/sdb" */
	char others[ASM_AUDIT_NAMES]; /* the other devices of the same ASM disk */
	char use_path[160];
	char sizes[2][ASM_AUDIT_NAMES]; /* the group's devices of each sector size */
	char words[160];		/* the fields that differ, or the damage */
};

struct pa_asm_audit {
	struct pa_asm_row *v; /* the devices with ASM found, in the list's order */
	size_t n;
};

/* The findings of every device of @l; 0 or -ENOMEM. */
int asm_audit_run(const struct pa_devlist *l, struct pa_asm_audit *a);
void asm_audit_free(struct pa_asm_audit *a);

/* The row of @d, or NULL when no ASM was found on it. */
const struct pa_asm_row *asm_audit_row(const struct pa_asm_audit *a,
				       const struct pa_dev *d);

/* The order of the per-group view: members by group and disk number, then the
   disks of no group; within one ASM disk the device to use first. */
int asm_audit_cmp(const struct pa_asm_row *x, const struct pa_asm_row *y);

/* Whether two rows show one ASM disk: the same group, disk number and name
   (or, without a header, the same ASMLib label). */
bool asm_audit_same_disk(const struct pa_asm_row *x, const struct pa_asm_row *y);

/*
 * The online way to move a misaligned member: a new disk partitioned on the
 * grain, then ASM's own rebalance, as the SQL a DBA runs ("ALTER DISKGROUP G
 * ADD DISK '<new path>' DROP DISK D REBALANCE POWER n;", the new path left
 * for the DBA to fill in).  -EINVAL unless @r is an intact member whose
 * group and disk names are plain SQL identifiers.
 */
#define ASM_AUDIT_POWER 4
int asm_audit_advice(const struct pa_asm_row *r, char *buf, size_t len);

/* The name check shows for @d (its dm name for a dm device). */
const char *asm_audit_devname(const struct pa_dev *d);

#endif
