/*
 * The move marker on the real disk: reading it, and writing it through the
 * gate before a move's first data write.  The byte edits are core/marker.c;
 * this file only moves label sectors between the disk and memory.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "apply/apply.h"
#include "core/label.h"
#include "core/journal.h"
#include "core/marker.h"
#include "shared/fileio.h"

static int rd_disk(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_zero(((struct pa_disk *)ctx)->fd, buf, len, off);
}

static struct marker_io disk_io(struct pa_disk *d)
{
	return (struct marker_io){rd_disk, NULL, d, d->logical, d->size};
}

int apply_disk_marker(struct pa_disk *d, struct pa_marker *m)
{
	struct marker_io io = disk_io(d);

	/* what the disk holds, not what a page cache kept from before a write */
	posix_fadvise(d->fd, 0, 0, POSIX_FADV_DONTNEED);

	return marker_find(&io, m);
}

/* The label sectors of the disk, in memory: the marker is written into these. */
struct image {
	struct pa_extent r[2];
	void *b[2];
	size_t n;
};

static int img_at(struct image *im, uint64_t off, size_t len, unsigned char **p)
{
	size_t i;

	for (i = 0; i < im->n; i++)
		if (off >= im->r[i].off && off - im->r[i].off <= im->r[i].len &&
		    len <= im->r[i].len - (off - im->r[i].off)) {
			*p = (unsigned char *)im->b[i] + (off - im->r[i].off);
			return 0;
		}
	return -ERANGE;
}

static int rd_img(void *ctx, uint64_t off, void *buf, size_t len)
{
	unsigned char *p;
	int rc = img_at(ctx, off, len, &p);

	if (rc == 0)
		memcpy(buf, p, len);
	else
		memset(buf, 0, len); /* outside the label: nothing there for the marker */
	return 0;
}

static int wr_img(void *ctx, uint64_t off, const void *buf, size_t len)
{
	unsigned char *p;
	int rc = img_at(ctx, off, len, &p);

	if (rc == 0)
		memcpy(p, buf, len);
	return rc;
}

static int image_load(struct pa_disk *d, struct image *im)
{
	uint64_t head, tail;
	size_t i;
	int rc;

	memset(im, 0, sizeof(*im));
	rc = label_gpt_extent(rd_disk, d, d->logical, &head, &tail);
	if (rc == 0 && head + tail <= d->size) {
		im->r[im->n++] = (struct pa_extent){.off = 0, .len = head};
		im->r[im->n++] = (struct pa_extent){.off = d->size - tail, .len = tail};
	} else if (rc == -ENOENT) {
		im->r[im->n++] = (struct pa_extent){.off = 0, .len = d->logical};
	} else {
		return rc < 0 ? rc : -EOPNOTSUPP;
	}
	for (i = 0; i < im->n; i++) {
		rc = apply_disk_read(d, &im->r[i], &im->b[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void image_free(struct image *im)
{
	size_t i;

	for (i = 0; i < im->n; i++)
		free(im->b[i]);
}

static uint64_t random_u64(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	return v;
}

int apply_move_journal(struct pa_disk *d, const struct pa_plan *p, const char *id,
		       const struct apply_move_knobs *k, struct pa_journal *j)
{
	struct marker_io io = disk_io(d);
	int rc = journal_init2(j, p, d->path, id, k ? k->chunk : 0, k ? k->record_min : 0,
			       k && k->split ? k->split : PA_JOURNAL_RECORD_SPLIT,
			       random_u64());

	if (rc < 0)
		return rc;
	if (!j->n) {
		journal_free(j);
		return -EINVAL;
	}
	rc = marker_originals(&io, j);
	if (rc < 0) {
		journal_free(j);
		return rc;
	}
	/* on dos only the low 32 bits reach the disk: non-zero, and not the signature */
	do
		j->move_id = random_u64();
	while ((uint32_t)j->move_id == 0 ||
	       (strncmp(j->label, "dos:", 4) == 0 &&
		strtoul(j->label + 4, NULL, 16) == (uint32_t)j->move_id));
	journal_relayout(j);
	return 0;
}

int apply_marker_write(struct pa_disk *d, struct pa_writer *w, const struct pa_journal *j,
		       const char *journal_path)
{
	struct image im;
	struct marker_io io = {rd_img, wr_img, &im, d->logical, d->size};
	struct pa_marker m;
	uint64_t written = 0;
	int rc = image_load(d, &im);

	if (rc == 0)
		rc = marker_set(&io, j, journal_path);
	if (rc == 0)
		rc = apply_write_regions(w, im.r, im.b, im.n, &written);
	image_free(&im);
	if (rc < 0)
		return rc;
	/* the disk must now say it: what the next run will read */
	rc = apply_disk_marker(d, &m);
	if (rc < 0)
		return rc;
	return rc == 1 && marker_matches(&m, j) && m.n == j->n ? 0 : -EIO;
}
