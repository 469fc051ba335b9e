/*
 * The backup file (src/apply/backup.c, apply_backup_load from a file).
 * The first input byte picks the format: even 2 (the rest is the body and
 * the right trailing "crc32" line is appended), odd 1 (the rest as is).
 * A loaded backup then goes through apply_backup_order() and
 * apply_backup_check() against a sparse file of its size standing in for
 * the disk.
 */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "fuzz.h"

#include "apply/apply.h"
#include "core/label.h"

#define DISK_MAX (1ull << 30)

static void against_disk(const struct pa_backup *b)
{
	struct pa_disk d = {.fd = -1, .lockfd = -1};
	struct pa_extent *save = NULL;
	size_t nsave = 0;
	uint64_t bad = 0;
	char path[] = "/tmp/partalign-fuzz-disk-XXXXXX";
	int rc;

	if (b->size > DISK_MAX)
		return;
	d.fd = mkstemp(path);
	if (d.fd < 0)
		abort();
	unlink(path);
	if (ftruncate(d.fd, (off_t)b->size) < 0)
		abort();
	d.path = path;
	d.size = b->size;
	d.logical = b->logical;
	d.physical = b->logical;
	rc = apply_backup_check(b, &d, &bad, &save, &nsave);
	FZ_ASSERT(rc != -ERANGE || bad < b->size);
	free(save);
	close(d.fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pa_backup b;
	struct pa_extent *regs;
	void **bufs;
	size_t n, i;
	char *buf;
	size_t len;

	if (size < 1)
		return 0;
	buf = malloc(size + 16);
	if (!buf)
		abort();
	len = size - 1;
	memcpy(buf, data + 1, len);
	if (data[0] % 2 == 0)
		len +=
		    (size_t)sprintf(buf + len, "crc32 %08x\n", crc32_update(0, buf, len));
	if (apply_backup_load(fz_file(buf, len), &b) == 0) {
		FZ_ASSERT(b.n > 0 && b.label);
		for (i = 0; i < b.n; i++)
			FZ_ASSERT(b.regs[i].len > 0 &&
				  b.regs[i].off + b.regs[i].len <= b.size);
		if (apply_backup_order(&b, &regs, &bufs, &n) == 0) {
			free(regs);
			free(bufs);
		}
		against_disk(&b);
		apply_backup_free(&b);
	}
	free(buf);
	return 0;
}
