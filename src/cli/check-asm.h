/*
 * check's Oracle ASM part (check-asm.c): the header blocks read and audited
 * (--asm, --probe), the ASM columns, and the rows of the per-group view.
 */
#ifndef PARTALIGN_CLI_CHECK_ASM_H
#define PARTALIGN_CLI_CHECK_ASM_H

#include <libsmartcols.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/asm-audit.h"
#include "core/device.h"
#include "core/diag.h"

/* A row check prints; its verdicts and reason are computed as it is printed. */
struct check_pick {
	const struct pa_dev *d;
	bool checked;
};

/*
 * The ASM header blocks of @l's devices (from the devices, or from the dump
 * below @root) and their audit into @a; what could not be read goes to
 * @diags.  0 or -errno.
 */
int check_asm_read(struct pa_devlist *l, const char *root, struct pa_asm_audit *a,
		   struct pa_diags *diags);

/*
 * --asm: the rows of the per-group view into *rows (replacing what was
 * there): every device with an ASM header or label, also a multipath path
 * or a disk holding partitions, named (or on a disk named) when @nnames,
 * ordered by group, disk number and the device to use first.
 */
int check_asm_select(const struct pa_devlist *l, const struct pa_asm_audit *a,
		     const char *root, char **names, int nnames, struct check_pick **rows,
		     size_t *nrows);

/*
 * Cell @i of ASM column @which (0 ASM-GROUP, 1 ASM-DISK, 2 ASM-STATUS, 3
 * ASM-AU, 4 ASM-SECSIZE, 5 ASM-LABEL) for the row @r (NULL: no header, the
 * cell stays null).
 */
int check_asm_cell(struct libscols_line *ln, size_t i, int which,
		   const struct pa_asm_row *r);

#endif
