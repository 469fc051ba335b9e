/*
 * Raw GPT and dos structures: enough parsing to know which sectors hold a
 * label, to show type and unique GUIDs, and to tell one disk's label from a
 * clone's (label_identity).  All reads go through a callback so the same
 * code reads the disk, the in-memory shadow and a backup file's regions.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/label.h"
#include "core/crc32.h"
#include "shared/endian.h"
#include "shared/hex.h"

/* The GPT header at @lba (1: the primary), checked for its signature. */
static int gpt_header(label_read_fn rd, void *ctx, uint32_t logical, uint64_t lba,
		      unsigned char *h)
{
	int rc = rd(ctx, lba * logical, h, 512);

	if (rc < 0)
		return rc;
	return memcmp(h, "EFI PART", 8) == 0 ? 0 : -ENOENT;
}

int label_gpt_extent(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *head_len,
		     uint64_t *tail_len)
{
	unsigned char h[512];
	uint64_t entries, array;
	int rc = gpt_header(rd, ctx, logical, 1, h);

	if (rc < 0)
		return rc;
	entries = (uint64_t)get_le32(h + 80) * get_le32(h + 84);
	array = (entries + logical - 1) / logical * logical;
	if (get_le64(h + 72) != 2 || array > (64u << 20))
		return -EOPNOTSUPP; /* entries away from LBA 2: not written by partalign
				     */
	*head_len = 2ull * logical + array;
	*tail_len = logical + array;
	return 0;
}

static bool is_extended(unsigned char type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

int label_dos_ebrs(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *ebrs,
		   size_t max)
{
	unsigned char s[512];
	uint64_t ext = 0, cur;
	size_t n = 0;
	int i, rc;

	rc = rd(ctx, 0, s, sizeof(s));
	if (rc < 0)
		return rc;
	if (s[510] != 0x55 || s[511] != 0xaa)
		return 0;
	for (i = 0; i < 4; i++)
		if (is_extended(s[446 + 16 * i + 4]))
			ext = get_le32(s + 446 + 16 * i + 8);
	if (!ext)
		return 0;
	cur = ext;
	while (n < max) {
		ebrs[n++] = cur * logical;
		rc = rd(ctx, cur * logical, s, sizeof(s));
		if (rc < 0)
			return rc;
		if (s[510] != 0x55 || s[511] != 0xaa || !is_extended(s[446 + 16 + 4]))
			break;
		cur = ext + get_le32(s + 446 + 16 + 8);
		if (cur * logical <= ebrs[n - 1])
			break; /* a loop or a backward link: stop */
	}
	return (int)n;
}

static void guid_text(const unsigned char *g, char out[37])
{
	/* the first three fields are little-endian on disk */
	snprintf(out, 37,
		 "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11],
		 g[12], g[13], g[14], g[15]);
}

static int gpt_identity_at(label_read_fn rd, void *ctx, uint32_t logical, uint64_t nsec,
			   uint64_t lba, struct label_id *id);

/*
 * The LBA of the GPT header libparted and the kernel read: the primary when
 * it is valid, else the backup (where the primary says, else at the last
 * LBA) when that is, else the primary all the same.
 */
static uint64_t gpt_header_used(label_read_fn rd, void *ctx, uint32_t logical,
				uint64_t disk_size)
{
	uint64_t nsec = logical ? disk_size / logical : 0, alt = nsec ? nsec - 1 : 0;
	struct label_id *id = malloc(sizeof(*id));
	unsigned char h[512];
	uint64_t lba = 1;

	if (!id || nsec < 3 || gpt_identity_at(rd, ctx, logical, nsec, 1, id) == 0)
		goto out;
	if (gpt_header(rd, ctx, logical, 1, h) == 0 && get_le64(h + 32) > 1 &&
	    get_le64(h + 32) < nsec)
		alt = get_le64(h + 32);
	if (gpt_identity_at(rd, ctx, logical, nsec, alt, id) == 0)
		lba = alt;
	else if (alt != nsec - 1 &&
		 gpt_identity_at(rd, ctx, logical, nsec, nsec - 1, id) == 0)
		lba = nsec - 1;
out:
	free(id);
	return lba;
}

int label_gpt_entry_guids(label_read_fn rd, void *ctx, uint32_t logical,
			  uint64_t disk_size, unsigned int num, char type[37],
			  char uuid[37])
{
	static const unsigned char zero[16];
	unsigned char h[512], e[128];
	uint32_t count, esize;
	int rc =
	    gpt_header(rd, ctx, logical, gpt_header_used(rd, ctx, logical, disk_size), h);

	if (rc < 0)
		return rc;
	count = get_le32(h + 80);
	esize = get_le32(h + 84);
	if (num == 0 || num > count || esize < 128)
		return -ENOENT;
	rc = rd(ctx, get_le64(h + 72) * logical + (uint64_t)(num - 1) * esize, e,
		sizeof(e));
	if (rc < 0)
		return rc;
	if (memcmp(e, zero, 16) == 0)
		return -ENOENT;
	guid_text(e, type);
	guid_text(e + 16, uuid);
	return 0;
}

int label_dos_system(label_read_fn rd, void *ctx, unsigned int num)
{
	unsigned char s[512];
	int rc;

	if (num < 1 || num > 4)
		return -ENOENT;
	rc = rd(ctx, 0, s, sizeof(s));
	if (rc < 0)
		return rc;
	if (s[510] != 0x55 || s[511] != 0xaa || s[446 + 16 * (num - 1) + 4] == 0)
		return -ENOENT;
	return s[446 + 16 * (num - 1) + 4];
}

/* ---- label identity ---- */

#define ID_BUF 4096		 /* largest header sector and entry size read */
#define ID_MAX_ARRAY (64u << 20) /* a bigger entry array is damage, not a label */

/*
 * The GPT header at @lba, if valid: signature, size, header CRC, its own
 * LBA, an entry array on the disk; then the entry array's CRC, collecting
 * the used entries into @id on the way.  0, -ENOENT (not valid) or -errno.
 */
static int gpt_identity_at(label_read_fn rd, void *ctx, uint32_t logical, uint64_t nsec,
			   uint64_t lba, struct label_id *id)
{
	static const unsigned char zero[16];
	unsigned char h[ID_BUF], buf[ID_BUF];
	uint32_t hsize, want, count, esize, crc = 0, per;
	uint64_t elba, total, done = 0;
	unsigned int num = 0;
	int rc;

	rc = rd(ctx, lba * logical, h, logical < ID_BUF ? logical : ID_BUF);
	if (rc < 0)
		return rc;
	if (memcmp(h, "EFI PART", 8) != 0)
		return -ENOENT;
	hsize = get_le32(h + 12);
	if (hsize < 92 || hsize > logical || hsize > ID_BUF || get_le64(h + 24) != lba)
		return -EBADMSG;
	want = get_le32(h + 16);
	memset(h + 16, 0, 4);
	if (crc32_update(0, h, hsize) != want)
		return -EBADMSG;
	elba = get_le64(h + 72);
	count = get_le32(h + 80);
	esize = get_le32(h + 84);
	total = (uint64_t)count * esize;
	if (esize < 128 || esize > ID_BUF || esize % 8 || total > ID_MAX_ARRAY ||
	    elba < 1 || elba >= nsec || total > (nsec - elba) * logical)
		return -EBADMSG;
	memset(id, 0, sizeof(*id));
	per = ID_BUF / esize * esize;
	while (done < total) {
		uint32_t len = total - done < per ? (uint32_t)(total - done) : per, o;

		rc = rd(ctx, elba * logical + done, buf, len);
		if (rc < 0)
			return rc;
		crc = crc32_update(crc, buf, len);
		for (o = 0; o < len; o += esize) {
			num++;
			if (memcmp(buf + o, zero, 16) == 0)
				continue;
			if (id->nparts == LABEL_ID_MAX_PARTS)
				return -E2BIG;
			id->parts[id->nparts].num = num;
			guid_text(buf + o + 16, id->parts[id->nparts++].guid);
		}
		done += len;
	}
	if (crc != get_le32(h + 88)) {
		memset(id, 0, sizeof(*id));
		return -EILSEQ;
	}
	id->kind = LABEL_ID_GPT;
	guid_text(h + 56, id->disk);
	id->entries_lba = elba;
	id->alternate_lba = get_le64(h + 32);
	return 0;
}

/* No header (-ENOENT), an invalid one (-EBADMSG), or a bad entry array (-EILSEQ). */
static bool gpt_invalid(int rc)
{
	return rc == -ENOENT || rc == -EBADMSG || rc == -EILSEQ;
}

static enum label_gpt_state gpt_state(int rc)
{
	switch (rc) {
	case -ENOENT:
		return LABEL_GPT_NO_HEADER;
	case -EBADMSG:
		return LABEL_GPT_BAD_HEADER;
	case -EILSEQ:
		return LABEL_GPT_BAD_ARRAY;
	default:
		return LABEL_GPT_OK; /* valid; -E2BIG: valid, only too many entries to
					list */
	}
}

int label_health(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
		 struct label_health *h)
{
	struct label_id *id = malloc(sizeof(*id));
	uint64_t nsec = logical ? disk_size / logical : 0;
	unsigned char s[512];
	int i, rc, rb;

	memset(h, 0, sizeof(*h));
	if (!id)
		return -ENOMEM;
	rc = nsec ? rd(ctx, 0, s, sizeof(s)) : 0;
	if (rc < 0 || !nsec || s[510] != 0x55 || s[511] != 0xaa)
		goto out;
	for (i = 0; i < 4; i++)
		h->pmbr |= s[446 + 16 * i + 4] == 0xee;
	if (!h->pmbr && nsec >= 3) {
		/* a dos table: is a GPT valid beside it, which others may prefer? */
		if (gpt_identity_at(rd, ctx, logical, nsec, 1, id) == 0)
			h->other_gpt = 1;
		else if (gpt_identity_at(rd, ctx, logical, nsec, nsec - 1, id) == 0)
			h->other_gpt = 2;
		rc = 0;
		goto out;
	}
	if (!h->pmbr || nsec < 3)
		goto out;
	for (i = 0; i < 4 && !h->hybrid_entry; i++) {
		unsigned char type = s[446 + 16 * i + 4];

		if (type != 0 && type != 0xee) {
			h->hybrid_entry = (unsigned int)i + 1;
			h->hybrid_type = type;
		}
	}
	rc = gpt_identity_at(rd, ctx, logical, nsec, 1, id);
	if (rc < 0 && !gpt_invalid(rc) && rc != -E2BIG)
		goto out;
	h->primary = gpt_state(rc);
	h->backup_lba = nsec - 1;
	if (rc == 0) {
		h->entries_lba = id->entries_lba;
		h->alternate_lba = id->alternate_lba;
		/* a grown LUN keeps its backup where the end was: not damage */
		if (id->alternate_lba > 1 && id->alternate_lba < nsec)
			h->backup_lba = id->alternate_lba;
	}
	rb = gpt_identity_at(rd, ctx, logical, nsec, h->backup_lba, id);
	if (rb < 0 && !gpt_invalid(rb) && rb != -E2BIG) {
		rc = rb;
		goto out;
	}
	h->backup = gpt_state(rb);
	if (rb == 0 && h->primary != LABEL_GPT_OK)
		h->backup_parts = id->nparts;
	rc = 0;
out:
	free(id);
	return rc;
}

static bool overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 <= b1 && b0 <= a1;
}

int label_check_entries(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
			char *why, size_t len)
{
	struct span {
		uint64_t first, last;
		unsigned int num;
	} v[LABEL_ID_MAX_PARTS];
	static const unsigned char zero[16];
	uint64_t nsec = logical ? disk_size / logical : 0, lba, elba, total, done = 0;
	unsigned char h[ID_BUF], buf[ID_BUF];
	uint32_t count, esize, per;
	size_t n = 0, i, j;
	unsigned int num = 0;
	int rc;

	why[0] = '\0';
	if (nsec < 3 || logical > ID_BUF)
		return 0;
	rc = rd(ctx, 0, buf, 512);
	if (rc < 0)
		return rc;
	if (buf[510] != 0x55 || buf[511] != 0xaa)
		return 0;
	if (buf[446 + 4] != 0xee && buf[446 + 16 + 4] != 0xee &&
	    buf[446 + 32 + 4] != 0xee && buf[446 + 48 + 4] != 0xee) {
		/* dos: the four primary entries */
		for (i = 0; i < 4; i++) {
			const unsigned char *e = buf + 446 + 16 * i;
			uint64_t first = get_le32(e + 8), size = get_le32(e + 12);

			if (!e[4] || !size)
				continue;
			if (first + size > nsec) {
				snprintf(why, len,
					 "partition %zu ends at sector %" PRIu64
					 ", past the "
					 "end of the disk (last sector %" PRIu64 ")",
					 i + 1, first + size - 1, nsec - 1);
				return 1;
			}
			v[n].first = first;
			v[n].last = first + size - 1;
			v[n++].num = (unsigned int)i + 1;
		}
		goto overlaps;
	}
	/* GPT: the entries of the header libparted would use, primary first */
	for (lba = 1;; lba = nsec - 1) {
		rc = rd(ctx, lba * logical, h, logical);
		if (rc < 0)
			return rc;
		if (memcmp(h, "EFI PART", 8) == 0 || lba == nsec - 1)
			break;
	}
	if (memcmp(h, "EFI PART", 8) != 0)
		return 0;
	elba = get_le64(h + 72);
	count = get_le32(h + 80);
	esize = get_le32(h + 84);
	total = (uint64_t)count * esize;
	if (esize < 128 || esize > ID_BUF || total > ID_MAX_ARRAY || elba >= nsec ||
	    total > (nsec - elba) * logical)
		return 0;
	per = ID_BUF / esize * esize;
	while (done < total && n < LABEL_ID_MAX_PARTS) {
		uint32_t chunk = total - done < per ? (uint32_t)(total - done) : per, o;

		rc = rd(ctx, elba * logical + done, buf, chunk);
		if (rc < 0)
			return rc;
		for (o = 0; o < chunk && n < LABEL_ID_MAX_PARTS; o += esize) {
			uint64_t first = get_le64(buf + o + 32),
				 last = get_le64(buf + o + 40);

			num++;
			if (memcmp(buf + o, zero, 16) == 0)
				continue;
			if (last >= nsec) {
				snprintf(why, len,
					 "partition %u ends at sector %" PRIu64
					 ", past the "
					 "end of the disk (last sector %" PRIu64 ")",
					 num, last, nsec - 1);
				return 1;
			}
			if (first > last || first < get_le64(h + 40) ||
			    last > get_le64(h + 48)) {
				snprintf(
				    why, len,
				    "partition %u (sectors %" PRIu64 "-%" PRIu64 ") lies "
				    "outside the usable sectors %" PRIu64 "-%" PRIu64
				    " of the GPT",
				    num, first, last, get_le64(h + 40), get_le64(h + 48));
				return 1;
			}
			v[n].first = first;
			v[n].last = last;
			v[n++].num = num;
		}
		done += chunk;
	}
overlaps:
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (overlap(v[i].first, v[i].last, v[j].first, v[j].last)) {
				snprintf(why, len,
					 "partitions %u (sectors %" PRIu64 "-%" PRIu64
					 ") and "
					 "%u (sectors %" PRIu64 "-%" PRIu64 ") overlap",
					 v[i].num, v[i].first, v[i].last, v[j].num,
					 v[j].first, v[j].last);
				return 1;
			}
	return 0;
}

int label_identity(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
		   struct label_id *id)
{
	unsigned char s[512];
	uint64_t nsec = logical ? disk_size / logical : 0;
	bool mbr, protective = false, boot_ok = true;
	int i, rc;

	memset(id, 0, sizeof(*id));
	if (logical < 512 || logical % 512)
		return -EINVAL;
	if (nsec < 1)
		return 0;
	rc = rd(ctx, 0, s, sizeof(s));
	if (rc < 0)
		return rc;
	mbr = s[510] == 0x55 && s[511] == 0xaa;
	for (i = 0; i < 4; i++) {
		protective |= s[446 + 16 * i + 4] == 0xee;
		boot_ok &= s[446 + 16 * i] == 0x00 || s[446 + 16 * i] == 0x80;
	}
	if (mbr && !protective) {
		if (!boot_ok)
			return 0; /* 55 AA, but a boot sector rather than a table */
		id->kind = LABEL_ID_DOS;
		snprintf(id->disk, sizeof(id->disk), "%08x", get_le32(s + 440));
		return 0;
	}
	if (nsec < 3)
		return 0; /* no room for a GPT */
	rc = gpt_identity_at(rd, ctx, logical, nsec, 1, id);
	if (gpt_invalid(rc)) {
		rc = gpt_identity_at(rd, ctx, logical, nsec, nsec - 1, id);
		id->backup_header = rc == 0;
	}
	if (gpt_invalid(rc)) {
		memset(id, 0, sizeof(*id));
		return 0;
	}
	if (rc < 0)
		memset(id, 0, sizeof(*id));
	return rc;
}

int label_identity_format(const struct label_id *id, char *buf, size_t len)
{
	int n;

	switch (id->kind) {
	case LABEL_ID_GPT:
		n = snprintf(buf, len, "gpt:%s", id->disk);
		break;
	case LABEL_ID_DOS:
		n = snprintf(buf, len, "dos:%s", id->disk);
		break;
	default:
		n = snprintf(buf, len, "none");
		break;
	}
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return -ENOSPC;
	}
	return n;
}

static bool all_of(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

int label_identity_parse(const char *s, struct label_id *id)
{
	static const char upper[] = "0123456789ABCDEF", lower[] = "0123456789abcdef";
	int i;

	memset(id, 0, sizeof(*id));
	if (strcmp(s, "none") == 0)
		return 0;
	if (strncmp(s, "dos:", 4) == 0 && strlen(s + 4) == 8 && all_of(s + 4, 8, lower)) {
		id->kind = LABEL_ID_DOS;
		memcpy(id->disk, s + 4, 9);
		return 0;
	}
	if (strncmp(s, "gpt:", 4) != 0 || strlen(s + 4) != 36)
		return -EINVAL;
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[4 + i] != '-' : !all_of(s + 4 + i, 1, upper))
			return -EINVAL;
	}
	id->kind = LABEL_ID_GPT;
	memcpy(id->disk, s + 4, 37);
	return 0;
}

bool label_identity_same(const struct label_id *a, const struct label_id *b)
{
	return a->kind == b->kind && strcmp(a->disk, b->disk) == 0;
}

/* ---- edits of GPT entries in place ---- */

/*
 * The valid GPT header at @lba into @h and its entry array into *arr (malloc'd,
 * *len bytes): 0, or -ENOENT, -EBADMSG (no valid header there), -errno.
 */
static int gpt_array_at(label_read_fn rd, void *ctx, uint32_t logical, uint64_t nsec,
			uint64_t lba, unsigned char *h, unsigned char **arr, size_t *len)
{
	struct label_id *id = malloc(sizeof(*id));
	uint64_t total;
	int rc;

	if (!id)
		return -ENOMEM;
	rc = gpt_identity_at(rd, ctx, logical, nsec, lba, id);
	free(id);
	if (rc < 0 && rc != -E2BIG)
		return rc;
	rc = rd(ctx, lba * logical, h, logical < ID_BUF ? logical : ID_BUF);
	if (rc < 0)
		return rc;
	total = (uint64_t)get_le32(h + 80) * get_le32(h + 84);
	*arr = malloc(total ? total : 1);
	if (!*arr)
		return -ENOMEM;
	*len = (size_t)total;
	rc = rd(ctx, get_le64(h + 72) * logical, *arr, *len);
	if (rc < 0) {
		free(*arr);
		*arr = NULL;
	}
	return rc;
}

int label_gpt_attrs(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
		    uint64_t *attrs, size_t max)
{
	uint64_t nsec = logical ? disk_size / logical : 0;
	unsigned char h[ID_BUF], *arr = NULL;
	size_t len = 0, i, esize;
	int rc = gpt_array_at(rd, ctx, logical, nsec, 1, h, &arr, &len);

	memset(attrs, 0, max * sizeof(*attrs));
	if (rc < 0)
		return rc;
	esize = get_le32(h + 84);
	for (i = 0; i < max && (i + 1) * esize <= len; i++)
		attrs[i] = get_le64(arr + i * esize + 48);
	free(arr);
	return 0;
}

int label_guid_parse(const char *text, unsigned char g[16])
{
	static const int at[16] = {6,  4,  2,  0,  11, 9,  16, 14,
				   19, 21, 24, 26, 28, 30, 32, 34};
	size_t i;

	if (strlen(text) != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
	    text[23] != '-')
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		int hi = hex_digit((char)tolower((unsigned char)text[at[i]]));
		int lo = hex_digit((char)tolower((unsigned char)text[at[i] + 1]));

		if (hi < 0 || lo < 0)
			return -EINVAL;
		g[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* Apply @e to the copy whose header is at @lba, its CRCs made again. */
static int edit_at(label_read_fn rd, label_write_fn wr, void *ctx, uint32_t logical,
		   uint64_t nsec, uint64_t lba, const struct label_gpt_edit *e, size_t n)
{
	unsigned char h[ID_BUF], *arr = NULL;
	size_t len = 0, i, esize;
	uint32_t hsize;
	int rc = gpt_array_at(rd, ctx, logical, nsec, lba, h, &arr, &len);

	if (rc < 0)
		return rc;
	esize = get_le32(h + 84);
	for (i = 0; i < n && (i + 1) * esize <= len; i++) {
		if (e[i].type_set)
			memcpy(arr + i * esize, e[i].type, 16);
		if (e[i].attrs_set)
			put_le64(arr + i * esize + 48, e[i].attrs);
	}
	put_le32(h + 88, crc32_update(0, arr, len));
	hsize = get_le32(h + 12);
	put_le32(h + 16, 0);
	put_le32(h + 16, crc32_update(0, h, hsize));
	rc = wr(ctx, get_le64(h + 72) * logical, arr, len);
	if (rc == 0)
		rc = wr(ctx, lba * logical, h, logical < ID_BUF ? logical : ID_BUF);
	free(arr);
	return rc;
}

int label_gpt_edit(label_read_fn rd, label_write_fn wr, void *ctx, uint32_t logical,
		   uint64_t disk_size, const struct label_gpt_edit *e, size_t n)
{
	uint64_t nsec = logical ? disk_size / logical : 0;
	unsigned char h[ID_BUF];
	uint64_t alt;
	int rc;

	rc = rd(ctx, logical, h, logical < ID_BUF ? logical : ID_BUF);
	if (rc < 0)
		return rc;
	alt = get_le64(h + 32);
	rc = edit_at(rd, wr, ctx, logical, nsec, 1, e, n);
	if (rc == 0 && alt > 1 && alt < nsec)
		rc = edit_at(rd, wr, ctx, logical, nsec, alt, e, n);
	return rc;
}
