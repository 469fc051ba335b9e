/*
 * The device list: allocation, lookup and the few predicates every
 * command shares.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/device.h"

struct pa_dev *device_new(void)
{
	return calloc(1, sizeof(struct pa_dev));
}

void device_free(struct pa_dev *d)
{
	unsigned int i;

	if (!d)
		return;
	free(d->name);
	free(d->path);
	free(d->part_name);
	free(d->part_uuid);
	free(d->part_type);
	free(d->model);
	free(d->serial);
	free(d->wwn);
	free(d->fstype);
	free(d->pttype);
	free(d->pt_uuid);
	if (d->move) {
		free(d->move->journal);
		free(d->move->parts);
		free(d->move);
	}
	free(d->dm_uuid);
	free(d->dm_name);
	free(d->holders);
	free(d->dm_table);
	free(d->mountpoints);
	free(d->paths);
	free(d->backing_file);
	free(d->parent_name);
	free(d->lvm_vg);
	free(d->id_serial);
	free(d->id_wwn);
	free(d->id_wwn_ext);
	free(d->part_scheme);
	free(d->ondisk_uuid);
	free(d->sys_serial);
	free(d->sys_wwid);
	free(d->asm_hdr);
	if (d->md_members)
		for (i = 0; i < d->md_nmembers; i++)
			free(d->md_members[i].name);
	free(d->md_members);
	free(d);
}

int devlist_add(struct pa_devlist *l, struct pa_dev *d)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct pa_dev **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = d;
	return 0;
}

void devlist_free(struct pa_devlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		device_free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

struct pa_dev *devlist_find_name(const struct pa_devlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i]->name, name) == 0)
			return l->v[i];
	return NULL;
}

struct pa_dev *devlist_find_devno(const struct pa_devlist *l, unsigned int major,
				  unsigned int minor)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i]->major == major && l->v[i]->minor == minor)
			return l->v[i];
	return NULL;
}

const char *device_kind_name(enum pa_kind k)
{
	switch (k) {
	case PA_KIND_DISK:
		return "disk";
	case PA_KIND_PART:
		return "part";
	case PA_KIND_LOOP:
		return "loop";
	case PA_KIND_MPATH:
		return "mpath";
	case PA_KIND_LVM:
		return "lvm";
	case PA_KIND_CRYPT:
		return "crypt";
	case PA_KIND_DM:
		return "dm";
	case PA_KIND_MD:
		return "raid";
	}
	return "unknown";
}

bool device_is_whole(const struct pa_dev *d)
{
	return d->kind != PA_KIND_PART;
}

bool device_is_checked(const struct pa_dev *d)
{
	if (d->is_path)
		return false;
	if (d->kind == PA_KIND_PART)
		return true;
	return d->nparts == 0;
}

int device_strlist_append(char **list, const char *s, char sep)
{
	size_t old = *list ? strlen(*list) : 0;
	size_t add = strlen(s);
	char *n = realloc(*list, old + add + 2);

	if (!n)
		return -ENOMEM;
	if (old)
		n[old++] = sep;
	memcpy(n + old, s, add + 1);
	*list = n;
	return 0;
}

bool device_strlist_contains(const char *list, const char *s)
{
	size_t n = strlen(s);
	const char *p = list;

	if (!list || !n)
		return false;
	while ((p = strstr(p, s))) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\n';
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';

		if (start && end)
			return true;
		p += n;
	}
	return false;
}

/* @s without trailing blanks: its length */
static size_t trimmed(const char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n;
}

/* Equal but for blanks around them (sysfs readers and udev trim differently). */
static bool same_trimmed(const char *a, const char *b)
{
	size_t n;

	while (isspace((unsigned char)*a))
		a++;
	while (isspace((unsigned char)*b))
		b++;
	n = trimmed(a);
	return n == trimmed(b) && strncmp(a, b, n) == 0;
}

/* A SCSI "naa.<hex>" wwid against udev's "0x<hex>" (ID_WWN: the first 16 digits). */
static bool naa_matches(const char *wwid, const char *wwn)
{
	size_t n;

	if (strncasecmp(wwn, "0x", 2) == 0)
		wwn += 2;
	n = trimmed(wwn);
	return n && strlen(wwid + 4) >= n && strncasecmp(wwid + 4, wwn, n) == 0;
}

static int stale_text(char *buf, size_t len, const char *key, const char *udev,
		      const char *where, const char *device, const char *path)
{
	snprintf(
	    buf, len,
	    "the udev database says %s %s, %s says %s: stale udev data; run 'udevadm "
	    "trigger --action=change %s' and 'udevadm settle'",
	    key, udev, where, device, path);
	return 1;
}

int device_udev_stale(const struct pa_dev *d, char *buf, size_t len)
{
	const struct pa_dev *w = d->disk ? d->disk : d;
	const char *wwn = d->id_wwn_ext ? d->id_wwn_ext : d->id_wwn;
	int compared = -1;

	if (len)
		buf[0] = '\0';
	if (d->part_uuid && d->ondisk_checked && !d->ondisk_uuid) {
		char none[64];

		snprintf(none, sizeof(none), "there is no partition %u", d->partno);
		return stale_text(buf, len, "PARTUUID", d->part_uuid,
				  "the partition table on the disk", none, d->path);
	}
	if (d->part_uuid && d->ondisk_uuid) {
		if (strcasecmp(d->part_uuid, d->ondisk_uuid) != 0)
			return stale_text(buf, len, "PARTUUID", d->part_uuid,
					  "the partition table on the disk",
					  d->ondisk_uuid, d->path);
		compared = 0;
	}
	if (d->id_serial && w->sys_serial) {
		if (!same_trimmed(d->id_serial, w->sys_serial))
			return stale_text(buf, len, "serial", d->id_serial,
					  "the kernel (sysfs)", w->sys_serial, d->path);
		compared = 0;
	}
	if (wwn && w->sys_wwid) {
		bool naa = strncmp(w->sys_wwid, "naa.", 4) == 0;
		bool exact =
		    strchr(wwn, '.') != NULL; /* NVMe: eui.…, nvme.… as sysfs has it */

		if ((naa && !exact && !naa_matches(w->sys_wwid, wwn)) ||
		    (exact && !same_trimmed(wwn, w->sys_wwid)))
			return stale_text(buf, len, "WWN", wwn, "the kernel (sysfs)",
					  w->sys_wwid, d->path);
		if (naa || exact)
			compared = 0;
	}
	return compared;
}
