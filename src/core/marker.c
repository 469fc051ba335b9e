/*
 * The move marker (see marker.h): raw GPT and dos edits with their
 * checksums, through read/write callbacks.  A GPT copy whose header or
 * array checksum is wrong is neither read nor written: what the other
 * tools would ignore, the marker ignores too.  Three forms of a marked
 * entry are told apart: hidden (what marker_set writes), shown (what
 * marker_reveal makes for libparted, and what earlier builds wrote on the
 * disk), and cleared (the journal's original).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "shared/endian.h"
#include "core/marker.h"

#define GPT_ARRAY_MAX (1u << 20)
#define REC_MAGIC1 "PAMOVE01" /* earlier builds: id, path */
#define REC_MAGIC2 "PAMOVE02" /* id, the disk GUID, path */
#define REC_ENTRIES 4u
/* bytes 48..127 of each entry (attributes, name): type, GUID and LBAs stay zero */
#define REC_OFF 48u
#define REC_LEN 80u
#define REC_PAYLOAD (REC_ENTRIES * REC_LEN)

struct gpt_copy {
	uint64_t hdr_off;
	unsigned char hdr[512];
	uint32_t hdr_size;
	uint64_t ent_off;
	uint32_t count, esize;
	unsigned char *ents;
	size_t elen;
	bool dirty;
};

static int guid_parse(const char *s, unsigned char g[16])
{
	static const int pos[16] = {6,	4,  2,	0,  11, 9,  16, 14,
				    19, 21, 24, 26, 28, 30, 32, 34};
	int i;

	if (strlen(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' ||
	    s[23] != '-')
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		unsigned int v;

		if (sscanf(s + pos[i], "%2x", &v) != 1 ||
		    !strchr("0123456789abcdefABCDEF", s[pos[i]]) ||
		    !strchr("0123456789abcdefABCDEF", s[pos[i] + 1]))
			return -EINVAL;
		g[i] = (unsigned char)v;
	}
	return 0;
}

static void guid_format(const unsigned char *g, char out[37])
{
	snprintf(out, 37,
		 "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11],
		 g[12], g[13], g[14], g[15]);
}

bool marker_type_is_move(const char *type)
{
	return type && (strcasecmp(type, PA_MOVE_TYPE_GUID) == 0 ||
			strcasecmp(type, "0x7f") == 0);
}

static void copy_free(struct gpt_copy *c)
{
	free(c->ents);
	memset(c, 0, sizeof(*c));
}

/* The GPT header at @lba and its array, if both checksums hold. 0, -ENOENT, -errno. */
static int copy_load(const struct marker_io *io, uint64_t lba, struct gpt_copy *c)
{
	uint64_t sectors = io->size / io->logical, elen, end;
	uint32_t crc;
	int rc;

	memset(c, 0, sizeof(*c));
	if (lba == 0 || lba >= sectors)
		return -ENOENT;
	c->hdr_off = lba * io->logical;
	rc = io->rd(io->ctx, c->hdr_off, c->hdr, sizeof(c->hdr));
	if (rc < 0)
		return rc;
	c->hdr_size = get_le32(c->hdr + 12);
	if (memcmp(c->hdr, "EFI PART", 8) || c->hdr_size < 92 ||
	    c->hdr_size > sizeof(c->hdr) || get_le64(c->hdr + 24) != lba)
		return -ENOENT;
	crc = get_le32(c->hdr + 16);
	put_le32(c->hdr + 16, 0);
	if (crc32_update(0, c->hdr, c->hdr_size) != crc)
		return -ENOENT;
	put_le32(c->hdr + 16, crc);
	c->count = get_le32(c->hdr + 80);
	c->esize = get_le32(c->hdr + 84);
	if (c->esize < 128 || c->esize % 8 || c->count == 0 ||
	    __builtin_mul_overflow((uint64_t)c->count, (uint64_t)c->esize, &elen) ||
	    elen > GPT_ARRAY_MAX ||
	    __builtin_mul_overflow(get_le64(c->hdr + 72), (uint64_t)io->logical,
				   &c->ent_off) ||
	    __builtin_add_overflow(c->ent_off, elen, &end) || end > io->size)
		return -ENOENT;
	c->elen = (size_t)elen;
	c->ents = malloc(c->elen);
	if (!c->ents)
		return -ENOMEM;
	rc = io->rd(io->ctx, c->ent_off, c->ents, c->elen);
	if (rc == 0 && crc32_update(0, c->ents, c->elen) != get_le32(c->hdr + 88))
		rc = -ENOENT;
	if (rc < 0)
		copy_free(c);
	return rc;
}

static int copy_store(const struct marker_io *io, struct gpt_copy *c)
{
	int rc;

	if (!c->dirty)
		return 0;
	put_le32(c->hdr + 88, crc32_update(0, c->ents, c->elen));
	put_le32(c->hdr + 16, 0);
	put_le32(c->hdr + 16, crc32_update(0, c->hdr, c->hdr_size));
	rc = io->wr(io->ctx, c->ent_off, c->ents, c->elen);
	if (rc == 0)
		rc = io->wr(io->ctx, c->hdr_off, c->hdr, sizeof(c->hdr));
	return rc;
}

/*
 * Is sector 0 a dos table (55 AA, no protective 0xEE entry)?  The kernel,
 * libblkid and libparted then read dos, whatever GPT is valid beside it:
 * so does the marker.
 */
static bool sector0_dos(const struct marker_io *io)
{
	unsigned char s[512];
	int i;

	if (io->rd(io->ctx, 0, s, sizeof(s)) < 0 || s[510] != 0x55 || s[511] != 0xaa)
		return false;
	for (i = 0; i < 4; i++)
		if (s[446 + 16 * i + 4] == 0xee)
			return false;
	return true;
}

/* Both copies written where changed: the backup first, so that a cut between the
 * two leaves the primary as it was. */
static int copies_store(const struct marker_io *io, struct gpt_copy c[2])
{
	int rc = copy_store(io, &c[1]);

	return rc == 0 ? copy_store(io, &c[0]) : rc;
}

/* Both copies: [0] primary, [1] backup; how many are valid, or -errno. */
static int copies_load(const struct marker_io *io, struct gpt_copy c[2])
{
	uint64_t last = io->size / io->logical - 1;
	int rc, n = 0;

	memset(c, 0, 2 * sizeof(*c));
	if (sector0_dos(io))
		return 0;
	rc = copy_load(io, 1, &c[0]);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	n += rc == 0;
	if (rc == 0 && get_le64(c[0].hdr + 32) != 1)
		last = get_le64(c[0].hdr + 32);
	rc = copy_load(io, last, &c[1]);
	if (rc < 0 && rc != -ENOENT) {
		copy_free(&c[0]);
		return rc;
	}
	return n + (rc == 0);
}

static unsigned char *entry_at(struct gpt_copy *c, unsigned int num)
{
	return num >= 1 && num <= c->count ? c->ents + (size_t)(num - 1) * c->esize
					   : NULL;
}

static bool entry_used(const unsigned char *e)
{
	static const unsigned char zero[16];

	return memcmp(e, zero, 16) != 0;
}

static void move_name(uint64_t id, uint64_t to_lba,
		      unsigned char name[PA_JOURNAL_NAME_LEN])
{
	char text[40];
	size_t i;

	snprintf(text, sizeof(text), PA_MOVE_NAME_PREFIX "%016" PRIx64, id);
	memset(name, 0, PA_JOURNAL_NAME_LEN);
	for (i = 0; text[i] && 2 * i + 1 < PA_JOURNAL_NAME_LEN; i++)
		name[2 * i] = (unsigned char)text[i];
	/* after the text and its NUL: where the partition goes */
	put_le64(name + PA_JOURNAL_NAME_LEN - 8, to_lba);
}

/* The move id in a marked entry's name (up to its NUL); false when it is not ours. */
static bool name_id(const unsigned char *name, uint64_t *id)
{
	char text[PA_JOURNAL_NAME_LEN / 2 + 1], *end;
	size_t i, pl = sizeof(PA_MOVE_NAME_PREFIX) - 1;

	for (i = 0; i < PA_JOURNAL_NAME_LEN / 2; i++) {
		if (!name[2 * i] && !name[2 * i + 1])
			break;
		if (name[2 * i + 1] || name[2 * i] < 0x20 || name[2 * i] > 0x7e)
			return false;
		text[i] = (char)name[2 * i];
	}
	text[i] = '\0';
	if (strncmp(text, PA_MOVE_NAME_PREFIX, pl) || strlen(text) != pl + 16 ||
	    !isxdigit((unsigned char)text[pl]))
		return false;
	*id = strtoull(text + pl, &end, 16);
	return *end == '\0';
}

enum form {
	FORM_UNUSED, /* type GUID zero, not ours */
	FORM_PLAIN,  /* a partition as any tool writes it */
	FORM_SHOWN,  /* the marker's type GUID: the shadow's form, earlier builds' */
	FORM_HIDDEN, /* type GUID zero, our name and the old LBAs: this build's */
};

static enum form entry_form(const unsigned char *e, const unsigned char mg[16],
			    uint64_t *id)
{
	uint64_t dummy;

	if (!id)
		id = &dummy;
	*id = 0;
	if (!entry_used(e))
		return get_le64(e + 32) && name_id(e + 56, id) ? FORM_HIDDEN
							       : FORM_UNUSED;
	if (memcmp(e, mg, 16) == 0) {
		if (!name_id(e + 56, id))
			*id = 0;
		return FORM_SHOWN;
	}
	return FORM_PLAIN;
}

/* The place of entry @e in bytes; false when its LBAs make no sense on this disk. */
static bool entry_place(const struct marker_io *io, const unsigned char *e,
			uint64_t *from, uint64_t *len)
{
	uint64_t first = get_le64(e + 32), last = get_le64(e + 40);

	if (first > last || last >= io->size / io->logical)
		return false;
	*from = first * io->logical;
	*len = (last - first + 1) * io->logical;
	return true;
}

/* The record in the last REC_ENTRIES entries: usable when all of them are unused
 * (type GUID, unique GUID and both LBAs zero, which every tool skips). */
static bool rec_slots(struct gpt_copy *c, unsigned char *slot[REC_ENTRIES])
{
	static const unsigned char zero[REC_OFF];
	unsigned int k;

	if (c->count < REC_ENTRIES + 1)
		return false;
	for (k = 0; k < REC_ENTRIES; k++) {
		slot[k] = entry_at(c, c->count - REC_ENTRIES + 1 + k);
		if (memcmp(slot[k], zero, REC_OFF) != 0)
			return false;
	}
	return true;
}

static void rec_get(unsigned char *slot[REC_ENTRIES], unsigned char *p)
{
	unsigned int k;

	for (k = 0; k < REC_ENTRIES; k++)
		memcpy(p + REC_LEN * k, slot[k] + REC_OFF, REC_LEN);
}

static void rec_put(unsigned char *slot[REC_ENTRIES], const unsigned char *p)
{
	unsigned int k;

	for (k = 0; k < REC_ENTRIES; k++)
		memcpy(slot[k] + REC_OFF, p + REC_LEN * k, REC_LEN);
}

/* A record of either format: the move id, the path, the disk GUID (format 2). */
struct rec {
	uint64_t id;
	char path[PA_MARKER_PATH_MAX + 1];
	bool has_guid;
	unsigned char guid[16];
};

static bool rec_parse(const unsigned char *p, struct rec *r)
{
	bool v2 = memcmp(p, REC_MAGIC2, 8) == 0;
	size_t at = v2 ? 34 : 18, max = REC_PAYLOAD - 4 - at;
	uint32_t len = get_le16(p + at - 2);

	if ((!v2 && memcmp(p, REC_MAGIC1, 8)) || len > max || len > PA_MARKER_PATH_MAX ||
	    get_le32(p + REC_PAYLOAD - 4) != crc32_update(0, p, REC_PAYLOAD - 4))
		return false;
	r->id = get_le64(p + 8);
	r->has_guid = v2;
	if (v2)
		memcpy(r->guid, p + 16, 16);
	memcpy(r->path, p + at, len);
	r->path[len] = '\0';
	return strlen(r->path) == len;
}

static bool rec_of(struct gpt_copy *c, struct rec *r)
{
	unsigned char p[REC_PAYLOAD], *slot[REC_ENTRIES];

	if (!rec_slots(c, slot))
		return false;
	rec_get(slot, p);
	return rec_parse(p, r);
}

static void rec_make(unsigned char *p, uint64_t id, const unsigned char guid[16],
		     const char *path)
{
	size_t len = path ? strlen(path) : 0;

	if (len > REC_PAYLOAD - 4 - 34)
		len = 0; /* too long to record: the id alone */
	memset(p, 0, REC_PAYLOAD);
	memcpy(p, REC_MAGIC2, 8);
	put_le64(p + 8, id);
	memcpy(p + 16, guid, 16);
	put_le16(p + 32, (uint16_t)len);
	memcpy(p + 34, path ? path : "", len);
	put_le32(p + REC_PAYLOAD - 4, crc32_update(0, p, REC_PAYLOAD - 4));
}

/* The marker's disk GUID for move @id: the type GUID's first half, then the id. */
static void guid_of_move(uint64_t id, unsigned char g[16])
{
	int i;

	guid_parse(PA_MOVE_TYPE_GUID, g);
	for (i = 0; i < 8; i++)
		g[8 + i] = (unsigned char)(id >> (56 - 8 * i));
}

static bool guid_marked(const unsigned char g[16], uint64_t *id)
{
	unsigned char mg[16];
	int i;

	guid_parse(PA_MOVE_TYPE_GUID, mg);
	if (memcmp(g, mg, 8))
		return false;
	*id = 0;
	for (i = 0; i < 8; i++)
		*id = *id << 8 | g[8 + i];
	return true;
}

bool marker_guid_is_move(const char *guid, uint64_t *id)
{
	unsigned char g[16];

	return guid && guid_parse(guid, g) == 0 && guid_marked(g, id) && *id;
}

static int dos_read(const struct marker_io *io, unsigned char s[512])
{
	int rc = io->rd(io->ctx, 0, s, 512);
	int i;

	if (rc < 0)
		return rc;
	if (s[510] != 0x55 || s[511] != 0xaa)
		return -ENOENT;
	for (i = 0; i < 4; i++)
		if (s[446 + 16 * i + 4] == 0xee)
			return -ENOENT; /* a protective MBR: GPT, damaged */
	return 0;
}

/*
 * A dos entry of this build's form: size 0, the marker's id, the old start;
 * the length in the CHS bytes, the new start as a difference in sectors.
 */
#define DOS_NO_DELTA 0x8000u

static bool dos_hidden(const unsigned char *e)
{
	return e[4] == PA_MOVE_DOS_TYPE && get_le32(e + 12) == 0 && get_le32(e + 8) != 0;
}

static uint32_t dos_hidden_len(const unsigned char *e)
{
	return (uint32_t)e[1] | (uint32_t)e[2] << 8 | (uint32_t)e[3] << 16 |
	       (uint32_t)e[5] << 24;
}

static void dos_hide(unsigned char *e, uint32_t len, int64_t delta)
{
	e[1] = (unsigned char)len;
	e[2] = (unsigned char)(len >> 8);
	e[3] = (unsigned char)(len >> 16);
	e[4] = PA_MOVE_DOS_TYPE;
	e[5] = (unsigned char)(len >> 24);
	put_le16(e + 6, delta > -32768 && delta < 32768 ? (uint16_t)(int16_t)delta
							: (uint16_t)DOS_NO_DELTA);
	put_le32(e + 12, 0);
}

/* Shown again: the length back in the size field, the CHS bytes cleared. */
static void dos_show(unsigned char *e)
{
	uint32_t len = dos_hidden_len(e);

	memset(e + 1, 0, 3);
	memset(e + 5, 0, 3);
	put_le32(e + 12, len);
}

static void add_part(struct pa_marker *m, unsigned int num, bool hidden, bool primary,
		     uint64_t from, uint64_t len, uint64_t to)
{
	size_t j;

	for (j = 0; j < m->n; j++)
		if (m->nums[j] == num)
			return; /* the primary copy's, read first */
	if (m->n >= PA_MARKER_PARTS)
		return;
	m->nums[m->n] = num;
	m->parts[m->n] = (struct pa_marker_part){num, hidden, primary, from, len, to};
	m->n++;
	m->hidden |= hidden;
}

static void find_gpt(const struct marker_io *io, struct gpt_copy c[2],
		     struct pa_marker *m)
{
	unsigned char mg[16];
	struct rec r;
	uint64_t gid;
	unsigned int i;
	int k;

	guid_parse(PA_MOVE_TYPE_GUID, mg);
	for (k = 0; k < 2; k++) {
		if (!c[k].ents)
			continue;
		for (i = 1; i <= c[k].count; i++) {
			unsigned char *e = entry_at(&c[k], i);
			uint64_t id, from, len, to = 0;
			enum form f = entry_form(e, mg, &id);

			if (f != FORM_SHOWN && f != FORM_HIDDEN)
				continue;
			if (!entry_place(io, e, &from, &len))
				continue;
			if (f == FORM_HIDDEN &&
			    __builtin_mul_overflow(
				get_le64(e + 56 + PA_JOURNAL_NAME_LEN - 8),
				(uint64_t)io->logical, &to))
				to = 0;
			add_part(m, i, f == FORM_HIDDEN, k == 0, from, len, to);
			if (!m->move_id && id)
				m->move_id = id;
		}
		if (!m->journal[0] && rec_of(&c[k], &r) &&
		    (!m->move_id || r.id == m->move_id)) {
			m->move_id = r.id;
			snprintf(m->journal, sizeof(m->journal), "%s", r.path);
			if (r.has_guid && !m->guid_known) {
				memcpy(m->guid, r.guid, 16);
				m->guid_known = true;
			}
		}
		if (guid_marked(c[k].hdr + 56, &gid)) {
			m->guid_marked = true;
			if (!m->move_id)
				m->move_id = gid;
		}
	}
}

static void find_dos(const struct marker_io *io, const unsigned char s[512],
		     struct pa_marker *m)
{
	uint64_t l = io->logical;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		const unsigned char *e = s + 446 + 16 * i;
		uint64_t start = get_le32(e + 8), to = 0;

		if (e[4] != PA_MOVE_DOS_TYPE)
			continue;
		if (get_le32(e + 12)) {
			add_part(m, i + 1, false, true, start * l, get_le32(e + 12) * l,
				 0);
		} else if (dos_hidden(e) && dos_hidden_len(e)) {
			int64_t d = (int16_t)get_le16(e + 6);

			if (get_le16(e + 6) != DOS_NO_DELTA && (int64_t)start + d > 0)
				to = (uint64_t)((int64_t)start + d) * l;
			add_part(m, i + 1, true, true, start * l, dos_hidden_len(e) * l,
				 to);
		}
	}
	m->move_id = get_le32(s + 440);
	m->id32 = true;
}

int marker_find(const struct marker_io *io, struct pa_marker *m)
{
	struct gpt_copy c[2];
	unsigned char s[512];
	int valid, rc;

	memset(m, 0, sizeof(*m));
	valid = copies_load(io, c);
	if (valid < 0)
		return valid;
	if (valid) {
		find_gpt(io, c, m);
		copy_free(&c[0]);
		copy_free(&c[1]);
		return m->n ? 1 : 0;
	}
	rc = dos_read(io, s);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	find_dos(io, s, m);
	return m->n ? 1 : 0;
}

bool marker_matches(const struct pa_marker *m, const struct pa_journal *j)
{
	if (m->id32)
		return (uint32_t)m->move_id == (uint32_t)j->move_id;
	return m->move_id == j->move_id;
}

const struct pa_marker_part *marker_part(const struct pa_marker *m, unsigned int num)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->parts[i].num == num)
			return &m->parts[i];
	return NULL;
}

int marker_originals(const struct marker_io *io, struct pa_journal *j)
{
	struct gpt_copy c[2];
	unsigned char s[512];
	char label[48];
	int valid, rc = 0;
	size_t m;

	valid = copies_load(io, c);
	if (valid < 0)
		return valid;
	if (valid) {
		struct gpt_copy *g = c[0].ents ? &c[0] : &c[1];

		memcpy(label, "gpt:", 4);
		guid_format(g->hdr + 56, label + 4);
		for (m = 0; m < j->n && rc == 0; m++) {
			struct pa_jentry *e = &j->v[m].entry;
			unsigned char *raw = entry_at(g, j->v[m].num);

			if (!raw || !entry_used(raw)) {
				rc = -ENOENT;
				break;
			}
			guid_format(raw, e->type);
			guid_format(raw + 16, e->uuid);
			memcpy(e->name, raw + 56, PA_JOURNAL_NAME_LEN);
			e->has_name = true;
		}
		copy_free(&c[0]);
		copy_free(&c[1]);
	} else {
		rc = dos_read(io, s);
		if (rc == -ENOENT)
			return -EOPNOTSUPP;
		snprintf(label, sizeof(label), "dos:%08" PRIx32, get_le32(s + 440));
		for (m = 0; m < j->n && rc == 0; m++) {
			struct pa_jentry *e = &j->v[m].entry;
			unsigned int num = j->v[m].num;

			if (num < 1 || num > 4 || !s[446 + 16 * (num - 1) + 4]) {
				rc = -ENOENT;
				break;
			}
			memset(e, 0, sizeof(*e));
			snprintf(e->type, sizeof(e->type), "0x%02x",
				 s[446 + 16 * (num - 1) + 4]);
		}
	}
	return rc < 0 ? rc : journal_set_label(j, label);
}

/* The table identity of @j as a GPT disk GUID. */
static int label_guid(const struct pa_journal *j, unsigned char g[16])
{
	if (!j->label || strncmp(j->label, "gpt:", 4))
		return -EINVAL;
	return guid_parse(j->label + 4, g);
}

/* dos: the signature the table had before the marker, from the journal's label. */
static int dos_signature(const struct pa_journal *j, uint32_t *sig)
{
	char *end;
	unsigned long v;

	if (!j->label || strncmp(j->label, "dos:", 4) || strlen(j->label) != 12)
		return -EINVAL;
	v = strtoul(j->label + 4, &end, 16);
	if (*end)
		return -EINVAL;
	*sig = (uint32_t)v;
	return 0;
}

/*
 * Hide @e, the journal's move @v, in one GPT copy: 1 when it changed, 0 when
 * it is at its new place already, -ENOENT when it is not where the journal
 * says.
 */
static int gpt_hide(const struct marker_io *io, unsigned char *e,
		    const struct pa_jmove *v, uint64_t move_id,
		    const unsigned char mg[16])
{
	uint64_t id, from, len;
	enum form f = entry_form(e, mg, &id);
	unsigned char before[128];

	/* a hidden entry is told by its first LBA too: one at LBA 0 is no partition */
	if (f == FORM_UNUSED || !entry_place(io, e, &from, &len) || len != v->len ||
	    from == 0)
		return -ENOENT;
	if (from != v->from)
		return f == FORM_PLAIN && from == v->to ? 0 : -ENOENT;
	if (f == FORM_HIDDEN && id != move_id)
		return -EEXIST;
	memcpy(before, e, sizeof(before));
	memset(e, 0, 16);
	move_name(move_id, v->to / io->logical, e + 56);
	return memcmp(before, e, sizeof(before)) != 0;
}

static int gpt_set(const struct marker_io *io, const struct pa_journal *j,
		   const char *path, struct gpt_copy c[2])
{
	unsigned char mg[16], og[16], rec[REC_PAYLOAD], cur[REC_PAYLOAD],
	    *slot[REC_ENTRIES];
	int k, rc;
	size_t m;

	guid_parse(PA_MOVE_TYPE_GUID, mg);
	if (label_guid(j, og) < 0)
		return -EINVAL;
	for (k = 0; k < 2; k++) {
		if (!c[k].ents)
			continue;
		for (m = 0; m < j->n; m++) {
			unsigned char *e = entry_at(&c[k], j->v[m].num);

			rc = e ? gpt_hide(io, e, &j->v[m], j->move_id, mg) : -ENOENT;
			if (rc < 0)
				return rc;
			c[k].dirty |= rc > 0;
		}
		if (rec_slots(&c[k], slot)) {
			unsigned char g[16];

			rec_make(rec, j->move_id, og, path);
			rec_get(slot, cur);
			if (memcmp(cur, rec, sizeof(rec))) {
				rec_put(slot, rec);
				c[k].dirty = true;
			}
			/* the disk GUID tells the move only where the record keeps the
			   table's own */
			guid_of_move(j->move_id, g);
			if (memcmp(c[k].hdr + 56, g, 16)) {
				memcpy(c[k].hdr + 56, g, 16);
				c[k].dirty = true;
			}
		}
	}
	return copies_store(io, c);
}

static int dos_set(const struct marker_io *io, const struct pa_journal *j,
		   unsigned char s[512])
{
	uint64_t l = io->logical;
	bool dirty = false;
	size_t m;

	for (m = 0; m < j->n; m++) {
		const struct pa_jmove *v = &j->v[m];
		unsigned int num = v->num;
		unsigned char *e, before[16];
		uint64_t start;

		if (num < 1 || num > 4 || !v->len || !v->from || v->len % l ||
		    v->from % l || v->to % l || v->len / l > UINT32_MAX)
			return -ENOENT;
		e = s + 446 + 16 * (num - 1);
		start = (uint64_t)get_le32(e + 8) * l;
		memcpy(before, e, sizeof(before));
		if (dos_hidden(e)) {
			if (start != v->from || dos_hidden_len(e) * l != v->len)
				return -ENOENT;
		} else if (!e[4] || get_le32(e + 12) * l != v->len) {
			return -ENOENT;
		} else if (start != v->from) {
			if (start == v->to)
				continue; /* at its new place already */
			return -ENOENT;
		}
		dos_hide(e, (uint32_t)(v->len / l),
			 ((int64_t)(v->to / l) - (int64_t)(v->from / l)));
		dirty |= memcmp(before, e, sizeof(before)) != 0;
	}
	if (get_le32(s + 440) != (uint32_t)j->move_id) {
		put_le32(s + 440, (uint32_t)j->move_id);
		dirty = true;
	}
	return dirty ? io->wr(io->ctx, 0, s, 512) : 0;
}

int marker_reveal(const struct marker_io *io)
{
	struct gpt_copy c[2];
	unsigned char s[512], mg[16];
	bool dirty = false;
	unsigned int i;
	int valid, k, rc = 0;

	if (!io->wr)
		return -EINVAL;
	valid = copies_load(io, c);
	if (valid < 0)
		return valid;
	if (valid) {
		guid_parse(PA_MOVE_TYPE_GUID, mg);
		for (k = 0; k < 2; k++) {
			struct rec r;
			uint64_t gid;

			if (!c[k].ents)
				continue;
			for (i = 1; i <= c[k].count; i++) {
				unsigned char *e = entry_at(&c[k], i);

				if (entry_form(e, mg, NULL) != FORM_HIDDEN)
					continue;
				memcpy(e, mg, 16);
				memset(e + 56 + PA_JOURNAL_NAME_LEN - 8, 0, 8);
				c[k].dirty = true;
			}
			if (guid_marked(c[k].hdr + 56, &gid) && rec_of(&c[k], &r) &&
			    r.has_guid) {
				memcpy(c[k].hdr + 56, r.guid, 16);
				c[k].dirty = true;
			}
		}
		rc = copies_store(io, c);
		copy_free(&c[0]);
		copy_free(&c[1]);
		return rc;
	}
	rc = dos_read(io, s);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	for (i = 0; i < 4; i++) {
		unsigned char *e = s + 446 + 16 * i;

		if (dos_hidden(e) && dos_hidden_len(e)) {
			dos_show(e);
			dirty = true;
		}
	}
	return dirty ? io->wr(io->ctx, 0, s, 512) : 0;
}

static int gpt_clear(const struct marker_io *io, const struct pa_journal *j,
		     struct gpt_copy c[2])
{
	unsigned char mg[16], og[16], rec[REC_PAYLOAD], *slot[REC_ENTRIES];
	bool have_og = label_guid(j, og) == 0;
	uint64_t gid;
	int k;
	size_t m;

	guid_parse(PA_MOVE_TYPE_GUID, mg);
	for (k = 0; k < 2; k++) {
		if (!c[k].ents)
			continue;
		for (m = 0; m < j->n; m++) {
			const struct pa_jentry *o = &j->v[m].entry;
			unsigned char *e = entry_at(&c[k], j->v[m].num), g[16];
			enum form f;

			if (!e)
				return -ENOENT;
			f = entry_form(e, mg, NULL);
			if (f != FORM_SHOWN && f != FORM_HIDDEN)
				continue;
			if (guid_parse(o->type, g) < 0)
				return -EINVAL;
			memcpy(e, g, 16);
			if (o->has_name)
				memcpy(e + 56, o->name, PA_JOURNAL_NAME_LEN);
			else
				memset(e + 56, 0, PA_JOURNAL_NAME_LEN);
			c[k].dirty = true;
		}
		if (rec_slots(&c[k], slot)) {
			rec_get(slot, rec);
			if (memcmp(rec, REC_MAGIC1, 8) == 0 ||
			    memcmp(rec, REC_MAGIC2, 8) == 0) {
				memset(rec, 0, sizeof(rec));
				rec_put(slot, rec);
				c[k].dirty = true;
			}
		}
		if (have_og && guid_marked(c[k].hdr + 56, &gid)) {
			memcpy(c[k].hdr + 56, og, 16);
			c[k].dirty = true;
		}
	}
	return copies_store(io, c);
}

static int dos_clear(const struct marker_io *io, const struct pa_journal *j,
		     unsigned char s[512])
{
	uint32_t sig = 0;
	bool dirty = false;
	int rc = dos_signature(j, &sig);
	size_t m;

	if (rc < 0)
		return rc;
	for (m = 0; m < j->n; m++) {
		unsigned int num = j->v[m].num, orig;
		unsigned char *e = s + 446 + 16 * (num - 1);

		if (num < 1 || num > 4 || sscanf(j->v[m].entry.type, "0x%2x", &orig) != 1)
			return -ENOENT;
		if (e[4] != PA_MOVE_DOS_TYPE)
			continue;
		if (dos_hidden(e))
			dos_show(e);
		e[4] = (unsigned char)orig;
		dirty = true;
	}
	/* libparted may have made up a signature while staging: the original */
	if (get_le32(s + 440) != sig) {
		put_le32(s + 440, sig);
		dirty = true;
	}
	return dirty ? io->wr(io->ctx, 0, s, 512) : 0;
}

/* marker_set (set) and marker_clear: the GPT copies when a table has them,
 * else the MBR */
static int marker_write(const struct marker_io *io, const struct pa_journal *j,
			const char *journal_path, bool set)
{
	struct gpt_copy c[2];
	unsigned char s[512];
	int valid, rc;

	if (!io->wr)
		return -EINVAL;
	valid = copies_load(io, c);
	if (valid < 0)
		return valid;
	if (valid) {
		rc = set ? gpt_set(io, j, journal_path, c) : gpt_clear(io, j, c);
		copy_free(&c[0]);
		copy_free(&c[1]);
		return rc;
	}
	rc = dos_read(io, s);
	if (rc == -ENOENT)
		return -EOPNOTSUPP;
	if (rc < 0)
		return rc;
	return set ? dos_set(io, j, s) : dos_clear(io, j, s);
}

int marker_set(const struct marker_io *io, const struct pa_journal *j,
	       const char *journal_path)
{
	return marker_write(io, j, journal_path, true);
}

int marker_clear(const struct marker_io *io, const struct pa_journal *j)
{
	return marker_write(io, j, NULL, false);
}
