/*
 * partalign rules as a function (cmd-rules.c), for provision, which builds
 * the map itself.
 */
#ifndef PARTALIGN_CLI_CMD_RULES_H
#define PARTALIGN_CLI_CMD_RULES_H

#include <stdbool.h>

#include "cli/cli.h"
#include "core/rules.h"

/* What `partalign rules` takes, for a caller that has built the map itself. */
struct rules_opts {
	enum rules_match match;
	const char *owner; /* for entries without their own */
	const char *group;
	const char *mode; /* four octal digits */
	const char *output;
	const char *root; /* NULL: the running system */
	bool dry_run;
	bool no_reload;
	struct msg_log *log; /* NULL, or where the run's errors go too */
	const char *config;  /* provision's configuration, named in the header */
};

/* `partalign rules` on @map (the caller's); returns its exit bits. */
int rules_run(const struct rules_opts *o, const struct rules_map *map);

#endif
