/*
 * Partition-table backups: a short text header, then the raw bytes of each
 * region.  Written to a temporary file in the backup directory, fsynced,
 * renamed, and the directory fsynced, before the first write to the disk.
 *
 *   partalign-backup 1
 *   device /dev/sdb
 *   id wwn:0x5000c500a1b2c3d4
 *   size 10737418240
 *   logical 512
 *   created 2026-11-30T08:00:00Z
 *   region 0 17408
 *   region 10737401344 16896
 *   crc32 1a2b3c4d
 *   end
 *   <region bytes, in order>
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply.h"
#include "apply/label.h"
#include "core/crc32.h"

#define MAGIC "partalign-backup 1\n"
#define MAX_REGIONS 1024

static int mkdirs(const char *dir)
{
	char *p, *s = strdup(dir);

	if (!s)
		return -ENOMEM;
	for (p = s + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(s, 0700) < 0 && errno != EEXIST) {
			free(s);
			return -errno;
		}
		*p = '/';
	}
	free(s);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int apply_backup_save(struct pa_disk *d, const char *dir, const char *id,
		      const struct pa_extent *regs, size_t n, char **path)
{
	char stamp[32], created[32], *final = NULL, *tmp = NULL, *hdr = NULL;
	void **data = calloc(n ? n : 1, sizeof(*data));
	struct timespec ts;
	struct tm tm;
	uint32_t crc = 0;
	size_t i, len = 0;
	int fd = -1, dfd = -1, rc;
	FILE *m;

	if (!data)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rc = apply_disk_read(d, &regs[i], &data[i]);
		if (rc < 0)
			goto out;
		crc = pa_crc32(crc, data[i], regs[i].len);
	}
	rc = mkdirs(dir);
	if (rc < 0)
		goto out;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* nanoseconds keep two backups of one second apart */
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	if (asprintf(&final, "%s/%s-%s.%09ldZ.pt", dir, id, stamp, ts.tv_nsec) < 0 ||
	    asprintf(&tmp, "%s/.%s-%s.%09ld.%ld.tmp", dir, id, stamp, ts.tv_nsec,
		     (long)getpid()) < 0) {
		final = tmp = NULL;
		rc = -ENOMEM;
		goto out;
	}
	m = open_memstream(&hdr, &len);
	if (!m) {
		rc = -ENOMEM;
		goto out;
	}
	fprintf(m, MAGIC "device %s\nid %s\nsize %" PRIu64 "\nlogical %" PRIu32 "\ncreated %s\n",
		d->path, id, d->size, d->logical, created);
	for (i = 0; i < n; i++)
		fprintf(m, "region %" PRIu64 " %" PRIu64 "\n", regs[i].off, regs[i].len);
	fprintf(m, "crc32 %08" PRIx32 "\nend\n", crc);
	if (fclose(m) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* left by a run of the same pid that was killed: ours to replace */
		unlink(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = write_all(fd, hdr, len);
	for (i = 0; i < n && rc == 0; i++)
		rc = write_all(fd, data[i], regs[i].len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	fd = -1;
	if (rc == 0 && rename(tmp, final) < 0)
		rc = -errno;
	if (rc < 0) {
		unlink(tmp);
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) < 0)
		rc = -errno;
	if (dfd >= 0)
		close(dfd);
	if (rc == 0) {
		*path = final;
		final = NULL;
	}
out:
	for (i = 0; i < n; i++)
		free(data[i]);
	free(data);
	free(hdr);
	free(tmp);
	free(final);
	return rc;
}

void apply_backup_free(struct pa_backup *b)
{
	size_t i;

	for (i = 0; i < b->n && b->data; i++)
		free(b->data[i]);
	free(b->data);
	free(b->regs);
	free(b->device);
	free(b->id);
	free(b->created);
	memset(b, 0, sizeof(*b));
}

static int parse_header(FILE *f, struct pa_backup *b, uint32_t *crc)
{
	char *line = NULL;
	size_t cap = 0;
	bool magic = false, end = false;
	int rc = -EBADMSG;

	while (!end && getline(&line, &cap, f) > 0) {
		char val[4096];
		unsigned long long x, y;

		if (!magic) {
			magic = strcmp(line, MAGIC) == 0;
			if (!magic)
				break;
		} else if (strcmp(line, "end\n") == 0) {
			end = true;
		} else if (sscanf(line, "device %4095s", val) == 1) {
			free(b->device);
			b->device = strdup(val);
		} else if (sscanf(line, "id %4095s", val) == 1) {
			free(b->id);
			b->id = strdup(val);
		} else if (sscanf(line, "created %4095s", val) == 1) {
			free(b->created);
			b->created = strdup(val);
		} else if (sscanf(line, "size %llu", &x) == 1) {
			b->size = x;
		} else if (sscanf(line, "logical %llu", &x) == 1) {
			b->logical = (uint32_t)x;
		} else if (sscanf(line, "crc32 %llx", &x) == 1) {
			*crc = (uint32_t)x;
		} else if (sscanf(line, "region %llu %llu", &x, &y) == 2) {
			struct pa_extent *r;

			if (b->n == MAX_REGIONS || y == 0 || y > (64ull << 20))
				break;
			r = realloc(b->regs, (b->n + 1) * sizeof(*r));
			if (!r) {
				rc = -ENOMEM;
				break;
			}
			b->regs = r;
			b->regs[b->n++] = (struct pa_extent){.off = x, .len = y};
		} else {
			break;
		}
	}
	free(line);
	if (end && b->device && b->id && b->size && b->logical && b->n)
		rc = 0;
	return rc;
}

int apply_backup_load(const char *file, struct pa_backup *b)
{
	FILE *f = fopen(file, "re");
	uint32_t crc = 0, want = 0;
	size_t i;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!f)
		return -errno;
	rc = parse_header(f, b, &want);
	if (rc < 0)
		goto out;
	b->data = calloc(b->n, sizeof(*b->data));
	if (!b->data) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < b->n; i++) {
		b->data[i] = malloc(b->regs[i].len);
		if (!b->data[i]) {
			rc = -ENOMEM;
			goto out;
		}
		if (fread(b->data[i], 1, b->regs[i].len, f) != b->regs[i].len) {
			rc = -EBADMSG;
			goto out;
		}
		crc = pa_crc32(crc, b->data[i], b->regs[i].len);
	}
	if (fgetc(f) != EOF || crc != want)
		rc = -EBADMSG;
out:
	fclose(f);
	if (rc < 0)
		apply_backup_free(b);
	return rc;
}

/* Read the backup as if it were the disk: bytes it does not hold read as 0. */
static int rd_backup(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct pa_backup *b = ctx;
	size_t i;

	memset(buf, 0, len);
	for (i = 0; i < b->n; i++) {
		uint64_t lo = off > b->regs[i].off ? off : b->regs[i].off;
		uint64_t hi = off + len < b->regs[i].off + b->regs[i].len
				      ? off + len
				      : b->regs[i].off + b->regs[i].len;

		if (lo < hi)
			memcpy((char *)buf + (lo - off), b->data[i] + (lo - b->regs[i].off),
			       hi - lo);
	}
	return 0;
}

#define MAX_LABEL 258

int apply_backup_order(const struct pa_backup *b, struct pa_extent **regs, void ***bufs,
		       size_t *n)
{
	struct pa_extent label[MAX_LABEL];
	unsigned char s0[512];
	uint64_t head, tail, ebrs[MAX_LABEL - 2], cuts[2 * MAX_LABEL + 2];
	size_t nl = 0, i, j, k = 0, nc;
	bool gpt = false;
	int e, rc;

	rc = rd_backup((void *)b, 0, s0, sizeof(s0));
	for (e = 0; rc == 0 && e < 4; e++)
		gpt |= s0[446 + 16 * e + 4] == 0xee;
	if (gpt && label_gpt_extent(rd_backup, (void *)b, b->logical, &head, &tail) == 0) {
		label[nl++] = (struct pa_extent){.off = 0, .len = head};
		label[nl++] = (struct pa_extent){.off = b->size - tail, .len = tail};
	} else if (s0[510] == 0x55 && s0[511] == 0xaa) {
		label[nl++] = (struct pa_extent){.off = 0, .len = b->logical};
		rc = label_dos_ebrs(rd_backup, (void *)b, b->logical, ebrs, MAX_LABEL - 2);
		for (e = 0; e < rc; e++)
			label[nl++] = (struct pa_extent){.off = ebrs[e], .len = b->logical};
	}
	*regs = calloc(b->n * (2 * nl + 1) + 1, sizeof(**regs));
	*bufs = calloc(b->n * (2 * nl + 1) + 1, sizeof(**bufs));
	if (!*regs || !*bufs) {
		free(*regs);
		free(*bufs);
		return -ENOMEM;
	}
	for (i = 0; i < b->n; i++) {
		uint64_t lo = b->regs[i].off, hi = lo + b->regs[i].len;

		/* cut the region at every edge of a label extent inside it */
		nc = 0;
		cuts[nc++] = lo;
		for (j = 0; j < nl; j++) {
			if (label[j].off > lo && label[j].off < hi)
				cuts[nc++] = label[j].off;
			if (label[j].off + label[j].len > lo && label[j].off + label[j].len < hi)
				cuts[nc++] = label[j].off + label[j].len;
		}
		cuts[nc++] = hi;
		for (j = 1; j < nc; j++) /* insertion sort: a handful of cuts */
			for (e = (int)j; e > 0 && cuts[e - 1] > cuts[e]; e--) {
				uint64_t t = cuts[e];

				cuts[e] = cuts[e - 1];
				cuts[e - 1] = t;
			}
		for (j = 0; j + 1 < nc; j++) {
			bool inside = nl == 0;
			size_t m;

			if (cuts[j] == cuts[j + 1])
				continue;
			for (m = 0; m < nl && !inside; m++)
				inside = cuts[j] >= label[m].off &&
					 cuts[j] < label[m].off + label[m].len;
			(*regs)[k] = (struct pa_extent){
				.off = cuts[j], .len = cuts[j + 1] - cuts[j], .late = !inside};
			(*bufs)[k++] = b->data[i] + (cuts[j] - lo);
		}
	}
	*n = k;
	return 0;
}
