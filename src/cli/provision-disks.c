/*
 * provision, disk by disk: which disk of the host each configuration line
 * names (a path, wwn:, serial:, or the one fitting disk of a size:), whether
 * to create, keep or refuse its partition, and the check of the partitions
 * the kernel shows afterwards.  The answers of the writer come from
 * provision-probe.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/provision.h"
#include "core/align.h"
#include "core/exitcodes.h"
#include "core/rules.h"
#include "core/units.h"
#include "scan/scan.h"

/* ---- which disk is which ---------------------------------------------- */

static bool claimed(const struct run *r, const struct pa_dev *dev)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->disks[i].dev == dev)
			return true;
	return false;
}

/* Path, wwn: or serial: into a whole device of the scan; 0 or -1. */
static int resolve_named(struct run *r, struct disk *d)
{
	struct pa_dev *dev = NULL, *other = NULL;
	int rc;

	if (d->cfg->sel == PROVCONF_SEL_PATH) {
		rc = scan_lookup(&r->devs, d->cfg->value, &dev);
		if (rc == -ENOENT)
			return prov_fail(d, ACT_ERROR, "%s: no such device",
					 d->cfg->value);
		if (rc == -ENOTBLK)
			return prov_fail(d, ACT_ERROR, "%s: not a block device",
					 d->cfg->value);
		if (rc == -ENODEV)
			return prov_fail(
			    d, ACT_ERROR,
			    "%s: not among the disks of the host (an unbound loop "
			    "device?)",
			    d->cfg->value);
		if (rc < 0)
			return prov_fail(d, ACT_ERROR, "%s: %s%s", d->cfg->value,
					 strerror(-rc), msg_root_hint(-rc));
	} else {
		rc = rules_spec_find(&r->devs,
				     d->cfg->sel == PROVCONF_SEL_WWN ? RULES_SEL_WWN
								     : RULES_SEL_SERIAL,
				     d->cfg->value, &dev, &other);
		if (rc == -ENODEV)
			return prov_fail(
			    d, ACT_ERROR,
			    "%s: no disk of the host has this ID (udev's database "
			    "must know it: see udevadm info)",
			    d->cfg->selector);
		if (rc == -EEXIST)
			return prov_fail(
			    d, ACT_ERROR,
			    "%s: matches both %s and %s (cloned VM disks?): cannot "
			    "tell which one is %s",
			    d->cfg->selector, dev->path, other->path, d->cfg->name);
		if (rc < 0)
			return prov_fail(d, ACT_ERROR, "%s: %s%s", d->cfg->selector,
					 strerror(-rc), msg_root_hint(-rc));
	}
	if (dev->kind == PA_KIND_PART)
		return prov_fail(
		    d, ACT_ERROR, "%s is a partition%s%s: name the whole disk", dev->path,
		    dev->disk ? " of " : "", dev->disk ? dev->disk->path : "");
	if (dev->is_path)
		return prov_fail(d, ACT_ERROR,
				 "%s is a path of the multipath map %s: name the map",
				 dev->path, dev->map ? dev->map->path : "over it");
	d->dev = dev;
	return 0;
}

static bool size_kind(const struct pa_dev *dev)
{
	return dev->kind == PA_KIND_DISK || dev->kind == PA_KIND_LOOP ||
	       dev->kind == PA_KIND_MPATH || dev->kind == PA_KIND_MD;
}

/*
 * size:SIZE: exactly one disk of that size that already holds the partition
 * provision makes, named like this disk (an earlier run), else exactly one
 * blank disk nobody else claims.  Two candidates are refused: guessing which
 * LUN is which would give ASM the wrong disk.
 */
static void resolve_size(struct run *r, struct disk *d)
{
	const struct pa_dev *owned[2] = {NULL, NULL}, *blank[2] = {NULL, NULL};
	size_t nowned = 0, nblank = 0, i;
	char sz[32], why[PA_REASON_MAX] = "";

	units_exact(d->cfg->size, sz, sizeof(sz));
	for (i = 0; i < r->devs.n; i++) {
		const struct pa_dev *dev = r->devs.v[i];
		struct probe *pr;

		if (!size_kind(dev) || dev->is_path || dev->size != d->cfg->size ||
		    claimed(r, dev))
			continue;
		if (dev->mountpoints || (dev->holders && dev->kind != PA_KIND_MPATH)) {
			snprintf(why, sizeof(why), "%s is in use", dev->path);
			continue;
		}
		if (dev->fstype) {
			snprintf(why, sizeof(why), "%s holds %s", dev->path, dev->fstype);
			continue;
		}
		if (dev->nparts > 1) {
			snprintf(why, sizeof(why), "%s has %u partitions", dev->path,
				 dev->nparts);
			continue;
		}
		pr = provision_probe(r, dev);
		if (provision_probe_keeps(pr) && pr->pname &&
		    strcasecmp(pr->pname, d->cfg->name) == 0) {
			if (nowned < 2)
				owned[nowned] = dev;
			nowned++;
		} else if (provision_probe_creates(pr)) {
			if (nblank < 2)
				blank[nblank] = dev;
			nblank++;
		} else {
			char buf[128];

			snprintf(why, sizeof(why), "%s: %s", dev->path,
				 pr->refused ? pr->refused
				 : provision_probe_keeps(pr)
				     ? "holds a partition of another name"
				     : provision_probe_failure(pr, buf, sizeof(buf)));
		}
	}
	if (nowned == 1) {
		d->dev = owned[0];
		prov_note(d->cfg->name, "%s: %s, provisioned as %s before",
			  d->cfg->selector, owned[0]->path, d->cfg->name);
	} else if (nowned > 1) {
		prov_fail(
		    d, ACT_ERROR,
		    "%s: %zu disks of %s already hold a partition named %s (%s, %s%s): "
		    "name the disk by path, wwn: or serial:",
		    d->cfg->selector, nowned, sz, d->cfg->name, owned[0]->path,
		    owned[1]->path, nowned > 2 ? ", ..." : "");
	} else if (nblank == 1) {
		d->dev = blank[0];
		prov_note(d->cfg->name, "%s: %s, the only blank disk of %s",
			  d->cfg->selector, blank[0]->path, sz);
	} else if (nblank > 1) {
		prov_fail(
		    d, ACT_ERROR,
		    "%s: %zu blank disks of %s (%s, %s%s): cannot tell which one is %s; "
		    "name it by path, wwn: or serial:",
		    d->cfg->selector, nblank, sz, blank[0]->path, blank[1]->path,
		    nblank > 2 ? ", ..." : "", d->cfg->name);
	} else {
		prov_fail(d, ACT_ERROR, "%s: no blank disk of %s%s%s%s", d->cfg->selector,
			  sz, why[0] ? " (" : "", why, why[0] ? ")" : "");
	}
}

void provision_resolve(struct run *r)
{
	size_t i, j;

	for (i = 0; i < r->n; i++)
		if (r->disks[i].cfg->sel != PROVCONF_SEL_SIZE)
			resolve_named(r, &r->disks[i]);
	/* a disk named twice is nobody's: size: must not pick it either */
	for (i = 0; i < r->n; i++)
		for (j = i + 1; j < r->n; j++) {
			struct disk *a = &r->disks[i], *b = &r->disks[j];

			if (!a->dev || a->dev != b->dev)
				continue;
			prov_fail(b, ACT_ERROR, "%s names %s, as %s (%s) does",
				  b->cfg->selector, a->dev->path, a->cfg->name,
				  a->cfg->where);
			if (a->action == ACT_PENDING)
				prov_fail(a, ACT_ERROR, "%s names %s, as %s (%s) does",
					  a->cfg->selector, a->dev->path, b->cfg->name,
					  b->cfg->where);
		}
	for (i = 0; i < r->n; i++) {
		struct disk *d = &r->disks[i];

		if (d->cfg->sel == PROVCONF_SEL_SIZE && d->action == ACT_PENDING)
			resolve_size(r, d);
		if (d->dev)
			d->device = prov_strdup(d->dev->path);
	}
}

/* ---- partitions --------------------------------------------------------- */

/* One disk: refuse, keep, or create its partition; 0 or -1 (refused, failed). */
int provision_disk(struct run *r, struct disk *d)
{
	struct probe *pr = provision_probe(r, d->dev);
	char buf[128];
	int rc;

	d->probe = pr;
	if (provision_probe_keeps(pr)) {
		if (pr->pname && *pr->pname && strcasecmp(pr->pname, d->cfg->name) != 0)
			return prov_fail(
			    d, ACT_REFUSED,
			    "%s holds the partition provision makes, but it is "
			    "named %s, not %s: this disk may be %s elsewhere; check "
			    "the selector %s",
			    d->device, pr->pname, d->cfg->name, pr->pname,
			    d->cfg->selector);
		d->action = ACT_KEPT;
		if (!pr->pname || !*pr->pname)
			prov_remark(d, "its partition has no GPT name (not renamed)");
		if (pr->refused) {
			/* nothing to write, so being in use is no reason to refuse */
			prov_remark(d, "in use (%s)", pr->refused);
			return 0;
		}
		if (pr->rc == PA_EXIT_OK)
			return 0;
		/* the table is right but the kernel's partitions are not */
		if (r->o.dry_run) {
			d->changed = true;
			prov_remark(d, "dry run: the kernel's partitions differ from the "
				       "table; fix --new would update them");
			return 0;
		}
		rc = provision_fix(r, d);
		if (rc & PA_EXIT_CHANGED) {
			d->changed = true;
			prov_remark(
			    d, "the kernel's partitions were updated from the table");
		}
		r->status |= rc;
		return d->action == ACT_KEPT ? 0 : -1;
	}
	if (pr->refused)
		return prov_fail(d, ACT_REFUSED, "%s: %s", d->device, pr->refused);
	if (!provision_probe_creates(pr))
		return prov_fail(d, ACT_ERROR, "%s",
				 provision_probe_failure(pr, buf, sizeof(buf)));
	d->action = ACT_CREATED;
	d->changed = true;
	if (r->o.dry_run) {
		if (pr->has_start)
			prov_remark(d,
				    "dry run: one partition would be created at %" PRIu64
				    " bytes",
				    pr->new_start);
		else
			prov_remark(d,
				    "dry run: one partition would be created at ? bytes");
		return 0;
	}
	prov_note(d->cfg->name, "%s is blank: creating its partition", d->device);
	rc = provision_fix(r, d);
	r->status |= rc;
	d->changed = rc & PA_EXIT_CHANGED;
	if (d->action != ACT_CREATED)
		return -1;
	if (!d->changed)
		d->action = ACT_KEPT; /* another run made it between our look and fix */
	return 0;
}

/* The partition of each disk as the kernel has it now, and its alignment. */
void provision_check(struct run *r)
{
	char **names = calloc(r->n + 1, sizeof(char *));
	struct pa_scan_opts so = {.names = names};
	struct pa_diags diags = {0};
	size_t i, j;
	int rc;

	if (!names)
		prov_nomem();
	for (i = 0; i < r->n; i++) {
		struct disk *d = &r->disks[i];

		if ((d->action == ACT_CREATED || d->action == ACT_KEPT) && d->device)
			names[so.nnames++] = d->device;
	}
	rc = so.nnames ? scan_devices(&so, &r->after, &diags) : 0;
	diags_free(&diags);
	for (i = 0; i < r->n; i++) {
		struct disk *d = &r->disks[i];
		const struct pa_dev *part = NULL;
		struct pa_dev *whole = NULL;
		unsigned int nparts = 0;
		struct pa_check chk;

		if (d->action != ACT_CREATED && d->action != ACT_KEPT)
			continue;
		if (rc < 0) {
			prov_fail(d, ACT_ERROR, "cannot scan the disks again: %s%s",
				  strerror(-rc), msg_root_hint(-rc));
			continue;
		}
		if (r->o.dry_run && d->action == ACT_CREATED) {
			d->aligned = d->probe->action && d->probe->new_aligned;
			continue;
		}
		if (scan_lookup(&r->after, d->device, &whole) < 0) {
			prov_fail(d, ACT_ERROR, "%s is gone", d->device);
			continue;
		}
		for (j = 0; j < r->after.n; j++) {
			const struct pa_dev *p = r->after.v[j];

			if (p->kind != PA_KIND_PART || p->disk != whole ||
			    p->kernel_missing)
				continue;
			nparts++;
			if (!part || p->partno < part->partno)
				part = p;
		}
		if (!part) {
			/* after a write the kernel did not take, the reason says so */
			if (!d->reboot)
				prov_fail(d, ACT_ERROR,
					  "the kernel shows no partition on %s",
					  d->device);
			continue;
		}
		if (nparts > 1)
			prov_remark(d, "the kernel shows %u partitions on %s", nparts,
				    d->device);
		d->partition = prov_strdup(part->path);
		align_check_dev(part, &r->grain, &chk);
		d->aligned = chk.physical != PA_VERDICT_MISALIGNED &&
			     chk.optimal != PA_VERDICT_MISALIGNED &&
			     chk.policy != PA_VERDICT_MISALIGNED;
		if (!d->aligned) {
			char why[PA_REASON_TEXT_MAX];

			reason_render(&chk.why, why, sizeof(why), NULL, NULL);
			prov_remark(d, "%s: %s", part->path, why);
			msg_err(part->path, 0, "misaligned: %s", why);
			r->status |= PA_EXIT_MISALIGNED;
		}
	}
	free(names);
}
