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
#include "shared/endian.h"
#include "shared/hex.h"
#include "core/journal.h"

#define MAGIC "partalign-journal 2\n"
#define PROG_MAGIC "PAJPROG2"
#define PROG_MAGIC_V1 "PAJPROG1" /* earlier builds: no `known` */
#define SLOT_MAGIC "PAJSLOT1"
#define MAX_TEXT (1u << 20)

static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

void journal_free(struct pa_journal *j)
{
	free(j->device);
	free(j->id);
	free(j->label);
	free(j->v);
	memset(j, 0, sizeof(*j));
}

uint64_t journal_nchunks(const struct pa_journal *j, size_t m)
{
	if (!j->v[m].chunk)
		return 0; /* never from a parsed or initialised journal */
	return (j->v[m].len + j->v[m].chunk - 1) / j->v[m].chunk;
}

void journal_chunk(const struct pa_journal *j, size_t m, uint64_t i, uint64_t *src,
		   uint64_t *dst, uint64_t *len)
{
	const struct pa_jmove *v = &j->v[m];
	uint64_t lo, hi;

	if (v->to < v->from) {
		lo = i * v->chunk;
		hi = lo + v->chunk < v->len ? lo + v->chunk : v->len;
	} else {
		hi = v->len - i * v->chunk;
		lo = hi > v->chunk ? hi - v->chunk : 0;
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
		return (int64_t)((lo + len - d - 1) / v->chunk);
	}
	/* forward: source offsets [lo + d, lo + len + d); the lowest is the latest */
	d = v->to - v->from;
	if (lo + d >= v->len)
		return -1;
	return (int64_t)((v->len - 1 - (lo + d)) / v->chunk);
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

static void hex_of(const unsigned char *b, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static bool hex_to(const char *s, unsigned char *b, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return false;
	for (i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

static int header_text(const struct pa_journal *j, char **out, size_t *len)
{
	char *body = NULL, *all = NULL, name[2 * PA_JOURNAL_NAME_LEN + 1];
	size_t blen = 0;
	FILE *f = open_memstream(&body, &blen);
	size_t m;
	int rc;

	if (!f)
		return -ENOMEM;
	fprintf(f,
		MAGIC "device %s\nid %s\nlabel %s\nmove-id %016" PRIx64 "\nsize %" PRIu64
		      "\nlogical %" PRIu32 "\nchunk %" PRIu64 "\nnonce %016" PRIx64
		      "\nring %" PRIu32 "\n",
		j->device, j->id, j->label ? j->label : "-", j->move_id, j->disk_size,
		j->logical, j->chunk, j->nonce, j->ring);
	for (m = 0; m < j->n; m++) {
		const struct pa_jmove *v = &j->v[m];

		fprintf(f, "move %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %s %" PRIu64 "\n",
			v->num, v->from, v->to, v->len, v->save ? "save" : "record",
			v->chunk);
		if (v->entry.has_name)
			hex_of(v->entry.name, PA_JOURNAL_NAME_LEN, name);
		fprintf(f, "entry %u %s %s %s\n", v->num,
			v->entry.type[0] ? v->entry.type : "-",
			v->entry.uuid[0] ? v->entry.uuid : "-",
			v->entry.has_name ? name : "-");
	}
	if (fclose(f) != 0) {
		free(body);
		return -ENOMEM;
	}
	rc = asprintf(&all, "%scrc32 %08" PRIx32 "\nend\n", body,
		      crc32_update(0, body, blen));
	free(body);
	if (rc < 0)
		return -ENOMEM;
	*out = all;
	*len = (size_t)rc;
	return 0;
}

static bool word_ok(const char *s)
{
	return s && *s && strlen(s) < 1024 && !strpbrk(s, " \t\n");
}

void journal_relayout(struct pa_journal *j)
{
	char *text = NULL;
	size_t len = 0;

	if (header_text(j, &text, &len) == 0)
		layout(j, len);
	free(text);
}

struct pa_jmove *journal_move_of(struct pa_journal *j, unsigned int num)
{
	size_t m;

	for (m = 0; m < j->n; m++)
		if (j->v[m].num == num)
			return &j->v[m];
	return NULL;
}

int journal_set_label(struct pa_journal *j, const char *label)
{
	char *s;

	if (!word_ok(label))
		return -EINVAL;
	s = strdup(label);
	if (!s)
		return -ENOMEM;
	free(j->label);
	j->label = s;
	journal_relayout(j);
	return 0;
}

int journal_init(struct pa_journal *j, const struct pa_plan *p, const char *device,
		 const char *id, uint64_t chunk, uint64_t nonce)
{
	return journal_init2(j, p, device, id, chunk, 0, PA_JOURNAL_RECORD_SPLIT, nonce);
}

int journal_init2(struct pa_journal *j, const struct pa_plan *p, const char *device,
		  const char *id, uint64_t chunk, uint64_t record_min, unsigned int split,
		  uint64_t nonce)
{
	size_t i;
	bool any_save = false;

	memset(j, 0, sizeof(*j));
	if (!chunk)
		chunk = PA_JOURNAL_CHUNK;
	if (!record_min)
		record_min = PA_JOURNAL_RECORD_MIN;
	if (chunk % PA_JOURNAL_BLOCK || chunk > PA_JOURNAL_CHUNK_MAX || !split ||
	    split > PA_JOURNAL_MIN_WINDOW || !word_ok(device) || !word_ok(id) ||
	    p->n > PA_JOURNAL_MAX_MOVES)
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
	j->move_id = nonce ? nonce : 1;
	for (i = 0; i < p->n; i++) {
		const struct pa_step *s = &p->v[i];

		if (s->kind != PA_STEP_MOVE)
			continue;
		if (s->new_size != s->old->size || s->new_start == s->old->start) {
			journal_free(j);
			return -EINVAL;
		}
		j->v[j->n++] = (struct pa_jmove){.num = s->num,
						 .from = s->old->start,
						 .to = s->new_start,
						 .len = s->new_size,
						 .chunk = chunk};
	}
	qsort(j->v, j->n, sizeof(*j->v), cmp_move);
	for (i = 0; i < j->n; i++) {
		struct pa_jmove *v = &j->v[i];
		uint64_t d = v->to > v->from ? v->to - v->from : v->from - v->to;
		uint64_t c = d / split / PA_JOURNAL_BLOCK * PA_JOURNAL_BLOCK;

		if (d >= record_min && c >= PA_JOURNAL_BLOCK) {
			/* no write reaches the source of its own chunk: record only */
			v->chunk = c < chunk ? c : chunk;
			v->save = false;
		} else {
			v->save = needs_saving(j, i);
		}
		any_save |= v->save;
	}
	j->ring = any_save ? PA_JOURNAL_RING : 0;
	journal_relayout(j);
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

/* Unsigned decimal or (hex) number that fills the whole word. */
static bool num_of(const char *s, bool hex, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	return errno == 0 && *end == '\0';
}

static bool add_ok(uint64_t a, uint64_t b, uint64_t max)
{
	uint64_t s;

	return !__builtin_add_overflow(a, b, &s) && s <= max;
}

static bool guid_ok(const char *s)
{
	size_t i;

	if (strlen(s) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789ABCDEFabcdef", s[i]))
			return false;
	}
	return true;
}

static int parse_entry(struct pa_journal *j, char **w, int nw)
{
	struct pa_jmove *v;
	uint64_t num;

	if (nw != 5 || !num_of(w[1], false, &num) || num > UINT32_MAX)
		return -EBADMSG;
	v = journal_move_of(j, (unsigned int)num);
	if (!v || v->entry.type[0])
		return -EBADMSG;
	if (guid_ok(w[2])) {
		if (!guid_ok(w[3]))
			return -EBADMSG;
		memcpy(v->entry.type, w[2], 37);
		memcpy(v->entry.uuid, w[3], 37);
		if (strcmp(w[4], "-") != 0) {
			if (!hex_to(w[4], v->entry.name, PA_JOURNAL_NAME_LEN))
				return -EBADMSG;
			v->entry.has_name = true;
		}
		return 0;
	}
	if (strlen(w[2]) != 4 || strncmp(w[2], "0x", 2) || hex_digit(w[2][2]) < 0 ||
	    hex_digit(w[2][3]) < 0 || strcmp(w[3], "-") || strcmp(w[4], "-"))
		return -EBADMSG;
	memcpy(v->entry.type, w[2], 5);
	return 0;
}

static int parse_move(struct pa_journal *j, char **w, int nw)
{
	uint64_t num, from, to, len, chunk;
	struct pa_jmove *v;

	if (nw != 7 || !num_of(w[1], false, &num) || !num_of(w[2], false, &from) ||
	    !num_of(w[3], false, &to) || !num_of(w[4], false, &len) ||
	    !num_of(w[6], false, &chunk) || num == 0 || num > UINT32_MAX ||
	    (strcmp(w[5], "save") && strcmp(w[5], "record")) ||
	    j->n >= PA_JOURNAL_MAX_MOVES || journal_move_of(j, (unsigned int)num))
		return -EBADMSG;
	v = &j->v[j->n++];
	*v = (struct pa_jmove){.num = (unsigned int)num,
			       .from = from,
			       .to = to,
			       .len = len,
			       .chunk = chunk,
			       .save = strcmp(w[5], "save") == 0};
	return 0;
}

/* Split @line at blanks into at most @max words (in place); how many. */
static int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *p = line;

	while (*p) {
		if (n == max)
			return max + 1;
		w[n++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p++ = '\0';
		if (!*p || *p == ' ')
			return max + 1; /* an empty word: not our format */
	}
	return n;
}

static int parse_line(struct pa_journal *j, char *line, unsigned int *seen)
{
	static const char *const keys[] = {"device",  "id",    "label", "move-id", "size",
					   "logical", "chunk", "nonce", "ring"};
	char *w[8];
	int nw = split_words(line, w, 7);
	uint64_t v;
	size_t k;

	if (nw < 2 || nw > 7)
		return -EBADMSG;
	if (strcmp(w[0], "move") == 0)
		return parse_move(j, w, nw);
	if (strcmp(w[0], "entry") == 0)
		return parse_entry(j, w, nw);
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && strcmp(w[0], keys[k]); k++)
		;
	if (k == sizeof(keys) / sizeof(keys[0]) || nw != 2 || (*seen & (1u << k)))
		return -EBADMSG;
	*seen |= 1u << k;
	if (k <= 2) {
		char **dst = k == 0 ? &j->device : k == 1 ? &j->id : &j->label;

		if (!word_ok(w[1]))
			return -EBADMSG;
		*dst = strdup(w[1]);
		return *dst ? 0 : -ENOMEM;
	}
	if (!num_of(w[1], k == 3 || k == 7, &v))
		return -EBADMSG;
	switch (k) {
	case 3:
		j->move_id = v;
		break;
	case 4:
		j->disk_size = v;
		break;
	case 5:
		if (v < 512 || v > 65536 || (v & (v - 1)))
			return -EBADMSG;
		j->logical = (uint32_t)v;
		break;
	case 6:
		j->chunk = v;
		break;
	case 7:
		j->nonce = v;
		break;
	default:
		if (v > PA_JOURNAL_RING_MAX)
			return -EBADMSG;
		j->ring = (uint32_t)v;
		break;
	}
	return 0;
}

/* The values together: every move inside the disk, sane chunks, entries for all. */
static bool journal_sane(const struct pa_journal *j)
{
	uint64_t chunks = 0;
	size_t m;

	if (!j->device || !j->id || !j->label || !j->move_id || !j->logical || !j->n ||
	    j->disk_size == 0 || j->disk_size > (UINT64_MAX >> 2) ||
	    j->disk_size % j->logical || j->chunk < PA_JOURNAL_BLOCK ||
	    j->chunk > PA_JOURNAL_CHUNK_MAX || j->chunk % PA_JOURNAL_BLOCK)
		return false;
	for (m = 0; m < j->n; m++) {
		const struct pa_jmove *v = &j->v[m];

		if (!v->len || v->from == v->to || v->len % j->logical ||
		    v->from % j->logical || v->to % j->logical ||
		    !add_ok(v->from, v->len, j->disk_size) ||
		    !add_ok(v->to, v->len, j->disk_size) || v->chunk < PA_JOURNAL_BLOCK ||
		    v->chunk > j->chunk || v->chunk % PA_JOURNAL_BLOCK ||
		    (v->save && (!j->ring || v->chunk != j->chunk)) || !v->entry.type[0])
			return false;
		chunks += journal_nchunks(j, m);
	}
	/* the checksum table: 4 bytes a chunk, a few hundred MiB at most */
	return chunks <= (64ull << 20);
}

int journal_parse(const char *buf, size_t len, struct pa_journal *j)
{
	const char *p = buf, *end, *crc_line = NULL;
	unsigned int seen = 0;
	bool done = false;
	size_t i;
	int rc = -EBADMSG;

	memset(j, 0, sizeof(*j));
	if (len > MAX_TEXT)
		len = MAX_TEXT;
	end = buf + len;
	if (len < sizeof(MAGIC) - 1 || memcmp(buf, MAGIC, sizeof(MAGIC) - 1))
		return -EBADMSG;
	j->v = calloc(PA_JOURNAL_MAX_MOVES, sizeof(*j->v));
	if (!j->v)
		return -ENOMEM;
	p = buf + sizeof(MAGIC) - 1;
	while (p < end && !done) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[1100];
		size_t n;
		unsigned int crc;

		if (!nl)
			goto out;
		n = (size_t)(nl - p);
		if (n >= sizeof(line) || memchr(p, '\0', n))
			goto out;
		memcpy(line, p, n);
		line[n] = '\0';
		if (crc_line) {
			if (strcmp(line, "end") != 0)
				goto out;
			done = true;
		} else if (strncmp(line, "crc32 ", 6) == 0) {
			if (n != 14 || sscanf(line + 6, "%8x", &crc) != 1 ||
			    crc32_update(0, buf, (size_t)(p - buf)) != crc)
				goto out;
			crc_line = p;
		} else {
			rc = parse_line(j, line, &seen);
			if (rc < 0)
				goto out;
			rc = -EBADMSG;
		}
		p = nl + 1;
	}
	if (!done || seen != 0x1ff || !journal_sane(j))
		goto out;
	layout(j, (size_t)(p - buf));
	/* every byte of the header block is ours: nothing after "end" but NUL */
	if (j->hdr_len > len)
		goto out;
	for (i = (size_t)(p - buf); i < j->hdr_len; i++)
		if (buf[i])
			goto out;
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

/*
 * Records: magic[8] nonce[8] fields... crc32[4] over everything before it,
 * zero padded to a block.  A torn or stale record fails the magic, nonce
 * or CRC check.
 */
void journal_prog_encode(const struct pa_jprog *r, uint64_t nonce, unsigned char *buf)
{
	memset(buf, 0, PA_JOURNAL_BLOCK);
	memcpy(buf, PROG_MAGIC, 8);
	put_le64(buf + 8, nonce);
	put_le64(buf + 16, r->seq);
	put_le32(buf + 24, r->move);
	put_le64(buf + 28, r->done);
	put_le32(buf + 36, r->crcs);
	put_le64(buf + 40, r->known);
	put_le32(buf + 48, crc32_update(0, buf, 48));
}

int journal_prog_decode(const unsigned char *buf, uint64_t nonce, struct pa_jprog *r)
{
	bool v1 = memcmp(buf, PROG_MAGIC_V1, 8) == 0;
	size_t end = v1 ? 40 : 48;

	if ((!v1 && memcmp(buf, PROG_MAGIC, 8)) || get_le64(buf + 8) != nonce ||
	    get_le32(buf + end) != crc32_update(0, buf, end))
		return -EBADMSG;
	r->seq = get_le64(buf + 16);
	r->move = get_le32(buf + 24);
	r->done = get_le64(buf + 28);
	r->crcs = get_le32(buf + 36);
	r->known = v1 ? r->done : get_le64(buf + 40);
	r->v1 = v1;
	return r->done <= r->known ? 0 : -EBADMSG;
}

void journal_slot_encode(const struct pa_jslot *s, uint64_t nonce, unsigned char *buf)
{
	memset(buf, 0, PA_JOURNAL_BLOCK);
	memcpy(buf, SLOT_MAGIC, 8);
	put_le64(buf + 8, nonce);
	put_le32(buf + 16, s->move);
	put_le64(buf + 20, s->chunk);
	put_le64(buf + 28, s->len);
	put_le32(buf + 36, s->crc);
	put_le32(buf + 40, crc32_update(0, buf, 40));
}

int journal_slot_decode(const unsigned char *buf, uint64_t nonce, struct pa_jslot *s)
{
	if (memcmp(buf, SLOT_MAGIC, 8) || get_le64(buf + 8) != nonce ||
	    get_le32(buf + 40) != crc32_update(0, buf, 40))
		return -EBADMSG;
	s->move = get_le32(buf + 16);
	s->chunk = get_le64(buf + 20);
	s->len = get_le64(buf + 28);
	s->crc = get_le32(buf + 36);
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const struct pa_step *x = a, *y = b;

	if (x->old->start != y->old->start)
		return x->old->start < y->old->start ? -1 : 1;
	return x->num < y->num ? -1 : x->num > y->num;
}

/* UTF-8 of a GPT name held as UTF-16LE (unpaired surrogates as U+FFFD). */
static size_t utf8_of_utf16(const unsigned char *u, size_t units, char *out, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < units; i++) {
		uint32_t c = (uint32_t)u[2 * i] | (uint32_t)u[2 * i + 1] << 8;
		unsigned char b[4];
		size_t k, m;

		if (!c)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < units) {
			uint32_t lo = (uint32_t)u[2 * i + 2] | (uint32_t)u[2 * i + 3]
								   << 8;

			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c < 0xe000) {
			c = 0xfffd;
		}
		if (c < 0x80) {
			b[0] = (unsigned char)c;
			m = 1;
		} else if (c < 0x800) {
			b[0] = (unsigned char)(0xc0 | c >> 6);
			b[1] = (unsigned char)(0x80 | (c & 0x3f));
			m = 2;
		} else if (c < 0x10000) {
			b[0] = (unsigned char)(0xe0 | c >> 12);
			b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c & 0x3f));
			m = 3;
		} else {
			b[0] = (unsigned char)(0xf0 | c >> 18);
			b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
			b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
			b[3] = (unsigned char)(0x80 | (c & 0x3f));
			m = 4;
		}
		if (n + m >= len)
			break;
		for (k = 0; k < m; k++)
			out[n++] = (char)b[k];
	}
	out[n] = '\0';
	return n;
}

/* *@name becomes the journal's original name of @e (NULL: none); 0 or -ENOMEM. */
static int name_of(const struct pa_jentry *e, char **name)
{
	char buf[PA_JOURNAL_NAME_LEN * 2 + 1];

	if (!e->has_name)
		return 0;
	free(*name);
	*name = NULL;
	if (!utf8_of_utf16(e->name, PA_JOURNAL_NAME_LEN / 2, buf, sizeof(buf)))
		return 0;
	*name = strdup(buf);
	return *name ? 0 : -ENOMEM;
}

int journal_plan(const struct pa_journal *j, const struct pa_topology *topo,
		 const struct pa_plan_opts *o, struct pa_plan *p)
{
	struct pa_table *t = &p->table;
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
		struct pa_step s = plan_step_keep(e);

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
			if (e->moving && e->move_to && e->move_to != mv->to)
				return plan_refuse(
				    p,
				    "partition %u moves to %" PRIu64 " by the disk's "
				    "marker, to %" PRIu64 " by the journal",
				    e->num, e->move_to, mv->to);
			if (e->start == mv->from) {
				s.kind = PA_STEP_MOVE;
				s.new_start = mv->to;
				p->changes++;
			} else {
				moved++;
			}
			/* the marker's name is the move id: show the partition's own */
			if (name_of(&mv->entry, &t->v[i].name) < 0)
				return -ENOMEM;
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
