/*
 * restore's look before its question (restore-table.c).
 */
#ifndef PARTALIGN_CLI_RESTORE_TABLE_H
#define PARTALIGN_CLI_RESTORE_TABLE_H

#include "core/plan.h"

/*
 * Print, for disk @path, the partitions of @now (the table on the disk)
 * beside those of @then (the table the restore writes), one row per
 * number, with a line first when the two labels differ.  0 or -errno.
 */
int restore_table_show(const char *path, const struct pa_table *now,
		       const struct pa_table *then);

#endif
