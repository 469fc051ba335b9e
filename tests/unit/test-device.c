/*
 * Unit tests of the topology model (core/device.c) and the diagnostics list
 * (core/diag.c): ownership, lookup, the predicates the commands share.
 * Run under valgrind or -fsanitize=address to see the frees.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/device.h"
#include "core/diag.h"

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	assert_non_null(p);
	return p;
}

/* A device with every string set, so that device_free() has all of them to free. */
static struct pa_dev *full_dev(const char *name, unsigned int major, unsigned int minor)
{
	struct pa_dev *d = device_new();
	char path[64];

	assert_non_null(d);
	snprintf(path, sizeof(path), "/dev/%s", name);
	d->name = xstrdup(name);
	d->path = xstrdup(path);
	d->major = major;
	d->minor = minor;
	d->part_name = xstrdup("data");
	d->part_uuid = xstrdup("6a1e2c6e-0000-4000-8000-000000000001");
	d->part_type = xstrdup("0fc63daf-8483-4772-8e79-3d69d8477de4");
	d->model = xstrdup("QEMU HARDDISK");
	d->serial = xstrdup("S1");
	d->wwn = xstrdup("0x5000c500a1b2c3d4");
	d->fstype = xstrdup("ext4");
	d->pttype = xstrdup("gpt");
	d->dm_uuid = xstrdup("mpath-3600");
	d->dm_name = xstrdup("mpatha");
	d->holders = xstrdup("dm-0 dm-1");
	d->mountpoints = xstrdup("/srv\n[SWAP]");
	d->paths = xstrdup("sda sdb");
	d->backing_file = xstrdup("/var/tmp/img");
	return d;
}

static void test_dev_new_is_zeroed(void **state)
{
	struct pa_dev zero;
	struct pa_dev *d = device_new();

	assert_non_null(d);
	memset(&zero, 0, sizeof(zero));
	/* pointer fields NULL, counters 0, flags false */
	assert_null(d->name);
	assert_null(d->disk);
	assert_null(d->holders);
	assert_int_equal(d->nparts, 0);
	assert_false(d->is_path);
	assert_false(d->start_known);
	assert_int_equal(d->topo.align_off, 0);
	assert_memory_equal(d, &zero, sizeof(zero));
	device_free(d);
	device_free(NULL);
}

static void test_devlist(void **state)
{
	struct pa_devlist l = {0};
	char name[32];
	unsigned int i;

	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "sd%u", i);
		assert_int_equal(devlist_add(&l, full_dev(name, 8 + i / 16, i % 16)), 0);
	}
	assert_int_equal(l.n, 300);
	assert_true(l.cap >= l.n);

	for (i = 0; i < 300; i++) {
		struct pa_dev *d;

		snprintf(name, sizeof(name), "sd%u", i);
		d = devlist_find_name(&l, name);
		assert_non_null(d);
		assert_ptr_equal(d, l.v[i]);
		assert_string_equal(d->name, name);
		assert_ptr_equal(devlist_find_devno(&l, 8 + i / 16, i % 16), d);
	}
	/* prefixes and near misses are not matches */
	assert_null(devlist_find_name(&l, "sd"));
	assert_null(devlist_find_name(&l, "sd3000"));
	assert_null(devlist_find_name(&l, "SD1"));
	assert_null(devlist_find_name(&l, ""));
	assert_null(devlist_find_devno(&l, 8, 16));
	assert_null(devlist_find_devno(&l, 259, 0));

	devlist_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.cap, 0);
	assert_null(devlist_find_name(&l, "sd0"));

	/* a freed list can be used again */
	assert_int_equal(devlist_add(&l, full_dev("vda", 254, 0)), 0);
	assert_non_null(devlist_find_name(&l, "vda"));
	devlist_free(&l);
	devlist_free(&l);
}

/* Borrowed pointers between devices of one list. */
static void test_devlist_links(void **state)
{
	struct pa_devlist l = {0};
	struct pa_dev *disk = full_dev("sda", 8, 0);
	struct pa_dev *part = full_dev("sda1", 8, 1);

	part->kind = PA_KIND_PART;
	part->disk = disk;
	assert_int_equal(devlist_add(&l, disk), 0);
	assert_int_equal(devlist_add(&l, part), 0);
	assert_ptr_equal(devlist_find_name(&l, "sda1")->disk,
			 devlist_find_devno(&l, 8, 0));
	devlist_free(&l);
}

static void test_kind_names(void **state)
{
	static const enum pa_kind kinds[] = {PA_KIND_DISK,  PA_KIND_PART, PA_KIND_LOOP,
					     PA_KIND_MPATH, PA_KIND_LVM,  PA_KIND_CRYPT,
					     PA_KIND_DM,    PA_KIND_MD};
	size_t n = sizeof(kinds) / sizeof(kinds[0]);
	size_t i, j;

	assert_string_equal(device_kind_name(PA_KIND_DISK), "disk");
	assert_string_equal(device_kind_name(PA_KIND_PART), "part");
	assert_string_equal(device_kind_name(PA_KIND_LOOP), "loop");
	assert_string_equal(device_kind_name(PA_KIND_MPATH), "mpath");
	for (i = 0; i < n; i++) {
		const char *a = device_kind_name(kinds[i]);

		assert_non_null(a);
		assert_true(a[0] != '\0');
		assert_string_not_equal(a, "unknown");
		for (j = i + 1; j < n; j++)
			assert_string_not_equal(a, device_kind_name(kinds[j]));
	}
	assert_string_equal(device_kind_name((enum pa_kind)99), "unknown");
}

static void test_is_whole_and_checked(void **state)
{
	static const enum pa_kind wholes[] = {PA_KIND_DISK, PA_KIND_LOOP,  PA_KIND_MPATH,
					      PA_KIND_LVM,  PA_KIND_CRYPT, PA_KIND_DM,
					      PA_KIND_MD};
	struct pa_dev d;
	size_t i;

	/* partitions: always, unless they sit on a multipath path */
	memset(&d, 0, sizeof(d));
	d.kind = PA_KIND_PART;
	assert_false(device_is_whole(&d));
	assert_true(device_is_checked(&d));
	d.nparts = 3; /* meaningless for a partition, and ignored */
	assert_true(device_is_checked(&d));
	d.is_path = true;
	assert_false(device_is_checked(&d));

	for (i = 0; i < sizeof(wholes) / sizeof(wholes[0]); i++) {
		memset(&d, 0, sizeof(d));
		d.kind = wholes[i];
		assert_true(device_is_whole(&d));
		/* without partitions: checked itself */
		assert_true(device_is_checked(&d));
		/* with partitions: the partitions are checked instead */
		d.nparts = 1;
		assert_false(device_is_checked(&d));
		d.nparts = 128;
		assert_false(device_is_checked(&d));
		/* a path device never, with or without partitions */
		d.is_path = true;
		assert_false(device_is_checked(&d));
		d.nparts = 0;
		assert_false(device_is_checked(&d));
	}
}

static void test_strlist_append(void **state)
{
	char *l = NULL;

	assert_int_equal(device_strlist_append(&l, "dm-0", ' '), 0);
	assert_string_equal(l, "dm-0");
	assert_int_equal(device_strlist_append(&l, "dm-1", ' '), 0);
	assert_string_equal(l, "dm-0 dm-1");
	assert_int_equal(device_strlist_append(&l, "md127", ' '), 0);
	assert_string_equal(l, "dm-0 dm-1 md127");
	free(l);

	l = NULL;
	assert_int_equal(device_strlist_append(&l, "/srv/data", '\n'), 0);
	assert_int_equal(device_strlist_append(&l, "[SWAP]", '\n'), 0);
	assert_string_equal(l, "/srv/data\n[SWAP]");
	free(l);

	/* an existing heap string is extended */
	l = xstrdup("sda");
	assert_int_equal(device_strlist_append(&l, "sdb", ' '), 0);
	assert_string_equal(l, "sda sdb");
	free(l);
}

static void test_strlist_grows(void **state)
{
	char *l = NULL;
	char want[8192] = "";
	char item[16];
	int i;

	for (i = 0; i < 500; i++) {
		snprintf(item, sizeof(item), "dm-%d", i);
		assert_int_equal(device_strlist_append(&l, item, ' '), 0);
		if (i)
			strcat(want, " ");
		strcat(want, item);
	}
	assert_string_equal(l, want);
	for (i = 0; i < 500; i++) {
		snprintf(item, sizeof(item), "dm-%d", i);
		assert_true(device_strlist_contains(l, item));
	}
	assert_false(device_strlist_contains(l, "dm-500"));
	assert_false(device_strlist_contains(l, "dm-"));
	free(l);
}

static void test_strlist_contains(void **state)
{
	const char *l = "sda sdb sdc";

	assert_true(device_strlist_contains(l, "sda"));
	assert_true(device_strlist_contains(l, "sdb"));
	assert_true(device_strlist_contains(l, "sdc"));
	assert_false(device_strlist_contains(l, "sd"));
	assert_false(device_strlist_contains(l, "sdb1"));
	assert_false(device_strlist_contains(l, "db"));
	assert_false(device_strlist_contains(l, "a sdb"));
	assert_false(device_strlist_contains(l, "sdd"));
	assert_false(device_strlist_contains(l, ""));
	assert_false(device_strlist_contains(NULL, "sda"));
	assert_false(device_strlist_contains("", "sda"));

	/* a near miss before the real entry */
	assert_true(device_strlist_contains("dm-10 dm-1", "dm-1"));
	assert_false(device_strlist_contains("dm-10 dm-11", "dm-1"));
	assert_true(device_strlist_contains("sdab sda", "sda"));
	assert_true(device_strlist_contains("xsda sda", "sda"));
	assert_false(device_strlist_contains("xsda sdax", "sda"));
	assert_true(device_strlist_contains("sdaa sdaa sda", "sda"));
	assert_true(device_strlist_contains("sda", "sda"));

	/* newline-separated mount points */
	l = "/srv\n[SWAP]\n/var/lib/db";
	assert_true(device_strlist_contains(l, "/srv"));
	assert_true(device_strlist_contains(l, "[SWAP]"));
	assert_true(device_strlist_contains(l, "/var/lib/db"));
	assert_false(device_strlist_contains(l, "/var"));
	assert_false(device_strlist_contains(l, "/var/lib"));
	assert_false(device_strlist_contains(l, "SWAP"));
	assert_false(device_strlist_contains(l, "/"));
}

static void test_diag_add(void **state)
{
	struct pa_diags l = {0};
	char want[64];
	int i;

	assert_int_equal(diag_add(&l, "/dev/sdb", -EACCES, "cannot open"), 0);
	assert_int_equal(
	    diag_add(&l, "/dev/vda", EPERM, "cannot read %s at %d", "start", 42), 0);
	assert_int_equal(diag_add(&l, NULL, 0, "is a multipath path of %s", "dm-3"), 0);
	assert_int_equal(diag_add(&l, "img", 0, "%s", "100% full"), 0);
	assert_int_equal(l.n, 4);

	assert_string_equal(l.v[0].device, "/dev/sdb");
	assert_int_equal(l.v[0].err, EACCES);
	assert_string_equal(l.v[0].msg, "cannot open");
	assert_string_equal(l.v[1].device, "/dev/vda");
	assert_int_equal(l.v[1].err, EPERM);
	assert_string_equal(l.v[1].msg, "cannot read start at 42");
	assert_string_equal(l.v[2].device, "");
	assert_int_equal(l.v[2].err, 0);
	assert_string_equal(l.v[2].msg, "is a multipath path of dm-3");
	assert_string_equal(l.v[3].msg, "100% full");

	/* growth keeps the earlier entries */
	for (i = 0; i < 100; i++)
		assert_int_equal(diag_add(&l, "/dev/loop0", -ENOENT, "try %d", i), 0);
	assert_int_equal(l.n, 104);
	assert_string_equal(l.v[0].msg, "cannot open");
	for (i = 0; i < 100; i++) {
		snprintf(want, sizeof(want), "try %d", i);
		assert_string_equal(l.v[4 + i].msg, want);
		assert_int_equal(l.v[4 + i].err, ENOENT);
	}

	/* the list owns copies, not the caller's strings */
	assert_ptr_not_equal(l.v[0].device, "/dev/sdb");

	diags_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.cap, 0);
	diags_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dev_new_is_zeroed),
	    cmocka_unit_test(test_devlist),
	    cmocka_unit_test(test_devlist_links),
	    cmocka_unit_test(test_kind_names),
	    cmocka_unit_test(test_is_whole_and_checked),
	    cmocka_unit_test(test_strlist_append),
	    cmocka_unit_test(test_strlist_grows),
	    cmocka_unit_test(test_strlist_contains),
	    cmocka_unit_test(test_diag_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
