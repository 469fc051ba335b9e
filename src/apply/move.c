/*
 * The data mover of fix --move-data (see move.h and core/journal.h).
 *
 * One move at a time.  Three threads share a few chunk buffers, each
 * handling the chunks strictly in processing order:
 *   reader  pread()s a chunk's source (O_DIRECT) and checksums it;
 *   saver   (save moves only) writes it to its ring slot in the journal and
 *           fdatasync()s the journal, batching what is ready;
 *   writer  pwrite()s it to its destination (O_DIRECT) once the rules
 *           allow: a saved chunk at once, otherwise only when every chunk
 *           whose source the write overwrites is durably recorded.
 * The calling thread records progress (checkpoints): it notes how many
 * chunks are written, fdatasync()s the disk, writes their checksums and a
 * progress record to the journal and fdatasync()s it; only then may the
 * threads overwrite the sources of those chunks or reuse their ring slots.
 * Memory: NBUF chunk buffers and CRC_CAP pending checksums, whatever the
 * partition size.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "apply/move.h"
#include "shared/fileio.h"

#define NBUF 8
#define CRC_CAP 4096u		   /* checksums of chunks written but not yet recorded */
#define CKPT_EVERY_NS 2000000000LL /* also record progress this often */

struct pa_mover {
	char *path;
	char *dir;
	char *pointer; /* a link to path in the default directory, or NULL */
	char *abs;     /* path made absolute */
	int fd;	       /* buffered: header, progress, checksums */
	int dfd;       /* O_DIRECT when the file system allows: the data ring */
	struct pa_journal j;
	struct pa_jprog prog; /* the newest progress record */
	/* the record before it, of the same move and fewer chunks: what holds if
	   prog's chunks are not all at their destinations (see settle_last) */
	struct pa_jprog prev;
	bool have_prev;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sync_fd(int fd)
{
	return fdatasync(fd) < 0 ? -errno : 0;
}

/* ---- the journal file ---- */

static void mover_close(struct pa_mover *m)
{
	if (m->fd >= 0)
		close(m->fd);
	if (m->dfd >= 0 && m->dfd != m->fd)
		close(m->dfd);
	m->fd = m->dfd = -1;
}

void move_free(struct pa_mover *m)
{
	if (!m)
		return;
	mover_close(m);
	journal_free(&m->j);
	free(m->path);
	free(m->dir);
	free(m->pointer);
	free(m->abs);
	free(m);
}

const struct pa_journal *move_journal(const struct pa_mover *m)
{
	return &m->j;
}

const char *move_path(const struct pa_mover *m)
{
	return m->path;
}

const char *move_path_abs(const struct pa_mover *m)
{
	return m->abs ? m->abs : m->path;
}

uint64_t move_remaining(const struct pa_mover *m)
{
	uint64_t left = 0;
	size_t k;

	for (k = m->prog.move; k < m->j.n; k++)
		left += m->j.v[k].len;
	if (m->prog.move < m->j.n) {
		uint64_t d = m->prog.done * m->j.v[m->prog.move].chunk;

		left -= d < m->j.v[m->prog.move].len ? d : m->j.v[m->prog.move].len;
	}
	return left;
}

/* The absolute path, once the directory exists. */
static void set_abs(struct pa_mover *m)
{
	char real[PATH_MAX];
	const char *base = strrchr(m->path, '/');

	free(m->abs);
	m->abs = NULL;
	if (realpath(m->dir, real) &&
	    asprintf(&m->abs, "%s/%s", real, base ? base + 1 : m->path) < 0)
		m->abs = NULL;
}

static struct pa_mover *mover_new(const char *path)
{
	struct pa_mover *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->fd = m->dfd = -1;
	m->path = strdup(path);
	m->dir = path_dir(path);
	if (m->dir && m->path)
		set_abs(m);
	if (!m->path || !m->dir) {
		move_free(m);
		return NULL;
	}
	return m;
}

/* The data ring wants O_DIRECT; a file system without it (tmpfs) gets buffered I/O. */
static int open_direct(struct pa_mover *m)
{
	if (!m->j.ring) {
		m->dfd = m->fd;
		return 0;
	}
	m->dfd = open(m->path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (m->dfd < 0 && errno == EINVAL)
		m->dfd = m->fd;
	return m->dfd < 0 ? -errno : 0;
}

/* The CRC-32 of the checksum table entries [0, n) of move @k, as on file. */
static int table_crc(struct pa_mover *m, size_t k, uint64_t n, uint32_t *crc)
{
	unsigned char buf[4096];
	uint64_t pos = journal_crc_pos(&m->j, k, 0), left = n * 4;
	int rc;

	*crc = 0;
	while (left) {
		size_t len = left < sizeof(buf) ? (size_t)left : sizeof(buf);

		rc = pread_all(m->fd, buf, len, pos);
		if (rc < 0)
			return rc;
		*crc = crc32_update(*crc, buf, len);
		pos += len;
		left -= len;
	}
	return 0;
}

/* The newest progress record whose checksum table agrees with it. */
static int load_progress(struct pa_mover *m)
{
	unsigned char *buf = malloc(2 * PA_JOURNAL_BLOCK);
	struct pa_jprog r[2];
	bool ok[2];
	int rc, i, best = -1;

	if (!buf)
		return -ENOMEM;
	rc = pread_all(m->fd, buf, 2 * PA_JOURNAL_BLOCK, m->j.prog_off);
	for (i = 0; i < 2 && rc == 0; i++) {
		uint32_t crc;

		ok[i] = journal_prog_decode(buf + i * PA_JOURNAL_BLOCK, m->j.nonce,
					    &r[i]) == 0 &&
			r[i].move <= m->j.n &&
			(r[i].move == m->j.n ||
			 r[i].done <= journal_nchunks(&m->j, r[i].move));
		if (ok[i] && r[i].move < m->j.n) {
			rc = table_crc(m, r[i].move, r[i].done, &crc);
			ok[i] = rc == 0 && crc == r[i].crcs;
		}
		if (ok[i] && (best < 0 || r[i].seq > r[best].seq))
			best = i;
	}
	free(buf);
	if (rc < 0)
		return rc;
	if (best < 0)
		return -EBADMSG;
	m->prog = r[best];
	i = 1 - best;
	m->have_prev = ok[i] && r[i].seq + 1 == r[best].seq &&
		       r[i].move == r[best].move && r[i].done < r[best].done;
	if (m->have_prev)
		m->prev = r[i];
	return 0;
}

/* The journal a pointer leads to, as an absolute path (malloc'd). */
static char *follow(const char *link)
{
	char target[PATH_MAX], *dir, *abs = NULL;
	ssize_t n = readlink(link, target, sizeof(target) - 1);

	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (target[0] == '/')
		return strdup(target);
	dir = path_dir(link);
	if (dir && asprintf(&abs, "%s/%s", dir, target) < 0)
		abs = NULL;
	free(dir);
	return abs;
}

/* Is @link a symbolic link to the file open as @fd? */
static bool links_to(const char *link, int fd)
{
	struct stat l, a, b;

	return lstat(link, &l) == 0 && S_ISLNK(l.st_mode) && stat(link, &a) == 0 &&
	       fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int move_open(const char *path, const char *pointer, struct pa_mover **out)
{
	struct pa_mover *m;
	char *buf = NULL, *real = NULL;
	size_t have = 0, cap = 0;
	struct stat st;
	int rc;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = follow(path);
		if (!real)
			return -ENOENT;
		pointer = path;
		path = real;
	}
	m = mover_new(path);
	free(real);
	if (!m)
		return -ENOMEM;
	m->fd = open(m->path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		rc = -errno;
		goto fail;
	}
	if (pointer && links_to(pointer, m->fd) && !(m->pointer = strdup(pointer))) {
		rc = -ENOMEM;
		goto fail;
	}
	/* the header ends with "end\n" and a NUL within its padded blocks */
	do {
		char *nb;
		ssize_t n;

		cap += PA_JOURNAL_BLOCK;
		nb = realloc(buf, cap);
		if (!nb) {
			rc = -ENOMEM;
			goto fail;
		}
		buf = nb;
		n = pread(m->fd, buf + have, cap - have, (off_t)have);
		if (n <= 0) {
			rc = n < 0 ? -errno : -EBADMSG;
			goto fail;
		}
		have += (size_t)n;
	} while (!memchr(buf, '\0', have) && have < PA_JOURNAL_HDR_MAX);
	rc = journal_parse(buf, have, &m->j);
	if (rc == 0 && !m->pointer) {
		/* the pointer a move journalled elsewhere left in the default directory
		 */
		char *p =
		    move_journal_file(move_journal_dir_default(), m->j.id, m->j.move_id);

		if (p && links_to(p, m->fd))
			m->pointer = p;
		else
			free(p);
	}
	if (rc == 0)
		rc = open_direct(m);
	if (rc == 0)
		rc = load_progress(m);
	if (rc < 0)
		goto fail;
	free(buf);
	*out = m;
	return 0;
fail:
	free(buf);
	move_free(m);
	return rc;
}

static int write_prog(struct pa_mover *m, const struct pa_jprog *r)
{
	unsigned char buf[PA_JOURNAL_BLOCK];
	int rc;

	journal_prog_encode(r, m->j.nonce, buf);
	rc = pwrite_all(m->fd, buf, sizeof(buf),
			m->j.prog_off + (r->seq % 2) * PA_JOURNAL_BLOCK);
	return rc < 0 ? rc : sync_fd(m->fd);
}

/* A link at @pointer to the journal, made durable; the journal goes if it cannot be made.
 */
static int make_pointer(struct pa_mover *m, const char *pointer)
{
	char dir[PATH_MAX], *target = NULL, *pdir = path_dir(pointer);
	const char *base = strrchr(m->path, '/');
	int rc;

	if (!pdir)
		return -ENOMEM;
	rc = mkdir_p(pdir, 0700);
	if (rc == 0 && !realpath(m->dir, dir))
		rc = -errno;
	if (rc == 0 && asprintf(&target, "%s/%s", dir, base ? base + 1 : m->path) < 0) {
		target = NULL;
		rc = -ENOMEM;
	}
	if (rc == 0 && symlink(target, pointer) < 0)
		rc = -errno;
	if (rc == 0)
		rc = fsync_dir(pdir);
	if (rc == 0 && !(m->pointer = strdup(pointer)))
		rc = -ENOMEM;
	free(target);
	free(pdir);
	return rc;
}

/* Zeros over [off, off+len): the parts rewritten at every checkpoint are real blocks. */
static int zero_fill(int fd, uint64_t off, uint64_t len)
{
	static const unsigned char zero[PA_JOURNAL_BLOCK];
	int rc = 0;

	while (len && rc == 0) {
		size_t n = len < sizeof(zero) ? (size_t)len : sizeof(zero);

		rc = pwrite_all(fd, (void *)zero, n, off);
		off += n;
		len -= n;
	}
	return rc;
}

int move_create(const char *dir, const char *pointer_dir, struct pa_journal *j,
		struct pa_mover **out)
{
	char *path = move_journal_file(dir, j->id, j->move_id);
	char *pointer =
	    pointer_dir ? move_journal_file(pointer_dir, j->id, j->move_id) : NULL;
	struct pa_mover *m = path ? mover_new(path) : NULL;
	unsigned char rec[PA_JOURNAL_BLOCK];
	char *hdr = NULL;
	struct pa_jprog first = {.seq = 1};
	struct file_tmp t;
	const char *fstype;
	struct stat st;
	int fd, rc;

	free(path);
	if (!m || (pointer_dir && !pointer)) {
		free(pointer);
		move_free(m);
		journal_free(j);
		return -ENOMEM;
	}
	m->j = *j;
	memset(j, 0, sizeof(*j));
	rc = move_journal_durable(m->dir, &fstype);
	if (rc == 0)
		rc = journal_format(&m->j, &hdr);
	if (rc == 0)
		rc = mkdir_p(m->dir, 0700);
	if (rc < 0)
		goto fail;
	set_abs(m);
	if (lstat(m->path, &st) == 0 || (pointer && lstat(pointer, &st) == 0)) {
		rc = -EEXIST;
		goto fail;
	}
	/* ".NAME.journal.XXXXXX" until renamed; a dead run's temporary goes first */
	rc = file_tmp_open(&t, m->path, 0600, FILE_TMP_LOCK);
	if (rc < 0)
		goto fail;
	fd = t.fd;
	/*
	 * The whole file now: no allocation (and no ENOSPC) in the middle of a
	 * move.  The header, records and checksums are written as zeros, so a
	 * checkpoint overwrites blocks in place and its flush commits no
	 * metadata; the ring is only allocated.
	 */
	rc = -posix_fallocate(fd, 0, (off_t)m->j.file_len);
	if (rc == 0)
		rc = zero_fill(fd, m->j.hdr_len, m->j.ring_off - m->j.hdr_len);
	if (rc == 0)
		rc = pwrite_all(fd, hdr, m->j.hdr_len, 0);
	journal_prog_encode(&first, m->j.nonce, rec);
	if (rc == 0)
		rc = pwrite_all(fd, rec, sizeof(rec), m->j.prog_off + PA_JOURNAL_BLOCK);
	if (rc < 0) {
		file_tmp_abort(&t);
		goto fail;
	}
	rc = file_tmp_publish_fd(&t, &m->fd);
	if (rc < 0)
		goto fail;
	m->prog = first;
	rc = open_direct(m);
	if (rc == 0 && pointer)
		rc = make_pointer(m, pointer);
	if (rc < 0) {
		/* nothing was moved yet: no journal is better than one nobody finds */
		unlink(m->path);
		fsync_dir(m->dir);
		goto fail;
	}
	free(hdr);
	free(pointer);
	*out = m;
	return 0;
fail:
	free(hdr);
	free(pointer);
	move_free(m);
	return rc;
}

int move_finish(struct pa_mover *m)
{
	int rc;

	mover_close(m);
	if (unlink(m->path) < 0 && errno != ENOENT)
		return -errno;
	rc = fsync_dir(m->dir);
	if (rc == 0 && m->pointer) {
		char *pdir = path_dir(m->pointer);

		if (unlink(m->pointer) < 0 && errno != ENOENT)
			rc = -errno;
		else if (pdir)
			rc = fsync_dir(pdir);
		free(pdir);
	}
	return rc;
}

/* ---- the engine ---- */

enum { B_FREE, B_READ, B_SAVED };

struct cbuf {
	unsigned char *mem; /* one block for the ring slot header, then the chunk */
	int state;
	uint64_t idx;
	uint32_t crc;
};

struct eng {
	struct pa_mover *mv;
	const struct pa_journal *j;
	size_t m;
	int dfd;
	uint64_t n;
	bool save;
	uint64_t trigger; /* request a checkpoint once this many chunks are unrecorded */

	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* the flusher: the disk's flush on request (freq), its result in frc */
	pthread_mutex_t fmu;
	pthread_cond_t fcv;
	bool fthread, freq, fquit;
	int frc;
	struct cbuf b[NBUF];
	uint32_t crcs[CRC_CAP];
	uint64_t written; /* chunks written, in order */
	uint64_t durable; /* chunks recorded durably (F) */
	bool want;	  /* a thread waits for a checkpoint */
	int err;
	uint64_t bytes; /* written by this run */
};

static int eng_wait(struct eng *e)
{
	pthread_cond_wait(&e->cv, &e->mu);
	return e->err;
}

static void eng_fail(struct eng *e, int rc)
{
	pthread_mutex_lock(&e->mu);
	if (!e->err)
		e->err = rc;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
}

static uint64_t io_len(const struct eng *e, uint64_t len)
{
	/* ring slots are written O_DIRECT: whole file system blocks */
	return (len + PA_JOURNAL_BLOCK - 1) / PA_JOURNAL_BLOCK * PA_JOURNAL_BLOCK;
}

static void *reader(void *arg)
{
	struct eng *e = arg;
	uint64_t i, src, dst, len;

	pthread_mutex_lock(&e->mu);
	for (i = e->written; i < e->n && !e->err; i++) {
		struct cbuf *b = &e->b[i % NBUF];
		int rc;

		/* a free buffer; a ring slot whose chunk is recorded; room for its
		 * checksum */
		while (!e->err &&
		       (b->state != B_FREE || (e->save && i >= e->durable + e->j->ring) ||
			i >= e->durable + CRC_CAP)) {
			if (b->state == B_FREE)
				e->want = true;
			pthread_cond_broadcast(&e->cv);
			eng_wait(e);
		}
		if (e->err)
			break;
		pthread_mutex_unlock(&e->mu);
		journal_chunk(e->j, e->m, i, &src, &dst, &len);
		rc = pread_all(e->dfd, b->mem + PA_JOURNAL_BLOCK, (size_t)len, src);
		if (rc < 0) {
			eng_fail(e, rc);
			return NULL;
		}
		b->crc = crc32_update(0, b->mem + PA_JOURNAL_BLOCK, (size_t)len);
		pthread_mutex_lock(&e->mu);
		e->crcs[i % CRC_CAP] = b->crc;
		b->idx = i;
		b->state = B_READ;
		pthread_cond_broadcast(&e->cv);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

static void *saver(void *arg)
{
	struct eng *e = arg;
	uint64_t i = e->written, k, src, dst, len;

	while (i < e->n) {
		uint64_t ready = 0;
		int rc = 0;

		pthread_mutex_lock(&e->mu);
		while (!e->err &&
		       !(e->b[i % NBUF].state == B_READ && e->b[i % NBUF].idx == i))
			eng_wait(e);
		while (i + ready < e->n && ready < NBUF &&
		       e->b[(i + ready) % NBUF].state == B_READ &&
		       e->b[(i + ready) % NBUF].idx == i + ready)
			ready++;
		rc = e->err;
		pthread_mutex_unlock(&e->mu);
		if (rc)
			return NULL;
		for (k = i; k < i + ready && rc == 0; k++) {
			struct cbuf *b = &e->b[k % NBUF];
			struct pa_jslot s = {
			    .move = (uint32_t)e->m, .chunk = k, .crc = b->crc};

			journal_chunk(e->j, e->m, k, &src, &dst, &len);
			s.len = len;
			journal_slot_encode(&s, e->j->nonce, b->mem);
			rc = pwrite_all(e->mv->dfd, b->mem,
					(size_t)(PA_JOURNAL_BLOCK + io_len(e, len)),
					journal_slot_pos(e->j, k));
		}
		if (rc == 0)
			rc = sync_fd(e->mv->dfd);
		if (rc < 0) {
			eng_fail(e, rc);
			return NULL;
		}
		pthread_mutex_lock(&e->mu);
		for (k = i; k < i + ready; k++)
			e->b[k % NBUF].state = B_SAVED;
		pthread_cond_broadcast(&e->cv);
		pthread_mutex_unlock(&e->mu);
		i += ready;
	}
	return NULL;
}

static void *writer(void *arg)
{
	struct eng *e = arg;
	uint64_t i, src, dst, len;

	pthread_mutex_lock(&e->mu);
	for (i = e->written; i < e->n && !e->err; i++) {
		struct cbuf *b = &e->b[i % NBUF];
		int64_t victim = e->save ? -1 : journal_clobbers(e->j, e->m, i);
		int rc;

		while (!e->err &&
		       !(b->idx == i && b->state == (e->save ? B_SAVED : B_READ)))
			eng_wait(e);
		/* never overwrite the source of a chunk whose copy is not recorded */
		while (!e->err && victim >= 0 && e->durable <= (uint64_t)victim) {
			e->want = true;
			pthread_cond_broadcast(&e->cv);
			eng_wait(e);
		}
		if (e->err)
			break;
		pthread_mutex_unlock(&e->mu);
		journal_chunk(e->j, e->m, i, &src, &dst, &len);
		rc = pwrite_all(e->dfd, b->mem + PA_JOURNAL_BLOCK, (size_t)len, dst);
		if (rc < 0) {
			eng_fail(e, rc);
			return NULL;
		}
		pthread_mutex_lock(&e->mu);
		e->written = i + 1;
		e->bytes += len;
		b->state = B_FREE;
		if (e->written - e->durable >= e->trigger)
			e->want = true;
		pthread_cond_broadcast(&e->cv);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

/*
 * The disk's flush, run beside the journal's: a checkpoint has one
 * durability point, not two in a row.
 */
static void *flusher(void *arg)
{
	struct eng *e = arg;

	pthread_mutex_lock(&e->fmu);
	for (;;) {
		int rc;

		while (!e->freq && !e->fquit)
			pthread_cond_wait(&e->fcv, &e->fmu);
		if (!e->freq)
			break;
		pthread_mutex_unlock(&e->fmu);
		rc = sync_fd(e->dfd);
		pthread_mutex_lock(&e->fmu);
		e->frc = rc;
		e->freq = false;
		pthread_cond_broadcast(&e->fcv);
	}
	pthread_mutex_unlock(&e->fmu);
	return NULL;
}

static void flush_start(struct eng *e)
{
	if (!e->fthread) {
		e->frc = sync_fd(e->dfd); /* no flusher thread: in turn, as before */
		return;
	}
	pthread_mutex_lock(&e->fmu);
	e->freq = true;
	pthread_cond_broadcast(&e->fcv);
	pthread_mutex_unlock(&e->fmu);
}

static int flush_wait(struct eng *e)
{
	int rc;

	if (!e->fthread)
		return e->frc;
	pthread_mutex_lock(&e->fmu);
	while (e->freq)
		pthread_cond_wait(&e->fcv, &e->fmu);
	rc = e->frc;
	pthread_mutex_unlock(&e->fmu);
	return rc;
}

/*
 * Make chunks [e->durable, upto) durable and say so: the disk's flush and,
 * at the same time, their checksums and the progress record written to the
 * journal and flushed.  The record may so reach the journal before the
 * chunks reach the disk; a resume checks the newest record's chunks at their
 * destinations against these checksums and falls back to the record before
 * (settle_last).  That is safe because no chunk overwrites the source of a
 * chunk of this checkpoint (or reuses its ring slot) before both flushes
 * are done.
 */
static int checkpoint(struct eng *e, uint64_t upto, struct pa_move_stats *st)
{
	struct pa_mover *mv = e->mv;
	uint64_t from = e->durable, i;
	unsigned char *le;
	struct pa_jprog r;
	int rc, frc;

	flush_start(e);
	if (!e->fthread && e->frc < 0)
		return e->frc;
	le = malloc((size_t)(upto - from) * 4 + 1);
	if (!le) {
		flush_wait(e);
		return -ENOMEM;
	}
	r = mv->prog;
	for (i = from; i < upto; i++) {
		uint32_t c = e->crcs[i % CRC_CAP];

		le[(i - from) * 4] = (unsigned char)c;
		le[(i - from) * 4 + 1] = (unsigned char)(c >> 8);
		le[(i - from) * 4 + 2] = (unsigned char)(c >> 16);
		le[(i - from) * 4 + 3] = (unsigned char)(c >> 24);
	}
	rc = pwrite_all(mv->fd, le, (size_t)(upto - from) * 4,
			journal_crc_pos(e->j, e->m, from));
	if (rc == 0) {
		r.crcs = crc32_update(r.crcs, le, (size_t)(upto - from) * 4);
		r.seq++;
		r.move = (uint32_t)e->m;
		r.done = upto;
		rc = write_prog(mv, &r);
	}
	free(le);
	frc = flush_wait(e);
	if (rc == 0)
		rc = frc;
	if (rc == 0) {
		mv->prog = r;
		st->checkpoints++;
	}
	return rc;
}

/* Save moves: chunks the ring holds past the last record are rewritten first. */
static int redo_ring(struct eng *e, struct pa_move_stats *st)
{
	struct cbuf *b = &e->b[0];
	uint64_t i, src, dst, len;

	for (i = e->durable; i < e->n && i < e->durable + e->j->ring; i++) {
		struct pa_jslot s;
		int rc;

		journal_chunk(e->j, e->m, i, &src, &dst, &len);
		rc = pread_all(e->mv->dfd, b->mem,
			       (size_t)(PA_JOURNAL_BLOCK + io_len(e, len)),
			       journal_slot_pos(e->j, i));
		if (rc < 0)
			return rc;
		if (journal_slot_decode(b->mem, e->j->nonce, &s) < 0 || s.move != e->m ||
		    s.chunk != i || s.len != len ||
		    crc32_update(0, b->mem + PA_JOURNAL_BLOCK, (size_t)len) != s.crc)
			break; /* never saved completely, so never written: the source is
				  intact */
		rc = pwrite_all(e->dfd, b->mem + PA_JOURNAL_BLOCK, (size_t)len, dst);
		if (rc < 0)
			return rc;
		e->crcs[i % CRC_CAP] = s.crc;
		e->written = i + 1;
		e->bytes += len;
		st->redone += len;
	}
	return 0;
}

static uint64_t min_window(const struct pa_journal *j, size_t m, uint64_t n)
{
	uint64_t i, w = UINT64_MAX;

	for (i = 0; i < n; i++) {
		int64_t c = journal_clobbers(j, m, i);

		if (c >= 0 && i - (uint64_t)c < w)
			w = i - (uint64_t)c;
	}
	return w;
}

static int run_one(struct pa_mover *mv, int dfd, pa_move_cb cb, void *ctx,
		   struct pa_move_stats *st, double t0, uint64_t *done_before,
		   uint64_t total)
{
	struct eng e = {.mv = mv, .j = &mv->j, .m = mv->prog.move, .dfd = dfd};
	pthread_t tr, ts, tw, tf;
	bool have_r = false, have_s = false, have_w = false;
	double last_ck = now_s(), last_cb = 0;
	bool stop;
	uint64_t w;
	int rc = 0, k;

	e.n = journal_nchunks(e.j, e.m);
	e.save = e.j->v[e.m].save;
	e.durable = e.written = mv->prog.done;
	if (e.save) {
		e.trigger = e.j->ring / 2;
	} else {
		w = min_window(e.j, e.m, e.n);
		e.trigger = w == UINT64_MAX ? CRC_CAP / 2 : (w / 2 ? w / 2 : 1);
		if (e.trigger > CRC_CAP / 2)
			e.trigger = CRC_CAP / 2;
	}
	for (k = 0; k < NBUF; k++) {
		if (posix_memalign((void **)&e.b[k].mem, PA_JOURNAL_BLOCK,
				   PA_JOURNAL_BLOCK + e.j->chunk)) {
			rc = -ENOMEM;
			goto out;
		}
		e.b[k].idx = UINT64_MAX;
	}
	if (e.save) {
		rc = redo_ring(&e, st);
		if (rc < 0)
			goto out;
	}
	pthread_mutex_init(&e.mu, NULL);
	pthread_cond_init(&e.cv, NULL);
	pthread_mutex_init(&e.fmu, NULL);
	pthread_cond_init(&e.fcv, NULL);
	e.fthread = pthread_create(&tf, NULL, flusher, &e) == 0;
	have_r = pthread_create(&tr, NULL, reader, &e) == 0;
	have_s = !e.save || pthread_create(&ts, NULL, saver, &e) == 0;
	have_w = pthread_create(&tw, NULL, writer, &e) == 0;
	if (!have_r || !have_s || !have_w)
		eng_fail(&e, -EAGAIN);

	pthread_mutex_lock(&e.mu);
	while (!e.err && e.durable < e.n) {
		struct timespec until;
		double t = now_s();

		if (e.written > e.durable &&
		    (e.want || e.written == e.n || t - last_ck > CKPT_EVERY_NS / 1e9)) {
			uint64_t upto = e.written;

			e.want = false;
			pthread_mutex_unlock(&e.mu);
			rc = checkpoint(&e, upto, st);
			last_ck = now_s();
			pthread_mutex_lock(&e.mu);
			if (rc < 0) {
				e.err = rc;
			} else {
				e.durable = upto;
			}
			pthread_cond_broadcast(&e.cv);
			continue;
		}
		if (cb && t - last_cb >= 0.2) {
			struct pa_move_progress p = {.index = e.m,
						     .count = e.j->n,
						     .num = e.j->v[e.m].num,
						     .done = *done_before + e.bytes,
						     .total = total,
						     .seconds = t - t0};

			last_cb = t;
			pthread_mutex_unlock(&e.mu);
			stop = cb(ctx, &p);
			pthread_mutex_lock(&e.mu);
			if (stop && !e.err)
				e.err = -EINTR;
			pthread_cond_broadcast(&e.cv);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e.cv, &e.mu, &until);
	}
	rc = e.err;
	pthread_cond_broadcast(&e.cv);
	pthread_mutex_unlock(&e.mu);
	if (have_r)
		pthread_join(tr, NULL);
	if (have_s && e.save)
		pthread_join(ts, NULL);
	if (have_w)
		pthread_join(tw, NULL);
	if (e.fthread) {
		pthread_mutex_lock(&e.fmu);
		e.fquit = true;
		pthread_cond_broadcast(&e.fcv);
		pthread_mutex_unlock(&e.fmu);
		pthread_join(tf, NULL);
	}
	pthread_cond_destroy(&e.fcv);
	pthread_mutex_destroy(&e.fmu);
	pthread_cond_destroy(&e.cv);
	pthread_mutex_destroy(&e.mu);
	if (rc == 0) {
		/* this move is complete: the next one starts */
		struct pa_jprog r = {.seq = mv->prog.seq + 1, .move = (uint32_t)e.m + 1};

		rc = write_prog(mv, &r);
		if (rc == 0)
			mv->prog = r;
	}
out:
	st->bytes += e.bytes;
	*done_before += e.bytes;
	for (k = 0; k < NBUF; k++)
		free(e.b[k].mem);
	return rc;
}

/*
 * Before a resume: are the chunks the newest progress record added to the
 * one before at their destinations?  The disk is flushed first (what its
 * cache holds from the run that stopped must not count unless it is
 * durable), then each chunk is read back and compared with its checksum in
 * the journal; one that differs means that record was written before its
 * chunks reached the disk (the two flushes of a checkpoint run side by side),
 * and the record before holds: its chunks' sources are intact.
 */
static int settle_last(struct pa_mover *m, int dfd, struct pa_move_stats *st)
{
	uint64_t i, src, dst, len;
	unsigned char *buf = NULL;
	int rc;

	if (!m->have_prev || m->prog.move >= m->j.n)
		return 0;
	m->have_prev = false;
	rc = sync_fd(dfd);
	if (rc == 0 && posix_memalign((void **)&buf, PA_JOURNAL_BLOCK, m->j.chunk))
		rc = -ENOMEM;
	for (i = m->prev.done; rc == 0 && i < m->prog.done; i++) {
		unsigned char le[4];

		journal_chunk(&m->j, m->prog.move, i, &src, &dst, &len);
		rc = pread_all(dfd, buf, (size_t)len, dst);
		if (rc == 0)
			rc = pread_all(m->fd, le, 4,
				       journal_crc_pos(&m->j, m->prog.move, i));
		if (rc == 0 && crc32_update(0, buf, (size_t)len) !=
				   ((uint32_t)le[0] | (uint32_t)le[1] << 8 |
				    (uint32_t)le[2] << 16 | (uint32_t)le[3] << 24)) {
			st->fallbacks++;
			m->prog = m->prev;
			break;
		}
	}
	free(buf);
	return rc;
}

int move_run(struct pa_mover *m, struct pa_writer *w, pa_move_cb cb, void *ctx,
	     struct pa_move_stats *st)
{
	int dfd = apply_gate_direct_fd(w);
	double t0 = now_s();
	uint64_t done = 0, total;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = settle_last(m, dfd, st);
	total = move_remaining(m);
	while (rc == 0 && m->prog.move < m->j.n)
		rc = run_one(m, dfd, cb, ctx, st, t0, &done, total);
	st->seconds = now_s() - t0;
	return rc;
}

int move_verify(struct pa_mover *m, struct pa_writer *w, uint64_t *bad)
{
	int dfd = apply_gate_direct_fd(w);
	unsigned char *buf = NULL;
	uint64_t i, n, src, dst, len;
	size_t k;
	int rc = 0;

	if (posix_memalign((void **)&buf, PA_JOURNAL_BLOCK, m->j.chunk))
		return -ENOMEM;
	for (k = 0; k < m->j.n && rc == 0; k++) {
		n = journal_nchunks(&m->j, k);
		for (i = 0; i < n && rc == 0; i++) {
			unsigned char le[4];
			uint32_t want;

			journal_chunk(&m->j, k, i, &src, &dst, &len);
			rc = pread_all(m->fd, le, 4, journal_crc_pos(&m->j, k, i));
			if (rc == 0)
				rc = pread_all(dfd, buf, (size_t)len, dst);
			if (rc < 0)
				break;
			want = (uint32_t)le[0] | (uint32_t)le[1] << 8 |
			       (uint32_t)le[2] << 16 | (uint32_t)le[3] << 24;
			if (crc32_update(0, buf, (size_t)len) != want) {
				*bad = dst;
				rc = -EILSEQ;
			}
		}
	}
	free(buf);
	return rc;
}

int move_table_stage(struct pa_shadow *sh, const struct pa_plan *p,
		     const struct pa_journal *j, struct pa_diags *msgs)
{
	/* the shadow re-creates RECREATE steps in place, keeping each entry's GUIDs */
	struct pa_plan q = *p;
	struct pa_step *v = calloc(p->n ? p->n : 1, sizeof(*v));
	size_t i;
	int rc;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->n; i++) {
		v[i] = p->v[i];
		if (v[i].kind == PA_STEP_MOVE)
			v[i].kind = PA_STEP_RECREATE;
	}
	q.v = v;
	rc = apply_table_stage(sh, &q, NULL, msgs);
	free(v);
	if (rc == 0 && p->table.marked)
		rc = j ? apply_shadow_unmark(sh, j) : -EINVAL;
	return rc;
}
