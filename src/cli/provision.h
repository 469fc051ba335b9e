/*
 * partalign provision, shared by its files: cmd-provision.c (the command, its
 * options and the order of the steps), provision-probe.c (what fix --new
 * would do on a disk, and fix --new itself, in process), provision-disks.c
 * (which disk is which; create, keep or refuse each partition; the check
 * afterwards), provision-report.c (the rules step and the report) and
 * provision-util.c (memory, notes and outcomes, calls in process).
 *
 * Ownership: a struct run owns the configuration, both scans, the probes and
 * every string of the results; run_free() (cmd-provision.c) releases them.  Devices
 * of a scan are borrowed by the disks and probes that name them.
 */
#ifndef PARTALIGN_PROVISION_H
#define PARTALIGN_PROVISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/align.h"
#include "core/device.h"
#include "core/provconf.h"

enum action {
	ACT_PENDING,
	ACT_CREATED,
	ACT_KEPT,
	ACT_REFUSED,
	ACT_ERROR,
};

/* "created", "kept", "refused", "error" */
extern const char *const provision_action_names[];

/* What `fix --new` would do on one whole device, as `plan --new` tells it. */
struct probe {
	const struct pa_dev *dev;
	int rc;		    /* the exit bits plan --new would return */
	const char *action; /* "create", "keep", "none"; NULL: no plan */
	char *pname;	    /* the GPT name of the partition it keeps */
	char *refused;
	bool has_start;
	uint64_t new_start; /* bytes */
	bool new_aligned;   /* no verdict of the new partition is misaligned */
	char *err;	    /* its error (the last it printed), malloc'd */
};

struct disk {
	const struct provconf_disk *cfg;
	const struct pa_dev *dev; /* in the first scan */
	struct probe *probe;
	char *device; /* the whole disk */
	char *partition;
	enum action action;
	bool aligned;
	bool changed;
	bool reboot; /* fix wrote a table the kernel does not use yet */
	char *reason;
};

struct opts {
	const char *config;
	const char *root;
	const char *backup_dir;
	const char *align; /* --align, else the configuration's */
	bool json;
	bool no_reload;
	bool dry_run;
};

struct run {
	struct opts o;
	struct provconf c;
	struct disk *disks; /* one per c.v[] */
	size_t n;
	struct pa_grain grain;
	struct pa_devlist devs;	 /* before any change */
	struct pa_devlist after; /* the disks again, after fix */
	struct probe *probes;
	size_t nprobes, capprobes;
	char *backup_dir; /* --backup-dir, or under --root */
	char *rules_file; /* as written: under --root when given */
	const char *rules_result;
	char *rules_reason;
	const char *no_trigger; /* why udev was not triggered (a phrase), or NULL */
	int status;
};

/* provision-util.c: out of memory is fatal here (a message, exit 8) */
void prov_nomem(void) __attribute__((noreturn));
char *prov_strdup(const char *s);
char *prov_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress on stderr: "partalign: provision: WHO: ...". */
void prov_note(const char *who, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* End a disk's run as refused or failed, with the reason (also on stderr); -1. */
int prov_fail(struct disk *d, enum action a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Add a remark to a disk's reason. */
void prov_remark(struct disk *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Call @fn(@ctx), a run of fix or rules in process: its stdout goes to our
 * stderr (its progress is our log).  Its exit bits, or -errno when stdout
 * could not be redirected.
 */
int prov_call(int (*fn)(void *ctx), void *ctx);

/* provision-probe.c */
struct probe *provision_probe(struct run *r, const struct pa_dev *dev);
bool provision_probe_keeps(const struct probe *pr);
bool provision_probe_creates(const struct probe *pr);
const char *provision_probe_failure(const struct probe *pr, char *buf, size_t len);
void provision_probe_free(struct probe *pr);
/* fix --new on d->device; its exit bits, 0 when it refused or failed (said in @d) */
int provision_fix(struct run *r, struct disk *d);

/* provision-disks.c */
void provision_resolve(struct run *r);
int provision_disk(struct run *r, struct disk *d);
void provision_check(struct run *r);

/* provision-report.c */
void provision_rules(struct run *r);
char *provision_summary(const struct run *r);
int provision_print_json(const struct run *r, const char *msg);
int provision_print_table(const struct run *r, const char *msg);

#endif
