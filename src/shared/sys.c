/*
 * System facts: whether we run in a chroot.
 */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>

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
