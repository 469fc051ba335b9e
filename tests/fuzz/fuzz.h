/*
 * Shared by the fuzz harnesses of tests/fuzz: the libFuzzer entry point,
 * an in-memory image behind the read/write callbacks of label.c and
 * marker.c, and the CRC repairs that let mutated GPT headers reach the
 * parsers.  Each harness is built twice: against libFuzzer (make fuzz) and
 * with replay.c as a plain program that replays the corpus (make check).
 */
#ifndef PARTALIGN_FUZZ_H
#define PARTALIGN_FUZZ_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"
#include "shared/endian.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test: a failure is a finding, like a crash. */
#define FZ_ASSERT(c)                                                                     \
	do {                                                                             \
		if (!(c)) {                                                              \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,       \
				__LINE__, #c);                                           \
			abort();                                                         \
		}                                                                        \
	} while (0)

struct fz_image {
	unsigned char *buf;
	size_t len;
	unsigned int writes;
};

/* Reads past the end fail as a short device would (EIO). */
static inline int fz_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct fz_image *im = ctx;

	if (off > im->len || len > im->len - off)
		return -EIO;
	memcpy(buf, im->buf + off, len);
	return 0;
}

static inline int fz_write(void *ctx, uint64_t off, const void *buf, size_t len)
{
	struct fz_image *im = ctx;

	if (off > im->len || len > im->len - off)
		return -EIO;
	memcpy(im->buf + off, buf, len);
	im->writes++;
	return 0;
}

/*
 * Make the GPT header at @lba (if it has the signature) and its entry array
 * pass their CRC checks, whatever else the mutation did to them.
 */
static inline void fz_gpt_fix_at(unsigned char *img, size_t len, uint32_t logical,
				 uint64_t lba)
{
	unsigned char *h;
	uint64_t off, eoff, elen;
	uint32_t hsize;

	if (__builtin_mul_overflow(lba, (uint64_t)logical, &off) || off > len ||
	    len - off < 92)
		return;
	h = img + off;
	if (memcmp(h, "EFI PART", 8) != 0)
		return;
	elen = (uint64_t)get_le32(h + 80) * get_le32(h + 84);
	if (!__builtin_mul_overflow(get_le64(h + 72), (uint64_t)logical, &eoff) &&
	    eoff <= len && elen <= len - eoff)
		put_le32(h + 88, crc32_update(0, img + eoff, (size_t)elen));
	hsize = get_le32(h + 12);
	if (hsize >= 92 && hsize <= 512 && hsize <= len - off) {
		put_le32(h + 16, 0);
		put_le32(h + 16, crc32_update(0, h, hsize));
	}
}

/* Both headers: LBA 1, the last LBA, and the one the primary names. */
static inline void fz_gpt_fix(unsigned char *img, size_t len, uint32_t logical)
{
	uint64_t last = len / logical ? len / logical - 1 : 0;

	if (len >= 2ull * logical && memcmp(img + logical, "EFI PART", 8) == 0) {
		uint64_t alt = get_le64(img + logical + 32);

		if (alt != last && alt != 1)
			fz_gpt_fix_at(img, len, logical, alt);
	}
	if (last > 1)
		fz_gpt_fix_at(img, len, logical, last);
	fz_gpt_fix_at(img, len, logical, 1);
}

/* A NUL-terminated copy of the input. */
static inline char *fz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Write the input to a private file (for parsers that take a path); its name. */
const char *fz_file(const void *data, size_t size);

#endif
