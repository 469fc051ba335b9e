/*
 * plan and fix, disk after disk (fix-run.c).
 */
#ifndef PARTALIGN_CLI_FIX_RUN_H
#define PARTALIGN_CLI_FIX_RUN_H

#include <stddef.h>

#include "cli/fix.h"

/*
 * Plan (o->fix false) or fix each of the @n @devices in turn, as the
 * options say, and print the table.  Returns the exit bits, OR-ed.
 */
int fix_run(struct fix_opts *o, char *const *devices, size_t n);

#endif
