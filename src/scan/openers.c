/*
 * Who has a block device open, found as fuser(1) finds it: every process's
 * open descriptors (/proc/PID/fd/N), each stat()ed and compared by device
 * number.  A database on raw devices, Oracle ASM, qemu and dd open their
 * disks without O_EXCL, so neither the kernel's holders nor an exclusive
 * open of our own can see them; only this can.  This process is left out.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/scan.h"
#include "shared/fileio.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The command name of @pid (/proc/PID/comm), "?" when it is gone. */
static void comm_of(int procfd, const char *pid, char *buf, size_t len)
{
	char path[300];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/comm", pid);
	snprintf(buf, len, "?");
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Does process @pid hold one of @devs open?  Its index, or -1. */
static int holds(int procfd, const char *pid, const dev_t *devs, size_t n)
{
	char path[300];
	struct dirent *de;
	DIR *dd;
	int fd, found = -1;

	snprintf(path, sizeof(path), "%s/fd", pid);
	fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1; /* gone, or a kernel thread: nothing open */
	dd = fdopendir(fd);
	if (!dd) {
		close(fd);
		return -1;
	}
	while (found < 0 && (de = readdir(dd))) {
		struct stat st;
		size_t i;

		if (!all_digits(de->d_name) ||
		    fstatat(dirfd(dd), de->d_name, &st, 0) < 0 || !S_ISBLK(st.st_mode))
			continue;
		for (i = 0; i < n && found < 0; i++)
			if (st.st_rdev == devs[i])
				found = (int)i;
	}
	closedir(dd);
	return found;
}

int scan_openers(const dev_t *devs, size_t n, struct pa_opener *first, size_t *count)
{
	char self[32];
	struct dirent *de;
	DIR *proc;
	int procfd;

	*count = 0;
	memset(first, 0, sizeof(*first));
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -errno;
	proc = fdopendir(procfd);
	if (!proc) {
		close(procfd);
		return -errno;
	}
	while ((de = readdir(proc))) {
		int k;

		if (!all_digits(de->d_name) || strcmp(de->d_name, self) == 0)
			continue;
		k = holds(procfd, de->d_name, devs, n);
		if (k < 0)
			continue;
		if (!(*count)++) {
			first->pid = (pid_t)strtol(de->d_name, NULL, 10);
			first->dev = devs[k];
			comm_of(procfd, de->d_name, first->comm, sizeof(first->comm));
		}
	}
	closedir(proc);
	return 0;
}
