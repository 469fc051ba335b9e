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
#include <strings.h>

#include "cli/cli.h"
#include "cli/move-pending.h"
#include "core/exitcodes.h"
#include "core/marker.h"
#include "core/movestate.h"
#include "scan/scan.h"
#include "shared/hex.h"

/*
 * Another disk of @l (by device number: @l may be another scan than @w's)
 * whose marker names move @id, or NULL.  A dos marker holds the id's low
 * 32 bits only.
 */
static const struct pa_dev *carrier(const struct pa_devlist *l, const struct pa_dev *w,
				    uint64_t id)
{
	size_t i;

	char low[9];

	if (!l || move_state_from_udev(l) < 0)
		return NULL;
	snprintf(low, sizeof(low), "%08" PRIx32, (uint32_t)id);
	for (i = 0; i < l->n; i++) {
		struct pa_dev *c = l->v[i];
		const struct pa_move_state *s;

		if (!device_is_whole(c) || (c->major == w->major && c->minor == w->minor))
			continue;
		/* a dos marker hides its entries from udev, but its signature is the
		   id's low half: only such a disk's own table is read */
		if (!c->move && c->pttype && strcmp(c->pttype, "dos") == 0 &&
		    c->pt_uuid && strcasecmp(c->pt_uuid, low) == 0 &&
		    scan_probe_marker((struct pa_devlist *)l, c) < 0)
			return NULL;
		s = c->move;
		if (!s || s->seen != PA_MOVE_SEEN_MARKER)
			continue;
		if (s->id32 ? (uint32_t)s->id == (uint32_t)id : s->id == id)
			return c;
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

/* A journal's moves as the disk's state: what it says moves where. */
static int state_from_journal(struct pa_move_state *s, const char *path, uint64_t id)
{
	struct pa_journal j;
	size_t i;
	int rc = 0;

	s->seen = PA_MOVE_SEEN_JOURNAL;
	s->id = id;
	s->id32 = false;
	if (!(s->journal = strdup(path)))
		return -ENOMEM;
	if (move_journal_peek(path, &j) < 0)
		return 0; /* named for the disk, its header unread: the id alone */
	for (i = 0; i < j.n && rc == 0; i++)
		rc =
		    move_state_add_part(s, &(struct pa_move_part){j.v[i].num, j.v[i].from,
								  j.v[i].len, j.v[i].to});
	journal_free(&j);
	return rc;
}

static bool is_named(const struct pa_devlist *l, const struct pa_dev *w, char **names,
		     int nnames)
{
	bool named = nnames == 0;
	int a;

	for (a = 0; a < nnames && !named; a++) {
		struct pa_dev *d = NULL;

		named = scan_lookup(l, names[a], &d) == 0 && (d == w || d->disk == w);
	}
	return named;
}

/* The moving partitions of @w's marked move, from its journal when it is here. */
static int journal_parts(const char *dir, struct pa_dev *w)
{
	struct pa_move_state *s = w->move;
	struct pa_journal j;
	uint64_t id;
	char *path;
	size_t i;
	int rc = move_journal_find_any(dir, w, &path, &id);

	if (rc <= 0)
		return rc;
	if ((s->id32 ? (uint32_t)id == (uint32_t)s->id : id == s->id) &&
	    move_journal_peek(path, &j) == 0) {
		for (i = 0; i < j.n && rc >= 0; i++)
			rc = move_state_add_part(
			    s, &(struct pa_move_part){j.v[i].num, j.v[i].from, j.v[i].len,
						      j.v[i].to});
		journal_free(&j);
	}
	free(path);
	return rc < 0 ? rc : 0;
}

/* A journal of this host's default directory for disk @w, which shows no marker. */
static int journal_state(const char *dir, struct pa_devlist *l, struct pa_dev *w)
{
	struct pa_move_state *s;
	uint64_t id;
	char *path;
	int rc;

	if (w->marker_read) {
		/* the disk's own table has no marker: a journal is left over */
		cli_move_warn_stray(dir, w, l);
		return PA_EXIT_OK;
	}
	if ((rc = move_journal_find_any(dir, w, &path, &id)) > 0) {
		msg_warn(w->path,
			 "an unfinished data move: its journal %s is there (check "
			 "--probe reads the disk's own record): finish it with "
			 "'partalign resume %s'",
			 path, w->path);
		rc = (s = move_state_of(w)) ? state_from_journal(s, path, id) : -ENOMEM;
		free(path);
		return rc < 0 ? PA_EXIT_ERROR : PA_EXIT_MISALIGNED;
	}
	if (rc < 0 || move_journal_find(dir, w, &path) <= 0)
		return rc < 0 ? PA_EXIT_ERROR : PA_EXIT_OK;
	msg_warn(w->path,
		 "a move journal of partalign 0.1 is there for this disk (%s): finish "
		 "that move with the partalign that started it",
		 path);
	s = move_state_of(w);
	if (s) {
		s->seen = PA_MOVE_SEEN_OLD_JOURNAL;
		s->journal = path;
	} else {
		free(path);
	}
	return s ? PA_EXIT_MISALIGNED : PA_EXIT_ERROR;
}

int cli_move_states(struct pa_devlist *l, char **names, int nnames, bool host)
{
	const char *dir = move_journal_dir_default();
	/* on a host without journals, no disk needs its own look */
	bool journals = host && move_journal_dir_holds(dir) != 0;
	int status = PA_EXIT_OK;
	size_t i, n = l->n;

	if (move_state_from_udev(l) < 0) {
		msg_err(NULL, ENOMEM, "cannot look for unfinished moves");
		return PA_EXIT_ERROR;
	}
	/* in the scan's order, as the warnings come; the rows added go after */
	for (i = 0; i < n; i++) {
		struct pa_dev *w = l->v[i];
		const struct pa_move_state *s = w->move;
		char id[24];

		if (!device_is_whole(w) || !is_named(l, w, names, nnames))
			continue;
		if (s && s->seen == PA_MOVE_SEEN_MARKER) {
			msg_warn(w->path,
				 "an unfinished data move %s is recorded on the disk: "
				 "finish it with 'partalign resume %s'",
				 move_state_id(s, id, sizeof(id)), w->path);
			status |= PA_EXIT_MISALIGNED;
			/* udev's database tells the move, its journal where it goes */
			if (journals && !s->n && journal_parts(dir, w) < 0)
				status |= PA_EXIT_ERROR;
		} else if (journals) {
			status |= journal_state(dir, l, w);
		}
		if (w->move && w->move->seen && move_state_add_rows(l, w) < 0) {
			msg_err(w->path, ENOMEM, "cannot list its moving partitions");
			status |= PA_EXIT_ERROR;
		}
	}
	return status;
}
