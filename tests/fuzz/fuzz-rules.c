/*
 * The ASM map file (src/core/rules.c, rules_map_parse), then the name
 * check over what it accepted.  Every accepted entry must have passed the
 * checks rules_map_add() documents.
 */
#include "config.h"

#include "fuzz.h"

#include "core/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rules_map m = {0};
	struct pa_diags diags = {0};
	char *text = fz_strdup(data, size);
	size_t i;
	int rc;

	rc = rules_map_parse(&m, text, "fuzz.map", &diags);
	FZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	FZ_ASSERT(rc != -EINVAL || diags.n > 0);
	for (i = 0; i < m.n; i++) {
		FZ_ASSERT(rules_name_is_valid(m.v[i].name));
		FZ_ASSERT(m.v[i].device && *m.v[i].device);
		FZ_ASSERT(!m.v[i].mode || strlen(m.v[i].mode) == 4);
	}
	rules_map_check_names(&m, &diags);
	rules_map_free(&m);
	diags_free(&diags);
	free(text);
	return 0;
}
