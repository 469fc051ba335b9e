/*
 * Raw GPT and dos structures: enough parsing to know which sectors hold a
 * label and to show type and unique GUIDs.  All reads go through a callback
 * so the same code reads the disk and the in-memory shadow.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply/label.h"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The primary GPT header, checked for its signature. */
static int gpt_header(label_read_fn rd, void *ctx, uint32_t logical, unsigned char *h)
{
	int rc = rd(ctx, logical, h, 512);

	if (rc < 0)
		return rc;
	return memcmp(h, "EFI PART", 8) == 0 ? 0 : -ENOENT;
}

int label_gpt_extent(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *head_len,
		     uint64_t *tail_len)
{
	unsigned char h[512];
	uint64_t entries, array;
	int rc = gpt_header(rd, ctx, logical, h);

	if (rc < 0)
		return rc;
	entries = (uint64_t)le32(h + 80) * le32(h + 84);
	array = (entries + logical - 1) / logical * logical;
	if (le64(h + 72) != 2 || array > (64u << 20))
		return -EOPNOTSUPP; /* entries away from LBA 2: not written by partalign */
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
			ext = le32(s + 446 + 16 * i + 8);
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
		cur = ext + le32(s + 446 + 16 + 8);
		if (cur * logical <= ebrs[n - 1])
			break; /* a loop or a backward link: stop */
	}
	return (int)n;
}

static void guid_text(const unsigned char *g, char out[37])
{
	/* the first three fields are little-endian on disk */
	snprintf(out, 37,
		 "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", g[3],
		 g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
}

int label_gpt_entry_guids(label_read_fn rd, void *ctx, uint32_t logical, unsigned int num,
			  char type[37], char uuid[37])
{
	static const unsigned char zero[16];
	unsigned char h[512], e[128];
	uint32_t count, esize;
	int rc = gpt_header(rd, ctx, logical, h);

	if (rc < 0)
		return rc;
	count = le32(h + 80);
	esize = le32(h + 84);
	if (num == 0 || num > count || esize < 128)
		return -ENOENT;
	rc = rd(ctx, le64(h + 72) * logical + (uint64_t)(num - 1) * esize, e, sizeof(e));
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
