/*
 * The audit's side of --move-data: `partalign check` warns about every disk
 * with an unfinished move.  Apart from fix-move.c because the audit program
 * does not link libparted.
 */
#include "config.h"

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
 * The first partition of @w (by number, not by the scan's order) that
 * carries the move marker.
 */
static const struct pa_dev *marked_part(const struct pa_devlist *l,
					const struct pa_dev *w)
{
	const struct pa_dev *m = NULL;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i]->disk == w && marker_type_is_move(l->v[i]->part_type) &&
		    (!m || l->v[i]->partno < m->partno))
			m = l->v[i];
	return m;
}

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
 * Were the partition types of @w read from its own table (--probe)?  udev's
 * database is not enough: it may be older than the disk's marker.
 */
static bool table_read(const struct pa_devlist *l, const struct pa_dev *w)
{
	bool any = false, read = true;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct pa_dev *p = l->v[i];

		if (p->disk != w || p->kind != PA_KIND_PART)
			continue;
		any = true;
		/* an entry only the on-disk table has was read from it */
		read &= p->ondisk_checked || p->kernel_missing;
	}
	return any && read;
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
	int status = PA_EXIT_OK, a;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct pa_dev *w = l->v[i], *mp;
		bool named = nnames == 0;
		char *path;

		if (!device_is_whole(w))
			continue;
		for (a = 0; a < nnames && !named; a++) {
			struct pa_dev *d = NULL;

			named =
			    scan_lookup(l, names[a], &d) == 0 && (d == w || d->disk == w);
		}
		if (!named)
			continue;
		if ((mp = marked_part(l, w))) {
			char id[32];

			marked_id(mp, id, sizeof(id));
			msg_warn(w->path,
				 "an unfinished data move%s%s is recorded on the disk "
				 "(partition %u): finish it with 'partalign resume %s'",
				 *id ? " " : "", id, mp->partno, w->path);
			status |= PA_EXIT_MISALIGNED;
			continue;
		}
		if (table_read(l, w)) {
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
	return status;
}
