/*
 * Unit tests of the pure core's answers to damaged and odd tables
 * (core/plan.c: plan_compute, plan_table_damage) and to a udev database
 * that disagrees with the device (core/device.c: device_udev_stale).
 * Tables are described as src/apply/ fills them, by hand; expected texts are
 * written out here.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/device.h"
#include "core/plan.h"

#define DISK (64 * MiB)
#define ALIGNED (2 * MiB)
#define MISALIGNED (17408ull)

static struct pa_topology topo512(void)
{
	struct pa_topology t = {.logical = 512, .physical = 512, .min_io = 512};

	return t;
}

/* A table of @label with one partition at @start (10 MiB), number @num. */
static struct pa_table table_of(enum pa_label label, uint64_t start, unsigned int num,
				bool logical)
{
	struct pa_table t = {.label = label, .disk_size = DISK, .logical = 512};
	struct pa_entry e = {
	    .num = num, .start = start, .size = 10 * MiB, .logical = logical};

	if (label != PA_LABEL_NONE)
		assert_int_equal(plan_table_add(&t, &e), 0);
	return t;
}

static void plan_with(struct pa_table *t, const struct pa_plan_opts *o, struct pa_plan *p)
{
	struct pa_topology topo = topo512();

	assert_int_equal(plan_compute(t, &topo, o, p), 0);
}

static const struct pa_plan_opts fix_opts = {.grain = PA_GRAIN_DEFAULT};

/* One copy damaged, read from the other: no refusal, the label is rewritten. */
static void test_one_copy(void **state)
{
	struct pa_table t = table_of(PA_LABEL_GPT, ALIGNED, 1, false);
	struct pa_plan p;
	char buf[256];
	int n;

	t.pmbr = true;
	t.damaged = true;
	t.gpt_primary = PA_GPT_BAD_HEADER;
	plan_with(&t, &fix_opts, &p);
	assert_null(p.refusal);
	assert_int_equal(p.changes, 1);
	n = plan_table_damage(&p.table, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf,
			    "the primary GPT header is damaged (header CRC or fields "
			    "wrong), the backup is intact");
	p.table.gpt_primary = PA_GPT_OK;
	p.table.gpt_backup = PA_GPT_BAD_ARRAY;
	plan_table_damage(&p.table, buf, sizeof(buf));
	assert_string_equal(buf,
			    "the backup GPT entry array is damaged (its CRC does not "
			    "match), the primary is intact");
	p.table.gpt_backup = PA_GPT_OK;
	assert_int_equal(plan_table_damage(&p.table, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	plan_free(&p);
}

/* The primary header gone (libparted: no table): refused, never blank. */
static void test_primary_gone(void **state)
{
	struct pa_plan_opts o = {
	    .grain = PA_GRAIN_DEFAULT, .new_disk = true, .discard_data = true};
	struct pa_table t = table_of(PA_LABEL_NONE, 0, 0, false);
	struct pa_plan p;

	t.pmbr = true;
	t.gpt_primary = PA_GPT_NO_HEADER;
	t.backup_parts = 2;
	t.signature = strdup("gpt");
	plan_with(&t, &fix_opts, &p);
	assert_string_equal(p.refusal,
			    "the primary GPT header is damaged (no EFI PART "
			    "signature), the backup is intact (2 partitions): rebuild "
			    "the primary from it with 'sgdisk -e', or restore a table "
			    "backup, then run fix again");
	plan_free(&p);

	t = table_of(PA_LABEL_NONE, 0, 0, false);
	t.pmbr = true;
	t.gpt_primary = PA_GPT_NO_HEADER;
	t.backup_parts = 1;
	t.signature = strdup("gpt");
	plan_with(&t, &o, &p);
	assert_contains(p.refusal, "not blank: the primary GPT header is damaged");
	assert_contains(p.refusal, "(1 partition)");
	assert_int_equal(p.changes, 0);
	plan_free(&p);

	/* a real blank disk is still blank */
	t = table_of(PA_LABEL_NONE, 0, 0, false);
	plan_with(&t, &o, &p);
	assert_null(p.refusal);
	assert_int_equal(p.changes, 1);
	plan_free(&p);
}

static void test_unreadable(void **state)
{
	struct pa_table t = {.label = PA_LABEL_GPT, .disk_size = DISK, .logical = 512};
	struct pa_plan p;

	t.unreadable = true;
	t.broken =
	    strdup("partitions 1 (sectors 34-20033) and 2 (sectors 10000-50000) overlap");
	plan_with(&t, &fix_opts, &p);
	assert_string_equal(
	    p.refusal,
	    "the partition table is inconsistent: partitions 1 (sectors "
	    "34-20033) and 2 (sectors 10000-50000) overlap; correct it by hand "
	    "(gdisk, fdisk) or restore a table backup: partalign does not guess "
	    "which entry is right");
	plan_free(&p);

	t = (struct pa_table){.label = PA_LABEL_GPT, .disk_size = DISK, .logical = 512};
	t.unreadable = true;
	t.pmbr = true;
	t.gpt_primary = PA_GPT_BAD_ARRAY;
	t.gpt_backup = PA_GPT_NO_HEADER;
	plan_with(&t, &fix_opts, &p);
	assert_string_equal(
	    p.refusal,
	    "both GPT copies are damaged (primary: entry array is damaged (its "
	    "CRC does not match); backup: header is damaged (no EFI PART "
	    "signature)): nothing intact to read the table from; restore a "
	    "table backup (partalign restore) or recover it with gdisk");
	plan_free(&p);
}

/* Entries away from LBA 2, a hybrid MBR: refused only when fix would write. */
static void test_odd_layouts(void **state)
{
	struct pa_table t = table_of(PA_LABEL_GPT, MISALIGNED, 1, false);
	struct pa_plan p;

	t.gpt_odd_layout = true;
	t.gpt_entries_lba = 1024;
	plan_with(&t, &fix_opts, &p);
	assert_contains(p.refusal, "the GPT entry array starts at LBA 1024, not LBA 2");
	plan_free(&p);
	t = table_of(PA_LABEL_GPT, ALIGNED, 1, false);
	t.gpt_odd_layout = true;
	t.gpt_entries_lba = 1024;
	plan_with(&t, &fix_opts, &p);
	assert_null(p.refusal);
	assert_int_equal(p.changes, 0);
	plan_free(&p);

	t = table_of(PA_LABEL_GPT, MISALIGNED, 1, false);
	t.pmbr = true;
	t.hybrid_entry = 2;
	t.hybrid_type = 0x83;
	plan_with(&t, &fix_opts, &p);
	assert_contains(p.refusal,
			"sector 0 is a hybrid MBR (dos entry 2, type 0x83, beside "
			"the protective 0xEE one)");
	plan_free(&p);
	t = table_of(PA_LABEL_GPT, ALIGNED, 1, false);
	t.pmbr = true;
	t.hybrid_entry = 2;
	t.hybrid_type = 0x83;
	plan_with(&t, &fix_opts, &p);
	assert_null(p.refusal);
	plan_free(&p);
}

/* --label keep names the logical partition (it used to blame an "empty" extended one). */
static void test_logical_keep(void **state)
{
	struct pa_plan_opts o = {.grain = PA_GRAIN_DEFAULT, .keep_label = true};
	struct pa_table t = table_of(PA_LABEL_MSDOS, 32256, 1, false);
	struct pa_entry ext = {
	    .num = 2, .start = 20 * MiB, .size = 30 * MiB, .extended = true};
	struct pa_entry lg = {
	    .num = 5, .start = 20 * MiB + 32256, .size = 10 * MiB, .logical = true};
	struct pa_plan p;

	assert_int_equal(plan_table_add(&t, &ext), 0);
	assert_int_equal(plan_table_add(&t, &lg), 0);
	plan_with(&t, &o, &p);
	assert_string_equal(p.refusal,
			    "partition 5 is a dos logical partition: logical "
			    "partitions cannot be kept in a dos table (drop --label "
			    "keep to convert to gpt)");
	plan_free(&p);
}

static void test_udev_stale(void **state)
{
	struct pa_dev disk = {.name = "vda", .path = "/dev/vda", .kind = PA_KIND_DISK};
	struct pa_dev part = {
	    .name = "vda1", .path = "/dev/vda1", .kind = PA_KIND_PART, .disk = &disk};
	char buf[512];

	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), -1);
	part.part_uuid = "0BADC0DE-1111-4222-8333-444455556666";
	part.ondisk_uuid = "0badc0de-1111-4222-8333-444455556666";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 0);
	part.ondisk_uuid = "58791f2d-280e-b845-b5bd-1d1b3d8cd4b3";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 1);
	assert_string_equal(
	    buf, "the udev database says PARTUUID "
		 "0BADC0DE-1111-4222-8333-444455556666, the partition table on "
		 "the disk says 58791f2d-280e-b845-b5bd-1d1b3d8cd4b3: stale udev "
		 "data; run 'udevadm trigger --action=change /dev/vda1' and "
		 "'udevadm settle'");
	/* the table was read and has no such entry (wiped): stale too */
	part.partno = 1;
	part.ondisk_uuid = NULL;
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), -1);
	part.ondisk_checked = true;
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 1);
	assert_contains(buf,
			"the partition table on the disk says there is no partition 1");
	part.ondisk_checked = false;
	part.part_uuid = part.ondisk_uuid = NULL;

	/* virtio serial: blanks around it do not count */
	disk.sys_serial = "QM 0001";
	part.id_serial = " QM 0001 ";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 0);
	part.id_serial = "QM 0002";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 1);
	assert_contains(buf, "says serial QM 0002, the kernel (sysfs) says QM 0001");
	part.id_serial = NULL;

	/* SCSI: naa.<hex> against 0x<hex>, ID_WWN being its first digits */
	disk.sys_wwid = "naa.600c0ff0001e2a2b3c4d5e6f70000000";
	part.id_wwn = "0x600c0ff0001e2a2b";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 0);
	part.id_wwn_ext = "0x600C0FF0001E2A2B3C4D5E6F70000000";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 0);
	part.id_wwn_ext = "0x600c0ff0001e2a2b3c4d5e6f7000ffff";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 1);
	part.id_wwn_ext = NULL;
	/* a t10. or eui. SCSI designator cannot be compared with 0x... */
	disk.sys_wwid = "t10.ATA     QEMU HARDDISK";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), -1);
	/* NVMe: ID_WWN is the wwid attribute itself */
	disk.sys_wwid = "eui.36344730526054870025384500000001";
	part.id_wwn = "eui.36344730526054870025384500000001";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 0);
	part.id_wwn = "eui.3634473052605487002538450000dead";
	assert_int_equal(device_udev_stale(&part, buf, sizeof(buf)), 1);
	assert_contains(buf, "says WWN eui.3634473052605487002538450000dead, the kernel "
			     "(sysfs) says eui.36344730526054870025384500000001");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_copy),	 cmocka_unit_test(test_primary_gone),
	    cmocka_unit_test(test_unreadable),	 cmocka_unit_test(test_odd_layouts),
	    cmocka_unit_test(test_logical_keep), cmocka_unit_test(test_udev_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
