/*
 * The buffer-level parsers of the scanner (src/scan): scan_mounts_parse()
 * on mountinfo text, scan_props_parse() on a udev database file and a
 * uevent, scan_dm_table_start() on DM_TABLE_STATUS replies built here.
 * The fuzz harnesses of tests/fuzz only show they do not crash; these say
 * what they return.
 */
#include "config.h"

#include <errno.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "scan/scan.h"

static struct pa_dev *dev_add(struct pa_devlist *l, unsigned int ma, unsigned int mi)
{
	struct pa_dev *d = device_new();

	assert_non_null(d);
	d->major = ma;
	d->minor = mi;
	assert_int_equal(devlist_add(l, d), 0);
	return d;
}

static void test_mountinfo(void **state)
{
	static char mi[] =
	    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	    "36 35 8:1 / /mnt/with\\040space rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	    "37 35 8:1 / /mnt/with\\040space rw - ext4 /dev/sda1 rw\n"
	    "38 35 8:1 / /srv rw - ext4 /dev/sda1 rw\n"
	    "garbage\n"
	    "39 35 8:2 / /back\\134slash rw - xfs /dev/sda2 rw\n"
	    /* a newline and a NUL stay escaped: one line each, never empty */
	    "40 35 8:3 / /two\\012lines rw - xfs /dev/sda3 rw\n"
	    "41 35 8:3 / \\000 rw - xfs /dev/sda3 rw\n";
	struct pa_devlist l = {0};
	struct pa_dev *a, *b, *c, *e;
	FILE *f = fmemopen(mi, strlen(mi), "r");

	assert_non_null(f);
	a = dev_add(&l, 8, 1);
	b = dev_add(&l, 8, 2);
	c = dev_add(&l, 8, 3);
	e = dev_add(&l, 8, 4);
	assert_int_equal(scan_mounts_parse(&l, f, NULL), 0);
	/* unescaped, each mount point once, in order */
	assert_string_equal(a->mountpoints, "/mnt/with space\n/srv");
	assert_string_equal(b->mountpoints, "/back\\slash");
	assert_string_equal(c->mountpoints, "/two\\012lines\n\\000");
	assert_null(e->mountpoints);
	fclose(f);
	devlist_free(&l);
}

static void test_props(void **state)
{
	struct pa_dev *d = device_new();

	assert_non_null(d);
	d->kind = PA_KIND_DISK;
	assert_int_equal(
	    scan_props_parse("DEVTYPE=partition\nPARTNAME=kernel-name\nPARTN=1\n",
			     "I:123\nE:ID_PART_ENTRY_UUID=5e1f2a3b-01\n"
			     "E:ID_PART_ENTRY_NAME=data\nE:ID_SERIAL=\n"
			     "E:ID_FS_TYPE=ext4",
			     d),
	    0);
	assert_int_equal(d->kind, PA_KIND_PART);
	assert_string_equal(d->part_uuid, "5e1f2a3b-01");
	/* udev's name wins over the kernel's */
	assert_string_equal(d->part_name, "data");
	/* the last line needs no newline; an empty value is no value */
	assert_string_equal(d->fstype, "ext4");
	assert_null(d->serial);
	device_free(d);

	d = device_new();
	assert_non_null(d);
	d->kind = PA_KIND_DISK;
	assert_int_equal(scan_props_parse("DEVTYPE=disk\n",
					  "E:ID_SERIAL_SHORT=S1\nE:ID_SCSI_SERIAL=ZC2A\n"
					  "E:ID_WWN=0x5000\n",
					  d),
			 0);
	assert_int_equal(d->kind, PA_KIND_DISK);
	assert_string_equal(d->serial, "ZC2A");
	assert_string_equal(d->wwn, "0x5000");
	device_free(d);
}

/*
 * udev's ID_PART_ENTRY_NAME as blkid_encode_string() writes it: "\xNN"
 * back to bytes; a backslash not followed by two lowercase hex digits is
 * kept, and so is a byte that is not printable ASCII (a newline, NUL, tab
 * or DEL, a byte of no UTF-8); the kernel's PARTNAME is never decoded.
 */
static void test_props_name(void **state)
{
	static const struct {
		const char *uevent, *db, *want;
	} v[] = {
	    {"DEVTYPE=partition\n",
	     "E:ID_PART_ENTRY_NAME=partalign-move\\x200123456789abcdef",
	     "partalign-move 0123456789abcdef"},
	    {"DEVTYPE=partition\n", "E:ID_PART_ENTRY_NAME=a\\x5cx20b", "a\\x20b"},
	    {"DEVTYPE=partition\n", "E:ID_PART_ENTRY_NAME=end\\x2", "end\\x2"},
	    {"DEVTYPE=partition\n", "E:ID_PART_ENTRY_NAME=up\\x2Fper", "up\\x2Fper"},
	    {"DEVTYPE=partition\nPARTNAME=raw\\x20name\n", "", "raw\\x20name"},
	    {"DEVTYPE=partition\n", "E:ID_PART_ENTRY_NAME=two\\x0alines",
	     "two\\x0alines"},
	    {"DEVTYPE=partition\n", "E:ID_PART_ENTRY_NAME=\\x00", "\\x00"},
	    {"DEVTYPE=partition\n", "E:ID_PART_ENTRY_NAME=t\\x09\\x7f\\xff\\x7e",
	     "t\\x09\\x7f\\xff~"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct pa_dev *d = device_new();

		assert_non_null(d);
		assert_int_equal(scan_props_parse(v[i].uevent, v[i].db, d), 0);
		assert_non_null(d->part_name);
		assert_string_equal(d->part_name, v[i].want);
		device_free(d);
	}
}

/* A DM_TABLE_STATUS reply with one target at @data_start (any alignment). */
static size_t reply(unsigned char *buf, size_t len, unsigned int data_start,
		    unsigned int count, const char *type, uint64_t sector_start,
		    const char *params)
{
	struct dm_ioctl io = {.target_count = count, .data_start = data_start};
	struct dm_target_spec spec = {.sector_start = sector_start, .length = 2048};

	memset(buf, 0, len);
	io.data_size = (uint32_t)len;
	memcpy(buf, &io, sizeof(io));
	memcpy(spec.target_type, type, strlen(type)); /* shorter than 16: NUL padded */
	if (data_start >= len)
		return len;
	/* a spec that does not fit is cut where the buffer ends, as the kernel's reply is
	 */
	memcpy(buf + data_start, &spec,
	       len - data_start < sizeof(spec) ? len - data_start : sizeof(spec));
	if (data_start + sizeof(spec) + strlen(params) + 1 > len)
		return len;
	strcpy((char *)buf + data_start + sizeof(spec), params);
	return data_start + sizeof(spec) + strlen(params) + 1;
}

static void test_dm(void **state)
{
	unsigned char buf[1024];
	uint64_t start = 0;
	size_t n;

	reply(buf, sizeof(buf), sizeof(struct dm_ioctl), 1, "linear", 0, "253:0 2048");
	assert_int_equal(scan_dm_table_start(buf, sizeof(buf), &start), 0);
	assert_int_equal(start, 2048 * 512);
	/* a reply whose target spec is not 8-byte aligned */
	reply(buf, sizeof(buf), sizeof(struct dm_ioctl) + 3, 1, "linear", 0, "8:16 7");
	assert_int_equal(scan_dm_table_start(buf, sizeof(buf), &start), 0);
	assert_int_equal(start, 7 * 512);
	/* params up to the very end of the buffer, no NUL */
	n = reply(buf, sizeof(buf), sizeof(struct dm_ioctl), 1, "linear", 0, "8:16 9");
	assert_int_equal(scan_dm_table_start(buf, n - 1, &start), 0);
	assert_int_equal(start, 9 * 512);

	reply(buf, sizeof(buf), sizeof(struct dm_ioctl), 1, "multipath", 0, "0 0 1 1");
	assert_int_equal(scan_dm_table_start(buf, sizeof(buf), &start), -EOPNOTSUPP);
	reply(buf, sizeof(buf), sizeof(struct dm_ioctl), 2, "linear", 0, "8:16 9");
	assert_int_equal(scan_dm_table_start(buf, sizeof(buf), &start), -EOPNOTSUPP);
	reply(buf, sizeof(buf), sizeof(struct dm_ioctl), 1, "linear", 8, "8:16 9");
	assert_int_equal(scan_dm_table_start(buf, sizeof(buf), &start), -EOPNOTSUPP);
	/* the spec does not fit in what the kernel returned */
	reply(buf, sizeof(buf), sizeof(buf) - 8, 1, "", 0, "");
	assert_int_equal(scan_dm_table_start(buf, sizeof(buf), &start), -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_start(buf, sizeof(struct dm_ioctl) - 1, &start),
			 -EOPNOTSUPP);
}

/* The table text of a stacked dm device (scan_dm_table_parse), bytes out. */
static void test_dm_table(void **state)
{
	struct pa_dm_table t;

	(void)state;
	assert_int_equal(scan_dm_table_parse("0 16384 linear 254:17 2048\n", &t), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.t[0].start, 0);
	assert_int_equal(t.t[0].length, 16384 * 512ull);
	assert_int_equal(t.t[0].stripes, 1);
	assert_false(t.t[0].crypt);
	assert_int_equal(t.t[0].to[0].major, 254);
	assert_int_equal(t.t[0].to[0].minor, 17);
	assert_int_equal(t.t[0].to[0].offset, 2048 * 512ull);

	/* two segments, the second striped; no newline at the end */
	assert_int_equal(scan_dm_table_parse("0 100 linear 8:1 7\n"
					     "100 512 striped 2 128 8:2 2048 8:3 4096",
					     &t),
			 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.t[1].start, 100 * 512ull);
	assert_int_equal(t.t[1].stripes, 2);
	assert_int_equal(t.t[1].chunk, 128 * 512ull);
	assert_int_equal(t.t[1].to[1].minor, 3);
	assert_int_equal(t.t[1].to[1].offset, 4096 * 512ull);

	/* crypt: cipher key iv_offset device offset, then optional arguments */
	assert_int_equal(
	    scan_dm_table_parse("0 8192 crypt aes-xts-plain64 :64:logon:cryptsetup:x 0 "
				"254:1 32768 1 allow_discards\n",
				&t),
	    0);
	assert_true(t.t[0].crypt);
	assert_int_equal(t.t[0].to[0].minor, 1);
	assert_int_equal(t.t[0].to[0].offset, 32768 * 512ull);

	/* refused: other targets, a gap, a missing offset (not read from the next
	   line), a stripe count that does not divide, too many stripes, a path */
	assert_int_equal(scan_dm_table_parse("0 8 multipath 0 0 1 1 round-robin 0 1 1 "
					     "8:16 1000\n",
					     &t),
			 -EOPNOTSUPP);
	assert_int_equal(t.n, 0);
	assert_int_equal(scan_dm_table_parse("0 8 linear 8:1 0\n16 8 linear 8:1 8\n", &t),
			 -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("0 8 linear 8:1\n8 8 linear 8:1 8\n", &t),
			 -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("0 300 striped 2 128 8:1 0 8:2 0\n", &t),
			 -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("0 2304 striped 9 128 8:1 0 8:2 0 8:3 0 "
					     "8:4 0 8:5 0 8:6 0 8:7 0 8:8 0 8:9 0\n",
					     &t),
			 -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("0 8 linear /dev/sda1 0\n", &t),
			 -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("", &t), -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("0 0 linear 8:1 0\n", &t), -EOPNOTSUPP);
	assert_int_equal(scan_dm_table_parse("0 8 linear 8:1 18446744073709551615\n", &t),
			 -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo),  cmocka_unit_test(test_props),
	    cmocka_unit_test(test_props_name), cmocka_unit_test(test_dm),
	    cmocka_unit_test(test_dm_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
