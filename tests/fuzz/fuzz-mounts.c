/*
 * mountinfo and /proc/swaps (src/scan/mounts.c, scan_mounts_parse): the
 * input up to the first NUL byte is a mountinfo, the rest a swaps file,
 * read against a device list of a few disks and partitions.
 */
#include "config.h"

#include "fuzz.h"

#include "scan/scan.h"

static const unsigned int devnos[][2] = {{8, 0}, {8, 1},   {8, 2},
					 {7, 0}, {253, 0}, {259, 1}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_devlist l = {0};
	char *text = fz_strdup(data, size);
	size_t milen = strlen(text), i;
	const char *swaps = milen < size ? text + milen + 1 : "";
	FILE *mi, *sw;
	int rc;

	for (i = 0; i < sizeof(devnos) / sizeof(devnos[0]); i++) {
		struct pa_dev *d = device_new();

		if (!d)
			abort();
		d->major = devnos[i][0];
		d->minor = devnos[i][1];
		if (asprintf(&d->name, "dev%zu", i) < 0 || devlist_add(&l, d) < 0)
			abort();
	}
	mi = fmemopen(text, milen ? milen : 1, "r");
	sw = fmemopen((char *)swaps, strlen(swaps) ? strlen(swaps) : 1, "r");
	if (!mi || !sw)
		abort();
	rc = scan_mounts_parse(&l, mi, sw);
	FZ_ASSERT(rc == 0 || rc == -ENOMEM);
	for (i = 0; i < l.n; i++) {
		const char *m = l.v[i]->mountpoints;

		/* a list of lines, none of them empty */
		FZ_ASSERT(!m || (*m && m[strlen(m) - 1] != '\n' && !strstr(m, "\n\n")));
	}
	fclose(mi);
	fclose(sw);
	devlist_free(&l);
	free(text);
	return 0;
}
