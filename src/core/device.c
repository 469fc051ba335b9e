/*
 * The device list: allocation, lookup and the few predicates every
 * command shares.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"

struct pa_dev *pa_dev_new(void)
{
	return calloc(1, sizeof(struct pa_dev));
}

void pa_dev_free(struct pa_dev *d)
{
	if (!d)
		return;
	free(d->name);
	free(d->path);
	free(d->part_name);
	free(d->part_uuid);
	free(d->part_type);
	free(d->model);
	free(d->serial);
	free(d->wwn);
	free(d->fstype);
	free(d->pttype);
	free(d->dm_uuid);
	free(d->dm_name);
	free(d->holders);
	free(d->mountpoints);
	free(d->paths);
	free(d->backing_file);
	free(d->parent_name);
	free(d->id_serial);
	free(d->id_wwn);
	free(d->id_wwn_ext);
	free(d->part_scheme);
	free(d);
}

int pa_devlist_add(struct pa_devlist *l, struct pa_dev *d)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct pa_dev **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = d;
	return 0;
}

void pa_devlist_free(struct pa_devlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		pa_dev_free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

struct pa_dev *pa_devlist_find_name(const struct pa_devlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i]->name, name) == 0)
			return l->v[i];
	return NULL;
}

struct pa_dev *pa_devlist_find_devno(const struct pa_devlist *l, unsigned int major,
				     unsigned int minor)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i]->major == major && l->v[i]->minor == minor)
			return l->v[i];
	return NULL;
}

const char *pa_kind_name(enum pa_kind k)
{
	switch (k) {
	case PA_KIND_DISK:
		return "disk";
	case PA_KIND_PART:
		return "part";
	case PA_KIND_LOOP:
		return "loop";
	case PA_KIND_MPATH:
		return "mpath";
	case PA_KIND_LVM:
		return "lvm";
	case PA_KIND_CRYPT:
		return "crypt";
	case PA_KIND_DM:
		return "dm";
	case PA_KIND_MD:
		return "raid";
	}
	return "unknown";
}

bool pa_dev_is_whole(const struct pa_dev *d)
{
	return d->kind != PA_KIND_PART;
}

bool pa_dev_is_checked(const struct pa_dev *d)
{
	if (d->is_path)
		return false;
	if (d->kind == PA_KIND_PART)
		return true;
	return d->nparts == 0;
}

int pa_strlist_append(char **list, const char *s, char sep)
{
	size_t old = *list ? strlen(*list) : 0;
	size_t add = strlen(s);
	char *n = realloc(*list, old + add + 2);

	if (!n)
		return -ENOMEM;
	if (old)
		n[old++] = sep;
	memcpy(n + old, s, add + 1);
	*list = n;
	return 0;
}

bool pa_strlist_contains(const char *list, const char *s)
{
	size_t n = strlen(s);
	const char *p = list;

	if (!list || !n)
		return false;
	while ((p = strstr(p, s))) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\n';
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';

		if (start && end)
			return true;
		p += n;
	}
	return false;
}
