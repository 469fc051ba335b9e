/*
 * check's Oracle ASM part (check-asm.c): the header blocks read and audited
 * (--asm, --probe), the ASM columns, and the rows of the per-group view.
 */
#ifndef PARTALIGN_CLI_CHECK_ASM_H
#define PARTALIGN_CLI_CHECK_ASM_H

#include <libsmartcols.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "core/asm-audit.h"
#include "core/device.h"
#include "core/diag.h"

/* A row check prints; its verdicts and reason are computed as it is printed. */
struct check_pick {
	const struct pa_dev *d;
	bool checked;
};

/*
 * The ASM columns, in cmd-check.c's one column table from index @first on:
 * ASM-GROUP, ASM-DISK, ASM-STATUS, ASM-AU, ASM-SECSIZE, ASM-LABEL (the JSON
 * keys asm-group...; null where there is no header); check_asm_cell()
 * fills them by their place (0 to CHECK_ASM_NCOLS - 1).
 */
#define CHECK_ASM_NCOLS 6
#define CHECK_ASM_COLUMNS(first)                                                         \
	[(first)] = {"ASM-GROUP", 0.1, 0, OUT_JSON_STRING,                               \
		     "--asm, --probe: Oracle ASM disk group"},                           \
	[(first) + 1] = {"ASM-DISK", 0.1, 0, OUT_JSON_STRING,                            \
			 "--asm, --probe: ASM disk name"},                               \
	[(first) + 2] = {"ASM-STATUS", 6, 0, OUT_JSON_STRING,                            \
			 "--asm, --probe: MEMBER, FORMER, PROVISIONED... or damaged"},   \
	[(first) + 3] = {"ASM-AU", 6, SCOLS_FL_RIGHT, OUT_JSON_NUMBER,                   \
			 "--asm, --probe: allocation unit size, bytes"},                 \
	[(first) + 4] = {"ASM-SECSIZE", 4, SCOLS_FL_RIGHT, OUT_JSON_NUMBER,              \
			 "--asm, --probe: the sector size in the ASM header"},           \
	[(first) + 5] = {"ASM-LABEL", 0.1, 0, OUT_JSON_STRING,                           \
			 "--asm, --probe: ASMLib label"}
/* The ASM columns' indexes, for a list of defaults. */
#define CHECK_ASM_KEYS(first)                                                            \
	(first), (first) + 1, (first) + 2, (first) + 3, (first) + 4, (first) + 5

/*
 * --asm: its default columns (unless -o gives others; +LIST adds to them),
 * set as o->columns by name: ASM-GROUP, ASM-DISK, ASM-STATUS, NAME, TYPE,
 * START, LOG-SEC, ASM-SECSIZE, ASM-AU, ASM-LABEL, POLICY, REASON (on a
 * terminal ASM-GROUP, ASM-DISK, ASM-STATUS, NAME, START, POLICY, REASON).
 * 0, or -1 with a message.
 */
int check_asm_default_columns(struct out_opts *o);

/*
 * The findings of @r (NULL: none) as the clauses of a reason: their text in
 * *text (valid until the next call), their places in @spans
 * (PA_REASON_SPANS_MAX); returns their number.
 */
unsigned int check_asm_spans(const struct pa_asm_row *r, const char **text,
			     struct pa_reason_span *spans);

/* A multipath path's reason @buf: the findings of its header after it. */
void check_asm_path_reason(const struct pa_asm_row *r, char *buf, size_t len);

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
