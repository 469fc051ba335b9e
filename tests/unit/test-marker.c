/*
 * The move marker (src/core/marker.c) on GPT and dos images built byte by
 * byte (label-images.h, whose CRCs come from its own bitwise CRC-32): set,
 * found, cleared back to the original bytes; both GPT copies stay valid;
 * what the marker must not touch stays untouched.
 */
#include "label-images.h"

#include "core/marker.h"

static int wr_img(void *ctx, uint64_t off, const void *buf, size_t len)
{
	struct img *m = ctx;

	if (off > m->size || len > m->size - off)
		return -EIO;
	memcpy(m->b + off, buf, len);
	return 0;
}

/*
 * A journal of one move of partition @num from @from to @to (bytes, @len
 * long), entries filled from @io's image.
 */
static void journal_for(struct marker_io *io, unsigned int num, uint64_t from,
			uint64_t len, uint64_t to, struct pa_journal *j)
{
	memset(j, 0, sizeof(*j));
	j->v = calloc(1, sizeof(*j->v));
	assert_non_null(j->v);
	j->n = 1;
	j->v[0].num = num;
	j->v[0].from = from;
	j->v[0].to = to;
	j->v[0].len = len;
	j->v[0].chunk = j->chunk = 1 << 20;
	j->logical = io->logical;
	j->move_id = 0x0123456789abcdefull;
	j->device = strdup("/dev/sdx");
	j->id = strdup("wwn:1");
	assert_int_equal(marker_originals(io, j), 0);
}

/* Both GPT headers and arrays check out, by the bitwise CRC. */
static void assert_gpt_valid(const struct img *m, uint32_t l)
{
	uint64_t lbas[2] = {1, m->size / l - 1};
	int k;

	for (k = 0; k < 2; k++) {
		unsigned char h[92];
		const unsigned char *p = m->b + lbas[k] * l;
		uint64_t elba = (uint64_t)p[72] | (uint64_t)p[73] << 8 |
				(uint64_t)p[74] << 16 | (uint64_t)p[75] << 24;
		uint32_t count = p[80] | p[81] << 8, esize = p[84] | p[85] << 8;
		uint32_t want = (uint32_t)p[16] | (uint32_t)p[17] << 8 |
				(uint32_t)p[18] << 16 | (uint32_t)p[19] << 24;
		uint32_t ecrc = (uint32_t)p[88] | (uint32_t)p[89] << 8 |
				(uint32_t)p[90] << 16 | (uint32_t)p[91] << 24;

		memcpy(h, p, 92);
		memset(h + 16, 0, 4);
		assert_int_equal(crc32_bitwise(h, 92), want);
		assert_int_equal(crc32_bitwise(m->b + elba * l, (size_t)count * esize),
				 ecrc);
	}
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static const unsigned char move_type[16] = {0xd2, 0x1e, 0x99, 0xdb, 0x49, 0xf6,
					    0x6f, 0x40, 0xb0, 0xf6, 0x8b, 0xe7,
					    0x9b, 0x36, 0xcd, 0x64};

/* "partalign-move 0123456789abcdef" in UTF-16LE, as the hidden entry's name */
static void assert_move_name(const unsigned char *name)
{
	const char *t = "partalign-move 0123456789abcdef";
	size_t i;

	for (i = 0; t[i]; i++) {
		assert_int_equal(name[2 * i], (unsigned char)t[i]);
		assert_int_equal(name[2 * i + 1], 0);
	}
	assert_int_equal(name[2 * i] | name[2 * i + 1], 0);
}

static void test_gpt_round_trip(void **state)
{
	static const unsigned used[] = {1, 2, 0};
	uint32_t l;

	for (l = 512; l <= 4096; l *= 8) {
		struct img m = gpt_image(8 * MiB / 512 * l, l, 128, used);
		unsigned char *orig = malloc(m.size), *hidden = malloc(m.size);
		struct marker_io io = {rd_img, wr_img, &m, l, m.size};
		struct pa_journal j;
		struct pa_marker mk;
		uint64_t arr = (128 * 128 + l - 1) / l, nsec = m.size / l;
		unsigned char *e1 = m.b + 2 * l, *b2 = m.b + (nsec - 1 - arr) * l + 128;
		unsigned char *h1 = m.b + l, *h2 = m.b + (nsec - 1) * l;
		static const unsigned char zero[16];
		unsigned char mguid[16] = {0xd2, 0x1e, 0x99, 0xdb, 0x49, 0xf6,
					   0x6f, 0x40, 0x01, 0x23, 0x45, 0x67,
					   0x89, 0xab, 0xcd, 0xef};
		uint64_t gid;

		assert_non_null(orig);
		assert_non_null(hidden);
		memcpy(orig, m.b, m.size);
		assert_int_equal(marker_find(&io, &mk), 0);
		/* partition 2 is at LBA 4096, 1001 sectors; it goes to LBA 6144 */
		journal_for(&io, 2, 4096ull * l, 1001ull * l, 6144ull * l, &j);
		assert_string_equal(j.label, "gpt:A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF");
		assert_string_equal(j.v[0].entry.uuid,
				    "23222120-2524-2726-2829-2A2B2C2D2E2F");

		assert_int_equal(marker_set(&io, &j, "/mnt/j/x-0123456789abcdef.journal"),
				 0);
		assert_gpt_valid(&m, l);
		/* entry 2 in both copies is hidden: type zero, so the kernel and
		   libblkid skip it; entry 1 is untouched */
		assert_memory_equal(e1 + 128, zero, 16);
		assert_memory_equal(b2, zero, 16);
		assert_memory_equal(e1, orig + 2 * l, 128);
		/* the unique GUID, the LBAs and the attributes of the entry are kept */
		assert_memory_equal(e1 + 128 + 16, orig + 2 * l + 128 + 16, 40);
		assert_move_name(e1 + 128 + 56);
		assert_true(get64(e1 + 128 + 120) == 6144);
		/* the disk GUID tells the move (udev's ID_PART_TABLE_UUID) */
		assert_memory_equal(h1 + 56, mguid, 16);
		assert_memory_equal(h2 + 56, mguid, 16);
		/* the record entries keep type, GUID and LBAs zero: other tools skip them
		 */
		{
			static const unsigned char z48[48];
			unsigned int k;

			for (k = 125; k <= 128; k++)
				assert_memory_equal(e1 + (k - 1) * 128, z48, 48);
		}
		assert_int_equal(marker_find(&io, &mk), 1);
		assert_int_equal(mk.n, 1);
		assert_int_equal(mk.nums[0], 2);
		assert_true(mk.hidden && mk.parts[0].hidden && mk.parts[0].primary);
		assert_true(mk.parts[0].from == 4096ull * l &&
			    mk.parts[0].len == 1001ull * l);
		assert_true(mk.parts[0].to == 6144ull * l);
		assert_true(mk.guid_marked && mk.guid_known);
		assert_memory_equal(mk.guid, orig + l + 56, 16);
		assert_false(mk.id32);
		assert_true(mk.move_id == 0x0123456789abcdefull);
		assert_string_equal(mk.journal, "/mnt/j/x-0123456789abcdef.journal");
		assert_true(marker_matches(&mk, &j));
		j.move_id ^= 1;
		assert_false(marker_matches(&mk, &j));
		j.move_id ^= 1;
		assert_true(
		    marker_guid_is_move("db991ed2-f649-406f-0123-456789abcdef", &gid));
		assert_true(gid == 0x0123456789abcdefull);
		assert_false(
		    marker_guid_is_move("A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF", &gid));

		/* setting it again (a resume) changes nothing */
		memcpy(hidden, m.b, m.size);
		assert_int_equal(marker_set(&io, &j, "/mnt/j/x-0123456789abcdef.journal"),
				 0);
		assert_memory_equal(m.b, hidden, m.size);

		/* the primary alone damaged: the backup copy still says it */
		m.b[l + 20] ^= 0xff;
		assert_int_equal(marker_find(&io, &mk), 1);
		assert_false(mk.parts[0].primary);
		m.b[l + 20] ^= 0xff;

		/* shown to libparted: the marker's type, the original disk GUID */
		assert_int_equal(marker_reveal(&io), 0);
		assert_gpt_valid(&m, l);
		assert_memory_equal(e1 + 128, move_type, 16);
		assert_memory_equal(b2, move_type, 16);
		assert_memory_equal(h1 + 56, orig + l + 56, 16);
		assert_memory_equal(e1 + 128 + 16, orig + 2 * l + 128 + 16, 40);
		assert_int_equal(marker_find(&io, &mk), 1);
		assert_false(mk.hidden);
		assert_true(mk.move_id == 0x0123456789abcdefull);

		assert_int_equal(marker_clear(&io, &j), 0);
		assert_memory_equal(m.b, orig, m.size);
		assert_int_equal(marker_find(&io, &mk), 0);
		/* clearing an unmarked table changes nothing */
		assert_int_equal(marker_clear(&io, &j), 0);
		assert_memory_equal(m.b, orig, m.size);

		/* cleared straight from the disk's form, too */
		memcpy(m.b, hidden, m.size);
		assert_int_equal(marker_clear(&io, &j), 0);
		assert_memory_equal(m.b, orig, m.size);
		journal_free(&j);
		free(hidden);
		free(orig);
		free(m.b);
	}
}

/* A table not as the journal says: refused, nothing written; at the new place: kept. */
static void test_gpt_where(void **state)
{
	static const unsigned used[] = {1, 2, 0};
	struct img m = gpt_image(8 * MiB, 512, 128, used);
	unsigned char *orig = malloc(m.size);
	struct marker_io io = {rd_img, wr_img, &m, 512, m.size};
	struct pa_journal j;

	assert_non_null(orig);
	memcpy(orig, m.b, m.size);
	journal_for(&io, 2, 4095ull * 512, 1001ull * 512, 6144ull * 512, &j);
	assert_int_equal(marker_set(&io, &j, NULL), -ENOENT);
	assert_memory_equal(m.b, orig, m.size);
	journal_free(&j);
	/* entry 2 is where the journal's move ends: a torn final write; kept */
	journal_for(&io, 2, 2048ull * 512, 1001ull * 512, 4096ull * 512, &j);
	assert_int_equal(marker_set(&io, &j, NULL), 0);
	assert_memory_equal(m.b + 2 * 512 + 128, orig + 2 * 512 + 128, 128);
	journal_free(&j);
	free(orig);
	free(m.b);
}

/* What an earlier build left on a disk (the marker's type, the entry shown). */
static void test_gpt_shown_on_disk(void **state)
{
	static const unsigned used[] = {1, 2, 0};
	struct img m = gpt_image(8 * MiB, 512, 128, used);
	struct marker_io io = {rd_img, wr_img, &m, 512, m.size};
	struct pa_journal j;
	struct pa_marker mk;
	static const unsigned char zero[16];

	journal_for(&io, 2, 4096ull * 512, 1001ull * 512, 6144ull * 512, &j);
	assert_int_equal(marker_set(&io, &j, NULL), 0);
	assert_int_equal(marker_reveal(&io), 0);
	assert_int_equal(marker_find(&io, &mk), 1);
	assert_false(mk.parts[0].hidden);
	assert_true(mk.parts[0].to == 0);
	/* the next marker_set (a resume) hides it */
	assert_int_equal(marker_set(&io, &j, NULL), 0);
	assert_memory_equal(m.b + 2 * 512 + 128, zero, 16);
	assert_int_equal(marker_find(&io, &mk), 1);
	assert_true(mk.parts[0].hidden && mk.parts[0].to == 6144ull * 512);
	journal_free(&j);
	free(m.b);
}

static void test_dos_round_trip(void **state)
{
	struct img m = img_new(8 * MiB);
	unsigned char *orig = malloc(m.size);
	struct marker_io io = {rd_img, wr_img, &m, 512, m.size};
	unsigned char *e = m.b + 446;
	struct pa_journal j;
	struct pa_marker mk;
	size_t i;

	assert_non_null(orig);
	for (i = 0; i < 440; i++)
		m.b[i] = (unsigned char)(i * 7); /* boot code: never touched */
	put32(m.b + 440, 0x1122aabb);
	mbr_entry(m.b, 0, 0x80, 0x83, 63, 4000);
	mbr_entry(m.b, 1, 0, 0x8e, 8192, 4000);
	memcpy(orig, m.b, m.size);
	journal_for(&io, 1, 63 * 512, 4000 * 512, 4096 * 512, &j);
	assert_string_equal(j.label, "dos:1122aabb");
	assert_string_equal(j.v[0].entry.type, "0x83");

	assert_int_equal(marker_set(&io, &j, "/ignored"), 0);
	/* size 0: no partition for the kernel; start and boot flag kept */
	assert_int_equal(e[4], PA_MOVE_DOS_TYPE);
	assert_int_equal(e[0], 0x80);
	assert_int_equal(e[8] | e[9] << 8, 63);
	assert_int_equal(e[12] | e[13] | e[14] | e[15], 0);
	assert_int_equal(m.b[446 + 16 + 4], 0x8e);
	assert_memory_equal(m.b, orig, 440);
	assert_int_equal(m.b[440] | m.b[441] << 8 | m.b[442] << 16 |
			     (uint32_t)m.b[443] << 24,
			 0x89abcdefu);
	assert_int_equal(marker_find(&io, &mk), 1);
	assert_true(mk.id32);
	assert_int_equal(mk.nums[0], 1);
	assert_true(mk.parts[0].hidden);
	assert_true(mk.parts[0].from == 63 * 512 && mk.parts[0].len == 4000 * 512);
	assert_true(mk.parts[0].to == 4096 * 512);
	assert_true(marker_matches(&mk, &j));
	assert_string_equal(mk.journal, "");

	/* shown to libparted: the size back, the marker's system id */
	assert_int_equal(marker_reveal(&io), 0);
	assert_int_equal(e[12] | e[13] << 8, 4000);
	assert_int_equal(e[4], PA_MOVE_DOS_TYPE);
	assert_int_equal(marker_find(&io, &mk), 1);
	assert_false(mk.parts[0].hidden);

	/* libparted made up a signature while staging: clear puts the original back */
	put32(m.b + 440, 0xdeadbeef);
	assert_int_equal(marker_clear(&io, &j), 0);
	assert_memory_equal(m.b, orig, m.size);
	assert_int_equal(marker_find(&io, &mk), 0);

	/* a move too far for 16 bits of sectors: the disk does not say where */
	journal_free(&j);
	journal_for(&io, 1, 63 * 512, 4000 * 512, (63 + 40000) * 512, &j);
	assert_int_equal(marker_set(&io, &j, NULL), 0);
	assert_int_equal(marker_find(&io, &mk), 1);
	assert_true(mk.parts[0].hidden && mk.parts[0].to == 0);
	assert_int_equal(marker_clear(&io, &j), 0);
	assert_memory_equal(m.b, orig, m.size);
	journal_free(&j);
	free(orig);
	free(m.b);
}

static void test_no_label(void **state)
{
	struct img m = img_new(1 * MiB);
	struct marker_io io = {rd_img, wr_img, &m, 512, m.size};
	struct pa_journal j = {0};
	struct pa_jmove v = {.num = 1};
	struct pa_marker mk;

	assert_int_equal(marker_find(&io, &mk), 0);
	j.v = &v;
	j.n = 1;
	assert_int_equal(marker_originals(&io, &j), -EOPNOTSUPP);
	assert_int_equal(marker_set(&io, &j, NULL), -EOPNOTSUPP);
	/* a protective MBR without a valid GPT is no dos table to mark */
	mbr_entry(m.b, 0, 0, 0xee, 1, 2047);
	assert_int_equal(marker_find(&io, &mk), 0);
	assert_int_equal(marker_set(&io, &j, NULL), -EOPNOTSUPP);
	free(m.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpt_round_trip),
	    cmocka_unit_test(test_gpt_where),
	    cmocka_unit_test(test_gpt_shown_on_disk),
	    cmocka_unit_test(test_dos_round_trip),
	    cmocka_unit_test(test_no_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
