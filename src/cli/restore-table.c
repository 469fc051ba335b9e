/*
 * What restore would write, shown before its question: the partitions of
 * the table on the disk now beside those of the table the backup holds,
 * each read by libparted (the backup's laid over the disk's label sectors
 * in a shadow: nothing is written), one row per partition number.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/restore-table.h"
#include "core/plan.h"

enum { RC_NUM, RC_NAME, RC_NOW_START, RC_NOW_SIZE, RC_START, RC_SIZE, RC_CHANGE };

#define N OUT_JSON_NUMBER
#define S OUT_JSON_STRING
#define R SCOLS_FL_RIGHT
static const struct out_col rcols[] = {
    [RC_NUM] = {"NUM", 2, R, N, "partition number"},
    [RC_NAME] = {"NAME", 0.2, SCOLS_FL_TRUNC, S, "partition name (GPT)"},
    [RC_NOW_START] = {"NOW-START", 8, R, N, "its start on the disk now"},
    [RC_NOW_SIZE] = {"NOW-SIZE", 6, R, N, "its size on the disk now"},
    [RC_START] = {"RESTORED-START", 8, R, N, "its start in the backup's table"},
    [RC_SIZE] = {"RESTORED-SIZE", 6, R, N, "its size in the backup's table"},
    [RC_CHANGE] = {"CHANGE", 8, 0, S, "same, moved, resized, added, removed"},
};
#undef N
#undef S
#undef R

static const struct pa_entry *entry_of(const struct pa_table *t, unsigned int num)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].num == num)
			return &t->v[i];
	return NULL;
}

static const char *change_of(const struct pa_entry *now, const struct pa_entry *then)
{
	if (!then)
		return "removed";
	if (!now)
		return "added";
	if (now->start != then->start)
		return "moved";
	return now->size == then->size ? "same" : "resized";
}

static int add_row(const struct out_opts *oo, struct libscols_table *tb, uint32_t logical,
		   unsigned int num, const struct pa_entry *now,
		   const struct pa_entry *then)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	const struct pa_entry *e = then ? then : now;
	int rc;

	if (!ln)
		return -ENOMEM;
	rc = out_set_u64(ln, RC_NUM, num);
	if (rc == 0 && e->name)
		rc = out_set_str(ln, RC_NAME, e->name);
	if (rc == 0 && now)
		rc = out_set_start(oo, ln, RC_NOW_START, now->start, logical);
	if (rc == 0 && now)
		rc = out_set_size(oo, ln, RC_NOW_SIZE, now->size);
	if (rc == 0 && then)
		rc = out_set_start(oo, ln, RC_START, then->start, logical);
	if (rc == 0 && then)
		rc = out_set_size(oo, ln, RC_SIZE, then->size);
	if (rc == 0)
		rc = out_set_str(ln, RC_CHANGE, change_of(now, then));
	return rc;
}

int restore_table_show(const char *path, const struct pa_table *now,
		       const struct pa_table *then)
{
	static const int all[] = {RC_NUM,   RC_NAME, RC_NOW_START, RC_NOW_SIZE,
				  RC_START, RC_SIZE, RC_CHANGE};
	struct out_opts oo = {.format = OUT_TABLE};
	struct libscols_table *tb;
	unsigned int num, top = 0;
	int rc = 0;
	size_t i;

	out_detect_terminal(&oo);
	if (now->label != then->label)
		printf("%s: the table now is %s, the backup's is %s: restore writes %s\n",
		       path, plan_label_name(now->label), plan_label_name(then->label),
		       plan_label_name(then->label));
	tb = out_table_new(&oo, "restore", rcols, all, sizeof(all) / sizeof(all[0]));
	if (!tb)
		return -ENOMEM;
	for (i = 0; i < now->n; i++)
		top = now->v[i].num > top ? now->v[i].num : top;
	for (i = 0; i < then->n; i++)
		top = then->v[i].num > top ? then->v[i].num : top;
	for (num = 1; num <= top && rc == 0; num++) {
		const struct pa_entry *a = entry_of(now, num), *b = entry_of(then, num);

		if (a || b)
			rc =
			    add_row(&oo, tb, then->logical ? then->logical : now->logical,
				    num, a, b);
	}
	if (rc == 0 && !top)
		printf("%s: neither table has a partition\n", path);
	else if (rc == 0)
		rc = out_print(tb) ? -EIO : 0;
	scols_unref_table(tb);
	return rc;
}
