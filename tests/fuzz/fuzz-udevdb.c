/*
 * The udev database file and uevent reader of the scan (src/scan/scan.c,
 * scan_props_parse): the input up to the first NUL byte is the database
 * file (/run/udev/data/bMAJ:MIN), the rest the uevent attribute.  Every
 * property it copies must be one line of text.
 */
#include "config.h"

#include "fuzz.h"

#include "scan/scan.h"

static void one_line(const char *s)
{
	FZ_ASSERT(!s || (*s && !strchr(s, '\n')));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_strdup(data, size);
	size_t dblen = strlen(text);
	const char *uevent = dblen < size ? text + dblen + 1 : "";
	struct pa_dev *d = device_new();

	if (!d)
		abort();
	d->kind = PA_KIND_DISK;
	if (scan_props_parse(uevent, text, d) == 0) {
		one_line(d->serial);
		one_line(d->wwn);
		one_line(d->model);
		one_line(d->part_uuid);
		one_line(d->part_name);
		one_line(d->part_type);
		one_line(d->fstype);
		one_line(d->pttype);
	}
	device_free(d);
	free(text);
	return 0;
}
