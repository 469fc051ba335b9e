/*
 * Unit tests of the table backup file (src/apply/backup.c) on disk images
 * in temporary files: format 2 written and read back with every field; its
 * trailing CRC-32 recomputed here with a bitwise CRC; every truncation and
 * every one-bit change of a file refused with -EBADMSG; a format-1 file
 * written by hand still read; and apply_backup_check(): which regions are
 * label sectors of the backed-up table or of the table on the disk.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "unit.h"
#include "label-images.h"

#include "apply/apply.h"
#include "core/label.h"

#define DISK_GUID "A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF"

struct fixture {
	char dir[64];
	char image[80];
	struct img m;
	struct pa_disk d;
};

/* The image @m as the disk of @f (a temporary file; the descriptor reads it). */
static void disk_of(struct fixture *f, struct img m, uint32_t logical)
{
	int fd;

	snprintf(f->dir, sizeof(f->dir), "%s/pa-unit-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->image, sizeof(f->image), "%s/disk.img", f->dir);
	fd = open(f->image, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, m.b, m.size, 0), (ssize_t)m.size);
	f->m = m;
	f->d = (struct pa_disk){.fd = fd,
				.lockfd = -1,
				.path = "/dev/unit-disk",
				.size = m.size,
				.logical = logical,
				.physical = logical};
}

static void fixture_free(struct fixture *f)
{
	char cmd[200];

	close(f->d.fd);
	free(f->m.b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void spit(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static const unsigned used13[] = {1, 3, 0};

/* GPT regions of a 4 MiB, 512-byte disk: 34 sectors at the start, 33 at the end. */
static const struct pa_extent gpt_regs[] = {
    {.off = 0, .len = 34 * 512},
    {.off = 4 * MiB - 33 * 512, .len = 33 * 512},
};

static void test_save_load(void **state)
{
	struct fixture f;
	struct label_id after;
	struct pa_backup b;
	unsigned char *file;
	char *path = NULL, want[32];
	size_t len;

	disk_of(&f, gpt_image(4 * MiB, 512, 128, used13), 512);
	assert_int_equal(label_identity_parse("dos:0a0b0c0d", &after), 0);
	assert_int_equal(apply_backup_save(&f.d, f.dir, "serial:XYZ", gpt_regs, 2, &after,
					   0x0123456789abcdefull, &path),
			 0);
	assert_non_null(strstr(path, "/serial:XYZ-"));

	/* the layout, checked here without the loader */
	file = slurp(path, &len);
	assert_true(len > 15 + 34 * 512 + 33 * 512);
	assert_memory_equal(file, "partalign-backup 2\n", 19);
	snprintf(want, sizeof(want), "crc32 %08" PRIx32 "\n",
		 crc32_bitwise(file, len - 15));
	assert_memory_equal(file + len - 15, want, 15);
	file[len] = '\0';
	assert_non_null(strstr((char *)file, "\nlabel gpt:" DISK_GUID "\n"));
	assert_non_null(strstr((char *)file,
			       "\npart 1 13121110-1514-1716-1819-1A1B1C1D1E1F\n"
			       "part 3 33323130-3534-3736-3839-3A3B3C3D3E3F\n"));
	assert_non_null(strstr((char *)file, "\nafter dos:0a0b0c0d\n"));
	assert_non_null(strstr((char *)file, "\nmove 0123456789abcdef\n"));
	assert_non_null(
	    strstr((char *)file, "\nregion 0 17408\nregion 4177408 16896\nend\n"));
	free(file);

	assert_int_equal(apply_backup_load(path, &b), 0);
	assert_int_equal(b.format, 2);
	assert_string_equal(b.device, "/dev/unit-disk");
	assert_string_equal(b.id, "serial:XYZ");
	assert_int_equal(b.size, 4 * MiB);
	assert_int_equal(b.logical, 512);
	assert_int_equal(b.label->kind, LABEL_ID_GPT);
	assert_string_equal(b.label->disk, DISK_GUID);
	assert_int_equal(b.label->nparts, 2);
	assert_int_equal(b.label->parts[1].num, 3);
	assert_non_null(b.after);
	assert_true(label_identity_same(b.after, &after));
	assert_int_equal(b.move_id, 0x0123456789abcdefull);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.regs[1].off, 4 * MiB - 33 * 512);
	assert_memory_equal(b.data[0], f.m.b, 34 * 512);
	assert_memory_equal(b.data[1], f.m.b + 4 * MiB - 33 * 512, 33 * 512);
	apply_backup_free(&b);
	free(path);

	/* without after and move id: neither line */
	assert_int_equal(
	    apply_backup_save(&f.d, f.dir, "serial:XYZ", gpt_regs, 2, NULL, 0, &path), 0);
	file = slurp(path, &len);
	file[len] = '\0';
	assert_null(strstr((char *)file, "\nafter "));
	assert_null(strstr((char *)file, "\nmove "));
	free(file);
	assert_int_equal(apply_backup_load(path, &b), 0);
	assert_null(b.after);
	assert_int_equal(b.move_id, 0);
	apply_backup_free(&b);
	free(path);
	fixture_free(&f);
}

/* A dos disk: sector 0 and one EBR at 1 MiB (its chain). */
static struct img dos_image(void)
{
	struct img m = img_new(4 * MiB);

	mbr_entry(m.b, 0, 0x80, 0x83, 63, 1000);
	mbr_entry(m.b, 1, 0x00, 0x05, 2048, 4096);
	put32(m.b + 440, 0x12345678);
	mbr_entry(m.b + 2048 * 512, 0, 0, 0x83, 63, 1000); /* the EBR's logical */
	return m;
}

static const struct pa_extent dos_regs[] = {
    {.off = 0, .len = 512},
    {.off = 2048 * 512, .len = 512},
};

/* Any shorter file and any file with one bit changed is refused. */
static void test_every_truncation_and_flip(void **state)
{
	struct fixture f;
	struct pa_backup b;
	unsigned char *file;
	char *path = NULL, bad[100];
	size_t len, i;

	disk_of(&f, dos_image(), 512);
	assert_int_equal(
	    apply_backup_save(&f.d, f.dir, "name:sdx", dos_regs, 2, NULL, 0, &path), 0);
	file = slurp(path, &len);
	assert_int_equal(apply_backup_load(path, &b), 0);
	assert_int_equal(b.label->kind, LABEL_ID_DOS);
	assert_string_equal(b.label->disk, "12345678");
	apply_backup_free(&b);
	snprintf(bad, sizeof(bad), "%s/bad.pt", f.dir);
	for (i = 0; i < len; i++) {
		spit(bad, file, i);
		if (apply_backup_load(bad, &b) != -EBADMSG)
			fail_msg("a file cut to %zu of %zu bytes was not refused", i,
				 len);
	}
	for (i = 0; i < len; i++) {
		file[i] ^= 0x01;
		spit(bad, file, len);
		file[i] ^= 0x01;
		if (apply_backup_load(bad, &b) != -EBADMSG)
			fail_msg("a file with byte %zu of %zu changed was not refused", i,
				 len);
	}
	/* one byte more after the trailer is damage too */
	file[len] = '\n';
	spit(bad, file, len + 1);
	assert_int_equal(apply_backup_load(bad, &b), -EBADMSG);
	free(file);
	free(path);
	fixture_free(&f);
}

/* Format 2 with a valid checksum but a header the bytes contradict. */
static void test_label_must_match_bytes(void **state)
{
	struct fixture f;
	struct pa_backup b;
	unsigned char *file, *forged;
	char *path = NULL, bad[100], trailer[16], *p;
	size_t len;

	disk_of(&f, dos_image(), 512);
	assert_int_equal(
	    apply_backup_save(&f.d, f.dir, "name:sdx", dos_regs, 2, NULL, 0, &path), 0);
	file = slurp(path, &len);
	forged = malloc(len + 1);
	memcpy(forged, file, len);
	forged[len] = '\0';
	p = strstr((char *)forged, "label dos:12345678");
	assert_non_null(p);
	memcpy(p + 10, "87654321", 8);
	snprintf(trailer, sizeof(trailer), "crc32 %08" PRIx32 "\n",
		 crc32_bitwise(forged, len - 15));
	memcpy(forged + len - 15, trailer, 15);
	snprintf(bad, sizeof(bad), "%s/bad.pt", f.dir);
	spit(bad, forged, len);
	assert_int_equal(apply_backup_load(bad, &b), -EBADMSG);
	free(forged);
	free(file);
	free(path);
	fixture_free(&f);
}

static void test_format1(void **state)
{
	struct fixture f;
	struct pa_backup b;
	char hdr[512], path[100];
	size_t n;
	FILE *o;
	uint32_t crc;
	unsigned char regs[1024];

	disk_of(&f, dos_image(), 512);
	memcpy(regs, f.m.b, 512);
	memcpy(regs + 512, f.m.b + 2048 * 512, 512);
	crc = crc32_bitwise(regs, sizeof(regs));
	n = (size_t)snprintf(
	    hdr, sizeof(hdr),
	    "partalign-backup 1\ndevice /dev/sdx\nid name:sdx\nsize %llu\n"
	    "logical 512\ncreated 2026-11-30T08:00:00Z\nregion 0 512\n"
	    "region 1048576 512\ncrc32 %08" PRIx32 "\nend\n",
	    (unsigned long long)(4 * MiB), crc);
	snprintf(path, sizeof(path), "%s/v1.pt", f.dir);
	o = fopen(path, "wb");
	assert_non_null(o);
	fwrite(hdr, 1, n, o);
	fwrite(regs, 1, sizeof(regs), o);
	fclose(o);
	assert_int_equal(apply_backup_load(path, &b), 0);
	assert_int_equal(b.format, 1);
	assert_string_equal(b.id, "name:sdx");
	/* its identity is read from its bytes */
	assert_int_equal(b.label->kind, LABEL_ID_DOS);
	assert_string_equal(b.label->disk, "12345678");
	assert_null(b.after);
	assert_int_equal(b.move_id, 0);
	apply_backup_free(&b);

	/* a wrong crc32 line, and a format-2 line in a format-1 file */
	regs[700] ^= 0xff;
	o = fopen(path, "wb");
	fwrite(hdr, 1, n, o);
	fwrite(regs, 1, sizeof(regs), o);
	fclose(o);
	assert_int_equal(apply_backup_load(path, &b), -EBADMSG);
	regs[700] ^= 0xff;
	n = (size_t)snprintf(
	    hdr, sizeof(hdr),
	    "partalign-backup 1\ndevice /dev/sdx\nid name:sdx\nsize %llu\n"
	    "logical 512\nmove 0123456789abcdef\nregion 0 512\n"
	    "region 1048576 512\ncrc32 %08" PRIx32 "\nend\n",
	    (unsigned long long)(4 * MiB), crc);
	o = fopen(path, "wb");
	fwrite(hdr, 1, n, o);
	fwrite(regs, 1, sizeof(regs), o);
	fclose(o);
	assert_int_equal(apply_backup_load(path, &b), -EBADMSG);
	fixture_free(&f);
}

/* A backup made of @n regions of the disk, then one more: @len bytes of @byte at @off. */
static void forge(struct fixture *f, const struct pa_extent *regs, size_t n, uint64_t off,
		  uint64_t len, int byte, struct pa_backup *b)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->format = 2;
	b->size = f->m.size;
	b->logical = 512;
	b->n = n + (len ? 1 : 0);
	b->regs = calloc(b->n, sizeof(*b->regs));
	b->data = calloc(b->n, sizeof(*b->data));
	for (i = 0; i < n; i++) {
		b->regs[i] = regs[i];
		b->data[i] = malloc(regs[i].len);
		memcpy(b->data[i], f->m.b + regs[i].off, regs[i].len);
	}
	if (len) {
		b->regs[n] = (struct pa_extent){.off = off, .len = len};
		b->data[n] = malloc(len);
		memset(b->data[n], byte, len);
	}
}

static void test_check_regions(void **state)
{
	struct fixture f;
	struct pa_backup b;
	struct pa_extent *save = NULL;
	size_t nsave = 0;
	uint64_t bad = 0;

	disk_of(&f, gpt_image(4 * MiB, 512, 128, used13), 512);
	forge(&f, gpt_regs, 2, 0, 0, 0, &b);
	assert_int_equal(apply_backup_check(&b, &f.d, &bad, &save, &nsave), 0);
	assert_int_equal(nsave, 2);
	assert_int_equal(save[0].off, 0);
	assert_int_equal(save[0].len, 34 * 512);
	assert_int_equal(save[1].off, 4 * MiB - 33 * 512);
	assert_int_equal(save[1].len, 33 * 512);
	free(save);
	apply_backup_free(&b);

	/* a region in the data area: refused unless the disk holds its bytes already */
	forge(&f, gpt_regs, 2, 1 * MiB, 4096, 0x5a, &b);
	assert_int_equal(apply_backup_check(&b, &f.d, &bad, NULL, NULL), -ERANGE);
	assert_int_equal(bad, 1 * MiB);
	apply_backup_free(&b);
	forge(&f, gpt_regs, 2, 1 * MiB, 4096, 0, &b);
	assert_int_equal(apply_backup_check(&b, &f.d, &bad, NULL, NULL), 0);
	apply_backup_free(&b);
	/* one straddling the end of the entry array: the first byte past it */
	forge(&f, gpt_regs, 2, 33 * 512, 1024, 0x5a, &b);
	assert_int_equal(apply_backup_check(&b, &f.d, &bad, NULL, NULL), -ERANGE);
	assert_int_equal(bad, 34 * 512);
	apply_backup_free(&b);
	fixture_free(&f);
}

/*
 * A dos backup on a disk that now holds a GPT: the backup's MBR and EBR
 * and the GPT's head and tail are all label sectors; its EBR is one only
 * because the backup's own chain leads there.
 */
static void test_check_two_tables(void **state)
{
	struct fixture f, g;
	struct pa_backup b;
	struct pa_extent all[4] = {dos_regs[0], dos_regs[1], gpt_regs[0], gpt_regs[1]};
	struct pa_extent *save = NULL;
	size_t nsave = 0;
	uint64_t bad = 0;

	disk_of(&f, dos_image(), 512);
	disk_of(&g, gpt_image(4 * MiB, 512, 128, used13), 512);
	/* the dos bytes plus the GPT sectors as the dos disk had them (zeros) */
	forge(&f, all, 4, 0, 0, 0, &b);
	if (apply_backup_check(&b, &g.d, &bad, &save, &nsave) != 0)
		fail_msg("refused: bad %" PRIu64, bad);
	assert_int_equal(nsave, 3); /* head (with sector 0), the EBR, the tail */
	assert_int_equal(save[1].off, 2048 * 512);
	free(save);
	apply_backup_free(&b);
	/* the same regions in a backup whose MBR has no extended entry: the EBR is data
	 */
	forge(&f, all, 4, 0, 0, 0, &b);
	memset(b.data[0] + 446 + 16, 0, 16);
	memset(b.data[2] + 446 + 16, 0, 16); /* region 2 holds sector 0 as well */
	memset(b.data[1], 0x5a, 512);
	assert_int_equal(apply_backup_check(&b, &g.d, &bad, NULL, NULL), -ERANGE);
	assert_int_equal(bad, 2048 * 512);
	apply_backup_free(&b);
	fixture_free(&g);
	fixture_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_save_load),
	    cmocka_unit_test(test_every_truncation_and_flip),
	    cmocka_unit_test(test_label_must_match_bytes),
	    cmocka_unit_test(test_format1),
	    cmocka_unit_test(test_check_regions),
	    cmocka_unit_test(test_check_two_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
