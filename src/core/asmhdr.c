/*
 * The Oracle ASM disk header parser (core/asmhdr.h): the block header kfbh
 * and the disk header kfdhdb at the offsets kfed prints, every value checked
 * for range, the place of the backup copy in allocation unit 1, the
 * comparison of the two copies, and the text form in which a dump carries
 * the blocks.  No I/O: the scanner reads the bytes.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/asmhdr.h"
#include "shared/endian.h"
#include "shared/hex.h"

#define OFF_PROVSTR 0x20
#define OFF_LABEL 0x28
#define OFF_COMPAT 0x40
#define OFF_DSKNUM 0x44
#define OFF_GRPTYP 0x46
#define OFF_HDRSTS 0x47
#define OFF_DSKNAME 0x48
#define OFF_GRPNAME 0x68
#define OFF_FGNAME 0x88
#define OFF_SECSIZE 0xd8
#define OFF_BLKSIZE 0xda
#define OFF_AUSIZE 0xdc
#define OFF_DSKSIZE 0xe4

#define KFBH_HARD 0x82
#define KFBTYP_DISKHEAD 1
#define OBJ_DISK 0x80000000u
#define AU_MAX (64u << 20)

static uint16_t rd16(const unsigned char *p, bool be)
{
	return be ? get_be16(p) : get_le16(p);
}

static uint32_t rd32(const unsigned char *p, bool be)
{
	return be ? get_be32(p) : get_le32(p);
}

static bool pow2(uint64_t v)
{
	return v && (v & (v - 1)) == 0;
}

/*
 * A NUL-padded name of @n bytes into @out: printable ASCII up to the first
 * NUL (false when another byte comes first).  Trailing blanks go (ASMLib
 * pads its label with them).
 */
static bool take_name(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n && p[i]; i++) {
		if (p[i] < 0x20 || p[i] > 0x7e)
			break;
		out[i] = (char)p[i];
	}
	out[i] = '\0';
	if (i < n && p[i])
		return false;
	while (i && out[i - 1] == ' ')
		out[--i] = '\0';
	return true;
}

static void bad(struct asm_hdr *h, enum asmhdr_bad why, uint64_t value)
{
	if (h->bad != ASMHDR_BAD_NONE)
		return; /* the first one found */
	h->kind = ASMHDR_DAMAGED;
	h->bad = why;
	h->bad_value = value;
}

/* The values of a block whose kfbh says "disk header". */
static void check_values(struct asm_hdr *h, bool first)
{
	bool member = h->hdrsts == ASMHDR_ST_MEMBER;

	if (first && h->blk != 0)
		bad(h, ASMHDR_BAD_BLK, h->blk);
	if (!asmhdr_status_name(h->hdrsts))
		bad(h, ASMHDR_BAD_STATUS, h->hdrsts);
	if (member && h->obj != (OBJ_DISK | h->dsknum))
		bad(h, ASMHDR_BAD_OBJ, h->obj);
	if (member && (h->grptyp < 1 || h->grptyp > 5))
		bad(h, ASMHDR_BAD_GRPTYP, h->grptyp);
	if (member && (!h->dskname[0] || !h->grpname[0]))
		bad(h, ASMHDR_BAD_NONAME, 0);
	if (!pow2(h->secsize) || h->secsize < 512 || h->secsize > 4096)
		bad(h, ASMHDR_BAD_SECSIZE, h->secsize);
	if (!pow2(h->blksize) || h->blksize < 512 || h->blksize > ASMHDR_BLOCK ||
	    h->blksize < h->secsize)
		bad(h, ASMHDR_BAD_BLKSIZE, h->blksize);
	if (!pow2(h->ausize) || h->ausize > AU_MAX ||
	    (h->blksize && h->ausize < 4u * h->blksize))
		bad(h, ASMHDR_BAD_AUSIZE, h->ausize);
	if (member && h->dsksize < 2)
		bad(h, ASMHDR_BAD_DSKSIZE, h->dsksize);
}

int asmhdr_parse(const void *buf, size_t len, bool first, struct asm_hdr *h)
{
	const unsigned char *b = buf;
	bool names = true;

	memset(h, 0, sizeof(*h));
	if (len < ASMHDR_MIN_LEN)
		return -EINVAL;
	if (memcmp(b + OFF_PROVSTR, "ORCLCLRD", 8) == 0) {
		h->kind = ASMHDR_CLEARED;
		return 0;
	}
	h->provstr = memcmp(b + OFF_PROVSTR, "ORCLDISK", 8) == 0;
	if (h->provstr && !take_name(b + OFF_LABEL, ASMHDR_LABEL_MAX, h->label))
		h->label[0] = '\0'; /* not a label anyone could name a disk by */
	h->hard = b[1];
	h->type = b[2];
	h->datfmt = b[3];
	if (b[0] > 1 || h->hard != KFBH_HARD || h->type != KFBTYP_DISKHEAD) {
		h->kind = h->provstr ? ASMHDR_LABEL : ASMHDR_NONE;
		return 0;
	}
	h->kind = ASMHDR_HEADER;
	h->big_endian = b[0] == 0;
	h->blk = rd32(b + 0x04, h->big_endian);
	h->obj = rd32(b + 0x08, h->big_endian);
	h->check = rd32(b + 0x0c, h->big_endian);
	h->compat = rd32(b + OFF_COMPAT, h->big_endian);
	h->dsknum = rd16(b + OFF_DSKNUM, h->big_endian);
	h->grptyp = b[OFF_GRPTYP];
	h->hdrsts = b[OFF_HDRSTS];
	names &= take_name(b + OFF_DSKNAME, ASMHDR_NAME_MAX, h->dskname);
	names &= take_name(b + OFF_GRPNAME, ASMHDR_NAME_MAX, h->grpname);
	names &= take_name(b + OFF_FGNAME, ASMHDR_NAME_MAX, h->fgname);
	h->secsize = rd16(b + OFF_SECSIZE, h->big_endian);
	h->blksize = rd16(b + OFF_BLKSIZE, h->big_endian);
	h->ausize = rd32(b + OFF_AUSIZE, h->big_endian);
	h->dsksize = rd32(b + OFF_DSKSIZE, h->big_endian);
	if (!names)
		bad(h, ASMHDR_BAD_NAME, 0);
	check_values(h, first);
	return 0;
}

bool asmhdr_is_header(const struct asm_hdr *h)
{
	return h->kind == ASMHDR_HEADER || h->kind == ASMHDR_DAMAGED;
}

int asmhdr_backup_offset(const struct asm_hdr *h, uint64_t *offset, uint32_t *block)
{
	if (h->kind != ASMHDR_HEADER)
		return -EINVAL;
	*block = h->ausize / h->blksize - 2;
	*offset = (uint64_t)h->ausize + (uint64_t)*block * h->blksize;
	return 0;
}

enum asmhdr_table asmhdr_table(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	int i;

	if (len < 512 || b[510] != 0x55 || b[511] != 0xaa)
		return ASMHDR_TABLE_NONE;
	for (i = 0; i < 4; i++)
		if (b[446 + 16 * i + 4] == 0xee)
			return ASMHDR_TABLE_GPT;
	return ASMHDR_TABLE_DOS;
}

const char *asmhdr_table_name(enum asmhdr_table t)
{
	return t == ASMHDR_TABLE_GPT ? "GPT" : t == ASMHDR_TABLE_DOS ? "dos" : "none";
}

const char *asmhdr_status_name(uint8_t hdrsts)
{
	static const char *const names[] = {
	    [ASMHDR_ST_INVALID] = "INVALID",
	    [ASMHDR_ST_UNKNOWN] = "UNKNOWN",
	    [ASMHDR_ST_CANDIDATE] = "CANDIDATE",
	    [ASMHDR_ST_MEMBER] = "MEMBER",
	    [ASMHDR_ST_FORMER] = "FORMER",
	    [ASMHDR_ST_CONFLICT] = "CONFLICT",
	    [ASMHDR_ST_INCOMPAT] = "INCOMPATIBLE",
	    [ASMHDR_ST_PROVISIONED] = "PROVISIONED",
	    [ASMHDR_ST_FOREIGN] = "FOREIGN",
	};

	return hdrsts < sizeof(names) / sizeof(names[0]) ? names[hdrsts] : NULL;
}

const char *asmhdr_shown_status(const struct asm_hdr *h)
{
	switch (h->kind) {
	case ASMHDR_HEADER:
		return asmhdr_status_name(h->hdrsts);
	case ASMHDR_DAMAGED:
		return "damaged";
	case ASMHDR_LABEL:
		return "PROVISIONED";
	case ASMHDR_NONE:
	case ASMHDR_CLEARED:
		break;
	}
	return NULL;
}

unsigned int asmhdr_compare(const struct asm_hdr *p, const struct asm_hdr *b)
{
	unsigned int m = 0;

	if (p->kind != b->kind)
		m |= ASMHDR_F_KIND;
	if (!asmhdr_is_header(p) || !asmhdr_is_header(b))
		return m | (strcmp(p->label, b->label) ? ASMHDR_F_LABEL : 0);
#define DIFF(f, bit)                                                                     \
	if (p->f != b->f)                                                                \
	m |= (bit)
	DIFF(big_endian, ASMHDR_F_ENDIAN);
	DIFF(dsknum, ASMHDR_F_DSKNUM);
	DIFF(grptyp, ASMHDR_F_GRPTYP);
	DIFF(hdrsts, ASMHDR_F_HDRSTS);
	DIFF(secsize, ASMHDR_F_SECSIZE);
	DIFF(blksize, ASMHDR_F_BLKSIZE);
	DIFF(ausize, ASMHDR_F_AUSIZE);
	DIFF(dsksize, ASMHDR_F_DSKSIZE);
	DIFF(compat, ASMHDR_F_COMPAT);
	DIFF(obj, ASMHDR_F_OBJ);
#undef DIFF
	if (strcmp(p->label, b->label))
		m |= ASMHDR_F_LABEL;
	if (strcmp(p->dskname, b->dskname))
		m |= ASMHDR_F_DSKNAME;
	if (strcmp(p->grpname, b->grpname))
		m |= ASMHDR_F_GRPNAME;
	if (strcmp(p->fgname, b->fgname))
		m |= ASMHDR_F_FGNAME;
	return m;
}

const char *asmhdr_field_name(unsigned int bit)
{
	static const char *const names[ASMHDR_F_COUNT] = {
	    "endian",  "block type", "ASMLib label", "dsknum", "grptyp",
	    "hdrsts",  "dskname",    "grpname",	     "fgname", "secsize",
	    "blksize", "ausize",     "dsksize",	     "compat", "block.obj",
	};
	unsigned int i;

	for (i = 0; i < ASMHDR_F_COUNT; i++)
		if (bit == 1u << i)
			return names[i];
	return "?";
}

void asmhdr_bad_text(const struct asm_hdr *h, char *buf, size_t len)
{
	uint64_t v = h->bad_value;

	switch (h->bad) {
	case ASMHDR_BAD_NONE:
		snprintf(buf, len, "no bad value");
		break;
	case ASMHDR_BAD_BLK:
		snprintf(buf, len,
			 "block.blk %" PRIu64 " in the first block (expected 0)", v);
		break;
	case ASMHDR_BAD_OBJ:
		snprintf(buf, len,
			 "block.obj 0x%08" PRIx64 " does not name disk number %u", v,
			 (unsigned int)h->dsknum);
		break;
	case ASMHDR_BAD_STATUS:
		snprintf(buf, len, "hdrsts %" PRIu64 " is no known status", v);
		break;
	case ASMHDR_BAD_GRPTYP:
		snprintf(buf, len, "grptyp %" PRIu64 " is no known redundancy", v);
		break;
	case ASMHDR_BAD_NAME:
		snprintf(buf, len, "a name holds a byte that is not printable ASCII");
		break;
	case ASMHDR_BAD_NONAME:
		snprintf(buf, len, "a member without a disk or group name");
		break;
	case ASMHDR_BAD_SECSIZE:
		snprintf(buf, len,
			 "secsize %" PRIu64 " is not a power of two from 512 to 4096", v);
		break;
	case ASMHDR_BAD_BLKSIZE:
		snprintf(buf, len,
			 "blksize %" PRIu64
			 " is not a power of two from the sector size to 4096",
			 v);
		break;
	case ASMHDR_BAD_AUSIZE:
		snprintf(buf, len,
			 "ausize %" PRIu64
			 " is not a power of two from 4 blocks to 64 MiB",
			 v);
		break;
	case ASMHDR_BAD_DSKSIZE:
		snprintf(buf, len, "dsksize %" PRIu64 " allocation units", v);
		break;
	}
}

void asmhdr_take_first(struct pa_asm *a, const void *buf, size_t len, int err,
		       uint64_t *backup_off)
{
	*backup_off = 0;
	a->first.read = buf && asmhdr_parse(buf, len, true, &a->first.h) == 0;
	a->first.err = a->first.read ? 0 : err ? err : -EIO;
	a->first.offset = 0;
	a->table = a->first.read ? asmhdr_table(buf, len) : ASMHDR_TABLE_NONE;
	if (a->first.read &&
	    asmhdr_backup_offset(&a->first.h, &a->backup.offset, &a->backup.block) == 0) {
		a->backup_tried = true;
		*backup_off = a->backup.offset;
	}
}

void asmhdr_take_backup(struct pa_asm *a, const void *buf, size_t len, int err)
{
	a->backup.read = buf && asmhdr_parse(buf, len, false, &a->backup.h) == 0;
	a->backup.err = a->backup.read ? 0 : err ? err : -EIO;
}

bool asmhdr_found(const struct pa_asm *a)
{
	return a && a->first.read &&
	       (a->first.h.kind == ASMHDR_LABEL || asmhdr_is_header(&a->first.h));
}

/* ---- the dump text ---- */

/* The next line of @p..@end into @line (cut at its size); @p moves past it. */
static bool next_line(const char **p, const char *end, char *line, size_t size)
{
	const char *s = *p, *nl;
	size_t n;

	if (s >= end)
		return false;
	nl = memchr(s, '\n', (size_t)(end - s));
	n = nl ? (size_t)(nl - s) : (size_t)(end - s);
	*p = nl ? nl + 1 : end;
	if (n >= size)
		n = size - 1;
	memcpy(line, s, n);
	line[n] = '\0';
	return true;
}

static bool parse_u64(const char *s, char **end, uint64_t *v)
{
	unsigned long long x;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	x = strtoull(s, end, 10);
	if (errno)
		return false;
	*v = x;
	return true;
}

/* Hex bytes of one line into @b; false on anything else. */
static bool hex_line(const char *s, struct asmhdr_dump_block *b, uint64_t want)
{
	for (;;) {
		int h, l;

		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s)
			return true;
		h = hex_digit(s[0]);
		l = h < 0 ? -1 : hex_digit(s[1]);
		if (l < 0 || (s[2] && s[2] != ' ' && s[2] != '\t' && s[2] != '\r'))
			return false;
		if (b->len >= want)
			return false;
		b->data[b->len++] = (unsigned char)(h << 4 | l);
		s += 2;
	}
}

int asmhdr_dump_parse(const char *text, size_t len, struct asmhdr_dump *d)
{
	const char *p = text, *end = text + len;
	char line[256];
	struct asmhdr_dump_block *cur = NULL;
	uint64_t want = 0;
	char *e;

	d->n = 0;
	if (!next_line(&p, end, line, sizeof(line)) || strcmp(line, "partalign-asm 1"))
		return -EINVAL;
	while (next_line(&p, end, line, sizeof(line))) {
		uint64_t off, n;

		if (strncmp(line, "block ", 6) == 0 || strncmp(line, "error ", 6) == 0) {
			if ((cur && cur->len != want) || d->n >= ASMHDR_DUMP_MAX ||
			    !parse_u64(line + 6, &e, &off))
				return -EINVAL;
			cur = &d->b[d->n++];
			memset(cur, 0, sizeof(*cur));
			cur->offset = off;
			want = 0;
			if (line[0] == 'e') {
				cur->error = true;
				if (*e != ' ' && *e != '\0')
					return -EINVAL;
				continue;
			}
			if (*e != ' ' || !parse_u64(e + 1, &e, &n) || *e ||
			    n > ASMHDR_BLOCK)
				return -EINVAL;
			want = n;
			continue;
		}
		if (!cur || cur->error || !hex_line(line, cur, want))
			return -EINVAL;
	}
	return cur && cur->len != want ? -EINVAL : 0;
}

size_t asmhdr_dump_text(const struct asmhdr_dump *d, const char *const *why, char *buf,
			size_t len)
{
	size_t used = 0, i, k;

#define PUT(...)                                                                         \
	used += (size_t)snprintf(used < len ? buf + used : NULL,                         \
				 used < len ? len - used : 0, __VA_ARGS__)
	PUT("partalign-asm 1\n");
	for (i = 0; i < d->n && i < ASMHDR_DUMP_MAX; i++) {
		const struct asmhdr_dump_block *b = &d->b[i];

		if (b->error) {
			PUT("error %" PRIu64 " %s\n", b->offset,
			    why && why[i] ? why[i] : "cannot read");
			continue;
		}
		PUT("block %" PRIu64 " %zu\n", b->offset, b->len);
		for (k = 0; k < b->len && k < ASMHDR_BLOCK; k++)
			PUT(" %02x%s", b->data[k],
			    k % 16 == 15 || k + 1 == b->len ? "\n" : "");
	}
#undef PUT
	return used;
}

const struct asmhdr_dump_block *asmhdr_dump_find(const struct asmhdr_dump *d,
						 uint64_t offset)
{
	unsigned int i;

	for (i = 0; i < d->n && i < ASMHDR_DUMP_MAX; i++)
		if (d->b[i].offset == offset)
			return &d->b[i];
	return NULL;
}
