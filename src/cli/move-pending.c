/*
 * The audit's side of --move-data: `partalign check` warns about every disk
 * with an unfinished move.  Apart from fix-move.c because the audit program
 * does not link libparted.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/move-pending.h"
#include "core/exitcodes.h"
#include "core/marker.h"
#include "scan/scan.h"
#include "shared/hex.h"

/*
 * The move id a marked partition @p tells, as the marker holds it, into
 * @buf: GPT, the 16 digits of its name "partalign-move <id>"; dos, the 8 of
 * the disk signature, which the partition's UUID "<signature>-<number>"
 * starts with.  "" when it tells none.
 */
static const char *marked_id(const struct pa_dev *p, char *buf, size_t len)
{
	const size_t pl = sizeof(PA_MOVE_NAME_PREFIX) - 1;
	const char *u = p->part_uuid;
	size_t k = 0;

	buf[0] = '\0';
	if (p->part_name && strncmp(p->part_name, PA_MOVE_NAME_PREFIX, pl) == 0) {
		snprintf(buf, len, "%s", p->part_name + pl);
	} else if (p->part_scheme && strcmp(p->part_scheme, "dos") == 0 && u) {
		while (k < 8 && hex_digit(u[k]) >= 0)
			k++;
		if (k == 8 && u[8] == '-')
			snprintf(buf, len, "%.8s", u);
	}
	return buf;
}

/*
 * What the partitions of one whole disk tell: the first (by number, not by
 * the scan's order) that carries the move marker, and whether the types of
 * all of them were read from the disk's own table (--probe; udev's database
 * is not enough: it may be older than the disk's marker).
 */
struct disk_parts {
	const struct pa_dev *w;
	const struct pa_dev *marked;
	bool any, read;
};

static int by_disk(const void *a, const void *b)
{
	const struct pa_dev *x = ((const struct disk_parts *)a)->w,
			    *y = ((const struct disk_parts *)b)->w;

	return x < y ? -1 : x > y;
}

/*
 * One entry per whole disk of @l, sorted by its address, filled in one
 * pass over the partitions: an audit of thousands of disks no longer walks
 * every device for each disk.  NULL without memory.
 */
static struct disk_parts *disks_parts(const struct pa_devlist *l, size_t *n)
{
	struct disk_parts *v = calloc(l->n ? l->n : 1, sizeof(*v)), key;
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < l->n; i++)
		if (device_is_whole(l->v[i]))
			v[(*n)++] = (struct disk_parts){.w = l->v[i], .read = true};
	qsort(v, *n, sizeof(*v), by_disk);
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *p = l->v[i];
		struct disk_parts *e;

		if (!p->disk)
			continue;
		key.w = p->disk;
		e = bsearch(&key, v, *n, sizeof(*v), by_disk);
		if (!e)
			continue;
		if (marker_type_is_move(p->part_type) &&
		    (!e->marked || p->partno < e->marked->partno))
			e->marked = p;
		if (p->kind != PA_KIND_PART)
			continue;
		e->any = true;
		/* an entry only the on-disk table has was read from it */
		e->read &= p->ondisk_checked || p->kernel_missing;
	}
	return v;
}

/*
 * Another disk of @l (by device number: @l may be another scan than @w's)
 * whose marker names move @id, or NULL.  A dos marker holds the id's low
 * 32 bits only.
 */
static const struct pa_dev *carrier(const struct pa_devlist *l, const struct pa_dev *w,
				    uint64_t id)
{
	char want[17], low[9], got[32];
	size_t i;

	snprintf(want, sizeof(want), "%016" PRIx64, id);
	snprintf(low, sizeof(low), "%08" PRIx32, (uint32_t)id);
	for (i = 0; l && i < l->n; i++) {
		const struct pa_dev *p = l->v[i];

		if (!p->disk ||
		    (p->disk->major == w->major && p->disk->minor == w->minor) ||
		    !marker_type_is_move(p->part_type))
			continue;
		/* a dos marker's 8 digits against the id's low 32 bits */
		marked_id(p, got, sizeof(got));
		if (strcmp(got, strlen(got) == 8 ? low : want) == 0)
			return p->disk;
	}
	return NULL;
}

int cli_move_warn_stray(const char *dir, const struct pa_dev *w,
			const struct pa_devlist *l)
{
	struct pa_devlist all = {0};
	const struct pa_dev *c;
	uint64_t id;
	char *path;
	int rc = move_journal_find_any(dir, w, &path, &id);

	if (rc <= 0)
		return rc;
	c = carrier(l, w, id);
	if (!c) {
		/* @l may hold only @w's neighbourhood (plan, fix, resume): every disk */
		struct pa_scan_opts so = {0};
		struct pa_diags diags = {0};

		if (scan_devices(&so, &all, &diags) >= 0)
			c = carrier(&all, w, id);
		diags_free(&diags);
	}
	if (c)
		msg_warn(w->path,
			 "the move journal %s (move %016" PRIx64 ") is not this "
			 "disk's: %s, a copy of it, carries that move",
			 path, id, c->path);
	else
		msg_warn(w->path,
			 "the move journal %s (move %016" PRIx64 ") is left over: the "
			 "disk records no unfinished move; remove the file unless a "
			 "copy of this disk carries that move",
			 path, id);
	devlist_free(&all);
	free(path);
	return 1;
}

int cli_move_warn_pending(const struct pa_devlist *l, char **names, int nnames)
{
	const char *dir = move_journal_dir_default();
	/* on a host without journals, no disk needs its own look */
	bool journals = move_journal_dir_holds(dir) != 0;
	int status = PA_EXIT_OK, a;
	size_t i, n;
	struct disk_parts *v = disks_parts(l, &n);

	if (!v) {
		msg_err(NULL, ENOMEM, "cannot look for unfinished moves");
		return PA_EXIT_ERROR;
	}
	/* in the scan's order, as the warnings come */
	for (i = 0; i < l->n; i++) {
		struct disk_parts key = {.w = l->v[i]}, *e;
		const struct pa_dev *w = l->v[i], *mp;
		bool named = nnames == 0;
		char *path;

		if (!device_is_whole(w) ||
		    !(e = bsearch(&key, v, n, sizeof(*v), by_disk)))
			continue;
		mp = e->marked;

		for (a = 0; a < nnames && !named; a++) {
			struct pa_dev *d = NULL;

			named =
			    scan_lookup(l, names[a], &d) == 0 && (d == w || d->disk == w);
		}
		if (!named)
			continue;
		if (mp) {
			char id[32];

			marked_id(mp, id, sizeof(id));
			msg_warn(w->path,
				 "an unfinished data move%s%s is recorded on the disk "
				 "(partition %u): finish it with 'partalign resume %s'",
				 *id ? " " : "", id, mp->partno, w->path);
			status |= PA_EXIT_MISALIGNED;
			continue;
		}
		if (!journals)
			continue;
		if (e->any && e->read) {
			/* the disk's own table has no marker: a journal is left over */
			cli_move_warn_stray(dir, w, l);
			continue;
		}
		if (move_journal_find_any(dir, w, &path, NULL) > 0) {
			msg_warn(w->path,
				 "an unfinished data move: its journal %s is there "
				 "(check --probe reads the disk's own record): finish "
				 "it with 'partalign resume %s'",
				 path, w->path);
			status |= PA_EXIT_MISALIGNED;
			free(path);
			continue;
		}
		if (move_journal_find(dir, w, &path) <= 0)
			continue;
		msg_warn(
		    w->path,
		    "a move journal of partalign 0.1 is there for this disk (%s): finish "
		    "that move with the partalign that started it",
		    path);
		status |= PA_EXIT_MISALIGNED;
		free(path);
	}
	free(v);
	return status;
}
