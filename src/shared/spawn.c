/*
 * spawn(): a program found in a fixed system path (or a trusted
 * PARTALIGN_TOOLDIR), run from the descriptor of the directory it was found
 * and judged in (fork, then execveat: a link swapped into the path after the
 * check cannot change what runs), with a reduced environment, and its output
 * captured through pipes read with poll() (both at once, so a child that
 * fills one pipe while we wait on the other cannot stall).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/spawn.h"
#include "shared/sys.h"
#include "shared/trust.h"

extern char **environ;

/*
 * A program found: the directory it was found in, as a descriptor, and its
 * name there.  It is run relative to that descriptor (execveat), so what
 * runs is what was looked at, whatever happens to the path meanwhile.
 */
struct program {
	int dfd;	     /* the directory (AT_FDCWD: a name with '/', as given) */
	char name[PATH_MAX]; /* in dfd */
	char path[PATH_MAX]; /* the directory as checked and the name: spawn_lookup() */
	bool nofollow;	     /* a PARTALIGN_TOOLDIR program: never a link */
	bool script;	     /* "#!": its interpreter opens it again by name */
	struct stat st;	     /* the file looked at (nofollow) */
	char devfd[sizeof("/dev/fd/") + 12]; /* how the kernel names dfd to a script */
};

static void program_close(struct program *p)
{
	if (p->dfd >= 0)
		close(p->dfd);
	p->dfd = -1;
}

int spawn_program_at(int dfd, const char *name, struct stat *st)
{
	return fstatat(dfd, name, st, 0) == 0 && S_ISREG(st->st_mode) &&
		       faccessat(dfd, name, X_OK, 0) == 0
		   ? 0
		   : -ENOENT;
}

/* @name in the directories of the ':' list @dirs: @p filled, 0 or -errno. */
static int search(const char *dirs, const char *name, struct program *p)
{
	const char *s = dirs;

	while (*s) {
		const char *end = strchr(s, ':');
		size_t dl = end ? (size_t)(end - s) : strlen(s);
		char dir[PATH_MAX];

		if (dl && s[0] == '/' && dl < sizeof(dir)) {
			memcpy(dir, s, dl);
			dir[dl] = '\0';
			if ((size_t)snprintf(p->path, sizeof(p->path), "%s/%s", dir,
					     name) >= sizeof(p->path))
				return -ENAMETOOLONG;
			p->dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (p->dfd >= 0 && spawn_program_at(p->dfd, name, &p->st) == 0)
				return 0;
			program_close(p);
		}
		s += dl;
		if (*s == ':')
			s++;
	}
	return -ENOENT;
}

/* Does the program start with "#!"?  Then the kernel hands it to an interpreter. */
static bool is_script(const struct program *p)
{
	char head[2];
	int fd =
	    openat(p->dfd, p->name,
		   O_RDONLY | O_CLOEXEC | O_NONBLOCK | (p->nofollow ? O_NOFOLLOW : 0));
	bool yes =
	    fd >= 0 && pread(fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';

	if (fd >= 0)
		close(fd);
	return yes;
}

/* The program spawn() runs for @name (see spawn_lookup), in @p: 0 or -errno. */
static int find(const char *name, struct program *p)
{
	const char *tooldir = getenv(SPAWN_TOOLDIR_ENV);
	int rc;

	memset(p, 0, sizeof(*p));
	p->dfd = -1;
	if (!name || !*name)
		return -ENOENT;
	if (strlen(name) >= sizeof(p->name))
		return -ENAMETOOLONG;
	if (strchr(name, '/')) {
		p->dfd = AT_FDCWD;
		snprintf(p->name, sizeof(p->name), "%s", name);
		snprintf(p->path, sizeof(p->path), "%s", name);
		return 0;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	/* a tool there runs as root: only from a directory and a file only root
	   can change, and from the directory that was judged */
	if (tooldir && tooldir[0] == '/' && !strchr(tooldir, ':')) {
		struct trust_fail f;

		if (trust_program_at(tooldir, name, &p->dfd, &p->st, &f) == 0) {
			p->nofollow = true;
			if ((size_t)snprintf(p->path, sizeof(p->path), "%s/%s", f.path,
					     name) >= sizeof(p->path)) {
				program_close(p);
				return -ENAMETOOLONG;
			}
			goto found;
		}
	}
	rc = search(SPAWN_PATH, name, p);
	if (rc < 0)
		return rc;
found:
	p->script = is_script(p);
	snprintf(p->devfd, sizeof(p->devfd), "/dev/fd/%d", p->dfd);
	return 0;
}

int spawn_lookup(const char *name, char *buf, size_t len)
{
	struct program p;
	int rc = find(name, &p);

	if (rc < 0)
		return rc;
	if (p.dfd != AT_FDCWD)
		program_close(&p);
	if ((size_t)snprintf(buf, len, "%s", p.path) >= len)
		return -ENAMETOOLONG;
	return 0;
}

const char *spawn_tooldir(struct trust_fail *why)
{
	const char *tooldir = getenv(SPAWN_TOOLDIR_ENV);
	struct trust_fail f;
	int rc;

	if (why)
		memset(why, 0, sizeof(*why));
	/* one directory, absolute: a relative one would depend on the cwd */
	if (!tooldir || tooldir[0] != '/' || strchr(tooldir, ':'))
		return NULL;
	rc = trust_dir_open(tooldir, 0, NULL, why ? why : &f);
	return rc == 0 ? tooldir : NULL;
}

/*
 * In a build with sanitizers (make check-sanitizers), their runtime options pass too:
 * the tests set them so that a child partalign-apply stops at a report (and not in
 * libparted's own code), and a child without them would judge differently.
 */
#if defined(__SANITIZE_ADDRESS__)
#define PA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define PA_SANITIZED 1
#endif
#endif

static bool passes(const char *var)
{
#ifdef PA_SANITIZED
	static const char *const san[] = {
	    "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS="};

	for (size_t i = 0; i < sizeof(san) / sizeof(san[0]); i++)
		if (strncmp(var, san[i], strlen(san[i])) == 0)
			return true;
#endif
	return strncmp(var, "PARTALIGN_", 10) == 0 && strchr(var, '=');
}

/* PATH, LC_ALL and the caller's PARTALIGN_* variables; NULL without memory. */
static char **child_env(void)
{
	size_t n = 0, i;
	char **env;

	for (i = 0; environ && environ[i]; i++)
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	n = 0;
	env[n++] = (char *)"PATH=" SPAWN_PATH;
	env[n++] = (char *)"LC_ALL=C";
	for (i = 0; environ && environ[i]; i++)
		if (passes(environ[i]))
			env[n++] = environ[i];
	env[n] = NULL;
	return env;
}

static int append(char **buf, size_t *len, const char *s, size_t n)
{
	char *b = realloc(*buf, *len + n + 1);

	if (!b)
		return -ENOMEM;
	memcpy(b + *len, s, n);
	*len += n;
	b[*len] = '\0';
	*buf = b;
	return 0;
}

void spawn_result_free(struct spawn_result *r)
{
	if (!r)
		return;
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
	r->outlen = r->errlen = 0;
}

static void close_pipe(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}

/* Read the captured pipes to their end (the child's exit), into @r. */
static int drain(struct pollfd pf[2], int pipes[2][2], unsigned flags,
		 struct spawn_result *r)
{
	int rc, i;

	rc = 0;
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		char chunk[4096];

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			n = read(pf[i].fd, chunk, sizeof(chunk));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				close(pf[i].fd);
				pipes[i][0] = pf[i].fd = -1;
				continue;
			}
			/* out of memory: keep reading, so the child is not blocked */
			if (append(i ? &r->err : &r->out, i ? &r->errlen : &r->outlen,
				   chunk, (size_t)n) < 0)
				rc = -ENOMEM;
			if (i == 1 && (flags & SPAWN_ERR_TEE))
				fwrite(chunk, 1, (size_t)n, stderr);
		}
	}
	return rc;
}

/* /dev/null onto @fd (@flags O_RDONLY or O_WRONLY); false when it fails. */
static bool null_onto(int fd, int flags)
{
	int n = open("/dev/null", flags | O_CLOEXEC);

	if (n < 0 || dup2(n, fd) < 0)
		return false;
	close(n);
	return true;
}

/*
 * In the child: the streams, then the program run from its directory's
 * descriptor; only async-signal-safe calls (the parent may have threads).
 * On failure the errno goes to @errfd and the child exits 127.
 */
static void child(const struct program *p, int pipes[2][2], const bool cap[2],
		  unsigned flags, char *const argv[], char *const env[], int errfd)
{
	bool join = (flags & SPAWN_OUT_TO_ERR) && !cap[0];
	struct stat st;
	int i, e;

	if (!null_onto(STDIN_FILENO, O_RDONLY))
		goto fail;
	for (i = 0; i < 2; i++) {
		int fd = i ? STDERR_FILENO : STDOUT_FILENO;

		if (i == 0 && join)
			continue;
		if (cap[i] ? dup2(pipes[i][1], fd) < 0
			   : (flags & SPAWN_QUIET) && !null_onto(fd, O_WRONLY))
			goto fail;
	}
	if (join && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		goto fail;
	/* the file judged, still there under its name (only root can change it) */
	if (p->nofollow && (fstatat(p->dfd, p->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    st.st_dev != p->st.st_dev || st.st_ino != p->st.st_ino)) {
		errno = ESTALE;
		goto fail;
	}
	/*
	 * A script's interpreter opens it again as /dev/fd/N/NAME, N the
	 * directory's descriptor, which must then stay open; a /dev without
	 * /dev/fd (a rescue system, a test's namespace) cannot give that name:
	 * then the path of the directory as it was checked, which only root can
	 * change.
	 */
	if (p->script && p->dfd >= 0) {
		if (fcntl(p->dfd, F_SETFD, 0) < 0 || access(p->devfd, F_OK) < 0) {
			execve(p->path, argv, env);
			goto fail;
		}
	}
	sys_execveat(p->dfd, p->name, argv, env, p->nofollow ? AT_SYMLINK_NOFOLLOW : 0);
fail:
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Fork the child and wait for its exec: the child's pid, or -errno. */
static pid_t start(const struct program *p, int pipes[2][2], const bool cap[2],
		   unsigned flags, const char *const argv[], char **env)
{
	int errp[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(errp, O_CLOEXEC) < 0)
		return -errno;
	/* what we buffered must not come after what the child writes to the same place */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(errp[0]);
		close(errp[1]);
		return -e;
	}
	if (pid == 0) {
		close(errp[0]);
		child(p, pipes, cap, flags, (char *const *)argv, env, errp[1]);
	}
	close(errp[1]);
	/* the write end closes at the exec: nothing to read then */
	while ((n = read(errp[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(errp[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -(e ? e : EIO);
	}
	return pid;
}

int spawn(const char *const argv[], unsigned flags, struct spawn_result *r)
{
	int pipes[2][2] = {{-1, -1}, {-1, -1}};
	bool cap[2] = {flags & SPAWN_OUT, flags & SPAWN_ERR};
	struct program prog = {.dfd = -1};
	char **env = NULL;
	struct pollfd pf[2];
	pid_t pid;
	int rc, st, i;

	memset(r, 0, sizeof(*r));
	if (!argv || !argv[0])
		return -EINVAL;
	rc = find(argv[0], &prog);
	if (rc < 0)
		return rc;
	for (i = 0; i < 2; i++) {
		if (!cap[i])
			continue;
		if (pipe2(pipes[i], O_CLOEXEC) < 0) {
			rc = -errno;
			goto fail;
		}
		if (append(i ? &r->err : &r->out, i ? &r->errlen : &r->outlen, "", 0) <
		    0) {
			rc = -ENOMEM;
			goto fail;
		}
	}
	env = child_env();
	if (!env) {
		rc = -ENOMEM;
		goto fail;
	}
	pid = start(&prog, pipes, cap, flags, argv, env);
	free(env);
	env = NULL;
	program_close(&prog);
	if (pid < 0) {
		rc = (int)pid;
		goto fail;
	}
	for (i = 0; i < 2; i++) {
		if (pipes[i][1] >= 0) {
			close(pipes[i][1]);
			pipes[i][1] = -1;
		}
		pf[i] = (struct pollfd){.fd = pipes[i][0], .events = POLLIN};
	}
	rc = drain(pf, pipes, flags, r);
	close_pipe(pipes[0]);
	close_pipe(pipes[1]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			spawn_result_free(r);
			return -errno;
		}
	if (rc < 0) {
		spawn_result_free(r);
		return rc;
	}
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
fail:
	free(env);
	program_close(&prog);
	close_pipe(pipes[0]);
	close_pipe(pipes[1]);
	spawn_result_free(r);
	return rc;
}
