/*
 * One disk of plan and fix up to the question (fix-prepare.c).
 */
#ifndef PARTALIGN_CLI_FIX_PREPARE_H
#define PARTALIGN_CLI_FIX_PREPARE_H

#include "cli/fix.h"
#include "core/device.h"

/*
 * Everything before the gate for disk @arg into @j: the lock, the scans,
 * the in-use checks, the plan and its refusals, the staged table.  Exit
 * bits: 4 with something to fix or a refusal (j->plan.refusal), 8 or 16
 * when it could not be planned (said on stderr).
 */
int fix_prepare(const struct fix_opts *o, const char *arg, struct fix_job *j);

/*
 * After the claiming open of @dev (locked, O_EXCL but for a map) returned
 * @rc: why @dev is in use (or read-only) into *inuse (malloc'd, NULL when
 * it is not), and when it is held, a look without claiming.  PA_EXIT_OK
 * with @disk open, or PA_EXIT_ERROR (said through @log).
 */
int fix_open_look(struct msg_log *log, const struct pa_devlist *l,
		  const struct pa_dev *dev, int rc, struct pa_disk *disk, char **inuse);

/*
 * A multipath map's users, from the device-mapper's open counts of the map
 * and its kpartx partition maps (plan_refusal_map_in_use() judges them):
 * a malloc'd reason, or NULL when it is not in use.
 */
char *fix_map_in_use(const struct pa_devlist *l, const struct pa_dev *map);

#endif
