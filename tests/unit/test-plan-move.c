/*
 * Unit tests of --move-data in the pure core: the plan's choice of new
 * starts and its refusals (core/plan.c), and the move journal
 * (core/journal.c): format, records, chunk geometry, the rule of which
 * chunk copies a write destroys, and a model of the copy protocol that
 * crashes after every step -- dropping and tearing any write not yet made
 * durable -- and requires the redo to produce the moved content exactly.
 * Expected values are worked out by hand or by brute force here, never by
 * calling the code under test.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/crc32.h"
#include "core/journal.h"
#include "core/plan.h"

#define S512 512ull
#define DISK (1 * GiB)

struct part {
	unsigned int num;
	uint64_t start, size;
	const char *sig;
	bool logical, extended;
};

#define P(n, s, z, g)                                                                    \
	{                                                                                \
		.num = (n), .start = (s), .size = (z), .sig = (g)                        \
	}

static struct pa_topology topo_of(uint32_t logical)
{
	struct pa_topology t = {
	    .logical = logical, .physical = logical, .min_io = logical};

	return t;
}

/* Plan --move-data for @n partitions on a @label disk of @size bytes. */
static void plan_of(enum pa_label label, uint64_t size, uint32_t logical,
		    const struct part *v, size_t n, struct pa_plan *p)
{
	struct pa_topology topo = topo_of(logical);
	struct pa_plan_opts o = {.grain = PA_GRAIN_DEFAULT, .move_data = true};
	struct pa_table t = {.label = label, .disk_size = size, .logical = logical};
	size_t i;

	for (i = 0; i < n; i++) {
		struct pa_entry e = {.num = v[i].num,
				     .start = v[i].start,
				     .size = v[i].size,
				     .logical = v[i].logical,
				     .extended = v[i].extended,
				     .signature = v[i].sig ? strdup(v[i].sig) : NULL};

		assert_int_equal(plan_table_add(&t, &e), 0);
	}
	assert_int_equal(plan_compute(&t, &topo, &o, p), 0);
}

static const struct pa_step *step_of(const struct pa_plan *p, unsigned int num)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].num == num)
			return &p->v[i];
	fail_msg("no step for partition %u", num);
	return NULL;
}

/* GPT on 512-byte sectors: first usable byte 17408, last usable DISK - 16896 - 1. */
#define FIRST 17408ull
#define LAST (DISK - 16896ull - 1)

static void test_forward_when_no_room_before(void **state)
{
	/* start 34 sectors: the grain boundary below is 0, before the label */
	struct part v[] = {P(1, FIRST, 100 * MiB, "ext4")};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 1, &p);
	assert_null(p.refusal);
	assert_int_equal(p.new_label, PA_LABEL_GPT);
	assert_int_equal(p.changes, 1);
	assert_false(p.destroys); /* moved, not destroyed: no --discard-data needed */
	assert_int_equal(step_of(&p, 1)->kind, PA_STEP_MOVE);
	assert_int_equal(step_of(&p, 1)->new_start, 2 * MiB);
	assert_int_equal(step_of(&p, 1)->new_size, 100 * MiB);
	assert_string_equal(plan_step_name(PA_STEP_MOVE), "move");
	plan_free(&p);
}

static void test_backward_when_room_before(void **state)
{
	/* p2 starts one sector after a grain boundary that p1 has left free */
	struct part v[] = {P(1, 2 * MiB, 10 * MiB, NULL),
			   P(2, 14 * MiB + S512, 20 * MiB, "xfs"),
			   P(3, 40 * MiB, 10 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 3, &p);
	assert_null(p.refusal);
	assert_int_equal(p.changes, 1);
	assert_int_equal(step_of(&p, 1)->kind, PA_STEP_KEEP);
	assert_int_equal(step_of(&p, 2)->kind, PA_STEP_MOVE);
	assert_int_equal(step_of(&p, 2)->new_start, 14 * MiB);
	assert_int_equal(step_of(&p, 3)->kind, PA_STEP_KEEP);
	assert_int_equal(step_of(&p, 3)->new_start, 40 * MiB);
	plan_free(&p);
}

static void test_forward_when_predecessor_too_close(void **state)
{
	/* p1 ends 512 B past 12 MiB: p2 cannot go back to 12 MiB, goes to 14 MiB */
	struct part v[] = {P(1, 2 * MiB, 10 * MiB + S512, NULL),
			   P(2, 12 * MiB + 1024, 5 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 2, &p);
	assert_null(p.refusal);
	assert_int_equal(step_of(&p, 2)->kind, PA_STEP_MOVE);
	assert_int_equal(step_of(&p, 2)->new_start, 14 * MiB);
	plan_free(&p);
}

static void test_chain_of_forward_moves(void **state)
{
	/* p1 moves forward into p2's first bytes, so p2 must move forward as well */
	struct part v[] = {P(1, FIRST, 10 * MiB, NULL),
			   P(2, FIRST + 10 * MiB, 10 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 2, &p);
	assert_null(p.refusal);
	assert_int_equal(step_of(&p, 1)->new_start, 2 * MiB);
	assert_int_equal(step_of(&p, 2)->new_start, 12 * MiB);
	plan_free(&p);
}

static void test_aligned_disk_changes_nothing(void **state)
{
	struct part v[] = {P(1, 2 * MiB, 10 * MiB, "ext4"),
			   P(2, 12 * MiB, 10 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 2, &p);
	assert_null(p.refusal);
	assert_int_equal(p.changes, 0);
	assert_int_equal(step_of(&p, 1)->kind, PA_STEP_KEEP);
	assert_int_equal(step_of(&p, 2)->kind, PA_STEP_KEEP);
	plan_free(&p);
}

static void test_refuse_grow_the_lun(void **state)
{
	/* fills the disk to the last usable byte: moving 2 MiB - 17408 B forward needs
	 * that much */
	struct part v[] = {P(1, FIRST, LAST + 1 - FIRST, "ext4")};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 1, &p);
	assert_non_null(p.refusal);
	assert_contains(p.refusal, "partition 1");
	assert_contains(p.refusal,
			"grow the LUN by 2.0 MiB (2079744 bytes)"); /* 2097152 - 17408 */
	assert_not_contains(p.refusal, "before it");
	plan_free(&p);
}

static void test_refuse_free_after(void **state)
{
	/* p1 (11 MiB at 34 s) would end at 13 MiB, past p2 at 12 MiB */
	struct part v[] = {P(1, FIRST, 11 * MiB, NULL), P(2, 12 * MiB, 10 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 2, &p);
	assert_non_null(p.refusal);
	assert_contains(p.refusal, "free 1 MiB after partition 1");
	plan_free(&p);
}

static void test_refuse_names_both_ways(void **state)
{
	/* p2 misses 512 bytes before it to go back, 1 MiB after it to go forward */
	struct part v[] = {P(1, 2 * MiB, 10 * MiB + S512, NULL),
			   P(2, 12 * MiB + 1024, 11 * MiB, NULL),
			   P(3, 24 * MiB, 10 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 3, &p);
	assert_non_null(p.refusal);
	assert_contains(p.refusal,
			"free 1 MiB after partition 2 (or 512 bytes before it)");
	plan_free(&p);
}

static void test_dos_keeps_label(void **state)
{
	struct part v[] = {P(1, 63 * S512, 100 * MiB, "ext4")};
	struct pa_plan p;

	plan_of(PA_LABEL_MSDOS, DISK, 512, v, 1, &p);
	assert_null(p.refusal);
	assert_int_equal(p.new_label, PA_LABEL_MSDOS);
	assert_int_equal(step_of(&p, 1)->new_start, 2 * MiB);
	plan_free(&p);
}

static void test_dos_logical_refused(void **state)
{
	struct part v[] = {
	    P(1, 2 * MiB, 10 * MiB, NULL),
	    {.num = 2, .start = 12 * MiB, .size = 100 * MiB, .extended = true},
	    {.num = 5,
	     .start = 12 * MiB + 63 * S512,
	     .size = 50 * MiB,
	     .sig = "ext4",
	     .logical = true}};
	struct pa_plan p;

	plan_of(PA_LABEL_MSDOS, DISK, 512, v, 3, &p);
	assert_non_null(p.refusal);
	assert_contains(p.refusal, "partition 5 is a dos logical partition");
	plan_free(&p);
}

static void test_dos_extended_is_an_obstacle(void **state)
{
	/* p1 may not move forward into the extended container */
	struct part v[] = {
	    P(1, 63 * S512, 11 * MiB, NULL),
	    {.num = 2, .start = 12 * MiB, .size = 100 * MiB, .extended = true},
	    {.num = 5, .start = 14 * MiB, .size = 50 * MiB, .logical = true}};
	struct pa_plan p;

	plan_of(PA_LABEL_MSDOS, DISK, 512, v, 3, &p);
	assert_non_null(p.refusal);
	assert_contains(p.refusal, "free 1 MiB after partition 1");
	plan_free(&p);
}

static void test_4k_sectors(void **state)
{
	/* 4Kn GPT: first usable 6 sectors (24 KiB); start 7 sectors is misaligned */
	struct part v[] = {P(1, 7 * 4096ull, 64 * MiB, NULL),
			   P(2, 70 * MiB + 4096, 8 * MiB, NULL)};
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 4096, v, 2, &p);
	assert_null(p.refusal);
	assert_int_equal(step_of(&p, 1)->new_start, 2 * MiB);
	assert_int_equal(step_of(&p, 2)->new_start, 70 * MiB);
	plan_free(&p);
}

/* ---- the journal ---- */

/* A journal for the MOVE steps of the partitions @v (chunk @chunk). */
static void journal_of(const struct part *v, size_t n, uint64_t chunk,
		       struct pa_journal *j, struct pa_plan *p)
{
	plan_of(PA_LABEL_GPT, DISK, 512, v, n, p);
	assert_null(p->refusal);
	assert_int_equal(journal_init(j, p, "/dev/sdx", "wwn:0x5000", chunk, 0x1234), 0);
}

/* What marker_originals() would record for a GPT disk. */
static void fill_entries(struct pa_journal *j)
{
	size_t m;

	assert_int_equal(journal_set_label(j, "gpt:0D2F3A4B-1111-2222-3333-444455556666"),
			 0);
	j->move_id = 0xcafe0001;
	for (m = 0; m < j->n; m++) {
		struct pa_jentry *e = &j->v[m].entry;

		strcpy(e->type, "0FC63DAF-8483-4772-8E79-3D69D8477DE4");
		snprintf(e->uuid, sizeof(e->uuid), "11111111-2222-3333-4444-%012u",
			 (unsigned int)(m % 1000));
		memset(e->name, 0, sizeof(e->name));
		e->name[0] = 'd';
		e->name[2] = (unsigned char)('0' + m);
		e->has_name = true;
	}
	journal_relayout(j);
}

/* Parse @body (the lines before "crc32") with a correct CRC and padding. */
static int parse_text(const char *body)
{
	struct pa_journal k;
	char *buf = calloc(1, 2 * PA_JOURNAL_BLOCK);
	int n, rc;

	assert_non_null(buf);
	n = snprintf(buf, 2 * PA_JOURNAL_BLOCK, "%scrc32 %08x\nend\n", body,
		     (unsigned int)crc32_update(0, body, strlen(body)));
	assert_true(n > 0 && n < (int)PA_JOURNAL_BLOCK);
	rc = journal_parse(buf, 2 * PA_JOURNAL_BLOCK, &k);
	if (rc == 0)
		journal_free(&k);
	free(buf);
	return rc;
}

#define HDR                                                                              \
	"partalign-journal 2\ndevice /dev/sdx\nid wwn:1\nlabel gpt:X\nmove-id 1\n"       \
	"size 1073741824\nlogical 512\nnonce 5\nring 0\n"
#define ENTRY                                                                            \
	"entry 1 0FC63DAF-8483-4772-8E79-3D69D8477DE4 "                                  \
	"11111111-2222-3333-4444-555555555555 -\n"

/* Values that would wrap or escape the disk are refused even with a good CRC. */
static void test_journal_hostile_values(void **state)
{
	/* the good one, so that each refusal below is about its one change */
	assert_int_equal(
	    parse_text(HDR "chunk 8388608\nmove 1 1048576 2097152 104857600 record "
			   "1048576\n" ENTRY),
	    0);
	/* a chunk of 2^64 - 4096: zero chunks for a 100 MiB move */
	assert_int_equal(parse_text(HDR
				    "chunk 18446744073709547520\nmove 1 1048576 2097152 "
				    "104857600 record 18446744073709547520\n" ENTRY),
			 -EBADMSG);
	/* from + len wraps */
	assert_int_equal(parse_text(HDR
				    "chunk 8388608\nmove 1 18446744073709551104 2097152 "
				    "1024 record 1048576\n" ENTRY),
			 -EBADMSG);
	/* past the end of the disk */
	assert_int_equal(
	    parse_text(HDR "chunk 8388608\nmove 1 1048576 1073741312 1024 record "
			   "1048576\n" ENTRY),
	    -EBADMSG);
	/* a save move without a ring, a ring beyond its maximum */
	assert_int_equal(
	    parse_text(HDR "chunk 8388608\nmove 1 1048576 2097152 104857600 save "
			   "8388608\n" ENTRY),
	    -EBADMSG);
	/* a move without its entry, a key twice, a sector size of 3 */
	assert_int_equal(
	    parse_text(HDR "chunk 8388608\nmove 1 1048576 2097152 104857600 record "
			   "1048576\n"),
	    -EBADMSG);
	assert_int_equal(
	    parse_text(HDR "chunk 8388608\nchunk 8388608\nmove 1 1048576 2097152 "
			   "104857600 record 1048576\n" ENTRY),
	    -EBADMSG);
	assert_int_equal(
	    parse_text("partalign-journal 2\ndevice /dev/sdx\nid wwn:1\nlabel "
		       "gpt:X\nmove-id 1\nsize 1073741824\nlogical 3\nnonce "
		       "5\nring 0\nchunk 8388608\nmove 1 1048576 2097152 104857600 "
		       "record 1048576\n" ENTRY),
	    -EBADMSG);
	/* negative numbers, trailing junk */
	assert_int_equal(
	    parse_text(HDR "chunk -4096\nmove 1 1048576 2097152 104857600 record "
			   "1048576\n" ENTRY),
	    -EBADMSG);
	assert_int_equal(
	    parse_text(HDR "chunk 8388608x\nmove 1 1048576 2097152 104857600 record "
			   "1048576\n" ENTRY),
	    -EBADMSG);
}

static void test_journal_order_and_modes(void **state)
{
	/* p1 forward, p2 kept, p3 back by 512 B, p4 forward (p3 still ends past 164 MiB)
	 */
	struct part v[] = {P(1, FIRST, 10 * MiB, NULL), P(2, 20 * MiB, 10 * MiB, NULL),
			   P(3, 100 * MiB + S512, 64 * MiB + S512, NULL),
			   P(4, 164 * MiB + 1024, 10 * MiB, NULL)};
	struct pa_journal j;
	struct pa_plan p;

	plan_of(PA_LABEL_GPT, DISK, 512, v, 4, &p);
	assert_null(p.refusal);
	assert_int_equal(step_of(&p, 1)->new_start, 2 * MiB);
	assert_int_equal(step_of(&p, 3)->new_start, 100 * MiB);
	assert_int_equal(step_of(&p, 4)->new_start, 166 * MiB);
	assert_int_equal(journal_init(&j, &p, "/dev/sdx", "wwn:0x5000", 0, 7), 0);
	assert_int_equal(j.n, 3);
	/* forward moves first, the last partition first; then backward ones */
	assert_int_equal(j.v[0].num, 4);
	assert_int_equal(j.v[1].num, 1);
	assert_int_equal(j.v[2].num, 3);
	/* by default moves of about 2 MiB record progress only, in chunks of half
	 * the distance; the move back by 512 B saves its chunks */
	assert_false(j.v[0].save || j.v[1].save);
	assert_true(j.v[2].save);
	assert_int_equal(j.v[0].chunk, (2 * MiB - 1024) / 2 / 4096 * 4096);
	assert_int_equal(j.v[2].chunk, PA_JOURNAL_CHUNK);
	assert_int_equal(j.ring, PA_JOURNAL_RING);
	assert_int_equal(j.chunk, PA_JOURNAL_CHUNK);
	journal_free(&j);
	/* every move saved when recording starts only far beyond (the old default) */
	assert_int_equal(
	    journal_init2(&j, &p, "/dev/sdx", "wwn:0x5000", 0, 32 * MiB, 2, 7), 0);
	assert_true(j.v[0].save && j.v[1].save && j.v[2].save);
	assert_int_equal(j.v[0].chunk, PA_JOURNAL_CHUNK);
	journal_free(&j);
	/* recording from 1 MiB on: chunks of half the distance, no write on its own
	 * source */
	assert_int_equal(
	    journal_init2(&j, &p, "/dev/sdx", "wwn:0x5000", 0, 1 * MiB, 2, 7), 0);
	assert_false(j.v[0].save || j.v[1].save);
	assert_int_equal(j.v[0].chunk, (2 * MiB - 1024) / 2 / 4096 * 4096);
	assert_int_equal(j.v[1].chunk, (2 * MiB - FIRST) / 2 / 4096 * 4096);
	assert_true(journal_clobbers(&j, 0, 5) < 5 && journal_clobbers(&j, 1, 5) < 5);
	assert_true(j.v[2].save); /* 512 B back: shorter than any chunk */
	assert_int_equal(j.v[2].chunk, PA_JOURNAL_CHUNK);
	assert_int_equal(j.ring, PA_JOURNAL_RING);
	journal_free(&j);
	plan_free(&p);
}

static void test_journal_far_move_records_only(void **state)
{
	/* a 32 MiB move in 1 MiB chunks: writes stay >= 4 chunks behind their victims */
	struct part v[] = {P(1, 2 * MiB, 8 * MiB, NULL),
			   P(2, 42 * MiB + S512, 64 * MiB, NULL)};
	struct pa_journal j;
	struct pa_plan p;

	journal_of(v, 2, 1 * MiB, &j, &p);
	assert_int_equal(j.n, 1);
	assert_int_equal(j.v[0].to, 42 * MiB);
	assert_true(j.v[0].save); /* 512 B is short */
	journal_free(&j);
	plan_free(&p);

	{
		struct part w[] = {P(1, 2 * MiB, 8 * MiB, NULL),
				   P(2, 60 * MiB + 4096, 64 * MiB, NULL)};
		struct pa_step *s;

		plan_of(PA_LABEL_GPT, DISK, 512, w, 2, &p);
		/* pretend the plan moves it 50 MiB back, to 10 MiB + 4096 - 4096 */
		s = (struct pa_step *)step_of(&p, 2);
		s->new_start = 10 * MiB;
		assert_int_equal(journal_init(&j, &p, "/dev/sdx", "id", 1 * MiB, 1), 0);
		assert_false(j.v[0].save);
		assert_int_equal(j.ring, 0);
		journal_free(&j);
		plan_free(&p);
	}
}

static void test_journal_header_round_trip(void **state)
{
	struct part v[] = {P(1, FIRST, 10 * MiB, NULL),
			   P(2, 100 * MiB + S512, 64 * MiB, NULL)};
	struct pa_journal j, k;
	struct pa_plan p;
	char *buf;
	size_t i;

	journal_of(v, 2, 0, &j, &p);
	fill_entries(&j);
	assert_int_equal(journal_format(&j, &buf), 0);
	assert_int_equal(j.hdr_len % PA_JOURNAL_BLOCK, 0);
	assert_contains(buf, "partalign-journal 2\n");
	assert_contains(buf, "id wwn:0x5000\n");
	assert_contains(buf, "label gpt:0D2F3A4B-1111-2222-3333-444455556666\n");
	assert_contains(buf, "move-id 00000000cafe0001\n");
	assert_int_equal(journal_parse(buf, j.hdr_len, &k), 0);
	assert_string_equal(k.label, j.label);
	assert_int_equal(k.move_id, 0xcafe0001);
	assert_string_equal(k.device, "/dev/sdx");
	assert_string_equal(k.id, "wwn:0x5000");
	assert_int_equal(k.disk_size, DISK);
	assert_int_equal(k.logical, 512);
	assert_int_equal(k.nonce, 0x1234);
	assert_int_equal(k.n, j.n);
	for (i = 0; i < j.n; i++) {
		assert_int_equal(k.v[i].num, j.v[i].num);
		assert_int_equal(k.v[i].from, j.v[i].from);
		assert_int_equal(k.v[i].to, j.v[i].to);
		assert_int_equal(k.v[i].len, j.v[i].len);
		assert_int_equal(k.v[i].save, j.v[i].save);
		assert_int_equal(k.v[i].chunk, j.v[i].chunk);
		assert_string_equal(k.v[i].entry.type, j.v[i].entry.type);
		assert_string_equal(k.v[i].entry.uuid, j.v[i].entry.uuid);
		assert_memory_equal(k.v[i].entry.name, j.v[i].entry.name,
				    PA_JOURNAL_NAME_LEN);
	}
	assert_int_equal(k.file_len, j.file_len);
	assert_int_equal(k.ring_off, j.ring_off);
	journal_free(&k);
	/* any changed byte of the text is caught */
	for (i = 0; buf[i]; i += 7) {
		char saved = buf[i];

		buf[i] = saved == '1' ? '2' : '1';
		assert_int_not_equal(journal_parse(buf, j.hdr_len, &k), 0);
		buf[i] = saved;
	}
	/* every byte of the header block counts: the NUL padding too */
	buf[j.hdr_len - 1] = 'x';
	assert_int_not_equal(journal_parse(buf, j.hdr_len, &k), 0);
	buf[j.hdr_len - 1] = '\0';
	/* a header cut short */
	assert_int_not_equal(journal_parse(buf, strlen(buf) - 3, &k), 0);
	free(buf);
	journal_free(&j);
	plan_free(&p);
}

static void test_records(void **state)
{
	unsigned char b[PA_JOURNAL_BLOCK];
	struct pa_jprog r = {.seq = 9,
			     .move = 2,
			     .done = 77,
			     .known = 80,
			     .crcs = 0xdeadbeef},
			r2;
	struct pa_jslot s = {.move = 1, .chunk = 1ull << 33, .len = 8 * MiB, .crc = 42},
			s2;
	size_t i;

	journal_prog_encode(&r, 5, b);
	assert_int_equal(journal_prog_decode(b, 5, &r2), 0);
	assert_int_equal(r2.seq, 9);
	assert_int_equal(r2.move, 2);
	assert_int_equal(r2.done, 77);
	assert_int_equal(r2.known, 80);
	assert_int_equal(r2.crcs, 0xdeadbeef);
	assert_false(r2.v1);
	assert_int_equal(journal_prog_decode(b, 6, &r2), -EBADMSG); /* another journal */
	for (i = 0; i < 52; i++) {
		b[i] ^= 0x10;
		assert_int_equal(journal_prog_decode(b, 5, &r2), -EBADMSG);
		b[i] ^= 0x10;
	}
	/* done may not pass known */
	r.done = 81;
	journal_prog_encode(&r, 5, b);
	assert_int_equal(journal_prog_decode(b, 5, &r2), -EBADMSG);
	r.done = 77;
	/* a record of earlier builds (format 1: no known, its CRC at byte 40) */
	memset(b, 0, sizeof(b));
	memcpy(b, "PAJPROG1", 8);
	b[8] = 5;
	b[16] = 9;
	b[24] = 2;
	b[28] = 77;
	b[36] = 0xef, b[37] = 0xbe, b[38] = 0xad, b[39] = 0xde;
	{
		uint32_t c = crc32_update(0, b, 40);

		b[40] = (unsigned char)c, b[41] = (unsigned char)(c >> 8);
		b[42] = (unsigned char)(c >> 16), b[43] = (unsigned char)(c >> 24);
	}
	assert_int_equal(journal_prog_decode(b, 5, &r2), 0);
	assert_true(r2.v1);
	assert_int_equal(r2.seq, 9);
	assert_int_equal(r2.done, 77);
	assert_int_equal(r2.known, 77);
	assert_int_equal(r2.crcs, 0xdeadbeef);
	b[30] ^= 1;
	assert_int_equal(journal_prog_decode(b, 5, &r2), -EBADMSG);
	assert_int_equal(journal_slot_decode(b, 5, &s2), -EBADMSG); /* not a slot */
	journal_slot_encode(&s, 5, b);
	assert_int_equal(journal_slot_decode(b, 5, &s2), 0);
	assert_int_equal(s2.chunk, 1ull << 33);
	assert_int_equal(s2.len, 8 * MiB);
	assert_int_equal(s2.crc, 42);
	memset(b, 0, sizeof(b));
	assert_int_equal(journal_slot_decode(b, 0, &s2), -EBADMSG);
}

/* CRC-32 (IEEE, reflected, polynomial 0xEDB88320), one bit at a time. */
static uint32_t crc_bitwise(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return ~crc;
}

static void test_crc_matches_core(void **state)
{
	unsigned char buf[3000];
	size_t i, off, len;

	srand(1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	assert_int_equal(crc32_update(0, "123456789", 9), 0xcbf43926u);
	/* against a bit-at-a-time CRC-32 written here, not the table-driven one */
	for (off = 0; off < 9; off++)
		for (len = 0; len + off <= sizeof(buf); len += 97)
			assert_int_equal(crc32_update(0, buf + off, len),
					 crc_bitwise(buf + off, len));
	/* continuing a CRC */
	assert_int_equal(crc32_update(crc32_update(0, buf, 1001), buf + 1001, 999),
			 crc32_update(0, buf, 2000));
}

/* A one-move journal made by hand: chunk @c, len @l, from @f to @t (units of 512 B). */
static void hand_journal(struct pa_journal *j, struct pa_jmove *mv, uint64_t c,
			 uint64_t l, uint64_t f, uint64_t t)
{
	memset(j, 0, sizeof(*j));
	*mv = (struct pa_jmove){.num = 1,
				.from = f * S512,
				.to = t * S512,
				.len = l * S512,
				.save = false,
				.chunk = c * S512};
	j->chunk = c * S512;
	j->n = 1;
	j->v = mv;
	j->ring = 4;
	j->logical = 512;
}

/* Chunks cover the partition exactly; clobbers() equals a brute-force overlap search. */
static void test_chunks_and_clobbers_brute_force(void **state)
{
	struct pa_journal j;
	struct pa_jmove mv;
	unsigned int trial;

	srand(7);
	for (trial = 0; trial < 3000; trial++) {
		uint64_t c = 1 + (uint64_t)(rand() % 8), l = 1 + (uint64_t)(rand() % 40);
		uint64_t f = (uint64_t)(rand() % 60), t = (uint64_t)(rand() % 60);
		uint64_t n, i, k, covered = 0, prev_end = 0, src, dst, len;

		if (f == t)
			continue;
		hand_journal(&j, &mv, c, l, f, t);
		n = journal_nchunks(&j, 0);
		assert_int_equal(n, (l + c - 1) / c);
		for (i = 0; i < n; i++) {
			int64_t want = -1;

			journal_chunk(&j, 0, i, &src, &dst, &len);
			assert_int_equal(dst - src, t * S512 - f * S512);
			assert_true(len > 0 && len <= c * S512);
			/* backward: ascending and adjacent; forward: descending and
			 * adjacent */
			if (i && t < f)
				assert_int_equal(src, prev_end);
			if (i && t > f)
				assert_int_equal(src + len, prev_end);
			prev_end = t < f ? src + len : src;
			covered += len;
			/* which chunks' sources does [dst, dst+len) overlap? */
			for (k = 0; k < n; k++) {
				uint64_t s2, d2, l2;

				journal_chunk(&j, 0, k, &s2, &d2, &l2);
				if (s2 < dst + len && dst < s2 + l2 && (int64_t)k > want)
					want = (int64_t)k;
			}
			assert_int_equal(journal_clobbers(&j, 0, i), want);
			assert_true(want <= (int64_t)i);
		}
		assert_int_equal(covered, l * S512);
	}
}

/*
 * A model of the copy protocol of src/apply/move-run.c on a disk of tagged
 * sectors.  Writes sit in a volatile cache until a flush; a crash applies
 * a random subset of them, each maybe torn, and forgets the rest.  The
 * journal (ring slots, checksum table, progress records) is durable once
 * written: the mover syncs it in each journal step.  The disk's flushes and
 * the journal's steps happen at random moments, as the flusher and the
 * journal thread run on their own; the write rule is the mover's (a
 * chunk's source or slot is destroyed only once the chunk is safe: flushed
 * and its checksum recorded).  Two writes may be in flight, as from the
 * mover's two writers: a chunk's write is at times held back until the
 * next chunk's has landed, and the written count is the prefix of the
 * writes that landed, so a flush may make a chunk durable while the one
 * before it is not.  The resume follows the mover: read the chunks
 * [done, known) back against their checksums and start at the first that
 * differs, replay the ring while its slots are valid, then copy.
 */
#define MS 160 /* sectors */

struct model {
	int disk[MS];  /* durable */
	int cache[MS]; /* what reads see */
	bool dirty[MS];
	uint64_t done, known; /* the progress record */
	uint32_t table[64];   /* checksum table */
	struct {
		bool valid;
		uint64_t chunk;
		int data[64];
	} ring[4];
	struct {
		bool on;
		uint64_t chunk, dst, len; /* sectors */
		int data[64];
	} held; /* a write in flight: a crash may land any part of it */
};

/* The engine's volatile counters of one run. */
struct mrun {
	uint64_t nread, written, flushed, known;
	uint32_t crc[64];
};

static void m_flush(struct model *m)
{
	memcpy(m->disk, m->cache, sizeof(m->disk));
	memset(m->dirty, 0, sizeof(m->dirty));
}

static void m_crash(struct model *m)
{
	size_t i;

	for (i = 0; i < MS; i++)
		if (m->dirty[i] && rand() % 2)
			m->disk[i] = m->cache[i];
	for (i = 0; m->held.on && i < m->held.len; i++)
		if (rand() % 2)
			m->disk[m->held.dst + i] = m->held.data[i];
	m->held.on = false;
	memcpy(m->cache, m->disk, sizeof(m->disk));
	memset(m->dirty, 0, sizeof(m->dirty));
}

static void m_write(struct model *m, uint64_t at, const int *v, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		m->cache[at + i] = v[i];
		m->dirty[at + i] = true;
	}
}

static uint32_t m_sum(const int *v, uint64_t len)
{
	return crc32_update(0, v, (size_t)len * sizeof(*v));
}

/* The flusher: what is written is durable. */
static void m_disk_flush(struct model *m, struct mrun *r)
{
	m_flush(m);
	r->flushed = r->written;
}

/* The journal thread: the checksums read so far, and how far the flushes got. */
static void m_journal(struct model *m, struct mrun *r)
{
	uint64_t i;

	for (i = r->known; i < r->nread; i++)
		m->table[i] = r->crc[i];
	r->known = r->nread;
	m->known = r->known;
	m->done = r->flushed < r->known ? r->flushed : r->known;
}

static bool m_safe(const struct mrun *r, uint64_t k)
{
	return r->flushed > k && r->known > k;
}

/* The held write lands; with the next chunk's landed already, both count. */
static void m_land(struct model *m, struct mrun *r, uint64_t upto)
{
	if (m->held.on)
		m_write(m, m->held.dst, m->held.data, m->held.len);
	m->held.on = false;
	r->written = upto;
}

/* The resume point: the first chunk past `done` not at its destination. */
static uint64_t m_settle(struct model *m, const struct pa_journal *j)
{
	uint64_t i, src, dst, len;

	for (i = m->done; i < m->known; i++) {
		journal_chunk(j, 0, i, &src, &dst, &len);
		if (m_sum(&m->cache[dst / S512], len / S512) != m->table[i])
			break;
	}
	m->done = m->known = i;
	return i;
}

#define STEP()                                                                           \
	do {                                                                             \
		if (budget >= 0 && --budget < 0)                                         \
			return false;                                                    \
	} while (0)

/*
 * Run the move from the journal's state; stop (crash) after @budget steps,
 * or run to the end when @budget < 0.  Returns true when it finished.
 */
static bool m_run(struct model *m, const struct pa_journal *j, long budget)
{
	uint64_t n = journal_nchunks(j, 0), i, k, src, dst, len;
	struct mrun r = {0};
	int buf[64];
	bool save = j->v[0].save;

	r.nread = r.written = r.flushed = r.known = m_settle(m, j);
	if (save) {
		for (i = r.written; i < n && i < r.written + j->ring; i++) {
			if (!m->ring[i % j->ring].valid ||
			    m->ring[i % j->ring].chunk != i)
				break;
			journal_chunk(j, 0, i, &src, &dst, &len);
			m_write(m, dst / S512, m->ring[i % j->ring].data, len / S512);
			r.crc[i] = m_sum(m->ring[i % j->ring].data, len / S512);
			STEP();
		}
		r.nread = r.written = i;
		m_disk_flush(m, &r);
		STEP();
	}
	for (i = r.written; i < n; i++) {
		int64_t victim = save ? -1 : journal_clobbers(j, 0, i);

		/* the ring slot of chunk i - ring is reused: that chunk must be safe */
		if (save && i >= j->ring && !m_safe(&r, i - j->ring)) {
			if (m->held.on && i - j->ring >= m->held.chunk)
				m_land(m, &r, i);
			m_disk_flush(m, &r);
			m_journal(m, &r);
			STEP();
		}
		journal_chunk(j, 0, i, &src, &dst, &len);
		for (k = 0; k < len / S512; k++)
			buf[k] = m->cache[src / S512 + k];
		r.crc[i] = m_sum(buf, len / S512);
		r.nread = i + 1;
		if (save) {
			m->ring[i % j->ring].valid = true;
			m->ring[i % j->ring].chunk = i;
			memcpy(m->ring[i % j->ring].data, buf, sizeof(buf));
			m_journal(m, &r); /* slots and checksums in one step */
			STEP();
		} else if (rand() % 3 == 0) {
			m_journal(m, &r);
			STEP();
		}
		/* a victim still in flight: the writers wait for it to land */
		if (m->held.on && victim >= 0 && (uint64_t)victim >= m->held.chunk) {
			m_land(m, &r, i);
			STEP();
		}
		if (victim >= 0 && !m_safe(&r, (uint64_t)victim)) {
			if (r.flushed <= (uint64_t)victim) {
				m_disk_flush(m, &r);
				STEP();
			}
			if (r.known <= (uint64_t)victim) {
				m_journal(m, &r);
				STEP();
			}
		}
		if (!m->held.on && rand() % 2) {
			/* in flight while the next chunk is written */
			m->held.on = true;
			m->held.chunk = i;
			m->held.dst = dst / S512;
			m->held.len = len / S512;
			memcpy(m->held.data, buf, sizeof(buf));
			continue;
		}
		m_write(m, dst / S512, buf, len / S512);
		if (!m->held.on)
			r.written = i + 1;
		STEP();
		if (m->held.on) {
			m_land(m, &r, i + 1);
			STEP();
		}
		if (rand() % 3 == 0) {
			m_disk_flush(m, &r);
			STEP();
		}
	}
	m_land(m, &r, n);
	m_disk_flush(m, &r);
	STEP();
	m_journal(m, &r);
	m->done = m->known = n;
	return true;
}

static void test_protocol_survives_every_crash(void **state)
{
	static const struct {
		uint64_t c, l, f, t;
		bool save;
	} cases[] = {
	    {8, 64, 20, 4, false},  /* far backward: records only */
	    {8, 64, 80, 4, false},  /* no overlap at all */
	    {8, 64, 20, 17, true},  /* backward by less than a chunk */
	    {8, 64, 20, 31, true},  /* forward by less than a chunk */
	    {4, 61, 10, 40, false}, /* far forward, a short last chunk */
	    {8, 60, 30, 18, true},  /* backward by more than a chunk, still close */
	    {8, 64, 4, 5, true},    /* forward by one sector */
	    {4, 64, 10, 18, false}, /* forward by two chunks, records only */
	    {8, 64, 10, 18, false}, /* forward by exactly one chunk, records only */
	    {4, 60, 30, 22, false}, /* backward by two chunks, records only */
	    {5, 61, 30, 19, false}, /* backward by a little more than two chunks */
	};
	struct pa_journal j;
	struct pa_jmove mv;
	size_t c;

	srand(11);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		long crash_at, runs;

		hand_journal(&j, &mv, cases[c].c, cases[c].l, cases[c].f, cases[c].t);
		mv.save = cases[c].save;
		for (crash_at = 0; crash_at < 200; crash_at++) {
			struct model m;
			uint64_t s;

			memset(&m, 0, sizeof(m));
			for (s = 0; s < MS; s++)
				m.disk[s] = m.cache[s] = (int)s + 1000;
			/* crash, then crash again during the redo, then finish */
			runs = 0;
			while (!m_run(&m, &j, runs < 3 ? crash_at + runs * 3 : -1)) {
				m_crash(&m);
				runs++;
			}
			for (s = 0; s < cases[c].l; s++)
				if (m.disk[cases[c].t + s] !=
				    (int)(cases[c].f + s) + 1000)
					fail_msg("case %zu, crash at %ld: sector %" PRIu64
						 " holds %d",
						 c, crash_at, s, m.disk[cases[c].t + s]);
		}
	}
}

static void test_plan_from_journal(void **state)
{
	struct part v[] = {P(1, FIRST, 10 * MiB, NULL), P(2, 20 * MiB, 10 * MiB, NULL)};
	struct part moved[] = {P(1, 2 * MiB, 10 * MiB, NULL),
			       P(2, 20 * MiB, 10 * MiB, NULL)};
	struct part odd[] = {P(1, 3 * MiB, 10 * MiB, NULL),
			     P(2, 20 * MiB, 10 * MiB, NULL)};
	struct pa_topology topo = topo_of(512);
	struct pa_plan_opts o = {.grain = PA_GRAIN_DEFAULT};
	struct pa_journal j;
	struct pa_plan p, q;

	journal_of(v, 2, 0, &j, &p);
	plan_free(&p);

	/* the old table, planned without --move-data: the journal's plan replaces it */
	plan_of(PA_LABEL_GPT, DISK, 512, v, 2, &q);
	assert_int_equal(journal_plan(&j, &topo, &o, &q), 0);
	assert_null(q.refusal);
	assert_int_equal(q.changes, 1);
	assert_int_equal(step_of(&q, 1)->kind, PA_STEP_MOVE);
	assert_int_equal(step_of(&q, 1)->new_start, 2 * MiB);
	assert_int_equal(step_of(&q, 2)->kind, PA_STEP_KEEP);
	plan_free(&q);

	/* the new table already written: nothing left but the kernel and the journal */
	plan_of(PA_LABEL_GPT, DISK, 512, moved, 2, &q);
	assert_int_equal(journal_plan(&j, &topo, &o, &q), 0);
	assert_null(q.refusal);
	assert_int_equal(q.changes, 0);
	plan_free(&q);

	/* anything else: refused */
	plan_of(PA_LABEL_GPT, DISK, 512, odd, 2, &q);
	assert_int_equal(journal_plan(&j, &topo, &o, &q), 0);
	assert_non_null(q.refusal);
	assert_contains(q.refusal, "partition 1 is not where the journal left it");
	plan_free(&q);

	plan_of(PA_LABEL_GPT, 2 * DISK, 512, moved, 2, &q);
	assert_int_equal(journal_plan(&j, &topo, &o, &q), 0);
	assert_contains(q.refusal, "not the one of the journal");
	plan_free(&q);
	journal_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forward_when_no_room_before),
	    cmocka_unit_test(test_backward_when_room_before),
	    cmocka_unit_test(test_forward_when_predecessor_too_close),
	    cmocka_unit_test(test_chain_of_forward_moves),
	    cmocka_unit_test(test_aligned_disk_changes_nothing),
	    cmocka_unit_test(test_refuse_grow_the_lun),
	    cmocka_unit_test(test_refuse_free_after),
	    cmocka_unit_test(test_refuse_names_both_ways),
	    cmocka_unit_test(test_dos_keeps_label),
	    cmocka_unit_test(test_dos_logical_refused),
	    cmocka_unit_test(test_dos_extended_is_an_obstacle),
	    cmocka_unit_test(test_4k_sectors),
	    cmocka_unit_test(test_journal_order_and_modes),
	    cmocka_unit_test(test_journal_hostile_values),
	    cmocka_unit_test(test_journal_far_move_records_only),
	    cmocka_unit_test(test_journal_header_round_trip),
	    cmocka_unit_test(test_records),
	    cmocka_unit_test(test_crc_matches_core),
	    cmocka_unit_test(test_chunks_and_clobbers_brute_force),
	    cmocka_unit_test(test_protocol_survives_every_crash),
	    cmocka_unit_test(test_plan_from_journal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
