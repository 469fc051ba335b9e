/*
 * The Oracle ASM header parser of src/core/asmhdr.c and the audit of
 * src/core/asm-audit.c.  The input is a device's first block (and, after it,
 * the bytes taken as its backup block), and also the text of a dump's
 * asm/MAJ:MIN file.  A header that parses as intact has every value in
 * range and a backup inside the first two allocation units; a copy compares
 * equal to itself; the audit of two devices carrying the blocks renders its
 * reasons within their bounds; a dump text that parses is written back and
 * parses to the same blocks.
 */
#include "config.h"

#include "fuzz.h"

#include "core/asm-audit.h"
#include "core/asmhdr.h"

static void check_header(const struct asm_hdr *h)
{
	uint64_t off;
	uint32_t blk;

	FZ_ASSERT(strlen(h->dskname) <= ASMHDR_NAME_MAX);
	FZ_ASSERT(strlen(h->grpname) <= ASMHDR_NAME_MAX);
	FZ_ASSERT(strlen(h->label) <= ASMHDR_LABEL_MAX);
	FZ_ASSERT(asmhdr_compare(h, h) == 0);
	if (h->kind != ASMHDR_HEADER) {
		FZ_ASSERT(asmhdr_backup_offset(h, &off, &blk) == -EINVAL);
		return;
	}
	FZ_ASSERT(h->secsize >= 512 && h->secsize <= 4096);
	FZ_ASSERT(h->blksize >= h->secsize && h->blksize <= ASMHDR_BLOCK);
	FZ_ASSERT(h->ausize >= 4u * h->blksize && h->ausize <= (64u << 20));
	FZ_ASSERT(asmhdr_status_name(h->hdrsts) != NULL);
	FZ_ASSERT(asmhdr_backup_offset(h, &off, &blk) == 0);
	FZ_ASSERT(off + h->blksize <= 2ull * h->ausize && off >= h->ausize);
}

static struct pa_dev *device(const char *name, const uint8_t *data, size_t size)
{
	struct pa_dev *d = device_new();
	uint64_t boff;

	if (!d)
		return NULL;
	d->name = strdup(name);
	d->path = strdup(name);
	d->kind = PA_KIND_DISK;
	d->size = 1ull << 30;
	d->topo.logical = size & 1 ? 4096 : 512;
	d->asm_hdr = calloc(1, sizeof(*d->asm_hdr));
	if (!d->name || !d->path || !d->asm_hdr) {
		device_free(d);
		return NULL;
	}
	asmhdr_take_first(d->asm_hdr, data, size < ASMHDR_BLOCK ? size : ASMHDR_BLOCK, 0,
			  &boff);
	if (boff && size > ASMHDR_BLOCK)
		asmhdr_take_backup(d->asm_hdr, data + ASMHDR_BLOCK, size - ASMHDR_BLOCK,
				   0);
	return d;
}

static void audit(const uint8_t *data, size_t size)
{
	struct pa_devlist l = {0};
	struct pa_asm_audit a;
	char text[PA_REASON_TEXT_MAX];
	size_t i;

	for (i = 0; i < 2; i++) {
		struct pa_dev *d = device(i ? "sdb" : "sda", data, size);

		if (!d || devlist_add(&l, d) < 0) {
			device_free(d);
			devlist_free(&l);
			return;
		}
		if (d->asm_hdr->first.read)
			check_header(&d->asm_hdr->first.h);
		if (d->asm_hdr->backup.read)
			check_header(&d->asm_hdr->backup.h);
	}
	if (asm_audit_run(&l, &a) == 0) {
		for (i = 0; i < a.n; i++) {
			FZ_ASSERT(reason_render(&a.v[i].why, text, sizeof(text), NULL,
						NULL) < sizeof(text));
			FZ_ASSERT(asm_audit_cmp(&a.v[i], &a.v[i]) == 0);
		}
		asm_audit_free(&a);
	}
	devlist_free(&l);
}

static void dump(const uint8_t *data, size_t size)
{
	struct asmhdr_dump *d = malloc(sizeof(*d)), *e = malloc(sizeof(*e));
	size_t need, i;
	char *text;

	if (!d || !e)
		goto out;
	if (asmhdr_dump_parse((const char *)data, size, d) != 0)
		goto out;
	need = asmhdr_dump_text(d, NULL, NULL, 0);
	text = malloc(need + 1);
	if (!text)
		goto out;
	FZ_ASSERT(asmhdr_dump_text(d, NULL, text, need + 1) == need);
	FZ_ASSERT(asmhdr_dump_parse(text, need, e) == 0);
	FZ_ASSERT(e->n == d->n);
	for (i = 0; i < d->n; i++) {
		FZ_ASSERT(e->b[i].offset == d->b[i].offset);
		FZ_ASSERT(e->b[i].error == d->b[i].error);
		FZ_ASSERT(e->b[i].len == d->b[i].len);
		FZ_ASSERT(memcmp(e->b[i].data, d->b[i].data, d->b[i].len) == 0);
	}
	free(text);
out:
	free(d);
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly @size bytes: a read past it is a heap error */
	uint8_t *b = calloc(1, size ? size : 1);
	struct asm_hdr h;

	if (!b)
		return 0;
	if (size)
		memcpy(b, data, size);
	if (asmhdr_parse(b, size, true, &h) == 0)
		check_header(&h);
	else
		FZ_ASSERT(size < ASMHDR_MIN_LEN);
	(void)asmhdr_table(b, size);
	audit(b, size);
	dump(b, size);
	free(b);
	return 0;
}
