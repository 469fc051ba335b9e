/*
 * Where a move's journal lives: on the disk being moved (or a device stacked
 * on it), which fix --move-data refuses, since the move would overwrite the
 * journal that protects it.  Split from move.c; the durability rules of the
 * journal directory are in move-path.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "apply/move.h"
#include "shared/fileio.h"

static bool devno_on_disk(const struct pa_devlist *l, const struct pa_dev *whole,
			  unsigned int ma, unsigned int mi, const struct pa_dev **hit)
{
	const struct pa_dev *d = devlist_find_devno(l, ma, mi);

	if (d && (d == whole || d->disk == whole)) {
		*hit = d;
		return true;
	}
	return false;
}

static int read_devno(const char *file, unsigned int *ma, unsigned int *mi)
{
	FILE *f = fopen(file, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%u:%u", ma, mi) == 2;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/* The block device a st_dev of major 0 (btrfs and friends) is mounted from. */
static bool mount_source(dev_t dev, unsigned int *ma, unsigned int *mi)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned int a, b;
		char *sep, src[4096];
		struct stat st;

		if (sscanf(line, "%*u %*u %u:%u", &a, &b) != 2 || a != major(dev) ||
		    b != minor(dev))
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep, " - %*s %4095s", src) != 1)
			continue;
		if (stat(src, &st) == 0 && S_ISBLK(st.st_mode)) {
			*ma = major(st.st_rdev);
			*mi = minor(st.st_rdev);
			found = true;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* Is block device ma:mi @whole, one of its partitions, or stacked on them? */
static bool stacked_on(const struct pa_devlist *l, const struct pa_dev *whole,
		       unsigned int ma, unsigned int mi, int depth,
		       const struct pa_dev **hit)
{
	char dir[128], p[PATH_MAX];
	struct dirent *de;
	struct stat st;
	bool found = false;
	FILE *f;
	DIR *dd;

	if (depth > 16)
		return false;
	if (devno_on_disk(l, whole, ma, mi, hit))
		return true;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/slaves", ma, mi);
	if ((dd = opendir(dir))) {
		while (!found && (de = readdir(dd))) {
			unsigned int a, b;

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s/dev", dir, de->d_name);
			if (read_devno(p, &a, &b) == 0)
				found = stacked_on(l, whole, a, b, depth + 1, hit);
		}
		closedir(dd);
	}
	/* a loop device: where its backing file lives */
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/loop/backing_file", ma, mi);
	if (!found && (f = fopen(p, "re"))) {
		char file[PATH_MAX];

		if (fgets(file, sizeof(file), f)) {
			file[strcspn(file, "\n")] = '\0';
			if (stat(file, &st) == 0)
				found = stacked_on(l, whole, major(st.st_dev),
						   minor(st.st_dev), depth + 1, hit);
		}
		fclose(f);
	}
	return found;
}

int move_journal_on_disk(const char *dir, const struct pa_devlist *l,
			 const struct pa_dev *whole, char **where)
{
	char *p = strdup(dir);
	const struct pa_dev *hit = NULL;
	unsigned int ma, mi;
	struct stat st;

	if (!p)
		return -ENOMEM;
	/* the directory may not exist yet: its nearest existing parent decides */
	while (stat(p, &st) < 0) {
		char *up;

		if (errno != ENOENT || strcmp(p, "/") == 0 || strcmp(p, ".") == 0) {
			int rc = -errno;

			free(p);
			return rc;
		}
		up = path_dir(p);
		free(p);
		if (!up)
			return -ENOMEM;
		p = up;
	}
	free(p);
	ma = major(st.st_dev);
	mi = minor(st.st_dev);
	if (ma == 0 && !mount_source(st.st_dev, &ma, &mi))
		return 0; /* tmpfs, or a source we cannot name: not a block device */
	if (!stacked_on(l, whole, ma, mi, 0, &hit))
		return 0;
	*where = strdup(hit->path);
	return *where ? 1 : -ENOMEM;
}
