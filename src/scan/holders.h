/*
 * What holds a block device: the processes that have it open or mapped
 * (openers.c, as fuser finds them and more), and for one device that the
 * kernel will not let go of, also what the kernel itself keeps on it: a
 * loop device, a dm/md/bcache holder, a swap area, a mount (holders.c).
 * And who holds or waits for the flock(2) a partalign run takes on a disk
 * (/proc/locks).  Read-only, the host's / only (never below a dump's
 * root), no printing: the cli words what is found.
 */
#ifndef PARTALIGN_SCAN_HOLDERS_H
#define PARTALIGN_SCAN_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The kinds of holder, each with the fields of struct pa_holder it sets. */
enum pa_holder_kind {
	PA_HOLDER_FD = 0,    /* process pid (comm) has it open: descriptor fd */
	PA_HOLDER_THREAD_FD, /* thread tid of process pid (comm), which has a
				descriptor table of its own (unshare(CLONE_FILES)),
				has it open: descriptor fd of that table */
	PA_HOLDER_MAP,	     /* process pid (comm) has it mapped (MAP_SHARED or
				private) at map_start-map_end; its descriptor may
				be closed */
	PA_HOLDER_LOOP,	     /* loop device name ("loop3") is set up on it */
	PA_HOLDER_STACK,     /* the kernel's holders/ entry name: "dm-0" (dm
				map, its dm name in comm), "md127", "bcache0" */
	PA_HOLDER_SWAP,	     /* a swap area on it: name is the path /proc/swaps
				gives */
	PA_HOLDER_MOUNT,     /* mounted: name is the first mount point */
};

/*
 * One holder of a block device.  pid, tid and comm only for the process
 * kinds (pid 0 otherwise); fd -1 but for FD and THREAD_FD; name only for
 * the other kinds ("" otherwise).  Plain data: nothing to free.
 */
struct pa_holder {
	enum pa_holder_kind kind;
	dev_t dev;			  /* the device held */
	pid_t pid;			  /* the process (thread group id) */
	pid_t tid;			  /* PA_HOLDER_THREAD_FD: the thread */
	int fd;				  /* the descriptor's number in its table */
	unsigned long map_start, map_end; /* PA_HOLDER_MAP: the mapping */
	char comm[32];			  /* /proc/PID/comm; a dm map's name */
	char name[256];			  /* loop, holder, swap path, mount point */
};

/* How many holders scan_openers() keeps (it counts them all). */
#define PA_OPENERS_KEPT 8

struct pa_openers {
	size_t count;			     /* processes holding any device */
	size_t n;			     /* of them kept in v, in /proc order */
	struct pa_holder v[PA_OPENERS_KEPT]; /* one holder per process */
};

/*
 * Which processes other than this one hold any of the @n block devices
 * @devs, in one pass over /proc: each process's descriptors
 * (/proc/PID/fd), those of its threads that have a descriptor table of
 * their own (/proc/PID/task/TID/fd; threads that share the process's table
 * are told apart with kcmp(2) KCMP_FILES, and without kcmp -- a kernel
 * without CONFIG_KCMP -- every thread's table is read), and its mappings
 * of a device node (/proc/PID/maps, the mapped file judged once per scan
 * through /proc/PID/map_files).  Compared by device number: any node of the
 * device counts.  A process waiting in flock(2) for the lock on the very
 * node it has open read-only (a partalign run waiting for the disk's lock,
 * /proc/locks "->") is waiting, not using the disk: not counted.  0 with
 * @out filled (count 0: none), or -errno.
 */
int scan_openers(const dev_t *devs, size_t n, struct pa_openers *out);

/*
 * Does holder @h, found by scan_openers(), still hold its device (the same
 * descriptor or mapping, and not now a lock waiter)?  Cheap: one process.
 */
bool scan_opener_holds(const struct pa_holder *h);

/*
 * Drop the holders of @o that let go (scan_opener_holds(), one read of
 * /proc/locks for them all); how many of those kept are left.  When /proc
 * cannot be read, all are left as they were.
 */
size_t scan_openers_still_held(struct pa_openers *o);

/*
 * A run's record of who holds which block device: one pass over /proc, as
 * scan_openers() makes it, kept for the devices of every disk a run looks
 * at (plan A B C reads /proc once).  Zeroed by the caller; freed with
 * scan_openers_index_free().
 */
struct pa_hold;
struct pa_opener_index {
	struct pa_hold *v; /* one per process and device, a process's together */
	size_t n, cap;
	bool made;	  /* scan_openers_index() filled it */
	uint64_t made_ms; /* when it was done (CLOCK_MONOTONIC, ms) */
	bool nomem;	  /* a hold could not be kept */
};

/* Fill @ix with every process's holds of every block device: 0 or -errno. */
int scan_openers_index(struct pa_opener_index *ix);

/*
 * What scan_openers(@devs, @n) would give, from @ix: the processes of the
 * index whose hold of one of @devs is still there (each re-checked as
 * scan_opener_holds() does).  A process that opened one since the index
 * was made is not seen: the write gate scans again.  0 or -errno.
 */
int scan_openers_lookup(const struct pa_opener_index *ix, const dev_t *devs, size_t n,
			struct pa_openers *out);

void scan_openers_index_free(struct pa_opener_index *ix);

/*
 * The loop devices set up on any of the @n devices @devs (compared by the
 * backing device's number, LOOP_GET_STATUS64 lo_rdevice, or the device
 * number of the node sysfs loop/backing_file names when the loop device
 * cannot be asked): how many, and the first one in *@h (PA_HOLDER_LOOP).
 * 0 when none, a count > 0, or -errno.
 */
int scan_loops_over(const dev_t *devs, size_t n, struct pa_holder *h);

/*
 * What holds block device @dev, for a device the kernel will not release
 * (BLKPG_DEL_PARTITION answered EBUSY): a mount, a swap area, a kernel
 * holder (holders/: dm, md, bcache), a loop device, a process (descriptor,
 * thread's descriptor, mapping), looked for in that order; the first found
 * in *@h.  The host is asked now.  0, -ENOENT when nothing is found, or
 * -errno.
 */
int scan_holder_of(dev_t dev, struct pa_holder *h);

/*
 * The process holding the flock(2) lock on the file open as @fd (a disk
 * node partalign locks), from /proc/locks: pid and comm in *@h
 * (PA_HOLDER_FD, fd -1).  0, -ENOENT (no holder listed, or only this
 * process), -errno.
 */
int scan_lock_holder(int fd, struct pa_holder *h);

/* ---- the parsers, pure (for the tests) ---------------------------------- */

/* One line of /proc/PID/maps. */
struct pa_maps_line {
	unsigned long start, end;
	unsigned int major, minor; /* the device of the file system of the file */
	uint64_t inode;		   /* 0: anonymous */
	const char *path;	   /* into the line, "" for none; may end " (deleted)" */
};
int scan_maps_line(const char *line, struct pa_maps_line *m);

/* One line of /proc/locks. */
struct pa_lock_line {
	bool waiter; /* "->": blocked, waiting for the lock */
	bool flock;  /* FLOCK (not POSIX, OFDLCK, LEASE...) */
	bool write;  /* WRITE (LOCK_EX), not READ */
	pid_t pid;   /* 0 or -1 when not known */
	unsigned int major, minor;
	uint64_t inode;
};
int scan_locks_line(const char *line, struct pa_lock_line *l);

/* The first mount point of @dev in @mountinfo into @mp (unescaped); 1, 0, -errno. */
int scan_mount_of(FILE *mountinfo, dev_t dev, char *mp, size_t len);

/*
 * The swap area of @swaps (/proc/swaps) on @dev, judged by the device
 * number of the node each line names (stat): its path into @path; 1, 0.
 */
int scan_swap_of(FILE *swaps, dev_t dev, char *path, size_t len);

/* A dev_t from LOOP_GET_STATUS64's lo_rdevice (the kernel's "huge" encoding). */
dev_t scan_loop_rdev(uint64_t huge);

#endif
