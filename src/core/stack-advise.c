/*
 * Alignment through a storage stack: the advice for the layer blamed (the
 * command that would fix it, for partalign writes nothing there) and the
 * file system's stripe geometry against the device it sits on.  The walk
 * and the verdicts are in stack.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/stack-advise.h"
#include "core/units.h"

/* "192k", "6m", "9s": in the largest of k, m, g that divides, else in sectors */
static const char *lvm_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes % (1ull << 30) == 0)
		snprintf(buf, len, "%" PRIu64 "g", bytes >> 30);
	else if (bytes % (1ull << 20) == 0)
		snprintf(buf, len, "%" PRIu64 "m", bytes >> 20);
	else if (bytes % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 "k", bytes >> 10);
	else
		snprintf(buf, len, "%" PRIu64 "s", bytes / 512);
	return buf;
}

/* the smallest p >= @old with (base + p) % g == 0 */
static int next_offset(uint64_t base, uint64_t old, uint64_t g, uint64_t *p)
{
	uint64_t at, up;

	if (!g)
		return -EINVAL;
	if (__builtin_add_overflow(base, old, &at))
		return -ERANGE;
	up = (g - at % g) % g;
	if (__builtin_add_overflow(at, up, &at))
		return -ERANGE;
	*p = at - base;
	return 0;
}

static void member_list(const struct pa_stack *s, const struct pa_stack_dev *d, char *buf,
			size_t len)
{
	size_t used = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < d->nmembers && used + 1 < len; k++) {
		snprintf(buf + used, len - used, " /dev/%s",
			 stack_dev_name(s, d->members[k].dev));
		used = strlen(buf);
	}
}

int stack_advise(const struct pa_stack *s, unsigned int dev,
		 const struct pa_stack_verdict *v, char *buf, size_t len)
{
	const struct pa_stack_dev *b;
	uint64_t g = v->fix_grain ? v->fix_grain : v->grain, p;
	char x[32], y[32], z[256];
	unsigned int bad, k;
	int r;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	r = stack_validate(s, &bad);
	if (r)
		return r;
	if (dev >= s->ndevs || v->blame_dev >= s->ndevs)
		return -EINVAL;
	if (!v->blamed)
		return 0;
	b = &s->dev[v->blame_dev];
	switch (v->blame) {
	case PA_TERM_PART_START:
		snprintf(buf, len, "partalign plan /dev/%s", stack_dev_name(s, b->lower));
		break;
	case PA_TERM_PE_START: {
		/* the PV's own device must start on the grain too: else an offset */
		const char *vg = s->dev[dev].kind == PA_STACK_LV && s->dev[dev].vg
				     ? s->dev[dev].vg
				     : "VG";
		uint64_t skew = (g - v->blame_base % g) % g;

		if (skew)
			snprintf(z, sizeof(z), " --dataalignmentoffset %s",
				 lvm_size(skew, y, sizeof(y)));
		else
			z[0] = '\0';
		snprintf(buf, len,
			 "pvcreate --dataalignment %s%s NEWPV; vgextend %s NEWPV; "
			 "pvmove /dev/%s NEWPV; vgreduce %s /dev/%s",
			 lvm_size(g, x, sizeof(x)), z, vg,
			 stack_dev_name(s, v->blame_dev), vg,
			 stack_dev_name(s, v->blame_dev));
		break;
	}
	case PA_TERM_EXTENTS:
		/* the smallest multiple of the grain not below the current size */
		if (__builtin_add_overflow(b->extent_size, g - 1, &p))
			return -ERANGE;
		p = p / g * g;
		snprintf(
		    buf, len,
		    "vgcreate -s %s NEWVG NEWPV (extent size %s keeps every LV of VG %s "
		    "on the %s grain; copy the data over)",
		    lvm_size(p, x, sizeof(x)), units_exact(p, z, sizeof(z)),
		    b->vg ? b->vg : "?", units_exact(g, y, sizeof(y)));
		break;
	case PA_TERM_PAYLOAD:
		r = next_offset(v->blame_base, b->offset, g, &p);
		if (r)
			return r;
		snprintf(buf, len,
			 "cryptsetup luksFormat --offset %" PRIu64
			 " NEWDEV (payload at %s; "
			 "copy the data over)",
			 p / 512, units_exact(p, x, sizeof(x)));
		break;
	case PA_TERM_DATA_OFFSET:
	case PA_TERM_ROW: {
		uint64_t chunk = b->chunk, off = 0;

		if (b->kind != PA_STACK_MD) {
			snprintf(buf, len,
				 "a new %s with a chunk that is a multiple of %s "
				 "(lvcreate -I / "
				 "dmsetup), then move the data",
				 stack_kind_word(b->kind), units_exact(g, x, sizeof(x)));
			break;
		}
		if (v->blame == PA_TERM_ROW) {
			chunk = align_lcm(chunk, v->grain);
			if (!chunk)
				return -ERANGE;
		}
		for (k = 0; k < b->nmembers; k++)
			if (b->members[k].data_offset > off)
				off = b->members[k].data_offset;
		if (v->blame == PA_TERM_DATA_OFFSET) {
			r = next_offset(v->blame_base, off, g, &off);
			if (r)
				return r;
		}
		member_list(s, b, z, sizeof(z));
		snprintf(
		    buf, len,
		    "mdadm --create /dev/%s --level=%u --raid-devices=%u --chunk=%" PRIu64
		    "K --data-offset=%" PRIu64 "K%s",
		    stack_dev_name(s, v->blame_dev), b->level, b->nmembers, chunk / 1024,
		    off / 1024, z);
		break;
	}
	case PA_TERM_DM_OFFSET:
	case PA_TERM_WITHIN:
		snprintf(
		    buf, len,
		    "%s %s: a table whose offsets are multiples of %s (dmsetup reload), "
		    "or move the data",
		    stack_kind_word(b->kind), stack_dev_name(s, v->blame_dev),
		    units_exact(g, x, sizeof(x)));
		break;
	}
	return 0;
}

static int fs_geom(uint32_t unit, uint32_t width, uint32_t blocksize, const char *fs,
		   struct pa_fs_geom *g)
{
	memset(g, 0, sizeof(*g));
	if (!blocksize)
		return -EINVAL;
	g->fs = fs;
	g->blocksize = blocksize;
	g->unit = (uint64_t)unit * blocksize; /* 32 x 32 bits: cannot wrap */
	g->width = (uint64_t)width * blocksize;
	return 0;
}

int stack_fs_xfs(uint32_t sb_unit, uint32_t sb_width, uint32_t blocksize,
		 struct pa_fs_geom *g)
{
	return fs_geom(sb_unit, sb_width, blocksize, "XFS", g);
}

int stack_fs_ext4(uint32_t stride, uint32_t stripe_width, uint32_t blocksize,
		  struct pa_fs_geom *g)
{
	return fs_geom(stride, stripe_width, blocksize, "ext4", g);
}

static void fs_fix(const struct pa_fs_geom *g, uint64_t min_io, uint64_t opt_io,
		   char *fix, size_t len)
{
	/* a minimum I/O of 4 KiB or less is a sector, not a chunk */
	uint64_t su = min_io > 4096 && opt_io % min_io == 0 ? min_io : opt_io;
	uint64_t bs = g->blocksize ? g->blocksize : 4096;
	char a[32];

	if (!fix || !len)
		return;
	fix[0] = '\0';
	if (!su || !opt_io)
		return;
	if (g->fs && !strcmp(g->fs, "ext4"))
		snprintf(fix, len,
			 "mkfs.ext4 -b %" PRIu64 " -E stride=%" PRIu64
			 ",stripe_width=%" PRIu64,
			 bs, su / bs, opt_io / bs);
	else
		snprintf(fix, len, "mkfs.xfs -d su=%s,sw=%" PRIu64,
			 lvm_size(su, a, sizeof(a)), opt_io / su);
}

/* The reason being written: its buffer and where its clauses are. */
struct fs_text {
	char *buf;
	size_t size;
	bool more;
	struct pa_fs_clauses *cl;
};

static void fs_mark(struct fs_text *t, size_t off, size_t len)
{
	if (t->cl && t->cl->n < PA_FS_CLAUSES_MAX && off <= UINT16_MAX &&
	    len <= UINT16_MAX) {
		t->cl->v[t->cl->n].off = (uint16_t)off;
		t->cl->v[t->cl->n].len = (uint16_t)len;
		t->cl->n++;
	}
}

/* A clause after "; ", or "; ..." once when it has no room. */
static void fs_clause(struct fs_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fs_clause(struct fs_text *t, const char *fmt, ...)
{
	char piece[PA_REASON_TEXT_MAX];
	size_t used, sep;
	va_list ap;

	if (!t->size)
		return;
	used = strlen(t->buf);
	sep = used ? 2 : 0;
	va_start(ap, fmt);
	vsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	if (used + 2 + strlen(piece) >= t->size) {
		if (used + 5 < t->size && !t->more) {
			memcpy(t->buf + used, "; ...", 6);
			fs_mark(t, used + 2, 3);
		}
		t->more = true;
		return;
	}
	snprintf(t->buf + used, t->size - used, "%s%s", sep ? "; " : "", piece);
	fs_mark(t, used + sep, strlen(piece));
	t->more = false;
}

/* The reason of one clause only. */
static void fs_only(struct fs_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fs_only(struct fs_text *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->size)
		return;
	va_start(ap, fmt);
	vsnprintf(t->buf, t->size, fmt, ap);
	va_end(ap);
	fs_mark(t, 0, strlen(t->buf));
}

enum pa_verdict stack_fs_check(const struct pa_fs_geom *g, uint64_t min_io,
			       uint64_t opt_io, char *reason, size_t len, char *fix,
			       size_t fixlen, struct pa_fs_clauses *cl)
{
	struct fs_text t = {.buf = reason, .size = len, .cl = cl};
	const char *fs = g->fs ? g->fs : "the file system";
	bool ext4 = g->fs && !strcmp(g->fs, "ext4");
	const char *un = ext4 ? "stride" : "sunit",
		   *wn = ext4 ? "stripe_width" : "swidth";
	enum pa_verdict v = PA_VERDICT_OK;
	char a[32], b[32];

	if (cl)
		cl->n = 0;
	if (len)
		reason[0] = '\0';
	fs_fix(g, min_io, opt_io, fix, fixlen);
	if (!opt_io && !g->width && !g->unit) {
		fs_only(&t, "%s has no stripe geometry, nor does the device", fs);
		return PA_VERDICT_NA;
	}
	if (!opt_io) {
		fs_only(&t, "%s %s %s, the device reports no optimal I/O size", fs, wn,
			units_exact(g->width, a, sizeof(a)));
		return PA_VERDICT_NA;
	}
	if (!g->width || !g->unit) {
		fs_only(&t, "%s has no stripe geometry, the device's optimal I/O is %s",
			fs, units_exact(opt_io, a, sizeof(a)));
		return PA_VERDICT_MISALIGNED;
	}
	if (g->width % opt_io) {
		fs_clause(&t, "%s %s %s, the device's optimal I/O is %s", fs, wn,
			  units_exact(g->width, a, sizeof(a)),
			  units_exact(opt_io, b, sizeof(b)));
		v = PA_VERDICT_MISALIGNED;
	}
	if (min_io && g->unit % min_io) {
		fs_clause(&t, "%s %s %s, the device's minimum I/O is %s", fs, un,
			  units_exact(g->unit, a, sizeof(a)),
			  units_exact(min_io, b, sizeof(b)));
		v = PA_VERDICT_MISALIGNED;
	}
	if (g->width % g->unit) {
		fs_clause(&t, "%s %s %s is no multiple of its %s %s", fs, wn,
			  units_exact(g->width, a, sizeof(a)), un,
			  units_exact(g->unit, b, sizeof(b)));
		v = PA_VERDICT_MISALIGNED;
	}
	if (v == PA_VERDICT_OK && fix && fixlen)
		fix[0] = '\0';
	return v;
}
