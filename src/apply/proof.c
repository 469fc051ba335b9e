/*
 * The proof that the disk is still what the plan was made from.  Taken when
 * the table is read (apply_proof_take): the disk's size and sector sizes
 * and the bytes of its label areas (sector 0, both GPT headers and entry
 * arrays, the dos EBRs; a blank disk's first and last sectors).  Checked
 * under the write gate before the first byte and again before each later
 * table write (apply_proof_check): the same sizes, the same bytes, the same
 * signatures in the partitions the plan re-creates, and no other process
 * holding the disk, its partitions or a multipath map's partition maps
 * open.  What partalign itself writes through the gate is folded in
 * (apply_proof_wrote), so its own marker is not mistaken for another tool.
 *
 * The proof owns its regions and their bytes; the device list it watches
 * belongs to the caller and must outlive it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "apply/apply.h"
#include "core/label.h"
#include "scan/holders.h"
#include "shared/sys.h"
#include "scan/scan.h"
#include "shared/fileio.h"

#define MAX_REGIONS 260
/* the bytes a GPT occupies at either end with 128 entries of 512-byte sectors */
#define BLANK_LEN (34u * 512u)
/*
 * Openers seen are watched this long before they count (a prober's open
 * lasts milliseconds): the look before the question briefly, the check under
 * the gate, which decides the write, longer.  Only the holders found are
 * looked at again while waiting (one process each); the whole of /proc is
 * read again only when all of them have let go.
 */
#define OPENER_LOOK_MS 250
#define OPENER_GATE_MS 1000
#define OPENER_POLL_US (20 * 1000)

struct region {
	struct pa_extent ext;
	enum pa_area area;
	unsigned char *bytes;
};

struct pa_proof {
	uint64_t size;
	uint32_t logical, physical;
	size_t n;
	struct region v[MAX_REGIONS];
	/* watched: the device list, the disk in it, and the plan's expectations */
	const struct pa_devlist *l;
	const struct pa_dev *dev;
	const struct pa_plan *plan;
	struct pa_change change; /* what the last failed check found */
};

static int rd_disk(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_zero(((struct pa_disk *)ctx)->fd, buf, len, off);
}

static int add(struct pa_proof *p, uint64_t off, uint64_t len, enum pa_area area)
{
	if (!len || off >= p->size)
		return 0;
	if (len > p->size - off)
		len = p->size - off;
	if (p->n == MAX_REGIONS)
		return -E2BIG;
	p->v[p->n++] = (struct region){{.off = off, .len = len}, area, NULL};
	return 0;
}

/* Where the label of the table on @d lies, whatever its kind. */
static int regions(struct pa_disk *d, struct pa_proof *p)
{
	uint32_t l = d->logical;
	uint64_t head, tail, ebrs[MAX_REGIONS - 1], blank;
	unsigned char s0[512];
	bool gpt, dos;
	int k, i, rc;

	rc = rd_disk(d, 0, s0, sizeof(s0));
	if (rc < 0)
		return rc;
	/*
	 * Both labels where both are there: a dos sector 0 (which the kernel
	 * and libparted read) beside a valid GPT, whichever a reader takes, is
	 * proven whole -- the GPT areas and every EBR.
	 */
	gpt =
	    label_gpt_extent(rd_disk, d, l, &head, &tail) == 0 && head + tail <= d->size;
	dos = s0[510] == 0x55 && s0[511] == 0xaa;
	for (i = 0; i < 4 && dos; i++)
		dos = s0[446 + 16 * i + 4] != 0xee;
	if (gpt || dos)
		rc = add(p, 0, l, PA_AREA_SECTOR0);
	if (gpt) {
		if (rc == 0)
			rc = add(p, l, l, PA_AREA_GPT_HEADER);
		if (rc == 0)
			rc = add(p, 2ull * l, head - 2ull * l, PA_AREA_GPT_ENTRIES);
		if (rc == 0)
			rc = add(p, d->size - tail, tail - l, PA_AREA_GPT_BACKUP_ENTRIES);
		if (rc == 0)
			rc = add(p, d->size - l, l, PA_AREA_GPT_BACKUP_HEADER);
	}
	if (dos) {
		k = label_dos_ebrs(rd_disk, d, l, ebrs, MAX_REGIONS - 6);
		if (k < 0)
			return k;
		for (i = 0; i < k && rc == 0; i++)
			rc = add(p, ebrs[i], l, PA_AREA_EBR);
	}
	if (gpt || dos)
		return rc;
	/* no table: where one would be found, at both ends */
	blank = (BLANK_LEN + l - 1) / l * l;
	rc = add(p, 0, blank, PA_AREA_DISK_START);
	if (rc == 0 && d->size > 2 * blank)
		rc = add(p, d->size - blank, blank, PA_AREA_DISK_END);
	return rc;
}

int apply_proof_take(struct pa_disk *d, const struct pa_devlist *l,
		     const struct pa_dev *dev, struct pa_proof **out)
{
	struct pa_proof *p = calloc(1, sizeof(*p));
	size_t i;
	int rc;

	if (!p)
		return -ENOMEM;
	p->size = d->size;
	p->logical = d->logical;
	p->physical = d->physical;
	p->l = l;
	p->dev = dev;
	/* what the disk holds, not what the page cache kept */
	posix_fadvise(d->fd, 0, 0, POSIX_FADV_DONTNEED);
	rc = regions(d, p);
	for (i = 0; rc == 0 && i < p->n; i++)
		rc = apply_disk_read(d, &p->v[i].ext, (void **)&p->v[i].bytes);
	if (rc < 0) {
		apply_proof_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void apply_proof_free(struct pa_proof *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->v[i].bytes);
	free(p);
}

void apply_proof_expect(struct pa_proof *p, const struct pa_plan *plan)
{
	p->plan = plan;
}

const struct pa_change *apply_proof_change(const struct pa_proof *p)
{
	return &p->change;
}

void apply_proof_wrote(struct pa_proof *p, uint64_t off, const void *buf, uint64_t len)
{
	size_t i;

	for (i = 0; p && i < p->n; i++) {
		const struct pa_extent *e = &p->v[i].ext;
		uint64_t a = off > e->off ? off : e->off;
		uint64_t b = off + len < e->off + e->len ? off + len : e->off + e->len;

		if (a < b)
			memcpy(p->v[i].bytes + (a - e->off),
			       (const char *)buf + (a - off), b - a);
	}
}

static int changed(struct pa_proof *p, enum pa_change_kind kind)
{
	memset(&p->change, 0, sizeof(p->change));
	p->change.kind = kind;
	return -ESTALE;
}

static int check_geometry(struct pa_proof *p, int fd);

int apply_proof_geometry(struct pa_proof *p, struct pa_disk *d)
{
	return p ? check_geometry(p, d->fd) : 0;
}

/* The size and sector sizes the kernel gives the disk now. */
static int check_geometry(struct pa_proof *p, int fd)
{
	unsigned long long size = 0;
	unsigned int psz = 0;
	int lsz = 0;

	if (ioctl(fd, BLKGETSIZE64, &size) < 0 || ioctl(fd, BLKSSZGET, &lsz) < 0 ||
	    ioctl(fd, BLKPBSZGET, &psz) < 0)
		return -errno;
	if (size != p->size) {
		changed(p, PA_CHANGE_SIZE);
		p->change.was = p->size;
		p->change.now = size;
		return -ESTALE;
	}
	if ((uint32_t)lsz != p->logical || psz != p->physical) {
		changed(p, PA_CHANGE_SECTORS);
		p->change.was = p->logical;
		p->change.now = (uint32_t)lsz;
		p->change.was2 = p->physical;
		p->change.now2 = psz;
		return -ESTALE;
	}
	return 0;
}

/* The label bytes, read around the page cache (@dfd is O_DIRECT). */
static int check_bytes(struct pa_proof *p, int dfd)
{
	void *buf = NULL;
	size_t i, max = 0;
	int rc = 0;

	for (i = 0; i < p->n; i++)
		if (p->v[i].ext.len > max)
			max = p->v[i].ext.len;
	if (posix_memalign(&buf, 4096, max ? max : 4096))
		return -ENOMEM;
	for (i = 0; i < p->n && rc == 0; i++) {
		const struct region *r = &p->v[i];
		const unsigned char *now = buf;
		uint64_t k;

		rc = pread_all(dfd, buf, r->ext.len, r->ext.off);
		if (rc < 0 || memcmp(buf, r->bytes, r->ext.len) == 0)
			continue;
		for (k = 0; now[k] == r->bytes[k]; k++)
			;
		rc = changed(p, PA_CHANGE_LABEL);
		p->change.area = r->area;
		p->change.off = r->ext.off + k;
	}
	free(buf);
	return rc;
}

/* The signatures the plan found in what it re-creates, found there again. */
static int check_signatures(struct pa_proof *p, int fd)
{
	const struct pa_plan *plan = p->plan;
	size_t i;

	for (i = 0; plan && i < plan->n; i++) {
		const struct pa_step *s = &plan->v[i];
		const char *was;
		uint64_t off, len;
		char *now;
		bool same;

		if (s->kind == PA_STEP_RECREATE) {
			off = s->old->start;
			len = s->old->size;
			was = s->old->signature;
		} else if (s->kind == PA_STEP_CREATE) {
			off = 0;
			len = plan->table.disk_size;
			was = plan->table.signature;
		} else {
			continue;
		}
		cache_drop(fd, off, len);
		now = scan_probe_signature(fd, off, len);
		same = (!now && !was) || (now && was && strcmp(now, was) == 0);
		if (!same) {
			changed(p, PA_CHANGE_SIGNATURE);
			p->change.num = s->kind == PA_STEP_CREATE ? 0 : s->num;
			snprintf(p->change.was_sig, sizeof(p->change.was_sig), "%s",
				 was ? was : "");
			snprintf(p->change.now_sig, sizeof(p->change.now_sig), "%s",
				 now ? now : "");
		}
		free(now);
		if (!same)
			return -ESTALE;
	}
	return 0;
}

/* The disk, its partitions and a map's partition maps, by device number. */
static size_t watched(const struct pa_proof *p, dev_t *devs, size_t max)
{
	size_t i, n = 0;

	devs[n++] = makedev(p->dev->major, p->dev->minor);
	for (i = 0; i < p->l->n && n < max; i++) {
		const struct pa_dev *d = p->l->v[i];

		if (d->disk == p->dev && d->kind == PA_KIND_PART && !d->kernel_missing)
			devs[n++] = makedev(d->major, d->minor);
	}
	return n;
}

/*
 * Nothing else holds any of them: no loop device is set up on them and no
 * other process has them open or mapped, watched for @wait_ms (a prober's
 * open is waited out).
 */
static int check_openers(struct pa_proof *p, int wait_ms, struct pa_opener_index *ix)
{
	struct pa_openers o;
	struct pa_holder loop;
	uint64_t until;
	size_t n;
	dev_t *devs;
	int rc;

	if (!p->l || !p->dev)
		return 0;
	devs = calloc(p->l->n + 1, sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	n = watched(p, devs, p->l->n + 1);
	rc = scan_loops_over(devs, n, &loop);
	if (rc > 0) {
		free(devs);
		changed(p, PA_CHANGE_OPENED);
		p->change.holder = PA_HOLDER_LOOP;
		p->change.count = (size_t)rc;
		p->change.devno = loop.dev;
		snprintf(p->change.comm, sizeof(p->change.comm), "%.31s", loop.name);
		return -EBUSY;
	}
	/*
	 * With a run's index, a holder has been watched since the index was
	 * made: the second disk of a run waits for nobody twice.
	 */
	if (!ix)
		rc = scan_openers(devs, n, &o);
	else if ((rc = ix->made ? 0 : scan_openers_index(ix)) == 0)
		rc = scan_openers_lookup(ix, devs, n, &o);
	until = (ix && rc == 0 ? ix->made_ms : sys_mono_ms()) + (uint64_t)wait_ms;
	while (rc == 0 && o.count && sys_mono_ms() < until) {
		usleep(OPENER_POLL_US);
		if (!scan_openers_still_held(&o))
			rc = scan_openers(devs, n, &o);
	}
	free(devs);
	if (rc < 0 || !o.count)
		return rc;
	changed(p, PA_CHANGE_OPENED);
	p->change.holder = o.v[0].kind;
	p->change.pid = o.v[0].pid;
	p->change.tid = o.v[0].tid;
	p->change.count = o.count;
	p->change.devno = o.v[0].dev;
	snprintf(p->change.comm, sizeof(p->change.comm), "%s", o.v[0].comm);
	return -EBUSY;
}

/*
 * A multipath map: the device-mapper's open counts.  Each partition map
 * holds the map once; this process holds it @own times.
 */
static int check_map(struct pa_proof *p, int own)
{
	const struct pa_dev *map = p->dev;
	int parts = 0, count;
	size_t i;

	if (!p->l || !map || map->kind != PA_KIND_MPATH)
		return 0;
	for (i = 0; i < p->l->n; i++) {
		const struct pa_dev *d = p->l->v[i];

		if (d->kind != PA_KIND_PART || d->disk != map || !d->dm_uuid ||
		    scan_dm_open_count(d->major, d->minor, &count) < 0)
			continue; /* a map taken away for a move holds nothing */
		parts++;
		if (count > 0) {
			changed(p, PA_CHANGE_MAP_OPEN);
			p->change.devno = makedev(d->major, d->minor);
			p->change.count = (size_t)count;
			return -EBUSY;
		}
	}
	if (scan_dm_open_count(map->major, map->minor, &count) == 0 &&
	    count > parts + own) {
		changed(p, PA_CHANGE_MAP_OPEN);
		p->change.devno = makedev(map->major, map->minor);
		p->change.count = (size_t)(count - parts - own);
		return -EBUSY;
	}
	return 0;
}

int apply_proof_check(struct pa_proof *p, int fd, int dfd, int own)
{
	int rc;

	memset(&p->change, 0, sizeof(p->change));
	rc = check_geometry(p, dfd);
	if (rc == 0)
		rc = check_bytes(p, dfd);
	if (rc == 0)
		rc = check_signatures(p, fd);
	if (rc == 0)
		rc = check_map(p, own);
	if (rc == 0)
		rc = check_openers(p, OPENER_GATE_MS, NULL);
	return rc;
}

int apply_proof_openers(struct pa_proof *p, struct pa_opener_index *ix)
{
	memset(&p->change, 0, sizeof(p->change));
	return check_openers(p, OPENER_LOOK_MS, ix);
}
