/*
 * Unit tests of label_identity() and its text form (src/core/label.c) on
 * GPT and dos images built byte by byte in memory (label-images.h).
 * Expected GUID strings are written out by hand (the first three GUID
 * fields are little-endian on disk).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"
#include "label-images.h"

#include "core/label.h"

#define DISK_GUID "A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF"
#define GUID_3 "33323130-3534-3736-3839-3A3B3C3D3E3F"

static void check_gpt_ids(const struct label_id *id)
{
	char text[64];

	assert_int_equal(id->kind, LABEL_ID_GPT);
	assert_string_equal(id->disk, DISK_GUID);
	assert_int_equal(id->nparts, 2);
	assert_int_equal(id->parts[0].num, 1);
	assert_string_equal(id->parts[0].guid, "13121110-1514-1716-1819-1A1B1C1D1E1F");
	assert_int_equal(id->parts[1].num, 3);
	assert_string_equal(id->parts[1].guid, GUID_3);
	assert_int_equal(label_identity_format(id, text, sizeof(text)),
			 (int)strlen("gpt:" DISK_GUID));
	assert_string_equal(text, "gpt:" DISK_GUID);
}

static const unsigned used13[] = {1, 3, 0};

static void test_gpt_512(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_id id;

	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	check_gpt_ids(&id);
	assert_false(id.backup_header);
	free(m.b);
}

static void test_gpt_4096(void **state)
{
	struct img m = gpt_image(8 * MiB, 4096, 128, used13);
	struct label_id id;

	assert_int_equal(label_identity(rd_img, &m, 4096, m.size, &id), 0);
	check_gpt_ids(&id);
	/* the same image read with the wrong sector size has no GPT at LBA 1 */
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	free(m.b);
}

/* A primary header with one changed byte: its CRC fails, the backup header answers. */
static void test_gpt_primary_header_damaged(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_id id;

	m.b[512 + 60] ^= 0x01; /* inside the disk GUID of the primary */
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	check_gpt_ids(&id);
	assert_true(id.backup_header);
	free(m.b);
}

static void test_gpt_primary_signature_gone(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_id id;

	memset(m.b + 512, 0, 512);
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	check_gpt_ids(&id);
	assert_true(id.backup_header);
	free(m.b);
}

/* A damaged primary entry array (header intact): the backup's array is used. */
static void test_gpt_primary_array_damaged(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_id id;

	m.b[2 * 512 + 128 + 20] = 0x99; /* entry 2: unused in the backup copy */
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	check_gpt_ids(&id);
	assert_true(id.backup_header);
	free(m.b);
}

static void test_gpt_both_damaged(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_id id;
	char text[8];

	m.b[512 + 60] ^= 0x01;
	m.b[m.size - 512 + 60] ^= 0x01;
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	assert_int_equal(id.nparts, 0);
	assert_int_equal(label_identity_format(&id, text, sizeof(text)), 4);
	assert_string_equal(text, "none");
	free(m.b);
}

/* A backup header is only trusted at the last LBA: one that claims another LBA is not. */
static void test_gpt_backup_header_wrong_lba(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	uint64_t nsec = m.size / 512;
	struct label_id id;

	memset(m.b + 512, 0, 512);
	/* rewrite the backup header claiming to be at LBA 5 (CRC valid) */
	gpt_header(&m, 512, nsec - 1, 1, nsec - 33, 128, 128);
	put64(m.b + (nsec - 1) * 512 + 24, 5);
	memset(m.b + (nsec - 1) * 512 + 16, 0, 4);
	put32(m.b + (nsec - 1) * 512 + 16, crc32_bitwise(m.b + (nsec - 1) * 512, 92));
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	free(m.b);
}

static void test_gpt_too_many_parts(void **state)
{
	unsigned used[LABEL_ID_MAX_PARTS + 2];
	struct img m;
	struct label_id id;
	unsigned i;

	for (i = 0; i <= LABEL_ID_MAX_PARTS; i++)
		used[i] = i + 1;
	used[LABEL_ID_MAX_PARTS + 1] = 0;
	m = gpt_image(4 * MiB, 512, 512, used);
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), -E2BIG);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	free(m.b);
}

/* 128-byte entries, GPT array bigger than one read: entry 129 of 256 is found. */
static void test_gpt_256_entries(void **state)
{
	static const unsigned used[] = {2, 129, 0};
	struct img m = gpt_image(4 * MiB, 512, 256, used);
	struct label_id id;

	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_GPT);
	assert_int_equal(id.nparts, 2);
	assert_int_equal(id.parts[0].num, 2);
	assert_string_equal(id.parts[0].guid, "23222120-2524-2726-2829-2A2B2C2D2E2F");
	assert_int_equal(id.parts[1].num, 129);
	/* 0x10 * 129 = 0x810: the byte is 0x10, the GUID bytes 0x10, 0x11, ... */
	assert_string_equal(id.parts[1].guid, "13121110-1514-1716-1819-1A1B1C1D1E1F");
	free(m.b);
}

static void test_dos(void **state)
{
	struct img m = img_new(1 * MiB);
	struct label_id id;
	char text[16];

	mbr_entry(m.b, 0, 0x80, 0x83, 2048, 1000);
	mbr_entry(m.b, 1, 0x00, 0x05, 4096, 1000);
	m.b[440] = 0x78;
	m.b[441] = 0x56;
	m.b[442] = 0x34;
	m.b[443] = 0x12;
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_DOS);
	assert_string_equal(id.disk, "12345678");
	assert_int_equal(id.nparts, 0);
	assert_int_equal(label_identity_format(&id, text, sizeof(text)), 12);
	assert_string_equal(text, "dos:12345678");
	free(m.b);
}

static void test_dos_zero_signature(void **state)
{
	struct img m = img_new(1 * MiB);
	struct label_id id;

	mbr_entry(m.b, 0, 0, 0x83, 2048, 1000);
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_DOS);
	assert_string_equal(id.disk, "00000000");
	free(m.b);
}

/* 55 AA with boot indicators other than 0x00/0x80: a boot sector, not a table. */
static void test_boot_sector_not_dos(void **state)
{
	struct img m = img_new(1 * MiB);
	struct label_id id;

	mbr_entry(m.b, 0, 0, 0x83, 2048, 1000);
	m.b[446 + 16] = 0x4d;
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	free(m.b);
}

/* A protective MBR without any GPT header is no label at all (not dos). */
static void test_protective_without_gpt(void **state)
{
	struct img m = img_new(1 * MiB);
	struct label_id id;

	mbr_entry(m.b, 0, 0, 0xee, 1, 2047);
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	free(m.b);
}

static void test_blank_and_errors(void **state)
{
	struct img m = img_new(1 * MiB);
	struct label_id id;

	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	m.fail = -EIO;
	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), -EIO);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	m.fail = 0;
	assert_int_equal(label_identity(rd_img, &m, 0, m.size, &id), -EINVAL);
	assert_int_equal(label_identity(rd_img, &m, 1000, m.size, &id), -EINVAL);
	m.reads = 0;
	assert_int_equal(label_identity(rd_img, &m, 512, 0, &id), 0);
	assert_int_equal(id.kind, LABEL_ID_NONE);
	assert_int_equal(m.reads, 0);
	free(m.b);
}

static void test_format_parse(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_id id, back;
	char text[64], small[10];

	assert_int_equal(label_identity(rd_img, &m, 512, m.size, &id), 0);
	assert_int_equal(label_identity_format(&id, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "");
	assert_true(label_identity_format(&id, text, sizeof(text)) > 0);
	assert_int_equal(label_identity_parse(text, &back), 0);
	assert_true(label_identity_same(&id, &back)); /* partitions are not compared */
	assert_int_equal(back.nparts, 0);

	assert_int_equal(label_identity_parse("dos:0a0b0c0d", &back), 0);
	assert_int_equal(back.kind, LABEL_ID_DOS);
	assert_string_equal(back.disk, "0a0b0c0d");
	assert_false(label_identity_same(&id, &back));
	assert_int_equal(label_identity_parse("none", &back), 0);
	assert_int_equal(back.kind, LABEL_ID_NONE);

	assert_int_equal(label_identity_parse("dos:0A0B0C0D", &back), -EINVAL);
	assert_int_equal(label_identity_parse("dos:0a0b0c0", &back), -EINVAL);
	assert_int_equal(label_identity_parse("dos:0a0b0c0d0", &back), -EINVAL);
	assert_int_equal(label_identity_parse("gpt:"
					      "a3a2a1a0-a5a4-a7a6-a8a9-aaabacadaeaf",
					      &back),
			 -EINVAL);
	assert_int_equal(
	    label_identity_parse("gpt:A3A2A1A0A5A4-A7A6-A8A9-AAABACADAEAF-", &back),
	    -EINVAL);
	assert_int_equal(label_identity_parse("wwn:0x5000", &back), -EINVAL);
	assert_int_equal(label_identity_parse("", &back), -EINVAL);
	free(m.b);
}

/* Two clones that differ only in the disk GUID (sgdisk -G changes all GUIDs). */
static void test_clones_differ(void **state)
{
	struct img a = gpt_image(4 * MiB, 512, 128, used13);
	struct img b = gpt_image(4 * MiB, 512, 128, used13);
	uint64_t nsec = b.size / 512;
	struct label_id ia, ib;

	b.b[512 + 56] = 0xff;
	put32(b.b + 512 + 16, 0);
	put32(b.b + 512 + 16, crc32_bitwise(b.b + 512, 92));
	b.b[(nsec - 1) * 512 + 56] = 0xff;
	put32(b.b + (nsec - 1) * 512 + 16, 0);
	put32(b.b + (nsec - 1) * 512 + 16, crc32_bitwise(b.b + (nsec - 1) * 512, 92));
	assert_int_equal(label_identity(rd_img, &a, 512, a.size, &ia), 0);
	assert_int_equal(label_identity(rd_img, &b, 512, b.size, &ib), 0);
	assert_int_equal(ib.kind, LABEL_ID_GPT);
	assert_false(ib.backup_header);
	assert_string_equal(ib.disk, "A3A2A1FF-A5A4-A7A6-A8A9-AAABACADAEAF");
	assert_false(label_identity_same(&ia, &ib));
	free(a.b);
	free(b.b);
}

/* ---- label_health: each copy on its own ---- */

static void health_of(struct img *m, struct label_health *h)
{
	assert_int_equal(label_health(rd_img, m, 512, m->size, h), 0);
}

static void test_health_intact_and_damaged(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	uint64_t nsec = m.size / 512;
	struct label_health h;

	health_of(&m, &h);
	assert_true(h.pmbr);
	assert_int_equal(h.primary, LABEL_GPT_OK);
	assert_int_equal(h.backup, LABEL_GPT_OK);
	assert_int_equal(h.entries_lba, 2);
	assert_int_equal(h.hybrid_entry, 0);

	m.b[512 + 60] ^= 0x01; /* the primary header's CRC fails */
	health_of(&m, &h);
	assert_int_equal(h.primary, LABEL_GPT_BAD_HEADER);
	assert_int_equal(h.backup, LABEL_GPT_OK);
	assert_int_equal(h.backup_parts, 2);
	memset(m.b + 512, 0, 8); /* and its signature */
	health_of(&m, &h);
	assert_int_equal(h.primary, LABEL_GPT_NO_HEADER);
	m.b[(nsec - 1) * 512 + 60] ^= 0x01;
	health_of(&m, &h);
	assert_int_equal(h.backup, LABEL_GPT_BAD_HEADER);
	free(m.b);

	m = gpt_image(4 * MiB, 512, 128, used13);
	m.b[2 * 512 + 128 + 20] = 0x99; /* the primary entry array only */
	health_of(&m, &h);
	assert_int_equal(h.primary, LABEL_GPT_BAD_ARRAY);
	assert_int_equal(h.backup, LABEL_GPT_OK);
	m.b[(nsec - 33) * 512 + 128 + 20] = 0x99; /* and the backup's */
	health_of(&m, &h);
	assert_int_equal(h.backup, LABEL_GPT_BAD_ARRAY);
	free(m.b);
}

/* A LUN grown after partitioning: the backup is where the primary says. */
static void test_health_grown(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_health h;

	m.b = realloc(m.b, 5 * MiB);
	assert_non_null(m.b);
	memset(m.b + m.size, 0, MiB);
	m.size = 5 * MiB;
	health_of(&m, &h);
	assert_int_equal(h.primary, LABEL_GPT_OK);
	assert_int_equal(h.backup, LABEL_GPT_OK);
	assert_int_equal(h.backup_lba, 4 * MiB / 512 - 1);
	free(m.b);
}

static void test_health_hybrid_and_dos(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_health h;

	mbr_entry(m.b, 2, 0, 0x83, 2048, 1001);
	health_of(&m, &h);
	assert_int_equal(h.hybrid_entry, 3);
	assert_int_equal(h.hybrid_type, 0x83);
	free(m.b);

	m = img_new(4 * MiB);
	mbr_entry(m.b, 0, 0, 0x83, 2048, 1000);
	health_of(&m, &h);
	assert_false(h.pmbr);
	assert_int_equal(h.primary, LABEL_GPT_OK);
	assert_int_equal(h.backup, LABEL_GPT_OK);
	free(m.b);
}

/* ---- label_check_entries: what libparted refuses, in words ---- */

static void test_check_entries(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	uint64_t nsec = m.size / 512;
	char why[256];

	assert_int_equal(label_check_entries(rd_img, &m, 512, m.size, why, sizeof(why)),
			 0);
	assert_string_equal(why, "");
	/* entry 3 runs into entry 1 (sectors 2048-3048) */
	put64(m.b + 2 * 512 + 2 * 128 + 32, 3000);
	assert_int_equal(label_check_entries(rd_img, &m, 512, m.size, why, sizeof(why)),
			 1);
	assert_string_equal(why,
			    "partitions 1 (sectors 2048-3048) and 3 (sectors 3000-7144) "
			    "overlap");
	/* entry 3 past the end */
	put64(m.b + 2 * 512 + 2 * 128 + 32, 6144);
	put64(m.b + 2 * 512 + 2 * 128 + 40, nsec + 10);
	assert_int_equal(label_check_entries(rd_img, &m, 512, m.size, why, sizeof(why)),
			 1);
	assert_string_equal(why,
			    "partition 3 ends at sector 8202, past the end of the disk "
			    "(last sector 8191)");
	free(m.b);

	m = img_new(4 * MiB);
	mbr_entry(m.b, 0, 0, 0x83, 2048, 1000);
	mbr_entry(m.b, 1, 0, 0x83, 2500, 1000);
	assert_int_equal(label_check_entries(rd_img, &m, 512, m.size, why, sizeof(why)),
			 1);
	assert_string_equal(why,
			    "partitions 1 (sectors 2048-3047) and 2 (sectors 2500-3499) "
			    "overlap");
	free(m.b);
}

static int wr_img(void *ctx, uint64_t off, const void *buf, size_t len)
{
	struct img *m = ctx;

	if (off + len > m->size)
		return -EIO;
	memcpy(m->b + off, buf, len);
	return 0;
}

/* What libparted 3.2 cannot set: a type GUID and attribute bits, in both copies. */
static void test_gpt_edit(void **state)
{
	struct img m = gpt_image(4 * MiB, 512, 128, used13);
	struct label_gpt_edit e[4] = {{0}};
	struct label_health h;
	uint64_t attrs[4];
	uint64_t backup = 4 * MiB - 512 - 128 * 128;

	assert_int_equal(
	    label_guid_parse("0657FD6D-A4AB-43C4-84E5-0933C84B4F4F", e[2].type), 0);
	assert_int_equal(e[2].type[0], 0x6d);
	assert_int_equal(e[2].type[3], 0x06);
	assert_int_equal(e[2].type[4], 0xab);
	assert_int_equal(e[2].type[6], 0xc4);
	assert_int_equal(e[2].type[8], 0x84);
	assert_int_equal(e[2].type[15], 0x4f);
	assert_int_equal(
	    label_guid_parse("0657fd6d-a4ab-43c4-84e5-0933c84b4f4f", e[1].type), 0);
	assert_memory_equal(e[1].type, e[2].type, 16);
	assert_int_equal(
	    label_guid_parse("0657FD6D-A4AB-43C4-84E5-0933C84B4F4", e[1].type), -EINVAL);
	assert_int_equal(
	    label_guid_parse("0657FD6DxA4AB-43C4-84E5-0933C84B4F4F", e[1].type), -EINVAL);
	e[2].type_set = true;
	e[0].attrs_set = true;
	e[0].attrs = 0x8000000000000002ull;
	assert_int_equal(label_gpt_edit(rd_img, wr_img, &m, 512, m.size, e, 4), 0);
	/* both copies valid, with the new bytes in each */
	health_of(&m, &h);
	assert_int_equal(h.primary, LABEL_GPT_OK);
	assert_int_equal(h.backup, LABEL_GPT_OK);
	assert_memory_equal(m.b + 1024 + 2 * 128, e[2].type, 16);
	assert_memory_equal(m.b + backup + 2 * 128, e[2].type, 16);
	assert_int_equal(label_gpt_attrs(rd_img, &m, 512, m.size, attrs, 4), 0);
	assert_true(attrs[0] == 0x8000000000000002ull);
	assert_true(attrs[1] == 0 && attrs[3] == 0);
	free(m.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpt_512),
	    cmocka_unit_test(test_gpt_4096),
	    cmocka_unit_test(test_gpt_primary_header_damaged),
	    cmocka_unit_test(test_gpt_primary_signature_gone),
	    cmocka_unit_test(test_gpt_primary_array_damaged),
	    cmocka_unit_test(test_gpt_both_damaged),
	    cmocka_unit_test(test_gpt_backup_header_wrong_lba),
	    cmocka_unit_test(test_gpt_too_many_parts),
	    cmocka_unit_test(test_gpt_256_entries),
	    cmocka_unit_test(test_dos),
	    cmocka_unit_test(test_dos_zero_signature),
	    cmocka_unit_test(test_boot_sector_not_dos),
	    cmocka_unit_test(test_protective_without_gpt),
	    cmocka_unit_test(test_blank_and_errors),
	    cmocka_unit_test(test_format_parse),
	    cmocka_unit_test(test_clones_differ),
	    cmocka_unit_test(test_health_intact_and_damaged),
	    cmocka_unit_test(test_health_grown),
	    cmocka_unit_test(test_health_hybrid_and_dos),
	    cmocka_unit_test(test_check_entries),
	    cmocka_unit_test(test_gpt_edit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
