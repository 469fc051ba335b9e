/*
 * The data mover of fix --move-data (see move.h and core/journal.h): its
 * threads, checkpoints and the check of a resume; the journal file is in
 * move.c.
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
 * chunks are written and, while a fourth thread (flusher) fdatasync()s the
 * disk, writes their checksums and a progress record to the journal and
 * fdatasync()s it; only once both are done may the threads overwrite the
 * sources of those chunks or reuse their ring slots.  A resume checks the
 * newest record's chunks against their checksums (settle_last).
 * Memory: NBUF chunk buffers and CRC_CAP pending checksums, whatever the
 * partition size.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply/move-impl.h"
#include "apply/move.h"
#include "shared/fileio.h"

#define NBUF 8
#define CRC_CAP 4096u		   /* checksums of chunks written but not yet recorded */
#define CKPT_EVERY_NS 2000000000LL /* also record progress this often */

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
			rc = move_sync_fd(e->mv->dfd);
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
		rc = move_sync_fd(e->dfd);
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
		e->frc = move_sync_fd(e->dfd); /* no flusher thread: in turn, as before */
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
		rc = move_write_prog(mv, &r);
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

/*
 * The calling thread while the others run: checkpoints when a thread waits
 * for one, at the end and every CKPT_EVERY_NS; progress for @cb five times a
 * second.  Returns the engine's error (0 when every chunk is recorded).
 */
static int drive(struct eng *e, pa_move_cb cb, void *ctx, struct pa_move_stats *st,
		 double t0, uint64_t done_before, uint64_t total)
{
	double last_ck = move_now(), last_cb = 0;
	bool stop;
	int rc;

	pthread_mutex_lock(&e->mu);
	while (!e->err && e->durable < e->n) {
		struct timespec until;
		double t = move_now();

		if (e->written > e->durable && (e->want || e->written == e->n ||
						t - last_ck > CKPT_EVERY_NS / 1e9)) {
			uint64_t upto = e->written;

			e->want = false;
			pthread_mutex_unlock(&e->mu);
			rc = checkpoint(e, upto, st);
			last_ck = move_now();
			pthread_mutex_lock(&e->mu);
			if (rc < 0) {
				e->err = rc;
			} else {
				e->durable = upto;
			}
			pthread_cond_broadcast(&e->cv);
			continue;
		}
		if (cb && t - last_cb >= 0.2) {
			struct pa_move_progress p = {.index = e->m,
						     .count = e->j->n,
						     .num = e->j->v[e->m].num,
						     .done = done_before + e->bytes,
						     .total = total,
						     .seconds = t - t0};

			last_cb = t;
			pthread_mutex_unlock(&e->mu);
			stop = cb(ctx, &p);
			pthread_mutex_lock(&e->mu);
			if (stop && !e->err)
				e->err = -EINTR;
			pthread_cond_broadcast(&e->cv);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e->cv, &e->mu, &until);
	}
	rc = e->err;
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->mu);
	return rc;
}

static int run_one(struct pa_mover *mv, int dfd, pa_move_cb cb, void *ctx,
		   struct pa_move_stats *st, double t0, uint64_t *done_before,
		   uint64_t total)
{
	struct eng e = {.mv = mv, .j = &mv->j, .m = mv->prog.move, .dfd = dfd};
	pthread_t tr, ts, tw, tf;
	bool have_r = false, have_s = false, have_w = false;
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

	rc = drive(&e, cb, ctx, st, t0, *done_before, total);
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
	rc = move_sync_fd(dfd);
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
	double t0 = move_now();
	uint64_t done = 0, total;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = settle_last(m, dfd, st);
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
