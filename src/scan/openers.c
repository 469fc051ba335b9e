/*
 * Who has a block device open, found as fuser(1) finds it and more, in one
 * pass over /proc: every process's open descriptors (/proc/PID/fd/N), the
 * descriptors of its threads that have a table of their own (a thread that
 * called unshare(CLONE_FILES): /proc/PID/task/TID/fd/N), and its mappings
 * of a device node whose descriptor may be closed (/proc/PID/maps).  Each is
 * stat()ed and compared by device number with a sorted set.  A database on
 * raw devices, Oracle ASM, qemu and dd open their disks without O_EXCL, so
 * neither the kernel's holders nor an exclusive open of our own can see
 * them; only this can.  This process is left out, and so is a process that
 * waits in flock(2) for the lock of the node it has open read-only: a
 * partalign run waiting for the disk, not a user of it.
 *
 * The cost is one stat per descriptor on the host (about 3.5 us each, 0.25 s
 * for 70,000), one kcmp per thread, one read of each process's maps, and
 * one stat per distinct mapped file (a cache by file identity).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "scan/holders.h"
#include "shared/sys.h"

/* kcmp(2) KCMP_FILES: do two tasks share one descriptor table? */
#define PA_KCMP_FILES 2
/* the distinct descriptor tables of one process looked at (more: read each) */
#define MAX_TABLES 8

/* A mapped file, judged once per scan: is it a node of one of the devices? */
struct mapped {
	unsigned int major, minor;
	uint64_t inode;
	dev_t rdev; /* 0: not a watched device (or not looked at) */
	bool used;
};

/* A flock(2) waiter of /proc/locks: process @pid waits for node (dev, ino). */
struct waiter {
	pid_t pid;
	dev_t dev;
	uint64_t ino;
};

struct scan {
	int procfd;
	dev_t *devs; /* sorted */
	size_t n;
	pid_t self;
	bool no_kcmp;
	struct mapped *cache; /* open addressing, cap a power of two */
	size_t cap, used;
	struct waiter *waiters;
	size_t nwaiters;
	/* collecting every hold of every block device (scan_openers_index) */
	struct pa_opener_index *ix;
	size_t ix_first; /* where the process being read starts in ix */
};

/* One hold in a run's index: a struct pa_holder without its texts. */
struct pa_hold {
	dev_t dev;
	pid_t pid, tid;
	int fd;
	enum pa_holder_kind kind;
	unsigned long map_start, map_end;
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int cmp_dev(const void *a, const void *b)
{
	dev_t x = *(const dev_t *)a, y = *(const dev_t *)b;

	return x < y ? -1 : x > y;
}

/* Is @d one of the devices looked for (when collecting: any)? */
static bool watched(const struct scan *s, dev_t d)
{
	return s->ix || bsearch(&d, s->devs, s->n, sizeof(d), cmp_dev) != NULL;
}

/*
 * Hold @h found: true when the search stops there (the first hold of a
 * process is enough), false when collecting, with @h kept in the index once
 * per process and device (or dropped when memory runs out: -ENOMEM later).
 */
static bool found_hold(struct scan *s, const struct pa_holder *h)
{
	struct pa_opener_index *ix = s->ix;
	size_t i;

	if (!ix)
		return true;
	for (i = s->ix_first; i < ix->n; i++)
		if (ix->v[i].dev == h->dev)
			return false;
	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		struct pa_hold *v = realloc(ix->v, cap * sizeof(*v));

		if (!v) {
			ix->nomem = true;
			return false;
		}
		ix->v = v;
		ix->cap = cap;
	}
	ix->v[ix->n++] = (struct pa_hold){h->dev,  h->pid,	 h->tid,    h->fd,
					  h->kind, h->map_start, h->map_end};
	return false;
}

/* ---- the parsers ------------------------------------------------------- */

int scan_maps_line(const char *line, struct pa_maps_line *m)
{
	char *end;
	int i;

	memset(m, 0, sizeof(*m));
	m->path = "";
	errno = 0;
	m->start = strtoul(line, &end, 16);
	if (*end != '-')
		return -EINVAL;
	m->end = strtoul(end + 1, &end, 16);
	if (*end != ' ' || errno)
		return -EINVAL;
	/* perms and offset: skipped */
	for (i = 0; i < 2; i++) {
		while (*end == ' ')
			end++;
		end += strcspn(end, " ");
	}
	if (sscanf(end, " %x:%x %" SCNu64, &m->major, &m->minor, &m->inode) != 3)
		return -EINVAL;
	/* past the inode: spaces, then the path (which may hold spaces) */
	while (*end == ' ')
		end++;
	for (i = 0; i < 2; i++) {
		end += strcspn(end, " \n");
		while (*end == ' ')
			end++;
	}
	if (*end && *end != '\n')
		m->path = end;
	return 0;
}

int scan_locks_line(const char *line, struct pa_lock_line *l)
{
	char type[16], rw[16], *p;
	long pid;
	int at = 0;

	memset(l, 0, sizeof(*l));
	p = strchr(line, ':');
	if (!p)
		return -EINVAL;
	p++;
	while (*p == ' ')
		p++;
	if (strncmp(p, "->", 2) == 0) {
		l->waiter = true;
		p += 2;
	}
	if (sscanf(p, " %15s %*s %15s %ld %x:%x:%" SCNu64 "%n", type, rw, &pid, &l->major,
		   &l->minor, &l->inode, &at) != 6 ||
	    !at)
		return -EINVAL;
	l->flock = strcmp(type, "FLOCK") == 0;
	l->write = strcmp(rw, "WRITE") == 0;
	l->pid = (pid_t)pid;
	return 0;
}

/* ---- lock waiters ------------------------------------------------------- */

/* The flock waiters of /proc/locks into @s (none when it cannot be read). */
static void read_waiters(struct scan *s)
{
	FILE *f = fopen("/proc/locks", "re");
	char *line = NULL;
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0) {
		struct pa_lock_line l;
		struct waiter *w;

		if (scan_locks_line(line, &l) < 0 || !l.waiter || !l.flock || l.pid <= 0)
			continue;
		w = realloc(s->waiters, (s->nwaiters + 1) * sizeof(*w));
		if (!w)
			break;
		s->waiters = w;
		w[s->nwaiters++] =
		    (struct waiter){l.pid, makedev(l.major, l.minor), l.inode};
	}
	free(line);
	if (f)
		fclose(f);
}

/*
 * Is descriptor @name of @fddir (PID/fd or PID/task/TID/fd below /proc),
 * whose file is @st, only a lock waiter's: process @pid waits for the flock
 * of that very node, and the descriptor is read-only?
 */
static bool waits_for_lock(const struct scan *s, pid_t pid, const char *fddir,
			   const char *name, const struct stat *st)
{
	char path[300], buf[256];
	unsigned int flags;
	const char *at;
	size_t i;
	ssize_t k;
	int fd;

	for (i = 0; i < s->nwaiters; i++)
		if (s->waiters[i].pid == pid && s->waiters[i].dev == st->st_dev &&
		    s->waiters[i].ino == (uint64_t)st->st_ino)
			break;
	if (i == s->nwaiters)
		return false;
	/* PID/fd -> PID/fdinfo: the descriptor's open flags */
	snprintf(path, sizeof(path), "%.*sinfo/%s", (int)strlen(fddir), fddir, name);
	fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return false;
	buf[k] = '\0';
	at = strstr(buf, "flags:");
	return at && sscanf(at, "flags: %o", &flags) == 1 &&
	       (flags & O_ACCMODE) == O_RDONLY;
}

/* ---- descriptors --------------------------------------------------------- */

/*
 * The first descriptor in @fddir (below /proc: the table of @pid, or of its
 * thread @tid when not 0) on a watched device: 1 with @h, or 0 (and every
 * one in the index when collecting).
 */
static int fds_hold(struct scan *s, pid_t pid, pid_t tid, const char *fddir,
		    struct pa_holder *h)
{
	struct dirent *de;
	DIR *dd;
	int fd, found = 0;

	fd = openat(s->procfd, fddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone, or a kernel thread: nothing open */
	dd = fdopendir(fd);
	if (!dd) {
		close(fd);
		return 0;
	}
	while (!found && (de = readdir(dd))) {
		struct stat st;

		if (!all_digits(de->d_name) ||
		    fstatat(dirfd(dd), de->d_name, &st, 0) < 0 || !S_ISBLK(st.st_mode) ||
		    !watched(s, st.st_rdev) ||
		    (s->nwaiters && waits_for_lock(s, pid, fddir, de->d_name, &st)))
			continue;
		h->kind = tid ? PA_HOLDER_THREAD_FD : PA_HOLDER_FD;
		h->tid = tid;
		h->dev = st.st_rdev;
		h->fd = (int)strtol(de->d_name, NULL, 10);
		found = found_hold(s, h);
	}
	closedir(dd);
	return found;
}

static long kcmp_files(pid_t a, pid_t b)
{
#ifdef SYS_kcmp
	return syscall(SYS_kcmp, a, b, PA_KCMP_FILES, 0UL, 0UL);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * Is the descriptor table of thread @tid one of the @n already read (@seen)?
 * Without kcmp (ENOSYS) nothing is known to be shared: every table is read.
 */
static bool table_seen(struct scan *s, const pid_t *seen, size_t n, pid_t tid)
{
	size_t i;

	for (i = 0; i < n && !s->no_kcmp; i++) {
		long k = kcmp_files(seen[i], tid);

		if (k == 0)
			return true;
		if (k < 0 && errno == ENOSYS)
			s->no_kcmp = true;
	}
	return false;
}

/* The threads of @pid with a descriptor table of their own: 1 with @h, or 0. */
static int threads_hold(struct scan *s, pid_t pid, struct pa_holder *h)
{
	pid_t seen[MAX_TABLES] = {pid};
	size_t nseen = 1;
	char path[64];
	struct dirent *de;
	DIR *dd;
	int fd, found = 0;

	snprintf(path, sizeof(path), "%ld/task", (long)pid);
	fd = openat(s->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	dd = fdopendir(fd);
	if (!dd) {
		close(fd);
		return 0;
	}
	while (!found && (de = readdir(dd))) {
		pid_t tid;

		if (!all_digits(de->d_name))
			continue;
		tid = (pid_t)strtol(de->d_name, NULL, 10);
		if (tid == pid || table_seen(s, seen, nseen, tid))
			continue;
		if (nseen < MAX_TABLES && !s->no_kcmp)
			seen[nseen++] = tid;
		snprintf(path, sizeof(path), "%ld/task/%ld/fd", (long)pid, (long)tid);
		found = fds_hold(s, pid, tid, path, h);
	}
	closedir(dd);
	return found;
}

/* ---- mappings ------------------------------------------------------------ */

static struct mapped *cache_slot(struct mapped *v, size_t cap,
				 const struct pa_maps_line *m)
{
	uint64_t k =
	    m->inode * 0x9e3779b97f4a7c15ull ^ ((uint64_t)m->major << 32 | m->minor);
	size_t i = (size_t)(k ^ (k >> 29)) & (cap - 1);

	while (v[i].used && !(v[i].inode == m->inode && v[i].major == m->major &&
			      v[i].minor == m->minor))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int cache_grow(struct scan *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256, i;
	struct mapped *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++)
		if (s->cache[i].used) {
			struct pa_maps_line m = {.major = s->cache[i].major,
						 .minor = s->cache[i].minor,
						 .inode = s->cache[i].inode};

			*cache_slot(v, cap, &m) = s->cache[i];
		}
	free(s->cache);
	s->cache = v;
	s->cap = cap;
	return 0;
}

/*
 * The device the file of mapping @m of @pid is a node of, when it is a
 * watched one (else 0): the mapped file itself through map_files, or the
 * path when it names the same file (identity as the line gives it).
 */
static dev_t judge_mapped(const struct scan *s, pid_t pid, const struct pa_maps_line *m)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "%ld/map_files/%lx-%lx", (long)pid, m->start,
		 m->end);
	if (fstatat(s->procfd, path, &st, 0) < 0 &&
	    (m->path[0] != '/' || stat(m->path, &st) < 0 ||
	     st.st_dev != makedev(m->major, m->minor) || (uint64_t)st.st_ino != m->inode))
		return 0;
	return S_ISBLK(st.st_mode) && watched(s, st.st_rdev) ? st.st_rdev : 0;
}

/* Is mapping @m (of a file: inode set) one of a watched device's nodes? */
static dev_t mapped_dev(struct scan *s, pid_t pid, const struct pa_maps_line *m)
{
	struct mapped *c;

	if ((s->used + 1) * 2 > s->cap && cache_grow(s) < 0)
		return judge_mapped(s, pid, m);
	c = cache_slot(s->cache, s->cap, m);
	if (!c->used) {
		*c = (struct mapped){m->major, m->minor, m->inode, 0, true};
		s->used++;
		c->rdev = judge_mapped(s, pid, m);
	}
	return c->rdev;
}

/* A mapping of @pid of a watched device: 1 with @h, or 0. */
static int maps_hold(struct scan *s, pid_t pid, struct pa_holder *h)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int fd, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%ld/maps", (long)pid);
	fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return 0;
	}
	while (!found && getline(&line, &cap, f) > 0) {
		struct pa_maps_line m;
		dev_t d;

		line[strcspn(line, "\n")] = '\0';
		/* anonymous memory, the heap, the stack: no file */
		if (scan_maps_line(line, &m) < 0 || !m.inode)
			continue;
		d = mapped_dev(s, pid, &m);
		if (!d)
			continue;
		h->kind = PA_HOLDER_MAP;
		h->dev = d;
		h->fd = -1;
		h->tid = 0;
		h->map_start = m.start;
		h->map_end = m.end;
		found = found_hold(s, h);
	}
	free(line);
	fclose(f);
	return found;
}

/* ---- one process, and all ---------------------------------------------- */

/* The command name of @pid (/proc/PID/comm), "?" when it is gone. */
static void comm_of(int procfd, pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%ld/comm", (long)pid);
	snprintf(buf, len, "?");
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Does process @pid hold a watched device?  1 with @h filled, or 0 (always
 * when collecting: its holds are in the index).
 */
static int process_holds(struct scan *s, pid_t pid, struct pa_holder *h)
{
	char path[64];

	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->fd = -1;
	if (s->ix)
		s->ix_first = s->ix->n;
	snprintf(path, sizeof(path), "%ld/fd", (long)pid);
	if (!fds_hold(s, pid, 0, path, h) && !threads_hold(s, pid, h) &&
	    !maps_hold(s, pid, h))
		return 0;
	comm_of(s->procfd, pid, h->comm, sizeof(h->comm));
	return 1;
}

static int scan_open(struct scan *s, const dev_t *devs, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->self = getpid();
	s->devs = malloc((n ? n : 1) * sizeof(*devs));
	if (!s->devs)
		return -ENOMEM;
	if (n)
		memcpy(s->devs, devs, n * sizeof(*devs));
	qsort(s->devs, n, sizeof(*devs), cmp_dev);
	s->n = n;
	s->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->procfd < 0) {
		free(s->devs);
		return -errno;
	}
	read_waiters(s);
	return 0;
}

static void scan_close(struct scan *s)
{
	if (s->procfd >= 0)
		close(s->procfd);
	free(s->devs);
	free(s->cache);
	free(s->waiters);
}

/* Every process of /proc but this one, through process_holds(): into @out. */
static int walk(struct scan *s, struct pa_openers *out)
{
	struct pa_holder h;
	struct dirent *de;
	DIR *proc;
	int fd;

	fd = dup(s->procfd);
	proc = fd < 0 ? NULL : fdopendir(fd);
	if (!proc) {
		int rc = -errno;

		if (fd >= 0)
			close(fd);
		return rc;
	}
	while ((de = readdir(proc))) {
		pid_t pid;

		if (!all_digits(de->d_name))
			continue;
		pid = (pid_t)strtol(de->d_name, NULL, 10);
		if (pid == s->self || !process_holds(s, pid, &h))
			continue;
		if (out->n < PA_OPENERS_KEPT)
			out->v[out->n++] = h;
		out->count++;
	}
	closedir(proc);
	return 0;
}

int scan_openers(const dev_t *devs, size_t n, struct pa_openers *out)
{
	struct scan s;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = scan_open(&s, devs, n);
	if (rc < 0)
		return rc;
	rc = walk(&s, out);
	scan_close(&s);
	return rc;
}

/* Does @h still hold its device (scan_opener_holds), asked through @s? */
static bool holds_now(const struct scan *s, const struct pa_holder *h)
{
	char dir[64], name[32], path[100];
	struct stat st;

	if (h->kind == PA_HOLDER_MAP) {
		snprintf(dir, sizeof(dir), "%ld/map_files", (long)h->pid);
		snprintf(name, sizeof(name), "%lx-%lx", h->map_start, h->map_end);
	} else {
		if (h->kind == PA_HOLDER_THREAD_FD)
			snprintf(dir, sizeof(dir), "%ld/task/%ld/fd", (long)h->pid,
				 (long)h->tid);
		else
			snprintf(dir, sizeof(dir), "%ld/fd", (long)h->pid);
		snprintf(name, sizeof(name), "%d", h->fd);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fstatat(s->procfd, path, &st, 0) == 0 && S_ISBLK(st.st_mode) &&
	       st.st_rdev == h->dev &&
	       (h->kind == PA_HOLDER_MAP || !waits_for_lock(s, h->pid, dir, name, &st));
}

size_t scan_openers_still_held(struct pa_openers *o)
{
	struct scan s;
	size_t i, k = 0, gone = 0;

	if (scan_open(&s, NULL, 0) < 0)
		return o->n; /* cannot tell: as they were */
	for (i = 0; i < o->n; i++)
		if (holds_now(&s, &o->v[i]))
			o->v[k++] = o->v[i];
		else
			gone++;
	scan_close(&s);
	o->n = k;
	o->count -= gone;
	return k;
}

bool scan_opener_holds(const struct pa_holder *h)
{
	struct scan s;
	bool held;

	if (scan_open(&s, &h->dev, 1) < 0)
		return true; /* cannot tell: as it was */
	held = holds_now(&s, h);
	scan_close(&s);
	return held;
}

/* ---- a run's index ------------------------------------------------------- */

int scan_openers_index(struct pa_opener_index *ix)
{
	struct pa_openers none;
	struct scan s;
	int rc;

	scan_openers_index_free(ix);
	rc = scan_open(&s, NULL, 0);
	if (rc < 0)
		return rc;
	s.ix = ix;
	memset(&none, 0, sizeof(none));
	rc = walk(&s, &none);
	scan_close(&s);
	ix->made_ms = sys_mono_ms();
	if (rc == 0 && ix->nomem)
		rc = -ENOMEM;
	if (rc < 0)
		scan_openers_index_free(ix);
	else
		ix->made = true;
	return rc;
}

int scan_openers_lookup(const struct pa_opener_index *ix, const dev_t *devs, size_t n,
			struct pa_openers *out)
{
	struct scan s;
	size_t i;
	pid_t last = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = scan_open(&s, devs, n);
	if (rc < 0)
		return rc;
	for (i = 0; i < ix->n; i++) {
		const struct pa_hold *x = &ix->v[i];
		struct pa_holder h = {.kind = x->kind,
				      .dev = x->dev,
				      .pid = x->pid,
				      .tid = x->tid,
				      .fd = x->fd,
				      .map_start = x->map_start,
				      .map_end = x->map_end};

		/* a process's holds are together: its first still held counts */
		if (x->pid == last || !watched(&s, x->dev) || !holds_now(&s, &h))
			continue;
		last = x->pid;
		comm_of(s.procfd, h.pid, h.comm, sizeof(h.comm));
		if (out->n < PA_OPENERS_KEPT)
			out->v[out->n++] = h;
		out->count++;
	}
	scan_close(&s);
	return 0;
}

void scan_openers_index_free(struct pa_opener_index *ix)
{
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}
