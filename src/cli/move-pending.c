/*
 * The audit's side of --move-data: `partalign check` warns about every disk
 * with an unfinished move.  Apart from resume.c because the audit program
 * does not link libparted.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/move-cli.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

int cli_move_warn_pending(const struct pa_devlist *l, char **names, int nnames)
{
	const char *dir = move_journal_dir_default();
	int status = PA_EXIT_OK, a;
	size_t i;
	DIR *dd = opendir(dir);

	if (!dd)
		return PA_EXIT_OK; /* no journal directory: no move ever started */
	closedir(dd);
	for (i = 0; i < l->n; i++) {
		const struct pa_dev *w = l->v[i];
		bool named = nnames == 0;
		char *path;

		if (!pa_dev_is_whole(w))
			continue;
		for (a = 0; a < nnames && !named; a++) {
			struct pa_dev *d = NULL;

			named =
			    scan_lookup(l, names[a], &d) == 0 && (d == w || d->disk == w);
		}
		if (!named || move_journal_find(dir, w, &path) <= 0)
			continue;
		msg_warn(w->path,
			 "unfinished data move, journal %s: finish it with "
			 "'partalign resume %s'",
			 path, w->path);
		status |= PA_EXIT_MISALIGNED;
		free(path);
	}
	return status;
}
