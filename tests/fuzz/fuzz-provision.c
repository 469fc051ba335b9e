/*
 * The provision configuration (src/core/provconf.c), from a buffer: every
 * line is either taken or reported, and what is taken holds only what the
 * parser checks for.
 */
#include "config.h"

#include "fuzz.h"

#include "core/provconf.h"
#include "core/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct provconf c = {0};
	struct pa_diags diags = {0};
	size_t i;
	int rc = provconf_parse(&c, (const char *)data, size, "fuzz.conf", &diags);

	FZ_ASSERT(rc == 0 || rc == -EINVAL);
	FZ_ASSERT(rc == 0 ? diags.n == 0 && c.n > 0 : diags.n > 0);
	for (i = 0; i < c.n; i++) {
		const struct provconf_disk *d = &c.v[i];

		FZ_ASSERT(rules_name_is_valid(d->name));
		FZ_ASSERT(strlen(d->name) <= PROVCONF_NAME_MAX);
		FZ_ASSERT(d->value >= d->selector &&
			  d->value <= d->selector + strlen(d->selector));
		FZ_ASSERT(d->sel == PROVCONF_SEL_SIZE || d->sel == PROVCONF_SEL_PATH ||
			  !rules_value_unsafe(d->value));
		FZ_ASSERT(!d->owner || rules_account_is_valid(d->owner));
		FZ_ASSERT(!d->group || rules_account_is_valid(d->group));
	}
	provconf_free(&c);
	diags_free(&diags);
	return 0;
}
