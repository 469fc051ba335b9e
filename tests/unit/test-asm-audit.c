/*
 * Unit tests of core/asm-audit.c: Oracle ASM disk groups judged from
 * headers on devices built in memory -- a group on two sector sizes, a
 * header whose sector size is not the kernel's, one ASM disk on a multipath
 * map and its paths and on two loop devices, a dos and a GPT table over a
 * whole-disk member (the backup named, with kfed's ausz for a 4 MiB AU), a
 * member partition off its allocation unit, a backup that disagrees or is
 * missing, a truncated disk, a damaged header, ASMLib labels -- each with
 * its words and exit bit, and the order of the per-group view.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/asm-audit.h"
#include "core/exitcodes.h"
#include "shared/endian.h"

struct hdr {
	const char *group, *disk, *label;
	unsigned int num, status, secsize, dsksize;
	uint32_t ausize;
};

static void block(unsigned char *b, const struct hdr *h, uint32_t blk)
{
	memset(b, 0, ASMHDR_BLOCK);
	b[0] = 1;
	b[1] = 0x82;
	b[2] = 1;
	b[3] = 1;
	put_le32(b + 4, blk);
	put_le32(b + 8, 0x80000000u + h->num);
	memcpy(b + 0x20, "ORCLDISK", 8);
	if (h->label)
		memcpy(b + 0x28, h->label, strlen(h->label));
	put_le16(b + 0x44, (uint16_t)h->num);
	b[0x46] = 1;
	b[0x47] = (unsigned char)(h->status ? h->status : 3);
	memcpy(b + 0x48, h->disk, strlen(h->disk));
	memcpy(b + 0x68, h->group, strlen(h->group));
	memcpy(b + 0x88, h->disk, strlen(h->disk));
	put_le16(b + 0xd8, (uint16_t)(h->secsize ? h->secsize : 512));
	put_le16(b + 0xda, 4096);
	put_le32(b + 0xdc, h->ausize ? h->ausize : 1u << 20);
	put_le32(b + 0xe4, h->dsksize ? h->dsksize : 16);
}

static struct pa_devlist devs;

static struct pa_dev *dev(const char *name, enum pa_kind kind, uint32_t logical,
			  uint64_t size)
{
	struct pa_dev *d = device_new();
	char path[64];

	assert_non_null(d);
	d->name = strdup(name);
	snprintf(path, sizeof(path), "/dev/%s", name);
	d->path = strdup(path);
	d->kind = kind;
	d->topo.logical = d->topo.physical = logical;
	d->size = size;
	assert_int_equal(devlist_add(&devs, d), 0);
	return d;
}

/* The header @h on @d: the first block, and its backup (@backup NULL: the same). */
static void put_hdr(struct pa_dev *d, const struct hdr *h, const struct hdr *backup,
		    bool table, bool gpt)
{
	unsigned char b[ASMHDR_BLOCK];
	uint64_t off;

	d->asm_hdr = calloc(1, sizeof(*d->asm_hdr));
	assert_non_null(d->asm_hdr);
	block(b, h, 0);
	if (table) {
		b[510] = 0x55;
		b[511] = 0xaa;
		b[446 + 4] = gpt ? 0xee : 0x83;
	}
	asmhdr_take_first(d->asm_hdr, b, sizeof(b), 0, &off);
	if (!off)
		return;
	if (backup && !backup->disk)
		memset(b, 0, sizeof(b)); /* no copy there */
	else
		block(b, backup ? backup : h, 254);
	asmhdr_take_backup(d->asm_hdr, b, sizeof(b), 0);
}

static char text[PA_REASON_TEXT_MAX];

static const char *words(const struct pa_asm_row *r)
{
	reason_render(&r->why, text, sizeof(text), NULL, NULL);
	return text;
}

static void teardown_devs(void)
{
	devlist_free(&devs);
	memset(&devs, 0, sizeof(devs));
}

static void test_mixed_sectors(void **state)
{
	struct hdr h0 = {"DATA", "DATA_0000", NULL, 0, 0, 512, 0, 0};
	struct hdr h1 = {"DATA", "DATA_0001", NULL, 1, 0, 512, 0, 0};
	struct hdr f0 = {"FRA", "FRA_0000", NULL, 0, 0, 4096, 0, 0};
	struct pa_dev *a = dev("sdb", PA_KIND_DISK, 512, 64 * MiB),
		      *b = dev("sdc", PA_KIND_DISK, 4096, 64 * MiB),
		      *c = dev("sdd", PA_KIND_DISK, 4096, 64 * MiB);
	struct pa_asm_audit au;
	const struct pa_asm_row *r;

	(void)state;
	put_hdr(a, &h0, NULL, false, false);
	put_hdr(b, &h1, NULL, false, false);
	put_hdr(c, &f0, NULL, false, false);
	assert_int_equal(asm_audit_run(&devs, &au), 0);
	assert_int_equal(au.n, 3);
	r = asm_audit_row(&au, a);
	assert_int_equal(r->exit, PA_EXIT_ASM);
	assert_string_equal(words(r), "asm: disk group DATA mixes 512-byte (sdb) and "
				      "4096-byte (sdc) logical sectors: ASM refuses "
				      "that (ORA-15085)");
	r = asm_audit_row(&au, b);
	assert_int_equal(r->exit, PA_EXIT_ASM);
	assert_contains(words(r), "asm: disk DATA_0001 of DATA: the header says "
				  "512-byte sectors, the kernel 4096 (ORA-15085)");
	assert_contains(text, "mixes 512-byte (sdb) and 4096-byte (sdc)");
	/* FRA alone on 4096 with a 4096 header: nothing */
	r = asm_audit_row(&au, c);
	assert_int_equal(r->why.n, 0);
	assert_int_equal(r->exit, 0);
	assert_string_equal(r->status, "MEMBER");
	assert_null(asm_audit_row(&au, NULL));
	asm_audit_free(&au);
	teardown_devs();
}

static void test_duplicates(void **state)
{
	struct hdr h = {"DATA", "DATA_0002", NULL, 2, 0, 512, 0, 0};
	struct pa_dev *map = dev("dm-0", PA_KIND_MPATH, 512, 64 * MiB),
		      *p1 = dev("sda", PA_KIND_DISK, 512, 64 * MiB),
		      *p2 = dev("sdb", PA_KIND_DISK, 512, 64 * MiB),
		      *l3 = dev("loop3", PA_KIND_LOOP, 512, 64 * MiB),
		      *l4 = dev("loop4", PA_KIND_LOOP, 512, 64 * MiB);
	struct pa_asm_audit au;
	const struct pa_asm_row *r;
	unsigned char b[ASMHDR_BLOCK] = {0};
	uint64_t off;

	(void)state;
	map->dm_name = strdup("mpatha");
	p1->is_path = p2->is_path = true;
	p1->map = p2->map = map;
	put_hdr(map, &h, NULL, false, false);
	put_hdr(p1, &h, NULL, false, false);
	put_hdr(p2, &h, NULL, false, false);
	/* oracleasm createdisk DATA1 seen through two loop devices */
	memcpy(b + 32, "ORCLDISKDATA1", 13);
	l3->asm_hdr = calloc(1, sizeof(*l3->asm_hdr));
	l4->asm_hdr = calloc(1, sizeof(*l4->asm_hdr));
	asmhdr_take_first(l3->asm_hdr, b, sizeof(b), 0, &off);
	asmhdr_take_first(l4->asm_hdr, b, sizeof(b), 0, &off);
	assert_int_equal(asm_audit_run(&devs, &au), 0);
	r = asm_audit_row(&au, p1);
	assert_int_equal(r->exit, PA_EXIT_ASM);
	assert_string_equal(words(r), "asm: disk DATA_0002 of DATA is also on mpatha, "
				      "sdb: ASM must see it only as /dev/mapper/mpatha "
				      "(ORA-15020)");
	assert_ptr_equal(r->use, map);
	r = asm_audit_row(&au, map);
	assert_contains(words(r), "is also on sda, sdb: ASM must see it only as "
				  "/dev/mapper/mpatha");
	r = asm_audit_row(&au, l3);
	assert_string_equal(r->status, "PROVISIONED");
	assert_string_equal(words(r), "asm: disk DATA1 is also on loop4: ASM must see "
				      "only one of them (ORA-15020)");
	assert_null(r->use);
	/* the view: the group's disk, the map first, then the disks of no group */
	assert_true(asm_audit_cmp(asm_audit_row(&au, map), asm_audit_row(&au, p1)) < 0);
	assert_true(asm_audit_cmp(asm_audit_row(&au, p2), asm_audit_row(&au, l3)) < 0);
	assert_true(asm_audit_cmp(asm_audit_row(&au, l3), asm_audit_row(&au, l4)) < 0);
	asm_audit_free(&au);
	teardown_devs();
}

static void test_table_over_header(void **state)
{
	struct hdr h = {"DATA", "DATA_0003", NULL, 3, 0, 512, 0, 0};
	struct hdr h4 = {"DATA", "DATA_0004", NULL, 4, 0, 512, 8, 4u << 20};
	struct hdr h7 = {"DATA", "DATA_0007", NULL, 7, 0, 512, 0, 0};
	struct hdr none = {0};
	struct pa_dev *a = dev("sde", PA_KIND_DISK, 512, 64 * MiB),
		      *b = dev("sdf", PA_KIND_DISK, 512, 64 * MiB),
		      *c = dev("sdg", PA_KIND_DISK, 512, 64 * MiB);
	struct pa_asm_audit au;
	const struct pa_asm_row *r;

	(void)state;
	put_hdr(a, &h, NULL, true, false);
	put_hdr(b, &h4, NULL, true, true);
	put_hdr(c, &h7, &none, true, false);
	assert_int_equal(asm_audit_run(&devs, &au), 0);
	r = asm_audit_row(&au, a);
	assert_int_equal(r->exit, PA_EXIT_ASM);
	assert_string_equal(words(r),
			    "asm: a dos partition table is written over the header of "
			    "disk DATA_0003 of DATA: the backup in AU 1 block 254 (byte "
			    "2088960) holds it ('kfed repair /dev/sde' restores it)");
	r = asm_audit_row(&au, b);
	assert_contains(words(r), "a GPT partition table is written over the header of "
				  "disk DATA_0004 of DATA: the backup in AU 1 block 1022 "
				  "(byte 8380416) holds it ('kfed repair /dev/sdf "
				  "ausz=4194304' restores it)");
	r = asm_audit_row(&au, c);
	assert_string_equal(words(r),
			    "asm: a dos partition table is written over the header of "
			    "disk DATA_0007 of DATA, and the backup in AU 1 block 254 "
			    "(byte 2088960) holds no copy of it");
	asm_audit_free(&au);
	teardown_devs();
}

static void test_member_findings(void **state)
{
	struct hdr h = {"DATA", "DATA_0005", NULL, 5, 0, 512, 8, 4u << 20};
	struct hdr other = {"DATA", "DATA_0009", NULL, 5, 0, 512, 8, 4u << 20};
	struct hdr big = {"FRA", "FRA_0001", NULL, 1, 0, 512, 100, 0};
	struct hdr none = {0};
	struct pa_dev *disk = dev("sdh", PA_KIND_DISK, 512, 256 * MiB),
		      *p1 = dev("sdh1", PA_KIND_PART, 512, 64 * MiB),
		      *p2 = dev("sdh2", PA_KIND_PART, 512, 64 * MiB),
		      *t = dev("sdi", PA_KIND_DISK, 512, 64 * MiB);
	struct pa_asm_audit au;
	const struct pa_asm_row *r;

	(void)state;
	p1->disk = p2->disk = disk;
	p1->start_known = p2->start_known = true;
	p1->start = 2 * MiB;  /* on a 2 MiB grain, off the 4 MiB AU */
	p2->start = 68 * MiB; /* on the AU: 17 x 4 MiB */
	put_hdr(p1, &h, &other, false, false);
	put_hdr(p2, &h, &none, false, false);
	put_hdr(t, &big, NULL, false, false);
	assert_int_equal(asm_audit_run(&devs, &au), 0);
	r = asm_audit_row(&au, p1);
	assert_int_equal(r->exit, PA_EXIT_ASM | PA_EXIT_MISALIGNED);
	assert_contains(words(r), "asm: the backup in AU 1 block 1022 (byte 8380416) "
				  "differs from the header in dskname");
	assert_contains(text, "asm: disk DATA_0005 of DATA starts 2 MiB past a 4 MiB "
			      "allocation unit boundary");
	r = asm_audit_row(&au, p2);
	assert_int_equal(r->exit, PA_EXIT_ASM);
	assert_contains(words(r), "holds no copy of the header");
	assert_false(strstr(text, "allocation unit boundary"));
	/* also one ASM disk on two devices */
	assert_contains(text, "is also on sdh1");
	r = asm_audit_row(&au, t);
	assert_string_equal(words(r), "asm: the header says 100 allocation units of 1 "
				      "MiB, the device holds 64 MiB: ASM cannot mount a "
				      "truncated disk (ORA-15036)");
	asm_audit_free(&au);
	teardown_devs();
}

static void test_damaged(void **state)
{
	struct hdr h = {"DATA", "DATA_0006", NULL, 6, 0, 512, 0, 3000000};
	struct pa_dev *a = dev("sdj", PA_KIND_DISK, 512, 64 * MiB);
	struct pa_asm_audit au;
	const struct pa_asm_row *r;

	(void)state;
	put_hdr(a, &h, NULL, false, false);
	assert_false(a->asm_hdr->backup_tried);
	assert_int_equal(asm_audit_run(&devs, &au), 0);
	r = asm_audit_row(&au, a);
	assert_string_equal(r->status, "damaged");
	assert_int_equal(r->exit, PA_EXIT_ASM);
	assert_string_equal(words(r), "asm: the ASM header is damaged: ausize 3000000 "
				      "is not a power of two from 4 blocks to 64 MiB");
	asm_audit_free(&au);
	teardown_devs();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mixed_sectors),
	    cmocka_unit_test(test_duplicates),
	    cmocka_unit_test(test_table_over_header),
	    cmocka_unit_test(test_member_findings),
	    cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
