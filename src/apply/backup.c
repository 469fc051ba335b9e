/*
 * Partition-table backups: a short text header, the raw bytes of each
 * region, and a CRC-32 of everything before it.  Written to a temporary
 * file in the backup directory, fsynced, renamed, and the directory
 * fsynced, before the first write to the disk.
 *
 *   partalign-backup 2
 *   device /dev/sdb                          where it was taken (informational)
 *   id wwn:0x5000c500a1b2c3d4                apply_disk_id() of that disk
 *   size 10737418240                         bytes
 *   logical 512                              logical sector size
 *   created 2026-11-30T08:00:00Z
 *   label gpt:0D7D1C5E-2B4A-4C6F-9E1B-3A5C7D9E1F20   the table the regions hold
 *   part 1 6E0E8C4A-...                      its partitions' unique GUIDs (gpt)
 *   after dos:1a2b3c4d                       optional: the table partalign
 *                                            wrote over it
 *   move 0123456789abcdef                    optional: taken before data move
 *   region 0 17408                           byte offset, length
 *   region 10737401344 16896
 *   end
 *   <region bytes, in order>
 *   crc32 1a2b3c4d                           CRC-32 of every byte before "crc32"
 *
 * "label" is label_identity() of the region bytes themselves (checked on
 * load), "none" for a disk without a table.  Format 1 (still read) had
 * "partalign-backup 1", no label/part/after/move lines, and a "crc32" line
 * before "end" covering the region bytes only.
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
#include "core/label.h"
#include "core/crc32.h"
#include "shared/endian.h"
#include "shared/hex.h"
#include "shared/fileio.h"
#include "shared/trust.h"

#define MAGIC1 "partalign-backup 1\n"
#define MAGIC2 "partalign-backup 2\n"
#define TRAILER_LEN 15 /* "crc32 xxxxxxxx\n" */
#define MAX_REGIONS 1024
#define MAX_REGION (64ull << 20)
#define MAX_FILE (256ull << 20)
#define MAX_LINE 4096
#define MAX_LABEL 258

/* An image made of regions: bytes they do not hold read as 0. */
struct mem_image {
	const struct pa_extent *regs;
	unsigned char *const *data;
	size_t n;
};

static int rd_mem(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem_image *m = ctx;
	size_t i;

	memset(buf, 0, len);
	for (i = 0; i < m->n; i++) {
		uint64_t lo = off > m->regs[i].off ? off : m->regs[i].off;
		uint64_t hi = off + len < m->regs[i].off + m->regs[i].len
				  ? off + len
				  : m->regs[i].off + m->regs[i].len;

		if (lo < hi)
			memcpy((char *)buf + (lo - off),
			       m->data[i] + (lo - m->regs[i].off), hi - lo);
	}
	return 0;
}

static int rd_disk(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_zero(((struct pa_disk *)ctx)->fd, buf, len, off);
}

int apply_disk_identity(struct pa_disk *d, struct label_id *id)
{
	return label_identity(rd_disk, d, d->logical, d->size, id);
}

static void put_identity(FILE *m, const char *key, const struct label_id *id, bool parts)
{
	char text[64];
	size_t i;

	label_identity_format(id, text, sizeof(text));
	fprintf(m, "%s %s\n", key, text);
	for (i = 0; parts && i < id->nparts; i++)
		fprintf(m, "part %u %s\n", id->parts[i].num, id->parts[i].guid);
}

int apply_backup_save(struct pa_disk *d, const char *dir, const char *id,
		      const struct pa_extent *regs, size_t n,
		      const struct label_id *after, uint64_t move_id, char **path)
{
	char stamp[32], created[32], trailer[TRAILER_LEN + 1];
	char *final = NULL, *hdr = NULL;
	unsigned char **data = calloc(n ? n : 1, sizeof(*data));
	struct label_id *held = malloc(sizeof(*held));
	struct mem_image img = {.regs = regs, .n = n};
	struct timespec ts;
	struct tm tm;
	uint32_t crc;
	size_t i, len = 0;
	struct trust_fail tf;
	struct file_tmp t;
	int dfd = -1, rc;
	FILE *m;

	if (!data || !held) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		rc = apply_disk_read(d, &regs[i], (void **)&data[i]);
		if (rc < 0)
			goto out;
	}
	/* the identity of the table these bytes hold, as restore will read it */
	img.data = data;
	rc = label_identity(rd_mem, &img, d->logical, d->size, held);
	if (rc < 0)
		goto out;
	/* only in a directory only root can change, made 0700 if missing */
	rc = trust_dir_open(dir, TRUST_CREATE, &dfd, &tf);
	if (rc < 0)
		goto out;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* nanoseconds keep two backups of one second apart */
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	if (asprintf(&final, "%s/%s-%s.%09ldZ.pt", dir, id, stamp, ts.tv_nsec) < 0) {
		final = NULL;
		rc = -ENOMEM;
		goto out;
	}
	m = open_memstream(&hdr, &len);
	if (!m) {
		rc = -ENOMEM;
		goto out;
	}
	fprintf(m,
		MAGIC2 "device %s\nid %s\nsize %" PRIu64 "\nlogical %" PRIu32
		       "\ncreated %s\n",
		d->path, id, d->size, d->logical, created);
	put_identity(m, "label", held, true);
	if (after)
		put_identity(m, "after", after, false);
	if (move_id)
		fprintf(m, "move %016" PRIx64 "\n", move_id);
	for (i = 0; i < n; i++)
		fprintf(m, "region %" PRIu64 " %" PRIu64 "\n", regs[i].off, regs[i].len);
	fputs("end\n", m);
	if (fclose(m) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	crc = crc32_update(0, hdr, len);
	for (i = 0; i < n; i++)
		crc = crc32_update(crc, data[i], regs[i].len);
	snprintf(trailer, sizeof(trailer), "crc32 %08" PRIx32 "\n", crc);
	/* ".NAME.pt.XXXXXX" until it is complete: never listed as a backup */
	rc = file_tmp_openat(&t, dfd, strrchr(final, '/') + 1, 0600, 0);
	if (rc < 0)
		goto out;
	rc = write_all(t.fd, hdr, len);
	for (i = 0; i < n && rc == 0; i++)
		rc = write_all(t.fd, data[i], regs[i].len);
	if (rc == 0)
		rc = write_all(t.fd, trailer, TRAILER_LEN);
	if (rc < 0)
		file_tmp_abort(&t);
	else
		rc = file_tmp_publish(&t);
	if (rc == 0) {
		*path = final;
		final = NULL;
	}
out:
	if (dfd >= 0)
		close(dfd);
	for (i = 0; data && i < n; i++)
		free(data[i]);
	free(data);
	free(held);
	free(hdr);
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
	free(b->label);
	free(b->after);
	memset(b, 0, sizeof(*b));
}

/* A decimal number with nothing before or after it. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_hex(const char *s, size_t digits, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < digits; i++) {
		int d = hex_digit(s[i]);

		if (d < 0)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	return s[digits] == '\0';
}

/* "KEY VALUE": the value if @line starts with @key and a space. */
static const char *value_of(const char *line, const char *key)
{
	size_t k = strlen(key);

	return strncmp(line, key, k) == 0 && line[k] == ' ' && line[k + 1] ? line + k + 1
									   : NULL;
}

static int add_region(struct pa_backup *b, uint64_t off, uint64_t len)
{
	struct pa_extent *r;

	if (b->n == MAX_REGIONS || len == 0 || len > MAX_REGION || off + len < off ||
	    off + len > b->size)
		return -EBADMSG;
	r = realloc(b->regs, (b->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	b->regs = r;
	b->regs[b->n++] = (struct pa_extent){.off = off, .len = len};
	return 0;
}

static int add_part(struct label_id *id, const char *v)
{
	struct label_id g;
	char text[48];
	uint64_t num;
	const char *sp = strchr(v, ' ');

	if (!sp || (size_t)(sp - v) > 10 || id->nparts == LABEL_ID_MAX_PARTS)
		return -EBADMSG;
	memcpy(text, v, (size_t)(sp - v));
	text[sp - v] = '\0';
	if (!parse_u64(text, &num) || num == 0 || num > UINT32_MAX ||
	    (id->nparts && num <= id->parts[id->nparts - 1].num))
		return -EBADMSG;
	if (snprintf(text, sizeof(text), "gpt:%s", sp + 1) >= (int)sizeof(text) ||
	    label_identity_parse(text, &g) < 0)
		return -EBADMSG;
	id->parts[id->nparts].num = (unsigned int)num;
	memcpy(id->parts[id->nparts++].guid, g.disk, sizeof(g.disk));
	return 0;
}

/*
 * The header of a format-@format backup in @buf[0..@len): fills @b; *used
 * is where the region bytes start.  Format 1's "crc32" line goes to *crc1.
 */
static int parse_header(const char *buf, size_t len, unsigned int format,
			struct pa_backup *b, size_t *used, uint32_t *crc1)
{
	char line[MAX_LINE + 1];
	bool seen_size = false, seen_logical = false, seen_crc = false, seen_move = false;
	size_t pos = strlen(MAGIC1); /* the magic line, checked by the caller */
	int rc = 0;

	while (rc == 0) {
		const char *nl = memchr(buf + pos, '\n', len - pos), *v;
		size_t l;
		uint64_t x, y;

		if (!nl || (size_t)(nl - (buf + pos)) > MAX_LINE)
			return -EBADMSG;
		l = (size_t)(nl - (buf + pos));
		memcpy(line, buf + pos, l);
		line[l] = '\0';
		pos += l + 1;
		if (memchr(line, '\0', l))
			return -EBADMSG;
		if (strcmp(line, "end") == 0)
			break;
		if ((v = value_of(line, "device"))) {
			if (b->device)
				return -EBADMSG;
			b->device = strdup(v);
		} else if ((v = value_of(line, "id"))) {
			if (b->id || strchr(v, ' '))
				return -EBADMSG;
			b->id = strdup(v);
		} else if ((v = value_of(line, "created"))) {
			if (b->created)
				return -EBADMSG;
			b->created = strdup(v);
		} else if ((v = value_of(line, "size"))) {
			if (seen_size || !parse_u64(v, &b->size))
				return -EBADMSG;
			seen_size = true;
		} else if ((v = value_of(line, "logical"))) {
			if (seen_logical || !parse_u64(v, &x) || x < 512 || x > 65536 ||
			    x % 512)
				return -EBADMSG;
			b->logical = (uint32_t)x;
			seen_logical = true;
		} else if ((v = value_of(line, "region"))) {
			char a[32], c[32];
			int k = 0;

			if (!seen_size ||
			    sscanf(v, "%31[0-9] %31[0-9]%n", a, c, &k) != 2 || v[k] ||
			    !parse_u64(a, &x) || !parse_u64(c, &y))
				return -EBADMSG;
			rc = add_region(b, x, y);
		} else if (format == 1 && (v = value_of(line, "crc32"))) {
			if (seen_crc || strlen(v) != 8 || !parse_hex(v, 8, &x))
				return -EBADMSG;
			*crc1 = (uint32_t)x;
			seen_crc = true;
		} else if (format == 2 && (v = value_of(line, "label"))) {
			if (b->label || !(b->label = malloc(sizeof(*b->label))))
				return b->label ? -EBADMSG : -ENOMEM;
			if (label_identity_parse(v, b->label) < 0)
				return -EBADMSG;
		} else if (format == 2 && (v = value_of(line, "part"))) {
			if (!b->label || b->label->kind != LABEL_ID_GPT)
				return -EBADMSG;
			rc = add_part(b->label, v);
		} else if (format == 2 && (v = value_of(line, "after"))) {
			if (b->after || !(b->after = malloc(sizeof(*b->after))))
				return b->after ? -EBADMSG : -ENOMEM;
			if (label_identity_parse(v, b->after) < 0 ||
			    b->after->kind == LABEL_ID_NONE)
				return -EBADMSG;
		} else if (format == 2 && (v = value_of(line, "move"))) {
			if (seen_move || strlen(v) != 16 ||
			    !parse_hex(v, 16, &b->move_id) || !b->move_id)
				return -EBADMSG;
			seen_move = true;
		} else {
			/* an unknown line: not a backup this version wrote */
			return -EBADMSG;
		}
	}
	if (rc < 0)
		return rc;
	if (!b->device || !b->id || !seen_size || !b->size || !seen_logical || !b->n ||
	    (format == 1 && !seen_crc) || (format == 2 && (!b->label || !b->created)))
		return -EBADMSG;
	*used = pos;
	return 0;
}

/* The whole file open as @fd, if it is not absurdly big for a table backup. */
static int read_backup_fd(int fd, unsigned char **buf, size_t *len)
{
	struct stat st;
	void *b;
	int rc;

	*buf = NULL;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	rc = read_fd(fd, MAX_FILE, &b, len);
	if (rc < 0)
		return rc == -EFBIG ? -EBADMSG : rc;
	*buf = b;
	return 0;
}

static bool same_parts(const struct label_id *a, const struct label_id *b)
{
	size_t i;

	if (a->nparts != b->nparts)
		return false;
	for (i = 0; i < a->nparts; i++)
		if (a->parts[i].num != b->parts[i].num ||
		    strcmp(a->parts[i].guid, b->parts[i].guid))
			return false;
	return true;
}

static int load_fd(int fd, struct pa_backup *b)
{
	unsigned char *buf = NULL;
	struct label_id *held = NULL;
	struct mem_image img;
	uint32_t crc = 0, want = 0;
	uint64_t x;
	size_t len = 0, body, pos, i;
	int rc;

	memset(b, 0, sizeof(*b));
	rc = read_backup_fd(fd, &buf, &len);
	if (rc < 0)
		return rc;
	rc = -EBADMSG;
	if (len > strlen(MAGIC1) && memcmp(buf, MAGIC1, strlen(MAGIC1)) == 0) {
		b->format = 1;
		body = len;
	} else if (len > strlen(MAGIC2) + TRAILER_LEN &&
		   memcmp(buf, MAGIC2, strlen(MAGIC2)) == 0) {
		/* the trailer first: nothing of a damaged file is believed */
		const char *t = (const char *)buf + len - TRAILER_LEN;
		char hex[9];

		b->format = 2;
		body = len - TRAILER_LEN;
		memcpy(hex, t + 6, 8);
		hex[8] = '\0';
		if (memcmp(t, "crc32 ", 6) != 0 || t[14] != '\n' ||
		    !parse_hex(hex, 8, &x) || crc32_update(0, buf, body) != (uint32_t)x)
			goto out;
	} else {
		goto out;
	}
	rc = parse_header((const char *)buf, body, b->format, b, &pos, &want);
	if (rc < 0)
		goto out;
	b->data = calloc(b->n, sizeof(*b->data));
	if (!b->data) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < b->n; i++) {
		if (b->regs[i].len > body - pos) {
			rc = -EBADMSG;
			goto out;
		}
		b->data[i] = malloc(b->regs[i].len);
		if (!b->data[i]) {
			rc = -ENOMEM;
			goto out;
		}
		memcpy(b->data[i], buf + pos, b->regs[i].len);
		crc = crc32_update(crc, b->data[i], b->regs[i].len);
		pos += b->regs[i].len;
	}
	rc = -EBADMSG;
	if (pos != body || (b->format == 1 && crc != want))
		goto out;
	/* what the bytes hold: format 2 must say so; format 1 learns it here */
	held = malloc(sizeof(*held));
	img = (struct mem_image){.regs = b->regs, .data = b->data, .n = b->n};
	if (!held) {
		rc = -ENOMEM;
		goto out;
	}
	if (label_identity(rd_mem, &img, b->logical, b->size, held) < 0)
		goto out;
	if (b->format == 2 &&
	    (!label_identity_same(held, b->label) || !same_parts(held, b->label)))
		goto out;
	free(b->label);
	b->label = held;
	held = NULL;
	rc = 0;
out:
	free(held);
	free(buf);
	if (rc < 0)
		apply_backup_free(b);
	return rc;
}

int apply_backup_load(const char *file, struct pa_backup *b)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc;

	memset(b, 0, sizeof(*b));
	if (fd < 0)
		return -errno;
	rc = load_fd(fd, b);
	close(fd);
	return rc;
}

int apply_backup_load_trusted(const char *file, struct pa_backup *b, struct trust_fail *f)
{
	int fd, rc = trust_file_open(file, O_RDONLY, &fd, f);

	memset(b, 0, sizeof(*b));
	if (rc < 0)
		return rc;
	rc = load_fd(fd, b);
	close(fd);
	return rc;
}

/* Read the backup as if it were the disk: bytes it does not hold read as 0. */
static int rd_backup(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct pa_backup *b = ctx;
	struct mem_image img = {.regs = b->regs, .data = b->data, .n = b->n};

	return rd_mem(&img, off, buf, len);
}

/* A GPT header with its entry array at LBA 2 (primary) or just before it (backup). */
static int gpt_extent_any(label_read_fn rd, void *ctx, uint32_t logical, uint64_t size,
			  uint64_t *head, uint64_t *tail)
{
	unsigned char h[512];
	uint64_t nsec = size / logical, array;
	int rc = label_gpt_extent(rd, ctx, logical, head, tail);

	if (rc == 0 || nsec < 3)
		return rc;
	/* the primary is gone: the backup header at the last LBA says the same */
	rc = rd(ctx, (nsec - 1) * logical, h, sizeof(h));
	if (rc < 0)
		return rc;
	if (memcmp(h, "EFI PART", 8) != 0)
		return -ENOENT;
	array = ((uint64_t)get_le32(h + 80) * get_le32(h + 84) + logical - 1) / logical *
		logical;
	if (array > (64u << 20) || array / logical + 2 >= nsec)
		return -EOPNOTSUPP;
	/* entries right before the header, as partalign and libparted write them */
	if (((uint64_t)get_le32(h + 76) << 32 | get_le32(h + 72)) !=
	    nsec - 1 - array / logical)
		return -EOPNOTSUPP;
	*head = 2ull * logical + array;
	*tail = logical + array;
	return 0;
}

/*
 * The label areas of the table on an image of @size bytes: GPT (a
 * protective MBR, or no dos table and a GPT header): the head up to the end
 * of the entry array and the backup array and header at the end, as found
 * from either header; dos: sector 0 and every EBR of its chain; nothing
 * else.  At most MAX_LABEL extents, all inside the image.
 */
static int label_areas(label_read_fn rd, void *ctx, uint32_t logical, uint64_t size,
		       struct pa_extent *ext, size_t *n)
{
	unsigned char s0[512];
	uint64_t head, tail, ebrs[MAX_LABEL - 1];
	bool protective = false, mbr;
	int e, rc;

	*n = 0;
	if (size < logical)
		return 0;
	rc = rd(ctx, 0, s0, sizeof(s0));
	if (rc < 0)
		return rc;
	mbr = s0[510] == 0x55 && s0[511] == 0xaa;
	for (e = 0; e < 4; e++)
		protective |= s0[446 + 16 * e + 4] == 0xee;
	if (protective || !mbr) {
		rc = gpt_extent_any(rd, ctx, logical, size, &head, &tail);
		if (rc == 0 && head + tail <= size) {
			ext[(*n)++] = (struct pa_extent){.off = 0, .len = head};
			ext[(*n)++] = (struct pa_extent){.off = size - tail, .len = tail};
		} else if (protective) {
			ext[(*n)++] = (struct pa_extent){.off = 0, .len = logical};
		}
		return 0;
	}
	ext[(*n)++] = (struct pa_extent){.off = 0, .len = logical};
	/*
	 * A whole GPT behind a dos sector 0 is a label too: what a restore of a
	 * dos backup over a GPT leaves when it stops after sector 0 (the GPT
	 * sectors are cleared last), or a hybrid MBR.
	 */
	if (gpt_extent_any(rd, ctx, logical, size, &head, &tail) == 0 &&
	    head + tail <= size) {
		ext[(*n)++] = (struct pa_extent){.off = 0, .len = head};
		ext[(*n)++] = (struct pa_extent){.off = size - tail, .len = tail};
	}
	rc = label_dos_ebrs(rd, ctx, logical, ebrs, MAX_LABEL - 3);
	for (e = 0; e < rc; e++)
		if (ebrs[e] + logical <= size && ebrs[e] % logical == 0)
			ext[(*n)++] = (struct pa_extent){.off = ebrs[e], .len = logical};
	return rc < 0 ? rc : 0;
}

static int cmp_extent(const void *a, const void *b)
{
	const struct pa_extent *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort @v and merge what overlaps or touches; returns the new count. */
static size_t merge_extents(struct pa_extent *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_extent);
	for (i = 0; i < n; i++) {
		if (k && v[i].off <= v[k - 1].off + v[k - 1].len) {
			uint64_t end = v[i].off + v[i].len;

			if (end > v[k - 1].off + v[k - 1].len)
				v[k - 1].len = end - v[k - 1].off;
		} else {
			v[k] = v[i];
			v[k++].late = false;
		}
	}
	return k;
}

/* 1 if the disk holds @len bytes @buf at @off, 0 if not, or -errno. */
static int same_on_disk(struct pa_disk *d, uint64_t off, uint64_t len, const void *buf)
{
	struct pa_extent r = {.off = off, .len = len};
	void *cur;
	int rc = apply_disk_read(d, &r, &cur);

	if (rc < 0)
		return rc;
	rc = memcmp(cur, buf, len) == 0;
	free(cur);
	return rc;
}

int apply_backup_check(const struct pa_backup *b, struct pa_disk *d, uint64_t *bad,
		       struct pa_extent **save, size_t *nsave)
{
	struct pa_extent *all = calloc(2 * MAX_LABEL + 2 + b->n, sizeof(*all));
	size_t na = 0, nd = 0, nall, i, j;
	int rc;

	if (!all)
		return -ENOMEM;
	rc = label_areas(rd_backup, (void *)b, b->logical, b->size, all, &na);
	if (rc == 0)
		rc = label_areas(rd_disk, d, d->logical, d->size, all + na, &nd);
	if (rc < 0)
		goto out;
	/*
	 * The GPT partalign wrote over the backed-up table (128 entries, as
	 * libparted makes it): its sectors are label sectors even when a
	 * restore cut short has already cleared or torn them.
	 */
	if (b->after && b->after->kind == LABEL_ID_GPT) {
		uint64_t arr = (16384 + b->logical - 1) / b->logical * b->logical;

		if (2 * b->logical + arr + b->logical + arr <= b->size) {
			all[na + nd++] =
			    (struct pa_extent){.off = 0, .len = 2 * b->logical + arr};
			all[na + nd++] = (struct pa_extent){
			    .off = b->size - b->logical - arr, .len = b->logical + arr};
		}
	}
	nall = merge_extents(all, na + nd);
	for (i = 0; i < b->n; i++) {
		uint64_t lo = b->regs[i].off, hi = lo + b->regs[i].len, at = lo;

		/* each stretch outside the label areas must be on the disk already */
		while (at < hi) {
			uint64_t next = hi;

			for (j = 0; j < nall; j++) {
				if (all[j].off <= at && at < all[j].off + all[j].len)
					break;
				if (all[j].off > at && all[j].off < next)
					next = all[j].off;
			}
			if (j < nall) {
				at = all[j].off + all[j].len;
				continue;
			}
			rc = same_on_disk(d, at, next - at, b->data[i] + (at - lo));
			if (rc < 0)
				goto out;
			if (rc == 0) {
				*bad = at;
				rc = -ERANGE;
				goto out;
			}
			rc = 0;
			at = next;
		}
	}
	if (save) {
		for (i = 0; i < b->n; i++)
			all[nall++] = b->regs[i];
		nall = merge_extents(all, nall);
		for (i = 0; i < nall; i++)
			if (all[i].off + all[i].len > d->size)
				all[i].len = d->size - all[i].off;
		*save = all;
		*nsave = nall;
		all = NULL;
	}
out:
	free(all);
	return rc;
}

int apply_backup_order(const struct pa_backup *b, struct pa_extent **regs, void ***bufs,
		       size_t *n)
{
	struct pa_extent label[MAX_LABEL];
	uint64_t cuts[2 * MAX_LABEL + 2];
	size_t nl = 0, i, j, k = 0, nc;
	int e, rc;

	rc = label_areas(rd_backup, (void *)b, b->logical, b->size, label, &nl);
	if (rc < 0)
		return rc;
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
			if (label[j].off + label[j].len > lo &&
			    label[j].off + label[j].len < hi)
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
			(*regs)[k] = (struct pa_extent){.off = cuts[j],
							.len = cuts[j + 1] - cuts[j],
							.late = !inside};
			(*bufs)[k++] = b->data[i] + (cuts[j] - lo);
		}
	}
	*n = k;
	return 0;
}
