/*
 * The table of plan and fix (fix-table.c): the columns -o selects, a table
 * of them, and the rows of one disk's plan and result.
 */
#ifndef PARTALIGN_CLI_FIX_TABLE_H
#define PARTALIGN_CLI_FIX_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "cli/fix.h"

/* -o LIST, else the defaults of @out's format, into @sel; -1 with a message. */
int fix_table_select(struct out_opts *out, int *sel, size_t *nsel);

/* A table named @name ("plan", "fix") of the columns @sel. */
struct libscols_table *fix_table_new(const struct out_opts *out, const char *name,
				     const int *sel, size_t nsel);

/*
 * The rows of disk @j: one per step of its plan (one without steps); on a
 * terminal, plan says on stderr why fix would refuse it.  0 or -ENOMEM.
 */
int fix_table_add(const struct fix_opts *o, struct libscols_table *tb, const int *sel,
		  size_t nsel, const struct fix_job *j);

/* Would fix turn disk @j's dos table into a GPT? */
bool fix_table_converts(const struct fix_job *j);

/*
 * A table's line below disk @j's rows when its dos table becomes GPT, and
 * what that means for a BIOS boot or another OS (stdout; nothing in the
 * other formats, whose LABEL says dos->gpt).
 */
void fix_table_label_note(const struct fix_opts *o, const struct fix_job *j);

/* --list-columns */
void fix_table_list_columns(void);

#endif
