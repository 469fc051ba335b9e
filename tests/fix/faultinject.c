/*
 * LD_PRELOAD shim for the crash-safety tests of the table write (fix,
 * restore).  It counts the calls that write to or flush a block device
 * (pwrite, pwrite64, write, fsync, fdatasync on an fd whose fstat says
 * S_ISBLK) and acts on call number FI_AT (1-based):
 *
 *   FI_MODE=eio         the call fails with EIO and writes nothing
 *   FI_MODE=kill        the process gets SIGKILL before the call
 *   FI_MODE=kill-after  the call is made, then the process gets SIGKILL
 *   FI_MODE=pause       before the call, the file FI_PAUSED is created and
 *                       the process waits until the file FI_RESUME exists
 *                       (at most 60 s), then makes the call: a test can
 *                       hold a run in the middle of its write
 *   FI_MODE=powercut    a volatile write cache: every counted write is held
 *                       back (reads of the device see it, the disk does not)
 *                       until an fsync or fdatasync of that device, which
 *                       writes it for real first.  Before call FI_AT, or at
 *                       exit when the run never got there, the power fails:
 *                       the held writes reach the disk as FI_LOSS says and
 *                       the process gets SIGKILL (at exit: it just ends)
 *
 * FI_LOSS, per held write, in 512-byte or 4096-byte logical sectors:
 *   lost      (default) nothing of it reaches the disk
 *   torn-even sectors 0, 2, 4... of it reach the disk, the others not
 *   torn-odd  sectors 1, 3, 5... reach the disk (a one-sector write is lost)
 *   random    each write whole, lost or torn at random sectors (FI_SEED)
 *
 * Without FI_AT (or with FI_AT=0) nothing is injected.  With FI_LOG=FILE
 * each counted call is appended to FILE as one line "N NAME OFFSET LENGTH"
 * (-1 for no offset or length), so a test can tell how many steps a run
 * has and what each one is.  Calls on other fds (the backup file,
 * libparted's in-memory shadow, stdout) pass through and are not counted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum action { PASS, FAIL, KILL_AFTER, HOLD };

/* A write the volatile cache has not yet passed to the disk. */
struct held {
	dev_t rdev;
	char path[256]; /* the device node it came through */
	size_t sector;	/* tearing keeps or loses whole logical sectors */
	off_t off;
	size_t len;
	unsigned char *data;
	struct held *next;
};

static unsigned long counted;
static struct held *held;
static uint64_t rnd_state;

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "faultinject: %s not found\n", name);
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
REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, pread, int, void *, size_t, off_t)
REAL(ssize_t, pread64, int, void *, size_t, off_t)
REAL(ssize_t, read, int, void *, size_t)
REAL(int, fsync, int)
REAL(int, fdatasync, int)

static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && strcmp(v, value) == 0;
}

static unsigned long fi_at(void)
{
	const char *at = getenv("FI_AT");

	return at ? strtoul(at, NULL, 10) : 0;
}

static bool powercut(void)
{
	return env_is("FI_MODE", "powercut") && fi_at() > 0;
}

static bool is_blk(int fd, struct stat *st)
{
	int saved = errno;
	bool b = fd >= 0 && fstat(fd, st) == 0 && S_ISBLK(st->st_mode);

	errno = saved;
	return b;
}

static unsigned int rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)(rnd_state >> 33);
}

/* Write [from, from + len) of @h to the disk for real, through its own open. */
static void put(const struct held *h, size_t from, size_t len)
{
	int fd = open(h->path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 ||
	    get_pwrite()(fd, h->data + from, len, h->off + (off_t)from) != (ssize_t)len ||
	    get_fsync()(fd) < 0)
		fprintf(stderr, "faultinject: cannot write held data to %s\n", h->path);
	if (fd >= 0)
		close(fd);
}

/* What the power cut leaves of @h. */
static void cut_one(const struct held *h)
{
	const char *loss = getenv("FI_LOSS");
	size_t s, i, n;
	int keep = -1; /* -1: sector by sector below; 0 lost; 1 whole */
	unsigned int parity = 0;

	if (!loss || !*loss || strcmp(loss, "lost") == 0) {
		keep = 0;
	} else if (strcmp(loss, "torn-even") == 0) {
		parity = 0;
	} else if (strcmp(loss, "torn-odd") == 0) {
		parity = 1;
	} else if (strcmp(loss, "random") == 0) {
		unsigned int r = rnd() % 3;

		keep = r == 2 ? -1 : (int)r;
		parity = 2;
	} else {
		fprintf(stderr, "faultinject: unknown FI_LOSS=%s\n", loss);
		keep = 0;
	}
	if (keep == 0)
		return;
	if (keep == 1) {
		put(h, 0, h->len);
		return;
	}
	n = (h->len + h->sector - 1) / h->sector;
	for (i = 0; i < n; i++) {
		s = i * h->sector;
		if (parity == 2 ? rnd() % 2 == 0 : i % 2 == parity)
			put(h, s, h->len - s < h->sector ? h->len - s : h->sector);
	}
}

/* Write the held writes of @rdev (all devices when 0) for real, or cut them. */
static void release(dev_t rdev, bool cut)
{
	struct held **pp = &held, *h;

	if (cut) {
		const char *seed = getenv("FI_SEED");

		rnd_state = seed ? strtoull(seed, NULL, 10) : 1;
	}
	while ((h = *pp)) {
		if (rdev && h->rdev != rdev) {
			pp = &h->next;
			continue;
		}
		if (cut)
			cut_one(h);
		else
			put(h, 0, h->len);
		*pp = h->next;
		free(h->data);
		free(h);
	}
}

/* Hold a write of @len bytes at @off back in the volatile cache. */
static ssize_t hold(int fd, const struct stat *st, const void *buf, size_t len, off_t off)
{
	struct held *h = calloc(1, sizeof(*h)), **pp;
	char link[64];
	int sz = 0;
	ssize_t n;

	if (!h || !(h->data = malloc(len ? len : 1))) {
		free(h);
		errno = ENOMEM;
		return -1;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, h->path, sizeof(h->path) - 1);
	h->path[n > 0 ? n : 0] = '\0';
	h->rdev = st->st_rdev;
	h->sector = ioctl(fd, BLKSSZGET, &sz) == 0 && sz > 0 ? (size_t)sz : 512;
	h->off = off;
	h->len = len;
	memcpy(h->data, buf, len);
	for (pp = &held; *pp; pp = &(*pp)->next)
		;
	*pp = h;
	return (ssize_t)len;
}

/* After a real read of [off, off + n) of @rdev: what the cache holds wins. */
static void overlay(dev_t rdev, void *buf, ssize_t n, off_t off)
{
	const struct held *h;

	for (h = held; n > 0 && h; h = h->next) {
		off_t a = h->off > off ? h->off : off;
		off_t b =
		    h->off + (off_t)h->len < off + n ? h->off + (off_t)h->len : off + n;

		if (h->rdev == rdev && a < b)
			memcpy((char *)buf + (a - off), h->data + (a - h->off),
			       (size_t)(b - a));
	}
}

static void wait_resume(void)
{
	const char *paused = getenv("FI_PAUSED"), *resume = getenv("FI_RESUME");
	struct timespec ts = {0, 10 * 1000 * 1000};
	int i, fd;

	if (paused && *paused) {
		fd = open(paused, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; resume && *resume && i < 6000 && access(resume, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

static enum action step(int fd, const char *name, long long off, long long len,
			bool write)
{
	const char *mode, *log;
	struct stat st;
	unsigned long n;
	int saved = errno, lfd;

	if (!is_blk(fd, &st))
		return PASS;
	n = ++counted;
	log = getenv("FI_LOG");
	if (log && *log) {
		lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		if (lfd >= 0) {
			dprintf(lfd, "%lu %s %lld %lld\n", n, name, off, len);
			close(lfd);
		}
	}
	errno = saved;
	if (fi_at() != n) {
		if (!powercut())
			return PASS;
		if (write)
			return HOLD;
		release(st.st_rdev, false);
		return PASS;
	}
	mode = getenv("FI_MODE");
	if (!mode || strcmp(mode, "eio") == 0)
		return FAIL;
	if (strcmp(mode, "kill-after") == 0)
		return KILL_AFTER;
	if (strcmp(mode, "pause") == 0) {
		wait_resume();
		errno = saved;
		return PASS;
	}
	if (strcmp(mode, "powercut") == 0)
		release(0, true);
	raise(SIGKILL);
	return FAIL; /* not reached */
}

static void finish(enum action a)
{
	if (a == KILL_AFTER)
		raise(SIGKILL);
}

/* A run that ended before call FI_AT: the power fails after its exit. */
__attribute__((destructor)) static void at_exit_cut(void)
{
	if (powercut() && counted < fi_at())
		release(0, true);
}

static ssize_t do_pwrite(ssize_t (*fn)(int, const void *, size_t, off_t),
			 const char *name, int fd, const void *buf, size_t len, off_t off)
{
	enum action a = step(fd, name, (long long)off, (long long)len, true);
	struct stat st;
	ssize_t r;

	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	if (a == HOLD && is_blk(fd, &st))
		return hold(fd, &st, buf, len, off);
	r = fn(fd, buf, len, off);
	finish(a);
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return do_pwrite(get_pwrite(), "pwrite", fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	return do_pwrite(get_pwrite64(), "pwrite64", fd, buf, len, off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	enum action a = step(fd, "write", -1, (long long)len, true);
	struct stat st;
	off_t off;
	ssize_t r;

	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	if (a == HOLD && is_blk(fd, &st) && (off = lseek(fd, 0, SEEK_CUR)) >= 0) {
		r = hold(fd, &st, buf, len, off);
		if (r > 0)
			lseek(fd, off + r, SEEK_SET);
		return r;
	}
	r = get_write()(fd, buf, len);
	finish(a);
	return r;
}

static ssize_t do_pread(ssize_t (*fn)(int, void *, size_t, off_t), int fd, void *buf,
			size_t len, off_t off)
{
	ssize_t r = fn(fd, buf, len, off);
	struct stat st;

	if (r > 0 && held && is_blk(fd, &st))
		overlay(st.st_rdev, buf, r, off);
	return r;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return do_pread(get_pread(), fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off64_t off)
{
	return do_pread(get_pread64(), fd, buf, len, off);
}

ssize_t read(int fd, void *buf, size_t len)
{
	struct stat st;
	off_t off = -1;
	ssize_t r;

	if (held && is_blk(fd, &st))
		off = lseek(fd, 0, SEEK_CUR);
	r = get_read()(fd, buf, len);
	if (r > 0 && off >= 0)
		overlay(st.st_rdev, buf, r, off);
	return r;
}

static int do_flush(int (*fn)(int), const char *name, int fd)
{
	enum action a = step(fd, name, -1, -1, false);
	int r;

	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	r = fn(fd);
	finish(a);
	return r;
}

int fsync(int fd)
{
	return do_flush(get_fsync(), "fsync", fd);
}

int fdatasync(int fd)
{
	return do_flush(get_fdatasync(), "fdatasync", fd);
}
