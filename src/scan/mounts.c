/*
 * Mount points and active swap areas, read from /proc/self/mountinfo and
 * /proc/swaps (or their copies in a dump).  Neither touches a device.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "scan/scan.h"
#include "shared/hex.h"

/*
 * mountinfo escapes space, tab, newline and backslash as \ooo.  The byte of
 * such an escape at @s, or -1: a newline stays escaped (a device's mount
 * points are a list of lines) and so does \000, which the kernel never
 * writes and which would cut the path short.
 */
static int octal_escape(const char *s)
{
	int c;

	if (s[0] != '\\' || s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' ||
	    s[3] < '0' || s[3] > '7')
		return -1;
	c = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
	return c == 0 || c == '\n' ? -1 : c;
}

static int add_mount(struct pa_devlist *l, unsigned int ma, unsigned int mi,
		     const char *mp)
{
	struct pa_dev *d = devlist_find_devno(l, ma, mi);

	if (!d || device_strlist_contains(d->mountpoints, mp))
		return 0;
	return device_strlist_append(&d->mountpoints, mp, '\n');
}

/*
 * The device of swap area @name: the device number of the node on the host,
 * or below a root (no nodes there) the device whose path is @name.
 */
static struct pa_dev *swap_device(struct pa_devlist *l, const char *name, bool by_path)
{
	struct stat st;
	size_t i;

	if (!by_path)
		return stat(name, &st) == 0 && S_ISBLK(st.st_mode)
			   ? devlist_find_devno(l, major(st.st_rdev), minor(st.st_rdev))
			   : NULL;
	for (i = 0; i < l->n; i++)
		if (l->v[i]->path && strcmp(l->v[i]->path, name) == 0)
			return l->v[i];
	return NULL;
}

static int parse(struct pa_devlist *l, FILE *mountinfo, FILE *swaps, bool by_path)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	while (mountinfo && rc == 0 && getline(&line, &cap, mountinfo) > 0) {
		unsigned int ma, mi;
		char mp[4096];

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mp) != 3)
			continue;
		unescape4(mp, octal_escape);
		rc = add_mount(l, ma, mi, mp);
	}
	while (swaps && rc == 0 && getline(&line, &cap, swaps) > 0) {
		char name[4096];
		struct pa_dev *d;

		if (sscanf(line, "%4095s", name) != 1 || name[0] != '/')
			continue;
		unescape4(name, octal_escape);
		d = swap_device(l, name, by_path);
		if (d)
			rc = add_mount(l, d->major, d->minor, "[SWAP]");
	}
	free(line);
	return rc;
}

int scan_mounts_parse(struct pa_devlist *l, FILE *mountinfo, FILE *swaps)
{
	return parse(l, mountinfo, swaps, false);
}

int scan_mounts_fill(struct pa_devlist *l, const char *root)
{
	char p[PATH_MAX];
	FILE *mi, *sw;
	int rc;

	snprintf(p, sizeof(p), "%s/proc/self/mountinfo", root);
	mi = fopen(p, "re");
	snprintf(p, sizeof(p), "%s/proc/swaps", root);
	sw = fopen(p, "re");
	rc = parse(l, mi, sw, root[0] != '\0');

	if (mi)
		fclose(mi);
	if (sw)
		fclose(sw);
	return rc;
}
