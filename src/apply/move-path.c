/*
 * Where a disk's move journal is: the one piece of the mover that
 * `partalign check` needs, kept apart from move.c so that the audit
 * program links it (and apply_disk_id) without libparted.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "apply/move.h"
#include "shared/fileio.h"
#include "shared/trust.h"

const char *move_journal_dir_default(void)
{
	const char *e = getenv("PARTALIGN_JOURNAL");

	return e && *e ? e : PA_STATEDIR "/journal";
}

const char *move_journal_dir(const char *dir)
{
	return dir ? dir : move_journal_dir_default();
}

char *move_journal_path(const char *dir, const struct pa_dev *whole)
{
	char *id = apply_disk_id(whole), *path = NULL;

	if (id && asprintf(&path, "%s/%s.journal", dir, id) < 0)
		path = NULL;
	free(id);
	return path;
}

int move_journal_find(const char *dir, const struct pa_dev *whole, char **path)
{
	const char *dirs[2] = {dir, move_journal_dir_default()};
	struct stat st;
	int i;

	for (i = 0; i < 2; i++) {
		char *p;

		if (i == 1 && strcmp(dirs[0], dirs[1]) == 0)
			break;
		p = move_journal_path(dirs[i], whole);
		if (!p)
			return -ENOMEM;
		/* lstat: a pointer to a journal on a file system not mounted still counts
		 */
		if (lstat(p, &st) == 0) {
			*path = p;
			return 1;
		}
		free(p);
	}
	return 0;
}

char *move_journal_file(const char *dir, const char *id, uint64_t move_id)
{
	char *path;

	if (asprintf(&path, "%s/%s-%016" PRIx64 ".journal", dir, id, move_id) < 0)
		return NULL;
	return path;
}

int move_journal_peek(const char *path, struct pa_journal *j)
{
	char *buf = malloc(PA_JOURNAL_HDR_MAX);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), rc;
	size_t n = 0;

	if (fd < 0 && errno == ELOOP)
		fd = open(path, O_RDONLY | O_CLOEXEC); /* a pointer */
	if (fd < 0)
		rc = -errno;
	else if (!buf)
		rc = -ENOMEM;
	else
		rc = pread_upto(fd, buf, PA_JOURNAL_HDR_MAX, 0, &n);
	if (rc == 0)
		rc = n > 0 ? journal_parse(buf, n, j) : -EBADMSG;
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* The move id in the header of the journal at @path; false when it is none of ours. */
static bool journal_move_id(const char *path, uint64_t *id)
{
	struct pa_journal j;

	if (move_journal_peek(path, &j) < 0)
		return false;
	*id = j.move_id;
	journal_free(&j);
	return true;
}

static bool id_matches(uint64_t a, uint64_t b, bool id32)
{
	return id32 ? (uint32_t)a == (uint32_t)b : a == b;
}

/* "<anything>-<move id, 16 hex>.journal" */
static bool name_matches(const char *name, uint64_t move_id, bool id32)
{
	char tail[32];
	size_t len = strlen(name);

	snprintf(tail, sizeof(tail), "-%016" PRIx64 ".journal", move_id);
	if (len < strlen(tail))
		return false;
	if (id32) /* only the low 8 digits are known */
		return strcmp(name + len - 16, tail + 9) == 0 && name[len - 25] == '-';
	return strcmp(name + len - strlen(tail), tail) == 0;
}

static int scan_dir(const char *dir, uint64_t move_id, bool id32, char **path)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!dd)
		return 0;
	while (rc == 0 && (de = readdir(dd))) {
		size_t len = strlen(de->d_name);
		uint64_t id;
		char *p;

		if (len < 9 || strcmp(de->d_name + len - 8, ".journal") != 0)
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0) {
			rc = -ENOMEM;
			break;
		}
		/* by its header; a damaged one by its name, so that its open says so */
		if ((journal_move_id(p, &id) && id_matches(id, move_id, id32)) ||
		    name_matches(de->d_name, move_id, id32)) {
			*path = p;
			rc = 1;
		} else {
			free(p);
		}
	}
	closedir(dd);
	return rc;
}

/* Is the directory of @path trusted?  (A missing one is not, here.) */
static bool dir_trusted(const char *path, struct trust_fail *f)
{
	char *dir = path_dir(path);
	bool ok = dir && trust_dir_open(dir, 0, NULL, f) == 0;

	free(dir);
	return ok;
}

int move_journal_find_move(const char *dir, uint64_t move_id, bool id32, const char *hint,
			   char **path, struct trust_fail *skipped)
{
	uint64_t id;
	int rc;

	memset(skipped, 0, sizeof(*skipped));
	/* the path on the disk is not looked at unless only root can change it */
	if (hint && *hint && dir_trusted(hint, skipped) && journal_move_id(hint, &id) &&
	    id_matches(id, move_id, id32))
		return (*path = strdup(hint)) ? 1 : -ENOMEM;
	if (skipped->why == TRUST_ERROR)
		memset(skipped, 0, sizeof(*skipped)); /* not there: nothing to say */
	rc = scan_dir(dir, move_id, id32, path);
	if (rc == 0 && strcmp(dir, move_journal_dir_default()) != 0)
		rc = scan_dir(move_journal_dir_default(), move_id, id32, path);
	return rc;
}

int move_journal_durable(const char *dir, const char **fstype)
{
	static const struct {
		long magic;
		const char *name;
	} volatile_fs[] = {
	    {TMPFS_MAGIC, "tmpfs"},
	    {RAMFS_MAGIC, "ramfs"},
	    {OVERLAYFS_SUPER_MAGIC, "overlayfs (its upper layer may be tmpfs)"},
	    {HUGETLBFS_MAGIC, "hugetlbfs"},
	    {SYSFS_MAGIC, "sysfs"},
	    {PROC_SUPER_MAGIC, "proc"},
	    {0x27e0eb, "cgroup"},
	    {0x63677270, "cgroup2"},
	    {0x42494e4d, "binfmt_misc"},
	};
	char *p = malloc(strlen(dir) + 3);
	struct statfs sf;
	size_t i;

	if (!p)
		return -ENOMEM;
	strcpy(p, dir);
	/* the directory may not exist yet: its nearest existing parent decides */
	while (statfs(p, &sf) < 0) {
		char *slash = strrchr(p, '/');
		int rc = -errno;

		if (rc != -ENOENT) {
			free(p);
			return rc;
		}
		if (!slash)
			strcpy(p, ".");
		else if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	free(p);
	for (i = 0; i < sizeof(volatile_fs) / sizeof(volatile_fs[0]); i++)
		if ((long)sf.f_type == volatile_fs[i].magic) {
			*fstype = volatile_fs[i].name;
			return -EROFS;
		}
	return 0;
}

int move_journal_dir_holds(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!dd)
		return errno == ENOENT || errno == ENOTDIR ? 0 : 1;
	while (!rc && (de = readdir(dd))) {
		size_t len = strlen(de->d_name);

		rc = len >= 8 && strcmp(de->d_name + len - 8, ".journal") == 0;
	}
	closedir(dd);
	return rc;
}

int move_journal_find_any(const char *dir, const struct pa_dev *whole, char **path,
			  uint64_t *move_id)
{
	char *id = apply_disk_id(whole), *prefix = NULL;
	struct dirent *de;
	DIR *dd;
	int rc = 0;

	if (!id || asprintf(&prefix, "%s-", id) < 0) {
		free(id);
		return -ENOMEM;
	}
	free(id);
	dd = opendir(dir);
	while (dd && rc == 0 && (de = readdir(dd))) {
		size_t len = strlen(de->d_name), pl = strlen(prefix);
		uint64_t mid;
		char *p;

		if (len != pl + 16 + 8 || strncmp(de->d_name, prefix, pl) != 0 ||
		    strcmp(de->d_name + len - 8, ".journal") != 0)
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0) {
			rc = -ENOMEM;
			break;
		}
		/* a journal, not a pointer left to one that is gone */
		if (journal_move_id(p, &mid)) {
			*path = p;
			if (move_id)
				*move_id = mid;
			rc = 1;
		} else {
			free(p);
		}
	}
	if (dd)
		closedir(dd);
	free(prefix);
	return rc;
}
