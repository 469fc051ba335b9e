/*
 * The move marker (src/core/marker.c) on a hostile image: marker_find, then,
 * for up to three partition numbers and a move id taken from the first
 * input bytes (each move from where its entry is), marker_originals,
 * marker_set, marker_reveal (every other input) and marker_clear through an
 * in-memory read/write callback.  GPT CRCs are recomputed first (bit 0 of
 * byte 0 of the rest picks 4096-byte sectors).
 *
 * After marker_set the image must carry a marker that matches the move;
 * after marker_clear, none.  On an image that carried no marker, whose GPT
 * copies (if two) hold the same entry array, and whose last four entries
 * are unused and zero (dos: whose moved entries have no CHS values, which
 * the hidden form reuses), marker_clear must give back the original bytes.
 */
#include "config.h"

#include "fuzz.h"

#include "core/marker.h"

#define HDR 12 /* move id (8), three partition numbers (1 each), path length (1) */

/* The entry array of the GPT header at @lba if it looks valid, else NULL. */
static const unsigned char *array_at(const struct fz_image *im, uint32_t logical,
				     uint64_t lba, uint64_t *len, uint32_t *esize)
{
	const unsigned char *h;
	uint64_t off = lba * logical, eoff;

	if (lba == 0 || off > im->len || im->len - off < 92)
		return NULL;
	h = im->buf + off;
	if (memcmp(h, "EFI PART", 8) != 0)
		return NULL;
	*esize = get_le32(h + 84);
	*len = (uint64_t)get_le32(h + 80) * *esize;
	if (__builtin_mul_overflow(get_le64(h + 72), (uint64_t)logical, &eoff) ||
	    eoff > im->len || *len > im->len - eoff || *esize < 128)
		return NULL;
	return im->buf + eoff;
}

/*
 * Where entry @num is, from the primary GPT array (or the backup's), else
 * the dos sector: a move's old place must be the entry's for marker_set.
 */
static bool entry_place(const struct fz_image *im, uint32_t logical, unsigned int num,
			uint64_t *from, uint64_t *len)
{
	const unsigned char *a;
	uint64_t alen, last = im->len / logical - 1;
	uint32_t es;

	a = array_at(im, logical, 1, &alen, &es);
	if (!a && last)
		a = array_at(im, logical, last, &alen, &es);
	if (a) {
		const unsigned char *e;
		uint64_t f, l;

		if (num == 0 || (uint64_t)num * es > alen)
			return false;
		e = a + (uint64_t)(num - 1) * es;
		f = get_le64(e + 32);
		l = get_le64(e + 40);
		if (f > l || l >= im->len / logical)
			return false;
		*from = f * logical;
		*len = (l - f + 1) * logical;
		return true;
	}
	if (num < 1 || num > 4)
		return false;
	*from = (uint64_t)get_le32(im->buf + 446 + 16 * (num - 1) + 8) * logical;
	*len = (uint64_t)get_le32(im->buf + 446 + 16 * (num - 1) + 12) * logical;
	return true;
}

/* dos: a hidden entry keeps its length in the CHS bytes, which clear zeroes. */
static bool chs_zero(const struct fz_image *im, const struct pa_journal *j)
{
	size_t m;

	for (m = 0; m < j->n; m++) {
		const unsigned char *e;

		if (j->v[m].num < 1 || j->v[m].num > 4)
			continue;
		e = im->buf + 446 + 16 * (j->v[m].num - 1);
		if (e[1] || e[2] || e[3] || e[5] || e[6] || e[7])
			return false;
	}
	return true;
}

/* Can the round trip be exact on this image?  (See the top of the file.) */
static bool exact_possible(const struct fz_image *im, uint32_t logical)
{
	const unsigned char *a[2];
	uint64_t len[2] = {0, 0}, last = im->len / logical - 1;
	uint32_t es[2] = {0, 0};
	int k;

	a[0] = array_at(im, logical, 1, &len[0], &es[0]);
	if (a[0] && get_le64(im->buf + logical + 32) != 1)
		last = get_le64(im->buf + logical + 32);
	a[1] = array_at(im, logical, last, &len[1], &es[1]);
	if (a[0] && a[1] && (len[0] != len[1] || memcmp(a[0], a[1], len[0]) != 0))
		return false;
	for (k = 0; k < 2; k++) {
		uint64_t i;

		if (!a[k])
			continue;
		if (len[k] < 4ull * es[k])
			return false;
		for (i = len[k] - 4ull * es[k]; i < len[k]; i++)
			if (a[k][i])
				return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;
	struct marker_io io = {.rd = fz_read, .wr = fz_write};
	struct pa_journal j = {0};
	struct pa_marker m;
	unsigned char *orig;
	char path[256];
	size_t i, plen;
	bool exact;
	int found, rc;

	if (size < HDR + 512)
		return 0;
	im.len = size - HDR;
	im.writes = 0;
	im.buf = malloc(im.len);
	orig = malloc(im.len);
	if (!im.buf || !orig)
		abort();
	memcpy(im.buf, data + HDR, im.len);
	io.logical = im.buf[0] & 1 ? 4096 : 512;
	io.size = im.len / io.logical * io.logical;
	io.ctx = &im;
	if (io.size < io.logical)
		goto out;
	fz_gpt_fix(im.buf, im.len, io.logical);
	memcpy(orig, im.buf, im.len);
	exact = exact_possible(&im, io.logical);

	found = marker_find(&io, &m);
	FZ_ASSERT(found == 0 || found == 1 || found == -EIO || found == -ENOMEM);
	if (found == 1)
		FZ_ASSERT(m.n <= 128 && strlen(m.journal) <= PA_MARKER_PATH_MAX);

	memcpy(&j.move_id, data, 8);
	if (!j.move_id)
		j.move_id = 1;
	j.logical = io.logical;
	j.disk_size = io.size;
	j.v = calloc(3, sizeof(*j.v));
	if (!j.v)
		abort();
	/* each move from where its entry is (when the image says), by 1 to 64 sectors */
	for (i = 0; i < 3 && data[8 + i]; i++) {
		uint64_t from = (i + 1) << 20, len = 4096;

		entry_place(&im, io.logical, data[8 + i], &from, &len);
		j.v[j.n++] = (struct pa_jmove){.num = data[8 + i],
					       .from = from,
					       .to = from + (uint64_t)(data[i] % 64 + 1) *
								io.logical,
					       .len = len,
					       .chunk = 4096};
	}
	plen = data[11];
	memset(path, 'j', sizeof(path));
	path[plen] = '\0';

	if (j.n == 0 || marker_originals(&io, &j) < 0)
		goto out;
	exact = exact && chs_zero(&im, &j);
	rc = marker_set(&io, &j, path);
	if (rc < 0)
		goto out;
	FZ_ASSERT(marker_find(&io, &m) == 1);
	FZ_ASSERT(marker_matches(&m, &j) || found == 1);
	/* what the shadow shows libparted is still marked, and clears the same */
	if (found == 0 && data[11] & 1) {
		FZ_ASSERT(marker_reveal(&io) == 0);
		FZ_ASSERT(marker_find(&io, &m) == 1);
	}
	rc = marker_clear(&io, &j);
	FZ_ASSERT(rc == 0);
	FZ_ASSERT(marker_find(&io, &m) == 0 || found == 1);
	if (found == 0 && exact && memcmp(orig, im.buf, im.len) != 0) {
		for (i = 0; orig[i] == im.buf[i]; i++)
			;
		fprintf(stderr,
			"byte %zu: %02x before marker_set, %02x after marker_clear\n", i,
			orig[i], im.buf[i]);
		FZ_ASSERT(!"marker_clear gave back the original image");
	}
out:
	journal_free(&j);
	free(orig);
	free(im.buf);
	return 0;
}
