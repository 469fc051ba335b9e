/*
 * LD_PRELOAD shim for the crash-safety test of the table write.  It counts
 * the calls that write to or flush a block device (pwrite, pwrite64, write,
 * fsync, fdatasync on an fd whose fstat says S_ISBLK) and acts on call
 * number FI_AT (1-based):
 *
 *   FI_MODE=eio         the call fails with EIO and writes nothing
 *   FI_MODE=kill        the process gets SIGKILL before the call
 *   FI_MODE=kill-after  the call is made, then the process gets SIGKILL
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum action { PASS, FAIL, KILL_AFTER };

static unsigned long counted;

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "faultinject: %s not found\n", name);
		abort();
	}
	return f;
}

static enum action step(int fd, const char *name, long long off, long long len)
{
	const char *at, *mode, *log;
	struct stat st;
	unsigned long n;
	int saved = errno, lfd;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		errno = saved;
		return PASS;
	}
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
	at = getenv("FI_AT");
	if (!at || strtoul(at, NULL, 10) != n)
		return PASS;
	mode = getenv("FI_MODE");
	if (!mode || strcmp(mode, "eio") == 0)
		return FAIL;
	if (strcmp(mode, "kill-after") == 0)
		return KILL_AFTER;
	raise(SIGKILL);
	return FAIL; /* not reached */
}

static void finish(enum action a)
{
	if (a == KILL_AFTER)
		raise(SIGKILL);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*fn)(int, const void *, size_t, off_t);
	enum action a = step(fd, "pwrite", (long long)off, (long long)len);
	ssize_t r;

	if (!fn)
		fn = real("pwrite");
	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	r = fn(fd, buf, len, off);
	finish(a);
	return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	static ssize_t (*fn)(int, const void *, size_t, off64_t);
	enum action a = step(fd, "pwrite64", (long long)off, (long long)len);
	ssize_t r;

	if (!fn)
		fn = real("pwrite64");
	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	r = fn(fd, buf, len, off);
	finish(a);
	return r;
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*fn)(int, const void *, size_t);
	enum action a = step(fd, "write", -1, (long long)len);
	ssize_t r;

	if (!fn)
		fn = real("write");
	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	r = fn(fd, buf, len);
	finish(a);
	return r;
}

int fsync(int fd)
{
	static int (*fn)(int);
	enum action a = step(fd, "fsync", -1, -1);
	int r;

	if (!fn)
		fn = real("fsync");
	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	r = fn(fd);
	finish(a);
	return r;
}

int fdatasync(int fd)
{
	static int (*fn)(int);
	enum action a = step(fd, "fdatasync", -1, -1);
	int r;

	if (!fn)
		fn = real("fdatasync");
	if (a == FAIL) {
		errno = EIO;
		return -1;
	}
	r = fn(fd);
	finish(a);
	return r;
}
