/* partalign rules: what cmd-rules.c takes from rules-warn.c. */
#ifndef PA_CLI_RULES_WARN_H
#define PA_CLI_RULES_WARN_H

#include "core/rules.h"

/* Largest map or rules file read. */
#define FILE_MAX (4u << 20)

/* ROOT + PATH (PATH absolute; no ROOT: PATH), malloc'd; NULL without memory */
char *rules_rooted(const char *root, const char *path);
/* all digits: a numeric uid or gid */
bool rules_numeric(const char *s);

/* warnings on stderr; nothing here stops the rules from being written */
void rules_warn_accounts(const struct rules_set *s, const char *root);
void rules_warn_oracle_drivers(const char *root);
void rules_warn_claims(const struct rules_set *s, const char *root, const char *target);

#endif
