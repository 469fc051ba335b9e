/*
 * The data mover of fix --move-data (see move.h and core/journal.h): its
 * threads and the check of a resume; the journal file is in move.c.
 *
 * One move at a time.  Five threads share a few chunk buffers, taking the
 * chunks in processing order:
 *   reader   pread()s a chunk's source (O_DIRECT) and checksums it;
 *   journal  (the calling thread) writes the checksums of what has been
 *            read to the CRC table, with a progress record, and
 *            fdatasync()s the journal; a save move's chunks go to their
 *            ring slots in the same step;
 *   writers  (two, so that the device has two writes at a time) each
 *            take the next chunk and pwrite() it to its destination
 *            (O_DIRECT) once the rules allow: a saved chunk at once,
 *            otherwise only when every chunk whose source the write
 *            overwrites is safe;
 *   flusher  fdatasync()s the disk behind the writers.
 * A chunk is safe once it is durably at its destination (the flusher's
 * prefix) and its checksum is durably in the table (the journal's prefix);
 * only then may another write overwrite its source or reuse its ring slot.
 * The two flushes are independent, so neither waits for the other; a
 * record says how far the disk's flushes had got when it was written, and
 * a resume reads the chunks past that back against their checksums
 * (settle).  Memory: NBUF chunk buffers and CRC_CAP pending checksums,
 * whatever the partition size.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "apply/move-impl.h"
#include "apply/move.h"
#include "shared/endian.h"
#include "shared/fileio.h"

#define NBUF 8
#define CRC_CAP 4096u	  /* checksums read but not yet durably in the table */
#define RBATCH 4u	  /* adjacent chunks read with one request */
#define JBATCH (NBUF / 2) /* checksums per journal step of a record-only move */
#ifndef NWRITE
#define NWRITE 2 /* writes in flight, each from its own thread */
#endif

/* ---- the engine ---- */

enum { B_FREE, B_READ };

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
	uint64_t trigger; /* the flusher starts once this many chunks are unflushed */

	pthread_mutex_t mu;
	/* each thread waits on its own: a change wakes only who it concerns */
	pthread_cond_t cv[4];
	struct cbuf b[NBUF];
	uint32_t crcs[CRC_CAP];
	uint64_t nread;	       /* chunks read and checksummed, in order */
	uint64_t next;	       /* the next chunk a writer takes */
	uint64_t written;      /* chunks written: a prefix, see writer() */
	uint64_t mark[NWRITE]; /* chunk i + 1 at i % NWRITE once i's write completed */
	uint64_t flushed;      /* chunks durably at their destinations */
	uint64_t known;	       /* chunks whose checksums are durably in the table */
	uint64_t redo_end;     /* chunks before it were rewritten from the ring */
	bool want;	       /* the writer waits for a flush */
	bool jwant;	       /* the writer waits for the journal */
	int err;
	uint64_t bytes; /* written by this run */
};

enum { T_READER = 1, T_WRITER = 2, T_FLUSHER = 4, T_JOURNAL = 8, T_ALL = 15 };

static int eng_wait(struct eng *e, int who)
{
	pthread_cond_wait(&e->cv[__builtin_ctz((unsigned int)who)], &e->mu);
	return e->err;
}

static void eng_wake(struct eng *e, int whom)
{
	int k;

	for (k = 0; k < 4; k++)
		if (whom & (1 << k)) {
			/* all writers wait for the next chunk */
			if ((1 << k) == T_WRITER)
				pthread_cond_broadcast(&e->cv[k]);
			else
				pthread_cond_signal(&e->cv[k]);
		}
}

static void eng_fail(struct eng *e, int rc)
{
	pthread_mutex_lock(&e->mu);
	if (!e->err)
		e->err = rc;
	eng_wake(e, T_ALL);
	pthread_mutex_unlock(&e->mu);
}

/* Raise @flag (want, jwant) for the thread @who and wake it. */
static void eng_ask(struct eng *e, bool *flag, int who)
{
	*flag = true;
	eng_wake(e, who);
}

/* May a write destroy the source or the ring slot of chunk @k? */
static bool eng_safe(const struct eng *e, uint64_t k)
{
	return e->flushed > k && e->known > k;
}

static uint64_t io_len(uint64_t len)
{
	/* ring slots are written O_DIRECT: whole file system blocks */
	return (len + PA_JOURNAL_BLOCK - 1) / PA_JOURNAL_BLOCK * PA_JOURNAL_BLOCK;
}

/* May chunk @i be read into its buffer now? */
static bool can_read(const struct eng *e, uint64_t i)
{
	/* a free buffer; a ring slot whose chunk is safe; room for its checksum */
	return e->b[i % NBUF].state == B_FREE &&
	       !(e->save && i >= e->j->ring && !eng_safe(e, i - e->j->ring)) &&
	       i < e->known + CRC_CAP;
}

/*
 * Read chunks [i, i+k) (adjacent on the disk) with one request, into their
 * buffers, and checksum them: ascending buffers when the chunks go up the
 * disk, descending when they go down (a forward move).  Falls back to one
 * request per chunk when the request comes back short.
 */
static int read_chunks(struct eng *e, uint64_t i, unsigned int k)
{
	struct iovec iov[RBATCH];
	uint64_t src, dst, len, lo = UINT64_MAX, total = 0;
	unsigned int x;
	ssize_t r;

	for (x = 0; x < k; x++) {
		unsigned int slot = e->j->v[e->m].to > e->j->v[e->m].from ? k - 1 - x : x;

		journal_chunk(e->j, e->m, i + x, &src, &dst, &len);
		iov[slot].iov_base = e->b[(i + x) % NBUF].mem + PA_JOURNAL_BLOCK;
		iov[slot].iov_len = (size_t)len;
		lo = src < lo ? src : lo;
		total += len;
	}
	r = k > 1 ? preadv(e->dfd, iov, (int)k, (off_t)lo) : -1;
	for (x = 0; x < k; x++) {
		struct cbuf *b = &e->b[(i + x) % NBUF];
		int rc;

		journal_chunk(e->j, e->m, i + x, &src, &dst, &len);
		if (r != (ssize_t)total) {
			rc = pread_all(e->dfd, b->mem + PA_JOURNAL_BLOCK, (size_t)len,
				       src);
			if (rc < 0)
				return rc;
		}
		b->crc = crc32_update(0, b->mem + PA_JOURNAL_BLOCK, (size_t)len);
	}
	return 0;
}

static void *reader(void *arg)
{
	struct eng *e = arg;
	uint64_t i;

	pthread_mutex_lock(&e->mu);
	for (i = e->nread; i < e->n && !e->err;) {
		unsigned int k = 1, x;
		int rc;

		while (!e->err && !can_read(e, i)) {
			if (e->save && e->b[i % NBUF].state == B_FREE && i >= e->j->ring)
				eng_ask(e, &e->want, T_FLUSHER);
			eng_wait(e, T_READER);
		}
		if (e->err)
			break;
		while (k < RBATCH && i + k < e->n && can_read(e, i + k))
			k++;
		pthread_mutex_unlock(&e->mu);
		rc = read_chunks(e, i, k);
		if (rc < 0) {
			eng_fail(e, rc);
			return NULL;
		}
		pthread_mutex_lock(&e->mu);
		for (x = 0; x < k; x++, i++) {
			struct cbuf *b = &e->b[i % NBUF];

			e->crcs[i % CRC_CAP] = b->crc;
			b->idx = i;
			b->state = B_READ;
		}
		e->nread = i;
		eng_wake(e, T_WRITER | T_JOURNAL);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

/*
 * May chunk @i, the next to be written, go to its destination now?  Asks
 * the flusher or the journal for what its victim still lacks.
 */
static bool can_write(struct eng *e, uint64_t i)
{
	const struct cbuf *b = &e->b[i % NBUF];
	int64_t victim = e->save ? -1 : journal_clobbers(e->j, e->m, i);

	/* read; a save move's chunk once it is in its slot; a free mark */
	if (b->idx != i || b->state != B_READ || (e->save && e->known <= i) ||
	    i >= e->written + NWRITE)
		return false;
	/* never overwrite the source of a chunk that is not safe */
	if (victim < 0 || eng_safe(e, (uint64_t)victim))
		return true;
	if (e->flushed <= (uint64_t)victim)
		eng_ask(e, &e->want, T_FLUSHER);
	if (e->known <= (uint64_t)victim)
		eng_ask(e, &e->jwant, T_JOURNAL);
	return false;
}

/*
 * NWRITE of these, so that the device has that many writes at a time: each
 * takes the next chunk once it may be written.  `written` is the prefix of
 * the completed writes (a flush covers no chunk whose predecessor is still
 * in flight); a chunk may complete before the one before it, so the marks
 * of [written, written + NWRITE) say which did.
 */
static void *writer(void *arg)
{
	struct eng *e = arg;
	uint64_t i, src, dst, len;

	pthread_mutex_lock(&e->mu);
	while (!e->err && e->next < e->n) {
		struct cbuf *b;
		int rc;

		if (!can_write(e, e->next)) {
			eng_wait(e, T_WRITER);
			continue;
		}
		i = e->next++;
		b = &e->b[i % NBUF];
		pthread_mutex_unlock(&e->mu);
		journal_chunk(e->j, e->m, i, &src, &dst, &len);
		rc = pwrite_all(e->dfd, b->mem + PA_JOURNAL_BLOCK, (size_t)len, dst);
		if (rc < 0) {
			eng_fail(e, rc);
			return NULL;
		}
		pthread_mutex_lock(&e->mu);
		e->mark[i % NWRITE] = i + 1;
		while (e->written < e->next &&
		       e->mark[e->written % NWRITE] == e->written + 1)
			e->written++;
		e->bytes += len;
		b->state = B_FREE;
		eng_wake(e, T_READER | T_FLUSHER | T_WRITER);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

/* The disk's flushes, behind the writer: each makes what was written before durable. */
static void *flusher(void *arg)
{
	struct eng *e = arg;

	pthread_mutex_lock(&e->mu);
	while (!e->err && e->flushed < e->n) {
		uint64_t upto = e->written;
		int rc;

		if (upto == e->flushed ||
		    (!e->want && upto - e->flushed < e->trigger && upto < e->n)) {
			eng_wait(e, T_FLUSHER);
			continue;
		}
		e->want = false;
		pthread_mutex_unlock(&e->mu);
		rc = move_sync_fd(e->dfd);
		pthread_mutex_lock(&e->mu);
		if (rc < 0 && !e->err)
			e->err = rc;
		if (rc == 0)
			e->flushed = upto;
		eng_wake(e, rc ? T_ALL : T_WRITER | T_READER | T_JOURNAL);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

/*
 * Chunks [from, upto): a save move's to their ring slots, every one's
 * checksum to the table, then a progress record saying the disk's flushes
 * had got to @flushed, and one fdatasync() of the journal for all of it.
 */
static int journal_step(struct eng *e, uint64_t from, uint64_t upto, uint64_t flushed,
			struct pa_move_stats *st)
{
	struct pa_mover *mv = e->mv;
	struct pa_jprog r = mv->prog;
	uint64_t i, src, dst, len;
	unsigned char *le;
	int rc = 0;

	for (i = from > e->redo_end ? from : e->redo_end; e->save && i < upto && rc == 0;
	     i++) {
		struct cbuf *b = &e->b[i % NBUF];
		struct pa_jslot s = {.move = (uint32_t)e->m, .chunk = i, .crc = b->crc};

		journal_chunk(e->j, e->m, i, &src, &dst, &len);
		s.len = len;
		journal_slot_encode(&s, e->j->nonce, b->mem);
		rc = pwrite_all(mv->dfd, b->mem, (size_t)(PA_JOURNAL_BLOCK + io_len(len)),
				journal_slot_pos(e->j, i));
	}
	le = malloc((size_t)(upto - from) * 4);
	if (!le)
		return -ENOMEM;
	for (i = from; i < upto; i++)
		put_le32(le + (i - from) * 4, e->crcs[i % CRC_CAP]);
	if (rc == 0)
		rc = pwrite_all(mv->fd, le, (size_t)(upto - from) * 4,
				journal_crc_pos(e->j, e->m, from));
	if (rc == 0) {
		r.crcs = crc32_update(r.crcs, le, (size_t)(upto - from) * 4);
		r.seq++;
		r.move = (uint32_t)e->m;
		r.known = upto;
		r.done = flushed < upto ? flushed : upto;
		if (r.done < mv->prog.done)
			r.done = mv->prog.done;
		rc = move_write_prog(mv, &r);
	}
	free(le);
	if (rc == 0) {
		mv->prog = r;
		st->checkpoints++;
	}
	return rc;
}

/*
 * Save moves: the chunks whose ring slots hold them from the resume point on
 * are rewritten from there first (their sources may be overwritten), and
 * flushed; the engine then records their checksums, which the slots carry.
 */
static int redo_ring(struct eng *e, struct pa_move_stats *st)
{
	struct cbuf *b = &e->b[0];
	uint64_t i, src, dst, len;
	int rc = 0;

	for (i = e->written; i < e->n && i < e->written + e->j->ring; i++) {
		struct pa_jslot s;

		journal_chunk(e->j, e->m, i, &src, &dst, &len);
		rc = pread_all(e->mv->dfd, b->mem,
			       (size_t)(PA_JOURNAL_BLOCK + io_len(len)),
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
		st->redone += len;
		e->bytes += len;
	}
	if (i > e->written)
		rc = move_sync_fd(e->dfd);
	if (rc == 0)
		e->nread = e->next = e->written = e->flushed = e->redo_end = i;
	return rc;
}

static void report(struct eng *e, pa_move_cb cb, void *ctx, double t0,
		   uint64_t done_before, uint64_t total)
{
	struct pa_move_progress p = {.index = e->m,
				     .count = e->j->n,
				     .num = e->j->v[e->m].num,
				     .done = done_before + e->bytes,
				     .total = total,
				     .seconds = move_now() - t0};
	bool stop;

	pthread_mutex_unlock(&e->mu);
	stop = cb(ctx, &p);
	pthread_mutex_lock(&e->mu);
	if (stop && !e->err) {
		e->err = -EINTR;
		eng_wake(e, T_ALL);
	}
}

/*
 * The calling thread while the others run: the journal's steps, as soon as
 * checksums are waiting, and progress for @cb five times a second.  Returns
 * the engine's error (0 once every chunk is safe).
 */
static int drive(struct eng *e, pa_move_cb cb, void *ctx, struct pa_move_stats *st,
		 double t0, uint64_t done_before, uint64_t total)
{
	double last_cb = 0;
	int rc;

	pthread_mutex_lock(&e->mu);
	while (!e->err && !(e->known == e->n && e->flushed == e->n)) {
		struct timespec until;

		/* first, so that a stream of journal steps cannot starve a Ctrl-C */
		if (cb && move_now() - last_cb >= 0.2) {
			last_cb = move_now();
			report(e, cb, ctx, t0, done_before, total);
			continue;
		}
		/* a record-only move's checksums in batches, the journal's flushes
		   competing less with the disk's: the reader is well ahead */
		if (e->nread > e->known &&
		    (e->save || e->jwant || e->nread - e->known >= JBATCH ||
		     e->nread == e->n)) {
			uint64_t from = e->known, upto = e->nread, flushed = e->flushed;

			e->jwant = false;
			pthread_mutex_unlock(&e->mu);
			rc = journal_step(e, from, upto, flushed, st);
			pthread_mutex_lock(&e->mu);
			if (rc < 0 && !e->err)
				e->err = rc;
			if (rc == 0)
				e->known = upto;
			eng_wake(e, rc ? T_ALL : T_WRITER | T_READER);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e->cv[3], &e->mu, &until);
	}
	rc = e->err;
	eng_wake(e, T_ALL);
	pthread_mutex_unlock(&e->mu);
	return rc;
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
	pthread_t tr, tw[NWRITE], tf;
	bool have_r = false, have_f = false;
	int have_w = 0;
	uint64_t w;
	int rc = 0, k;

	e.n = journal_nchunks(e.j, e.m);
	e.save = e.j->v[e.m].save;
	e.nread = e.next = e.written = e.flushed = e.known = e.redo_end = mv->prog.done;
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
	for (k = 0; k < 4; k++)
		pthread_cond_init(&e.cv[k], NULL);
	have_f = pthread_create(&tf, NULL, flusher, &e) == 0;
	have_r = pthread_create(&tr, NULL, reader, &e) == 0;
	while (have_w < NWRITE && pthread_create(&tw[have_w], NULL, writer, &e) == 0)
		have_w++;
	if (!have_r || have_w < NWRITE || !have_f)
		eng_fail(&e, -EAGAIN);

	rc = drive(&e, cb, ctx, st, t0, *done_before, total);
	if (have_r)
		pthread_join(tr, NULL);
	while (have_w > 0)
		pthread_join(tw[--have_w], NULL);
	if (have_f)
		pthread_join(tf, NULL);
	for (k = 0; k < 4; k++)
		pthread_cond_destroy(&e.cv[k]);
	pthread_mutex_destroy(&e.mu);
	if (rc == 0) {
		/* this move is complete: the next one starts */
		struct pa_jprog r = {.seq = mv->prog.seq + 1, .move = (uint32_t)e.m + 1};

		rc = move_write_prog(mv, &r);
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
 * Before a resume: which of the chunks past the newest record's `done` are
 * at their destinations?  The disk is flushed first (what its cache holds
 * from the run that stopped must not count unless it is durable), then the
 * chunks [done, known) are read back against their checksums; the move goes
 * on from the first that differs.  That is safe: a write overwrites only
 * the sources of safe chunks, and a chunk that was safe is at its
 * destination, so every chunk from the first that is not has its source
 * intact (a chunk whose destination already held its bytes is done either
 * way).
 */
static int settle(struct pa_mover *m, int dfd, struct pa_move_stats *st)
{
	uint64_t i, src, dst, len;
	unsigned char *buf = NULL;
	int rc;

	if (m->prog.move >= m->j.n || m->prog.done >= m->prog.known)
		return 0;
	rc = move_sync_fd(dfd);
	if (rc == 0 && posix_memalign((void **)&buf, PA_JOURNAL_BLOCK, m->j.chunk))
		rc = -ENOMEM;
	for (i = m->prog.done; rc == 0 && i < m->prog.known; i++) {
		unsigned char le[4];

		journal_chunk(&m->j, m->prog.move, i, &src, &dst, &len);
		rc = pread_all(dfd, buf, (size_t)len, dst);
		if (rc == 0)
			rc = pread_all(m->fd, le, 4,
				       journal_crc_pos(&m->j, m->prog.move, i));
		if (rc == 0 && crc32_update(0, buf, (size_t)len) != get_le32(le))
			break;
	}
	free(buf);
	if (rc < 0)
		return rc;
	st->checked = m->prog.known - m->prog.done;
	st->found = i - m->prog.done;
	m->prog.done = i;
	if (i < m->prog.known) {
		/* from here on the table is written again */
		m->prog.known = i;
		rc = move_table_crc(m, m->prog.move, i, &m->prog.crcs);
	}
	return rc;
}

int move_run(struct pa_mover *m, struct pa_writer *w, pa_move_cb cb, void *ctx,
	     struct pa_move_stats *st)
{
	int dfd = apply_gate_direct_fd(w);
	double t0 = move_now();
	uint64_t done = 0, total;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = settle(m, dfd, st);
	total = move_remaining(m);
	while (rc == 0 && m->prog.move < m->j.n)
		rc = run_one(m, dfd, cb, ctx, st, t0, &done, total);
	st->seconds = move_now() - t0;
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
			want = get_le32(le);
			if (crc32_update(0, buf, (size_t)len) != want) {
				*bad = dst;
				rc = -EILSEQ;
			}
		}
	}
	free(buf);
	return rc;
}
