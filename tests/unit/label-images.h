/*
 * GPT and dos disk images built byte by byte in memory, for the unit tests
 * of src/core/label.c and src/apply/backup.c.  The CRCs come from a bitwise CRC-32
 * here, not from the code under test.
 */
#ifndef PARTALIGN_TEST_LABEL_IMAGES_H
#define PARTALIGN_TEST_LABEL_IMAGES_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

struct img {
	unsigned char *b;
	uint64_t size;
	int fail; /* nonzero: every read fails with this -errno */
	unsigned int reads;
};

static inline int rd_img(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct img *m = ctx;

	m->reads++;
	if (m->fail)
		return m->fail;
	if (off > m->size || len > m->size - off)
		return -EIO;
	memcpy(buf, m->b + off, len);
	return 0;
}

static inline uint32_t crc32_bitwise(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
	p[2] = v >> 16 & 0xff;
	p[3] = v >> 24 & 0xff;
}

static inline void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline struct img img_new(uint64_t size)
{
	struct img m = {.b = calloc(1, size), .size = size};

	assert_non_null(m.b);
	return m;
}

static inline void mbr_entry(unsigned char *s0, int i, unsigned char boot,
			     unsigned char type, uint32_t start, uint32_t len)
{
	unsigned char *e = s0 + 446 + 16 * i;

	e[0] = boot;
	e[4] = type;
	put32(e + 8, start);
	put32(e + 12, len);
	s0[510] = 0x55;
	s0[511] = 0xaa;
}

/* A GPT disk GUID and unique GUIDs: bytes base, base+1, ... base+15. */
static inline void guid_bytes(unsigned char *g, unsigned char base)
{
	int i;

	for (i = 0; i < 16; i++)
		g[i] = (unsigned char)(base + i);
}

/* One GPT header at @lba with its entry array at @elba (@count entries of @esize). */
static inline void gpt_header(struct img *m, uint32_t l, uint64_t lba, uint64_t alt,
			      uint64_t elba, uint32_t count, uint32_t esize)
{
	unsigned char *h = m->b + lba * l;
	uint64_t nsec = m->size / l;
	uint64_t arr = ((uint64_t)count * esize + l - 1) / l;

	memset(h, 0, l);
	memcpy(h, "EFI PART", 8);
	put32(h + 8, 0x00010000);
	put32(h + 12, 92);
	put64(h + 24, lba);
	put64(h + 32, alt);
	put64(h + 40, 2 + arr);
	put64(h + 48, nsec - 2 - arr);
	guid_bytes(h + 56, 0xa0);
	put64(h + 72, elba);
	put32(h + 80, count);
	put32(h + 84, esize);
	put32(h + 88, crc32_bitwise(m->b + elba * l, (size_t)count * esize));
	put32(h + 16, crc32_bitwise(h, 92));
}

/*
 * A whole GPT (protective MBR, both headers, both arrays) on a disk of
 * @size bytes with @l-byte sectors; entries @used[] (1-based numbers, 0
 * ends the list) get unique GUID bytes 0x10*num, 0x10*num+1, ...
 */
static inline struct img gpt_image(uint64_t size, uint32_t l, uint32_t count,
				   const unsigned *used)
{
	struct img m = img_new(size);
	uint64_t nsec = size / l, arr = ((uint64_t)count * 128 + l - 1) / l;
	unsigned int i;

	mbr_entry(m.b, 0, 0, 0xee, 1, (uint32_t)(nsec - 1));
	for (i = 0; used[i]; i++) {
		unsigned char *p = m.b + 2 * l + (uint64_t)(used[i] - 1) * 128;
		unsigned char *q =
		    m.b + (nsec - 1 - arr) * l + (uint64_t)(used[i] - 1) * 128;

		guid_bytes(p, 0x55);				     /* type */
		guid_bytes(p + 16, (unsigned char)(0x10 * used[i])); /* unique */
		put64(p + 32, 2048 * used[i]);
		put64(p + 40, 2048 * used[i] + 1000);
		memcpy(q, p, 128);
	}
	gpt_header(&m, l, 1, nsec - 1, 2, count, 128);
	gpt_header(&m, l, nsec - 1, 1, nsec - 1 - arr, count, 128);
	return m;
}

#endif
