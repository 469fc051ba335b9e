/*
 * LVM2 PV label, mda_header and VG text readers (lvmmeta.h).  The layouts
 * are LVM2's format_text on-disk format: all integers little-endian, the
 * label and header checksums LVM's CRC-32 (the IEEE polynomial from the
 * initial value 0xf597a6cf, no final inversion), the text a sequence of
 * "key = value" and "name { ... }" with # comments.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/crc32.h"
#include "core/lvmmeta.h"
#include "shared/endian.h"

#define SECTOR 512u
#define LABEL_ID "LABELONE"
#define LABEL_TYPE "LVM2 001"
#define LABEL_OFF_SECTOR 8
#define LABEL_OFF_CRC 16
#define LABEL_OFF_OFFSET 20
#define LABEL_OFF_TYPE 24
#define LABEL_HEADER_LEN 32
#define PV_UUID_LEN 32
#define LOCN_LEN 16 /* disk_locn: offset, size */
#define MDA_MAGIC " LVM2 x[5A%r0N*>"
#define MDA_OFF_MAGIC 4
#define MDA_OFF_VERSION 20
#define MDA_OFF_START 24
#define MDA_OFF_SIZE 32
#define MDA_OFF_RAW 40 /* raw_locn: offset, size, checksum, flags */
#define RAW_IGNORED 1u
#define LVM_CRC_INIT 0xf597a6cfu

/* LVM's calc_crc(): crc32_update() inverts before and after, LVM does not */
static uint32_t lvm_crc(uint32_t crc, const void *buf, size_t len)
{
	return ~crc32_update(~crc, buf, len);
}

int lvmmeta_pv_parse(const void *buf, size_t len, struct lvmmeta_pv *pv)
{
	const unsigned char *b = buf;
	unsigned int s;

	memset(pv, 0, sizeof(*pv));
	for (s = 0; s < 4 && b && (size_t)(s + 1) * SECTOR <= len; s++) {
		const unsigned char *l = b + (size_t)s * SECTOR, *p, *end = l + SECTOR;
		uint32_t off;

		if (memcmp(l, LABEL_ID, 8) != 0)
			continue;
		if (get_le64(l + LABEL_OFF_SECTOR) != s ||
		    memcmp(l + LABEL_OFF_TYPE, LABEL_TYPE, 8) != 0 ||
		    get_le32(l + LABEL_OFF_CRC) != lvm_crc(LVM_CRC_INIT,
							   l + LABEL_OFF_OFFSET,
							   SECTOR - LABEL_OFF_OFFSET))
			return -EINVAL;
		/* the pv_header: uuid, device size, then two lists of disk_locn
		   (data areas, metadata areas), each ended by a zero entry, all
		   inside the label's sector */
		off = get_le32(l + LABEL_OFF_OFFSET);
		if (off < LABEL_HEADER_LEN ||
		    off > SECTOR - PV_UUID_LEN - 8 - 2 * LOCN_LEN)
			return -EINVAL;
		pv->sector = s;
		p = l + off + PV_UUID_LEN;
		pv->device_size = get_le64(p);
		p += 8;
		if (get_le64(p) == 0 && get_le64(p + 8) == 0)
			return -EINVAL; /* no data area: no PE 0 */
		pv->pe_start = get_le64(p);
		while (p + LOCN_LEN <= end && (get_le64(p) || get_le64(p + 8)))
			p += LOCN_LEN;
		if (p + LOCN_LEN > end)
			return -EINVAL;
		p += LOCN_LEN;
		if (p + LOCN_LEN <= end && get_le64(p)) {
			pv->mda_offset = get_le64(p);
			pv->mda_size = get_le64(p + 8);
			if (pv->mda_size < 2 * SECTOR ||
			    pv->mda_offset > UINT64_MAX - pv->mda_size)
				return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

int lvmmeta_mda_parse(const void *buf, size_t len, const struct lvmmeta_pv *pv,
		      struct lvmmeta_text *t)
{
	const unsigned char *b = buf;
	uint64_t start, size, off, tlen;

	memset(t, 0, sizeof(*t));
	if (!b || len < LVMMETA_MDA_HEADER_LEN || !pv->mda_offset)
		return -EINVAL;
	if (memcmp(b + MDA_OFF_MAGIC, MDA_MAGIC, 16) != 0 ||
	    get_le32(b + MDA_OFF_VERSION) != 1 ||
	    get_le32(b) != lvm_crc(LVM_CRC_INIT, b + MDA_OFF_MAGIC,
				   LVMMETA_MDA_HEADER_LEN - MDA_OFF_MAGIC))
		return -EINVAL;
	start = get_le64(b + MDA_OFF_START);
	size = get_le64(b + MDA_OFF_SIZE);
	/* the header describes the area the label points to */
	if (start != pv->mda_offset || size != pv->mda_size)
		return -EINVAL;
	off = get_le64(b + MDA_OFF_RAW);
	tlen = get_le64(b + MDA_OFF_RAW + 8);
	if ((off == 0 && tlen == 0) || (get_le32(b + MDA_OFF_RAW + 20) & RAW_IGNORED))
		return -ENOENT;
	/* the ring buffer is [SECTOR, size) of the area */
	if (off < SECTOR || off >= size || tlen == 0 || tlen > size - SECTOR)
		return -EINVAL;
	if (tlen > LVMMETA_TEXT_MAX)
		return -E2BIG;
	t->checksum = get_le32(b + MDA_OFF_RAW + 16);
	t->total = tlen;
	t->off[0] = start + off; /* start + size does not wrap (pv_parse) */
	if (tlen <= size - off) {
		t->n = 1;
		t->len[0] = tlen;
	} else {
		t->n = 2;
		t->len[0] = size - off;
		t->off[1] = start + SECTOR;
		t->len[1] = tlen - t->len[0];
	}
	return 0;
}

/* ---- the VG text ---- */

struct text {
	const char *p, *end;
};

static void skip_blank(struct text *x)
{
	while (x->p < x->end) {
		if (*x->p == '#') {
			while (x->p < x->end && *x->p != '\n')
				x->p++;
		} else if (*x->p == ' ' || *x->p == '\t' || *x->p == '\n' ||
			   *x->p == '\r') {
			x->p++;
		} else {
			break;
		}
	}
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' || c == '-';
}

/* A name: its length (0: none), x->p after it. */
static size_t name(struct text *x, const char **at)
{
	const char *s;

	skip_blank(x);
	s = x->p;
	while (x->p < x->end && is_name_char(*x->p))
		x->p++;
	*at = s;
	return (size_t)(x->p - s);
}

static bool punct(struct text *x, char c)
{
	skip_blank(x);
	if (x->p < x->end && *x->p == c) {
		x->p++;
		return true;
	}
	return false;
}

/* A "string" with backslash escapes. */
static bool skip_string(struct text *x)
{
	if (!punct(x, '"'))
		return false;
	while (x->p < x->end && *x->p != '"')
		x->p += *x->p == '\\' && x->p + 1 < x->end ? 2 : 1;
	if (x->p >= x->end)
		return false;
	x->p++;
	return true;
}

/* A value: a number, string or [array of them]. */
static bool skip_value(struct text *x)
{
	const char *s;

	skip_blank(x);
	if (x->p < x->end && *x->p == '"')
		return skip_string(x);
	if (punct(x, '[')) {
		while (!punct(x, ']')) {
			skip_blank(x);
			if (x->p < x->end && *x->p == '"') {
				if (!skip_string(x))
					return false;
			} else if (!name(x, &s)) {
				return false;
			}
			punct(x, ',');
		}
		return true;
	}
	return name(x, &s) > 0;
}

/* The rest of a section whose "{" was read, nested sections included. */
static bool skip_section(struct text *x)
{
	unsigned int depth = 1;
	const char *s;

	while (depth) {
		if (punct(x, '}')) {
			depth--;
		} else if (!name(x, &s)) {
			return false;
		} else if (punct(x, '{')) {
			if (++depth > 64)
				return false;
		} else if (!punct(x, '=') || !skip_value(x)) {
			return false;
		}
	}
	return true;
}

static bool decimal(const char *s, size_t n, uint64_t *v)
{
	size_t i;

	*v = 0;
	if (!n || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || __builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, (uint64_t)(s[i] - '0'), v))
			return false;
	}
	return true;
}

int lvmmeta_vg_parse(const char *text, size_t len, const struct lvmmeta_text *t,
		     struct lvmmeta_vg *vg)
{
	struct text x;
	const char *s, *v;
	size_t n, vn;
	uint64_t ext = 0;

	memset(vg, 0, sizeof(*vg));
	if (!text || !len)
		return -EINVAL;
	x = (struct text){.p = text, .end = text + len};
	if (t && (t->total != len || lvm_crc(LVM_CRC_INIT, text, len) != t->checksum))
		return -EINVAL;
	/* "VGNAME {" first, the VG's keys at its top level */
	n = name(&x, &s);
	if (!n || n > LVMMETA_VG_NAME_MAX || !punct(&x, '{'))
		return -EINVAL;
	memcpy(vg->name, s, n);
	vg->name[n] = '\0';
	while (!punct(&x, '}')) {
		n = name(&x, &s);
		if (!n)
			return -EINVAL;
		if (punct(&x, '{')) {
			if (!skip_section(&x))
				return -EINVAL;
			continue;
		}
		if (!punct(&x, '='))
			return -EINVAL;
		skip_blank(&x);
		v = x.p;
		if (!skip_value(&x))
			return -EINVAL;
		vn = (size_t)(x.p - v);
		if (n == 11 && memcmp(s, "extent_size", 11) == 0 &&
		    (!decimal(v, vn, &ext) || __builtin_mul_overflow(ext, 512, &ext)))
			return -EINVAL;
	}
	if (!ext)
		return -EINVAL;
	vg->extent_size = ext;
	return 0;
}
