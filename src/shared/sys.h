/* Facts about the system partalign runs on. */
#ifndef PARTALIGN_SHARED_SYS_H
#define PARTALIGN_SHARED_SYS_H

#include <stdbool.h>

/*
 * True when / is not the root of PID 1 (a chroot, e.g. a kickstart's %post): udev
 * there is the target's, not the running system's.  Also true when that cannot be
 * told (no /proc): then the safe answer is "do not touch the running udev".
 */
bool in_chroot(void);

/* in_chroot() with the cause kept: 1 in a chroot, 0 not, -errno when it cannot be told.
 */
int sys_chroot_state(void);

#endif
