/*
 * partalign rules: the udev rules that give Oracle ASM its disks at
 * /dev/oracleasm/NAME with the right owner, group and mode.
 *
 * Reads the map (--disk, --map), scans the host, probes each named device
 * read-only for signatures, and lets the core choose a key per device and
 * refuse what cannot work.  Nothing is written unless every entry is good.
 * The file goes to a temporary file in the target directory, is fsynced and
 * renamed into place, and the directory is fsynced; unchanged content is not
 * rewritten.  Then udev reloads, the named devices get a change event, and
 * the links are checked -- except with --root or in a chroot, where the rules
 * take effect at the next boot of the target.  --from-asm makes the map from
 * the Oracle ASM disk headers (rules-fromasm.c).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd-rules.h"
#include "cli/rules-fromasm.h"
#include "cli/rules-warn.h"
#include "core/exitcodes.h"
#include "core/movestate.h"
#include "core/rules.h"
#include "scan/ids.h"
#include "scan/scan.h"
#include "shared/fileio.h"
#include "shared/spawn.h"
#include "shared/sys.h"

/* --quiet: no progress lines on stdout (provision and scripts); errors still on stderr */
static bool quiet;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

struct opts {
	enum rules_match match;
	const char *owner;
	const char *group;
	char mode[8];
	const char *output;
	const char *root; /* NULL: the running system */
	bool dry_run;
	bool force;
	bool no_reload;
	bool from_asm; /* the map from the ASM headers of @devices (all: none) */
	char **devices;
	size_t ndevices;
	struct msg_log *log;	    /* a caller's (provision): the errors of the run */
	struct rules_origin origin; /* --map, --disk, provision: for the header */
};

static void usage(FILE *f)
{
	fputs(
	    "Usage: partalign rules [options] --disk NAME=DEVICE... | --map FILE\n"
	    "       partalign rules [options] --from-asm [DEVICE...]\n"
	    "\n"
	    "Write udev rules that create /dev/oracleasm/NAME for each Oracle ASM disk,\n"
	    "owned by OWNER:GROUP with MODE, keyed on an ID that survives reboots,\n"
	    "path changes and re-scans.  DEVICE is a /dev path, wwn:ID, serial:ID or\n"
	    "partuuid:UUID (wwn: and serial: take a -partN suffix).\n"
	    "\n"
	    "Options:\n"
	    "  -d, --disk NAME=DEVICE  name a device (repeatable)\n"
	    "  -m, --map FILE          lines 'name device [owner [group [mode]]]', # "
	    "comments\n"
	    "      --from-asm          name the ASM disks (of DEVICEs, or all) by their\n"
	    "                          headers: ASMLib label, else ASM disk name\n"
	    "      --match KEY         auto (default), partuuid, serial, wwn or dm-uuid\n"
	    "      --owner USER        owner of the devices (default " RULES_DEFAULT_OWNER
	    ")\n"
	    "      --group GROUP       group of the devices (default " RULES_DEFAULT_GROUP
	    ")\n"
	    "      --mode MODE         mode of the devices (default " RULES_DEFAULT_MODE
	    ")\n"
	    "      --output FILE       rules file (default\n"
	    "                          " RULES_DEFAULT_OUTPUT ")\n"
	    "      --root DIR          write into the system mounted at DIR; no udev "
	    "reload\n"
	    "  -n, --dry-run           print a diff against the current file, then "
	    "the\n"
	    "                          warnings; write nothing\n"
	    "  -f, --force             accept a partition holding a filesystem, LVM or "
	    "md\n"
	    "                          signature (ASM will destroy it)\n"
	    "      --no-reload         do not reload udev, trigger or check the links\n"
	    "  -q, --quiet             no progress lines on stdout (errors still on "
	    "stderr)\n"
	    "  -h, --help              this text\n"
	    "\n"
	    "Exit status: 0 nothing changed, 1 rules written, 8 refused or failed,\n"
	    "16 usage error.  See partalign-rules(8).\n",
	    f);
}

/* ---- files ------------------------------------------------------------- */

/*
 * Atomic replace of @path (see file_tmp_open): the directory locked, a dead run's
 * temporaries removed, the new text renamed into place.  -errno; *what names the
 * failed step.
 */
static int write_atomic(const char *path, const char *text, const char **what)
{
	static const struct {
		const char *step, *what;
	} steps[] = {
	    {"open-dir", "cannot open its directory"},
	    {"lock", "cannot lock its directory"},
	    {"create", "cannot create a temporary file next to it"},
	    {"write", "cannot write the temporary file"},
	    {"sync", "cannot write the temporary file"},
	    {"rename", "cannot rename the temporary file into place"},
	    {"sync-dir", "cannot sync its directory"},
	};
	struct file_tmp t;
	size_t i;
	int rc = file_tmp_open(&t, path, 0644, FILE_TMP_LOCK);

	if (rc == 0) {
		rc = write_all(t.fd, text, strlen(text));
		if (rc < 0) {
			t.step = "write";
			file_tmp_abort(&t);
		} else {
			rc = file_tmp_publish(&t);
		}
	}
	*what = "cannot write it";
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (t.step && strcmp(t.step, steps[i].step) == 0)
			*what = steps[i].what;
	return rc;
}

/* ---- checks of one device --------------------------------------------- */

/* Each disk's unfinished move from udev's database, with a row for each
   partition it hides from the kernel (core/movestate.h). */
static int moving_rows(struct pa_devlist *l)
{
	size_t i, n = l->n;
	int rc = move_state_from_udev(l);

	for (i = 0; i < n && rc == 0; i++)
		if (device_is_whole(l->v[i]) && l->v[i]->move)
			rc = move_state_add_rows(l, l->v[i]);
	return rc;
}

/*
 * A path the kernel does not have that names a partition of a whole disk of
 * @l (which may have an unfinished move whose marker hides it): that disk,
 * and the partition's row in *@part when a move's partitions are known.
 */
static struct pa_dev *hidden_by_move(const struct pa_devlist *l, const char *path,
				     struct pa_dev **part)
{
	size_t i;

	*part = NULL;
	for (i = 0; i < l->n; i++) {
		struct pa_dev *w = l->v[i];
		size_t n = w->path ? strlen(w->path) : 0;
		const char *rest = path + n;

		if (l->v[i]->kernel_missing && l->v[i]->disk && l->v[i]->disk->move &&
		    l->v[i]->path && strcmp(l->v[i]->path, path) == 0) {
			*part = l->v[i];
			return l->v[i]->disk;
		}
		if (!device_is_whole(w) || !n || strncmp(path, w->path, n))
			continue;
		if (*rest == 'p')
			rest++;
		if (*rest && strspn(rest, "0123456789") == strlen(rest))
			return w;
	}
	return NULL;
}

static int resolve(const struct pa_devlist *l, const struct rules_entry *e,
		   struct pa_dev **out, struct pa_diags *diags)
{
	struct pa_dev *other = NULL;
	enum rules_sel sel;
	const char *v;
	int rc;

	if (rules_spec_parse(e->device, &sel, &v) < 0)
		return diag_add(diags, e->origin, 0, "bad device '%s'", e->device)
			   ?: -EINVAL;
	if (sel == RULES_SEL_PATH) {
		struct pa_dev *w = NULL;

		rc = scan_lookup(l, v, out);
		/* not there: a partition of a disk whose table hides it?  (its rows
		   are added to @l, which the caller owns) */
		if (rc == -ENOENT || rc == -ENODEV)
			w = hidden_by_move(l, v, out);
		if (w && !w->move && scan_probe_marker((struct pa_devlist *)l, w) < 0)
			return -ENOMEM;
		if (w && w->move && w->move->seen && (w = hidden_by_move(l, v, out)) &&
		    (!*out || (*out)->kernel_missing)) {
			if (*out)
				return 0; /* rules_set_add refuses it, naming the move */
			return diag_add(diags, v, 0,
					"its disk records an unfinished data move "
					"(partalign fix --move-data): finish it with "
					"'partalign resume %s' first",
					w->path)
				   ?: -EBUSY;
		}
		if (rc == -ENOTBLK)
			return diag_add(diags, v, 0, "not a block device (%s)", e->name)
				   ?: rc;
		if (rc == -ENODEV)
			return diag_add(
				   diags, v, 0,
				   "not found among the block devices of the host (%s)",
				   e->name)
				   ?: rc;
		if (rc < 0)
			return diag_add(diags, v, -rc, "cannot use it for %s", e->name)
				   ?: rc;
		return 0;
	}
	rc = rules_spec_find(l, sel, v, out, &other);
	if (rc == -ENODEV)
		return diag_add(
			   diags, e->device, 0,
			   "no device of the host has this ID (%s, %s); udev's database "
			   "must know it (see udevadm info)",
			   e->name, e->origin)
			   ?: rc;
	if (rc == -EEXIST)
		return diag_add(diags, e->device, 0,
				"matches both %s and %s (cloned VM disks?): cannot tell "
				"which one is %s",
				(*out)->path, other->path, e->name)
			   ?: rc;
	return rc;
}

/* The device must not be in use and, without --force, must hold no signature. */
static int check_contents(struct pa_dev *d, const struct rules_entry *e, bool force,
			  struct pa_diags *diags)
{
	char *sig = NULL, stale[512];
	const char *what;
	int rc;

	if (d->is_path)
		return 0; /* refused with a better reason when the rule is made */
	if (d->mountpoints) {
		char *nl = strchr(d->mountpoints, '\n');

		return diag_add(diags, d->path, 0,
				"is in use (mounted on %.*s): not giving it to ASM as %s",
				nl ? (int)(nl - d->mountpoints)
				   : (int)strlen(d->mountpoints),
				d->mountpoints, e->name)
			   ?: -EBUSY;
	}
	if (d->holders && !(d->kind == PA_KIND_MPATH && d->nparts))
		return diag_add(
			   diags, d->path, 0,
			   "is in use by %s (a device stacked on it): not giving it to "
			   "ASM as %s",
			   d->holders, e->name)
			   ?: -EBUSY;
	rc = scan_ids_probe(d, &sig);
	if (rc < 0)
		return diag_add(diags, d->path, -rc,
				"cannot open read-only to check it for signatures (%s)",
				e->name)
			   ?: rc;
	/* an ID a rule is written on must be the device's, not a stale udev entry's */
	if (device_udev_stale(d, stale, sizeof(stale)) > 0) {
		free(sig);
		return diag_add(diags, d->path, 0, "%s (ASM disk %s)", stale, e->name)
			   ?: -ESTALE;
	}
	what = sig && strcmp(sig, "oracleasm") != 0		  ? sig
	       : d->fstype && strcmp(d->fstype, "oracleasm") != 0 ? d->fstype
								  : NULL;
	if (what && !force) {
		rc =
		    diag_add(
			diags, d->path, 0,
			"holds data (signature: %s): ASM would destroy it; wipe it first "
			"(wipefs) or give --force to name it %s anyway",
			what, e->name)
			?: -EEXIST;
		free(sig);
		return rc;
	}
	if (what)
		msg_warn(d->path,
			 "holds data (signature: %s); --force: ASM will overwrite it",
			 what);
	free(sig);
	return 0;
}

/*
 * A PARTUUID rule needs the entry on the disk.  When the disk was read and
 * holds no partition table, the PARTUUID came from udev's database alone
 * (the table wiped since, the kernel's partitions left over): the rule would
 * match nothing once the kernel reads the disk again.
 */
static int check_partuuid(const struct rules_rule *r, const struct rules_entry *e,
			  struct pa_diags *diags)
{
	const struct pa_dev *d = r->dev;

	if (r->match != RULES_MATCH_PARTUUID || !d->ondisk_no_table || d->ondisk_uuid)
		return 0;
	return diag_add(diags, d->path, 0,
			"the udev database says PARTUUID %s, but its disk %s has no "
			"partition table libblkid can read: the PARTUUID is not on the "
			"device; restore the table (partalign restore) or check it with "
			"'sfdisk -d %s' (ASM disk %s)",
			r->value, d->disk->path, d->disk->path, e->name)
		   ?: -ENODATA;
}

/* ---- udev -------------------------------------------------------------- */

/* Its exit status (128 + signal), or -errno when it could not run. */
static int run(char *const argv[])
{
	struct spawn_result r;
	int rc = spawn((const char *const *)argv, 0, &r);

	return rc < 0 ? rc : r.status;
}

static bool account_id(const char *name, bool user, unsigned long *id)
{
	if (rules_numeric(name)) {
		*id = strtoul(name, NULL, 10);
		return true;
	}
	if (user) {
		struct passwd *pw = getpwnam(name);

		if (pw)
			*id = pw->pw_uid;
		return pw != NULL;
	} else {
		struct group *gr = getgrnam(name);

		if (gr)
			*id = gr->gr_gid;
		return gr != NULL;
	}
}

/* The link, its target, owner, group and mode as the rule asks. */
static int verify(struct msg_log *log, const struct rules_rule *r, bool silent)
{
	char link[PATH_MAX];
	unsigned long uid, gid, mode = strtoul(r->mode, NULL, 8);
	struct stat st;

	snprintf(link, sizeof(link), "/dev/%s/%s", RULES_LINK_DIR, r->name);
	if (lstat(link, &st) < 0) {
		if (!silent)
			msg_log_err(log, link, errno,
				    "missing after udev applied the rules (for %s)",
				    r->dev->path);
		return -ENOENT;
	}
	if (!S_ISLNK(st.st_mode)) {
		if (!silent)
			msg_log_err(log, link, 0,
				    "is not a symlink (ASMLib's filesystem?)");
		return -EEXIST;
	}
	if (stat(link, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    st.st_rdev != makedev(r->dev->major, r->dev->minor)) {
		if (!silent)
			msg_log_err(log, link, 0, "does not point to %s", r->dev->path);
		return -EEXIST;
	}
	if (!account_id(r->owner, true, &uid) || st.st_uid != uid) {
		if (!silent)
			msg_log_err(log, link, 0, "%s is owned by uid %u, not %s",
				    r->dev->path, (unsigned int)st.st_uid, r->owner);
		return -EPERM;
	}
	if (!account_id(r->group, false, &gid) || st.st_gid != gid) {
		if (!silent)
			msg_log_err(log, link, 0, "%s has group gid %u, not %s",
				    r->dev->path, (unsigned int)st.st_gid, r->group);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != mode) {
		if (!silent)
			msg_log_err(log, link, 0, "%s has mode %04o, not %s",
				    r->dev->path, (unsigned int)(st.st_mode & 07777),
				    r->mode);
		return -EPERM;
	}
	if (!silent)
		note("/dev/%s/%s -> %s: %s:%s %s\n", RULES_LINK_DIR, r->name,
		     r->dev->path, r->owner, r->group, r->mode);
	return 0;
}

/* Devices that held a link of the old file which the new one drops. */
static size_t dropped_links(const struct rules_set *s, const char *old, char **argv,
			    size_t max, char store[][64])
{
	char **names = NULL;
	size_t n = 0, i, j, k = 0;

	if (!old || rules_text_links(old, &names, &n) < 0)
		return 0;
	for (i = 0; i < n && k < max; i++) {
		char link[PATH_MAX];
		struct stat st;
		bool kept = false;

		for (j = 0; j < s->n; j++)
			kept |= strcmp(s->v[j].name, names[i]) == 0;
		snprintf(link, sizeof(link), "/dev/%s/%s", RULES_LINK_DIR, names[i]);
		if (kept || stat(link, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		snprintf(store[k], 64, "/sys/dev/block/%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		argv[k] = store[k];
		k++;
	}
	rules_strv_free(names, n);
	return k;
}

/* Reload, change events for the named devices, settle, check every link. */
static int apply_udev(struct msg_log *log, const struct rules_set *s, const char *old,
		      bool *triggered)
{
	char *reload[] = {"udevadm", "control", "--reload", NULL};
	char *settle[] = {"udevadm", "settle", "--timeout=60", NULL};
	size_t n = 0, i, max = s->n + 64;
	char **trigger = calloc(s->n + 64 + 4, sizeof(char *));
	char(*syspath)[64] = calloc(s->n + 64, 64);
	int rc, status = PA_EXIT_OK;

	if (!trigger || !syspath) {
		free(trigger);
		free(syspath);
		msg_log_err(log, NULL, ENOMEM, "udev");
		return PA_EXIT_ERROR;
	}
	rc = run(reload);
	if (rc != 0) {
		msg_warn(NULL,
			 "'udevadm control --reload' failed (%s%d): is systemd-udevd "
			 "running?  The rules apply when it starts",
			 rc < 0 ? "error " : "exit status ", rc < 0 ? -rc : rc);
		goto out;
	}
	trigger[n++] = "udevadm";
	trigger[n++] = "trigger";
	trigger[n++] = "--action=change";
	for (i = 0; i < s->n; i++) {
		snprintf(syspath[i], 64, "/sys/class/block/%s", s->v[i].dev->name);
		trigger[n++] = syspath[i];
	}
	n += dropped_links(s, old, trigger + n, max - s->n, syspath + s->n);
	trigger[n] = NULL;
	*triggered = true;
	rc = run(trigger);
	if (rc == 0)
		rc = run(settle);
	if (rc != 0) {
		msg_log_err(log, NULL, rc < 0 ? -rc : 0,
			    "udevadm trigger/settle failed%s",
			    rc > 0 ? " (see its messages)" : "");
		status = PA_EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < s->n; i++)
		if (verify(log, &s->v[i], false) < 0)
			status = PA_EXIT_ERROR;
out:
	free(trigger);
	free(syspath);
	return status;
}

/* ---- the command ------------------------------------------------------- */

static int build(const struct opts *o, const struct rules_map *map,
		 struct pa_devlist *devs, struct rules_set *set, struct pa_diags *diags)
{
	size_t i;
	int rc;

	for (i = 0; i < map->n; i++) {
		const struct rules_entry *e = &map->v[i];
		struct pa_dev *d = NULL;

		rc = resolve(devs, e, &d, diags);
		if (rc == 0)
			rc = check_contents(d, e, o->force, diags);
		if (rc == 0)
			rc = rules_set_add(set, d, o->match, e->name,
					   e->owner ? e->owner : o->owner,
					   e->group ? e->group : o->group,
					   e->mode ? e->mode : o->mode, diags);
		if (rc == 0)
			rc = check_partuuid(&set->v[set->n - 1], e, diags);
		if (rc == -ENOMEM)
			return rc;
	}
	if (diags->n == 0)
		rc = rules_set_check(set, devs, diags);
	return rc == -ENOMEM ? rc : 0;
}

enum {
	OPT_MATCH = 1000,
	OPT_OWNER,
	OPT_GROUP,
	OPT_MODE,
	OPT_OUTPUT,
	OPT_ROOT,
	OPT_NO_RELOAD,
	OPT_FROM_ASM,
};

static int parse(int argc, char **argv, struct opts *o, struct rules_map *map,
		 struct pa_diags *diags)
{
	static const struct option longopts[] = {
	    {"disk", required_argument, NULL, 'd'},
	    {"map", required_argument, NULL, 'm'},
	    {"match", required_argument, NULL, OPT_MATCH},
	    {"owner", required_argument, NULL, OPT_OWNER},
	    {"group", required_argument, NULL, OPT_GROUP},
	    {"mode", required_argument, NULL, OPT_MODE},
	    {"output", required_argument, NULL, OPT_OUTPUT},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"force", no_argument, NULL, 'f'},
	    {"no-reload", no_argument, NULL, OPT_NO_RELOAD},
	    {"from-asm", no_argument, NULL, OPT_FROM_ASM},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "d:m:nfqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->origin.disks = true;
			rc = rules_map_add_arg(map, optarg, diags);
			if (rc == -ENOMEM)
				return rc;
			break;
		case 'm': {
			char *text = NULL;

			rc = read_text(optarg, FILE_MAX, &text);
			if (rc < 0) {
				msg_err(optarg, rc == -EILSEQ ? 0 : -rc,
					rc == -EILSEQ ? "holds a NUL byte: not a map file"
						      : "cannot read the map");
				return -EINVAL;
			}
			rc = rules_map_parse(map, text, optarg, diags);
			free(text);
			if (!o->origin.nmaps++)
				o->origin.map = optarg;
			if (rc == -ENOMEM)
				return rc;
			break;
		}
		case OPT_MATCH:
			if (rules_match_parse(optarg, &o->match) < 0) {
				msg_err(NULL, 0,
					"--match %s: expected auto, partuuid, serial, "
					"wwn or dm-uuid",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_OWNER:
		case OPT_GROUP:
			if (!rules_account_is_valid(optarg)) {
				msg_err(NULL, 0, "--%s %s: not a valid name",
					c == OPT_OWNER ? "owner" : "group", optarg);
				return -EINVAL;
			}
			*(c == OPT_OWNER ? &o->owner : &o->group) = optarg;
			break;
		case OPT_MODE:
			if (!rules_mode_normalize(optarg, o->mode)) {
				msg_err(
				    NULL, 0,
				    "--mode %s: expected 3 or 4 octal digits, e.g. 0660",
				    optarg);
				return -EINVAL;
			}
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_NO_RELOAD:
			o->no_reload = true;
			break;
		case OPT_FROM_ASM:
			o->from_asm = o->origin.asm_headers = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc && !o->from_asm) {
		msg_err(NULL, 0,
			"unexpected argument '%s' (name devices with --disk NAME=DEVICE)",
			argv[optind]);
		return -EINVAL;
	}
	o->devices = argv + optind;
	o->ndevices = (size_t)(argc - optind);
	if (diags->n)
		return -EINVAL;
	if (o->from_asm && map->n) {
		msg_err(NULL, 0,
			"--from-asm makes the map itself: not with --disk or --map");
		return -EINVAL;
	}
	if (rules_map_check_names(map, diags) < 0)
		return -EINVAL;
	if (map->n == 0 && !o->from_asm) {
		msg_err(NULL, 0, "no disks: give --disk NAME=DEVICE or --map FILE");
		return -EINVAL;
	}
	if (o->root && (o->output[0] != '/' || !o->root[0])) {
		msg_err(NULL, 0,
			"--root needs an absolute --output path inside the target");
		return -EINVAL;
	}
	return 0;
}

/* After writing: make udev apply the rules here, or say why not. */
static int apply(const struct opts *o, const struct rules_set *set, const char *old)
{
	bool triggered = false;
	int ch;

	if (o->no_reload) {
		note("--no-reload: udev not reloaded; the rules apply at the next "
		     "'udevadm control --reload' and change event, or boot\n");
		return PA_EXIT_OK;
	}
	if (o->root) {
		note("--root %s: the rules apply at the next boot of that system\n",
		     o->root);
		return PA_EXIT_OK;
	}
	ch = sys_chroot_state();
	if (ch != 0) {
		note("%s: udev not triggered; the rules apply at the next boot\n",
		     ch > 0 ? "running in a chroot"
			    : "cannot tell whether this is a chroot (no /proc)");
		return PA_EXIT_OK;
	}
	return apply_udev(o->log, set, old, &triggered);
}

/* What may keep the rules from working; nothing here stops them being written. */
static void warn_all(const struct opts *o, const struct rules_set *set,
		     const char *target)
{
	rules_warn_accounts(set, o->root);
	rules_warn_oracle_drivers(o->root);
	rules_warn_claims(set, o->root, target);
}

/* The command after its options: the map's rules written and applied; exit bits. */
static int run_map(const struct opts *op, const struct rules_map *given)
{
	const struct opts o = *op;
	struct rules_map asm_map = {0};
	const struct rules_map *map = o.from_asm ? &asm_map : given;
	struct pa_scan_opts so = {0};
	struct rules_set set = {0};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0}, scandiags = {0};
	char *target = NULL, *text = NULL, *old = NULL, *mapreal = NULL;
	struct stat st;
	const char *what;
	int status = PA_EXIT_OK, rc;

	target = rules_rooted(o.root, o.output);
	if (!target)
		goto nomem;

	/* devices the scan cannot read are only a problem when named: resolve() says so
	 */
	rc = scan_devices(&so, &devs, &scandiags);
	if (rc < 0) {
		msg_log_err(o.log, NULL, -rc, "cannot scan the block devices");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (o.from_asm &&
	    (status = rules_from_asm(&devs, o.devices, o.ndevices, &asm_map, o.log)))
		goto out;
	/* a partition an unfinished move hides is named, so that it is refused */
	if (moving_rows(&devs) < 0 || build(&o, map, &devs, &set, &diags) < 0)
		goto nomem;
	if (diags.n) {
		msg_log_diags(o.log, &diags);
		/* a kickstart chroot often lacks /run: say why IDs may be missing */
		if (access("/run/udev/data", F_OK) != 0)
			msg_warn(
			    NULL,
			    "udev's database (/run/udev/data) is not here: only "
			    "PARTUUID (read with libblkid) and DM_UUID keys are known; "
			    "bind-mount /run or run partalign on the installed system");
		msg_log_err(o.log, target, 0, "not written: fix the errors above");
		status = PA_EXIT_ERROR;
		goto out;
	}
	/* the header names the map by its real path: the same file, the same text */
	set.origin = o.origin;
	if (o.origin.map && (mapreal = realpath(o.origin.map, NULL)))
		set.origin.map = mapreal;
	text = rules_text(&set);
	if (!text)
		goto nomem;

	if (lstat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
		msg_log_err(
		    o.log, target, 0,
		    "exists and is not a regular file (a link masking the rules?): "
		    "not replacing it");
		status = PA_EXIT_ERROR;
		goto out;
	}
	rc = read_text(target, FILE_MAX, &old);
	if (rc < 0 && rc != -ENOENT) {
		msg_log_err(o.log, target, -rc, "cannot read the current rules");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (o.dry_run) {
		/* the rules once, as the diff (a new file: every line "+"), then
		   the warnings and the verdict: what a terminal still shows */
		char *diff = rules_diff(old, text, target, target);

		if (!diff)
			goto nomem;
		fputs(diff, stdout);
		fflush(stdout);
		warn_all(&o, &set, target);
		status = *diff ? PA_EXIT_CHANGED : PA_EXIT_OK;
		fprintf(stderr, "%s: %s: %s (dry run)\n", PA_PROG, target,
			*diff ? "would be written" : "unchanged");
		free(diff);
		goto out;
	}
	warn_all(&o, &set, target);
	if (old && strcmp(old, text) == 0) {
		size_t i;
		bool ok = true;

		note("%s: unchanged\n", target);
		if (o.no_reload || o.root || in_chroot())
			goto out;
		for (i = 0; i < set.n; i++)
			ok &= verify(o.log, &set.v[i], true) == 0;
		if (!ok) {
			note("some links are missing or wrong: applying the rules "
			     "again\n");
			bool triggered = false;

			status = apply_udev(o.log, &set, old, &triggered);
			if (triggered)
				status |= PA_EXIT_CHANGED;
		}
		goto out;
	}
	rc = write_atomic(target, text, &what);
	if (rc < 0) {
		msg_log_err(o.log, target, -rc, "%s", what);
		status = PA_EXIT_ERROR;
		goto out;
	}
	note("%s: written (%zu rule%s)\n", target, set.n, set.n == 1 ? "" : "s");
	status = PA_EXIT_CHANGED | apply(&o, &set, old);
	goto out;
nomem:
	msg_log_err(o.log, NULL, ENOMEM, "rules");
	status = PA_EXIT_ERROR;
out:
	free(target);
	free(text);
	free(old);
	rules_map_free(&asm_map);
	free(mapreal);
	rules_set_free(&set);
	devlist_free(&devs);
	diags_free(&diags);
	diags_free(&scandiags);
	return status;
}

static int flush_stdout(struct msg_log *log, int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_log_err(log, NULL, errno, "write error on stdout");
		status |= PA_EXIT_ERROR;
	}
	return status;
}

int rules_run(const struct rules_opts *ro, const struct rules_map *map)
{
	struct opts o = {
	    .match = ro->match,
	    .owner = ro->owner,
	    .group = ro->group,
	    .output = ro->output,
	    .root = ro->root,
	    .dry_run = ro->dry_run,
	    .no_reload = ro->no_reload,
	    .log = ro->log,
	    .origin = {.config = ro->config},
	};
	char *real = ro->config ? realpath(ro->config, NULL) : NULL;
	int status;

	if (real)
		o.origin.config = real;

	snprintf(o.mode, sizeof(o.mode), "%s", ro->mode);
	quiet = false;
	status = flush_stdout(o.log, run_map(&o, map));
	free(real);
	return status;
}

int cmd_rules(int argc, char **argv)
{
	struct opts o = {
	    .match = RULES_MATCH_AUTO,
	    .owner = RULES_DEFAULT_OWNER,
	    .group = RULES_DEFAULT_GROUP,
	    .mode = RULES_DEFAULT_MODE,
	    .output = RULES_DEFAULT_OUTPUT,
	};
	struct rules_map map = {0};
	struct pa_diags diags = {0};
	int status, rc;

	quiet = false;
	rc = parse(argc, argv, &o, &map, &diags);
	if (rc != 0) {
		msg_diags(&diags);
		status = rc > 0		 ? PA_EXIT_OK
			 : rc == -ENOMEM ? PA_EXIT_ERROR
					 : PA_EXIT_USAGE;
	} else {
		status = run_map(&o, &map);
	}
	rules_map_free(&map);
	diags_free(&diags);
	return flush_stdout(NULL, status);
}
