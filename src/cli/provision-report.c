/*
 * provision's last steps: the udev rules of all disks in one `partalign
 * rules` run (rules_run(), in process, on a map built from the
 * configuration), and the report: the summary line, the table, or the JSON
 * object the Ansible task reads.
 *
 * The JSON is written here, not by libsmartcols: libsmartcols prints one
 * table as {"name": [rows]}, while this report is an object with scalars
 * ("changed", "msg", "dry_run"), the list of disks and a nested object
 * ("rules"), in the shape the playbooks already parse.  Its strings go
 * through the output layer's out_json_str().
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd-rules.h"
#include "cli/provision.h"
#include "core/exitcodes.h"
#include "core/provconf.h"
#include "core/rules.h"
#include "shared/sys.h"

const char *const provision_action_names[] = {
    [ACT_PENDING] = "error", /* never reported: every disk ends in another state */
    [ACT_CREATED] = "created", [ACT_KEPT] = "kept",
    [ACT_REFUSED] = "refused", [ACT_ERROR] = "error",
};

/* ---- rules --------------------------------------------------------------- */

/* Whether every disk has a usable partition; else why the rules are skipped. */
static bool rules_ready(struct run *r)
{
	size_t i, nfail = 0, ndry = 0;

	for (i = 0; i < r->n; i++) {
		const struct disk *d = &r->disks[i];

		if ((d->action != ACT_CREATED && d->action != ACT_KEPT) || !d->partition)
			nfail++;
		if (r->o.dry_run && d->action == ACT_CREATED)
			ndry++; /* would be created: no partition to name yet */
	}
	if (!nfail)
		return true;
	r->rules_result = "skipped";
	if (nfail == ndry)
		r->rules_reason = prov_strdup("dry run: the rules can be shown once "
					      "the partitions exist");
	else
		r->rules_reason = prov_asprintf(
		    "not written: %zu of %zu disks have no usable partition, "
		    "and a file without them would drop their rules",
		    nfail - ndry, r->n);
	prov_note(NULL, "rules: %s", r->rules_reason);
	return false;
}

/* rules decides the same way whether to trigger udev; say it in the summary too */
static void rules_trigger_note(struct run *r)
{
	int ch;

	if (r->o.root)
		r->no_trigger = "--root: udev not triggered, the rules apply at the next "
				"boot of that system";
	else if ((ch = sys_chroot_state()) > 0)
		r->no_trigger =
		    "running in a chroot: udev not triggered, the rules apply "
		    "at the next boot";
	else if (ch < 0)
		r->no_trigger =
		    "cannot tell whether this is a chroot (no /proc): udev not "
		    "triggered, the rules apply at the next boot";
	else if (r->o.no_reload)
		r->no_trigger = "--no-reload: udev not reloaded";
	if (r->no_trigger)
		prov_note(NULL, "%s", r->no_trigger);
}

struct rules_call {
	const struct rules_opts *o;
	const struct rules_map *map;
};

static int call_rules(void *ctx)
{
	const struct rules_call *c = ctx;

	return rules_run(c->o, c->map);
}

void provision_rules(struct run *r)
{
	const char *output = r->c.rules ? r->c.rules : RULES_DEFAULT_OUTPUT;
	struct msg_log log = {0};
	struct rules_opts ro = {
	    .match = RULES_MATCH_AUTO,
	    .owner = RULES_DEFAULT_OWNER,
	    .group = RULES_DEFAULT_GROUP,
	    .mode = RULES_DEFAULT_MODE,
	    .output = output,
	    .root = r->o.root,
	    .dry_run = r->o.dry_run,
	    .no_reload = r->o.no_reload,
	    .log = &log,
	    .config = r->o.config,
	};
	struct rules_map map = {0};
	struct pa_diags diags = {0};
	struct rules_call call = {&ro, &map};
	const char *err;
	size_t i;
	int rc = 0;

	r->rules_file =
	    r->o.root ? prov_asprintf("%s%s", r->o.root, output) : prov_strdup(output);
	if (!rules_ready(r))
		return;
	for (i = 0; i < r->n && rc == 0; i++) {
		const struct disk *d = &r->disks[i];

		rc = rules_map_add(&map, d->cfg->name, d->partition,
				   provconf_owner(&r->c, d->cfg),
				   provconf_group(&r->c, d->cfg),
				   provconf_mode(&r->c, d->cfg), d->cfg->where, &diags);
	}
	if (rc == -ENOMEM)
		prov_nomem();
	msg_diags(&diags);
	diags_free(&diags);
	rules_trigger_note(r);
	rc = rc < 0 ? PA_EXIT_USAGE : prov_call(call_rules, &call);
	rules_map_free(&map);
	err = log.last;
	if (rc == PA_EXIT_OK) {
		r->rules_result = "unchanged";
	} else if (rc == PA_EXIT_CHANGED) {
		r->rules_result = "written";
		r->status |= PA_EXIT_CHANGED;
	} else if (rc == (PA_EXIT_CHANGED | PA_EXIT_ERROR)) {
		r->rules_result = "written";
		r->rules_reason =
		    prov_strdup(err ? err : "written, but udev did not apply them");
		r->status |= PA_EXIT_CHANGED | PA_EXIT_ERROR;
	} else {
		r->rules_result = "refused";
		r->rules_reason = prov_strdup(err      ? err
					      : rc < 0 ? "cannot run partalign rules"
						       : "partalign rules failed");
		r->status |= PA_EXIT_ERROR;
	}
	msg_log_free(&log);
}

/* ---- the report ---------------------------------------------------------- */

char *provision_summary(const struct run *r)
{
	size_t count[ACT_ERROR + 1] = {0}, i;
	char *s, *t;

	for (i = 0; i < r->n; i++)
		count[r->disks[i].action]++;
	s = prov_asprintf("%s%zu disk%s: %zu created, %zu kept",
			  r->o.dry_run ? "dry run: " : "", r->n, r->n == 1 ? "" : "s",
			  count[ACT_CREATED], count[ACT_KEPT]);
	if (count[ACT_REFUSED]) {
		t = prov_asprintf("%s, %zu refused", s, count[ACT_REFUSED]);
		free(s);
		s = t;
	}
	if (count[ACT_ERROR] + count[ACT_PENDING]) {
		t = prov_asprintf("%s, %zu failed", s,
				  count[ACT_ERROR] + count[ACT_PENDING]);
		free(s);
		s = t;
	}
	if (r->no_trigger && strcmp(r->rules_result, "skipped") != 0)
		t = prov_asprintf("%s; rules %s: %s (%s)", s, r->rules_file,
				  r->rules_result, r->no_trigger);
	else
		t = prov_asprintf("%s; rules %s: %s", s, r->rules_file, r->rules_result);
	free(s);
	return t;
}

int provision_print_json(const struct run *r, const char *msg)
{
	size_t i;

	printf("{\n   \"changed\": %s,\n   \"msg\": ",
	       r->status & PA_EXIT_CHANGED ? "true" : "false");
	out_json_str(stdout, msg);
	printf(",\n   \"dry_run\": %s,\n   \"disks\": [",
	       r->o.dry_run ? "true" : "false");
	for (i = 0; i < r->n; i++) {
		const struct disk *d = &r->disks[i];

		printf("%s\n      {\n         \"name\": ", i ? "," : "");
		out_json_str(stdout, d->cfg->name);
		printf(",\n         \"selector\": ");
		out_json_str(stdout, d->cfg->selector);
		printf(",\n         \"device\": ");
		out_json_str(stdout, d->device);
		printf(",\n         \"partition\": ");
		out_json_str(stdout, d->partition);
		printf(",\n         \"action\": ");
		out_json_str(stdout, provision_action_names[d->action]);
		printf(",\n         \"changed\": %s,\n         \"aligned\": %s,\n"
		       "         \"reason\": ",
		       d->changed ? "true" : "false", d->aligned ? "true" : "false");
		out_json_str(stdout, d->reason);
		printf("\n      }");
	}
	printf("\n   ],\n   \"rules\": {\n      \"file\": ");
	out_json_str(stdout, r->rules_file);
	printf(",\n      \"result\": ");
	out_json_str(stdout, r->rules_result);
	printf(",\n      \"reason\": ");
	out_json_str(stdout, r->rules_reason);
	printf("\n   }\n}\n");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_err(NULL, errno, "write error on standard output");
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_OK;
}

enum { PC_NAME, PC_DEVICE, PC_PARTITION, PC_ACTION, PC_ALIGNED, PC_REASON };

static const struct out_col pcols[] = {
    [PC_NAME] = {"NAME", 0.1, 0, OUT_JSON_STRING, "ASM disk name"},
    [PC_DEVICE] = {"DEVICE", 0.1, 0, OUT_JSON_STRING, "whole disk"},
    [PC_PARTITION] = {"PARTITION", 0.1, 0, OUT_JSON_STRING, "its partition"},
    [PC_ACTION] = {"ACTION", 7, 0, OUT_JSON_STRING, "created, kept, refused, error"},
    [PC_ALIGNED] = {"ALIGNED", 3, 0, OUT_JSON_STRING, "partition aligned"},
    [PC_REASON] = {"REASON", 0.5, SCOLS_FL_WRAP, OUT_JSON_STRING, "why"},
};

int provision_print_table(const struct run *r, const char *msg)
{
	const int sel[] = {PC_NAME,   PC_DEVICE,  PC_PARTITION,
			   PC_ACTION, PC_ALIGNED, PC_REASON};
	struct out_opts oo = {.format = OUT_TABLE};
	struct libscols_table *tb;
	size_t i;
	int status;

	tb = out_table_new(&oo, "provision", pcols, sel, sizeof(sel) / sizeof(sel[0]));
	if (!tb)
		prov_nomem();
	for (i = 0; i < r->n; i++) {
		const struct disk *d = &r->disks[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			prov_nomem();
		out_set_str(ln, PC_NAME, d->cfg->name);
		out_set_str(ln, PC_DEVICE, d->device ? d->device : "-");
		out_set_str(ln, PC_PARTITION, d->partition ? d->partition : "-");
		out_set_str(ln, PC_ACTION, provision_action_names[d->action]);
		out_set_str(ln, PC_ALIGNED,
			    d->partition || (r->o.dry_run && d->action == ACT_CREATED)
				? (d->aligned ? "yes" : "no")
				: "-");
		out_set_str(ln, PC_REASON, d->reason);
	}
	status = out_print(tb);
	scols_unref_table(tb);
	printf("%s\n", msg);
	if (r->rules_reason)
		printf("rules: %s\n", r->rules_reason);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_err(NULL, errno, "write error on standard output");
		status |= PA_EXIT_ERROR;
	}
	return status;
}
