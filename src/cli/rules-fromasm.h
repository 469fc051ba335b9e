/*
 * partalign rules --from-asm (rules-fromasm.c): the map from the Oracle ASM
 * disk headers.
 */
#ifndef PARTALIGN_CLI_RULES_FROMASM_H
#define PARTALIGN_CLI_RULES_FROMASM_H

#include <stddef.h>

#include "cli/cli.h"
#include "core/device.h"
#include "core/rules.h"

/*
 * Read the ASM headers of @l's devices (of the @n devices @names and what
 * lies on them; all when @n is 0) and add an entry to @m for each member or
 * provisioned disk.  Errors (a device not found or whose header cannot be
 * read, one ASM disk on two devices, none found) are printed and give
 * PA_EXIT_ERROR; else PA_EXIT_OK, each entry said on stderr.
 */
int rules_from_asm(struct pa_devlist *l, char **names, size_t n, struct rules_map *m,
		   struct msg_log *log);

#endif
