/*
 * The move journal's file for the data mover of fix --move-data (see move.h
 * and core/journal.h): creating it whole, opening and checking one, its
 * progress records and its removal; the mover's threads are in move-run.c.
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

#include "apply/move-impl.h"
#include "apply/move.h"
#include "shared/fileio.h"
#include "shared/trust.h"

double move_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int move_sync_fd(int fd)
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
	if (m->dir_fd >= 0)
		close(m->dir_fd);
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
	m->fd = m->dfd = m->dir_fd = -1;
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

/* The journal's name in its directory. */
static const char *base_of(const struct pa_mover *m)
{
	const char *slash = strrchr(m->path, '/');

	return slash ? slash + 1 : m->path;
}

/*
 * The data ring wants O_DIRECT; a file system without it (tmpfs) gets buffered
 * I/O.  Opened again through the checked directory, it must be the same file.
 */
static int open_direct(struct pa_mover *m)
{
	struct stat a, b;

	if (!m->j.ring) {
		m->dfd = m->fd;
		return 0;
	}
	m->dfd =
	    openat(m->dir_fd, base_of(m), O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
	if (m->dfd < 0 && errno == EINVAL)
		m->dfd = m->fd;
	if (m->dfd < 0)
		return -errno;
	if (fstat(m->fd, &a) < 0 || fstat(m->dfd, &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino ? 0 : -ESTALE;
}

/* The CRC-32 of the checksum table entries [0, n) of move @k, as on file. */
int move_table_crc(struct pa_mover *m, size_t k, uint64_t n, uint32_t *crc)
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
			 r[i].known <= journal_nchunks(&m->j, r[i].move));
		if (ok[i] && r[i].move < m->j.n) {
			rc = move_table_crc(m, r[i].move, r[i].known, &crc);
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
	/*
	 * A format-1 record's chunks were flushed beside it, not before it: what
	 * holds for certain is the record before, so its chunks are the ones to
	 * check (see struct pa_jprog).
	 */
	if (m->prog.v1 && ok[i] && r[i].seq + 1 == r[best].seq &&
	    r[i].move == r[best].move && r[i].done < r[best].done)
		m->prog.done = r[i].done;
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

int move_open(const char *path, const char *pointer, struct pa_mover **out,
	      struct trust_fail *f)
{
	struct pa_mover *m;
	char *buf = NULL, *real = NULL;
	size_t have = 0, cap = 0;
	struct stat st;
	int rc;

	memset(f, 0, sizeof(*f));
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
	/* the journal decides what is written to the disk: only root's */
	rc = trust_dir_open(m->dir, 0, &m->dir_fd, f);
	if (rc == 0)
		rc = trust_file_openat(m->dir_fd, f->path, base_of(m), O_RDWR, &m->fd, f);
	if (rc < 0)
		goto fail;
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

int move_write_prog(struct pa_mover *m, const struct pa_jprog *r)
{
	unsigned char buf[PA_JOURNAL_BLOCK];
	int rc;

	journal_prog_encode(r, m->j.nonce, buf);
	rc = pwrite_all(m->fd, buf, sizeof(buf),
			m->j.prog_off + (r->seq % 2) * PA_JOURNAL_BLOCK);
	return rc < 0 ? rc : move_sync_fd(m->fd);
}

/*
 * A link at @pointer to the journal, made durable, in a trusted directory;
 * the journal goes if it cannot be made.
 */
static int make_pointer(struct pa_mover *m, const char *pointer)
{
	char *target = NULL, *pdir = path_dir(pointer);
	const char *pbase = strrchr(pointer, '/');
	struct trust_fail f;
	int pfd = -1, rc;

	if (!pdir)
		return -ENOMEM;
	rc = trust_dir_open(pdir, TRUST_CREATE, &pfd, &f);
	if (rc == 0 && !m->abs)
		rc = -ENOENT;
	if (rc == 0 && !(target = strdup(m->abs)))
		rc = -ENOMEM;
	if (rc == 0 && symlinkat(target, pfd, pbase ? pbase + 1 : pointer) < 0)
		rc = -errno;
	if (rc == 0 && fsync(pfd) < 0)
		rc = -errno;
	if (rc == 0 && !(m->pointer = strdup(pointer)))
		rc = -ENOMEM;
	if (pfd >= 0)
		close(pfd);
	free(target);
	free(pdir);
	return rc;
}

/* Zeros over [off, off+len): the parts rewritten at every journal step are real blocks.
 */
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
	struct trust_fail tf;
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
	/* only in a directory only root can change, made 0700 if missing */
	if (rc == 0)
		rc = trust_dir_open(m->dir, TRUST_CREATE, &m->dir_fd, &tf);
	if (rc < 0)
		goto fail;
	set_abs(m);
	if (fstatat(m->dir_fd, base_of(m), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    (pointer && lstat(pointer, &st) == 0)) {
		rc = -EEXIST;
		goto fail;
	}
	/* ".NAME.journal.XXXXXX" until renamed; a dead run's temporary goes first */
	rc = file_tmp_openat(&t, m->dir_fd, base_of(m), 0600, FILE_TMP_LOCK);
	if (rc < 0)
		goto fail;
	fd = t.fd;
	/*
	 * The whole file now: no allocation (and no ENOSPC) in the middle of a
	 * move.  The header, records and checksums are written as zeros, so a
	 * journal step overwrites blocks in place and its flush commits no
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
		unlinkat(m->dir_fd, base_of(m), 0);
		fsync(m->dir_fd);
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
	if (m->dir_fd < 0)
		return -EBADF;
	if (unlinkat(m->dir_fd, base_of(m), 0) < 0 && errno != ENOENT)
		return -errno;
	rc = fsync(m->dir_fd) < 0 ? -errno : 0;
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
