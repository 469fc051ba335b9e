/*
 * The raw GPT and dos readers (src/core/label.c) on a hostile image: the
 * input is the whole disk (bit 0 of byte 0, boot code in an MBR, picks
 * 4096-byte sectors).  GPT header and entry-array CRCs are recomputed
 * first, so mutated headers reach the parsers.  An identity read must
 * round-trip through label_identity_format()/label_identity_parse().
 */
#include "config.h"

#include "fuzz.h"

#include "core/label.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im = {.len = size};
	uint32_t logical = size && (data[0] & 1) ? 4096 : 512;
	uint64_t head, tail, ebrs[64];
	struct label_id id, back;
	char type[37], uuid[37], text[64];
	unsigned int num;
	int rc, n, i;

	im.buf = malloc(size ? size : 1);
	if (!im.buf)
		abort();
	memcpy(im.buf, data, size);
	fz_gpt_fix(im.buf, im.len, logical);

	if (label_gpt_extent(fz_read, &im, logical, &head, &tail) == 0)
		FZ_ASSERT(head >= 2ull * logical && tail >= logical);
	n = label_dos_ebrs(fz_read, &im, logical, ebrs, 64);
	FZ_ASSERT(n <= 64);
	for (i = 1; i < n; i++)
		FZ_ASSERT(ebrs[i] > ebrs[i - 1]);
	for (num = 0; num <= 130; num += num < 8 ? 1 : 61)
		if (label_gpt_entry_guids(fz_read, &im, logical, im.len, num, type,
					  uuid) == 0)
			FZ_ASSERT(strlen(type) == 36 && strlen(uuid) == 36);
	for (num = 0; num <= 5; num++)
		label_dos_system(fz_read, &im, num);

	rc = label_identity(fz_read, &im, logical, im.len, &id);
	FZ_ASSERT(rc == 0 || rc == -E2BIG || rc == -EIO);
	if (rc == 0) {
		n = label_identity_format(&id, text, sizeof(text));
		FZ_ASSERT(n > 0 && (size_t)n < sizeof(text));
		FZ_ASSERT(label_identity_parse(text, &back) == 0);
		FZ_ASSERT(label_identity_same(&id, &back));
		FZ_ASSERT(id.nparts <= LABEL_ID_MAX_PARTS);
		for (i = 1; i < (int)id.nparts; i++)
			FZ_ASSERT(id.parts[i].num > id.parts[i - 1].num);
	}
	free(im.buf);
	return 0;
}
