/*
 * LD_PRELOAD shim for write.sh: kills the process (SIGKILL, as a power cut
 * would stop it) at one step of partalign's atomic rules-file write, chosen
 * by PA_CRASH_AT:
 *   write   after half of the first write to a hidden temporary file
 *   fsync   at the first fsync
 *   rename  at the rename into place (rename or renameat)
 * Everything else passes through to libc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool crash_at(const char *step)
{
	const char *s = getenv("PA_CRASH_AT");

	return s && strcmp(s, step) == 0;
}

/* A file whose name starts with '.': the temporary file of the atomic write. */
static bool is_hidden_file(int fd)
{
	char p[64], t[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	n = readlink(p, t, sizeof(t) - 1);
	if (n <= 0)
		return false;
	t[n] = '\0';
	base = strrchr(t, '/');
	return base && base[1] == '.';
}

ssize_t write(int fd, const void *buf, size_t count)
{
	ssize_t (*real)(int, const void *, size_t) =
	    (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");

	if (crash_at("write") && count > 1 && is_hidden_file(fd)) {
		real(fd, buf, count / 2);
		raise(SIGKILL);
	}
	return real(fd, buf, count);
}

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");

	if (crash_at("fsync"))
		raise(SIGKILL);
	return real(fd);
}

int rename(const char *from, const char *to)
{
	int (*real)(const char *, const char *) =
	    (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");

	if (crash_at("rename"))
		raise(SIGKILL);
	return real(from, to);
}

/* file_tmp_publish() renames relative to the directory it holds open */
int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	int (*real)(int, const char *, int, const char *) =
	    (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");

	if (crash_at("rename"))
		raise(SIGKILL);
	return real(fromfd, from, tofd, to);
}
