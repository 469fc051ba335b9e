/*
 * System facts: whether we run in a chroot; and execveat(2) where glibc
 * has no wrapper for it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shared/sys.h"

int sys_chroot_state(void)
{
	struct stat a, b;

	if (stat("/", &a) < 0 || stat("/proc/1/root", &b) < 0)
		return -errno;
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

bool in_chroot(void)
{
	return sys_chroot_state() != 0;
}

int sys_execveat(int dfd, const char *name, char *const argv[], char *const envp[],
		 int flags)
{
#ifdef HAVE_EXECVEAT
	return execveat(dfd, name, argv, envp, flags);
#elif defined(SYS_execveat)
	return (int)syscall(SYS_execveat, dfd, name, argv, envp, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

uint64_t sys_mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}
