/*
 * One disk up to the question (look.h): the sequence plan, fix, resume,
 * provision's probe and restore share before they read a table.  Nothing
 * here prints; the cli says where it stopped.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "apply/look.h"
#include "core/plan.h"
#include "core/refusal.h"
#include "scan/scan.h"

/* Scan @arg's neighbourhood into lk->devs and find it there. */
static int scan_one(const char *arg, struct apply_look *lk)
{
	char *names[] = {(char *)arg};
	struct pa_scan_opts so = {.names = names, .nnames = 1};
	int rc;

	devlist_free(&lk->devs);
	lk->dev = NULL;
	rc = scan_devices(&so, &lk->devs, &lk->diags);
	return rc < 0 ? rc : scan_lookup(&lk->devs, arg, &lk->dev);
}

char *apply_map_in_use(const struct pa_devlist *l, const struct pa_dev *map)
{
	int *opens = calloc(l->n ? l->n : 1, sizeof(*opens));
	char *why;
	size_t i;

	if (!opens)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *d = l->v[i];

		opens[i] = -1;
		if ((d == map ||
		     (d->kind == PA_KIND_PART && d->disk == map && d->dm_uuid)) &&
		    scan_dm_open_count(d->major, d->minor, &opens[i]) < 0)
			opens[i] = -1;
	}
	why = plan_refusal_map_in_use(l, map, opens);
	free(opens);
	return why;
}

/* Stop at @stop with @err; 0 (the look itself did not fail). */
static int stop(struct apply_look *lk, enum apply_look_stop stop, int err)
{
	lk->stop = stop;
	lk->err = err;
	return 0;
}

int apply_look(const char *arg, int wait_ms, enum apply_look_mode mode,
	       struct apply_look *lk)
{
	int rc;

	memset(lk, 0, sizeof(*lk));
	rc = scan_one(arg, lk);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return stop(lk, APPLY_LOOK_SCAN, rc);
	if (lk->dev->kind == PA_KIND_PART)
		return stop(lk, APPLY_LOOK_PART, 0);
	/*
	 * A multipath map is claimed by its own kpartx partition maps, so it
	 * cannot be opened O_EXCL; its users are counted instead
	 * (apply_map_in_use).
	 */
	lk->was = makedev(lk->dev->major, lk->dev->minor);
	rc = apply_disk_open(lk->dev->path,
			     PA_DISK_LOCK |
				 (lk->dev->kind == PA_KIND_MPATH ? 0 : PA_DISK_EXCL),
			     wait_ms, &lk->disk);
	if (rc == -EWOULDBLOCK)
		return stop(lk, APPLY_LOOK_LOCKED, rc);
	if (rc == 0) {
		lk->opened = lk->claimed = true;
		/* what another holder of the lock did is visible only now: scan again */
		rc = scan_one(arg, lk);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return stop(lk, APPLY_LOOK_RESCAN, rc);
		if (apply_disk_same(&lk->disk, major(lk->was), minor(lk->was), &lk->now) <
			0 ||
		    (lk->now = makedev(lk->dev->major, lk->dev->minor)) != lk->was)
			return stop(lk, APPLY_LOOK_CHANGED, -ESTALE);
	}
	lk->inuse = plan_refusal_in_use(&lk->devs, lk->dev);
	if (rc == -EBUSY) {
		if (!lk->inuse && !(lk->inuse = refusal_busy(lk->dev->name)))
			return -ENOMEM;
		if (mode == APPLY_LOOK_CLAIM)
			return stop(lk, APPLY_LOOK_OK, 0);
		/* still show the plan: look without claiming, never to write */
		rc = apply_disk_open(lk->dev->path, 0, 0, &lk->disk);
		lk->opened = rc == 0;
	}
	if (rc < 0)
		return stop(lk, APPLY_LOOK_OPEN, rc);
	/* write-protected: refused like a disk in use, before any backup or journal */
	if (!lk->inuse && apply_disk_is_readonly(&lk->disk) &&
	    !(lk->inuse = refusal_readonly(lk->dev->path)))
		return -ENOMEM;
	return stop(lk, APPLY_LOOK_OK, 0);
}

void apply_look_free(struct apply_look *lk)
{
	if (lk->opened)
		apply_disk_close(&lk->disk);
	lk->opened = false;
	free(lk->inuse);
	lk->inuse = NULL;
	diags_free(&lk->diags);
	devlist_free(&lk->devs);
}
