/*
 * Where a disk's move journal is: the one piece of the mover that
 * `partalign check` needs, kept apart from move.c so that the audit
 * program links it (and apply_disk_id) without libparted.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int move_journal_find(const char *dir, const struct pa_dev *whole, char **path)
{
	const char *dirs[2] = {dir, move_journal_dir_default()};
	struct stat st;
	int i;

	for (i = 0; i < 2; i++) {
		char *p;

		if (i == 1 && strcmp(dirs[0], dirs[1]) == 0)
			break;
		p = move_journal_path(dirs[i], whole);
		if (!p)
			return -ENOMEM;
		/* lstat: a pointer to a journal on a file system not mounted still counts
		 */
		if (lstat(p, &st) == 0) {
			*path = p;
			return 1;
		}
		free(p);
	}
	return 0;
}
