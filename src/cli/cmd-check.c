/*
 * partalign check: the audit.  Scans every block device (or the ones named),
 * computes the three verdicts per partition or whole device, and prints one
 * row each.  Exit status: PA_EXIT_MISALIGNED and/or PA_EXIT_ERROR OR-ed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/check-asm.h"
#include "cli/cli.h"
#include "cli/move-pending.h"
#include "core/exitcodes.h"
#include "core/label.h"
#include "core/layers.h"
#include "core/movestate.h"
#include "core/plan.h"
#include "core/stack-advise.h"
#include "core/units.h"
#include "scan/scan.h"
#include "shared/fileio.h"

enum {
	COL_NAME,
	COL_KNAME,
	COL_PATH,
	COL_DISK,
	COL_TYPE,
	COL_MAJMIN,
	COL_PARTN,
	COL_START,
	COL_START_SEC,
	COL_SIZE,
	COL_LOG_SEC,
	COL_PHY_SEC,
	COL_MIN_IO,
	COL_OPT_IO,
	COL_ALIGNMENT,
	COL_ALIGN_CALC,
	COL_DISK_ALIGN,
	COL_PHYSICAL,
	COL_OPTIMAL,
	COL_POLICY,
	COL_REASON,
	COL_PHYS_GRAIN,
	COL_OPT_GRAIN,
	COL_POLICY_GRAIN,
	COL_MODEL,
	COL_SERIAL,
	COL_WWN,
	COL_FSTYPE,
	COL_PTTYPE,
	COL_PARTLABEL,
	COL_PARTUUID,
	COL_PARTTYPE,
	COL_HOLDERS,
	COL_MOUNTPOINTS,
	COL_PATHS,
	COL_TABLE,
	COL_ONDISK_START,
	COL_UDEV,
	COL_ABS_START,
	COL_LAYERS,
	COL_FS,
	COL_PE_START,
	COL_EXTENT_SIZE,
	COL_MOVE,
	COL_ASM_GROUP, /* ... and the other CHECK_ASM_NCOLS - 1 of check-asm.c */
};

#define N OUT_JSON_NUMBER
#define S OUT_JSON_STRING
#define R SCOLS_FL_RIGHT
static const struct out_col columns[] = {
    [COL_NAME] = {"NAME", 0.1, SCOLS_FL_NOEXTREMES, S,
		  "device name as lsblk shows it (device-mapper name)"},
    [COL_KNAME] = {"KNAME", 0.1, SCOLS_FL_NOEXTREMES, S, "kernel name of the device"},
    [COL_PATH] = {"PATH", 0.1, SCOLS_FL_NOEXTREMES, S,
		  "device node path (/dev/mapper/NAME for device-mapper)"},
    [COL_DISK] = {"DISK", 0.1, 0, S, "kernel name of the whole disk or multipath map"},
    [COL_TYPE] = {"TYPE", 4, 0, S, "part, disk, loop, mpath, lvm, crypt, dm, raid, path"},
    [COL_MAJMIN] = {"MAJ:MIN", 6, 0, S, "major:minor device number"},
    [COL_PARTN] = {"PARTN", 2, R, N, "partition number"},
    [COL_START] =
	{"START", 10, R, N,
	 "start from the start of the disk: bytes; on a terminal sectors (63s)"},
    [COL_START_SEC] = {"START-SEC", 8, R, N, "start in logical sectors of the disk"},
    [COL_SIZE] = {"SIZE", 6, R, N, "size (bytes in JSON and with --bytes)"},
    [COL_LOG_SEC] = {"LOG-SEC", 4, R, N, "logical sector size in bytes"},
    [COL_PHY_SEC] = {"PHY-SEC", 4, R, N, "physical sector size in bytes"},
    [COL_MIN_IO] = {"MIN-IO", 4, R, N, "minimum I/O size in bytes"},
    [COL_OPT_IO] = {"OPT-IO", 4, R, N, "optimal I/O size in bytes, as reported"},
    [COL_ALIGNMENT] = {"ALIGNMENT", 4, R, N,
		       "the kernel's alignment offset of this device"},
    [COL_ALIGN_CALC] = {"ALIGN-CALC", 4, R, N, "alignment offset computed by partalign"},
    [COL_DISK_ALIGN] = {"DISK-ALIGN", 4, R, N, "alignment offset of the whole disk"},
    [COL_PHYSICAL] = {"PHYSICAL", 10, 0, S, "start vs physical sector and minimum I/O"},
    [COL_OPTIMAL] = {"OPTIMAL", 10, 0, S, "start vs the (sane) optimal I/O size"},
    [COL_POLICY] = {"POLICY", 10, 0, S, "start vs the site's grain (--align)"},
    [COL_REASON] = {"REASON", 0.3, SCOLS_FL_TRUNC, S, "why a verdict is not ok"},
    [COL_PHYS_GRAIN] = {"PHYS-GRAIN", 4, R, N, "granularity of the physical check"},
    [COL_OPT_GRAIN] = {"OPT-GRAIN", 4, R, N, "optimal I/O size used, null if ignored"},
    [COL_POLICY_GRAIN] = {"POLICY-GRAIN", 4, R, N, "policy grain in bytes"},
    [COL_MODEL] = {"MODEL", 0.1, SCOLS_FL_TRUNC, S, "device model"},
    [COL_SERIAL] = {"SERIAL", 0.1, SCOLS_FL_TRUNC, S, "disk serial number"},
    [COL_WWN] = {"WWN", 0.1, 0, S, "unique storage identifier"},
    [COL_FSTYPE] = {"FSTYPE", 0.1, SCOLS_FL_TRUNC, S,
		    "signature: filesystem, LVM2_member..."},
    [COL_PTTYPE] = {"PTTYPE", 0.1, 0, S, "partition table type"},
    [COL_PARTLABEL] = {"PARTLABEL", 0.1, 0, S, "partition name (GPT)"},
    [COL_PARTUUID] = {"PARTUUID", 36, 0, S, "partition UUID"},
    [COL_PARTTYPE] = {"PARTTYPE", 36, 0, S, "partition type code or UUID"},
    [COL_HOLDERS] = {"HOLDERS", 0.1, 0, S, "devices stacked on this one"},
    [COL_MOUNTPOINTS] = {"MOUNTPOINTS", 0.1, SCOLS_FL_WRAP, S, "where mounted, [SWAP]"},
    [COL_PATHS] = {"PATHS", 0.1, 0, S, "multipath maps: their path devices"},
    [COL_TABLE] = {"TABLE", 6, 0, S, "--probe: kernel vs on-disk table"},
    [COL_ONDISK_START] = {"ONDISK-START", 10, R, N,
			  "--probe: start in the on-disk table"},
    [COL_UDEV] = {"UDEV", 5, 0, S,
		  "udev database vs the device: ok, stale (PARTUUID with --probe)"},
    [COL_ABS_START] =
	{"ABS-START", 10, R, N,
	 "stacked dm device: where its byte 0 lands on the bottom device, bytes"},
    [COL_LAYERS] =
	{"LAYERS", 0.1, 0, S,
	 "stacked dm device: the layers below it, bottom first (vda>vda1>dm-2)"},
    [COL_FS] =
	{"FS", 10, 0, S,
	 "--probe: XFS/ext4 stripe geometry vs the device's minimum and optimal I/O"},
    [COL_PE_START] = {"PE-START", 8, R, N,
		      "--probe: LVM PV: bytes from the device's start to PE 0"},
    [COL_EXTENT_SIZE] = {"EXTENT-SIZE", 8, R, N,
			 "--probe: LVM PV: the extent size of its VG, bytes"},
    [COL_MOVE] = {"MOVE", 10, 0, S,
		  "unfinished: the disk has an unfinished data move (partalign resume)"},
    CHECK_ASM_COLUMNS(COL_ASM_GROUP),
};
#undef N
#undef S
#undef R

/* A table to a pipe or file: the columns it always had (scripts parse them). */
static const int table_defaults[] = {COL_NAME,	    COL_TYPE,	  COL_START,   COL_SIZE,
				     COL_LOG_SEC,   COL_PHY_SEC,  COL_MIN_IO,  COL_OPT_IO,
				     COL_ALIGNMENT, COL_PHYSICAL, COL_OPTIMAL, COL_POLICY,
				     COL_REASON};
/* A table to a terminal: what fits 80 columns, the reason truncated to what is left. */
static const int terminal_defaults[] = {COL_NAME,    COL_START,	 COL_SIZE,  COL_PHYSICAL,
					COL_OPTIMAL, COL_POLICY, COL_REASON};
/* -t, --topology (as lsblk -t): what the verdicts are computed from */
static const int topology_defaults[] = {COL_NAME,      COL_START,     COL_LOG_SEC,
					COL_PHY_SEC,   COL_MIN_IO,    COL_OPT_IO,
					COL_ALIGNMENT, COL_ALIGN_CALC};
/* --pairs, --raw, and JSON with two keys more (a JSON reader ignores keys it does not
 * know) */
#define SCRIPT_COLUMNS                                                                   \
	COL_NAME, COL_PATH, COL_DISK, COL_TYPE, COL_PARTN, COL_START, COL_SIZE,          \
	    COL_LOG_SEC, COL_PHY_SEC, COL_MIN_IO, COL_OPT_IO, COL_ALIGNMENT,             \
	    COL_ALIGN_CALC, COL_PHYSICAL, COL_OPTIMAL, COL_POLICY, COL_REASON,           \
	    COL_FSTYPE, COL_MOUNTPOINTS, COL_HOLDERS, COL_PARTLABEL, COL_PARTUUID,       \
	    COL_WWN, COL_SERIAL
static const int script_defaults[] = {SCRIPT_COLUMNS};
#define ASM_KEYS CHECK_ASM_KEYS(COL_ASM_GROUP)
static const int json_defaults[] = {
    SCRIPT_COLUMNS, COL_KNAME,	  COL_START_SEC,   COL_UDEV, COL_ABS_START, COL_LAYERS,
    COL_FS,	    COL_PE_START, COL_EXTENT_SIZE, COL_MOVE, ASM_KEYS};
#undef SCRIPT_COLUMNS

struct row {
	const struct pa_dev *d;
	struct pa_check c;
	bool checked;
	enum pa_verdict fs; /* --probe: the file system's geometry (layers_check_fs) */
	char fs_reason[256];
	struct pa_fs_clauses fs_cl;    /* where its clauses are */
	const struct pa_asm_row *asmr; /* --asm, --probe: its ASM header's findings */
	char reason[PA_REASON_TEXT_MAX + 512];
};

static const char *table_state(const struct pa_dev *d)
{
	if (!d->probed)
		return NULL;
	if (d->kernel_missing)
		return "disk-only";
	if (!d->ondisk_found)
		return "kernel-only";
	if (d->ondisk_start != d->start || d->ondisk_size != d->size)
		return "stale";
	return "in-sync";
}

/* One clause of a row's reason: where its words are, which verdict it names. */
struct clause {
	const char *p;
	size_t n;
	enum pa_reason_verdict label;
	bool fs;
};

#define ROW_CLAUSES (PA_REASON_SPANS_MAX + 8)

/* Whether clause @cl explains a misaligned verdict of @r. */
static bool clause_is_misaligned(const struct clause *cl, const struct row *r)
{
	const struct pa_check *c = &r->c;

	if (cl->fs)
		return r->fs == PA_VERDICT_MISALIGNED;
	return cl->label == PA_RV_ASM || /* a disk group at risk: first */
	       (cl->label == PA_RV_PHYSICAL && c->physical == PA_VERDICT_MISALIGNED) ||
	       (cl->label == PA_RV_OPTIMAL && c->optimal == PA_VERDICT_MISALIGNED) ||
	       (cl->label == PA_RV_POLICY && c->policy == PA_VERDICT_MISALIGNED);
}

/*
 * The clauses into r->reason, "; " between them: the clauses that explain a
 * misaligned verdict first, the n/a notes after them, in every format (on a
 * terminal the cell is cut to the width left).
 */
static void join_clauses(struct row *r, const struct clause *cl, unsigned int n)
{
	char *out = r->reason;
	size_t len = sizeof(r->reason), used = 0;
	unsigned int i;
	int pass;

	out[0] = '\0';
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			if ((pass == 0) != clause_is_misaligned(&cl[i], r))
				continue;
			if (used + cl[i].n + 3 >= len)
				continue;
			used += (size_t)snprintf(out + used, len - used, "%s%.*s",
						 used ? "; " : "", (int)cl[i].n, cl[i].p);
		}
}

/* The file system's clauses, "fs: " before the first. */
static unsigned int fs_clauses(const struct row *r, char *buf, size_t len,
			       struct clause *cl)
{
	const size_t pre = 4; /* "fs: " */
	unsigned int n = 0, i;

	snprintf(buf, len, "fs: %s", r->fs_reason);
	for (i = 0; i < r->fs_cl.n && pre + r->fs_cl.v[i].off < len; i++) {
		size_t off = i ? pre + r->fs_cl.v[i].off : 0,
		       end = pre + r->fs_cl.v[i].off + r->fs_cl.v[i].len;

		if (end >= len)
			end = len - 1;
		cl[n++] = (struct clause){.p = buf + off, .n = end - off, .fs = true};
	}
	return n;
}

/* The whole disk of @d has an unfinished data move. */
static bool disk_moving(const struct pa_dev *d)
{
	const struct pa_dev *w = d->kind == PA_KIND_PART && d->disk ? d->disk : d;

	return w->move && w->move->seen != PA_MOVE_SEEN_NONE;
}

/* @d is a partition that an unfinished move is moving. */
static bool row_moving(const struct pa_dev *d)
{
	return d->kind == PA_KIND_PART && d->disk && disk_moving(d) &&
	       move_state_part(d->disk->move, d->partno);
}

/* The move's clause in front of the reason: the first thing a cut cell shows. */
static void move_clause(struct row *r)
{
	const struct pa_dev *d = r->d;
	char text[512];
	size_t n, have = strlen(r->reason);

	if (!disk_moving(d))
		return;
	n = move_state_text(d->kind == PA_KIND_PART ? d->disk : d,
			    d->kind == PA_KIND_PART ? d : NULL, text, sizeof(text));
	if (!n || n + 2 + have >= sizeof(r->reason))
		return;
	memmove(r->reason + n + (have ? 2 : 0), r->reason, have + 1);
	memcpy(r->reason, text, n);
	if (have)
		memcpy(r->reason + n, "; ", 2);
}

static void row_reason(struct row *r)
{
	const struct pa_dev *d = r->d;
	const char *st = table_state(d);
	struct pa_reason_span spans[PA_REASON_SPANS_MAX];
	struct clause cl[ROW_CLAUSES];
	char text[PA_REASON_TEXT_MAX], fs[sizeof(r->fs_reason) + 8];
	const char *asm_text;
	unsigned int n = 0, ns = 0, i;

	if (d->is_path) {
		snprintf(r->reason, sizeof(r->reason),
			 "multipath path of %s%s%s%s: checked on the map",
			 d->map ? d->map->name : "a map",
			 d->map && d->map->dm_name ? " (" : "",
			 d->map && d->map->dm_name ? d->map->dm_name : "",
			 d->map && d->map->dm_name ? ")" : "");
		check_asm_path_reason(r->asmr, r->reason, sizeof(r->reason));
		return;
	}
	/* a moving partition is off the kernel's table on purpose: resume, not re-read */
	if (st && strcmp(st, "in-sync") != 0 && !row_moving(d)) {
		const char *w =
		    strcmp(st, "disk-only") == 0 ? "on disk but not known to the kernel "
						   "(re-read the table or reboot)"
		    : strcmp(st, "kernel-only") == 0
			? "known to the kernel but not in the on-disk table (re-read or "
			  "reboot)"
			: "on-disk table differs from the kernel's (re-read or reboot)";

		cl[n++] = (struct clause){.p = w, .n = strlen(w)};
	}
	reason_render(&r->c.why, text, sizeof(text), spans, &ns);
	for (i = 0; i < ns; i++)
		cl[n++] = (struct clause){
		    .p = text + spans[i].off, .n = spans[i].len, .label = spans[i].label};
	ns = check_asm_spans(r->asmr, &asm_text, spans);
	for (i = 0; i < ns && n < ROW_CLAUSES; i++)
		cl[n++] =
		    (struct clause){asm_text + spans[i].off, spans[i].len, PA_RV_ASM, 0};
	/* the file system: a miss, or a geometry the device has no optimal I/O for */
	if (r->fs_reason[0] &&
	    (r->fs == PA_VERDICT_MISALIGNED || d->fs_unit || d->fs_width))
		n += fs_clauses(r, fs, sizeof(fs), cl + n);
	join_clauses(r, cl, n);
	move_clause(r);
}

/* Cell @i of a row: what the kernel and udev say of the device.  1: not one of these
 * columns. */
static int fill_device(const struct out_opts *o, struct libscols_line *ln, size_t i,
		       int col, const struct row *r)
{
	const struct pa_dev *d = r->d;
	const struct pa_dev *whole = d->disk ? d->disk : d;
	char buf[320];
	int rc = 0;

	switch (col) {
	case COL_NAME:
		/* lsblk's NAME: a device-mapper device by its dm name */
		rc = out_set_str(ln, i, d->dm_name ? d->dm_name : d->name);
		break;
	case COL_KNAME:
		rc = out_set_str(ln, i, d->name);
		break;
	case COL_PATH:
		if (d->dm_name && strlen(d->dm_name) < sizeof(buf) - 16) {
			snprintf(buf, sizeof(buf), "/dev/mapper/%s", d->dm_name);
			rc = out_set_str(ln, i, buf);
		} else {
			rc = out_set_str(ln, i, d->path);
		}
		break;
	case COL_DISK:
		rc = out_set_str(ln, i, whole->name);
		break;
	case COL_TYPE:
		rc = out_set_str(ln, i, d->is_path ? "path" : device_kind_name(d->kind));
		break;
	case COL_MAJMIN:
		if (d->kernel_missing)
			break;
		snprintf(buf, sizeof(buf), "%u:%u", d->major, d->minor);
		rc = out_set_str(ln, i, buf);
		break;
	case COL_PARTN:
		if (d->kind == PA_KIND_PART && d->partno)
			rc = out_set_u64(ln, i, d->partno);
		break;
	case COL_START:
		if (d->kind != PA_KIND_PART)
			rc = out_set_start(o, ln, i, 0, d->topo.logical);
		else if (d->start_known)
			rc = out_set_start(o, ln, i, d->start, d->topo.logical);
		break;
	case COL_START_SEC:
		if (d->kind != PA_KIND_PART)
			rc = out_set_u64(ln, i, 0);
		else if (d->start_known && d->topo.logical)
			rc = out_set_u64(ln, i, d->start / d->topo.logical);
		break;
	case COL_SIZE:
		rc = out_set_size(o, ln, i, d->size);
		break;
	case COL_LOG_SEC:
		rc = out_set_u64(ln, i, d->topo.logical);
		break;
	case COL_PHY_SEC:
		rc = out_set_u64(ln, i, d->topo.physical);
		break;
	case COL_MIN_IO:
		rc = out_set_u64(ln, i, d->topo.min_io);
		break;
	case COL_OPT_IO:
		rc = out_set_u64(ln, i, d->topo.opt_io);
		break;
	case COL_ALIGNMENT:
		if (d->kind == PA_KIND_PART && d->kalign_known)
			rc = out_set_s64(ln, i, d->kernel_align);
		else if (d->kind != PA_KIND_PART)
			rc = out_set_s64(ln, i, d->topo.align_off);
		break;
	case COL_ALIGN_CALC:
		if (r->c.kalign_predicted_known)
			rc = out_set_s64(ln, i, r->c.kalign_predicted);
		else if (d->kind != PA_KIND_PART)
			rc = out_set_s64(ln, i, d->topo.align_off);
		break;
	case COL_DISK_ALIGN:
		rc = out_set_s64(ln, i, whole->topo.align_off);
		break;
	case COL_ABS_START:
		if (r->c.stack_known)
			rc = out_set_u64(ln, i, r->c.abs_start);
		break;
	case COL_LAYERS:
		if (r->c.stack_known)
			rc = out_set_str(ln, i, r->c.layers);
		break;
	default:
		return 1;
	}
	return rc;
}

/* Cell @i of a row: the verdicts, identities and the table. */
static int fill_verdicts(struct libscols_line *ln, size_t i, int col, const struct row *r)
{
	const struct pa_dev *d = r->d;
	const struct pa_dev *whole = d->disk ? d->disk : d;
	int rc = 0;

	switch (col) {
	case COL_PHYSICAL:
		rc = out_set_str(
		    ln, i,
		    align_verdict_name(r->checked ? r->c.physical : PA_VERDICT_NA));
		break;
	case COL_OPTIMAL:
		rc = out_set_str(
		    ln, i, align_verdict_name(r->checked ? r->c.optimal : PA_VERDICT_NA));
		break;
	case COL_POLICY:
		rc = out_set_str(
		    ln, i, align_verdict_name(r->checked ? r->c.policy : PA_VERDICT_NA));
		break;
	case COL_REASON:
		rc = out_set_str(ln, i, r->reason[0] ? r->reason : NULL);
		break;
	case COL_PHYS_GRAIN:
		if (r->checked)
			rc = out_set_u64(ln, i, r->c.phys_grain);
		break;
	case COL_OPT_GRAIN:
		if (r->checked && r->c.opt_grain)
			rc = out_set_u64(ln, i, r->c.opt_grain);
		break;
	case COL_POLICY_GRAIN:
		if (r->checked && r->c.policy_grain)
			rc = out_set_u64(ln, i, r->c.policy_grain);
		break;
	case COL_MODEL:
		rc = out_set_str(ln, i, d->model);
		break;
	case COL_SERIAL:
		rc = out_set_str(ln, i, d->serial);
		break;
	case COL_WWN:
		rc = out_set_str(ln, i, d->wwn);
		break;
	case COL_FSTYPE:
		rc = out_set_str(ln, i, d->fstype);
		break;
	case COL_PTTYPE:
		rc = out_set_str(ln, i, whole->pttype);
		break;
	case COL_PARTLABEL:
		rc = out_set_str(ln, i, d->part_name);
		break;
	case COL_PARTUUID:
		rc = out_set_str(ln, i, d->part_uuid);
		break;
	case COL_PARTTYPE:
		rc = out_set_str(ln, i, d->part_type);
		break;
	case COL_HOLDERS:
		rc = out_set_str(ln, i, d->holders);
		break;
	case COL_MOUNTPOINTS:
		rc = out_set_str(ln, i, d->mountpoints);
		break;
	case COL_PATHS:
		rc = out_set_str(ln, i, d->paths);
		break;
	case COL_TABLE:
		rc = out_set_str(ln, i, table_state(d));
		break;
	case COL_ONDISK_START:
		if (d->probed && d->ondisk_found)
			rc = out_set_u64(ln, i, d->ondisk_start);
		break;
	case COL_FS:
		if (r->d->fs_geom_known)
			rc = out_set_str(ln, i, align_verdict_name(r->fs));
		break;
	case COL_PE_START:
		if (d->lvm_pv_known)
			rc = out_set_u64(ln, i, d->lvm_pe_start);
		break;
	case COL_EXTENT_SIZE:
		if (d->lvm_pv_known && d->lvm_extent_size)
			rc = out_set_u64(ln, i, d->lvm_extent_size);
		break;
	case COL_ASM_GROUP ... COL_ASM_GROUP + CHECK_ASM_NCOLS - 1:
		rc = check_asm_cell(ln, i, col - COL_ASM_GROUP, r->asmr);
		break;
	case COL_MOVE:
		if (whole->move && whole->move->seen != PA_MOVE_SEEN_NONE)
			rc = out_set_str(ln, i, "unfinished");
		break;
	case COL_UDEV: {
		char why[512];
		int st = device_udev_stale(d, why, sizeof(why));

		if (st >= 0)
			rc = out_set_str(ln, i, st ? "stale" : "ok");
		break;
	}
	}
	return rc;
}

static int fill_line(const struct out_opts *o, struct libscols_line *ln, const int *sel,
		     size_t nsel, const struct row *r)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < nsel && rc == 0; i++) {
		rc = fill_device(o, ln, i, sel[i], r);
		if (rc == 1)
			rc = fill_verdicts(ln, i, sel[i], r);
	}
	return rc;
}

/* Rows in display order: wholes by name (numbers as numbers), each followed by its
 * partitions. */
static const struct pa_dev *whole_of(const struct pa_dev *d)
{
	return d->kind == PA_KIND_PART && d->disk ? d->disk : d;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct pa_dev *x = *(const struct pa_dev *const *)a;
	const struct pa_dev *y = *(const struct pa_dev *const *)b;
	const struct pa_dev *wx = whole_of(x), *wy = whole_of(y);
	int c;

	if (wx != wy && (c = strverscmp(wx->name, wy->name)) != 0)
		return c;
	if (wx != wy)
		return wx < wy ? -1 : 1;
	if ((x == wx) != (y == wy))
		return x == wx ? -1 : 1;
	if (x->partno != y->partno)
		return x->partno < y->partno ? -1 : 1;
	return strverscmp(x->name, y->name);
}

/* Order @l's devices for display into @out (borrowed pointers). */
static int order_devices(const struct pa_devlist *l, const struct pa_dev ***out,
			 size_t *n)
{
	const struct pa_dev **v = calloc(l->n ? l->n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (l->n) /* l->v is NULL for an empty list */
		memcpy(v, l->v, l->n * sizeof(*v));
	qsort(v, l->n, sizeof(*v), cmp_rows);
	*out = v;
	*n = l->n;
	return 0;
}

static void usage(FILE *f)
{
	fputs(
	    "Usage: partalign check [options] [DEVICE...]\n"
	    "\n"
	    "Check the alignment of every partition (and of whole devices used\n"
	    "without a partition table) of the host, or of the DEVICEs named.\n"
	    "Reads sysfs and the udev database only, unless --probe.  On a terminal\n"
	    "the table fits 80 columns and starts are in sectors; piped, it has all\n"
	    "of its columns and starts in bytes.\n"
	    "\n"
	    "Options:\n"
	    "  -a, --align SIZE      policy grain (default 2MiB; units s, B, KiB, MiB"
	    "...)\n"
	    "  -p, --probe           also read the on-disk tables and signatures "
	    "(libblkid)\n"
	    "      --asm             the Oracle ASM disks by disk group (headers read)\n"
	    "  -J, --json            JSON output\n"
	    "  -P, --pairs           KEY=\"value\" output\n"
	    "  -r, --raw             raw output\n"
	    "  -n, --noheadings      no column headings\n"
	    "  -b, --bytes           sizes and starts in bytes in the table\n"
	    "  -t, --topology        the topology columns (sector sizes, I/O sizes, "
	    "offsets)\n"
	    "  -o, --output LIST     columns to print (+LIST appends to the defaults)\n"
	    "      --sysroot DIR     audit the devices saved in DIR by 'partalign dump'\n"
	    "                        (sys/, run/udev/data, proc/) instead of this host\n"
	    "      --list-columns    list the columns and exit\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Exit status: 0 all aligned, 4 misaligned, 8 operational error, 16 usage\n"
	    "error, 32 an ASM disk group at risk (OR-ed).  See partalign-check(8).\n",
	    f);
}

/* The devices named on the command line, or all, in display order. */
static int select_rows(const struct pa_devlist *l, const char *root, char **names,
		       int nnames, struct check_pick **rows, size_t *nrows, int *status)
{
	const struct pa_dev **ordered = NULL;
	bool *want = NULL;
	size_t n = 0, i, k = 0;
	int a, rc;

	rc = order_devices(l, &ordered, &n);
	if (rc < 0)
		return rc;
	want = calloc(l->n ? l->n : 1, sizeof(*want));
	*rows = calloc(n ? n : 1, sizeof(**rows));
	if (!want || !*rows) {
		rc = -ENOMEM;
		goto out;
	}
	for (a = 0; a < nnames; a++) {
		struct pa_dev *d = NULL;

		rc = scan_lookup_root(l, root, names[a], &d);
		if (rc == -ENODEV && root) {
			msg_err(names[a], 0, "not a device partalign checks in %s", root);
		} else if (rc == -ENOTBLK) {
			msg_err(names[a], 0, "not a block device");
		} else if (rc == -ENODEV) {
			msg_err(names[a], 0,
				"not a device partalign checks "
				"(unbound loop, ram or zram, or empty)");
		} else if (rc < 0) {
			msg_err(names[a], -rc, "cannot check");
		}
		if (rc < 0) {
			*status |= PA_EXIT_ERROR;
			continue;
		}
		for (i = 0; i < l->n; i++)
			if (l->v[i] == d || l->v[i]->disk == d)
				want[i] = true;
	}
	rc = 0;
	for (i = 0; i < n; i++) {
		const struct pa_dev *d = ordered[i];
		size_t idx;

		if (nnames) {
			for (idx = 0; l->v[idx] != d; idx++)
				;
			if (!want[idx])
				continue;
		}
		/* a whole device holding partitions is shown through them; one
		   with an unfinished move has a row of its own that says so */
		if (!d->is_path && !device_is_checked(d) && !disk_moving(d))
			continue;
		if (d->is_path && d->kind == PA_KIND_PART)
			continue;
		(*rows)[k].d = d;
		(*rows)[k].checked =
		    device_is_checked(d) && !(device_is_whole(d) && disk_moving(d));
		k++;
	}
	*nrows = k;
out:
	free(ordered);
	free(want);
	return rc;
}

static int rd_pread(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_zero(*(int *)ctx, buf, len, off);
}

/* --probe: a damaged GPT copy or one whose backup is off the disk's end, said once per
 * disk; plan says what fix would do. */
static void warn_gpt_damage(const struct pa_dev *w)
{
	struct label_health h;
	struct pa_table t = {0};
	char dmg[256];
	int fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return; /* scan_probe_disk said why */
	if (label_health(rd_pread, &fd, w->topo.logical, w->size, &h) == 0) {
		t.pmbr = h.pmbr;
		t.gpt_primary = (enum pa_gpt_copy)h.primary;
		t.gpt_backup = (enum pa_gpt_copy)h.backup;
		t.gpt_alternate_lba = h.alternate_lba;
		t.disk_size = w->size;
		t.logical = w->topo.logical;
		if (plan_gpt_end(&t) == PA_GPT_END_SHRUNK)
			t.gpt_backup = PA_GPT_OK; /* not damage: a shrunk disk */
		if (plan_table_damage(&t, dmg, sizeof(dmg)))
			msg_warn(w->path,
				 "%s ('partalign plan %s' says what fix would do)", dmg,
				 w->path);
		if (h.other_gpt)
			msg_warn(w->path,
				 "a valid GPT header is on the disk too (%s), beside its "
				 "dos table: read as dos, as the kernel and libparted "
				 "read it",
				 h.other_gpt == 1 ? "sector 1" : "the last sector");
	}
	close(fd);
}

/* --probe the whole devices named (or all), not their multipath paths. */
static int probe_selected(struct pa_devlist *l, char **names, int nnames,
			  struct pa_diags *diags)
{
	size_t nwholes = l->n, i;
	int a, rc = 0;

	for (i = 0; i < nwholes && rc == 0; i++) {
		struct pa_dev *w = l->v[i];
		bool named = nnames == 0;

		if (!device_is_whole(w) || w->is_path)
			continue;
		for (a = 0; a < nnames && !named; a++) {
			struct pa_dev *d;

			named =
			    scan_lookup(l, names[a], &d) == 0 && (d == w || d->disk == w);
		}
		if (named)
			rc = scan_probe_disk(l, w, diags);
		if (named && rc == 0)
			warn_gpt_damage(w);
	}
	return rc;
}

struct check_opts {
	struct pa_scan_opts so;
	bool probe, topology, asm_view;
	struct out_opts oo;
	struct pa_grain grain;
};

/* The options; -1 to go on, else the exit status to return at once. */
static int check_parse(int argc, char **argv, struct check_opts *co)
{
	enum { OPT_LIST_COLUMNS = 256, OPT_SYSROOT, OPT_ASM };
	static const struct option longopts[] = {
	    {"align", required_argument, NULL, 'a'},
	    {"probe", no_argument, NULL, 'p'},
	    {"json", no_argument, NULL, 'J'},
	    {"pairs", no_argument, NULL, 'P'},
	    {"raw", no_argument, NULL, 'r'},
	    {"noheadings", no_argument, NULL, 'n'},
	    {"bytes", no_argument, NULL, 'b'},
	    {"topology", no_argument, NULL, 't'},
	    {"output", required_argument, NULL, 'o'},
	    {"list-columns", no_argument, NULL, OPT_LIST_COLUMNS},
	    {"sysroot", required_argument, NULL, OPT_SYSROOT},
	    {"asm", no_argument, NULL, OPT_ASM},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "a:pJPrnbto:h", longopts, NULL)) != -1) {
		if (out_parse_opt(c, optarg, &co->oo))
			continue;
		switch (c) {
		case 'a':
			if (!cli_parse_grain(optarg, &co->grain))
				return PA_EXIT_USAGE;
			break;
		case 'p':
			co->probe = true;
			break;
		case 't':
			co->topology = true;
			break;
		case OPT_LIST_COLUMNS:
			out_list_columns(columns, sizeof(columns) / sizeof(columns[0]));
			return PA_EXIT_OK;
		case OPT_SYSROOT:
			co->so.root = optarg;
			break;
		case OPT_ASM:
			co->asm_view = true;
			break;
		default:
			return cli_usage(usage, c == 'h');
		}
	}
	if (co->so.root && co->probe) {
		/* a dump holds no device contents, and its devices are not this host's */
		msg_err(NULL, 0,
			"--probe reads the devices themselves: it cannot be used with "
			"--sysroot");
		return PA_EXIT_USAGE;
	}
	return -1;
}

/* The columns: -o, else the defaults of the format and the terminal. */
static int check_columns(struct check_opts *co, int *sel, size_t *nsel)
{
	const int *defaults;
	size_t ndefaults;

#define DEFAULTS(v) (defaults = (v), ndefaults = sizeof(v) / sizeof((v)[0]))
	out_detect_terminal(&co->oo);
	if (co->asm_view && !co->topology && co->oo.format != OUT_JSON &&
	    check_asm_default_columns(&co->oo) < 0)
		return -1;
	if (co->topology)
		DEFAULTS(topology_defaults);
	else if (co->oo.format == OUT_JSON)
		DEFAULTS(json_defaults);
	else if (co->oo.format != OUT_TABLE)
		DEFAULTS(script_defaults);
	else if (co->oo.terminal)
		DEFAULTS(terminal_defaults);
	else
		DEFAULTS(table_defaults);
#undef DEFAULTS
	return out_select(&co->oo, columns, sizeof(columns) / sizeof(columns[0]),
			  defaults, ndefaults, sel, nsel);
}

/* One line per row, each judged; the exit status bits of what was found. */
static int check_rows(const struct check_opts *co, const struct pa_devlist *l,
		      const struct pa_asm_audit *audit, struct libscols_table *tb,
		      const struct check_pick *rows, size_t nrows, const int *sel,
		      size_t nsel)
{
	struct row *r = malloc(sizeof(*r));
	int status = PA_EXIT_OK;
	size_t i;

	if (!r) {
		msg_err(NULL, ENOMEM, "cannot create the output table");
		return PA_EXIT_ERROR;
	}
	for (i = 0; i < nrows; i++) {
		struct libscols_line *ln;
		char stale[512];

		r->d = rows[i].d;
		r->checked = rows[i].checked;
		r->asmr = asm_audit_row(audit, r->d);
		status |= r->asmr ? r->asmr->exit : 0;
		r->reason[0] = '\0';
		memset(&r->c, 0, sizeof(r->c));
		r->fs = layers_check_fs(r->d, r->fs_reason, sizeof(r->fs_reason), NULL, 0,
					&r->fs_cl);
		if (r->fs == PA_VERDICT_MISALIGNED)
			status |= PA_EXIT_MISALIGNED;
		if (r->checked) {
			align_check_dev(r->d, &co->grain, &r->c);
			/* a stacked dm device whose layers are known: at its place */
			if (layers_check(l, r->d, &co->grain, &r->c) < 0) {
				msg_err(r->d->path, ENOMEM, "cannot judge the stack");
				status |= PA_EXIT_ERROR;
			}
			status |= align_check_exit(&r->c);
		}
		row_reason(r);
		if (device_udev_stale(r->d, stale, sizeof(stale)) > 0)
			msg_warn(r->d->path, "%s", stale);
		ln = scols_table_new_line(tb, NULL);
		if (!ln || fill_line(&co->oo, ln, sel, nsel, r) != 0) {
			msg_err(NULL, ENOMEM, "cannot fill the output table");
			status |= PA_EXIT_ERROR;
			break;
		}
	}
	free(r);
	return status;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts co = {.grain = PA_GRAIN_DEFAULT};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0};
	struct pa_asm_audit audit = {0};
	struct libscols_table *tb = NULL;
	struct check_pick *rows = NULL;
	size_t nrows = 0, nsel = 0;
	int sel[OUT_MAXCOLS];
	int status = PA_EXIT_OK;
	int rc;

	rc = check_parse(argc, argv, &co);
	if (rc >= 0)
		return rc;
	if (check_columns(&co, sel, &nsel) < 0)
		return PA_EXIT_USAGE;
	/* thousands of rows to a pipe or file: a few large writes */
	if (!co.oo.terminal)
		setvbuf(stdout, NULL, _IOFBF, 64 * 1024);

	if (optind < argc) {
		/* named devices: scan only them and their neighbourhood */
		co.so.names = argv + optind;
		co.so.nnames = (size_t)(argc - optind);
	}
	rc = scan_devices(&co.so, &devs, &diags);
	if (rc == -ENOENT && co.so.root) {
		msg_err(co.so.root, 0, "not a partalign dump (no sys/class/block in it)");
		status |= PA_EXIT_ERROR;
		goto out;
	} else if (rc < 0) {
		msg_err(co.so.root, -rc, "cannot scan block devices");
		status |= PA_EXIT_ERROR;
		goto out;
	}
	if (co.probe)
		rc = probe_selected(&devs, argv + optind, argc - optind, &diags);
	if (rc == 0 && (co.probe || co.asm_view))
		rc = check_asm_read(&devs, co.so.root, &audit, &diags);
	status |= msg_diags(&diags);
	if (rc < 0) {
		msg_err(NULL, -rc, "cannot probe devices");
		status |= PA_EXIT_ERROR;
		goto out;
	}
	/* before the rows: a move adds the disk's row and its hidden partitions'
	   (the host's journals say nothing about the devices of a dump) */
	status |= cli_move_states(&devs, argv + optind, argc - optind, !co.so.root);
	rc = select_rows(&devs, co.so.root, argv + optind, argc - optind, &rows, &nrows,
			 &status);
	if (rc == 0 && co.asm_view)
		rc = check_asm_select(&devs, &audit, co.so.root, argv + optind,
				      argc - optind, &rows, &nrows);
	if (rc < 0) {
		msg_err(NULL, -rc, "cannot list devices");
		status |= PA_EXIT_ERROR;
		goto out;
	}
	tb = out_table_new(&co.oo, "devices", columns, sel, nsel);
	if (!tb) {
		msg_err(NULL, ENOMEM, "cannot create the output table");
		status |= PA_EXIT_ERROR;
		goto out;
	}
	rc = check_rows(&co, &devs, &audit, tb, rows, nrows, sel, nsel);
	status |= rc;
	if (!(rc & PA_EXIT_ERROR))
		status |= out_print(tb);
out:
	scols_unref_table(tb);
	free(rows);
	asm_audit_free(&audit);
	diags_free(&diags);
	devlist_free(&devs);
	return status;
}
