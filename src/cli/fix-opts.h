/*
 * The options of plan and fix (fix-opts.c).
 */
#ifndef PARTALIGN_CLI_FIX_OPTS_H
#define PARTALIGN_CLI_FIX_OPTS_H

#include <stdbool.h>

#include "cli/fix.h"

/* The defaults of plan (@fix false) or fix. */
void fix_opts_init(struct fix_opts *o, bool fix);

/*
 * The options of `plan` or `fix` (o->fix) into @o (from fix_opts_init());
 * the devices start at argv[optind].  Exit bits: 0 to go on, 16 on a usage
 * error (said); --help and --list-columns print and exit.
 */
int fix_opts_parse(int argc, char **argv, struct fix_opts *o);

/* --wait SECONDS into *ms; false with a message on error. */
bool fix_parse_wait(const char *arg, int *ms);

#endif
