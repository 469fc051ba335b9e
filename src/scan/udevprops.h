/*
 * A device's kernel and udev properties (scan/udevprops.c).
 */
#ifndef PARTALIGN_SCAN_UDEVPROPS_H
#define PARTALIGN_SCAN_UDEVPROPS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/device.h"

/*
 * A device's properties: the kernel's (the uevent attribute: DEVTYPE,
 * DEVNAME, PARTN...) and udev's (its database, /run/udev/data/b<maj>:<min>,
 * "E:KEY=value" lines: ID_SERIAL, ID_PART_ENTRY_UUID...).  udev's win.
 */
struct props {
	char uevent[4096];
	char db[16384];
};

/* Value of KEY in "KEY=value\n" lines, each line after @prefix; its length in *len. */
const char *udevprops_get(const char *buf, const char *prefix, const char *key,
			  size_t *len);
/* A copy of property @key (udev's over the kernel's), NULL when absent or empty. */
char *udevprops_dup(const struct props *u, const char *key);
/* First present of several properties. */
char *udevprops_first(const struct props *u, const char *const *keys);
/* Identity, contents and partition-table fields of @d from @u (and sysfs @syspath). */
int udevprops_fill(const struct props *u, struct pa_dev *d, int syspath, bool part);

#endif
