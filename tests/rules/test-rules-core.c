/*
 * Unit tests of the pure rules core (core/rules.c): map parsing, names, safe
 * strings, the key chosen for each kind of device, refusals, clone detection,
 * the exact rules text, the unified diff and the scan of other rules files.
 * Devices are structs built here, as the scanner would fill them from udev.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/unit.h"

#include "core/rules.h"

/* ---- building devices ------------------------------------------------- */

static struct pa_dev *mkdev(struct pa_devlist *l, const char *name, enum pa_kind kind,
			    uint64_t size)
{
	struct pa_dev *d = device_new();

	assert_non_null(d);
	d->name = strdup(name);
	assert_true(asprintf(&d->path, "/dev/%s", name) > 0);
	d->kind = kind;
	d->size = size;
	assert_int_equal(devlist_add(l, d), 0);
	return d;
}

static void set(char **field, const char *v)
{
	free(*field);
	*field = v ? strdup(v) : NULL;
}

static struct pa_dev *mkpart(struct pa_devlist *l, struct pa_dev *disk, const char *name,
			     unsigned int partno, uint64_t size)
{
	struct pa_dev *p = mkdev(l, name, PA_KIND_PART, size);

	p->disk = disk;
	p->partno = partno;
	disk->nparts++;
	return p;
}

/* A SCSI disk as udev knows it: model, WWN, serial. */
static struct pa_dev *scsi_disk(struct pa_devlist *l, const char *name, const char *wwn,
				const char *serial)
{
	struct pa_dev *d = mkdev(l, name, PA_KIND_DISK, 100 * GiB);

	set(&d->model, "QEMU_HARDDISK");
	set(&d->id_wwn, wwn);
	set(&d->wwn, wwn);
	set(&d->id_serial, serial);
	set(&d->serial, serial);
	return d;
}

static int add_rule(struct rules_set *s, const struct pa_dev *d, enum rules_match m,
		    const char *name, struct pa_diags *diags)
{
	return rules_set_add(s, d, m, name, "grid", "asmadmin", "0660", diags);
}

/* The one diagnostic's message. */
static const char *diag_msg(const struct pa_diags *g)
{
	assert_int_equal(g->n, 1);
	return g->v[0].msg;
}

/* ---- names and strings ------------------------------------------------- */

static void test_names(void **state)
{
	char long_name[RULES_NAME_MAX + 2];

	assert_true(rules_name_is_valid("DATA_DISK01"));
	assert_true(rules_name_is_valid("fra.disk-2"));
	assert_true(rules_name_is_valid("_x"));
	assert_false(rules_name_is_valid(""));
	assert_false(rules_name_is_valid("."));
	assert_false(rules_name_is_valid(".."));
	assert_false(rules_name_is_valid(".hidden"));
	assert_false(rules_name_is_valid("-x"));
	assert_false(rules_name_is_valid("a/b"));
	assert_false(rules_name_is_valid("a b"));
	assert_false(rules_name_is_valid("a\"b"));
	assert_false(rules_name_is_valid("d\xc3\xa4ta"));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_false(rules_name_is_valid(long_name));
	long_name[RULES_NAME_MAX] = '\0';
	assert_true(rules_name_is_valid(long_name));

	assert_true(rules_account_is_valid("grid"));
	assert_true(rules_account_is_valid("54321"));
	assert_false(rules_account_is_valid("-grid"));
	assert_false(rules_account_is_valid("gr id"));
	assert_false(rules_account_is_valid(""));
}

static void test_modes(void **state)
{
	char m[8];

	assert_true(rules_mode_normalize("660", m));
	assert_string_equal(m, "0660");
	assert_true(rules_mode_normalize("0640", m));
	assert_string_equal(m, "0640");
	assert_true(rules_mode_normalize("2770", m));
	assert_string_equal(m, "2770");
	assert_false(rules_mode_normalize("8", m));
	assert_false(rules_mode_normalize("0680", m));
	assert_false(rules_mode_normalize("06600", m));
	assert_false(rules_mode_normalize("rw", m));
}

static void test_unsafe(void **state)
{
	assert_null(rules_value_unsafe("0QEMU_QEMU_HARDDISK_drive-scsi0-0-0-1"));
	assert_null(rules_value_unsafe("0x5000c500a1b2c3d4"));
	assert_null(rules_value_unsafe("part1-mpath-36001405a1b2c3d4e5f60718293a4b5c6"));
	assert_null(rules_value_unsafe("eui.0025388b91b3ea40"));
	assert_string_equal(rules_value_unsafe("AB\"C"), "a double quote");
	assert_string_equal(rules_value_unsafe("AB\\C"), "a backslash");
	assert_string_equal(rules_value_unsafe("AB\nC"), "a newline");
	assert_string_equal(rules_value_unsafe("AB\rC"), "a carriage return");
	assert_string_equal(rules_value_unsafe("AB\x01"), "a control byte");
	assert_string_equal(rules_value_unsafe("AB\x7f"), "a control byte");
	assert_string_equal(rules_value_unsafe("\xc3\xa4"), "a non-ASCII byte");
	assert_string_equal(rules_value_unsafe("a'b"), "a single quote");
	assert_contains(rules_value_unsafe("$env{X}"), "substitution");
	assert_contains(rules_value_unsafe("%k"), "substitution");
	assert_contains(rules_value_unsafe("*"), "glob");
	assert_contains(rules_value_unsafe("A|B"), "glob");
	assert_contains(rules_value_unsafe("A[0]"), "glob");
	/* udev keeps the blanks of a virtio serial in ID_SERIAL: plain text to its match
	 */
	assert_null(rules_value_unsafe("pa vblk sp"));
	assert_non_null(rules_value_unsafe("A;B"));
	assert_non_null(rules_value_unsafe(""));
	assert_non_null(rules_value_unsafe(NULL));

	/* comment text may hold spaces and punctuation, never quotes or newlines */
	assert_null(rules_text_unsafe("WDC WD10EZEX-08WN4A0 (SATA)"));
	assert_string_equal(rules_text_unsafe("QEMU\"\nACTION"), "a double quote");
	assert_string_equal(rules_text_unsafe("QEMU\nSYMLINK"), "a newline");
	assert_string_equal(rules_text_unsafe("x\ty"), "a control byte");
}

static void test_size_words(void **state)
{
	char b[32];

	assert_string_equal(rules_size_words(512, b, sizeof(b)), "512 B");
	assert_string_equal(rules_size_words(4 * KiB, b, sizeof(b)), "4 KiB");
	assert_string_equal(rules_size_words(10 * GiB, b, sizeof(b)), "10 GiB");
	assert_string_equal(rules_size_words(GiB + GiB / 2, b, sizeof(b)), "1.5 GiB");
	assert_string_equal(rules_size_words(100000000000ull, b, sizeof(b)), "93.1 GiB");
	assert_string_equal(rules_size_words(2 * TiB - 1, b, sizeof(b)), "1.9 TiB");
	assert_string_equal(rules_size_words(20969472ull * 512, b, sizeof(b)), "9.9 GiB");
}

/* ---- the map ----------------------------------------------------------- */

static void test_map_parse(void **state)
{
	struct rules_map m = {0};
	struct pa_diags g = {0};
	const char *text = "# ASM disks of db01\n"
			   "\n"
			   "DATA1  /dev/sdb1\n"
			   "   DATA2\twwn:0x5000c500a1b2c3d4-part1   # second shelf\n"
			   "FRA1 serial:ABC#1 oracle dba 640\n"
			   "OCR1 partuuid:0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a grid\n"
			   "   # indented comment\n";

	assert_int_equal(rules_map_parse(&m, text, "asm.map", &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.v[0].name, "DATA1");
	assert_string_equal(m.v[0].device, "/dev/sdb1");
	assert_null(m.v[0].owner);
	assert_string_equal(m.v[0].origin, "asm.map:3");
	assert_string_equal(m.v[1].device, "wwn:0x5000c500a1b2c3d4-part1");
	assert_string_equal(m.v[2].device, "serial:ABC#1");
	assert_string_equal(m.v[2].owner, "oracle");
	assert_string_equal(m.v[2].group, "dba");
	assert_string_equal(m.v[2].mode, "0640");
	assert_string_equal(m.v[3].owner, "grid");
	assert_null(m.v[3].group);
	assert_int_equal(rules_map_check_names(&m, &g), 0);
	rules_map_free(&m);
	diags_free(&g);
}

static void test_map_errors(void **state)
{
	struct rules_map m = {0};
	struct pa_diags g = {0};
	const char *text = "LONELY\n"
			   "bad/name /dev/sdb1\n"
			   "OK1 sdb1\n"
			   "OK2 /dev/sdc1 grid asmadmin 0990\n"
			   "OK3 /dev/sdd1 a b 0660 extra\n"
			   "OK4 /dev/sde1\n";

	assert_int_equal(rules_map_parse(&m, text, "m", &g), -EINVAL);
	assert_int_equal(g.n, 5);
	assert_string_equal(g.v[0].device, "m:1");
	assert_contains(g.v[0].msg, "expected 'name device");
	assert_string_equal(g.v[1].device, "m:2");
	assert_contains(g.v[1].msg, "ASM name 'bad/name' is not valid");
	assert_string_equal(g.v[2].device, "m:3");
	assert_contains(g.v[2].msg, "expected a /dev path, wwn:ID, serial:ID");
	assert_string_equal(g.v[3].device, "m:4");
	assert_contains(g.v[3].msg, "mode '0990'");
	assert_string_equal(g.v[4].device, "m:5");
	assert_int_equal(m.n, 1);
	assert_string_equal(m.v[0].name, "OK4");
	rules_map_free(&m);
	diags_free(&g);
}

static void test_map_names_twice(void **state)
{
	struct rules_map m = {0};
	struct pa_diags g = {0};

	assert_int_equal(rules_map_add_arg(&m, "DATA1=/dev/sdb1", &g), 0);
	assert_int_equal(rules_map_parse(&m, "data1 /dev/sdc1\n", "f", &g), 0);
	assert_int_equal(rules_map_check_names(&m, &g), -EINVAL);
	assert_string_equal(g.v[0].device, "f:1");
	assert_contains(diag_msg(&g), "name data1 given twice (also --disk as DATA1)");
	diags_free(&g);
	assert_int_equal(rules_map_add_arg(&m, "=/dev/sdb1", &g), -EINVAL);
	assert_int_equal(rules_map_add_arg(&m, "X=", &g), -EINVAL);
	assert_int_equal(rules_map_add_arg(&m, "X", &g), -EINVAL);
	assert_int_equal(g.n, 3);
	rules_map_free(&m);
	diags_free(&g);
}

static void test_spec_parse(void **state)
{
	enum rules_sel sel;
	const char *v;

	assert_int_equal(rules_spec_parse("/dev/sdb1", &sel, &v), 0);
	assert_int_equal(sel, RULES_SEL_PATH);
	assert_int_equal(rules_spec_parse("wwn:0x5000", &sel, &v), 0);
	assert_int_equal(sel, RULES_SEL_WWN);
	assert_string_equal(v, "0x5000");
	assert_int_equal(rules_spec_parse("SERIAL:abc", &sel, &v), 0);
	assert_int_equal(sel, RULES_SEL_SERIAL);
	assert_int_equal(rules_spec_parse("partuuid:1-2", &sel, &v), 0);
	assert_int_equal(sel, RULES_SEL_PARTUUID);
	assert_int_equal(rules_spec_parse("wwn:", &sel, &v), -EINVAL);
	assert_int_equal(rules_spec_parse("sdb1", &sel, &v), -EINVAL);
	assert_int_equal(rules_spec_parse("label:x", &sel, &v), -EINVAL);
}

/* ---- rules per kind of device ----------------------------------------- */

/* the header of a set made from --disk (an origin all empty) */
static const char header[] =
    "# Oracle ASM disks: /dev/oracleasm/NAME with the owner, group and mode ASM needs.\n"
    "# Written by partalign rules --disk NAME=DEVICE from the devices named.\n"
    "# Do not edit: run partalign rules again with a --disk for every ASM disk\n"
    "# (a disk left out loses its rule).\n";

/* The header says how the file was made, so that "do not edit" is true. */
static void test_header_origin(void **state)
{
	struct rules_set s = {0};
	char *text;

	(void)state;
	text = rules_text(&s);
	assert_string_equal(text, header);
	free(text);

	s.origin = (struct rules_origin){.map = "/etc/partalign/asm.map", .nmaps = 1};
	text = rules_text(&s);
	assert_string_equal(
	    text + strcspn(text, "\n") + 1,
	    "# Written by partalign rules from the map /etc/partalign/asm.map\n"
	    "# Do not edit: change the map and run 'partalign rules --map "
	    "/etc/partalign/asm.map' again.\n");
	free(text);

	s.origin.disks = true;
	text = rules_text(&s);
	assert_string_equal(
	    text + strcspn(text, "\n") + 1,
	    "# Written by partalign rules from the map /etc/partalign/asm.map and "
	    "--disk\n"
	    "# Do not edit: run partalign rules again with the same maps and --disk\n"
	    "# (a disk left out loses its rule).\n");
	free(text);

	s.origin = (struct rules_origin){.config = "/etc/partalign/asm-disks.conf"};
	text = rules_text(&s);
	assert_string_equal(text + strcspn(text, "\n") + 1,
			    "# Written by partalign provision from "
			    "/etc/partalign/asm-disks.conf\n"
			    "# Do not edit: change that configuration and run partalign "
			    "provision again.\n");
	free(text);

	s.origin = (struct rules_origin){.asm_headers = true};
	text = rules_text(&s);
	assert_string_equal(text + strcspn(text, "\n") + 1,
			    "# Written by partalign rules --from-asm from the Oracle ASM "
			    "disk headers.\n"
			    "# Do not edit: run partalign rules --from-asm again (a disk "
			    "left out loses\n# its rule).\n");
	free(text);

	/* a path cannot end the comment and smuggle a rule in */
	s.origin = (struct rules_origin){.map = "/tmp/x\nRUN+=\"/bin/sh\"\r", .nmaps = 1};
	text = rules_text(&s);
	assert_contains(text, "from the map /tmp/x?RUN+=\"/bin/sh\"?\n");
	assert_int_equal(strstr(text, "\nRUN"), NULL);
	free(text);
}

static void test_gpt_partition(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *sdb =
	    scsi_disk(&l, "sdb", "0x5000c500a1b2c3d4", "35000c500a1b2c3d4");
	struct pa_dev *p = mkpart(&l, sdb, "sdb1", 1, 10 * GiB);
	char *text;

	set(&p->part_uuid, "0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a");
	set(&p->part_scheme, "gpt");
	set(&sdb->pttype, "gpt");
	assert_int_equal(add_rule(&s, p, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_int_equal(rules_set_check(&s, &l, &g), 0);
	text = rules_text(&s);
	assert_string_equal(
	    text + sizeof(header) - 1,
	    "\n# DATA1: partition 1 (10 GiB) of QEMU_HARDDISK (100 GiB), WWN "
	    "0x5000c500a1b2c3d4\n"
	    "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"partition\", "
	    "ENV{ID_PART_ENTRY_UUID}==\"0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a\", "
	    "SYMLINK+=\"oracleasm/DATA1\", OWNER=\"grid\", GROUP=\"asmadmin\", "
	    "MODE=\"0660\", OPTIONS:=\"nowatch\"\n");
	assert_memory_equal(text, header, sizeof(header) - 1);
	free(text);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_mbr_partition_wwn_serial(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *sdb =
	    scsi_disk(&l, "sdb", "0x5000c500a1b2c3d4", "35000c500a1b2c3d4");
	struct pa_dev *vdc = mkdev(&l, "vdc", PA_KIND_DISK, 20 * GiB);
	struct pa_dev *p1 = mkpart(&l, sdb, "sdb1", 1, 4 * GiB);
	struct pa_dev *p2 = mkpart(&l, sdb, "sdb2", 2, 4 * GiB);
	struct pa_dev *v3 = mkpart(&l, vdc, "vdc3", 3, 5 * GiB);
	char *text;

	/* an MBR PARTUUID is the disk signature plus the number: not used by auto */
	set(&p1->part_uuid, "a1b2c3d4-01");
	set(&p1->part_scheme, "dos");
	set(&p2->part_uuid, "a1b2c3d4-02");
	set(&vdc->id_serial, "VIRTIO-SER-7");
	assert_int_equal(add_rule(&s, p1, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_int_equal(add_rule(&s, p2, RULES_MATCH_SERIAL, "DATA2", &g), 0);
	assert_int_equal(add_rule(&s, v3, RULES_MATCH_AUTO, "ARCH1", &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(rules_set_check(&s, &l, &g), 0);
	text = rules_text(&s);
	/* sorted by name: ARCH1, DATA1, DATA2 */
	assert_string_equal(
	    text + sizeof(header) - 1,
	    "\n# ARCH1: partition 3 (5 GiB) of a 20 GiB disk, serial VIRTIO-SER-7\n"
	    "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"partition\", "
	    "ENV{ID_SERIAL}==\"VIRTIO-SER-7\", ENV{PARTN}==\"3\", "
	    "SYMLINK+=\"oracleasm/ARCH1\", OWNER=\"grid\", GROUP=\"asmadmin\", "
	    "MODE=\"0660\", "
	    "OPTIONS:=\"nowatch\"\n"
	    "\n# DATA1: partition 1 (4 GiB) of QEMU_HARDDISK (100 GiB), WWN "
	    "0x5000c500a1b2c3d4\n"
	    "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"partition\", "
	    "ENV{ID_WWN}==\"0x5000c500a1b2c3d4\", ENV{PARTN}==\"1\", "
	    "SYMLINK+=\"oracleasm/DATA1\", OWNER=\"grid\", GROUP=\"asmadmin\", "
	    "MODE=\"0660\", "
	    "OPTIONS:=\"nowatch\"\n"
	    "\n# DATA2: partition 2 (4 GiB) of QEMU_HARDDISK (100 GiB), WWN "
	    "0x5000c500a1b2c3d4, serial 35000c500a1b2c3d4\n"
	    "ACTION==\"add|change\", SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"partition\", "
	    "ENV{ID_SERIAL}==\"35000c500a1b2c3d4\", ENV{PARTN}==\"2\", "
	    "SYMLINK+=\"oracleasm/DATA2\", OWNER=\"grid\", GROUP=\"asmadmin\", "
	    "MODE=\"0660\", "
	    "OPTIONS:=\"nowatch\"\n");
	free(text);
	rules_set_free(&s);
	devlist_free(&l);
}

/* Two LUNs of one array: the same 64-bit ID_WWN, told apart by the extension. */
static void test_wwn_extension(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *sdb = scsi_disk(&l, "sdb", "0x600a0b8000123456", NULL);
	struct pa_dev *sdc = scsi_disk(&l, "sdc", "0x600a0b8000123456", NULL);
	struct pa_dev *b1 = mkpart(&l, sdb, "sdb1", 1, GiB);
	char *text;

	mkpart(&l, sdc, "sdc1", 1, GiB);
	set(&sdb->id_wwn_ext, "0x600a0b80001234560000abcd5e6f7081");
	set(&sdc->id_wwn_ext, "0x600a0b80001234560000abcd5e6f7082");
	assert_int_equal(add_rule(&s, b1, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_int_equal(rules_set_check(&s, &l, &g), 0);
	assert_string_equal(rules_rule_key(&s.v[0]), "ENV{ID_WWN_WITH_EXTENSION}");
	text = rules_text(&s);
	assert_contains(text, "WWN 0x600a0b80001234560000abcd5e6f7081\n");
	assert_contains(
	    text, "ENV{DEVTYPE}==\"partition\", "
		  "ENV{ID_WWN_WITH_EXTENSION}==\"0x600a0b80001234560000abcd5e6f7081\", "
		  "ENV{PARTN}==\"1\", SYMLINK+=\"oracleasm/DATA1\"");
	free(text);
	rules_set_free(&s);

	/* without the extension the key would name both LUNs: refused */
	free(sdb->id_wwn_ext);
	free(sdc->id_wwn_ext);
	sdb->id_wwn_ext = sdc->id_wwn_ext = NULL;
	assert_int_equal(add_rule(&s, b1, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_string_equal(rules_rule_key(&s.v[0]), "ENV{ID_WWN}");
	assert_int_equal(rules_set_check(&s, &l, &g), -EEXIST);
	assert_contains(diag_msg(&g), "/dev/sdc1 has it too");
	diags_free(&g);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_whole_disk(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *nvme = mkdev(&l, "nvme0n1", PA_KIND_DISK, 8 * GiB);
	char *text;

	set(&nvme->model, "QEMU NVMe Ctrl");
	set(&nvme->id_wwn, "nvme.1b36-4e564d45-51454d55-00000001");
	assert_int_equal(add_rule(&s, nvme, RULES_MATCH_AUTO, "REDO1", &g), 0);
	text = rules_text(&s);
	assert_contains(text, "# REDO1: whole disk QEMU NVMe Ctrl (8 GiB), WWN "
			      "nvme.1b36-4e564d45-51454d55-00000001\n");
	assert_contains(text, "SUBSYSTEM==\"block\", ENV{DEVTYPE}==\"disk\", "
			      "ENV{ID_WWN}==\"nvme.1b36-4e564d45-51454d55-00000001\", "
			      "SYMLINK+=\"oracleasm/REDO1\"");
	assert_not_contains(text, "PARTN");
	free(text);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_multipath(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	const char *wwid = "36001405a1b2c3d4e5f60718293a4b5c6";
	struct pa_dev *sdb =
	    scsi_disk(&l, "sdb", "0x6001405a1b2c3d4e5f60718293a4b5c6", wwid);
	struct pa_dev *sdc =
	    scsi_disk(&l, "sdc", "0x6001405a1b2c3d4e5f60718293a4b5c6", wwid);
	struct pa_dev *map = mkdev(&l, "dm-0", PA_KIND_MPATH, 100 * GiB);
	struct pa_dev *map2 = mkdev(&l, "dm-2", PA_KIND_MPATH, 50 * GiB);
	struct pa_dev *kp, *sdb1, *sdc1;
	char *text, *uuid;

	set(&map->dm_uuid, "mpath-36001405a1b2c3d4e5f60718293a4b5c6");
	set(&map->dm_name, "mpatha");
	set(&map2->dm_uuid, "mpath-36001405ffff");
	kp = mkpart(&l, map, "dm-1", 1, 10 * GiB);
	set(&kp->dm_uuid, "part1-mpath-36001405a1b2c3d4e5f60718293a4b5c6");
	/* a kernel that parsed the paths' tables made sdb1 and sdc1 too */
	sdb1 = mkpart(&l, sdb, "sdb1", 1, 10 * GiB);
	sdc1 = mkpart(&l, sdc, "sdc1", 1, 10 * GiB);
	set(&sdb1->part_uuid, "0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a");
	set(&sdc1->part_uuid, "0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a");
	sdb->is_path = sdc->is_path = sdb1->is_path = sdc1->is_path = true;
	sdb->map = sdc->map = sdb1->map = sdc1->map = map;

	assert_int_equal(add_rule(&s, kp, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_int_equal(add_rule(&s, map2, RULES_MATCH_AUTO, "DATA2", &g), 0);
	assert_int_equal(rules_set_check(&s, &l, &g), 0);
	text = rules_text(&s);
	assert_true(
	    asprintf(
		&uuid,
		"# DATA1: partition 1 (10 GiB) of a multipath map (100 GiB), WWID %s\n"
		"ACTION==\"add|change\", SUBSYSTEM==\"block\", "
		"ENV{DM_UUID}==\"part1-mpath-%s\", SYMLINK+=\"oracleasm/DATA1\"",
		wwid, wwid) > 0);
	assert_contains(text, uuid);
	assert_contains(
	    text, "# DATA2: multipath map (50 GiB), WWID 36001405ffff\n"
		  "ACTION==\"add|change\", SUBSYSTEM==\"block\", "
		  "ENV{DM_UUID}==\"mpath-36001405ffff\", SYMLINK+=\"oracleasm/DATA2\"");
	/* never the sdX paths, never DEVTYPE=partition on a dm device */
	assert_not_contains(text, "sdb");
	assert_not_contains(text, "ENV{DEVTYPE}");
	free(uuid);
	free(text);

	/* naming a path, a path's partition or the map holding partitions: refused */
	assert_int_equal(add_rule(&s, sdb, RULES_MATCH_AUTO, "X1", &g), -EINVAL);
	assert_contains(diag_msg(&g), "is a path of multipath map mpatha: name the map "
				      "(/dev/mapper/mpatha)");
	diags_free(&g);
	assert_int_equal(add_rule(&s, sdc1, RULES_MATCH_PARTUUID, "X2", &g), -EINVAL);
	assert_contains(diag_msg(&g), "is partition 1 of a path of multipath map mpatha");
	diags_free(&g);
	assert_int_equal(add_rule(&s, map, RULES_MATCH_AUTO, "X3", &g), -EINVAL);
	assert_contains(diag_msg(&g), "holds 1 partition(s)");
	diags_free(&g);
	assert_int_equal(add_rule(&s, kp, RULES_MATCH_WWN, "X4", &g), -EINVAL);
	assert_contains(diag_msg(&g), "--match wwn cannot name a device-mapper device");
	diags_free(&g);
	assert_int_equal(s.n, 2);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_no_usable_id(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *loop = mkdev(&l, "loop3", PA_KIND_LOOP, GiB);
	struct pa_dev *vdb = mkdev(&l, "vdb", PA_KIND_DISK, GiB);
	struct pa_dev *sdd = mkdev(&l, "sdd", PA_KIND_DISK, GiB);
	struct pa_dev *md = mkdev(&l, "md0", PA_KIND_MD, GiB);
	struct pa_dev *lp;

	set(&sdd->model, "VMware_Virtual_disk");
	assert_int_equal(add_rule(&s, loop, RULES_MATCH_AUTO, "A", &g), -ENODATA);
	assert_contains(diag_msg(&g), "a loop device has no serial number or WWN");
	assert_string_equal(g.v[0].device, "/dev/loop3");
	diags_free(&g);
	assert_int_equal(add_rule(&s, vdb, RULES_MATCH_SERIAL, "A", &g), -ENODATA);
	assert_contains(diag_msg(&g),
			"--match serial: udev knows no ID_SERIAL of this disk "
			"(virtio disks need a serial number");
	diags_free(&g);
	assert_int_equal(add_rule(&s, sdd, RULES_MATCH_AUTO, "A", &g), -ENODATA);
	assert_contains(diag_msg(&g), "disk.EnableUUID=TRUE");
	diags_free(&g);
	assert_int_equal(add_rule(&s, md, RULES_MATCH_AUTO, "A", &g), -ENODATA);
	diags_free(&g);
	lp = mkpart(&l, loop, "loop3p1", 1, GiB / 2);
	set(&lp->part_uuid, "a1b2c3d4-01");
	set(&lp->part_scheme, "dos");
	assert_int_equal(add_rule(&s, lp, RULES_MATCH_AUTO, "A", &g), -ENODATA);
	assert_contains(diag_msg(&g), "no usable ID: no GPT partition UUID");
	diags_free(&g);
	/* ... but forced, the MBR PARTUUID is a key */
	assert_int_equal(add_rule(&s, lp, RULES_MATCH_PARTUUID, "A", &g), 0);
	/* the whole loop device now holds a partition */
	assert_int_equal(add_rule(&s, loop, RULES_MATCH_AUTO, "B", &g), -EINVAL);
	assert_contains(diag_msg(&g), "name a partition, not the whole disk");
	diags_free(&g);
	assert_int_equal(add_rule(&s, vdb, RULES_MATCH_PARTUUID, "C", &g), -EINVAL);
	diags_free(&g);
	assert_int_equal(add_rule(&s, vdb, RULES_MATCH_DMUUID, "C", &g), -EINVAL);
	diags_free(&g);
	rules_set_free(&s);
	devlist_free(&l);
}

/*
 * udev's reading of one rule line, written from udev(7) and not from
 * partalign's code: KEY OP "VALUE" pairs separated by commas and blanks; in a
 * value, \" stands for a quote and any other byte is itself; a match value is
 * split at '|' into alternatives, each a glob (fnmatch(3)) when it holds '*',
 * '?' or '['.  The line's keys go into @keys ("KEY OP" each, space-separated);
 * the value of @key== into @val.  False when the line is not valid syntax.
 */
static bool udev_parse_line(const char *line, const char *key, char *val, size_t vlen,
			    char *keys, size_t klen)
{
	const char *p = line;
	bool found = false;

	keys[0] = '\0';
	while (*p) {
		char k[64], op[3], v[1024];
		size_t n = 0, i = 0;

		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		while (*p && !strchr("=!+-:", *p) && n + 1 < sizeof(k))
			k[n++] = *p++;
		k[n] = '\0';
		n = 0;
		while (*p && strchr("=!+-:", *p) && n < 2)
			op[n++] = *p++;
		op[n] = '\0';
		if (!k[0] || !op[0] || *p != '"')
			return false;
		for (p++; *p != '"'; p++) {
			if (!*p || *p == '\n' || i + 1 >= sizeof(v))
				return false;
			if (p[0] == '\\' && p[1] == '"')
				p++;
			v[i++] = *p;
		}
		v[i] = '\0';
		p++;
		if (*p && *p != ',' && *p != ' ')
			return false;
		if (strlen(keys) + strlen(k) + strlen(op) + 2 >= klen)
			return false;
		strcat(keys, keys[0] ? " " : "");
		strcat(keys, k);
		strcat(keys, op);
		if (strcmp(k, key) == 0 && strcmp(op, "==") == 0) {
			if (i + 1 > vlen)
				return false;
			memcpy(val, v, i + 1);
			found = true;
		}
	}
	return found;
}

static bool udev_value_matches(const char *pattern, const char *s)
{
	char alt[1024];
	const char *p = pattern;

	for (;;) {
		size_t n = strcspn(p, "|");

		if (n >= sizeof(alt))
			return false;
		memcpy(alt, p, n);
		alt[n] = '\0';
		if (strpbrk(alt, "*?[") ? fnmatch(alt, s, 0) == 0 : strcmp(alt, s) == 0)
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

/*
 * The one rule of @text as udev reads it: exactly the keys partalign
 * documents (nothing injected, no second rule), and a match on
 * ENV{ID_SERIAL} that accepts @serial and no near miss of it.
 */
static void assert_matches_exactly(const char *text, const char *serial, bool partn)
{
	const char *want_keys =
	    partn ? "ACTION== SUBSYSTEM== ENV{DEVTYPE}== ENV{ID_SERIAL}== "
		    "ENV{PARTN}== SYMLINK+= OWNER= GROUP= MODE= OPTIONS:="
		  : "ACTION== SUBSYSTEM== ENV{DEVTYPE}== ENV{ID_SERIAL}== "
		    "SYMLINK+= OWNER= GROUP= MODE= OPTIONS:=";
	char val[1024], keys[512], miss[1024];
	const char *line = NULL, *p;
	size_t n = strlen(serial), i, nrules = 0;

	for (p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (*p != '#' && *p != '\n') {
			line = p;
			nrules++;
		}
	assert_int_equal(nrules, 1);
	{
		char *one = strndup(line, strcspn(line, "\n"));

		assert_true(udev_parse_line(one, "ENV{ID_SERIAL}", val, sizeof(val), keys,
					    sizeof(keys)));
		free(one);
	}
	assert_string_equal(keys, want_keys);
	assert_true(udev_value_matches(val, serial));
	/* near misses: one byte changed, one more, one less, a prefix or suffix */
	assert_true(n + 2 < sizeof(miss));
	for (i = 0; i < n; i++) {
		memcpy(miss, serial, n + 1);
		miss[i] = serial[i] == 'Z' ? 'Y' : 'Z';
		assert_false(udev_value_matches(val, miss));
	}
	snprintf(miss, sizeof(miss), "%sZ", serial);
	assert_false(udev_value_matches(val, miss));
	snprintf(miss, sizeof(miss), "Z%s", serial);
	assert_false(udev_value_matches(val, miss));
	if (n > 1) {
		snprintf(miss, sizeof(miss), "%.*s", (int)(n - 1), serial);
		assert_false(udev_value_matches(val, miss));
	}
	assert_false(udev_value_matches(val, ""));
}

static void test_hostile_strings(void **state)
{
	static char longest[301];
	const char *hostile[] = {
	    "X\", RUN+=\"/tmp/evil",
	    "\"",
	    "\\",
	    "A\\\"B",
	    "SER\\",
	    "SER*",
	    "SER?",
	    "SER[0-9]",
	    "A|B",
	    "*",
	    "SER\nACTION==\"add\", RUN+=\"/bin/sh\"",
	    "SER\n",
	    "$env{HOME}",
	    "$kernel",
	    "%k",
	    "SER%",
	    "it's",
	    "A\tB",
	    "\xc3\xa4",
	    "pa vblk sp",
	    " lead and trail ",
	    "A,B=C/D@E~F+G:H",
	    longest,
	};
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *c, *e, *cp, *h;
	size_t i, accepted = 0;
	char *text;
	int rc;

	memset(longest, 'A', sizeof(longest) - 1);
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char name[32];
		struct pa_dev *d, *p;
		int w;

		/* an MBR partition of a disk without WWN: auto keys on ID_SERIAL + PARTN,
		 * and the whole disk (no table) on ID_SERIAL */
		for (w = 0; w < 2; w++) {
			snprintf(name, sizeof(name), "sd%c%zu", w ? 'w' : 'p', i);
			d = scsi_disk(&l, name, NULL, hostile[i]);
			p = NULL;
			if (!w) {
				snprintf(name, sizeof(name), "sdp%zup1", i);
				p = mkpart(&l, d, name, 1, GiB);
				set(&p->part_uuid, "a1b2c3d4-01");
				set(&p->part_scheme, "dos");
			}
			rc = add_rule(&s, p ? p : d, RULES_MATCH_SERIAL, "H", &g);
			if (rc < 0) {
				assert_int_equal(rc, -EILSEQ);
				assert_int_equal(s.n, 0);
				assert_contains(diag_msg(&g),
						"serial number (ID_SERIAL)");
				/* the string itself is never repeated, not even in the
				 * message */
				if (strlen(hostile[i]) > 2)
					assert_not_contains(g.v[0].msg, hostile[i]);
				assert_not_contains(g.v[0].msg, "evil");
				assert_not_contains(g.v[0].msg, "\n");
			} else {
				assert_int_equal(rc, 0);
				assert_int_equal(g.n, 0);
				text = rules_text(&s);
				assert_matches_exactly(text + sizeof(header) - 1,
						       hostile[i], !w);
				free(text);
				accepted++;
			}
			diags_free(&g);
			rules_set_free(&s);
		}
	}
	/* blanks, commas and the like are plain text; the rest cannot be matched safely
	 */
	assert_int_equal(accepted, 2 * 3);

	c = scsi_disk(&l, "sdc", "0x5000c500a1b2c3d4", "OK1");
	e = scsi_disk(&l, "sde", "0x5000c500a1b2c3d6\\", "OK3");
	rc = add_rule(&s, e, RULES_MATCH_AUTO, "E", &g);
	assert_int_equal(rc, -EILSEQ);
	assert_contains(diag_msg(&g),
			"WWN (ID_WWN) udev reports for this device contains a "
			"backslash");
	diags_free(&g);

	/* a crafted model is refused even when the key itself is clean */
	set(&c->model, "QEMU\nKERNEL==\"sd*\", RUN+=\"/bin/sh\"");
	cp = mkpart(&l, c, "sdc1", 1, GiB);
	set(&cp->part_uuid, "0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a");
	assert_int_equal(add_rule(&s, cp, RULES_MATCH_AUTO, "C", &g), -EILSEQ);
	assert_contains(diag_msg(&g),
			"the model name the hardware reports contains a newline");
	diags_free(&g);

	/* a hostile serial is not written when the key is the WWN */
	h = scsi_disk(&l, "sdh", "0x5000c500a1b2c3d5",
		      "X\", RUN+=\"/tmp/evil\nKERNEL==\"*");
	assert_int_equal(add_rule(&s, h, RULES_MATCH_AUTO, "D", &g), 0);
	assert_int_equal(s.n, 1);
	text = rules_text(&s);
	assert_contains(text, "ENV{ID_WWN}==\"0x5000c500a1b2c3d5\"");
	assert_not_contains(text, "evil");
	assert_not_contains(text, "RUN");
	assert_not_contains(text, "KERNEL");
	free(text);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_clones(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	/* two VMs cloned from one image: same WWN, same GPT PARTUUIDs */
	struct pa_dev *sdb = scsi_disk(&l, "sdb", "0x5000c500a1b2c3d4", "S1");
	struct pa_dev *sdc = scsi_disk(&l, "sdc", "0x5000c500a1b2c3d4", "S2");
	struct pa_dev *b1 = mkpart(&l, sdb, "sdb1", 1, GiB);
	struct pa_dev *c1 = mkpart(&l, sdc, "sdc1", 1, GiB);
	struct pa_dev *c2 = mkpart(&l, sdc, "sdc2", 2, GiB);
	const struct pa_dev *other;

	set(&b1->part_uuid, "0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a");
	set(&c1->part_uuid, "0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a");
	set(&b1->part_scheme, "gpt");
	set(&c1->part_scheme, "gpt");
	assert_int_equal(add_rule(&s, b1, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_int_equal(rules_rule_matches(&l, &s.v[0], &other), 2);
	assert_ptr_equal(other, c1);
	assert_int_equal(rules_set_check(&s, &l, &g), -EEXIST);
	assert_contains(diag_msg(&g),
			"ID_PART_ENTRY_UUID 0b7e3c6a-1f5e-4a4e-9d7a-3c1f0e2d4b5a "
			"is not unique: /dev/sdc1 has it too (a cloned VM disk");
	diags_free(&g);
	rules_set_free(&s);

	/* the WWN plus partition number is shared as well; the serial is not */
	assert_int_equal(add_rule(&s, c2, RULES_MATCH_WWN, "DATA2", &g), 0);
	assert_int_equal(rules_rule_matches(&l, &s.v[0], &other), 1);
	assert_null(other);
	assert_int_equal(add_rule(&s, c1, RULES_MATCH_WWN, "DATA3", &g), 0);
	assert_int_equal(add_rule(&s, c1, RULES_MATCH_SERIAL, "DATA4", &g), 0);
	assert_int_equal(rules_set_check(&s, &l, &g), -EEXIST);
	assert_int_equal(g.n, 2);
	assert_contains(g.v[0].msg, "ID_WWN 0x5000c500a1b2c3d4 with partition 1 is not "
				    "unique: /dev/sdb1 has it too");
	assert_contains(g.v[1].msg, "two names for one device: DATA3 and DATA4");
	assert_string_equal(g.v[1].device, "/dev/sdc1");
	diags_free(&g);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_spec_find(void **state)
{
	struct pa_devlist l = {0};
	struct pa_dev *sdb = scsi_disk(&l, "sdb", "0x5000c500a1b2c3d4", "SER-B");
	struct pa_dev *sdc = scsi_disk(&l, "sdc", "0x6001405aaaa", "36001405aaaa");
	struct pa_dev *sdd = scsi_disk(&l, "sdd", "0x6001405aaaa", "36001405aaaa");
	struct pa_dev *map = mkdev(&l, "dm-0", PA_KIND_MPATH, GiB);
	struct pa_dev *b1 = mkpart(&l, sdb, "sdb1", 1, GiB);
	struct pa_dev *kp, *c1, *out, *other;
	struct pa_dev *e1 = scsi_disk(&l, "sde", "0x1111", "CLONE");
	struct pa_dev *e2 = scsi_disk(&l, "sdf", "0x2222", "CLONE");

	set(&map->dm_uuid, "mpath-36001405aaaa");
	sdc->is_path = sdd->is_path = true;
	sdc->map = sdd->map = map;
	kp = mkpart(&l, map, "dm-1", 1, GiB);
	set(&kp->dm_uuid, "part1-mpath-36001405aaaa");
	c1 = mkpart(&l, sdc, "sdc1", 1, GiB);
	c1->is_path = true;
	c1->map = map;
	set(&c1->part_uuid, "AAAA-1");
	set(&b1->part_uuid, "bbbb-1");

	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_WWN, "0x5000c500a1b2c3d4", &out, &other), 0);
	assert_ptr_equal(out, sdb);
	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_WWN, "5000C500A1B2C3D4", &out, &other), 0);
	assert_ptr_equal(out, sdb);
	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_WWN, "0x5000c500a1b2c3d4-part1", &out, &other),
	    0);
	assert_ptr_equal(out, b1);
	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_SERIAL, "SER-B-part1", &out, &other), 0);
	assert_ptr_equal(out, b1);
	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_SERIAL, "SER-B-part9", &out, &other), -ENODEV);
	/* the paths' WWN names the map; its partition through -partN */
	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_WWN, "0x6001405aaaa", &out, &other), 0);
	assert_ptr_equal(out, map);
	assert_int_equal(rules_spec_find(&l, RULES_SEL_WWN, "36001405aaaa", &out, &other),
			 0);
	assert_ptr_equal(out, map);
	assert_int_equal(
	    rules_spec_find(&l, RULES_SEL_SERIAL, "36001405aaaa-part1", &out, &other), 0);
	assert_ptr_equal(out, kp);
	/* a path partition's PARTUUID names the map's partition */
	assert_int_equal(rules_spec_find(&l, RULES_SEL_PARTUUID, "aaaa-1", &out, &other),
			 0);
	assert_ptr_equal(out, kp);
	assert_int_equal(rules_spec_find(&l, RULES_SEL_SERIAL, "CLONE", &out, &other),
			 -EEXIST);
	assert_true((out == e1 && other == e2) || (out == e2 && other == e1));
	assert_int_equal(rules_spec_find(&l, RULES_SEL_SERIAL, "NOPE", &out, &other),
			 -ENODEV);
	devlist_free(&l);
}

/* ---- diff, claims, files ------------------------------------------------ */

static void test_diff(void **state)
{
	char *d;

	d = rules_diff("a\nb\n", "a\nb\n", "old", "new");
	assert_string_equal(d, "");
	free(d);
	d = rules_diff(NULL, "x\ny\n", "f", "f");
	assert_string_equal(d, "--- /dev/null\n+++ f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	free(d);
	d = rules_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n",
		       "1\n2\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n13\n14\n", "f", "f");
	assert_string_equal(d, "--- f\n+++ f\n"
			       "@@ -1,5 +1,6 @@\n 1\n 2\n+TWO\n 3\n 4\n 5\n"
			       "@@ -9,6 +10,5 @@\n 9\n 10\n 11\n-12\n 13\n 14\n");
	free(d);
	d = rules_diff("a\nb", "a\nc\n", "f", "f");
	assert_string_equal(d, "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n"
			       "\\ No newline at end of file\n+c\n");
	free(d);
	d = rules_diff("gone\n", "", "f", "f");
	assert_string_equal(d, "--- f\n+++ f\n@@ -1 +0,0 @@\n-gone\n");
	free(d);
}

static void test_claims(void **state)
{
	struct pa_devlist l = {0};
	struct rules_set s = {0};
	struct pa_diags g = {0};
	struct pa_dev *sdb = scsi_disk(&l, "sdb", "0x5000c500a1b2c3d4", "S1");
	struct pa_dev *sdc = scsi_disk(&l, "sdc", "0x5000c500a1b2c3d5", "S2");
	struct rules_claim *c = NULL;
	size_t n = 0;
	const char *other = "# SYMLINK+=\"oracleasm/DATA1\" in a comment\n"
			    "KERNEL==\"sdb\", \\\n"
			    "  SYMLINK+=\"oracleasm/DATA1\"\n"
			    "SYMLINK+=\"oracleasm/DATA10\"\n"
			    "ENV{ID_WWN}==\"0x5000c500a1b2c3d5\", NAME=\"asm-disk\"\n"
			    "ENV{ID_SERIAL}==\"0x5000c500a1b2c3d5x\", SYMLINK+=\"x\"\n";

	assert_int_equal(add_rule(&s, sdb, RULES_MATCH_AUTO, "DATA1", &g), 0);
	assert_int_equal(add_rule(&s, sdc, RULES_MATCH_AUTO, "DATA2", &g), 0);
	assert_int_equal(rules_find_claims(other, &s, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].line, 2);
	assert_int_equal(c[0].rule, 0);
	assert_true(c[0].link);
	assert_int_equal(c[1].line, 5);
	assert_int_equal(c[1].rule, 1);
	assert_false(c[1].link);
	free(c);
	rules_set_free(&s);
	devlist_free(&l);
}

static void test_links_and_dbfiles(void **state)
{
	char **names = NULL;
	size_t n = 0;

	assert_int_equal(
	    rules_text_links("# x\nA, SYMLINK+=\"oracleasm/DATA1\", B\n"
			     "SYMLINK+=\"oracleasm/FRA.1\"\nSYMLINK+=\"other/X\"\n",
			     &names, &n),
	    0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "DATA1");
	assert_string_equal(names[1], "FRA.1");
	rules_strv_free(names, n);

	assert_true(rules_dbfile_has(
	    "root:x:0:0::/root:/bin/sh\ngrid:x:54321:54321::/:/bin/sh\n", "grid"));
	assert_false(rules_dbfile_has("gridx:x:1:1::/:/bin/sh\n", "grid"));
	assert_false(rules_dbfile_has("root:x:0:0:grid:/root:/bin/sh\n", "grid"));
	assert_true(rules_dbfile_has("asmadmin:x:54329:grid", "asmadmin"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_unsafe),
	    cmocka_unit_test(test_size_words),
	    cmocka_unit_test(test_map_parse),
	    cmocka_unit_test(test_map_errors),
	    cmocka_unit_test(test_map_names_twice),
	    cmocka_unit_test(test_spec_parse),
	    cmocka_unit_test(test_gpt_partition),
	    cmocka_unit_test(test_mbr_partition_wwn_serial),
	    cmocka_unit_test(test_wwn_extension),
	    cmocka_unit_test(test_whole_disk),
	    cmocka_unit_test(test_multipath),
	    cmocka_unit_test(test_no_usable_id),
	    cmocka_unit_test(test_hostile_strings),
	    cmocka_unit_test(test_clones),
	    cmocka_unit_test(test_spec_find),
	    cmocka_unit_test(test_diff),
	    cmocka_unit_test(test_claims),
	    cmocka_unit_test(test_links_and_dbfiles),
	    cmocka_unit_test(test_header_origin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
