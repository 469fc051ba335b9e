/*
 * Exit status of every partalign command: a bitmask OR-ed over all devices
 * (the fsck(8) convention), so one run over many disks reports everything it saw.
 * The man page lists the same values; keep the two in step.
 */
#ifndef PARTALIGN_EXITCODES_H
#define PARTALIGN_EXITCODES_H

#define PA_EXIT_OK 0	     /* nothing found, nothing to do */
#define PA_EXIT_CHANGED 1    /* fix/rules/provision changed something */
#define PA_EXIT_REBOOT 2     /* written, but the kernel still uses the old table */
#define PA_EXIT_MISALIGNED 4 /* misalignment found (or left behind) */
#define PA_EXIT_ERROR 8	     /* operational error: missing, unreadable, refused... */
#define PA_EXIT_USAGE 16     /* bad command line or configuration */
#define PA_EXIT_ASM 32	     /* check --asm/--probe: an Oracle ASM disk group at risk */

/* plan: fix would write, but no partition moves (the backup GPT to a grown
   disk's end, a damaged GPT copy, the kernel's partitions) */
#define PA_EXIT_UPKEEP PA_EXIT_CHANGED

#endif
