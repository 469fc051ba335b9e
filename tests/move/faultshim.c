/*
 * LD_PRELOAD shim for the crash tests of fix --move-data.  It counts the
 * calls that write or flush the disk (an fd whose fstat says S_ISBLK) or
 * the move journal (a regular file under FS_JOURNAL) -- pwrite, pwrite64,
 * pwritev, write, fsync, fdatasync -- and acts on call number FS_AT:
 *
 *   FS_MODE=eio        that call fails with EIO (fsync: nothing is flushed)
 *   FS_MODE=kill       SIGKILL before that call
 *   FS_MODE=kill-after the call is made, then SIGKILL
 *   FS_MODE=powercut   every counted write is held back until an fsync or
 *                      fdatasync of its file; at call FS_AT a random subset
 *                      of the held writes (FS_SEED), some of them torn at
 *                      512-byte sectors, reaches the file, the rest is lost,
 *                      and the process gets SIGKILL.  Reads see held writes,
 *                      as they would a device's cache.
 *
 * FS_CUT_KEEP=none makes the cut lose every held write (no random subset).
 * FS_DISK_SYNC_DELAY_MS=N delays every flush of the disk by N ms before it
 * is counted, so that what other threads write and flush meanwhile (the
 * journal's record of a checkpoint) comes first: the order a resume must
 * survive when the disk's flush is the slower one.  FS_JOURNAL_SYNC_DELAY_MS=N
 * does the same to the journal's flushes.
 *
 * FS_BLKPG_BUSY=N makes the first N BLKPG_DEL_PARTITION ioctls fail with
 * EBUSY (a prober holding the partition).
 *
 * FS_COUNT=disk|journal|all picks what is counted (default all);
 * FS_COUNT=disk-sync counts the disk's fsync and fdatasync calls only, so
 * that FS_AT=N names the disk's Nth flush whatever the threads did
 * between flushes.  With
 * FS_LOG=FILE every counted call is appended as "N KIND NAME OFFSET LEN".
 * Nothing is injected without FS_AT.  Other files pass through untouched.
 *
 * Names made predictable (the trust tests plant links where partalign will
 * create a file): FS_RANDOM_BYTE=N makes getrandom() fill with the byte N
 * (a move id, a temporary name), FS_REALTIME=SECONDS makes the
 * CLOCK_REALTIME of clock_gettime() that second, 0 ns (a backup's name).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/blkpg.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum kind { OTHER, DISK, JOURNAL };

struct held {
	dev_t dev;
	ino_t ino;
	int fd;		/* the fd it came through... */
	char path[256]; /* ...or, once that is closed, the file's name */
	size_t grain;	/* what a torn write keeps or loses at once */
	off_t off;
	size_t len;
	unsigned char *data;
	struct held *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counted;
static struct held *held, **held_tail = &held;

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "faultshim: %s not found\n", name);
		abort();
	}
	return f;
}

#define REAL(ret, name, ...)                                                             \
	static ret (*real_##name)(__VA_ARGS__);                                          \
	static ret (*get_##name(void))(__VA_ARGS__)                                      \
	{                                                                                \
		if (!real_##name)                                                        \
			real_##name = (ret(*)(__VA_ARGS__))real(#name);                  \
		return real_##name;                                                      \
	}

REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void *, size_t, off_t)
REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t)
REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, pread, int, void *, size_t, off_t)
REAL(ssize_t, pread64, int, void *, size_t, off_t)
REAL(int, fsync, int)
REAL(int, fdatasync, int)

static enum kind kind_of(int fd, struct stat *st)
{
	const char *j = getenv("FS_JOURNAL");
	char link[64], path[4096];
	ssize_t n;

	if (fstat(fd, st) < 0)
		return OTHER;
	if (S_ISBLK(st->st_mode))
		return DISK;
	if (!S_ISREG(st->st_mode) || !j || !*j)
		return OTHER;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return OTHER;
	path[n] = '\0';
	return strncmp(path, j, strlen(j)) == 0 ? JOURNAL : OTHER;
}

static bool counts(enum kind k, const char *name)
{
	const char *c = getenv("FS_COUNT");

	if (k == OTHER)
		return false;
	if (!c || !*c || strcmp(c, "all") == 0)
		return true;
	if (strcmp(c, "disk-sync") == 0)
		return k == DISK && strstr(name, "sync") != NULL;
	return strcmp(c, k == DISK ? "disk" : "journal") == 0;
}

/* Are writes of this kind held back in a power cut?  What is counted, and
 * with disk-sync both the disk's and the journal's. */
static bool holds(enum kind k)
{
	const char *c = getenv("FS_COUNT");

	return c && strcmp(c, "disk-sync") == 0 ? k != OTHER : counts(k, "");
}

static const char *mode(void)
{
	const char *m = getenv("FS_MODE");

	return m ? m : "";
}

static bool powercut(void)
{
	return strcmp(mode(), "powercut") == 0 && getenv("FS_AT");
}

static void log_call(unsigned long n, enum kind k, const char *name, long long off,
		     long long len)
{
	const char *log = getenv("FS_LOG");
	char line[160];
	int fd, l;

	if (!log || !*log)
		return;
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	l = snprintf(line, sizeof(line), "%lu %s %s %lld %lld\n", n,
		     k == DISK ? "disk" : "journal", name, off, len);
	get_write()(fd, line, (size_t)l);
	close(fd);
}

static uint64_t rnd_state;

static unsigned int rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)(rnd_state >> 33);
}

/* The fd to write @h through: its own, or the file opened again. */
static int out_fd(const struct held *h, bool *opened)
{
	struct stat st;

	*opened = false;
	if (fstat(h->fd, &st) == 0 && st.st_dev == h->dev && st.st_ino == h->ino)
		return h->fd;
	*opened = true;
	return open(h->path, O_WRONLY | O_CLOEXEC | (h->grain >= 4096 ? O_DIRECT : 0));
}

static void put(const struct held *h, size_t from, size_t len)
{
	bool opened;
	int fd = out_fd(h, &opened);

	if (fd < 0)
		return;
	if (get_pwrite()(fd, h->data + from, len, h->off + (off_t)from) != (ssize_t)len)
		fprintf(stderr, "faultshim: cannot write held data to %s\n", h->path);
	if (opened)
		close(fd);
}

/* Write held-back data for real: all of it, or (at the cut) a random, torn subset. */
static void release(dev_t dev, ino_t ino, bool all, bool cut)
{
	struct held **pp = &held, *h;

	while ((h = *pp)) {
		if (!all && (h->dev != dev || h->ino != ino)) {
			pp = &h->next;
			continue;
		}
		if (!cut) {
			put(h, 0, h->len);
		} else if (getenv("FS_CUT_KEEP") &&
			   !strcmp(getenv("FS_CUT_KEEP"), "none")) {
			; /* lost */
		} else if (rnd() % 2) {
			if (rnd() % 4 == 0) {
				size_t s;

				for (s = 0; s < h->len; s += h->grain)
					if (rnd() % 2)
						put(h, s,
						    h->len - s < h->grain ? h->len - s
									  : h->grain);
			} else {
				put(h, 0, h->len);
			}
		}
		*pp = h->next;
		free(h->data);
		free(h);
	}
	held_tail = &held;
	for (h = held; h; h = h->next)
		held_tail = &h->next;
}

/*
 * Count a call and decide: 0 go on, -1 fail with EIO.  Called with mu held;
 * does not return when it kills.
 */
static int step(enum kind k, const char *name, long long off, long long len, bool *after)
{
	const char *at = getenv("FS_AT");
	unsigned long n;

	*after = false;
	if (!counts(k, name))
		return 0;
	n = ++counted;
	log_call(n, k, name, off, len);
	if (!at || strtoul(at, NULL, 10) != n)
		return 0;
	if (strcmp(mode(), "eio") == 0)
		return -1;
	if (strcmp(mode(), "kill-after") == 0) {
		*after = true;
		return 0;
	}
	if (strcmp(mode(), "powercut") == 0) {
		const char *seed = getenv("FS_SEED");

		rnd_state = seed ? strtoull(seed, NULL, 10) : 1;
		release(0, 0, true, true);
	}
	kill(getpid(), SIGKILL);
	pause();
	return 0;
}

static void die_after(bool after)
{
	if (after) {
		kill(getpid(), SIGKILL);
		pause();
	}
}

static ssize_t hold(int fd, const struct stat *st, const void *buf, size_t len, off_t off)
{
	struct held *h = calloc(1, sizeof(*h));
	char link[64];
	int ssz = 512;
	ssize_t n;

	if (!h || posix_memalign((void **)&h->data, 4096, len ? len : 1)) {
		free(h);
		errno = ENOMEM;
		return -1;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, h->path, sizeof(h->path) - 1);
	h->path[n > 0 ? n : 0] = '\0';
	/* O_DIRECT writes come in whole logical blocks: tear at that size */
	if (S_ISBLK(st->st_mode))
		ioctl(fd, BLKSSZGET, &ssz);
	else if (fcntl(fd, F_GETFL) & O_DIRECT)
		ssz = 4096;
	h->grain = (size_t)ssz;
	memcpy(h->data, buf, len);
	h->dev = st->st_dev;
	h->ino = st->st_ino;
	h->fd = fd;
	h->off = off;
	h->len = len;
	*held_tail = h;
	held_tail = &h->next;
	return (ssize_t)len;
}

static ssize_t do_pwrite(ssize_t (*fn)(int, const void *, size_t, off_t),
			 const char *name, int fd, const void *buf, size_t len, off_t off)
{
	struct stat st;
	enum kind k = kind_of(fd, &st);
	bool after;
	ssize_t r;

	if (k == OTHER)
		return fn(fd, buf, len, off);
	pthread_mutex_lock(&mu);
	if (step(k, name, off, (long long)len, &after) < 0) {
		pthread_mutex_unlock(&mu);
		errno = EIO;
		return -1;
	}
	if (powercut() && holds(k)) {
		r = hold(fd, &st, buf, len, off);
		pthread_mutex_unlock(&mu);
		return r;
	}
	pthread_mutex_unlock(&mu);
	r = fn(fd, buf, len, off);
	die_after(after);
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return do_pwrite(get_pwrite(), "pwrite", fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return do_pwrite(get_pwrite64(), "pwrite64", fd, buf, len, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	struct stat st;
	enum kind k = kind_of(fd, &st);
	unsigned char *flat;
	size_t len = 0, p = 0;
	ssize_t r;
	int i;

	if (k == OTHER)
		return get_pwritev()(fd, iov, n, off);
	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	/* one contiguous write: what the program asked for, counted once */
	if (posix_memalign((void **)&flat, 4096, len ? len : 1))
		return -1;
	for (i = 0; i < n; i++) {
		memcpy(flat + p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	r = do_pwrite(get_pwrite(), "pwritev", fd, flat, len, off);
	free(flat);
	return r;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	struct stat st;
	enum kind k = kind_of(fd, &st);
	bool after;
	ssize_t r;

	if (k == OTHER)
		return get_write()(fd, buf, len);
	pthread_mutex_lock(&mu);
	if (step(k, "write", -1, (long long)len, &after) < 0) {
		pthread_mutex_unlock(&mu);
		errno = EIO;
		return -1;
	}
	if (powercut() && holds(k)) {
		off_t off = lseek(fd, 0, SEEK_CUR);

		r = hold(fd, &st, buf, len, off);
		if (r > 0)
			lseek(fd, r, SEEK_CUR);
		pthread_mutex_unlock(&mu);
		return r;
	}
	pthread_mutex_unlock(&mu);
	r = get_write()(fd, buf, len);
	die_after(after);
	return r;
}

/* Reads see held writes, oldest first. */
static ssize_t do_pread(ssize_t (*fn)(int, void *, size_t, off_t), int fd, void *buf,
			size_t len, off_t off)
{
	struct stat st;
	struct held *h;
	ssize_t r = fn(fd, buf, len, off);

	if (r <= 0 || !powercut() || kind_of(fd, &st) == OTHER)
		return r;
	pthread_mutex_lock(&mu);
	for (h = held; h; h = h->next) {
		off_t lo = h->off > off ? h->off : off;
		off_t hi =
		    h->off + (off_t)h->len < off + r ? h->off + (off_t)h->len : off + r;

		if (h->dev != st.st_dev || h->ino != st.st_ino || lo >= hi)
			continue;
		memcpy((char *)buf + (lo - off), h->data + (lo - h->off),
		       (size_t)(hi - lo));
	}
	pthread_mutex_unlock(&mu);
	return r;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return do_pread(get_pread(), fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	return do_pread(get_pread64(), fd, buf, len, off);
}

static int do_sync(int (*fn)(int), const char *name, int fd)
{
	struct stat st;
	enum kind k;
	bool after;
	int r;

	if (fd < 0)
		return fn(fd);
	k = kind_of(fd, &st);
	if (k == OTHER)
		return fn(fd);
	if (getenv(k == DISK ? "FS_DISK_SYNC_DELAY_MS" : "FS_JOURNAL_SYNC_DELAY_MS"))
		usleep((useconds_t)strtoul(getenv(k == DISK ? "FS_DISK_SYNC_DELAY_MS"
							    : "FS_JOURNAL_SYNC_DELAY_MS"),
					   NULL, 10) *
		       1000);
	pthread_mutex_lock(&mu);
	if (step(k, name, -1, -1, &after) < 0) {
		pthread_mutex_unlock(&mu);
		errno = EIO;
		return -1;
	}
	if (powercut())
		release(st.st_dev, st.st_ino, false, false);
	pthread_mutex_unlock(&mu);
	r = fn(fd);
	die_after(after);
	return r;
}

int fsync(int fd)
{
	return do_sync(get_fsync(), "fsync", fd);
}

int fdatasync(int fd)
{
	return do_sync(get_fdatasync(), "fdatasync", fd);
}

/*
 * FS_BLKPG_BUSY=N: the first N BLKPG_DEL_PARTITION ioctls fail with EBUSY,
 * as when a prober has the partition open for a moment.  Counted apart
 * from the writes and flushes above.
 */
REAL(int, ioctl, int, unsigned long, void *)

int ioctl(int fd, unsigned long req, ...)
{
	static unsigned long busy_done;
	const char *busy = getenv("FS_BLKPG_BUSY");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (busy && req == BLKPG && arg &&
	    ((struct blkpg_ioctl_arg *)arg)->op == BLKPG_DEL_PARTITION) {
		pthread_mutex_lock(&mu);
		if (busy_done < strtoul(busy, NULL, 10)) {
			busy_done++;
			pthread_mutex_unlock(&mu);
			errno = EBUSY;
			return -1;
		}
		pthread_mutex_unlock(&mu);
	}
	return get_ioctl()(fd, req, arg);
}

REAL(ssize_t, getrandom, void *, size_t, unsigned int)
REAL(int, clock_gettime, clockid_t, struct timespec *)

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	const char *b = getenv("FS_RANDOM_BYTE");

	if (!b || !*b)
		return get_getrandom()(buf, len, flags);
	memset(buf, (int)strtoul(b, NULL, 0), len);
	return (ssize_t)len;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	const char *t = getenv("FS_REALTIME");

	if (clk != CLOCK_REALTIME || !t || !*t)
		return get_clock_gettime()(clk, ts);
	ts->tv_sec = (time_t)strtoll(t, NULL, 10);
	ts->tv_nsec = 0;
	return 0;
}
