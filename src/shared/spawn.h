/*
 * Running the system's programs (udevadm, kpartx, partx, our own partalign-apply).
 *
 * A program named without '/' is looked up in SPAWN_PATH only, never in the
 * inherited PATH: partalign runs as root, often from a shell or a kickstart with
 * a PATH nobody checked.  PARTALIGN_TOOLDIR, when set to an absolute directory,
 * is searched first (documented in partalign(8); the tests put stand-ins there)
 * if it is trusted (shared/trust.h: it and every directory above it owned by
 * root and writable by no one else); a program there is run only when it is a
 * regular file owned by root that no one else can write.  Otherwise the
 * directory, or the program, is ignored.
 *
 * The child gets stdin from /dev/null and an environment of PATH=SPAWN_PATH,
 * LC_ALL=C and the caller's PARTALIGN_* variables (partalign's own settings, which a
 * child partalign-apply must see), nothing else; in a build with sanitizers also
 * ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS.
 */
#ifndef PARTALIGN_SHARED_SPAWN_H
#define PARTALIGN_SHARED_SPAWN_H

#include <stddef.h>
#include <sys/stat.h>

#define SPAWN_PATH "/usr/sbin:/usr/bin:/sbin:/bin"
#define SPAWN_TOOLDIR_ENV "PARTALIGN_TOOLDIR"

/*
 * SPAWN_OUT, SPAWN_ERR: capture the child's stdout / stderr into r->out / r->err.
 * A stream not captured is inherited, or goes to /dev/null with SPAWN_QUIET.
 * SPAWN_ERR_TEE: with SPAWN_ERR, also copy the child's stderr to ours as it comes.
 * SPAWN_OUT_TO_ERR: without SPAWN_OUT, the child's stdout goes where its stderr goes
 * (captured, ours, or /dev/null), one stream in the order written: its progress is
 * our log and never mixes into our stdout.
 */
enum {
	SPAWN_OUT = 1,
	SPAWN_ERR = 2,
	SPAWN_QUIET = 4,
	SPAWN_ERR_TEE = 8,
	SPAWN_OUT_TO_ERR = 16
};

struct spawn_result {
	int status;	 /* exit code, or 128 + signal */
	char *out, *err; /* captured, NUL-terminated (maybe ""), malloc'd; NULL if not */
	size_t outlen, errlen;
};

/*
 * Run @argv (NULL-terminated) and wait for it.  0 when the program ran (r->status says
 * how it ended), -ENOENT when it is not found, -errno otherwise (then r holds nothing
 * to free).  The caller frees r with spawn_result_free().
 */
int spawn(const char *const argv[], unsigned flags, struct spawn_result *r);
void spawn_result_free(struct spawn_result *r);

/*
 * The file spawn() would run for @name: @name itself when it holds a '/', else the
 * trusted program of that name in a trusted PARTALIGN_TOOLDIR, else the first
 * executable regular file in SPAWN_PATH.  0 or -ENOENT, -ENAMETOOLONG.
 */
int spawn_lookup(const char *name, char *buf, size_t len);

struct trust_fail;

/*
 * PARTALIGN_TOOLDIR when it is set to one absolute directory that is trusted,
 * else NULL; then *@why (unless NULL) says what is not trusted, or why
 * TRUST_OK when it is unset, relative or a list (which are never used).
 */
const char *spawn_tooldir(struct trust_fail *why);

/*
 * @name in directory @dfd is a regular file that may be executed (its
 * stat in *@st): 0, or -ENOENT.  What is run next is run from @dfd
 * (execveat), so the file judged is the one executed.
 */
int spawn_program_at(int dfd, const char *name, struct stat *st);

#endif
