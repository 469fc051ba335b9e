/*
 * The move marker (see marker.h): raw GPT and dos edits with their
 * checksums, through read/write callbacks.  A GPT copy whose header or
 * array checksum is wrong is neither read nor written: what the other
 * tools would ignore, the marker ignores too.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "shared/endian.h"
#include "core/marker.h"

#define GPT_ARRAY_MAX (1u << 20)
#define REC_MAGIC "PAMOVE01"
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

/* Both copies: [0] primary, [1] backup; how many are valid, or -errno. */
static int copies_load(const struct marker_io *io, struct gpt_copy c[2])
{
	uint64_t last = io->size / io->logical - 1;
	int rc, n = 0;

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

static void move_name(uint64_t id, unsigned char name[PA_JOURNAL_NAME_LEN])
{
	char text[40];
	size_t i;

	snprintf(text, sizeof(text), PA_MOVE_NAME_PREFIX "%016" PRIx64, id);
	memset(name, 0, PA_JOURNAL_NAME_LEN);
	for (i = 0; text[i] && 2 * i + 1 < PA_JOURNAL_NAME_LEN; i++)
		name[2 * i] = (unsigned char)text[i];
}

/* The move id in a marked entry's name; false when it is not ours. */
static bool name_id(const unsigned char *name, uint64_t *id)
{
	char text[PA_JOURNAL_NAME_LEN / 2 + 1], *end;
	size_t i, pl = sizeof(PA_MOVE_NAME_PREFIX) - 1;

	for (i = 0; i < PA_JOURNAL_NAME_LEN / 2; i++) {
		if (name[2 * i + 1] ||
		    (name[2 * i] && (name[2 * i] < 0x20 || name[2 * i] > 0x7e)))
			return false;
		text[i] = (char)name[2 * i];
	}
	text[i] = '\0';
	if (strncmp(text, PA_MOVE_NAME_PREFIX, pl) || strlen(text) != pl + 16)
		return false;
	*id = strtoull(text + pl, &end, 16);
	return *end == '\0';
}

/* The record in the last REC_ENTRIES entries: usable when all of them are unused
 * (type GUID, unique GUID and both LBAs zero, which every tool skips). */
static bool rec_slots(struct gpt_copy *c, unsigned char *slot[REC_ENTRIES])
{
	unsigned int k;

	if (c->count < REC_ENTRIES + 1)
		return false;
	static const unsigned char zero[REC_OFF];

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

static bool rec_parse(const unsigned char *p, uint64_t *id, char *path)
{
	uint32_t len = get_le16(p + 16);

	if (memcmp(p, REC_MAGIC, 8) || len > PA_MARKER_PATH_MAX ||
	    get_le32(p + REC_PAYLOAD - 4) != crc32_update(0, p, REC_PAYLOAD - 4))
		return false;
	*id = get_le64(p + 8);
	memcpy(path, p + 18, len);
	path[len] = '\0';
	return strlen(path) == len;
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

int marker_find(const struct marker_io *io, struct pa_marker *m)
{
	struct gpt_copy c[2];
	unsigned char s[512], rec[REC_PAYLOAD], *slot[REC_ENTRIES];
	int valid, k, rc;
	unsigned int i;

	memset(m, 0, sizeof(*m));
	valid = copies_load(io, c);
	if (valid < 0)
		return valid;
	for (k = 0; k < 2 && valid; k++) {
		if (!c[k].ents)
			continue;
		for (i = 1; i <= c[k].count; i++) {
			unsigned char *e = entry_at(&c[k], i), g[16];
			uint64_t id;
			size_t j;
			bool have = false;

			guid_parse(PA_MOVE_TYPE_GUID, g);
			if (memcmp(e, g, 16))
				continue;
			for (j = 0; j < m->n && !have; j++)
				have = m->nums[j] == i;
			if (!have && m->n < sizeof(m->nums) / sizeof(m->nums[0]))
				m->nums[m->n++] = i;
			if (!m->move_id && name_id(e + 56, &id))
				m->move_id = id;
		}
		if (!m->journal[0] && rec_slots(&c[k], slot)) {
			uint64_t id;

			rec_get(slot, rec);
			if (rec_parse(rec, &id, m->journal) &&
			    (!m->move_id || id == m->move_id))
				m->move_id = id;
			else
				m->journal[0] = '\0';
		}
	}
	copy_free(&c[0]);
	copy_free(&c[1]);
	if (valid)
		return m->n ? 1 : 0;
	rc = dos_read(io, s);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	for (i = 0; i < 4; i++)
		if (s[446 + 16 * i + 4] == PA_MOVE_DOS_TYPE)
			m->nums[m->n++] = i + 1;
	m->move_id = get_le32(s + 440);
	m->id32 = true;
	return m->n ? 1 : 0;
}

bool marker_matches(const struct pa_marker *m, const struct pa_journal *j)
{
	if (m->id32)
		return (uint32_t)m->move_id == (uint32_t)j->move_id;
	return m->move_id == j->move_id;
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

static int gpt_edit(const struct marker_io *io, const struct pa_journal *j,
		    const char *path, bool set, struct gpt_copy c[2])
{
	unsigned char mg[16], rec[REC_PAYLOAD], *slot[REC_ENTRIES];
	int k, rc = 0;
	size_t m;

	guid_parse(PA_MOVE_TYPE_GUID, mg);
	for (k = 0; k < 2 && rc == 0; k++) {
		if (!c[k].ents)
			continue;
		for (m = 0; m < j->n; m++) {
			const struct pa_jentry *o = &j->v[m].entry;
			unsigned char *e = entry_at(&c[k], j->v[m].num), g[16];

			if (!e || !entry_used(e))
				return -ENOENT;
			if (set) {
				memcpy(e, mg, 16);
				move_name(j->move_id, e + 56);
			} else if (memcmp(e, mg, 16) == 0) {
				if (guid_parse(o->type, g) < 0)
					return -EINVAL;
				memcpy(e, g, 16);
				if (o->has_name)
					memcpy(e + 56, o->name, PA_JOURNAL_NAME_LEN);
				else
					memset(e + 56, 0, PA_JOURNAL_NAME_LEN);
			} else {
				continue;
			}
			c[k].dirty = true;
		}
		if (rec_slots(&c[k], slot)) {
			memset(rec, 0, sizeof(rec));
			if (set) {
				size_t len = path ? strlen(path) : 0;

				if (len > PA_MARKER_PATH_MAX)
					len = 0; /* too long to record: the id alone */
				memcpy(rec, REC_MAGIC, 8);
				put_le64(rec + 8, j->move_id);
				put_le16(rec + 16, (uint16_t)len);
				memcpy(rec + 18, path ? path : "", len);
				put_le32(rec + REC_PAYLOAD - 4,
					 crc32_update(0, rec, REC_PAYLOAD - 4));
				rec_put(slot, rec);
				c[k].dirty = true;
			} else {
				unsigned char cur[REC_PAYLOAD];

				rec_get(slot, cur);
				if (memcmp(cur, REC_MAGIC, 8) == 0) {
					rec_put(slot, rec);
					c[k].dirty = true;
				}
			}
		}
		/* the backup copy first: a cut between the two leaves the primary as it
		 * was */
	}
	if (rc == 0)
		rc = copy_store(io, &c[1]);
	if (rc == 0)
		rc = copy_store(io, &c[0]);
	return rc;
}

static int edit(const struct marker_io *io, const struct pa_journal *j, const char *path,
		bool set)
{
	struct gpt_copy c[2];
	unsigned char s[512];
	uint32_t sig = 0;
	bool dirty = false;
	int valid, rc;
	size_t m;

	if (!io->wr)
		return -EINVAL;
	valid = copies_load(io, c);
	if (valid < 0)
		return valid;
	if (valid) {
		rc = gpt_edit(io, j, path, set, c);
		copy_free(&c[0]);
		copy_free(&c[1]);
		return rc;
	}
	rc = dos_read(io, s);
	if (rc == -ENOENT)
		return -EOPNOTSUPP;
	if (rc == 0)
		rc = dos_signature(j, &sig);
	if (rc < 0)
		return rc;
	for (m = 0; m < j->n; m++) {
		unsigned int num = j->v[m].num;
		unsigned char *sys = s + 446 + 16 * (num - 1) + 4;
		unsigned int orig;

		if (num < 1 || num > 4 || !*sys ||
		    sscanf(j->v[m].entry.type, "0x%2x", &orig) != 1)
			return -ENOENT;
		if (set && *sys != PA_MOVE_DOS_TYPE) {
			*sys = PA_MOVE_DOS_TYPE;
			dirty = true;
		} else if (!set && *sys == PA_MOVE_DOS_TYPE) {
			*sys = (unsigned char)orig;
			dirty = true;
		}
	}
	if (set && get_le32(s + 440) != (uint32_t)j->move_id) {
		put_le32(s + 440, (uint32_t)j->move_id);
		dirty = true;
	} else if (!set && get_le32(s + 440) != sig) {
		/* libparted may have made up a signature while staging: the original */
		put_le32(s + 440, sig);
		dirty = true;
	}
	return dirty ? io->wr(io->ctx, 0, s, sizeof(s)) : 0;
}

int marker_set(const struct marker_io *io, const struct pa_journal *j,
	       const char *journal_path)
{
	return edit(io, j, journal_path, true);
}

int marker_clear(const struct marker_io *io, const struct pa_journal *j)
{
	return edit(io, j, NULL, false);
}
