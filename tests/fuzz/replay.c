/*
 * The fuzz harnesses as plain programs for make check: replay every file
 * of tests/fuzz/corpus/NAME and tests/fuzz/crashes/NAME (NAME is the
 * program's name without "fuzz-"), or the files and directories given as
 * arguments, through LLVMFuzzerTestOneInput.  A crash, a sanitizer report
 * or a failed invariant fails the test; so does an empty corpus.
 * Built with -DPA_FUZZ_LIBFUZZER (make fuzz) it is only fz_file().
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

const char *fz_file(const void *data, size_t size)
{
	static char path[PATH_MAX];
	static int fd = -1;
	const char *p = data;

	if (fd < 0) {
		const char *dir = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/partalign-fuzz-XXXXXX",
			 dir && *dir ? dir : "/tmp");
		fd = mkstemp(path);
		if (fd < 0) {
			perror(path);
			abort();
		}
		/* the name stays valid for this process; nobody else opens it */
		unlink(path);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0)
			abort();
		p += n;
		size -= (size_t)n;
	}
	return path;
}

#ifndef PA_FUZZ_LIBFUZZER
static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		return -1;
	}
	/* exactly the file's size: a read past the end is a sanitizer report */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		abort();
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n <= 0) {
			perror(path);
			close(fd);
			free(buf);
			return -1;
		}
		done += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, done);
	free(buf);
	return 1;
}

/* Every regular file under @path (a file or a directory); how many, or -1. */
static int replay(const char *path, bool must_exist)
{
	struct dirent **names;
	struct stat st;
	int n, i, total = 0;

	if (stat(path, &st) < 0) {
		if (!must_exist)
			return 0;
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		char sub[PATH_MAX];
		int r = 0;

		if (names[i]->d_name[0] != '.' &&
		    strcmp(names[i]->d_name, "README") != 0) {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			r = replay(sub, true);
		}
		free(names[i]);
		if (r < 0 || total < 0)
			total = -1;
		else
			total += r;
	}
	free(names);
	return total;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/'), *top = getenv("top_srcdir");
	char dir[PATH_MAX];
	int i, n = 0, r;

	name = name ? name + 1 : argv[0];
	if (strncmp(name, "lt-", 3) == 0)
		name += 3;
	if (strncmp(name, "fuzz-", 5) == 0)
		name += 5;
	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			if ((r = replay(argv[i], true)) < 0)
				return 1;
			n += r;
		}
	} else {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top ? top : ".",
			 name);
		if ((r = replay(dir, true)) < 0)
			return 1;
		n += r;
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/%s", top ? top : ".",
			 name);
		if ((r = replay(dir, false)) < 0)
			return 1;
		n += r;
	}
	if (n == 0) {
		fprintf(stderr, "fuzz-%s: no inputs to replay\n", name);
		return 1;
	}
	printf("fuzz-%s: %d inputs replayed\n", name, n);
	return 0;
}
#endif
