/*
 * The table of plan and fix: its columns (one row per step of a disk's
 * plan, the disk and its result), the defaults of a terminal, a pipe and
 * the script formats, and the rows of one disk.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/fix-advice.h"
#include "cli/fix-table.h"
#include "core/plan.h"

enum {
	PC_DISK,
	PC_LABEL,
	PC_NUM,
	PC_NAME,
	PC_TYPE,
	PC_ACTION,
	PC_OLD_START,
	PC_OLD_END,
	PC_OLD_SIZE,
	PC_NEW_START,
	PC_NEW_END,
	PC_NEW_SIZE,
	PC_OLD_PHYS,
	PC_OLD_OPT,
	PC_OLD_POLICY,
	PC_NEW_PHYS,
	PC_NEW_OPT,
	PC_NEW_POLICY,
	PC_DESTROYS,
	PC_GRAIN,
	PC_REFUSED,
	PC_NOTE,
	PC_RESULT,
	PC_BACKUP,
	PC_ADVICE,
};

#define N OUT_JSON_NUMBER
#define S OUT_JSON_STRING
#define R SCOLS_FL_RIGHT
static const struct out_col pcols[] = {
    [PC_DISK] = {"DISK", 0.1, 0, S, "whole disk or multipath map (/dev/mapper/NAME)"},
    [PC_LABEL] = {"LABEL", 6, 0, S, "partition table type: old->new"},
    [PC_NUM] = {"NUM", 2, R, N, "partition number (kept)"},
    [PC_NAME] = {"NAME", 0.1, SCOLS_FL_TRUNC, S, "partition name (GPT), kept"},
    [PC_TYPE] = {"TYPE", 0.1, SCOLS_FL_TRUNC, S, "GPT type GUID or dos system id"},
    [PC_ACTION] = {"ACTION", 6, 0, S, "keep, recreate, create, drop"},
    [PC_OLD_START] = {"OLD-START", 8, R, N,
		      "current start: bytes; on a terminal sectors (63s)"},
    [PC_OLD_END] = {"OLD-END", 8, R, N, "current last byte"},
    [PC_OLD_SIZE] = {"OLD-SIZE", 6, R, N, "current size"},
    [PC_NEW_START] = {"NEW-START", 8, R, N,
		      "planned start: bytes; on a terminal sectors"},
    [PC_NEW_END] = {"NEW-END", 8, R, N, "planned last byte"},
    [PC_NEW_SIZE] = {"NEW-SIZE", 6, R, N, "planned size"},
    [PC_OLD_PHYS] = {"OLD-PHYS", 4, 0, S, "PHYSICAL verdict now"},
    [PC_OLD_OPT] = {"OLD-OPT", 4, 0, S, "OPTIMAL verdict now"},
    [PC_OLD_POLICY] = {"OLD-POLICY", 4, 0, S, "POLICY verdict now"},
    [PC_NEW_PHYS] = {"NEW-PHYS", 4, 0, S, "PHYSICAL verdict after the fix"},
    [PC_NEW_OPT] = {"NEW-OPT", 4, 0, S, "OPTIMAL verdict after the fix"},
    [PC_NEW_POLICY] = {"NEW-POLICY", 4, 0, S, "POLICY verdict after the fix"},
    [PC_DESTROYS] = {"DESTROYS", 0.1, 0, S, "signature the fix would destroy"},
    [PC_GRAIN] = {"GRAIN", 6, R, N, "placement grain, bytes"},
    [PC_REFUSED] = {"REFUSED", 0.2, SCOLS_FL_TRUNC, S,
		    "why the disk will not be touched"},
    [PC_NOTE] = {"NOTE", 0.1, SCOLS_FL_TRUNC, S, "size changes and other remarks"},
    [PC_RESULT] = {"RESULT", 0.1, 0, S, "fix: what happened"},
    [PC_BACKUP] = {"BACKUP", 0.1, 0, S, "fix: the table backup file"},
    [PC_ADVICE] = {"ADVICE", 0.1, 0, S,
		   "stacked device off its grain: the command for the layer that "
		   "would fix it"},
};
#undef N
#undef S
#undef R

/*
 * A table to a terminal: what fits 80 columns; the verdicts with -o.  A
 * refusal is said on stderr there (add_rows), in full.
 */
static const int terminal_defaults[] = {PC_DISK,      PC_NUM,	    PC_NAME,
					PC_ACTION,    PC_OLD_START, PC_OLD_SIZE,
					PC_NEW_START, PC_NEW_SIZE,  PC_DESTROYS};
/* A table to a pipe or file: the columns it always had */
static const int plan_defaults[] = {
    PC_DISK,	 PC_NUM,	PC_NAME,     PC_ACTION,	  PC_OLD_START,
    PC_OLD_SIZE, PC_NEW_START,	PC_NEW_SIZE, PC_OLD_PHYS, PC_OLD_POLICY,
    PC_NEW_PHYS, PC_NEW_POLICY, PC_DESTROYS, PC_REFUSED};
static const int script_defaults[] = {
    PC_DISK,	 PC_LABEL,     PC_NUM,	      PC_NAME,	   PC_TYPE,
    PC_ACTION,	 PC_OLD_START, PC_OLD_END,    PC_OLD_SIZE, PC_NEW_START,
    PC_NEW_END,	 PC_NEW_SIZE,  PC_OLD_PHYS,   PC_OLD_OPT,  PC_OLD_POLICY,
    PC_NEW_PHYS, PC_NEW_OPT,   PC_NEW_POLICY, PC_DESTROYS, PC_GRAIN,
    PC_REFUSED,	 PC_NOTE,      PC_RESULT,     PC_BACKUP,   PC_ADVICE};

static void set_verdicts(struct libscols_line *ln, size_t i, int col,
			 const struct pa_check *c)
{
	switch (col) {
	case PC_OLD_PHYS:
	case PC_NEW_PHYS:
		out_set_str(ln, i, align_verdict_name(c->physical));
		break;
	case PC_OLD_OPT:
	case PC_NEW_OPT:
		out_set_str(ln, i, align_verdict_name(c->optimal));
		break;
	default:
		out_set_str(ln, i, align_verdict_name(c->policy));
		break;
	}
}

/* The NOTE of a row: what the plan did that the other columns do not say. */
static const char *row_note(const struct fix_job *j, const struct pa_step *s)
{
	const struct pa_plan *p = &j->plan;

	if (s && s->resized)
		return "size rounded down to the grain to fit";
	if (j->planned && p->table.damaged && !p->refusal)
		return "a damaged GPT copy: fix rewrites both";
	if (j->planned && plan_gpt_end(&p->table) == PA_GPT_END_GROWN && !p->refusal &&
	    p->changes)
		return "the disk grew: fix writes the backup GPT at its end";
	if (j->kernel_stale)
		return "the kernel's partitions differ from the table";
	if (!s && j->planned && !p->refusal)
		return "no partitions";
	return NULL;
}

/*
 * NOTE (@advice false) or ADVICE of a row: the plan's remark, else a
 * partition's file-system advice, else the stacked device's.
 */
static const char *row_text(const struct fix_job *j, const struct pa_step *s, bool advice)
{
	const struct fix_fsadv *f = s ? fix_fsadv_of(j, s->num) : NULL;

	if (advice)
		return f ? f->fix : j->advice;
	if (row_note(j, s))
		return row_note(j, s);
	return f ? f->reason : j->stack_reason;
}

static int add_row(const struct fix_opts *o, struct libscols_table *tb, const int *sel,
		   size_t nsel, const struct fix_job *j, const struct pa_step *s)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	const struct pa_plan *p = &j->plan;
	char buf[128];
	size_t i;

	if (!ln)
		return -ENOMEM;
	for (i = 0; i < nsel; i++) {
		switch (sel[i]) {
		case PC_DISK:
			/* a multipath map by the name lsblk and multipath -ll give it */
			if (j->dev->dm_name &&
			    snprintf(buf, sizeof(buf), "/dev/mapper/%s",
				     j->dev->dm_name) < (int)sizeof(buf))
				out_set_str(ln, i, buf);
			else
				out_set_str(ln, i, j->dev->path);
			break;
		case PC_LABEL:
			if (j->planned) {
				snprintf(buf, sizeof(buf), "%s->%s",
					 plan_label_name(p->table.label),
					 plan_label_name(p->new_label));
				out_set_str(ln, i, buf);
			}
			break;
		case PC_NUM:
			if (s)
				out_set_u64(ln, i, s->num);
			break;
		case PC_NAME:
			if (s && s->kind == PA_STEP_CREATE)
				out_set_str(ln, i, o->name);
			else if (s && s->old)
				out_set_str(ln, i, s->old->name);
			break;
		case PC_TYPE:
			if (s && s->old)
				out_set_str(ln, i, s->old->type);
			break;
		case PC_ACTION:
			out_set_str(ln, i, s ? plan_step_name(s->kind) : "none");
			break;
		case PC_OLD_START:
			if (s && s->old)
				out_set_start(&o->out, ln, i, s->old->start,
					      j->dev->topo.logical);
			break;
		case PC_OLD_END:
			if (s && s->old)
				out_set_u64(ln, i, s->old->start + s->old->size - 1);
			break;
		case PC_OLD_SIZE:
			if (s && s->old)
				out_set_size(&o->out, ln, i, s->old->size);
			break;
		case PC_NEW_START:
			if (s && s->kind != PA_STEP_DROP)
				out_set_start(&o->out, ln, i, s->new_start,
					      j->dev->topo.logical);
			break;
		case PC_NEW_END:
			if (s && s->kind != PA_STEP_DROP)
				out_set_u64(ln, i, s->new_start + s->new_size - 1);
			break;
		case PC_NEW_SIZE:
			if (s && s->kind != PA_STEP_DROP)
				out_set_size(&o->out, ln, i, s->new_size);
			break;
		case PC_OLD_PHYS:
		case PC_OLD_OPT:
		case PC_OLD_POLICY:
			if (s && s->old && s->kind != PA_STEP_DROP)
				set_verdicts(ln, i, sel[i], &s->before);
			break;
		case PC_NEW_PHYS:
		case PC_NEW_OPT:
		case PC_NEW_POLICY:
			if (s && s->kind != PA_STEP_DROP)
				set_verdicts(ln, i, sel[i], &s->after);
			break;
		case PC_DESTROYS:
			if (s && s->old && s->kind == PA_STEP_RECREATE)
				out_set_str(ln, i, s->old->signature);
			else if (s && s->kind == PA_STEP_CREATE)
				out_set_str(ln, i, p->table.signature);
			break;
		case PC_GRAIN:
			if (j->planned && p->place_grain)
				out_set_u64(ln, i, p->place_grain);
			break;
		case PC_REFUSED:
			out_set_str(ln, i, p->refusal);
			break;
		case PC_NOTE:
			out_set_str(ln, i, row_text(j, s, false));
			break;
		case PC_RESULT:
			out_set_str(ln, i, j->result);
			break;
		case PC_BACKUP:
			out_set_str(ln, i, j->backup);
			break;
		case PC_ADVICE:
			out_set_str(ln, i, row_text(j, s, true));
			break;
		}
	}
	return 0;
}

static int add_rows(const struct fix_opts *o, struct libscols_table *tb, const int *sel,
		    size_t nsel, const struct fix_job *j)
{
	size_t i;
	int rc = 0;

	/* a terminal table has no REFUSED column (fix says it on stderr itself) */
	if (o->out.terminal && !o->fix && j->plan.refusal)
		msg_warn(j->dev->path, "fix would refuse it: %s", j->plan.refusal);
	if (!j->plan.n)
		return add_row(o, tb, sel, nsel, j, NULL);
	for (i = 0; i < j->plan.n && rc == 0; i++)
		rc = add_row(o, tb, sel, nsel, j, &j->plan.v[i]);
	return rc;
}

bool fix_table_converts(const struct fix_job *j)
{
	return j->planned && !j->plan.refusal && j->plan.changes &&
	       j->plan.table.label == PA_LABEL_MSDOS && j->plan.new_label == PA_LABEL_GPT;
}

void fix_table_label_note(const struct fix_opts *o, const struct fix_job *j)
{
	/* a BIOS boot loader's core sits where the GPT goes; an OS that reads
	   only dos tables sees one protective partition */
	if (o->out.format == OUT_TABLE && fix_table_converts(j))
		printf("%s: dos -> GPT: BIOS boot and dos-only OSes fail "
		       "(--label keep)\n",
		       j->dev->path);
}

int fix_table_select(struct out_opts *out, int *sel, size_t *nsel)
{
	return out_select(out, pcols, sizeof(pcols) / sizeof(pcols[0]),
			  out->format != OUT_TABLE ? script_defaults
			  : out->terminal	   ? terminal_defaults
						   : plan_defaults,
			  out->format != OUT_TABLE ? sizeof(script_defaults) / sizeof(int)
			  : out->terminal ? sizeof(terminal_defaults) / sizeof(int)
					  : sizeof(plan_defaults) / sizeof(int),
			  sel, nsel);
}

struct libscols_table *fix_table_new(const struct out_opts *out, const char *name,
				     const int *sel, size_t nsel)
{
	return out_table_new(out, name, pcols, sel, nsel);
}

int fix_table_add(const struct fix_opts *o, struct libscols_table *tb, const int *sel,
		  size_t nsel, const struct fix_job *j)
{
	return add_rows(o, tb, sel, nsel, j);
}

void fix_table_list_columns(void)
{
	out_list_columns(pcols, sizeof(pcols) / sizeof(pcols[0]));
}
