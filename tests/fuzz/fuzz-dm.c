/*
 * The device-mapper readers of src/scan/dm.c: the DM_TABLE_STATUS reply
 * (scan_dm_table_start; the input is the reply buffer as the kernel fills
 * it: struct dm_ioctl, then the target specs at data_start), and the same
 * input as the table text a dump keeps (scan_dm_table_text_start,
 * scan_dm_table_parse).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "scan/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t start = 1, end = 0;
	struct pa_dm_table t;
	unsigned int i, j;
	char *text;
	int rc = scan_dm_table_start(data, size, &start);

	FZ_ASSERT(rc == 0 || rc == -EOPNOTSUPP);
	FZ_ASSERT(rc < 0 || start % 512 == 0);

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = scan_dm_table_text_start(text, &start);
	FZ_ASSERT(rc == 0 || rc == -EOPNOTSUPP);
	rc = scan_dm_table_parse(text, &t);
	FZ_ASSERT(rc == 0 || rc == -EOPNOTSUPP);
	if (rc == 0) {
		/* segments in order without gaps, each stripe count in range, a
		   striped length a multiple of stripes x chunk */
		FZ_ASSERT(t.n >= 1 && t.n <= PA_DM_TARGETS_MAX);
		for (i = 0; i < t.n; i++) {
			const struct pa_dm_target *g = &t.t[i];

			FZ_ASSERT(g->start == end && g->length > 0);
			FZ_ASSERT(g->start + g->length > g->start);
			end = g->start + g->length;
			FZ_ASSERT(g->stripes >= 1 && g->stripes <= PA_DM_STRIPES_MAX);
			FZ_ASSERT(g->stripes == 1 ||
				  g->length % (g->chunk * g->stripes) == 0);
			for (j = 0; j < g->stripes; j++)
				FZ_ASSERT(g->to[j].offset % 512 == 0);
		}
	} else {
		FZ_ASSERT(t.n == 0);
	}
	free(text);
	return 0;
}
