/*
 * Where a disk's move journal is: the one piece of the mover that
 * `partalign check` needs, kept apart from move.c so that the audit
 * program links it (and apply_disk_id) without libparted.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "apply/move.h"

const char *move_journal_dir_default(void)
{
	const char *e = getenv("PARTALIGN_JOURNAL");

	return e && *e ? e : PA_STATEDIR "/journal";
}

char *move_journal_path(const char *dir, const struct pa_dev *whole)
{
	char *id = apply_disk_id(whole), *path = NULL;

	if (id && asprintf(&path, "%s/%s.journal", dir, id) < 0)
		path = NULL;
	free(id);
	return path;
}
