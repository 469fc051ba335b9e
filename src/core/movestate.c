/*
 * An unfinished data move as the audit sees it (movestate.h): the state of
 * each whole disk, gathered from udev's database here; the rows of the
 * partitions the marker hides; the words a row says.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/marker.h"
#include "core/movestate.h"
#include "core/units.h"
#include "shared/hex.h"

struct pa_move_state *move_state_of(struct pa_dev *w)
{
	if (!w->move)
		w->move = calloc(1, sizeof(*w->move));
	return w->move;
}

const struct pa_move_part *move_state_part(const struct pa_move_state *s,
					   unsigned int num)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (s->parts[i].num == num)
			return &s->parts[i];
	return NULL;
}

int move_state_add_part(struct pa_move_state *s, const struct pa_move_part *p)
{
	struct pa_move_part *v;

	if (move_state_part(s, p->num))
		return 0;
	v = realloc(s->parts, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->parts = v;
	s->parts[s->n++] = *p;
	return 0;
}

/*
 * The move id an earlier build's marked partition @p tells: GPT, the 16
 * digits of its name "partalign-move <id>"; dos, the 8 of the disk
 * signature, which the partition's UUID "<signature>-<number>" starts
 * with.  False when it tells none.
 */
static bool marked_id(const struct pa_dev *p, uint64_t *id, bool *id32)
{
	const size_t pl = sizeof(PA_MOVE_NAME_PREFIX) - 1;
	const char *u = p->part_uuid;
	char *end;
	size_t k = 0;

	if (p->part_name && strncmp(p->part_name, PA_MOVE_NAME_PREFIX, pl) == 0 &&
	    strlen(p->part_name) == pl + 16) {
		*id = strtoull(p->part_name + pl, &end, 16);
		*id32 = false;
		return *end == '\0';
	}
	if (!p->part_scheme || strcmp(p->part_scheme, "dos") || !u)
		return false;
	while (k < 8 && hex_digit(u[k]) >= 0)
		k++;
	if (k != 8 || u[8] != '-')
		return false;
	*id = strtoull(u, NULL, 16) & 0xffffffffu;
	*id32 = true;
	return true;
}

int move_state_from_udev(const struct pa_devlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct pa_dev *d = l->v[i];
		struct pa_move_state *s;
		uint64_t id = 0;
		bool id32 = false;

		if (device_is_whole(d) && marker_guid_is_move(d->pt_uuid, &id)) {
			if (!(s = move_state_of(d)))
				return -ENOMEM;
			s->seen = PA_MOVE_SEEN_MARKER;
			s->id = id;
			s->id32 = false;
			continue;
		}
		if (d->kind != PA_KIND_PART || !d->disk ||
		    !marker_type_is_move(d->part_type))
			continue;
		if (!(s = move_state_of(d->disk)))
			return -ENOMEM;
		if (s->seen != PA_MOVE_SEEN_MARKER || !s->id) {
			s->seen = PA_MOVE_SEEN_MARKER;
			if (marked_id(d, &id, &id32)) {
				s->id = id;
				s->id32 = id32;
			}
		}
		if (d->start_known &&
		    move_state_add_part(
			s, &(struct pa_move_part){d->partno, d->start, d->size, 0}) < 0)
			return -ENOMEM;
	}
	return 0;
}

static bool kernel_has(const struct pa_devlist *l, const struct pa_dev *w,
		       unsigned int num)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i]->disk == w && l->v[i]->kind == PA_KIND_PART &&
		    l->v[i]->partno == num)
			return true;
	return false;
}

int move_state_add_rows(struct pa_devlist *l, struct pa_dev *w)
{
	const struct pa_move_state *s = w->move;
	size_t i;

	for (i = 0; s && s->seen != PA_MOVE_SEEN_NONE && i < s->n; i++) {
		const struct pa_move_part *p = &s->parts[i];
		size_t nl = strlen(w->name);
		bool digit = nl && w->name[nl - 1] >= '0' && w->name[nl - 1] <= '9';
		struct pa_dev *d;

		if (kernel_has(l, w, p->num))
			continue;
		d = device_new();
		if (!d)
			return -ENOMEM;
		d->kind = PA_KIND_PART;
		d->disk = w;
		d->topo = w->topo;
		d->partno = p->num;
		d->start = p->from;
		d->start_known = true;
		d->size = p->len;
		d->kernel_missing = true;
		d->is_path = w->is_path;
		if (asprintf(&d->name, "%s%s%u", w->name, digit ? "p" : "", p->num) < 0)
			d->name = NULL;
		if (d->name && asprintf(&d->path, "/dev/%s", d->name) < 0)
			d->path = NULL;
		if (!d->name || !d->path || devlist_add(l, d) < 0) {
			device_free(d);
			return -ENOMEM;
		}
	}
	return 0;
}

const char *move_state_id(const struct pa_move_state *s, char *buf, size_t len)
{
	if (!s->id)
		snprintf(buf, len, "?");
	else if (s->id32)
		snprintf(buf, len, "%08" PRIx32, (uint32_t)s->id);
	else
		snprintf(buf, len, "%016" PRIx64, s->id);
	return buf;
}

size_t move_state_text(const struct pa_dev *w, const struct pa_dev *d, char *buf,
		       size_t len)
{
	const struct pa_move_state *s = w->move;
	const struct pa_move_part *p = d ? move_state_part(s, d->partno) : NULL;
	char id[24], to[64], what[160];
	int n;

	if (!s || s->seen == PA_MOVE_SEEN_NONE) {
		buf[0] = '\0';
		return 0;
	}
	if (s->seen == PA_MOVE_SEEN_OLD_JOURNAL)
		return (size_t)snprintf(
		    buf, len,
		    "a move journal of partalign 0.1 is there for %s: "
		    "finish that move with the partalign that started it",
		    w->name);
	move_state_id(s, id, sizeof(id));
	if (p && p->to)
		snprintf(what, sizeof(what), "data half moved to %s (move %s)",
			 units_exact(p->to, to, sizeof(to)), id);
	else if (p)
		snprintf(what, sizeof(what), "data half moved (move %s)", id);
	else if (d)
		snprintf(what, sizeof(what), "its disk has an unfinished data move %s",
			 id);
	else
		snprintf(what, sizeof(what), "unfinished data move %s", id);
	n = snprintf(buf, len, "%s%s: finish it with 'partalign resume %s'", what,
		     s->seen == PA_MOVE_SEEN_JOURNAL ? ", from its journal" : "",
		     w->path);
	return n < 0 ? 0 : (size_t)n;
}
