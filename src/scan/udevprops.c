/*
 * A device's properties: the kernel's uevent and udev's database entry, read
 * once per device into struct props (scan/udevprops.h), and the identity,
 * contents and partition-table fields of struct pa_dev filled from them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/scan.h"
#include "scan/sysattr.h"
#include "scan/udevprops.h"
#include "shared/hex.h"

/* Value of KEY in "KEY=value\n" lines, each line after @prefix. */
const char *udevprops_get(const char *buf, const char *prefix, const char *key,
			  size_t *len)
{
	size_t pl = strlen(prefix), kl = strlen(key);
	const char *p = buf;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p);

		if (ll > pl + kl && strncmp(p, prefix, pl) == 0 &&
		    strncmp(p + pl, key, kl) == 0 && p[pl + kl] == '=') {
			*len = ll - pl - kl - 1;
			return p + pl + kl + 1;
		}
		p += ll + (nl ? 1 : 0);
	}
	return NULL;
}

char *udevprops_dup(const struct props *u, const char *key)
{
	const char *v;
	size_t len;

	v = udevprops_get(u->db, "E:", key, &len);
	if (!v)
		v = udevprops_get(u->uevent, "", key, &len);
	return v && len ? strndup(v, len) : NULL;
}

/*
 * udev's blkid builtin writes some values (ID_PART_ENTRY_NAME) as
 * blkid_encode_string() gives them: white space, a backslash and bytes that
 * are not UTF-8 as "\xNN", in lowercase.  The byte of such an escape at
 * @s if it is printable ASCII, else -1: a control byte (a newline would
 * split a line of the JSON or the table) or a byte that is not UTF-8 stays
 * as udev wrote it.
 */
static int escaped_printable(const char *s)
{
	int h, l, c;

	if (s[0] != '\\' || s[1] != 'x' || (h = hex_digit(s[2])) < 0 ||
	    (l = hex_digit(s[3])) < 0)
		return -1;
	c = h << 4 | l;
	return c >= 0x20 && c < 0x7f ? c : -1;
}

/* First present of several properties. */
char *udevprops_first(const struct props *u, const char *const *keys)
{
	for (; *keys; keys++) {
		char *v = udevprops_dup(u, *keys);

		if (v)
			return v;
	}
	return NULL;
}

/* Identity, contents and partition-table fields from the udev database. */
int udevprops_fill(const struct props *u, struct pa_dev *d, int syspath, bool part)
{
	static const char *const serial_keys[] = {"ID_SCSI_SERIAL", "ID_SERIAL_SHORT",
						  "ID_SERIAL", NULL};
	static const char *const wwn_keys[] = {"ID_WWN_WITH_EXTENSION", "ID_WWN", NULL};

	d->udev_db = u->db[0] != '\0';
	d->fstype = udevprops_dup(u, "ID_FS_TYPE");
	d->model = udevprops_dup(u, "ID_MODEL");
	d->serial = udevprops_first(u, serial_keys);
	d->wwn = udevprops_first(u, wwn_keys);
	d->id_serial = udevprops_dup(u, "ID_SERIAL");
	d->id_wwn = udevprops_dup(u, "ID_WWN");
	d->id_wwn_ext = udevprops_dup(u, "ID_WWN_WITH_EXTENSION");
	if (part) {
		d->part_scheme = udevprops_dup(u, "ID_PART_ENTRY_SCHEME");
		/* udev's encoded name, else the kernel's own as it is */
		d->part_name = udevprops_dup(u, "ID_PART_ENTRY_NAME");
		if (d->part_name)
			unescape4(d->part_name, escaped_printable);
		else
			d->part_name = udevprops_dup(u, "PARTNAME");
		d->part_uuid = udevprops_dup(u, "ID_PART_ENTRY_UUID");
		d->part_type = udevprops_dup(u, "ID_PART_ENTRY_TYPE");
		return 0;
	}
	d->pttype = udevprops_dup(u, "ID_PART_TABLE_TYPE");
	d->pt_uuid = udevprops_dup(u, "ID_PART_TABLE_UUID");
	/* sysfs knows some identities even without a udev database (real disks only) */
	if (d->kind != PA_KIND_DISK)
		return 0;
	/* the kernel's own, to tell a stale udev entry (device_udev_stale) */
	d->sys_serial = sysattr_dup(syspath, "serial"); /* virtio-blk */
	d->sys_wwid = sysattr_dup(syspath, "wwid");	/* NVMe namespace */
	if (!d->sys_wwid)
		d->sys_wwid = sysattr_dup(syspath, "device/wwid"); /* SCSI VPD 0x83 */
	if (!d->model)
		d->model = sysattr_dup(syspath, "device/model");
	if (!d->serial)
		d->serial = sysattr_dup(syspath, "serial"); /* virtio-blk */
	if (!d->serial)
		d->serial = sysattr_dup(syspath, "device/serial"); /* NVMe controller */
	if (!d->wwn)
		d->wwn = sysattr_dup(syspath, "wwid"); /* NVMe namespace */
	if (!d->wwn)
		d->wwn = sysattr_dup(syspath, "device/wwid"); /* SCSI VPD 0x83 */
	return 0;
}

int scan_props_parse(const char *uevent, const char *db, struct pa_dev *d)
{
	struct props *u = malloc(sizeof(*u));
	const char *t;
	size_t len;
	bool part;
	int rc;

	if (!u)
		return -ENOMEM;
	/* as sysattr_read_file() leaves them: cut at the buffer size */
	snprintf(u->uevent, sizeof(u->uevent), "%s", uevent);
	snprintf(u->db, sizeof(u->db), "%s", db);
	part = (t = udevprops_get(u->uevent, "", "DEVTYPE", &len)) && len == 9 &&
	       strncmp(t, "partition", 9) == 0;
	if (part)
		d->kind = PA_KIND_PART;
	rc = udevprops_fill(u, d, -1, part);
	free(u);
	return rc;
}
