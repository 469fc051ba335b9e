/*
 * The command line's side of the trust check (shared/trust.h): the one
 * wording of "not trusted", the refusals of the directories a command was
 * given before it looks at any disk, and the warning for PARTALIGN_TOOLDIR.
 */
#ifndef PARTALIGN_CLI_TRUSTED_H
#define PARTALIGN_CLI_TRUSTED_H

#include <stdbool.h>

#include "shared/trust.h"

/* The end of a refusal of a directory, and of a file. */
#define TRUST_DIR_RULE "journals and backups must be in a directory only root can change"
#define TRUST_FILE_RULE                                                                  \
	"a journal or backup is read only when root owns it and no one else can "        \
	"write it"

/*
 * What @f says of @given (the directory or file asked about), malloc'd:
 * "/tmp/x is writable by others (mode 0777)", and "GIVEN: /tmp is ..." when
 * what failed is another path (a directory above it, a link's target).
 * NULL without memory.
 */
char *cli_trust_text(const char *given, const struct trust_fail *f);

/* TRUST_DIR_RULE when what failed is a directory, else TRUST_FILE_RULE. */
const char *cli_trust_rule(const struct trust_fail *f);

/* "DEVICE: refused: <text>; <rule>" on stderr (@device may be NULL). */
void cli_trust_refuse(const char *device, const char *given, const struct trust_fail *f,
		      const char *rule);

/*
 * Before any disk is looked at: each of the @n directories @dirs (NULLs
 * skipped) must be trusted, or not exist yet below trusted ones (partalign
 * makes it, 0700).  PA_EXIT_OK, or PA_EXIT_ERROR after the refusal (also
 * into @log, which may be NULL).
 */
struct msg_log;
int cli_trust_dirs(struct msg_log *log, const char *const *dirs, size_t n);

/* A warning when PARTALIGN_TOOLDIR is set but not trusted (it is ignored). */
void cli_trust_tooldir(void);

#endif
