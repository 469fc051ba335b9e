/*
 * md arrays in sysfs (issue #15): the layout check follows down, read from
 * the array's md/ directory and nothing else -- md/level, md/chunk_size,
 * md/raid_disks, md/layout, and per member md/dev-NAME/{offset,slot,size} and
 * the md/dev-NAME/block link to the member device.  No device is opened and
 * no superblock read: the kernel's view is what the array uses.  A dump keeps
 * the same files (scan_sysfs_attrs, scan_md_member_attrs and the link), so check
 * --sysroot reads the same layout.
 *
 * An array whose layout the stack model cannot express (linear, multipath,
 * a container, RAID10 far or offset copies, a degraded array, a reshape, a
 * RAID0 over members of different sizes) is left md_known = false and judged
 * as a whole device, as before.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan/scan.h"
#include "shared/fileio.h"

const char *const scan_md_member_attrs[] = {
    "offset",
    "slot",
    "size",
    NULL,
};

int scan_md_level(const char *text, unsigned int *level)
{
	static const struct {
		const char *name;
		unsigned int level;
	} levels[] = {
	    {"raid0", 0}, {"raid1", 1}, {"raid4", 4},
	    {"raid5", 5}, {"raid6", 6}, {"raid10", 10},
	};
	size_t i;

	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(text, levels[i].name) == 0) {
			*level = levels[i].level;
			return 0;
		}
	return -EOPNOTSUPP;
}

int scan_md_raid10_copies(uint64_t layout, unsigned int *copies)
{
	/* the kernel's raid10 layout: near copies in bits 0-7, far copies in
	   8-15, bit 16 "offset"; only the near layout keeps chunks in rows */
	unsigned int near = (unsigned int)(layout & 0xff);
	unsigned int far = (unsigned int)((layout >> 8) & 0xff);

	if (layout >> 16 || far != 1 || near < 1)
		return -EOPNOTSUPP;
	*copies = near;
	return 0;
}

static bool u64_at(int dfd, const char *attr, uint64_t *v)
{
	char buf[64], *end;

	if (read_attr_at(dfd, attr, buf, sizeof(buf)) < 0 || !buf[0])
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0' && buf[0] != '-';
}

/* The kernel name of member directory @ent (md/dev-NAME): its block link's last part. */
static char *member_name(int mdfd, const char *ent)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/block", ent);
	n = readlinkat(mdfd, path, link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return *base ? strdup(base) : NULL;
}

static void members_free(struct pa_md_member *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

int scan_md_read(int dfd, struct pa_dev *d)
{
	struct pa_md_member *m = NULL;
	struct dirent *de;
	char text[64], path[PATH_MAX];
	uint64_t chunk = 0, layout = 0, disks, size0 = 0;
	unsigned int level, copies = 0, seen = 0;
	bool sizes_differ = false;
	int mdfd, rc = 0;
	DIR *dir = NULL;

	if (read_attr_at(dfd, "md/level", text, sizeof(text)) < 0 ||
	    scan_md_level(text, &level) < 0 || !u64_at(dfd, "md/raid_disks", &disks) ||
	    disks < 1 || disks > PA_MD_MEMBERS_MAX)
		return 0;
	if (level != 1 && (!u64_at(dfd, "md/chunk_size", &chunk) || !chunk))
		return 0;
	if (level == 10 && (!u64_at(dfd, "md/layout", &layout) ||
			    scan_md_raid10_copies(layout, &copies) < 0))
		return 0;
	dir = dir_open_at(dfd, "md");
	if (!dir)
		return 0;
	mdfd = dirfd(dir);
	m = calloc(disks, sizeof(*m));
	if (!m) {
		rc = -ENOMEM;
		goto out;
	}
	while ((de = readdir(dir))) {
		uint64_t slot, off, size;

		if (strncmp(de->d_name, "dev-", 4) != 0)
			continue;
		/* a spare or faulty member has slot "none": not part of the layout */
		snprintf(path, sizeof(path), "%s/slot", de->d_name);
		if (!u64_at(mdfd, path, &slot))
			continue;
		snprintf(path, sizeof(path), "%s/offset", de->d_name);
		if (slot >= disks || m[slot].name || !u64_at(mdfd, path, &off) ||
		    off > UINT64_MAX / 512)
			goto out; /* unknown */
		snprintf(path, sizeof(path), "%s/size", de->d_name);
		if (u64_at(mdfd, path, &size)) {
			if (seen && size != size0)
				sizes_differ = true;
			size0 = size;
		}
		m[slot].name = member_name(mdfd, de->d_name);
		if (!m[slot].name) {
			if (errno == ENOMEM) {
				rc = -ENOMEM;
				goto out;
			}
			goto out; /* unknown */
		}
		m[slot].data_offset = off * 512;
		seen++;
	}
	/* degraded (a slot without a member), or RAID0 in several zones */
	if (seen != disks || (level == 0 && sizes_differ))
		goto out; /* unknown */
	d->md_known = true;
	d->md_level = level;
	d->md_chunk = level == 1 ? 0 : chunk;
	d->md_raid_disks = (unsigned int)disks;
	d->md_copies = copies;
	d->md_nmembers = (unsigned int)disks;
	d->md_members = m;
	m = NULL;
out:
	if (m)
		members_free(m, (unsigned int)disks);
	closedir(dir);
	return rc;
}
