/* Facts about the system partalign runs on. */
#ifndef PARTALIGN_SHARED_SYS_H
#define PARTALIGN_SHARED_SYS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * True when / is not the root of PID 1 (a chroot, e.g. a kickstart's %post): udev
 * there is the target's, not the running system's.  Also true when that cannot be
 * told (no /proc): then the safe answer is "do not touch the running udev".
 */
bool in_chroot(void);

/* in_chroot() with the cause kept: 1 in a chroot, 0 not, -errno when it cannot be told.
 */
int sys_chroot_state(void);

/*
 * execveat(2) (the wrapper of glibc 2.34 and later, else the system call,
 * Linux 3.19): run @name relative to directory descriptor @dfd.  Returns
 * only on failure, -1 with errno.  Async-signal-safe (for a forked child).
 */
int sys_execveat(int dfd, const char *name, char *const argv[], char *const envp[],
		 int flags);

/* Milliseconds of CLOCK_MONOTONIC: for waits and deadlines, never a date. */
uint64_t sys_mono_ms(void);

#endif
