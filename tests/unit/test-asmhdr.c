/*
 * Unit tests of core/asmhdr.c, the Oracle ASM disk header parser.  The
 * blocks are built from three public kfed dumps as kfed prints them: each
 * field at its kfed offset (relative to byte 32 for kfdhdb, as kfed
 * counts) with its value, so that the parser's offsets are checked against
 * kfed's and not against themselves.  Then every value out of range, a
 * big-endian header, an ASMLib label without a header, the backup's place,
 * the comparison of two copies, the partition-table signatures and the
 * dump text (parse, write, round trip, hostile input).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/asmhdr.h"

/* One line of a kfed dump: "kfdhdb.secsize: 512 ; 0x0b8: 0x0200" is {1, 0xb8, 2, 512} */
struct kf {
	bool kfdhdb; /* the offset is kfed's kfdhdb offset: byte 32 + it */
	unsigned int off, size;
	uint64_t value;
	const char *text;
};

static void put(unsigned char *b, const struct kf *f, bool big)
{
	unsigned int at = f->off + (f->kfdhdb ? 32 : 0), i;

	if (f->text) {
		memcpy(b + at, f->text, strlen(f->text));
		return;
	}
	for (i = 0; i < f->size; i++)
		b[at + i] =
		    (unsigned char)(f->value >> (8 * (big ? f->size - 1 - i : i)));
}

static void build(unsigned char *b, const struct kf *v, size_t n, bool big)
{
	size_t i;

	memset(b, 0, ASMHDR_BLOCK);
	for (i = 0; i < n; i++)
		put(b, &v[i], big);
}

/* kfed read /dev/raw/raw1: an external-redundancy 10.1 disk (dsknum 0). */
static const struct kf dump1[] = {
    {false, 0x000, 1, 1, NULL},		  /* kfbh.endian */
    {false, 0x001, 1, 130, NULL},	  /* kfbh.hard */
    {false, 0x002, 1, 1, NULL},		  /* kfbh.type KFBTYP_DISKHEAD */
    {false, 0x003, 1, 1, NULL},		  /* kfbh.datfmt */
    {false, 0x004, 4, 0, NULL},		  /* kfbh.block.blk */
    {false, 0x008, 4, 2147483648u, NULL}, /* kfbh.block.obj */
    {false, 0x00c, 4, 2932902794u, NULL}, /* kfbh.check */
    {true, 0x000, 8, 0, "ORCLDISK"},	  /* kfdhdb.driver.provstr */
    {true, 0x020, 4, 168820736, NULL},	  /* kfdhdb.compat */
    {true, 0x024, 2, 0, NULL},		  /* kfdhdb.dsknum */
    {true, 0x026, 1, 1, NULL},		  /* kfdhdb.grptyp KFDGTP_EXTERNAL */
    {true, 0x027, 1, 3, NULL},		  /* kfdhdb.hdrsts KFDHDR_MEMBER */
    {true, 0x028, 10, 0, "ASM01_0000"},	  /* kfdhdb.dskname */
    {true, 0x048, 5, 0, "ASM01"},	  /* kfdhdb.grpname */
    {true, 0x068, 10, 0, "ASM01_0000"},	  /* kfdhdb.fgname */
    {true, 0x0b8, 2, 512, NULL},	  /* kfdhdb.secsize */
    {true, 0x0ba, 2, 4096, NULL},	  /* kfdhdb.blksize */
    {true, 0x0bc, 4, 1048576, NULL},	  /* kfdhdb.ausize */
    {true, 0x0c0, 4, 113792, NULL},	  /* kfdhdb.mfact */
    {true, 0x0c4, 4, 9075, NULL},	  /* kfdhdb.dsksize */
};

/* A normal-redundancy disk (dsknum 1, block.obj 2147483649). */
static const struct kf dump2[] = {
    {false, 0x000, 1, 1, NULL},
    {false, 0x001, 1, 130, NULL},
    {false, 0x002, 1, 1, NULL},
    {false, 0x003, 1, 1, NULL},
    {false, 0x008, 4, 2147483649u, NULL},
    {false, 0x00c, 4, 580165501, NULL},
    {true, 0x000, 8, 0, "ORCLDISK"},
    {true, 0x020, 4, 168820736, NULL},
    {true, 0x024, 2, 1, NULL},
    {true, 0x026, 1, 2, NULL},
    {true, 0x027, 1, 3, NULL},
    {true, 0x028, 9, 0, "DATA_0001"},
    {true, 0x048, 4, 0, "DATA"},
    {true, 0x068, 9, 0, "DATA_0001"},
    {true, 0x0b8, 2, 512, NULL},
    {true, 0x0ba, 2, 4096, NULL},
    {true, 0x0bc, 4, 1048576, NULL},
    {true, 0x0c4, 4, 12284, NULL},
};

/* kfed read /dev/asm_test_1G_disk1: a 1 GiB disk of group TEST. */
static const struct kf dump3[] = {
    {false, 0x000, 1, 1, NULL},
    {false, 0x001, 1, 130, NULL},
    {false, 0x002, 1, 1, NULL},
    {false, 0x003, 1, 1, NULL},
    {false, 0x008, 4, 2147483648u, NULL},
    {true, 0x000, 8, 0, "ORCLDISK"},
    {true, 0x026, 1, 1, NULL},
    {true, 0x027, 1, 3, NULL},
    {true, 0x028, 9, 0, "TEST_0000"},
    {true, 0x048, 4, 0, "TEST"},
    {true, 0x068, 9, 0, "TEST_0000"},
    {true, 0x0b8, 2, 512, NULL},
    {true, 0x0ba, 2, 4096, NULL},
    {true, 0x0bc, 4, 1048576, NULL},
    {true, 0x0c4, 4, 1023, NULL},
};

#define N(v) (sizeof(v) / sizeof((v)[0]))

static unsigned char blk[ASMHDR_BLOCK];

static void test_kfed_dumps(void **state)
{
	struct asm_hdr h;
	uint64_t off;
	uint32_t b;

	(void)state;
	build(blk, dump1, N(dump1), false);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_HEADER);
	assert_true(h.provstr);
	assert_false(h.big_endian);
	assert_int_equal(h.obj, 0x80000000u);
	assert_int_equal(h.check, 0xaed08b8au);
	assert_int_equal(h.compat, 0x0a100000u);
	assert_int_equal(h.dsknum, 0);
	assert_int_equal(h.grptyp, 1);
	assert_string_equal(asmhdr_status_name(h.hdrsts), "MEMBER");
	assert_string_equal(h.dskname, "ASM01_0000");
	assert_string_equal(h.grpname, "ASM01");
	assert_string_equal(h.fgname, "ASM01_0000");
	assert_string_equal(h.label, "");
	assert_int_equal(h.secsize, 512);
	assert_int_equal(h.blksize, 4096);
	assert_int_equal(h.ausize, 1048576);
	assert_int_equal(h.dsksize, 9075);
	/* kfed read aun=1 blkn=254 (1 MiB AU, 4 KiB blocks): block 510 of the disk */
	assert_int_equal(asmhdr_backup_offset(&h, &off, &b), 0);
	assert_int_equal(b, 254);
	assert_int_equal(off, 510ull * 4096);

	build(blk, dump2, N(dump2), false);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_HEADER);
	assert_int_equal(h.dsknum, 1);
	assert_int_equal(h.obj, 2147483649u);
	assert_int_equal(h.grptyp, 2);
	assert_string_equal(h.grpname, "DATA");
	assert_int_equal(h.dsksize, 12284);

	build(blk, dump3, N(dump3), false);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_HEADER);
	assert_string_equal(h.dskname, "TEST_0000");
	assert_int_equal(h.dsksize, 1023);
	assert_string_equal(asmhdr_shown_status(&h), "MEMBER");
}

static void test_big_endian(void **state)
{
	struct asm_hdr h;
	uint64_t off;
	uint32_t b;

	(void)state;
	build(blk, dump2, N(dump2), true);
	blk[0] = 0; /* kfbh.endian: big */
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_HEADER);
	assert_true(h.big_endian);
	assert_int_equal(h.dsknum, 1);
	assert_int_equal(h.ausize, 1048576);
	assert_int_equal(h.dsksize, 12284);
	/* a 4 MiB AU: the backup is block 1022 of AU 1 */
	blk[32 + 0xbc + 1] = 0x40;
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.ausize, 4u << 20);
	assert_int_equal(asmhdr_backup_offset(&h, &off, &b), 0);
	assert_int_equal(b, 1022);
	assert_int_equal(off, (4ull << 20) + 1022ull * 4096);
}

/* dump1 with one value changed: damaged, and which value. */
static void expect_bad(unsigned int off, unsigned int size, uint64_t v, enum asmhdr_bad w)
{
	struct kf f = {false, off, size, v, NULL};
	struct asm_hdr h;
	char text[160];
	uint64_t o;
	uint32_t b;

	build(blk, dump1, N(dump1), false);
	put(blk, &f, false);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_DAMAGED);
	assert_int_equal(h.bad, w);
	assert_string_equal(asmhdr_shown_status(&h), "damaged");
	assert_true(asmhdr_is_header(&h));
	assert_int_equal(asmhdr_backup_offset(&h, &o, &b), -EINVAL);
	asmhdr_bad_text(&h, text, sizeof(text));
	assert_true(strlen(text) > 10);
}

static void test_ranges(void **state)
{
	(void)state;
	expect_bad(0x04, 4, 7, ASMHDR_BAD_BLK);
	expect_bad(0x08, 4, 0x80000005u, ASMHDR_BAD_OBJ);
	expect_bad(0x20 + 0x27, 1, 9, ASMHDR_BAD_STATUS);
	expect_bad(0x20 + 0x26, 1, 0, ASMHDR_BAD_GRPTYP);
	expect_bad(0x20 + 0x26, 1, 6, ASMHDR_BAD_GRPTYP);
	expect_bad(0x20 + 0x28, 1, 0x07, ASMHDR_BAD_NAME);
	expect_bad(0x20 + 0x48, 5, 0, ASMHDR_BAD_NONAME);
	expect_bad(0x20 + 0xb8, 2, 520, ASMHDR_BAD_SECSIZE);
	expect_bad(0x20 + 0xb8, 2, 256, ASMHDR_BAD_SECSIZE);
	expect_bad(0x20 + 0xb8, 2, 8192, ASMHDR_BAD_SECSIZE);
	expect_bad(0x20 + 0xba, 2, 8192, ASMHDR_BAD_BLKSIZE);
	expect_bad(0x20 + 0xba, 2, 3000, ASMHDR_BAD_BLKSIZE);
	expect_bad(0x20 + 0xbc, 4, 3000000, ASMHDR_BAD_AUSIZE);
	expect_bad(0x20 + 0xbc, 4, 8192, ASMHDR_BAD_AUSIZE);
	expect_bad(0x20 + 0xbc, 4, 128u << 20, ASMHDR_BAD_AUSIZE);
	expect_bad(0x20 + 0xbc, 4, 0, ASMHDR_BAD_AUSIZE);
	expect_bad(0x20 + 0xc4, 4, 1, ASMHDR_BAD_DSKSIZE);
}

static void test_not_headers(void **state)
{
	struct asm_hdr h;

	(void)state;
	memset(blk, 0, sizeof(blk));
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_NONE);
	assert_null(asmhdr_shown_status(&h));
	assert_int_equal(asmhdr_parse(blk, ASMHDR_MIN_LEN - 1, true, &h), -EINVAL);
	/* oracleasm createdisk DATA1: the label only */
	memcpy(blk + 32, "ORCLDISKDATA1", 13);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_LABEL);
	assert_string_equal(h.label, "DATA1");
	assert_string_equal(asmhdr_shown_status(&h), "PROVISIONED");
	assert_false(asmhdr_is_header(&h));
	/* a label padded with blanks; one with a control byte is no label */
	memcpy(blk + 40, "FRA1    ", 8);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_string_equal(h.label, "FRA1");
	blk[41] = '\n';
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_LABEL);
	assert_string_equal(h.label, "");
	/* oracleasm deletedisk */
	memcpy(blk + 32, "ORCLCLRD", 8);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_CLEARED);
	/* a wrong hard byte or type: not a disk header (provstr still says ASM) */
	build(blk, dump1, N(dump1), false);
	blk[1] = 0x83;
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_LABEL);
	build(blk, dump1, N(dump1), false);
	blk[2] = 3; /* an allocation table block */
	memset(blk + 32, 0, 8);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_NONE);
	/* provstr wiped (wipefs, fdisk) but the header kept: still a header */
	build(blk, dump1, N(dump1), false);
	memset(blk + 32, 0, 8);
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), true, &h), 0);
	assert_int_equal(h.kind, ASMHDR_HEADER);
	assert_false(h.provstr);
	/* the backup's block.blk is its own */
	build(blk, dump1, N(dump1), false);
	blk[4] = 254;
	assert_int_equal(asmhdr_parse(blk, sizeof(blk), false, &h), 0);
	assert_int_equal(h.kind, ASMHDR_HEADER);
}

static void test_compare(void **state)
{
	struct asm_hdr a, b;
	unsigned int m;

	(void)state;
	build(blk, dump1, N(dump1), false);
	asmhdr_parse(blk, sizeof(blk), true, &a);
	blk[4] = 254;	       /* block.blk: differs by nature */
	blk[12] ^= 0xff;       /* the checksum too */
	blk[32 + 0xac] = 0x55; /* and the time stamps are not compared */
	asmhdr_parse(blk, sizeof(blk), false, &b);
	assert_int_equal(asmhdr_compare(&a, &b), 0);
	memcpy(blk + 32 + 0x28, "ASM01_0007", 10);
	blk[32 + 0x27] = 4; /* FORMER */
	asmhdr_parse(blk, sizeof(blk), false, &b);
	m = asmhdr_compare(&a, &b);
	assert_int_equal(m, ASMHDR_F_DSKNAME | ASMHDR_F_HDRSTS);
	assert_string_equal(asmhdr_field_name(ASMHDR_F_DSKNAME), "dskname");
	assert_string_equal(asmhdr_field_name(ASMHDR_F_HDRSTS), "hdrsts");
	memset(blk, 0, sizeof(blk));
	asmhdr_parse(blk, sizeof(blk), false, &b);
	assert_true(asmhdr_compare(&a, &b) & ASMHDR_F_KIND);
}

static void test_table(void **state)
{
	(void)state;
	build(blk, dump1, N(dump1), false);
	assert_int_equal(asmhdr_table(blk, sizeof(blk)), ASMHDR_TABLE_NONE);
	blk[510] = 0x55;
	blk[511] = 0xaa;
	blk[446 + 4] = 0x83;
	assert_int_equal(asmhdr_table(blk, sizeof(blk)), ASMHDR_TABLE_DOS);
	blk[446 + 4] = 0xee;
	assert_int_equal(asmhdr_table(blk, sizeof(blk)), ASMHDR_TABLE_GPT);
	assert_string_equal(asmhdr_table_name(ASMHDR_TABLE_GPT), "GPT");
	assert_int_equal(asmhdr_table(blk, 511), ASMHDR_TABLE_NONE);
}

static void test_dump_text(void **state)
{
	struct asmhdr_dump *d = calloc(1, sizeof(*d)), *e = calloc(1, sizeof(*e));
	const char *why[] = {NULL, "Input/output error"};
	char *text;
	size_t need, i;

	(void)state;
	assert_non_null(d);
	assert_non_null(e);
	build(d->b[0].data, dump1, N(dump1), false);
	d->b[0].len = ASMHDR_BLOCK;
	d->b[1].offset = 2088960;
	d->b[1].error = true;
	d->b[2].offset = 4096;
	d->b[2].len = 5;
	d->n = 3;
	need = asmhdr_dump_text(d, why, NULL, 0);
	text = malloc(need + 1);
	assert_non_null(text);
	assert_int_equal(asmhdr_dump_text(d, why, text, need + 1), need);
	assert_contains(text, "partalign-asm 1\nblock 0 4096\n 01 82 01 01 00 00 00 00");
	assert_contains(text, "error 2088960 Input/output error\n");
	assert_int_equal(asmhdr_dump_parse(text, need, e), 0);
	assert_int_equal(e->n, 3);
	assert_int_equal(e->b[0].len, ASMHDR_BLOCK);
	assert_memory_equal(e->b[0].data, d->b[0].data, ASMHDR_BLOCK);
	assert_true(e->b[1].error);
	assert_int_equal(e->b[1].offset, 2088960);
	assert_int_equal(e->b[2].len, 5);
	assert_ptr_equal(asmhdr_dump_find(e, 4096), &e->b[2]);
	assert_null(asmhdr_dump_find(e, 1));
	/* od's output as busybox and coreutils print it */
	assert_int_equal(
	    asmhdr_dump_parse("partalign-asm 1\nblock 8 3\n 4f 52\n 43\n", 37, e), 0);
	assert_int_equal(e->b[0].offset, 8);
	assert_memory_equal(e->b[0].data, "ORC", 3);
	/* hostile text: each refused */
	{
		static const char *const bad[] = {
		    "",
		    "partalign-asm 2\n",
		    "partalign-asm 1\nblock 0 4\n 01 02 03\n",
		    "partalign-asm 1\nblock 0 2\n 01 02 03\n",
		    "partalign-asm 1\nblock 0 2\n 01 0g\n",
		    "partalign-asm 1\nblock 0 2\n 0102\n",
		    "partalign-asm 1\nblock 0 4097\n",
		    "partalign-asm 1\nblock x 2\n",
		    "partalign-asm 1\n 01\n",
		    "partalign-asm 1\nerror 5 x\n 01\n",
		    "partalign-asm 1\nblock 0 1\n 01\nblock 0 1\n 01\nblock 0 1\n "
		    "01\nblock 0 1\n 01\nblock 0 1\n 01\n",
		    "partalign-asm 1\nsomething else\n",
		    "partalign-asm 1\nblock 99999999999999999999999 1\n 01\n",
		};

		for (i = 0; i < N(bad); i++)
			assert_int_equal(asmhdr_dump_parse(bad[i], strlen(bad[i]), e),
					 -EINVAL);
	}
	free(text);
	free(d);
	free(e);
}

static void test_take(void **state)
{
	struct pa_asm a = {0};
	uint64_t boff;

	(void)state;
	build(blk, dump3, N(dump3), false);
	asmhdr_take_first(&a, blk, sizeof(blk), 0, &boff);
	assert_true(asmhdr_found(&a));
	assert_int_equal(boff, 510ull * 4096);
	assert_true(a.backup_tried);
	assert_int_equal(a.backup.block, 254);
	blk[4] = 254;
	asmhdr_take_backup(&a, blk, sizeof(blk), 0);
	assert_true(a.backup.read);
	assert_int_equal(asmhdr_compare(&a.first.h, &a.backup.h), 0);
	memset(&a, 0, sizeof(a));
	asmhdr_take_first(&a, NULL, 0, -ETIMEDOUT, &boff);
	assert_false(asmhdr_found(&a));
	assert_int_equal(a.first.err, -ETIMEDOUT);
	assert_int_equal(boff, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kfed_dumps), cmocka_unit_test(test_big_endian),
	    cmocka_unit_test(test_ranges),     cmocka_unit_test(test_not_headers),
	    cmocka_unit_test(test_compare),    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_dump_text),  cmocka_unit_test(test_take),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
