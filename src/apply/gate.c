/*
 * The write gate.  apply_gate_open() is the only place in partalign that
 * opens a disk for writing; `plan` never calls it.  Everything that writes
 * takes the struct pa_writer it returns.
 */
#include "config.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/apply.h"
#include "core/crc32.h"
#include "shared/endian.h"
#include "shared/fileio.h"

struct pa_writer {
	struct pa_disk *d;
	struct pa_proof *proof;
	int dfd; /* O_DIRECT: label sectors */
	int bfd; /* buffered: libblkid's signature wipes write a few bytes */
};

/* Descriptors of this process on the disk while the gate is open: fd, lockfd, dfd, bfd */
#define GATE_OWN_OPENS 4

int apply_gate_open(struct pa_disk *d, struct pa_proof *proof, struct pa_writer **out)
{
	struct pa_writer *w = calloc(1, sizeof(*w));
	struct stat a, b, c;
	int rc;

	if (!w)
		return -ENOMEM;
	w->d = d;
	w->proof = proof;
	w->dfd = open(d->path, O_RDWR | O_DIRECT | O_CLOEXEC);
	w->bfd = open(d->path, O_RDWR | O_CLOEXEC);
	if (w->dfd < 0 || w->bfd < 0) {
		rc = -errno;
		goto fail;
	}
	/* the node must still be the disk that was checked and locked */
	if (fstat(d->fd, &a) < 0 || fstat(w->dfd, &b) < 0 || fstat(w->bfd, &c) < 0) {
		rc = -errno;
		goto fail;
	}
	if (a.st_rdev != b.st_rdev || a.st_rdev != c.st_rdev) {
		rc = -ESTALE;
		goto fail;
	}
	/* no byte before the disk is proven to be what the plan was made from */
	rc = apply_proof_check(proof, d->fd, w->dfd, GATE_OWN_OPENS);
	if (rc < 0)
		goto fail;
	*out = w;
	return 0;
fail:
	apply_gate_close(w);
	return rc;
}

int apply_gate_prove(struct pa_writer *w)
{
	return apply_proof_check(w->proof, w->d->fd, w->dfd, GATE_OWN_OPENS);
}

void apply_gate_close(struct pa_writer *w)
{
	if (!w)
		return;
	/*
	 * The writes went around the page cache (O_DIRECT); a buffered read by
	 * anyone that raced with them may have cached the old bytes.  Drop the
	 * clean cached pages, so the next reader (sfdisk, blkid, our own next
	 * run) reads the disk.
	 */
	if (w->bfd >= 0)
		posix_fadvise(w->bfd, 0, 0, POSIX_FADV_DONTNEED);
	if (w->dfd >= 0)
		close(w->dfd);
	if (w->bfd >= 0)
		close(w->bfd);
	free(w);
}

int apply_gate_direct_fd(const struct pa_writer *w)
{
	return w->dfd;
}

/* Write @len bytes of @src at @off unless the disk holds them already; then flush. */
static int put(struct pa_writer *w, const void *src, uint64_t off, uint64_t len,
	       uint64_t *written)
{
	void *cur = NULL, *buf = NULL;
	int rc;

	if (!len)
		return 0;
	if (posix_memalign(&cur, 4096, len) || posix_memalign(&buf, 4096, len)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = pread_all(w->dfd, cur, (size_t)len, off);
	if (rc < 0 || memcmp(cur, src, len) == 0)
		goto out;
	memcpy(buf, src, len);
	rc = pwrite_all(w->dfd, buf, (size_t)len, off);
	if (rc == 0 && fsync(w->dfd) < 0)
		rc = -errno;
	if (rc == 0) {
		*written += len;
		apply_proof_wrote(w->proof, off, src, len);
	}
out:
	free(cur);
	free(buf);
	return rc;
}

/*
 * The head of the new label (@len bytes from sector 0, @buf): sector 0 last
 * but for the primary GPT header, and never two valid labels at once.
 * While sector 0 stays what it is (GPT -> GPT): the primary's header and
 * entries in one write, then sector 0 (unchanged: skipped).  When sector 0
 * changes (dos -> GPT; a grown disk's protective MBR): the entries, the
 * header with a checksum made wrong on purpose, sector 0, the header as it
 * is.  So a cut before sector 0 leaves the dos table the only valid label
 * (not a dos sector 0 beside a valid GPT header, which readers take
 * differently), and a cut after it a GPT whose primary is torn and whose new
 * backup is whole, which the kernel, libparted and sfdisk read and the next
 * fix rewrites -- as after a power cut in the middle of the header's write.
 */
static int put_head(struct pa_writer *w, const unsigned char *buf, uint64_t len,
		    uint64_t *written)
{
	uint32_t l = w->d->logical;
	unsigned char *now = NULL, *torn = NULL;
	int rc;

	if (len <= l)
		return put(w, buf, 0, len, written);
	if (posix_memalign((void **)&now, 4096, l) ||
	    posix_memalign((void **)&torn, 4096, l)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = pread_all(w->dfd, now, l, 0);
	if (rc < 0)
		goto out;
	if (memcmp(now, buf, l) == 0 || len < 2ull * l + 1 || l < 92) {
		rc = put(w, buf + l, l, len - l, written);
		if (rc == 0)
			rc = put(w, buf, 0, l, written);
		goto out;
	}
	memcpy(torn, buf + l, l);
	torn[16] ^= 0xff; /* the header CRC: wrong until sector 0 is there */
	rc = put(w, buf + 2 * l, 2ull * l, len - 2ull * l, written);
	if (rc == 0)
		rc = put(w, torn, l, l, written);
	if (rc == 0)
		rc = put(w, buf, 0, l, written);
	if (rc == 0)
		rc = put(w, buf + l, l, l, written);
out:
	free(now);
	free(torn);
	return rc;
}

/*
 * Sector 0 is about to change to @s0 while LBA 1 holds a GPT header the new
 * label does not rewrite (a dos table restored over a GPT): the header is
 * made torn first (its checksum wrong), so that no moment has a dos sector 0
 * beside a valid primary GPT; until sector 0 changes, the backup GPT, which
 * is still there, is the one read.
 */
static int tear_primary(struct pa_writer *w, const unsigned char *s0, uint64_t *written)
{
	uint32_t l = w->d->logical, hs, want;
	unsigned char *cur = NULL, *h = NULL;
	int rc;

	if (posix_memalign((void **)&cur, 4096, l) ||
	    posix_memalign((void **)&h, 4096, l)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = pread_all(w->dfd, cur, l, 0);
	if (rc < 0 || memcmp(cur, s0, l) == 0)
		goto out;
	rc = pread_all(w->dfd, h, l, l);
	hs = rc == 0 ? get_le32(h + 12) : 0;
	if (rc < 0 || memcmp(h, "EFI PART", 8) || hs < 92 || hs > l)
		goto out;
	want = get_le32(h + 16);
	put_le32(h + 16, 0);
	if (crc32_update(0, h, hs) != want)
		goto out; /* not valid now: nothing to tear */
	put_le32(h + 16, want ^ 1);
	rc = put(w, h, l, l, written);
out:
	free(cur);
	free(h);
	return rc;
}

int apply_write_regions(struct pa_writer *w, const struct pa_extent *regs,
			void *const *bufs, size_t n, uint64_t *written)
{
	size_t i;
	int rc;

	*written = 0;
	/* everything away from sector 0 first, last region first: the backup GPT */
	for (i = n; i-- > 0;) {
		if (regs[i].off == 0 || regs[i].late)
			continue;
		rc = put(w, bufs[i], regs[i].off, regs[i].len, written);
		if (rc < 0)
			return rc;
	}
	/* then the head */
	for (i = 0; i < n; i++) {
		if (regs[i].off != 0)
			continue;
		if (regs[i].len <= w->d->logical &&
		    (rc = tear_primary(w, bufs[i], written)) < 0)
			return rc;
		rc = put_head(w, bufs[i], regs[i].len, written);
		if (rc < 0)
			return rc;
	}
	/* last, old label sectors the new label does not use (dos EBRs) */
	for (i = 0; i < n; i++) {
		if (!regs[i].late || regs[i].off == 0)
			continue;
		rc = put(w, bufs[i], regs[i].off, regs[i].len, written);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int apply_wipe(struct pa_writer *w, uint64_t off, uint64_t len, unsigned int *wiped)
{
	blkid_probe pr = blkid_new_probe();
	int rc = 0;

	*wiped = 0;
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, w->bfd, (blkid_loff_t)off, (blkid_loff_t)len) <
	    0) {
		rc = -EIO;
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	while (blkid_do_probe(pr) == 0) {
		if (blkid_do_wipe(pr, 0) < 0) {
			rc = -errno ? -errno : -EIO;
			goto out;
		}
		(*wiped)++;
	}
	if (fsync(w->bfd) < 0)
		rc = -errno;
out:
	blkid_free_probe(pr);
	return rc;
}

struct kp {
	unsigned int num;
	uint64_t start, size;
};

/* The kernel's partitions of @whole, from sysfs. */
static int kernel_parts(const struct pa_dev *whole, struct kp **out, size_t *n)
{
	char dir[PATH_MAX], p[PATH_MAX + 300], buf[64];
	struct dirent *de;
	struct kp *v = NULL;
	size_t k = 0;
	DIR *dd;

	snprintf(dir, sizeof(dir), "/sys/class/block/%s", whole->name);
	dd = opendir(dir);
	if (!dd)
		return -errno;
	while ((de = readdir(dd))) {
		unsigned long long num, start, size;
		struct kp *nv;
		FILE *f;
		int ok = 0;

		if (strncmp(de->d_name, whole->name, strlen(whole->name)) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", dir, de->d_name);
		if ((f = fopen(p, "re"))) {
			ok += fscanf(f, "%llu", &num) == 1;
			fclose(f);
		}
		snprintf(p, sizeof(p), "%s/%s/start", dir, de->d_name);
		if ((f = fopen(p, "re"))) {
			ok += fscanf(f, "%llu", &start) == 1;
			fclose(f);
		}
		snprintf(p, sizeof(p), "%s/%s/size", dir, de->d_name);
		if ((f = fopen(p, "re"))) {
			ok += fscanf(f, "%llu", &size) == 1;
			fclose(f);
		}
		if (ok != 3)
			continue;
		nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			closedir(dd);
			return -ENOMEM;
		}
		v = nv;
		v[k++] = (struct kp){(unsigned int)num, start * 512, size * 512};
	}
	closedir(dd);
	(void)buf;
	*out = v;
	*n = k;
	return 0;
}

static bool same(const struct kp *k, const struct pa_kpart *p)
{
	return k->num == p->num && k->start == p->start && k->size == p->size;
}

bool apply_kernel_matches(const struct pa_dev *whole, const struct pa_kpart *parts,
			  size_t n)
{
	struct kp *k = NULL;
	size_t nk = 0, i, j, found = 0;

	if (kernel_parts(whole, &k, &nk) < 0)
		return false;
	for (i = 0; i < nk; i++)
		for (j = 0; j < n; j++)
			found += same(&k[i], &parts[j]);
	free(k);
	return found == n && nk == n;
}

static int blkpg(int fd, int op, unsigned int num, uint64_t start, uint64_t size)
{
	struct blkpg_partition part = {
	    .start = (long long)start, .length = (long long)size, .pno = (int)num};
	struct blkpg_ioctl_arg arg = {.op = op, .datalen = sizeof(part), .data = &part};

	return ioctl(fd, BLKPG, &arg) < 0 ? -errno : 0;
}

/*
 * Delete partition @num from the kernel.  EBUSY means someone has it open;
 * a prober (udev's blkid after our close, another tool's scan) lets go
 * within milliseconds, a mount never: retried for a second, then reported.
 */
static int blkpg_del(int fd, unsigned int num)
{
	int rc, tries = 0;

	while ((rc = blkpg(fd, BLKPG_DEL_PARTITION, num, 0, 0)) == -EBUSY && ++tries < 20)
		usleep(50 * 1000);
	return rc;
}

int apply_kernel_take(struct pa_disk *d, const struct pa_dev *whole,
		      const struct pa_kpart *keep, size_t nkeep, struct pa_kpart *taken,
		      size_t max, size_t *ntaken, unsigned int *busy)
{
	struct kp *k = NULL;
	size_t nk = 0, i, j;
	int rc;

	*ntaken = 0;
	if (whole->dm_uuid)
		return -EOPNOTSUPP;
	rc = kernel_parts(whole, &k, &nk);
	for (i = 0; rc == 0 && i < nk; i++) {
		bool stays = false;

		for (j = 0; j < nkeep && !stays; j++)
			stays = same(&k[i], &keep[j]);
		if (stays)
			continue;
		if (*ntaken >= max) {
			rc = -E2BIG;
		} else if ((rc = blkpg_del(d->fd, k[i].num)) == -ENXIO) {
			rc = 0; /* gone already */
		} else if (rc == 0) {
			taken[(*ntaken)++] =
			    (struct pa_kpart){k[i].num, k[i].start, k[i].size};
		} else {
			*busy = k[i].num;
		}
	}
	free(k);
	if (rc < 0) {
		/* nothing is written yet: the kernel gets back what it had */
		apply_kernel_give(d, taken, *ntaken);
		*ntaken = 0;
	}
	return rc;
}

void apply_kernel_give(struct pa_disk *d, const struct pa_kpart *parts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		blkpg(d->fd, BLKPG_ADD_PARTITION, parts[i].num, parts[i].start,
		      parts[i].size);
}

int apply_kernel_del(struct pa_disk *d, unsigned int num)
{
	return blkpg_del(d->fd, num);
}

int apply_kernel_add(struct pa_disk *d, unsigned int num, uint64_t start, uint64_t size)
{
	return blkpg(d->fd, BLKPG_ADD_PARTITION, num, start, size);
}

int apply_kernel_sync(struct pa_disk *d, const struct pa_dev *whole,
		      const struct pa_kpart *parts, size_t n, struct pa_diags *msgs)
{
	struct kp *k = NULL;
	size_t nk = 0, i, j;
	int rc, result = 0;

	if (whole->dm_uuid)
		return -EOPNOTSUPP; /* a dm map has kpartx maps, not kernel partitions */
	rc = kernel_parts(whole, &k, &nk);
	if (rc < 0)
		return rc;
	for (i = 0; i < nk; i++) {
		bool keep = false;

		for (j = 0; j < n && !keep; j++)
			keep = same(&k[i], &parts[j]);
		if (keep)
			continue;
		rc = blkpg_del(d->fd, k[i].num);
		if (rc < 0) {
			diag_add(msgs, d->path, -rc, "the kernel keeps partition %u",
				 k[i].num);
			result = -EBUSY;
		}
	}
	for (j = 0; j < n; j++) {
		bool have = false;

		for (i = 0; i < nk && !have; i++)
			have = same(&k[i], &parts[j]);
		if (have)
			continue;
		rc = blkpg(d->fd, BLKPG_ADD_PARTITION, parts[j].num, parts[j].start,
			   parts[j].size);
		if (rc < 0) {
			diag_add(msgs, d->path, -rc, "the kernel cannot add partition %u",
				 parts[j].num);
			result = -EBUSY;
		}
	}
	free(k);
	return result;
}
