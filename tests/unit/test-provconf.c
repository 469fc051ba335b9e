/*
 * Unit tests of core/provconf.c, the configuration of partalign provision,
 * and of the tokenizer it shares with the map parser of core/rules.c.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/provconf.h"
#include "core/rules.h"

struct parsed {
	struct provconf c;
	struct pa_diags diags;
	int rc;
};

static void parse(struct parsed *p, const char *text, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->rc = provconf_parse(&p->c, text, len, "asm.conf", &p->diags);
}

static void parsed_free(struct parsed *p)
{
	provconf_free(&p->c);
	diags_free(&p->diags);
}

/* @text is refused with exactly one diagnostic, at @where, containing @msg. */
static void expect_bad(const char *text, const char *where, const char *msg)
{
	struct parsed p;

	parse(&p, text, strlen(text));
	if (p.rc != -EINVAL || p.diags.n != 1) {
		print_error("\"%s\": rc %d, %zu diagnostics\n", text, p.rc, p.diags.n);
		fail();
	}
	assert_string_equal(p.diags.v[0].device, where);
	assert_int_equal(p.diags.v[0].err, 0);
	assert_contains(p.diags.v[0].msg, msg);
	parsed_free(&p);
}

static void test_good(void **state)
{
	static const char text[] =
	    "# ASM disks\n"
	    "owner grid\n"
	    "group asmadmin\n"
	    "mode 660\n"
	    "align 4MiB\n"
	    "rules /etc/udev/rules.d/99-asm.rules\n"
	    "\n"
	    "DATA1\t/dev/sdb\n"
	    "DATA2  wwn:0x5000c500a1b2c3d4  owner=oracle mode=0640 # 4Kn\n"
	    "FRA1 serial:ABC-123 group=dba\n"
	    "FRA2 size:100GiB\n"
	    "   # an indented comment";
	struct parsed p;

	parse(&p, text, sizeof(text) - 1);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.diags.n, 0);
	assert_string_equal(p.c.owner, "grid");
	assert_string_equal(p.c.group, "asmadmin");
	assert_string_equal(p.c.mode, "0660");
	assert_string_equal(p.c.align, "4MiB");
	assert_int_equal(p.c.grain.value, 4 * MiB);
	assert_false(p.c.grain.sectors);
	assert_string_equal(p.c.rules, "/etc/udev/rules.d/99-asm.rules");
	assert_int_equal(p.c.n, 4);

	assert_string_equal(p.c.v[0].name, "DATA1");
	assert_int_equal(p.c.v[0].sel, PROVCONF_SEL_PATH);
	assert_string_equal(p.c.v[0].value, "/dev/sdb");
	assert_string_equal(p.c.v[0].where, "asm.conf:8");
	assert_string_equal(provconf_owner(&p.c, &p.c.v[0]), "grid");
	assert_string_equal(provconf_mode(&p.c, &p.c.v[0]), "0660");

	assert_int_equal(p.c.v[1].sel, PROVCONF_SEL_WWN);
	assert_string_equal(p.c.v[1].selector, "wwn:0x5000c500a1b2c3d4");
	assert_string_equal(p.c.v[1].value, "0x5000c500a1b2c3d4");
	assert_string_equal(provconf_owner(&p.c, &p.c.v[1]), "oracle");
	assert_string_equal(provconf_group(&p.c, &p.c.v[1]), "asmadmin");
	assert_string_equal(provconf_mode(&p.c, &p.c.v[1]), "0640");

	assert_int_equal(p.c.v[2].sel, PROVCONF_SEL_SERIAL);
	assert_string_equal(p.c.v[2].value, "ABC-123");
	assert_string_equal(provconf_group(&p.c, &p.c.v[2]), "dba");

	assert_int_equal(p.c.v[3].sel, PROVCONF_SEL_SIZE);
	assert_int_equal(p.c.v[3].size, 100 * GiB);
	assert_string_equal(p.c.v[3].where, "asm.conf:11");
	parsed_free(&p);
}

static void test_defaults(void **state)
{
	struct parsed p;

	parse(&p, "D1 /dev/sdc\n", 12);
	assert_int_equal(p.rc, 0);
	assert_null(p.c.owner);
	assert_null(p.c.align);
	assert_null(p.c.rules);
	assert_int_equal(p.c.grain.value, 2 * MiB);
	assert_string_equal(provconf_owner(&p.c, &p.c.v[0]), RULES_DEFAULT_OWNER);
	assert_string_equal(provconf_group(&p.c, &p.c.v[0]), RULES_DEFAULT_GROUP);
	assert_string_equal(provconf_mode(&p.c, &p.c.v[0]), RULES_DEFAULT_MODE);
	parsed_free(&p);

	/* sectors are a valid grain, not a valid disk size */
	parse(&p, "align 4096s\nD1 /dev/sdc\n", 24);
	assert_int_equal(p.rc, 0);
	assert_true(p.c.grain.sectors);
	assert_int_equal(p.c.grain.value, 4096);
	parsed_free(&p);
}

static void test_globals_bad(void **state)
{
	expect_bad("owner\nD /dev/sda\n", "asm.conf:1",
		   "'owner' takes exactly one value, e.g. 'owner grid'");
	expect_bad("rules a b\nD /dev/sda\n", "asm.conf:1",
		   "e.g. 'rules " RULES_DEFAULT_OUTPUT "'");
	expect_bad("mode 0660\nmode 0640\nD /dev/sda\n", "asm.conf:2",
		   "'mode' given twice (first on line 1)");
	expect_bad("owner -x\nD /dev/sda\n", "asm.conf:1",
		   "owner -x: not a valid user name");
	expect_bad("group a$b\nD /dev/sda\n", "asm.conf:1", "not a valid group name");
	expect_bad("mode 999\nD /dev/sda\n", "asm.conf:1",
		   "mode 999: expected 3 or 4 octal");
	expect_bad("align 1000B\nD /dev/sda\n", "asm.conf:1",
		   "not a multiple of 512 bytes");
	expect_bad("align 2XB\nD /dev/sda\n", "asm.conf:1", "TiB, s), e.g. 2MiB");
	expect_bad("align 99999999999999999999TiB\nD /dev/sda\n", "asm.conf:1",
		   "too large");
	expect_bad("rules etc/x.rules\nD /dev/sda\n", "asm.conf:1",
		   "expected an absolute file name");
	expect_bad("rules /etc/x.conf\nD /dev/sda\n", "asm.conf:1",
		   "udev reads only files ending in .rules");
	expect_bad("rules /etc/\nD /dev/sda\n", "asm.conf:1",
		   "expected an absolute file name");
}

static void test_disks_bad(void **state)
{
	expect_bad("-X /dev/sda\n", "asm.conf:1", "nor a valid ASM disk name (1 to 36");
	expect_bad("A234567890123456789012345678901234567 /dev/sda\n", "asm.conf:1",
		   "not a keyword");
	expect_bad("D1\n", "asm.conf:1", "D1: no device");
	expect_bad("D1 sdb\n", "asm.conf:1", "sdb: expected a device path (/dev/...)");
	expect_bad("D1 partuuid:1234\n", "asm.conf:1", "provision names whole disks");
	expect_bad("D1 wwn:\n", "asm.conf:1", "wwn:: empty wwn:");
	expect_bad("D1 serial:a\"b\n", "asm.conf:1",
		   "which no serial udev knows can contain");
	expect_bad("D1 size:64s\n", "asm.conf:1",
		   "a size in sectors depends on the disk");
	expect_bad("D1 size:lots\n", "asm.conf:1",
		   "size: lots: expected a positive size");
	expect_bad("D1 /dev/sda owner\n", "asm.conf:1", "'owner': expected owner=USER");
	expect_bad("D1 /dev/sda =x\n", "asm.conf:1", "expected owner=USER");
	expect_bad("D1 /dev/sda color=red\n", "asm.conf:1", "'color=': unknown");
	expect_bad("D1 /dev/sda owner=a owner=b\n", "asm.conf:1", "owner= given twice");
	expect_bad("D1 /dev/sda group=-a\n", "asm.conf:1",
		   "group=-a: not a valid group name");
	expect_bad("D1 /dev/sda mode=8\n", "asm.conf:1", "mode=8: expected 3 or 4 octal");
	expect_bad("D1 /dev/sda\nd1 /dev/sdb\n", "asm.conf:2",
		   "d1: the name is already used on asm.conf:1 (ASM ignores case)");
	expect_bad("D1 /dev/sda\nD2 /dev/sda\n", "asm.conf:2",
		   "D2: /dev/sda already names D1");
	expect_bad("D1 /dev/sda a=1 b=2 c=3 d=4 e=5 f=6 g=7\n", "asm.conf:1",
		   "too many fields (at most 8)");
}

static void test_size_twice_allowed(void **state)
{
	struct parsed p;
	const char *text = "A size:1GiB\nB size:1GiB\n";

	parse(&p, text, strlen(text));
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.c.n, 2);
	parsed_free(&p);
}

static void test_bytes(void **state)
{
	static const char nul[] = "D1 /dev/sda\nD2 /dev/s\0db\nD3 /dev/sdc\n";
	char *longline = malloc(PROVCONF_LINE_MAX + 32);
	struct parsed p;

	expect_bad("D1 /dev/sda\r\n", "asm.conf:1", "ends in a carriage return");
	expect_bad("D1 /dev/sd\xc3\xa4\n", "asm.conf:1", "byte 0xc3 at column 11");
	expect_bad("D1 /dev/sda\x01\n", "asm.conf:1", "only printable ASCII");

	/* a NUL byte stops the parse: the lines after it are not read */
	parse(&p, nul, sizeof(nul) - 1);
	assert_int_equal(p.rc, -EINVAL);
	assert_int_equal(p.diags.n, 1);
	assert_string_equal(p.diags.v[0].device, "asm.conf:2");
	assert_contains(p.diags.v[0].msg, "holds a NUL byte");
	assert_int_equal(p.c.n, 1);
	parsed_free(&p);

	assert_non_null(longline);
	memset(longline, 'x', PROVCONF_LINE_MAX + 1);
	strcpy(longline + PROVCONF_LINE_MAX + 1, "\nD1 /dev/sda\n");
	parse(&p, longline, strlen(longline));
	assert_int_equal(p.rc, -EINVAL);
	assert_int_equal(p.diags.n, 1);
	assert_contains(p.diags.v[0].msg, "longer than 1024 bytes");
	assert_int_equal(p.c.n, 1);
	parsed_free(&p);
	free(longline);
}

static void test_every_line_reported(void **state)
{
	const char *text = "mode 9\nD1 /dev/sda\nD2 nowhere\nD3 /dev/sdc\n";
	struct parsed p;

	parse(&p, text, strlen(text));
	assert_int_equal(p.rc, -EINVAL);
	assert_int_equal(p.diags.n, 2);
	assert_string_equal(p.diags.v[0].device, "asm.conf:1");
	assert_string_equal(p.diags.v[1].device, "asm.conf:3");
	assert_int_equal(p.c.n, 2);
	parsed_free(&p);
}

static void test_no_disks(void **state)
{
	struct parsed p;

	parse(&p, "# nothing\nowner grid\n", 21);
	assert_int_equal(p.rc, -EINVAL);
	assert_int_equal(p.diags.n, 1);
	assert_string_equal(p.diags.v[0].device, "asm.conf");
	assert_contains(p.diags.v[0].msg, "no disks: expected lines 'NAME SELECTOR");
	parsed_free(&p);

	parse(&p, "", 0);
	assert_int_equal(p.rc, -EINVAL);
	assert_int_equal(p.diags.n, 1);
	parsed_free(&p);
}

static void test_fields_split(void **state)
{
	char line[] = "  a\tb  c #d e";
	char more[] = "1 2 3 4";
	char hash[] = "x#y z";
	char *f[3];

	assert_int_equal(rules_fields_split(line, " \t", f, 3), 3);
	assert_string_equal(f[0], "a");
	assert_string_equal(f[1], "b");
	assert_string_equal(f[2], "c");
	assert_int_equal(rules_fields_split(more, " ", f, 3), 4);
	assert_string_equal(f[2], "3");
	/* '#' inside a field is part of it */
	assert_int_equal(rules_fields_split(hash, " ", f, 3), 2);
	assert_string_equal(f[0], "x#y");
}

/* The map parser on the shared tokenizer: still 2 to 5 fields, '\r' a blank. */
static void test_map_parse(void **state)
{
	const char *text = "DATA1 /dev/sdb grid asmadmin 0660 # five and a comment\r\n"
			   "# a comment\n"
			   "DATA2 /dev/sdc\r\n"
			   "DATA3 /dev/sdd a b 0660 extra\n"
			   "DATA4\n";
	struct rules_map m = {0};
	struct pa_diags diags = {0};

	assert_int_equal(rules_map_parse(&m, text, "map", &diags), -EINVAL);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.v[0].mode, "0660");
	assert_string_equal(m.v[1].device, "/dev/sdc");
	assert_int_equal(diags.n, 2);
	assert_string_equal(diags.v[0].device, "map:4");
	assert_string_equal(diags.v[1].device, "map:5");
	rules_map_free(&m);
	diags_free(&diags);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_globals_bad),
	    cmocka_unit_test(test_disks_bad),
	    cmocka_unit_test(test_size_twice_allowed),
	    cmocka_unit_test(test_bytes),
	    cmocka_unit_test(test_every_line_reported),
	    cmocka_unit_test(test_no_disks),
	    cmocka_unit_test(test_fields_split),
	    cmocka_unit_test(test_map_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
