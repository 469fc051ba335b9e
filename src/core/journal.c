/*
 * The move journal's format and arithmetic (see journal.h).  Nothing here
 * does I/O: src/apply/move.c reads and writes the file, the unit tests
 * build journals in memory.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "core/journal.h"

#define MAGIC "partalign-journal 1\n"
#define PROG_MAGIC "PAJPROG1"
#define SLOT_MAGIC "PAJSLOT1"
#define MAX_MOVES 4096


static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

void journal_free(struct pa_journal *j)
{
	free(j->device);
	free(j->id);
	free(j->v);
	memset(j, 0, sizeof(*j));
}

uint64_t journal_nchunks(const struct pa_journal *j, size_t m)
{
	return (j->v[m].len + j->chunk - 1) / j->chunk;
}

void journal_chunk(const struct pa_journal *j, size_t m, uint64_t i, uint64_t *src,
		   uint64_t *dst, uint64_t *len)
{
	const struct pa_jmove *v = &j->v[m];
	uint64_t lo, hi;

	if (v->to < v->from) {
		lo = i * j->chunk;
		hi = lo + j->chunk < v->len ? lo + j->chunk : v->len;
	} else {
		hi = v->len - i * j->chunk;
		lo = hi > j->chunk ? hi - j->chunk : 0;
	}
	*src = v->from + lo;
	*dst = v->to + lo;
	*len = hi - lo;
}

int64_t journal_clobbers(const struct pa_journal *j, size_t m, uint64_t i)
{
	const struct pa_jmove *v = &j->v[m];
	uint64_t src, dst, len, lo, d;

	journal_chunk(j, m, i, &src, &dst, &len);
	lo = src - v->from;
	if (v->to < v->from) {
		/* the write covers source offsets [lo - d, lo + len - d) */
		d = v->from - v->to;
		if (lo + len <= d)
			return -1;
		return (int64_t)((lo + len - d - 1) / j->chunk);
	}
	/* forward: source offsets [lo + d, lo + len + d); the lowest is the latest */
	d = v->to - v->from;
	if (lo + d >= v->len)
		return -1;
	return (int64_t)((v->len - 1 - (lo + d)) / j->chunk);
}

/* Does a write of move @m land less than PA_JOURNAL_MIN_WINDOW chunks past its victim? */
static bool needs_saving(const struct pa_journal *j, size_t m)
{
	uint64_t i, n = journal_nchunks(j, m);

	for (i = 0; i < n; i++) {
		int64_t c = journal_clobbers(j, m, i);

		if (c >= 0 && i - (uint64_t)c < PA_JOURNAL_MIN_WINDOW)
			return true;
	}
	return false;
}

static void layout(struct pa_journal *j, size_t text_len)
{
	uint64_t chunks = 0;
	size_t m;

	for (m = 0; m < j->n; m++)
		chunks += journal_nchunks(j, m);
	j->hdr_len = round_up(text_len + 1, PA_JOURNAL_BLOCK);
	j->prog_off = j->hdr_len;
	j->crc_off = j->prog_off + 2 * PA_JOURNAL_BLOCK;
	j->crc_len = round_up(chunks ? chunks * 4 : 1, PA_JOURNAL_BLOCK);
	j->ring_off = j->crc_off + j->crc_len;
	j->file_len = j->ring_off + (uint64_t)j->ring * (PA_JOURNAL_BLOCK + j->chunk);
}

static int cmp_move(const void *a, const void *b)
{
	const struct pa_jmove *x = a, *y = b;
	bool fx = x->to > x->from, fy = y->to > y->from;

	if (fx != fy)
		return fx ? -1 : 1; /* forward moves first */
	if (fx)
		return x->from > y->from ? -1
					 : x->from < y->from; /* last partition first */
	return x->from < y->from ? -1 : x->from > y->from;
}

static int header_text(const struct pa_journal *j, char **out, size_t *len)
{
	char *body = NULL, *all = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&body, &blen);
	size_t m;
	int rc;

	if (!f)
		return -ENOMEM;
	fprintf(f,
		MAGIC "device %s\nid %s\nsize %" PRIu64 "\nlogical %" PRIu32
		      "\nchunk %" PRIu64 "\nnonce %016" PRIx64 "\nring %" PRIu32 "\n",
		j->device, j->id, j->disk_size, j->logical, j->chunk, j->nonce, j->ring);
	for (m = 0; m < j->n; m++)
		fprintf(f, "move %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
			j->v[m].num, j->v[m].from, j->v[m].to, j->v[m].len,
			j->v[m].save ? "save" : "record");
	if (fclose(f) != 0) {
		free(body);
		return -ENOMEM;
	}
	rc = asprintf(&all, "%scrc32 %08" PRIx32 "\nend\n", body,
		      pa_crc32(0, body, blen));
	free(body);
	if (rc < 0)
		return -ENOMEM;
	*out = all;
	*len = (size_t)rc;
	return 0;
}

static bool word_ok(const char *s)
{
	return s && *s && !strpbrk(s, " \t\n");
}

int journal_init(struct pa_journal *j, const struct pa_plan *p, const char *device,
		 const char *id, uint64_t chunk, uint64_t nonce)
{
	char *text = NULL;
	size_t i, len;
	int rc;

	memset(j, 0, sizeof(*j));
	if (!chunk)
		chunk = PA_JOURNAL_CHUNK;
	if (chunk % PA_JOURNAL_BLOCK || !word_ok(device) || !word_ok(id))
		return -EINVAL;
	j->device = strdup(device);
	j->id = strdup(id);
	j->v = calloc(p->n ? p->n : 1, sizeof(*j->v));
	if (!j->device || !j->id || !j->v) {
		journal_free(j);
		return -ENOMEM;
	}
	j->disk_size = p->table.disk_size;
	j->logical = p->table.logical;
	j->chunk = chunk;
	j->nonce = nonce;
	for (i = 0; i < p->n; i++) {
		const struct pa_step *s = &p->v[i];

		if (s->kind != PA_STEP_MOVE)
			continue;
		if (s->new_size != s->old->size || s->new_start == s->old->start) {
			journal_free(j);
			return -EINVAL;
		}
		j->v[j->n++] = (struct pa_jmove){s->num, s->old->start, s->new_start,
						 s->new_size, false};
	}
	qsort(j->v, j->n, sizeof(*j->v), cmp_move);
	for (i = 0; i < j->n; i++) {
		j->v[i].save = needs_saving(j, i);
		if (j->v[i].save)
			j->ring = PA_JOURNAL_RING;
	}
	rc = header_text(j, &text, &len);
	if (rc < 0) {
		journal_free(j);
		return rc;
	}
	layout(j, len);
	free(text);
	return 0;
}

int journal_format(const struct pa_journal *j, char **buf)
{
	char *text, *out;
	size_t len;
	int rc = header_text(j, &text, &len);

	if (rc < 0)
		return rc;
	out = calloc(1, j->hdr_len);
	if (!out || len >= j->hdr_len) {
		free(text);
		free(out);
		return out ? -EINVAL : -ENOMEM;
	}
	memcpy(out, text, len);
	free(text);
	*buf = out;
	return 0;
}

int journal_parse(const char *buf, size_t len, struct pa_journal *j)
{
	const char *p = buf, *end = memchr(buf, '\0', len);
	const char *crc_line = NULL;
	char val[4096], save[16];
	unsigned long long a, b, c;
	unsigned int num, crc;
	bool done = false;
	int rc = -EBADMSG;

	memset(j, 0, sizeof(*j));
	if (!end)
		end = buf + len;
	if ((size_t)(end - buf) < sizeof(MAGIC) - 1 ||
	    memcmp(buf, MAGIC, sizeof(MAGIC) - 1))
		return -EBADMSG;
	j->v = calloc(MAX_MOVES, sizeof(*j->v));
	if (!j->v)
		return -ENOMEM;
	while (p < end && !done) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[4200];
		size_t n;

		if (!nl)
			break;
		n = (size_t)(nl - p);
		if (n >= sizeof(line))
			goto out;
		memcpy(line, p, n);
		line[n] = '\0';
		if (strncmp(line, "crc32 ", 6) == 0)
			crc_line = p;
		if (p == buf) {
			/* magic */
		} else if (strcmp(line, "end") == 0) {
			done = true;
		} else if (sscanf(line, "device %4095s", val) == 1) {
			free(j->device);
			j->device = strdup(val);
		} else if (sscanf(line, "id %4095s", val) == 1) {
			free(j->id);
			j->id = strdup(val);
		} else if (sscanf(line, "size %llu", &a) == 1) {
			j->disk_size = a;
		} else if (sscanf(line, "logical %llu", &a) == 1) {
			j->logical = (uint32_t)a;
		} else if (sscanf(line, "chunk %llu", &a) == 1) {
			j->chunk = a;
		} else if (sscanf(line, "nonce %llx", &a) == 1) {
			j->nonce = a;
		} else if (sscanf(line, "ring %llu", &a) == 1) {
			j->ring = (uint32_t)a;
		} else if (sscanf(line, "move %u %llu %llu %llu %15s", &num, &a, &b, &c,
				  save) == 5) {
			if (j->n >= MAX_MOVES)
				goto out;
			j->v[j->n++] =
			    (struct pa_jmove){num, a, b, c, strcmp(save, "save") == 0};
		} else if (crc_line == p && sscanf(line + 6, "%8x", &crc) == 1 &&
			   !line[14]) {
			if (pa_crc32(0, buf, (size_t)(crc_line - buf)) != crc)
				goto out;
		} else {
			goto out;
		}
		p = nl + 1;
	}
	if (!done || !crc_line || !j->device || !j->id || !j->logical || !j->chunk ||
	    j->chunk % PA_JOURNAL_BLOCK || !j->n)
		goto out;
	for (num = 0; num < j->n; num++) {
		const struct pa_jmove *v = &j->v[num];

		if (!v->len || v->from == v->to || v->len % j->logical ||
		    v->from % j->logical || v->to % j->logical ||
		    v->from + v->len > j->disk_size || v->to + v->len > j->disk_size ||
		    (v->save && !j->ring))
			goto out;
	}
	layout(j, (size_t)(p - buf));
	return 0;
out:
	journal_free(j);
	return rc;
}

uint64_t journal_crc_pos(const struct pa_journal *j, size_t m, uint64_t i)
{
	uint64_t before = 0;
	size_t k;

	for (k = 0; k < m; k++)
		before += journal_nchunks(j, k);
	return j->crc_off + 4 * (before + i);
}

uint64_t journal_slot_pos(const struct pa_journal *j, uint64_t i)
{
	return j->ring_off + (i % j->ring) * (PA_JOURNAL_BLOCK + j->chunk);
}

static void put32(unsigned char *p, uint32_t v)
{
	int k;

	for (k = 0; k < 4; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

static void put64(unsigned char *p, uint64_t v)
{
	int k;

	for (k = 0; k < 8; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/*
 * Records: magic[8] nonce[8] fields... crc32[4] over everything before it,
 * zero padded to a block.  A torn or stale record fails the magic, nonce
 * or CRC check.
 */
void journal_prog_encode(const struct pa_jprog *r, uint64_t nonce, unsigned char *buf)
{
	memset(buf, 0, PA_JOURNAL_BLOCK);
	memcpy(buf, PROG_MAGIC, 8);
	put64(buf + 8, nonce);
	put64(buf + 16, r->seq);
	put32(buf + 24, r->move);
	put64(buf + 28, r->done);
	put32(buf + 36, r->crcs);
	put32(buf + 40, pa_crc32(0, buf, 40));
}

int journal_prog_decode(const unsigned char *buf, uint64_t nonce, struct pa_jprog *r)
{
	if (memcmp(buf, PROG_MAGIC, 8) || get64(buf + 8) != nonce ||
	    get32(buf + 40) != pa_crc32(0, buf, 40))
		return -EBADMSG;
	r->seq = get64(buf + 16);
	r->move = get32(buf + 24);
	r->done = get64(buf + 28);
	r->crcs = get32(buf + 36);
	return 0;
}

void journal_slot_encode(const struct pa_jslot *s, uint64_t nonce, unsigned char *buf)
{
	memset(buf, 0, PA_JOURNAL_BLOCK);
	memcpy(buf, SLOT_MAGIC, 8);
	put64(buf + 8, nonce);
	put32(buf + 16, s->move);
	put64(buf + 20, s->chunk);
	put64(buf + 28, s->len);
	put32(buf + 36, s->crc);
	put32(buf + 40, pa_crc32(0, buf, 40));
}

int journal_slot_decode(const unsigned char *buf, uint64_t nonce, struct pa_jslot *s)
{
	if (memcmp(buf, SLOT_MAGIC, 8) || get64(buf + 8) != nonce ||
	    get32(buf + 40) != pa_crc32(0, buf, 40))
		return -EBADMSG;
	s->move = get32(buf + 16);
	s->chunk = get64(buf + 20);
	s->len = get64(buf + 28);
	s->crc = get32(buf + 36);
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const struct pa_step *x = a, *y = b;

	if (x->old->start != y->old->start)
		return x->old->start < y->old->start ? -1 : 1;
	return x->num < y->num ? -1 : x->num > y->num;
}

int journal_plan(const struct pa_journal *j, const struct pa_topology *topo,
		 const struct pa_plan_opts *o, struct pa_plan *p)
{
	const struct pa_table *t = &p->table;
	struct pa_step *v = calloc(t->n ? t->n : 1, sizeof(*v));
	size_t i, m, found = 0, moved = 0;

	if (!v)
		return -ENOMEM;
	free(p->v);
	free(p->refusal);
	p->v = v;
	p->n = 0;
	p->refusal = NULL;
	p->changes = 0;
	p->destroys = false;
	p->new_label = t->label;
	if (t->disk_size != j->disk_size || t->logical != j->logical)
		return plan_refuse(p,
				   "the disk is not the one of the journal (%" PRIu64
				   " bytes, %" PRIu32 "-byte sectors expected)",
				   j->disk_size, j->logical);
	for (i = 0; i < t->n; i++) {
		const struct pa_entry *e = &t->v[i];
		struct pa_step s = {.kind = PA_STEP_KEEP,
				    .old = e,
				    .num = e->num,
				    .new_start = e->start,
				    .new_size = e->size};

		for (m = 0; m < j->n && j->v[m].num != e->num; m++)
			;
		if (m < j->n) {
			const struct pa_jmove *mv = &j->v[m];

			found++;
			if (e->size != mv->len || e->extended || e->logical ||
			    (e->start != mv->from && e->start != mv->to))
				return plan_refuse(
				    p,
				    "partition %u is not where the journal left it "
				    "(start %" PRIu64 " or %" PRIu64 ", %" PRIu64
				    " bytes expected)",
				    e->num, mv->from, mv->to, mv->len);
			if (e->start == mv->from) {
				s.kind = PA_STEP_MOVE;
				s.new_start = mv->to;
				p->changes++;
			} else {
				moved++;
			}
		}
		align_check(topo, t->disk_size, PA_REGION_PART, e->start, &o->grain,
			    false, 0, &s.before);
		align_check(topo, t->disk_size, PA_REGION_PART, s.new_start, &o->grain,
			    false, 0, &s.after);
		p->v[p->n++] = s;
	}
	qsort(p->v, p->n, sizeof(*p->v), cmp_step);
	if (found != j->n)
		return plan_refuse(p, "the table lacks %zu of the journal's partitions",
				   j->n - found);
	if (moved && p->changes)
		return plan_refuse(
		    p,
		    "the table has %zu of the journal's partitions at their new "
		    "start and %u at their old one",
		    moved, p->changes);
	return 0;
}
