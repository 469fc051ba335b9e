/*
 * One disk up to the question, for every writer (plan, fix, resume,
 * provision's probe, restore): the scan, the lock, the claiming open, the
 * scan again under the lock (the node must still be the device scanned),
 * and why the disk is in use or read-only, from core's rules.  No
 * printing: where it stopped and why come back in struct apply_look, the
 * cli says them.  What the writes themselves need from the kernel is
 * asked under the write gate (execute.c).
 */
#ifndef PARTALIGN_APPLY_LOOK_H
#define PARTALIGN_APPLY_LOOK_H

#include <stdbool.h>
#include <sys/types.h>

#include "apply/apply.h"
#include "core/device.h"

/* Where apply_look() stopped (APPLY_LOOK_OK: it did not). */
enum apply_look_stop {
	APPLY_LOOK_OK = 0,
	APPLY_LOOK_SCAN,    /* the scan: ->err (-ENOTBLK, -ENODEV: no disk to fix) */
	APPLY_LOOK_PART,    /* a partition was named: ->dev, its disk ->dev->disk */
	APPLY_LOOK_LOCKED,  /* the lock was not had in time (the disk stays open) */
	APPLY_LOOK_OPEN,    /* it could not be opened: ->err */
	APPLY_LOOK_RESCAN,  /* the scan under the lock failed: ->err */
	APPLY_LOOK_CHANGED, /* the node changed while waiting for the lock: ->was, ->now
			     */
};

/* How apply_look() opens the disk. */
enum apply_look_mode {
	APPLY_LOOK_SHOW,  /* plan, fix: held by another, still look (not claiming) */
	APPLY_LOOK_CLAIM, /* restore: held by another is the end (->inuse says) */
};

struct apply_look {
	struct pa_devlist
	    devs;	     /* the disk and its neighbourhood, scanned under the lock */
	struct pa_dev *dev;  /* the disk, in @devs */
	struct pa_disk disk; /* open when @opened (locked, unless stop LOCKED) */
	bool opened;
	bool claimed; /* locked and, but for a multipath map, open O_EXCL */
	/*
	 * Why it must not be written (malloc'd, NULL: nothing found): mounted,
	 * swap, held, a map's users, not openable exclusively, read-only.  The
	 * processes that have it open are the proof's (apply_proof_openers).
	 */
	char *inuse;
	enum apply_look_stop stop;
	int err;
	dev_t was, now;
	struct pa_diags diags; /* what the scans said */
};

/*
 * Look at disk @arg: waits up to @wait_ms for its lock.  0 with lk->stop
 * telling whether it got through (the caller then reads the table and
 * takes the proof), or -ENOMEM.  apply_look_free() always.
 */
int apply_look(const char *arg, int wait_ms, enum apply_look_mode mode,
	       struct apply_look *lk);
void apply_look_free(struct apply_look *lk);

/*
 * A multipath map's users, from the device-mapper's open counts of the map
 * and its kpartx partition maps (plan_refusal_map_in_use() judges them):
 * a malloc'd reason, or NULL when it is not in use.
 */
char *apply_map_in_use(const struct pa_devlist *l, const struct pa_dev *map);

#endif
