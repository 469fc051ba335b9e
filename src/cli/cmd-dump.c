/*
 * partalign dump DIR [DEVICE...]: save what the audit reads into a new
 * directory, for a bug report ("send us partalign dump") and for
 * check --sysroot DIR, which reads it in place of the host:
 *
 *   sys/class/block/NAME       the kernel's symlink, same text
 *   sys/dev/block/MAJ:MIN      the same
 *   sys/devices/...            each device's directory with only the files
 *                              the scan reads (scan_sysfs_attrs) and its
 *                              holders/ and slaves/ links; an md array's
 *                              md/dev-NAME/ member files and block link
 *   run/udev/data/bMAJ:MIN     udev's database entry
 *   proc/self/mountinfo, proc/swaps
 *   dm/MAJ:MIN                 each dm device's table, as dmsetup table prints it
 *                              (a crypt target's key as zeros)
 *   asm/MAJ:MIN                --asm: the Oracle ASM header blocks read as check
 *                              --asm reads them (core/asmhdr.h's text form)
 *   partalign-dump             the partalign version and kernel release
 *
 * It reads sysfs, /run and /proc and asks device-mapper for its tables; it
 * opens no block device and reads no device data, except with --asm the
 * first block (and the backup header) of the devices check --asm reads.  Devices the scan
 * skips (unbound loops, ram, empty drives) are not saved.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/asmhdr.h"
#include "core/exitcodes.h"
#include "scan/scan.h"
#include "shared/fileio.h"

static void usage(FILE *f)
{
	fputs("Usage: partalign dump [options] DIR [DEVICE...]\n"
	      "\n"
	      "Save what partalign check reads -- the sysfs attributes of the block\n"
	      "devices, their udev database entries, /proc/self/mountinfo, /proc/swaps\n"
	      "and the device-mapper tables -- into DIR, which must not exist or be\n"
	      "empty.  'partalign check --sysroot DIR' then audits the saved devices.\n"
	      "With DEVICEs, only they and their neighbourhood are saved.  No device\n"
	      "is opened and no device data is read, unless --asm.\n"
	      "\n"
	      "Options:\n"
	      "      --asm    also save the Oracle ASM header blocks, read-only, as\n"
	      "               check --asm reads them\n"
	      "  -h, --help   this text\n"
	      "\n"
	      "Exit status: 0 saved, 8 operational error, 16 usage error.\n",
	      f);
}

/* A new file @path holding @len bytes of @buf, its directory made first. */
static int put(const char *path, const char *buf, size_t len)
{
	char dir[PATH_MAX], *slash;
	int fd, rc;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		rc = mkdir_p(dir, 0755);
		if (rc < 0)
			return rc;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	rc = len ? write_all(fd, buf, len) : 0;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* Copy @src to @dst when @src can be read; a missing @src is no error. */
static int copy_if_present(const char *src, const char *dst)
{
	void *buf = NULL;
	size_t len = 0;
	/* sysfs attributes, udev entries and /proc files: far below this */
	int rc = read_file(src, 16u << 20, &buf, &len);

	if (rc < 0)
		return 0;
	rc = put(dst, buf, len);
	free(buf);
	return rc;
}

/* A symlink @dst with the text of symlink @src (none when @src is none). */
static int copy_link(const char *src, const char *dst)
{
	char link[PATH_MAX], dir[PATH_MAX], *slash;
	ssize_t n = readlink(src, link, sizeof(link) - 1);
	int rc;

	if (n <= 0)
		return 0;
	link[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", dst);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		rc = mkdir_p(dir, 0755);
		if (rc < 0)
			return rc;
	}
	return symlink(link, dst) < 0 ? -errno : 0;
}

/* holders/ or slaves/ of sysfs directory @src as the same links in @dst. */
static int copy_link_dir(const char *src, const char *dst)
{
	char s[PATH_MAX], d[PATH_MAX];
	struct dirent *de;
	DIR *dir = opendir(src);
	int rc;

	if (!dir)
		return 0;
	rc = mkdir_p(dst, 0755);
	while (rc == 0 && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(s, sizeof(s), "%s/%s", src, de->d_name);
		snprintf(d, sizeof(d), "%s/%s", dst, de->d_name);
		rc = copy_link(s, d);
	}
	closedir(dir);
	return rc;
}

#define JOIN(buf, ...)                                                                   \
	((size_t)snprintf(buf, sizeof(buf), __VA_ARGS__) < sizeof(buf) ? 0               \
								       : -ENAMETOOLONG)

/*
 * The member directories md/dev-NAME/ of md array directory @real: the
 * files the scan reads there and the "block" link to the member.
 */
static int copy_md_members(const char *out, const char *real)
{
	char src[PATH_MAX], dst[PATH_MAX];
	const char *const *a;
	struct dirent *de;
	DIR *dir;
	int rc;

	if ((rc = JOIN(src, "%s/md", real)) < 0)
		return rc;
	dir = opendir(src);
	if (!dir)
		return 0;
	while (rc == 0 && (de = readdir(dir))) {
		if (strncmp(de->d_name, "dev-", 4) != 0)
			continue;
		for (a = scan_md_member_attrs; *a && rc == 0; a++)
			if ((rc = JOIN(src, "%s/md/%s/%s", real, de->d_name, *a)) == 0 &&
			    (rc = JOIN(dst, "%s%s/md/%s/%s", out, real, de->d_name,
				       *a)) == 0)
				rc = copy_if_present(src, dst);
		if (rc == 0 &&
		    (rc = JOIN(src, "%s/md/%s/block", real, de->d_name)) == 0 &&
		    (rc = JOIN(dst, "%s%s/md/%s/block", out, real, de->d_name)) == 0)
			rc = copy_link(src, dst);
	}
	closedir(dir);
	return rc;
}

/*
 * The key of each crypt target in table @text ("START LEN crypt CIPHER KEY
 * ..." lines) overwritten with zeros, as dmsetup table prints it: the
 * kernel gives the volume key itself unless it is in the keyring
 * (":SIZE:TYPE:DESC", kept), and a dump goes into bug reports.
 */
static void mask_crypt_keys(char *text)
{
	char *line = text, *p, *end;
	int word;

	while (*line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		/* the fifth blank-separated word of a crypt line */
		for (p = line, word = 0; p < end && word < 4; word++) {
			if (word == 2 && (end - p < 6 || strncmp(p, "crypt ", 6) != 0))
				break;
			p += strcspn(p, " \n");
			p += strspn(p, " ");
		}
		if (word == 4 && p < end && *p != ':')
			for (; p < end && *p != ' '; p++)
				*p = '0';
		line = *end ? end + 1 : end;
	}
}

/* Everything the scan reads of device @d; *what names the failed step. */
static int dump_device(const char *out, const struct pa_dev *d, const char **what)
{
	char src[PATH_MAX], dst[PATH_MAX], real[PATH_MAX];
	const char *const *a;
	char *table = NULL;
	int rc;

	*what = "cannot save its sysfs directory";
	if ((rc = JOIN(src, "/sys/class/block/%s", d->name)) < 0 ||
	    (rc = JOIN(dst, "%s/sys/class/block/%s", out, d->name)) < 0)
		return rc;
	if (!realpath(src, real))
		return -errno;
	if ((rc = copy_link(src, dst)) < 0)
		return rc;
	if ((rc = JOIN(src, "/sys/dev/block/%u:%u", d->major, d->minor)) < 0 ||
	    (rc = JOIN(dst, "%s/sys/dev/block/%u:%u", out, d->major, d->minor)) < 0 ||
	    (rc = copy_link(src, dst)) < 0)
		return rc;
	for (a = scan_sysfs_attrs; *a; a++) {
		if ((rc = JOIN(src, "%s/%s", real, *a)) < 0 ||
		    (rc = JOIN(dst, "%s%s/%s", out, real, *a)) < 0 ||
		    (rc = copy_if_present(src, dst)) < 0)
			return rc;
	}
	if ((rc = JOIN(src, "%s/holders", real)) < 0 ||
	    (rc = JOIN(dst, "%s%s/holders", out, real)) < 0 ||
	    (rc = copy_link_dir(src, dst)) < 0)
		return rc;
	if ((rc = JOIN(src, "%s/slaves", real)) < 0 ||
	    (rc = JOIN(dst, "%s%s/slaves", out, real)) < 0 ||
	    (rc = copy_link_dir(src, dst)) < 0)
		return rc;

	if (d->kind == PA_KIND_MD && (rc = copy_md_members(out, real)) < 0)
		return rc;

	*what = "cannot save its udev database entry";
	if ((rc = JOIN(src, "/run/udev/data/b%u:%u", d->major, d->minor)) < 0 ||
	    (rc = JOIN(dst, "%s/run/udev/data/b%u:%u", out, d->major, d->minor)) < 0 ||
	    (rc = copy_if_present(src, dst)) < 0)
		return rc;

	if (strncmp(d->name, "dm-", 3) != 0)
		return 0;
	*what = "cannot read its device-mapper table";
	rc = scan_dm_table_text(d->major, d->minor, &table);
	if (rc < 0)
		return rc;
	mask_crypt_keys(table);
	*what = "cannot save its device-mapper table";
	if ((rc = JOIN(dst, "%s/dm/%u:%u", out, d->major, d->minor)) == 0)
		rc = put(dst, table, strlen(table));
	free(table);
	return rc;
}

/* --asm: asm/MAJ:MIN of each device whose header blocks were read. */
static int dump_asm(const char *out, struct pa_devlist *l)
{
	struct asmhdr_dump **dumps = NULL;
	struct pa_diags diags = {0};
	char dst[PATH_MAX], *text = NULL;
	size_t i, need;
	int status = PA_EXIT_OK, rc;

	rc = scan_asm_read(l, NULL, NULL, &dumps, &diags);
	status |= msg_diags(&diags);
	if (rc == 0 &&
	    ((rc = JOIN(dst, "%s/asm", out)) < 0 || (rc = mkdir_p(dst, 0755)) < 0))
		msg_err(dst, -rc, "cannot create it");
	for (i = 0; rc == 0 && i < l->n; i++) {
		if (!dumps[i])
			continue;
		need = asmhdr_dump_text(dumps[i], NULL, NULL, 0);
		text = malloc(need + 1);
		if (!text) {
			rc = -ENOMEM;
			break;
		}
		asmhdr_dump_text(dumps[i], NULL, text, need + 1);
		if ((rc = JOIN(dst, "%s/asm/%u:%u", out, l->v[i]->major,
			       l->v[i]->minor)) == 0 &&
		    (rc = put(dst, text, need)) < 0)
			msg_err(l->v[i]->path, -rc, "cannot save its ASM header blocks");
		free(text);
	}
	if (rc == -ENOMEM)
		msg_err(NULL, ENOMEM, "cannot read the ASM headers");
	scan_asm_dumps_free(dumps, l->n);
	diags_free(&diags);
	return status | (rc < 0 ? PA_EXIT_ERROR : 0);
}

static bool sysfs_gone(const struct pa_dev *d)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "/sys/class/block/%s", d->name);
	return access(p, F_OK) < 0 && errno == ENOENT;
}

/* DIR must be new or an empty directory; made when missing. */
static int prepare_dir(const char *dir)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT) {
			msg_err(dir, errno, "cannot use it for the dump");
			return -1;
		}
		rc = mkdir_p(dir, 0755);
		if (rc < 0)
			msg_err(dir, -rc, "cannot create it");
		return rc < 0 ? -1 : 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		msg_err(dir, 0, "exists and is not a directory");
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		msg_err(dir, errno, "cannot read it");
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			msg_err(
			    dir, 0,
			    "is not empty: the dump goes into a new or empty directory");
			rc = -1;
			break;
		}
	closedir(d);
	return rc;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"asm", no_argument, NULL, 'A'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool asm_blocks = false;
	struct pa_scan_opts so = {0};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0};
	char dst[PATH_MAX], *info = NULL;
	struct utsname un;
	const char *out, *what;
	int status = PA_EXIT_OK, c, rc;
	size_t i;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'A':
			asm_blocks = true;
			break;
		default:
			return cli_usage(usage, c == 'h');
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	out = argv[optind++];
	if (optind < argc) {
		so.names = argv + optind;
		so.nnames = (size_t)(argc - optind);
	}
	if (prepare_dir(out) < 0)
		return PA_EXIT_ERROR;

	rc = scan_devices(&so, &devs, &diags);
	status |= msg_diags(&diags);
	if (rc < 0) {
		msg_err(NULL, -rc, "cannot scan block devices");
		status |= PA_EXIT_ERROR;
		goto done;
	}
	for (i = 0; i < devs.n; i++) {
		rc = dump_device(out, devs.v[i], &what);
		if (rc < 0 && sysfs_gone(devs.v[i])) {
			/* removed since the scan (partx -d, a path lost): not this dump's
			 * fault */
			msg_warn(devs.v[i]->path, "removed during the dump: not saved");
		} else if (rc < 0) {
			msg_err(devs.v[i]->path, -rc, "%s", what);
			status |= PA_EXIT_ERROR;
		}
	}
	if (asm_blocks)
		status |= dump_asm(out, &devs);
	if (JOIN(dst, "%s/proc/self/mountinfo", out) < 0 ||
	    (rc = copy_if_present("/proc/self/mountinfo", dst)) < 0 ||
	    JOIN(dst, "%s/proc/swaps", out) < 0 ||
	    (rc = copy_if_present("/proc/swaps", dst)) < 0) {
		msg_err(out, rc < 0 ? -rc : ENAMETOOLONG, "cannot save the mount table");
		status |= PA_EXIT_ERROR;
	}
	if (uname(&un) < 0)
		snprintf(un.release, sizeof(un.release), "unknown");
	if (asprintf(&info, "partalign %s\nkernel %s\ndevices %zu\n", PACKAGE_VERSION,
		     un.release, devs.n) < 0 ||
	    JOIN(dst, "%s/partalign-dump", out) < 0 ||
	    (rc = put(dst, info, strlen(info))) < 0) {
		msg_err(out, rc < 0 ? -rc : ENOMEM, "cannot save partalign-dump");
		status |= PA_EXIT_ERROR;
	}
	free(info);
done:
	diags_free(&diags);
	devlist_free(&devs);
	return status;
}
