/*
 * The LVM2 metadata readers of src/core/lvmmeta.c on an input that is the
 * start of a device: the PV label in its first four sectors, the mda_header
 * where the label says, the VG text where the header says (wrapping around
 * the ring buffer), as src/scan/lvm.c reads them.  The same input is also
 * parsed as VG text on its own.
 */
#include "config.h"

#include "fuzz.h"

#include "core/lvmmeta.h"

/* A copy of @len bytes at @off of the input, or NULL when it is not all there. */
static unsigned char *piece(const uint8_t *data, size_t size, uint64_t off, uint64_t len)
{
	unsigned char *b;

	if (off > size || len > size - off || len == 0)
		return NULL;
	b = malloc(len);
	if (b)
		memcpy(b, data + off, len);
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lvmmeta_pv pv;
	struct lvmmeta_text t;
	struct lvmmeta_vg vg;
	size_t head = size < LVMMETA_LABEL_LEN ? size : LVMMETA_LABEL_LEN;
	unsigned char *b = piece(data, size, 0, size);
	char *text;
	unsigned int i;
	uint64_t at = 0;
	int rc;

	rc = lvmmeta_vg_parse((const char *)b, b ? size : 0, NULL, &vg);
	FZ_ASSERT(rc == 0 || rc == -EINVAL);
	FZ_ASSERT(rc || (vg.extent_size && vg.extent_size % 512 == 0 && vg.name[0]));
	free(b);
	b = piece(data, size, 0, head);
	rc = lvmmeta_pv_parse(b, b ? head : 0, &pv);
	free(b);
	FZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOENT);
	if (rc)
		return 0;
	FZ_ASSERT(pv.sector < 4);
	FZ_ASSERT(!pv.mda_offset || pv.mda_offset + pv.mda_size >= pv.mda_offset);
	b = piece(data, size, pv.mda_offset, LVMMETA_MDA_HEADER_LEN);
	if (!b)
		return 0;
	rc = lvmmeta_mda_parse(b, LVMMETA_MDA_HEADER_LEN, &pv, &t);
	free(b);
	FZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -ENOENT || rc == -E2BIG);
	if (rc)
		return 0;
	FZ_ASSERT(t.n == 1 || t.n == 2);
	FZ_ASSERT(t.total == t.len[0] + (t.n == 2 ? t.len[1] : 0));
	FZ_ASSERT(t.total <= LVMMETA_TEXT_MAX);
	for (i = 0; i < t.n; i++)
		FZ_ASSERT(t.off[i] >= pv.mda_offset + 512 &&
			  t.off[i] + t.len[i] <= pv.mda_offset + pv.mda_size);
	text = malloc(t.total);
	if (!text)
		return 0;
	for (i = 0; i < t.n; i++) {
		if (t.off[i] > size || t.len[i] > size - t.off[i]) {
			free(text);
			return 0;
		}
		memcpy(text + at, data + t.off[i], t.len[i]);
		at += t.len[i];
	}
	rc = lvmmeta_vg_parse(text, t.total, &t, &vg);
	FZ_ASSERT(rc == 0 || rc == -EINVAL);
	free(text);
	return 0;
}
