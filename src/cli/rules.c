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
 * take effect at the next boot of the target.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/exitcodes.h"
#include "core/rules.h"
#include "scan/ids.h"
#include "scan/scan.h"

extern char **environ;

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
};

/* Largest map or rules file read. */
#define FILE_MAX (4u << 20)

static void usage(FILE *f)
{
	fputs(
	    "Usage: partalign rules [options] --disk NAME=DEVICE... | --map FILE\n"
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
	    "  -n, --dry-run           print the file and a diff against the current "
	    "one\n"
	    "  -f, --force             accept a partition holding a filesystem, LVM or "
	    "md\n"
	    "                          signature (ASM will destroy it)\n"
	    "      --no-reload         do not reload udev, trigger or check the links\n"
	    "  -q, --quiet             no progress lines on stdout (errors still on "
	    "stderr)\n"
	    "  -h, --help              this text\n"
	    "\n"
	    "Exit status: 0 nothing changed, 1 rules written, 8 refused or failed,\n"
	    "16 usage error.  See partalign(8).\n",
	    f);
}

/* ---- files ------------------------------------------------------------- */

/* Whole file into *text (NUL-terminated); -ENOENT, -EFBIG, -EILSEQ (NUL byte). */
static int read_text(const char *path, char **text)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap + 1);
	int fd, rc = 0;

	*text = NULL;
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap >= FILE_MAX) {
				rc = -EFBIG;
				break;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (rc == 0 && memchr(buf, '\0', len))
		rc = -EILSEQ;
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Remove temporary files of an earlier run that died before its rename. */
static void remove_stale_temps(int dfd, const char *base)
{
	size_t bl = strlen(base);
	struct dirent *de;
	DIR *dir;
	int fd = dup(dfd);

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		const char *n = de->d_name;

		/* ".BASE.XXXXXX": never ends in ".rules", so udev never reads it */
		if (n[0] == '.' && strncmp(n + 1, base, bl) == 0 && n[1 + bl] == '.' &&
		    strlen(n + 2 + bl) == 6)
			unlinkat(dfd, n, 0);
	}
	closedir(dir);
}

/*
 * Atomic replace of @path: a temporary file in the same directory, written,
 * fsynced, renamed over @path, then the directory fsynced.  A crash leaves the
 * old file or the new one, never a part.  -errno; *what names the failed step.
 */
static int write_atomic(const char *path, const char *text, const char **what)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base, *slash = strrchr(path, '/');
	int dfd = -1, fd = -1, rc = 0;

	if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if (!dir[0])
			strcpy(dir, "/");
		base = slash + 1;
	} else {
		strcpy(dir, ".");
		base = path;
	}
	*what = "cannot open its directory";
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	*what = "cannot lock its directory";
	if (flock(dfd, LOCK_EX) < 0) {
		rc = -errno;
		goto out;
	}
	remove_stale_temps(dfd, base);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base) >=
	    sizeof(tmp)) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	*what = "cannot create a temporary file next to it";
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	*what = "cannot write the temporary file";
	if (fchmod(fd, 0644) < 0 || (rc = write_all(fd, text, strlen(text))) < 0 ||
	    fsync(fd) < 0) {
		rc = rc ? rc : -errno;
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		rc = -errno;
		goto fail;
	}
	fd = -1;
	*what = "cannot rename the temporary file into place";
	if (rename(tmp, path) < 0) {
		rc = -errno;
		goto fail;
	}
	*what = "cannot sync its directory";
	if (fsync(dfd) < 0)
		rc = -errno;
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	close(dfd);
	return rc;
}

/* "ROOT" + "PATH", PATH absolute. */
static char *rooted(const char *root, const char *path)
{
	char *s;

	if (!root)
		return strdup(path);
	if (asprintf(&s, "%s%s", root, path) < 0)
		return NULL;
	return s;
}

/* ---- checks of one device --------------------------------------------- */

static int resolve(const struct pa_devlist *l, const struct rules_entry *e,
		   struct pa_dev **out, struct pa_diags *diags)
{
	struct pa_dev *other = NULL;
	enum rules_sel sel;
	const char *v;
	int rc;

	if (rules_spec_parse(e->device, &sel, &v) < 0)
		return pa_diag_add(diags, e->origin, 0, "bad device '%s'", e->device)
			   ?: -EINVAL;
	if (sel == RULES_SEL_PATH) {
		rc = scan_lookup(l, v, out);
		if (rc == -ENOTBLK)
			return pa_diag_add(diags, v, 0, "not a block device (%s)",
					   e->name)
				   ?: rc;
		if (rc == -ENODEV)
			return pa_diag_add(
				   diags, v, 0,
				   "not found among the block devices of the host (%s)",
				   e->name)
				   ?: rc;
		if (rc < 0)
			return pa_diag_add(diags, v, -rc, "cannot use it for %s", e->name)
				   ?: rc;
		return 0;
	}
	rc = rules_spec_find(l, sel, v, out, &other);
	if (rc == -ENODEV)
		return pa_diag_add(
			   diags, e->device, 0,
			   "no device of the host has this ID (%s, %s); udev's database "
			   "must know it (see udevadm info)",
			   e->name, e->origin)
			   ?: rc;
	if (rc == -EEXIST)
		return pa_diag_add(
			   diags, e->device, 0,
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

		return pa_diag_add(
			   diags, d->path, 0,
			   "is in use (mounted on %.*s): not giving it to ASM as %s",
			   nl ? (int)(nl - d->mountpoints) : (int)strlen(d->mountpoints),
			   d->mountpoints, e->name)
			   ?: -EBUSY;
	}
	if (d->holders && !(d->kind == PA_KIND_MPATH && d->nparts))
		return pa_diag_add(
			   diags, d->path, 0,
			   "is in use by %s (a device stacked on it): not giving it to "
			   "ASM as %s",
			   d->holders, e->name)
			   ?: -EBUSY;
	rc = scan_ids_probe(d, &sig);
	if (rc < 0)
		return pa_diag_add(
			   diags, d->path, -rc,
			   "cannot open read-only to check it for signatures (%s)",
			   e->name)
			   ?: rc;
	/* an ID a rule is written on must be the device's, not a stale udev entry's */
	if (pa_dev_udev_stale(d, stale, sizeof(stale)) > 0) {
		free(sig);
		return pa_diag_add(diags, d->path, 0, "%s (ASM disk %s)", stale, e->name)
			   ?: -ESTALE;
	}
	what = sig && strcmp(sig, "oracleasm") != 0		  ? sig
	       : d->fstype && strcmp(d->fstype, "oracleasm") != 0 ? d->fstype
								  : NULL;
	if (what && !force) {
		rc =
		    pa_diag_add(
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
	return pa_diag_add(
		   diags, d->path, 0,
		   "the udev database says PARTUUID %s, but its disk %s has no "
		   "partition table libblkid can read: the PARTUUID is not on the "
		   "device; restore the table (partalign restore) or check it with "
		   "'sfdisk -d %s' (ASM disk %s)",
		   r->value, d->disk->path, d->disk->path, e->name)
		   ?: -ENODATA;
}

/* ---- warnings ---------------------------------------------------------- */

static bool numeric(const char *s)
{
	return strspn(s, "0123456789") == strlen(s);
}

static void warn_accounts(const struct rules_set *s, const char *root)
{
	char *passwd = NULL, *group = NULL, *pf = NULL, *gf = NULL;
	size_t i, j;

	if (root) {
		pf = rooted(root, "/etc/passwd");
		gf = rooted(root, "/etc/group");
		if (!pf || !gf)
			goto out;
		if (read_text(pf, &passwd) < 0)
			msg_warn(pf, "cannot read it: owners not checked");
		if (read_text(gf, &group) < 0)
			msg_warn(gf, "cannot read it: groups not checked");
	}
	for (i = 0; i < s->n; i++) {
		const struct rules_rule *r = &s->v[i];
		bool seen_o = false, seen_g = false;

		for (j = 0; j < i; j++) {
			seen_o |= strcmp(s->v[j].owner, r->owner) == 0;
			seen_g |= strcmp(s->v[j].group, r->group) == 0;
		}
		if (!seen_o && !numeric(r->owner) &&
		    (root ? passwd && !rules_dbfile_has(passwd, r->owner)
			  : !getpwnam(r->owner)))
			msg_warn(NULL,
				 "user %s does not exist on the target system (%s): udev "
				 "leaves "
				 "the devices owned by root until it does",
				 r->owner, root ? pf : "passwd");
		if (!seen_g && !numeric(r->group) &&
		    (root ? group && !rules_dbfile_has(group, r->group)
			  : !getgrnam(r->group)))
			msg_warn(
			    NULL,
			    "group %s does not exist on the target system (%s): udev "
			    "leaves the devices in group root until it does",
			    r->group, root ? gf : "group");
	}
out:
	free(passwd);
	free(group);
	free(pf);
	free(gf);
}

static bool exists_in(const char *root, const char *path, char **found)
{
	char *p = rooted(root, path);
	struct stat st;

	if (p && lstat(p, &st) == 0) {
		*found = p;
		return true;
	}
	free(p);
	return false;
}

/* ASMLib mounts its own filesystem on /dev/oracleasm; the filter driver labels disks
 * itself. */
static void warn_oracle_drivers(const char *root)
{
	static const char *const asmlib[] = {
	    "/usr/sbin/oracleasm", "/etc/sysconfig/oracleasm", "/etc/init.d/oracleasm",
	    "/sys/module/oracleasm", NULL};
	static const char *const afd[] = {"/etc/afd.conf", "/etc/oracleafd.conf",
					  "/sys/module/oracleafd", "/dev/oracleafd",
					  NULL};
	const char *const *p;
	char *found = NULL;

	for (p = asmlib; *p; p++) {
		if (root && strncmp(*p, "/sys/", 5) == 0)
			continue;
		if (exists_in(root, *p, &found)) {
			msg_warn(
			    found,
			    "ASMLib is present: it mounts its own filesystem on /dev/%s, "
			    "where these links also go; use ASMLib or udev rules, not "
			    "both",
			    RULES_LINK_DIR);
			free(found);
			break;
		}
	}
	for (p = afd; *p; p++) {
		if (root &&
		    (strncmp(*p, "/sys/", 5) == 0 || strncmp(*p, "/dev/", 5) == 0))
			continue;
		if (exists_in(root, *p, &found)) {
			msg_warn(found,
				 "the ASM Filter Driver is present: it labels and guards "
				 "disks "
				 "itself; udev rules for the same disks work against it");
			free(found);
			break;
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Other rules files that claim one of our links or match one of our devices. */
static void warn_claims(const struct rules_set *s, const char *root, const char *target)
{
	static const char *const dirs[] = {"/etc/udev/rules.d", "/run/udev/rules.d",
					   "/usr/lib/udev/rules.d", "/lib/udev/rules.d",
					   NULL};
	const char *tbase = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	struct stat seen[4];
	size_t nseen = 0, k;
	const char *const *d;

	for (d = dirs; *d; d++) {
		char *dir = rooted(root, *d);
		char **names = NULL;
		size_t n = 0, cap = 0, i;
		struct dirent *de;
		struct stat st;
		bool dup = false;
		DIR *dh;

		if (!dir || (root && strcmp(*d, "/run/udev/rules.d") == 0) ||
		    stat(dir, &st) < 0) {
			free(dir);
			continue;
		}
		/* /lib is often a link to /usr/lib */
		for (k = 0; k < nseen; k++)
			dup |= seen[k].st_dev == st.st_dev && seen[k].st_ino == st.st_ino;
		if (dup || !(dh = opendir(dir))) {
			free(dir);
			continue;
		}
		seen[nseen++] = st;
		while ((de = readdir(dh))) {
			size_t len = strlen(de->d_name);
			char **v;

			if (len < 7 || strcmp(de->d_name + len - 6, ".rules") != 0 ||
			    strcmp(de->d_name, tbase) == 0)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				v = realloc(names, cap * sizeof(*v));
				if (!v)
					break;
				names = v;
			}
			if (!(names[n] = strdup(de->d_name)))
				break;
			n++;
		}
		closedir(dh);
		if (n) /* names is NULL in a directory without other rules */
			qsort(names, n, sizeof(*names), cmp_str);
		for (i = 0; i < n; i++) {
			struct rules_claim *c = NULL;
			char *path = NULL, *text = NULL;
			size_t nc = 0, j;

			if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
				continue;
			if (read_text(path, &text) == 0 &&
			    rules_find_claims(text, s, &c, &nc) == 0) {
				for (j = 0; j < nc; j++) {
					const struct rules_rule *r = &s->v[c[j].rule];

					if (c[j].link)
						msg_warn(
						    NULL,
						    "%s:%zu also creates /dev/%s/%s: two "
						    "files fight over one link",
						    path, c[j].line, RULES_LINK_DIR,
						    r->name);
					else
						msg_warn(NULL,
							 "%s:%zu also matches %s=%s, the "
							 "device named %s here",
							 path, c[j].line,
							 rules_rule_key(r), r->value,
							 r->name);
				}
			}
			free(c);
			free(text);
			free(path);
		}
		rules_strv_free(names, n);
		free(dir);
	}
}

/* ---- udev -------------------------------------------------------------- */

static int run(char *const argv[])
{
	pid_t pid;
	int st, rc;

	rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (rc)
		return -rc;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* 1 in a chroot, 0 not, -errno when it cannot be told (no /proc). */
static int in_chroot(void)
{
	struct stat a, b;

	if (stat("/", &a) < 0 || stat("/proc/1/root", &b) < 0)
		return -errno;
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

static bool account_id(const char *name, bool user, unsigned long *id)
{
	if (numeric(name)) {
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
static int verify(const struct rules_rule *r, bool silent)
{
	char link[PATH_MAX];
	unsigned long uid, gid, mode = strtoul(r->mode, NULL, 8);
	struct stat st;

	snprintf(link, sizeof(link), "/dev/%s/%s", RULES_LINK_DIR, r->name);
	if (lstat(link, &st) < 0) {
		if (!silent)
			msg_err(link, errno,
				"missing after udev applied the rules (for %s)",
				r->dev->path);
		return -ENOENT;
	}
	if (!S_ISLNK(st.st_mode)) {
		if (!silent)
			msg_err(link, 0, "is not a symlink (ASMLib's filesystem?)");
		return -EEXIST;
	}
	if (stat(link, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    st.st_rdev != makedev(r->dev->major, r->dev->minor)) {
		if (!silent)
			msg_err(link, 0, "does not point to %s", r->dev->path);
		return -EEXIST;
	}
	if (!account_id(r->owner, true, &uid) || st.st_uid != uid) {
		if (!silent)
			msg_err(link, 0, "%s is owned by uid %u, not %s", r->dev->path,
				(unsigned int)st.st_uid, r->owner);
		return -EPERM;
	}
	if (!account_id(r->group, false, &gid) || st.st_gid != gid) {
		if (!silent)
			msg_err(link, 0, "%s has group gid %u, not %s", r->dev->path,
				(unsigned int)st.st_gid, r->group);
		return -EPERM;
	}
	if ((st.st_mode & 07777) != mode) {
		if (!silent)
			msg_err(link, 0, "%s has mode %04o, not %s", r->dev->path,
				(unsigned int)(st.st_mode & 07777), r->mode);
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
static int apply_udev(const struct rules_set *s, const char *old, bool *triggered)
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
		msg_err(NULL, ENOMEM, "udev");
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
		msg_err(NULL, rc < 0 ? -rc : 0, "udevadm trigger/settle failed%s",
			rc > 0 ? " (see its messages)" : "");
		status = PA_EXIT_ERROR;
		goto out;
	}
	for (i = 0; i < s->n; i++)
		if (verify(&s->v[i], false) < 0)
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
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "d:m:nfqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			rc = rules_map_add_arg(map, optarg, diags);
			if (rc == -ENOMEM)
				return rc;
			break;
		case 'm': {
			char *text = NULL;

			rc = read_text(optarg, &text);
			if (rc < 0) {
				msg_err(optarg, rc == -EILSEQ ? 0 : -rc,
					rc == -EILSEQ ? "holds a NUL byte: not a map file"
						      : "cannot read the map");
				return -EINVAL;
			}
			rc = rules_map_parse(map, text, optarg, diags);
			free(text);
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
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		msg_err(NULL, 0,
			"unexpected argument '%s' (name devices with --disk NAME=DEVICE)",
			argv[optind]);
		return -EINVAL;
	}
	if (diags->n)
		return -EINVAL;
	if (rules_map_check_names(map, diags) < 0)
		return -EINVAL;
	if (map->n == 0) {
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
	ch = in_chroot();
	if (ch != 0) {
		note("%s: udev not triggered; the rules apply at the next boot\n",
		     ch > 0 ? "running in a chroot"
			    : "cannot tell whether this is a chroot (no /proc)");
		return PA_EXIT_OK;
	}
	return apply_udev(set, old, &triggered);
}

/* The command after its options: the map's rules written and applied; exit bits. */
static int run_map(const struct opts *op, const struct rules_map *map)
{
	const struct opts o = *op;
	struct pa_scan_opts so = {0};
	struct rules_set set = {0};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0}, scandiags = {0};
	char *target = NULL, *text = NULL, *old = NULL;
	struct stat st;
	const char *what;
	int status = PA_EXIT_OK, rc;

	target = rooted(o.root, o.output);
	if (!target)
		goto nomem;

	/* devices the scan cannot read are only a problem when named: resolve() says so
	 */
	rc = scan_devices(&so, &devs, &scandiags);
	if (rc < 0) {
		msg_err(NULL, -rc, "cannot scan the block devices");
		status = PA_EXIT_ERROR;
		goto out;
	}
	if (build(&o, map, &devs, &set, &diags) < 0)
		goto nomem;
	if (diags.n) {
		msg_diags(&diags);
		/* a kickstart chroot often lacks /run: say why IDs may be missing */
		if (access("/run/udev/data", F_OK) != 0)
			msg_warn(
			    NULL,
			    "udev's database (/run/udev/data) is not here: only "
			    "PARTUUID (read with libblkid) and DM_UUID keys are known; "
			    "bind-mount /run or run partalign on the installed system");
		msg_err(target, 0, "not written: fix the errors above");
		status = PA_EXIT_ERROR;
		goto out;
	}
	text = rules_text(&set);
	if (!text)
		goto nomem;

	if (lstat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
		msg_err(target, 0,
			"exists and is not a regular file (a link masking the rules?): "
			"not replacing it");
		status = PA_EXIT_ERROR;
		goto out;
	}
	rc = read_text(target, &old);
	if (rc < 0 && rc != -ENOENT) {
		msg_err(target, -rc, "cannot read the current rules");
		status = PA_EXIT_ERROR;
		goto out;
	}
	warn_accounts(&set, o.root);
	warn_oracle_drivers(o.root);
	warn_claims(&set, o.root, target);

	if (o.dry_run) {
		char *diff = rules_diff(old, text, target, target);

		if (!diff)
			goto nomem;
		fputs(text, stdout);
		if (*diff) {
			printf("\n");
			fputs(diff, stdout);
		}
		status = *diff ? PA_EXIT_CHANGED : PA_EXIT_OK;
		fprintf(stderr, "%s: %s: %s (dry run)\n", PA_PROG, target,
			*diff ? "would be written" : "unchanged");
		free(diff);
		goto out;
	}
	if (old && strcmp(old, text) == 0) {
		size_t i;
		bool ok = true;

		note("%s: unchanged\n", target);
		if (o.no_reload || o.root || in_chroot() != 0)
			goto out;
		for (i = 0; i < set.n; i++)
			ok &= verify(&set.v[i], true) == 0;
		if (!ok) {
			note("some links are missing or wrong: applying the rules "
			     "again\n");
			bool triggered = false;

			status = apply_udev(&set, old, &triggered);
			if (triggered)
				status |= PA_EXIT_CHANGED;
		}
		goto out;
	}
	rc = write_atomic(target, text, &what);
	if (rc < 0) {
		msg_err(target, -rc, "%s", what);
		status = PA_EXIT_ERROR;
		goto out;
	}
	note("%s: written (%zu rule%s)\n", target, set.n, set.n == 1 ? "" : "s");
	status = PA_EXIT_CHANGED | apply(&o, &set, old);
	goto out;
nomem:
	msg_err(NULL, ENOMEM, "rules");
	status = PA_EXIT_ERROR;
out:
	free(target);
	free(text);
	free(old);
	rules_set_free(&set);
	pa_devlist_free(&devs);
	pa_diags_free(&diags);
	pa_diags_free(&scandiags);
	return status;
}

static int flush_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_err(NULL, errno, "write error on stdout");
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
	};

	snprintf(o.mode, sizeof(o.mode), "%s", ro->mode);
	quiet = false;
	return flush_stdout(run_map(&o, map));
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
	pa_diags_free(&diags);
	return flush_stdout(status);
}
