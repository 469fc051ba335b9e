/*
 * The move journal (src/core/journal.c).  The first input byte picks the
 * record: 0 a text header (the rest is its body, followed by the right
 * "crc32" line, "end" and NUL padding, so mutations get past the CRC),
 * 1 a progress record, 2 a ring slot header (both with their CRC
 * recomputed).  A header that parses must survive journal_format() and a
 * second parse unchanged; the chunk geometry must stay inside each move.
 */
#include "config.h"

#include "fuzz.h"

#include "core/journal.h"

#define NONCE 0x6b8b4567327b23c6ull

static void check_geometry(const struct pa_journal *j)
{
	size_t m;

	for (m = 0; m < j->n; m++) {
		const struct pa_jmove *mv = &j->v[m];
		uint64_t n = journal_nchunks(j, m), i, total = 0;

		FZ_ASSERT(n > 0);
		for (i = 0; i < n && i < 64; i++) {
			uint64_t src, dst, len;
			int64_t c = journal_clobbers(j, m, i);

			journal_chunk(j, m, i, &src, &dst, &len);
			FZ_ASSERT(len > 0 && len <= mv->chunk);
			FZ_ASSERT(src >= mv->from && src - mv->from + len <= mv->len);
			FZ_ASSERT(dst >= mv->to && dst - mv->to + len <= mv->len);
			FZ_ASSERT(c < (int64_t)i + 1);
			FZ_ASSERT(journal_crc_pos(j, m, i) + 4 <= j->ring_off ||
				  !j->ring);
			total += len;
		}
		if (n <= 64)
			FZ_ASSERT(total == mv->len);
	}
	if (j->ring)
		FZ_ASSERT(journal_slot_pos(j, 12345) + PA_JOURNAL_BLOCK + j->chunk <=
			  j->file_len);
}

/*
 * resume's view: a table holding every journalled partition at its old
 * start must give one MOVE step per move, to its new start, and no refusal
 * (unless the journal names one partition twice).
 */
static void check_plan(const struct pa_journal *j)
{
	struct pa_topology topo = {
	    .logical = j->logical, .physical = j->logical, .min_io = j->logical};
	struct pa_plan_opts o = {.grain = PA_GRAIN_DEFAULT, .move_data = true};
	struct pa_plan p = {0};
	size_t m, k, i;

	for (m = 0; m < j->n; m++)
		for (k = 0; k < m; k++)
			if (j->v[k].num == j->v[m].num)
				return;
	p.table.label = PA_LABEL_GPT;
	p.table.disk_size = j->disk_size;
	p.table.logical = j->logical;
	for (m = 0; m < j->n; m++) {
		struct pa_entry e = {
		    .num = j->v[m].num, .start = j->v[m].from, .size = j->v[m].len};

		if (plan_table_add(&p.table, &e) < 0)
			abort();
	}
	FZ_ASSERT(journal_plan(j, &topo, &o, &p) == 0);
	FZ_ASSERT(!p.refusal);
	FZ_ASSERT(p.n == j->n && p.changes == j->n);
	for (i = 0; i < p.n; i++) {
		const struct pa_jmove *mv = NULL;

		for (m = 0; m < j->n; m++)
			if (j->v[m].num == p.v[i].num)
				mv = &j->v[m];
		FZ_ASSERT(mv && p.v[i].kind == PA_STEP_MOVE &&
			  p.v[i].new_start == mv->to);
	}
	plan_free(&p);
}

static void header(const uint8_t *data, size_t size)
{
	struct pa_journal j, k;
	size_t len = size + 32, padded = (len + PA_JOURNAL_BLOCK - 1) / PA_JOURNAL_BLOCK *
					 PA_JOURNAL_BLOCK;
	char *buf = calloc(1, padded), *again = NULL;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	len = size + (size_t)sprintf(buf + size, "crc32 %08x\nend\n",
				     crc32_update(0, buf, size));
	if (journal_parse(buf, padded, &j) == 0) {
		check_geometry(&j);
		check_plan(&j);
		FZ_ASSERT(journal_format(&j, &again) == 0);
		FZ_ASSERT(journal_parse(again, j.hdr_len, &k) == 0);
		FZ_ASSERT(k.n == j.n && k.move_id == j.move_id &&
			  k.disk_size == j.disk_size && k.logical == j.logical &&
			  k.chunk == j.chunk && k.ring == j.ring && k.nonce == j.nonce &&
			  k.file_len == j.file_len);
		FZ_ASSERT(memcmp(k.v, j.v, j.n * sizeof(*j.v)) == 0);
		journal_free(&k);
		free(again);
		journal_free(&j);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char rec[PA_JOURNAL_BLOCK];

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		header(data + 1, size - 1);
		break;
	case 1:
	case 2:
		memset(rec, 0, sizeof(rec));
		memcpy(rec, data + 1, size - 1 < sizeof(rec) ? size - 1 : sizeof(rec));
		/* valid as a record of format 1 (CRC at 40), of format 2 (at 48) or a
		 * slot */
		put_le32(rec + 40, crc32_update(0, rec, 40));
		if (data[0] % 3 == 1 && memcmp(rec, "PAJPROG2", 8) == 0)
			put_le32(rec + 48, crc32_update(0, rec, 48));
		if (data[0] % 3 == 1) {
			struct pa_jprog r, r2;

			if (journal_prog_decode(rec, NONCE, &r) == 0) {
				journal_prog_encode(&r, NONCE, rec);
				FZ_ASSERT(journal_prog_decode(rec, NONCE, &r2) == 0);
				FZ_ASSERT(r.seq == r2.seq && r.move == r2.move &&
					  r.done == r2.done && r.known == r2.known &&
					  r.crcs == r2.crcs && r.done <= r.known &&
					  !r2.v1);
			}
		} else {
			struct pa_jslot s, s2;

			if (journal_slot_decode(rec, NONCE, &s) == 0) {
				journal_slot_encode(&s, NONCE, rec);
				FZ_ASSERT(journal_slot_decode(rec, NONCE, &s2) == 0);
				FZ_ASSERT(s.move == s2.move && s.chunk == s2.chunk &&
					  s.len == s2.len && s.crc == s2.crc);
			}
		}
		break;
	}
	return 0;
}
