/*
 * spawn(): posix_spawn() of a program found in a fixed system path, with a
 * reduced environment, and its output captured through pipes read with poll()
 * (both at once, so a child that fills one pipe while we wait on the other
 * cannot stall).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/spawn.h"
#include "shared/trust.h"

extern char **environ;

static bool is_program(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* @name in the directories of the ':' list @dirs. */
static int search(const char *dirs, const char *name, char *buf, size_t len)
{
	const char *p = dirs;

	while (*p) {
		const char *end = strchr(p, ':');
		size_t dl = end ? (size_t)(end - p) : strlen(p);

		if (dl && p[0] == '/') {
			if ((size_t)snprintf(buf, len, "%.*s/%s", (int)dl, p, name) >=
			    len)
				return -ENAMETOOLONG;
			if (is_program(buf))
				return 0;
		}
		p += dl;
		if (*p == ':')
			p++;
	}
	return -ENOENT;
}

int spawn_lookup(const char *name, char *buf, size_t len)
{
	const char *tooldir = getenv(SPAWN_TOOLDIR_ENV);

	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	/* a tool there runs as root: only from a directory and a file only root
	   can change */
	if (tooldir && tooldir[0] == '/' && !strchr(tooldir, ':')) {
		struct trust_fail f;

		if (trust_program(tooldir, name, &f) == 0) {
			if ((size_t)snprintf(buf, len, "%s/%s", tooldir, name) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
	}
	return search(SPAWN_PATH, name, buf, len);
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

int spawn(const char *const argv[], unsigned flags, struct spawn_result *r)
{
	posix_spawn_file_actions_t fa;
	int pipes[2][2] = {{-1, -1}, {-1, -1}};
	bool cap[2] = {flags & SPAWN_OUT, flags & SPAWN_ERR};
	bool join = (flags & SPAWN_OUT_TO_ERR) && !cap[0];
	char path[4096], **env = NULL;
	struct pollfd pf[2];
	pid_t pid;
	int rc, st, i;

	memset(r, 0, sizeof(*r));
	if (!argv || !argv[0])
		return -EINVAL;
	rc = spawn_lookup(argv[0], path, sizeof(path));
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
	rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		rc = -rc;
		goto fail;
	}
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	for (i = 0; i < 2; i++) {
		int fd = i ? STDERR_FILENO : STDOUT_FILENO;

		if (i == 0 && join)
			continue;
		if (cap[i])
			posix_spawn_file_actions_adddup2(&fa, pipes[i][1], fd);
		else if (flags & SPAWN_QUIET)
			posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_WRONLY,
							 0);
	}
	if (join)
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	/* what we buffered must not come after what the child writes to the same place */
	fflush(stdout);
	fflush(stderr);
	rc = posix_spawn(&pid, path, &fa, NULL, (char *const *)argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	env = NULL;
	if (rc) {
		rc = -rc;
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
	close_pipe(pipes[0]);
	close_pipe(pipes[1]);
	spawn_result_free(r);
	return rc;
}
