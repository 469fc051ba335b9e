/*
 * partalign provision --config FILE: the kickstart %post and Ansible entry
 * point.  The configuration names Oracle ASM disks and how to find them (a
 * path, wwn:, serial: or size:); for each disk the command partitions it
 * when it is blank, checks the partition, and finally writes the udev rules
 * for all of them in one `partalign rules` run.
 *
 * This file only decides and reports.  The work is done by the commands the
 * admin would run by hand, as child processes: `plan --new` (read-only)
 * tells whether a disk is blank, already holds the partition provision makes,
 * or must be refused; `fix --new` writes the table (both in partalign-apply,
 * the program that links libparted); `partalign rules` writes the rules.
 * Their messages go to stderr as they come; stdout carries only our own
 * report, so --json output stays clean.
 *
 * Ownership: a struct run owns the configuration, both scans and every string
 * of the results; run_free() releases them.  Devices of a scan are borrowed
 * by the disks that name them.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/align.h"
#include "core/exitcodes.h"
#include "core/rules.h"
#include "core/units.h"
#include "scan/scan.h"

extern char **environ;

/* GPT partition names hold 36 UTF-16 code units; fix --name enforces it too. */
#define GPT_NAME_MAX 36
#define CFG_LINE_MAX 1024
#define CFG_TOKENS_MAX 8

enum sel_kind {
	SEL_PATH,
	SEL_WWN,
	SEL_SERIAL,
	SEL_SIZE,
};

enum action {
	ACT_PENDING,
	ACT_CREATED,
	ACT_KEPT,
	ACT_REFUSED,
	ACT_ERROR,
};

static const char *const action_names[] = {
    [ACT_PENDING] = "error", /* never reported: every disk ends in another state */
    [ACT_CREATED] = "created", [ACT_KEPT] = "kept",
    [ACT_REFUSED] = "refused", [ACT_ERROR] = "error",
};

/* What `partalign plan --new` said about one whole device. */
struct probe {
	const struct pa_dev *dev;
	int rc;	      /* its exit status, -errno when it did not run */
	char *action; /* "create", "keep", "none" */
	char *pname;  /* the GPT name of the partition it keeps */
	char *refused;
	char *new_start;
	char *verdicts[3]; /* NEW-PHYS, NEW-OPT, NEW-POLICY */
	char *err;	   /* its last message on stderr */
};

struct disk {
	/* from the configuration */
	char *name;
	char *selector; /* as written */
	enum sel_kind sel;
	const char *value; /* into selector, after the prefix */
	uint64_t size;	   /* size: */
	char *owner;	   /* NULL: the global one */
	char *group;
	char mode[8]; /* "": the global one */
	char *where;  /* "FILE:LINE" */

	/* the run */
	const struct pa_dev *dev; /* in the first scan */
	struct probe *probe;
	char *device; /* the whole disk */
	char *partition;
	enum action action;
	bool aligned;
	bool changed;
	bool reboot; /* fix wrote a table the kernel does not use yet */
	char *reason;
};

struct config {
	const char *file;
	struct disk *v;
	size_t n, cap;
	char *owner, *group, *align, *rules;
	char mode[8];
	size_t owner_line, group_line, mode_line, align_line, rules_line;
	struct pa_grain grain;
	unsigned int errors;
};

struct opts {
	const char *config;
	const char *root;
	const char *backup_dir;
	const char *align; /* --align, else the configuration's */
	bool json;
	bool no_reload;
	bool dry_run;
};

struct run {
	struct opts o;
	struct config c;
	struct pa_grain grain;
	struct pa_devlist devs;	 /* before any change */
	struct pa_devlist after; /* the disks again, after fix */
	struct probe *probes;
	size_t nprobes, capprobes;
	char *backup_dir; /* --backup-dir, or under --root */
	char *rules_file; /* as written: under --root when given */
	const char *rules_result;
	char *rules_reason;
	const char *no_trigger; /* why udev was not triggered (a phrase), or NULL */
	int status;
};

/* ---- small helpers ---------------------------------------------------- */

static void nomem(void)
{
	msg_err(NULL, ENOMEM, "provision");
	exit(PA_EXIT_ERROR);
}

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		nomem();
	return d;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		nomem();
	return s;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Progress on stderr: "partalign: provision: NAME: ...". */
static void note(const char *who, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(const char *who, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: provision: ", PA_PROG);
	if (who)
		fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* End a disk's run as refused or failed, with the reason; returns -1. */
static int disk_fail(struct disk *d, enum action a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int disk_fail(struct disk *d, enum action a, const char *fmt, ...)
{
	va_list ap;

	d->action = a;
	free(d->reason);
	va_start(ap, fmt);
	d->reason = xvasprintf(fmt, ap);
	va_end(ap);
	msg_err(d->name, 0, "%s", d->reason);
	return -1;
}

/* Add a remark to a disk's reason. */
static void disk_remark(struct disk *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void disk_remark(struct disk *d, const char *fmt, ...)
{
	va_list ap;
	char *s, *both;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	if (!d->reason) {
		d->reason = s;
		return;
	}
	both = xasprintf("%s; %s", d->reason, s);
	free(d->reason);
	free(s);
	d->reason = both;
}

/* ---- the configuration ------------------------------------------------ */

static void cfg_err(struct config *c, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void cfg_err(struct config *c, size_t line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%zu: ", PA_PROG, c->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	c->errors++;
}

/* "--align"-style size of the configuration; false with a message. */
static bool cfg_size(struct config *c, size_t line, const char *what, const char *s,
		     struct pa_grain *g)
{
	int rc = units_parse_grain(s, g);

	if (rc == -ERANGE) {
		cfg_err(c, line, "%s %s: too large", what, s);
		return false;
	}
	if (rc < 0) {
		cfg_err(c, line,
			"%s %s: expected a positive size with a unit (B, kB, MB, GB, TB, "
			"KiB, MiB, GiB, TiB%s), e.g. 2MiB",
			what, s, g == &c->grain ? ", s" : "");
		return false;
	}
	return true;
}

/* A global line: "owner grid", "mode 0660", ... */
static void cfg_global(struct config *c, size_t line, char **tok, size_t ntok)
{
	const char *k = tok[0], *v = tok[1];
	size_t *seen;

	if (ntok != 2) {
		cfg_err(c, line, "'%s' takes exactly one value, e.g. '%s %s'", k, k,
			strcmp(k, "owner") == 0	  ? RULES_DEFAULT_OWNER
			: strcmp(k, "group") == 0 ? RULES_DEFAULT_GROUP
			: strcmp(k, "mode") == 0  ? RULES_DEFAULT_MODE
			: strcmp(k, "align") == 0 ? "2MiB"
						  : RULES_DEFAULT_OUTPUT);
		return;
	}
	seen = strcmp(k, "owner") == 0	 ? &c->owner_line
	       : strcmp(k, "group") == 0 ? &c->group_line
	       : strcmp(k, "mode") == 0	 ? &c->mode_line
	       : strcmp(k, "align") == 0 ? &c->align_line
					 : &c->rules_line;
	if (*seen) {
		cfg_err(c, line, "'%s' given twice (first on line %zu)", k, *seen);
		return;
	}
	if (strcmp(k, "owner") == 0 || strcmp(k, "group") == 0) {
		if (!rules_account_is_valid(v)) {
			cfg_err(c, line, "%s %s: not a valid %s name", k, v,
				k[0] == 'o' ? "user" : "group");
			return;
		}
		*(k[0] == 'o' ? &c->owner : &c->group) = xstrdup(v);
	} else if (strcmp(k, "mode") == 0) {
		if (!rules_mode_normalize(v, c->mode)) {
			cfg_err(c, line,
				"mode %s: expected 3 or 4 octal digits, e.g. 0660", v);
			return;
		}
	} else if (strcmp(k, "align") == 0) {
		if (!cfg_size(c, line, "align", v, &c->grain))
			return;
		if (!c->grain.sectors && c->grain.value % 512) {
			cfg_err(c, line, "align %s: not a multiple of 512 bytes", v);
			return;
		}
		c->align = xstrdup(v);
	} else {
		size_t len = strlen(v);

		if (v[0] != '/' || len >= PATH_MAX || v[len - 1] == '/') {
			cfg_err(c, line, "rules %s: expected an absolute file name", v);
			return;
		}
		if (len < 7 || strcmp(v + len - 6, ".rules") != 0) {
			cfg_err(c, line,
				"rules %s: udev reads only files ending in .rules", v);
			return;
		}
		c->rules = xstrdup(v);
	}
	*seen = line;
}

/* The selector of a disk line; false with a message. */
static bool cfg_selector(struct config *c, size_t line, struct disk *d, const char *s)
{
	static const struct {
		const char *prefix;
		enum sel_kind kind;
	} kinds[] = {{"wwn:", SEL_WWN}, {"serial:", SEL_SERIAL}, {"size:", SEL_SIZE}};
	const char *bad;
	size_t i;

	d->selector = xstrdup(s);
	if (s[0] == '/') {
		d->sel = SEL_PATH;
		d->value = d->selector;
		if (strlen(s) >= PATH_MAX) {
			cfg_err(c, line, "device path too long");
			return false;
		}
		return true;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strncmp(s, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0])) {
		if (strncmp(s, "partuuid:", 9) == 0)
			cfg_err(c, line,
				"%s: provision names whole disks; partuuid: selects a "
				"partition (use partalign rules --map for those)",
				s);
		else
			cfg_err(
			    c, line,
			    "%s: expected a device path (/dev/...), wwn:ID, serial:ID or "
			    "size:SIZE",
			    s);
		return false;
	}
	d->sel = kinds[i].kind;
	d->value = d->selector + strlen(kinds[i].prefix);
	if (!*d->value) {
		cfg_err(c, line, "%s: empty %s", s, kinds[i].prefix);
		return false;
	}
	if (d->sel == SEL_SIZE) {
		struct pa_grain g;

		if (!cfg_size(c, line, "size:", d->value, &g))
			return false;
		if (g.sectors) {
			cfg_err(
			    c, line,
			    "%s: a size in sectors depends on the disk's sector size: "
			    "give bytes with a unit, e.g. size:100GiB",
			    s);
			return false;
		}
		d->size = g.value;
		return true;
	}
	bad = rules_value_unsafe(d->value);
	if (bad) {
		cfg_err(c, line, "%s: holds %s, which no %s can contain", s, bad,
			d->sel == SEL_WWN ? "WWN udev knows" : "serial udev knows");
		return false;
	}
	return true;
}

/* "owner=grid", "group=...", "mode=..." after the selector. */
static bool cfg_disk_opt(struct config *c, size_t line, struct disk *d, const char *t)
{
	const char *eq = strchr(t, '=');
	size_t klen = eq ? (size_t)(eq - t) : 0;
	const char *v = eq ? eq + 1 : NULL;

	if (!eq || klen == 0) {
		cfg_err(c, line, "'%s': expected owner=USER, group=GROUP or mode=MODE",
			t);
		return false;
	}
	if (klen == 5 && strncmp(t, "owner", 5) == 0) {
		if (d->owner) {
			cfg_err(c, line, "owner= given twice");
			return false;
		}
		if (!rules_account_is_valid(v)) {
			cfg_err(c, line, "owner=%s: not a valid user name", v);
			return false;
		}
		d->owner = xstrdup(v);
	} else if (klen == 5 && strncmp(t, "group", 5) == 0) {
		if (d->group) {
			cfg_err(c, line, "group= given twice");
			return false;
		}
		if (!rules_account_is_valid(v)) {
			cfg_err(c, line, "group=%s: not a valid group name", v);
			return false;
		}
		d->group = xstrdup(v);
	} else if (klen == 4 && strncmp(t, "mode", 4) == 0) {
		if (d->mode[0]) {
			cfg_err(c, line, "mode= given twice");
			return false;
		}
		if (!rules_mode_normalize(v, d->mode)) {
			cfg_err(c, line,
				"mode=%s: expected 3 or 4 octal digits, e.g. 0660", v);
			return false;
		}
	} else {
		cfg_err(c, line,
			"'%.*s=': unknown; expected owner=, group= or mode=", (int)klen,
			t);
		return false;
	}
	return true;
}

static void disk_free(struct disk *d)
{
	free(d->name);
	free(d->selector);
	free(d->owner);
	free(d->group);
	free(d->where);
	free(d->device);
	free(d->partition);
	free(d->reason);
}

/* A disk line: NAME SELECTOR [owner=U] [group=G] [mode=M]. */
static void cfg_disk(struct config *c, size_t line, char **tok, size_t ntok)
{
	struct disk d = {0};
	bool ok = true;
	size_t i;

	if (!rules_name_is_valid(tok[0]) || strlen(tok[0]) > GPT_NAME_MAX) {
		cfg_err(
		    c, line,
		    "'%s': not a keyword (owner, group, mode, align, rules) nor a valid "
		    "ASM disk name (1 to %d of A-Z a-z 0-9 _ . -, not starting with "
		    "'.' or '-')",
		    tok[0], GPT_NAME_MAX);
		return;
	}
	if (ntok < 2) {
		cfg_err(c, line,
			"%s: no device: expected 'NAME SELECTOR [owner=U] "
			"[group=G] [mode=M]'",
			tok[0]);
		return;
	}
	ok = cfg_selector(c, line, &d, tok[1]);
	for (i = 2; ok && i < ntok; i++)
		ok = cfg_disk_opt(c, line, &d, tok[i]);
	if (!ok) {
		disk_free(&d);
		return;
	}
	for (i = 0; i < c->n; i++) {
		if (strcasecmp(c->v[i].name, tok[0]) == 0) {
			cfg_err(c, line,
				"%s: the name is already used on %s (ASM ignores case)",
				tok[0], c->v[i].where);
			ok = false;
		} else if (d.sel != SEL_SIZE &&
			   strcmp(c->v[i].selector, d.selector) == 0) {
			cfg_err(c, line, "%s: %s already names %s", tok[0], d.selector,
				c->v[i].name);
			ok = false;
		}
	}
	if (!ok) {
		disk_free(&d);
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct disk *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			nomem();
		c->v = v;
		c->cap = cap;
	}
	d.name = xstrdup(tok[0]);
	d.where = xasprintf("%s:%zu", c->file, line);
	c->v[c->n++] = d;
}

static bool is_keyword(const char *s)
{
	return strcmp(s, "owner") == 0 || strcmp(s, "group") == 0 ||
	       strcmp(s, "mode") == 0 || strcmp(s, "align") == 0 ||
	       strcmp(s, "rules") == 0;
}

static void cfg_line(struct config *c, size_t line, char *s, size_t len)
{
	char *tok[CFG_TOKENS_MAX];
	size_t ntok = 0, i;

	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b == '\r' && i + 1 == len) {
			cfg_err(c, line,
				"ends in a carriage return: save the file with "
				"Unix line endings");
			return;
		}
		if ((b < 0x20 && b != '\t') || b >= 0x7f) {
			cfg_err(c, line,
				"byte 0x%02x at column %zu: only printable ASCII, "
				"blanks and tabs are allowed",
				b, i + 1);
			return;
		}
	}
	for (;;) {
		s += strspn(s, " \t");
		if (!*s || *s == '#')
			break;
		if (ntok == CFG_TOKENS_MAX) {
			cfg_err(c, line, "too many fields (at most %d)", CFG_TOKENS_MAX);
			return;
		}
		tok[ntok++] = s;
		s += strcspn(s, " \t");
		if (*s)
			*s++ = '\0';
	}
	if (ntok == 0)
		return;
	if (is_keyword(tok[0]))
		cfg_global(c, line, tok, ntok);
	else
		cfg_disk(c, line, tok, ntok);
}

/* Read and check the whole file; every bad line is reported.  0 or -EINVAL. */
static int cfg_read(struct config *c, const char *file)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, line = 0;
	ssize_t len;

	c->file = file;
	c->grain = PA_GRAIN_DEFAULT;
	f = fopen(file, "re");
	if (!f) {
		msg_err(file, errno, "cannot read the configuration");
		return -EINVAL;
	}
	while ((len = getline(&buf, &cap, f)) >= 0) {
		line++;
		if (len > 0 && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (memchr(buf, '\0', (size_t)len)) {
			cfg_err(c, line, "holds a NUL byte: not a text file");
			break;
		}
		if (len > CFG_LINE_MAX) {
			cfg_err(c, line, "longer than %d bytes", CFG_LINE_MAX);
			continue;
		}
		cfg_line(c, line, buf, (size_t)len);
	}
	if (ferror(f)) {
		msg_err(file, errno, "cannot read the configuration");
		c->errors++;
	}
	free(buf);
	fclose(f);
	if (!c->errors && c->n == 0) {
		msg_err(file, 0,
			"no disks: expected lines 'NAME SELECTOR [owner=U] [group=G] "
			"[mode=M]'");
		c->errors++;
	}
	return c->errors ? -EINVAL : 0;
}

/*
 * Read and check the configuration @file alone, as cmd_provision() does
 * before anything else; every bad line is reported.  0 or -EINVAL.  The
 * fuzz harness of the parser calls it (tests/fuzz/fuzz-provision.c).
 */
int provision_config_check(const char *file)
{
	struct config c = {0};
	size_t i;
	int rc = cfg_read(&c, file);

	for (i = 0; i < c.n; i++)
		disk_free(&c.v[i]);
	free(c.v);
	free(c.owner);
	free(c.group);
	free(c.align);
	free(c.rules);
	return rc;
}

/* ---- child processes -------------------------------------------------- */

/*
 * The program to run: partalign-apply (plan, fix) or partalign (rules).  The
 * copy beside this executable first (a build tree, a chroot that holds both),
 * else the installed one -- the same search as the dispatcher's run_other().
 */
static const char *program(bool apply, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		if (!apply && access(self, X_OK) == 0) {
			snprintf(buf, len, "%s", self);
			return buf;
		}
		snprintf(buf, len, "%s/%s", dirname(self),
			 apply ? "partalign-apply" : "partalign");
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return apply ? PA_PKGLIBEXECDIR "/partalign-apply" : PA_SBINDIR "/partalign";
}

struct output {
	char *out; /* stdout, when captured */
	size_t outlen;
	char *err; /* stderr, also copied to ours as it comes */
	size_t errlen;
};

static void output_free(struct output *co)
{
	free(co->out);
	free(co->err);
}

static void append(char **buf, size_t *len, const char *s, size_t n)
{
	char *b = realloc(*buf, *len + n + 1);

	if (!b)
		nomem();
	memcpy(b + *len, s, n);
	*len += n;
	b[*len] = '\0';
	*buf = b;
}

/*
 * Run @argv with stdin from /dev/null.  Its stdout is captured into co->out
 * when @capture, else it joins its stderr (its progress is our log).  Its
 * stderr is captured into co->err and copied to ours as it comes.  Returns
 * its exit status, 128+signal, or -errno when it could not run.
 */
static int spawn(const char *path, char *const argv[], bool capture, struct output *co)
{
	posix_spawn_file_actions_t fa;
	int outp[2] = {-1, -1}, errp[2] = {-1, -1};
	struct pollfd pf[2];
	pid_t pid;
	int rc, st;

	memset(co, 0, sizeof(*co));
	if ((capture && pipe2(outp, O_CLOEXEC) < 0) || pipe2(errp, O_CLOEXEC) < 0) {
		rc = -errno;
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	/* one pipe for both when not captured: its lines stay in the order written */
	posix_spawn_file_actions_adddup2(&fa, capture ? outp[1] : errp[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
	fflush(stdout);
	fflush(stderr);
	rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		rc = -rc;
		goto fail;
	}
	if (capture)
		close(outp[1]);
	close(errp[1]);
	pf[0] = (struct pollfd){.fd = capture ? outp[0] : -1, .events = POLLIN};
	pf[1] = (struct pollfd){.fd = errp[0], .events = POLLIN};
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		char chunk[4096];
		int i;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			n = read(pf[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				continue;
			}
			if (i == 0) {
				append(&co->out, &co->outlen, chunk, (size_t)n);
			} else {
				append(&co->err, &co->errlen, chunk, (size_t)n);
				fwrite(chunk, 1, (size_t)n, stderr);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
fail:
	if (outp[0] >= 0) {
		close(outp[0]);
		close(outp[1]);
	}
	if (errp[0] >= 0) {
		close(errp[0]);
		close(errp[1]);
	}
	msg_err(NULL, -rc, "cannot run %s", path);
	return rc;
}

/* The last error line of a child ("partalign: " removed, warnings skipped). */
static char *last_error(const struct output *co)
{
	const char *pfx = PA_PROG ": ";
	const char *p = co->err, *best = NULL;
	size_t bestlen = 0;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > strlen(pfx) && strncmp(p, pfx, strlen(pfx)) == 0 &&
		    strncmp(p + strlen(pfx), "warning: ", 9) != 0) {
			best = p + strlen(pfx);
			bestlen = len - strlen(pfx);
		}
		p = nl ? nl + 1 : NULL;
	}
	return best ? strndup(best, bestlen) : NULL;
}

/* The value of KEY in one line of `--pairs` output (KEY="v", \xNN escapes). */
static char *pairs_get(const char *line, const char *key)
{
	size_t klen = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=' && p[klen + 1] == '"')
			break;
		p += klen;
	}
	if (!p)
		return NULL;
	p += klen + 2;
	{
		char *v = malloc(strlen(p) + 1), *q = v;

		if (!v)
			nomem();
		while (*p && *p != '"') {
			if (p[0] == '\\' && p[1] == 'x' &&
			    isxdigit((unsigned char)p[2]) &&
			    isxdigit((unsigned char)p[3])) {
				char hex[3] = {p[2], p[3], '\0'};

				*q++ = (char)strtoul(hex, NULL, 16);
				p += 4;
			} else {
				*q++ = *p++;
			}
		}
		*q = '\0';
		return v;
	}
}

/* Common options of plan and fix. */
static size_t apply_args(const struct run *r, char **argv, size_t n)
{
	if (r->o.align || r->c.align) {
		argv[n++] = "--align";
		argv[n++] = (char *)(r->o.align ? r->o.align : r->c.align);
	}
	return n;
}

/* `plan --new` on @dev, once per device: what fix --new would do there. */
static struct probe *probe_dev(struct run *r, const struct pa_dev *dev)
{
	char path[PATH_MAX], *argv[16];
	struct output co;
	struct probe *pr;
	size_t i, n = 0;
	char *line;

	for (i = 0; i < r->nprobes; i++)
		if (r->probes[i].dev == dev)
			return &r->probes[i];
	if (r->nprobes == r->capprobes) {
		size_t cap = r->capprobes ? r->capprobes * 2 : 16;
		struct probe *v = realloc(r->probes, cap * sizeof(*v));

		if (!v)
			nomem();
		r->probes = v;
		r->capprobes = cap;
	}
	pr = &r->probes[r->nprobes++];
	memset(pr, 0, sizeof(*pr));
	pr->dev = dev;
	argv[n++] = PA_PROG;
	argv[n++] = "plan";
	argv[n++] = "--new";
	n = apply_args(r, argv, n);
	argv[n++] = "--pairs";
	argv[n++] = "--output";
	argv[n++] = "ACTION,NAME,REFUSED,NEW-START,NEW-PHYS,NEW-OPT,NEW-POLICY";
	argv[n++] = dev->path;
	argv[n] = NULL;
	pr->rc = spawn(program(true, path, sizeof(path)), argv, true, &co);
	pr->err = last_error(&co);
	line = co.out;
	if (line && *line) {
		pr->action = pairs_get(line, "ACTION");
		pr->pname = pairs_get(line, "NAME");
		pr->refused = pairs_get(line, "REFUSED");
		pr->new_start = pairs_get(line, "NEW_START");
		pr->verdicts[0] = pairs_get(line, "NEW_PHYS");
		pr->verdicts[1] = pairs_get(line, "NEW_OPT");
		pr->verdicts[2] = pairs_get(line, "NEW_POLICY");
		if (pr->refused && !*pr->refused) {
			free(pr->refused);
			pr->refused = NULL;
		}
	}
	output_free(&co);
	return pr;
}

static bool probe_says(const struct probe *pr, const char *action)
{
	return pr->rc >= 0 && !(pr->rc & (PA_EXIT_ERROR | PA_EXIT_USAGE)) && pr->action &&
	       strcmp(pr->action, action) == 0;
}

/*
 * The disk holds exactly the partition fix --new makes.  A refusal beside a
 * "keep" can only be plan's "in use" (its own refusals of --new come before
 * any step): harmless when nothing is to be written.
 */
static bool probe_keeps(const struct probe *pr)
{
	return probe_says(pr, "keep");
}

/* The disk is blank: fix --new would create the partition. */
static bool probe_creates(const struct probe *pr)
{
	return probe_says(pr, "create") && !pr->refused;
}

/* What went wrong with a probe that neither creates, keeps nor refuses. */
static const char *probe_failure(const struct probe *pr, char *buf, size_t len)
{
	if (pr->err)
		return pr->err;
	if (pr->rc < 0)
		snprintf(buf, len, "cannot run partalign-apply: %s", strerror(-pr->rc));
	else
		snprintf(buf, len, "partalign plan --new failed with exit status %d",
			 pr->rc);
	return buf;
}

/* ---- which disk is which ---------------------------------------------- */

static bool claimed(const struct run *r, const struct pa_dev *dev)
{
	size_t i;

	for (i = 0; i < r->c.n; i++)
		if (r->c.v[i].dev == dev)
			return true;
	return false;
}

/* Path, wwn: or serial: into a whole device of the scan; 0 or -1. */
static int resolve_named(struct run *r, struct disk *d)
{
	struct pa_dev *dev = NULL, *other = NULL;
	int rc;

	if (d->sel == SEL_PATH) {
		rc = scan_lookup(&r->devs, d->value, &dev);
		if (rc == -ENOENT)
			return disk_fail(d, ACT_ERROR, "%s: no such device", d->value);
		if (rc == -ENOTBLK)
			return disk_fail(d, ACT_ERROR, "%s: not a block device",
					 d->value);
		if (rc == -ENODEV)
			return disk_fail(
			    d, ACT_ERROR,
			    "%s: not among the disks of the host (an unbound loop "
			    "device?)",
			    d->value);
		if (rc < 0)
			return disk_fail(d, ACT_ERROR, "%s: %s", d->value, strerror(-rc));
	} else {
		rc = rules_spec_find(&r->devs,
				     d->sel == SEL_WWN ? RULES_SEL_WWN : RULES_SEL_SERIAL,
				     d->value, &dev, &other);
		if (rc == -ENODEV)
			return disk_fail(
			    d, ACT_ERROR,
			    "%s: no disk of the host has this ID (udev's database "
			    "must know it: see udevadm info)",
			    d->selector);
		if (rc == -EEXIST)
			return disk_fail(
			    d, ACT_ERROR,
			    "%s: matches both %s and %s (cloned VM disks?): cannot "
			    "tell which one is %s",
			    d->selector, dev->path, other->path, d->name);
		if (rc < 0)
			return disk_fail(d, ACT_ERROR, "%s: %s", d->selector,
					 strerror(-rc));
	}
	if (dev->kind == PA_KIND_PART)
		return disk_fail(
		    d, ACT_ERROR, "%s is a partition%s%s: name the whole disk", dev->path,
		    dev->disk ? " of " : "", dev->disk ? dev->disk->path : "");
	if (dev->is_path)
		return disk_fail(d, ACT_ERROR,
				 "%s is a path of the multipath map %s: name the map",
				 dev->path, dev->map ? dev->map->path : "over it");
	d->dev = dev;
	return 0;
}

static bool size_kind(const struct pa_dev *dev)
{
	return dev->kind == PA_KIND_DISK || dev->kind == PA_KIND_LOOP ||
	       dev->kind == PA_KIND_MPATH || dev->kind == PA_KIND_MD;
}

/*
 * size:SIZE: exactly one disk of that size that already holds the partition
 * provision makes, named like this disk (an earlier run), else exactly one
 * blank disk nobody else claims.  Two candidates are refused: guessing which
 * LUN is which would give ASM the wrong disk.
 */
static void resolve_size(struct run *r, struct disk *d)
{
	const struct pa_dev *owned[2] = {NULL, NULL}, *blank[2] = {NULL, NULL};
	size_t nowned = 0, nblank = 0, i;
	char sz[32], why[PA_REASON_MAX] = "";

	units_exact(d->size, sz, sizeof(sz));
	for (i = 0; i < r->devs.n; i++) {
		const struct pa_dev *dev = r->devs.v[i];
		struct probe *pr;

		if (!size_kind(dev) || dev->is_path || dev->size != d->size ||
		    claimed(r, dev))
			continue;
		if (dev->mountpoints || (dev->holders && dev->kind != PA_KIND_MPATH)) {
			snprintf(why, sizeof(why), "%s is in use", dev->path);
			continue;
		}
		if (dev->fstype) {
			snprintf(why, sizeof(why), "%s holds %s", dev->path, dev->fstype);
			continue;
		}
		if (dev->nparts > 1) {
			snprintf(why, sizeof(why), "%s has %u partitions", dev->path,
				 dev->nparts);
			continue;
		}
		pr = probe_dev(r, dev);
		if (probe_keeps(pr) && pr->pname && strcasecmp(pr->pname, d->name) == 0) {
			if (nowned < 2)
				owned[nowned] = dev;
			nowned++;
		} else if (probe_creates(pr)) {
			if (nblank < 2)
				blank[nblank] = dev;
			nblank++;
		} else {
			char buf[128];

			snprintf(why, sizeof(why), "%s: %s", dev->path,
				 pr->refused	   ? pr->refused
				 : probe_keeps(pr) ? "holds a partition of another name"
						   : probe_failure(pr, buf, sizeof(buf)));
		}
	}
	if (nowned == 1) {
		d->dev = owned[0];
		note(d->name, "%s: %s, provisioned as %s before", d->selector,
		     owned[0]->path, d->name);
	} else if (nowned > 1) {
		disk_fail(
		    d, ACT_ERROR,
		    "%s: %zu disks of %s already hold a partition named %s (%s, %s%s): "
		    "name the disk by path, wwn: or serial:",
		    d->selector, nowned, sz, d->name, owned[0]->path, owned[1]->path,
		    nowned > 2 ? ", ..." : "");
	} else if (nblank == 1) {
		d->dev = blank[0];
		note(d->name, "%s: %s, the only blank disk of %s", d->selector,
		     blank[0]->path, sz);
	} else if (nblank > 1) {
		disk_fail(
		    d, ACT_ERROR,
		    "%s: %zu blank disks of %s (%s, %s%s): cannot tell which one is %s; "
		    "name it by path, wwn: or serial:",
		    d->selector, nblank, sz, blank[0]->path, blank[1]->path,
		    nblank > 2 ? ", ..." : "", d->name);
	} else {
		disk_fail(d, ACT_ERROR, "%s: no blank disk of %s%s%s%s", d->selector, sz,
			  why[0] ? " (" : "", why, why[0] ? ")" : "");
	}
}

static void resolve_all(struct run *r)
{
	size_t i, j;

	for (i = 0; i < r->c.n; i++)
		if (r->c.v[i].sel != SEL_SIZE)
			resolve_named(r, &r->c.v[i]);
	/* a disk named twice is nobody's: size: must not pick it either */
	for (i = 0; i < r->c.n; i++)
		for (j = i + 1; j < r->c.n; j++) {
			struct disk *a = &r->c.v[i], *b = &r->c.v[j];

			if (!a->dev || a->dev != b->dev)
				continue;
			disk_fail(b, ACT_ERROR, "%s names %s, as %s (%s) does",
				  b->selector, a->dev->path, a->name, a->where);
			if (a->action == ACT_PENDING)
				disk_fail(a, ACT_ERROR, "%s names %s, as %s (%s) does",
					  a->selector, a->dev->path, b->name, b->where);
		}
	for (i = 0; i < r->c.n; i++) {
		struct disk *d = &r->c.v[i];

		if (d->sel == SEL_SIZE && d->action == ACT_PENDING)
			resolve_size(r, d);
		if (d->dev)
			d->device = xstrdup(d->dev->path);
	}
}

/* ---- partitions --------------------------------------------------------- */

static int run_fix(struct run *r, struct disk *d)
{
	char path[PATH_MAX], *argv[16];
	struct output co;
	size_t n = 0;
	int rc;
	char *err;

	argv[n++] = PA_PROG;
	argv[n++] = "fix";
	argv[n++] = "--new";
	argv[n++] = "--name";
	argv[n++] = d->name;
	argv[n++] = "--yes";
	n = apply_args(r, argv, n);
	if (r->backup_dir) {
		argv[n++] = "--backup-dir";
		argv[n++] = r->backup_dir;
	}
	argv[n++] = d->device;
	argv[n] = NULL;
	rc = spawn(program(true, path, sizeof(path)), argv, false, &co);
	err = last_error(&co);
	output_free(&co);
	if (rc < 0) {
		disk_fail(d, ACT_ERROR, "cannot run partalign-apply: %s", strerror(-rc));
	} else if (rc & (PA_EXIT_ERROR | PA_EXIT_USAGE) || rc >= 32) {
		disk_fail(d, ACT_ERROR, "%s", err ? err : "partalign fix --new failed");
	} else if (rc & PA_EXIT_MISALIGNED) {
		disk_fail(d, ACT_REFUSED, "%s",
			  err ? err : "partalign fix --new refused it");
	} else {
		rc &= PA_EXIT_CHANGED | PA_EXIT_REBOOT;
		d->reboot = rc & PA_EXIT_REBOOT;
		if (d->reboot)
			disk_remark(d,
				    "the table is written but the kernel still uses the "
				    "old one: reboot, then run provision again");
	}
	free(err);
	return d->action == ACT_ERROR || d->action == ACT_REFUSED ? 0 : rc;
}

/* One disk: refuse, keep, or create its partition; 0 or -1 (refused, failed). */
static int provision_disk(struct run *r, struct disk *d)
{
	struct probe *pr = probe_dev(r, d->dev);
	char buf[128];
	int rc;

	d->probe = pr;
	if (probe_keeps(pr)) {
		if (pr->pname && *pr->pname && strcasecmp(pr->pname, d->name) != 0)
			return disk_fail(
			    d, ACT_REFUSED,
			    "%s holds the partition provision makes, but it is "
			    "named %s, not %s: this disk may be %s elsewhere; check "
			    "the selector %s",
			    d->device, pr->pname, d->name, pr->pname, d->selector);
		d->action = ACT_KEPT;
		if (!pr->pname || !*pr->pname)
			disk_remark(d, "its partition has no GPT name (not renamed)");
		if (pr->refused) {
			/* nothing to write, so being in use is no reason to refuse */
			disk_remark(d, "in use (%s)", pr->refused);
			return 0;
		}
		if (pr->rc == PA_EXIT_OK)
			return 0;
		/* the table is right but the kernel's partitions are not */
		if (r->o.dry_run) {
			d->changed = true;
			disk_remark(d, "dry run: the kernel's partitions differ from the "
				       "table; fix --new would update them");
			return 0;
		}
		rc = run_fix(r, d);
		if (rc & PA_EXIT_CHANGED) {
			d->changed = true;
			disk_remark(
			    d, "the kernel's partitions were updated from the table");
		}
		r->status |= rc;
		return d->action == ACT_KEPT ? 0 : -1;
	}
	if (pr->refused)
		return disk_fail(d, ACT_REFUSED, "%s: %s", d->device, pr->refused);
	if (!probe_creates(pr))
		return disk_fail(d, ACT_ERROR, "%s", probe_failure(pr, buf, sizeof(buf)));
	d->action = ACT_CREATED;
	d->changed = true;
	if (r->o.dry_run) {
		disk_remark(d, "dry run: one partition would be created at %s bytes",
			    pr->new_start ? pr->new_start : "?");
		return 0;
	}
	note(d->name, "%s is blank: creating its partition", d->device);
	rc = run_fix(r, d);
	r->status |= rc;
	d->changed = rc & PA_EXIT_CHANGED;
	if (d->action != ACT_CREATED)
		return -1;
	if (!d->changed)
		d->action = ACT_KEPT; /* another run made it between our look and fix */
	return 0;
}

/* The partition of each disk as the kernel has it now, and its alignment. */
static void check_partitions(struct run *r)
{
	char **names = calloc(r->c.n + 1, sizeof(char *));
	struct pa_scan_opts so = {.names = names};
	struct pa_diags diags = {0};
	size_t i, j;
	int rc;

	if (!names)
		nomem();
	for (i = 0; i < r->c.n; i++) {
		struct disk *d = &r->c.v[i];

		if ((d->action == ACT_CREATED || d->action == ACT_KEPT) && d->device)
			names[so.nnames++] = d->device;
	}
	rc = so.nnames ? scan_devices(&so, &r->after, &diags) : 0;
	pa_diags_free(&diags);
	for (i = 0; i < r->c.n; i++) {
		struct disk *d = &r->c.v[i];
		const struct pa_dev *part = NULL;
		struct pa_dev *whole = NULL;
		unsigned int nparts = 0;
		struct pa_check chk;

		if (d->action != ACT_CREATED && d->action != ACT_KEPT)
			continue;
		if (rc < 0) {
			disk_fail(d, ACT_ERROR, "cannot scan the disks again: %s",
				  strerror(-rc));
			continue;
		}
		if (r->o.dry_run && d->action == ACT_CREATED) {
			const struct probe *pr = d->probe;

			d->aligned = true;
			for (j = 0; j < 3; j++)
				d->aligned &= pr->verdicts[j] &&
					      strcmp(pr->verdicts[j], "misaligned") != 0;
			continue;
		}
		if (scan_lookup(&r->after, d->device, &whole) < 0) {
			disk_fail(d, ACT_ERROR, "%s is gone", d->device);
			continue;
		}
		for (j = 0; j < r->after.n; j++) {
			const struct pa_dev *p = r->after.v[j];

			if (p->kind != PA_KIND_PART || p->disk != whole ||
			    p->kernel_missing)
				continue;
			nparts++;
			if (!part || p->partno < part->partno)
				part = p;
		}
		if (!part) {
			/* after a write the kernel did not take, the reason says so */
			if (!d->reboot)
				disk_fail(d, ACT_ERROR,
					  "the kernel shows no partition on %s",
					  d->device);
			continue;
		}
		if (nparts > 1)
			disk_remark(d, "the kernel shows %u partitions on %s", nparts,
				    d->device);
		d->partition = xstrdup(part->path);
		align_check_dev(part, &r->grain, &chk);
		d->aligned = chk.physical != PA_VERDICT_MISALIGNED &&
			     chk.optimal != PA_VERDICT_MISALIGNED &&
			     chk.policy != PA_VERDICT_MISALIGNED;
		if (!d->aligned) {
			disk_remark(d, "%s: %s", part->path, chk.reason);
			msg_err(part->path, 0, "misaligned: %s", chk.reason);
			r->status |= PA_EXIT_MISALIGNED;
		}
	}
	free(names);
}

/* ---- rules --------------------------------------------------------------- */

/* 1 in a chroot, 0 not, -errno when it cannot be told (no /proc). */
static int in_chroot(void)
{
	struct stat a, b;

	if (stat("/", &a) < 0 || stat("/proc/1/root", &b) < 0)
		return -errno;
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

static const char *eff_owner(const struct run *r, const struct disk *d)
{
	return d->owner ? d->owner : r->c.owner ? r->c.owner : RULES_DEFAULT_OWNER;
}

static const char *eff_group(const struct run *r, const struct disk *d)
{
	return d->group ? d->group : r->c.group ? r->c.group : RULES_DEFAULT_GROUP;
}

static const char *eff_mode(const struct run *r, const struct disk *d)
{
	return d->mode[0] ? d->mode : r->c.mode[0] ? r->c.mode : RULES_DEFAULT_MODE;
}

/* A map for `rules --map` when the disks differ in owner, group or mode. */
static char *write_map(const struct run *r)
{
	const char *tmp = getenv("TMPDIR");
	char *path =
	    xasprintf("%s/partalign-provision.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	size_t i;
	FILE *f;
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		msg_err(path, errno, "cannot create a map file for partalign rules");
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	for (i = 0; i < r->c.n; i++) {
		const struct disk *d = &r->c.v[i];

		fprintf(f, "%s %s %s %s %s\n", d->name, d->partition, eff_owner(r, d),
			eff_group(r, d), eff_mode(r, d));
	}
	if (fclose(f) != 0) {
		msg_err(path, errno, "cannot write a map file for partalign rules");
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

static void run_rules(struct run *r)
{
	const char *output = r->c.rules ? r->c.rules : RULES_DEFAULT_OUTPUT;
	size_t i, n = 0, nfail = 0, ndry = 0;
	const struct disk *first = &r->c.v[0];
	bool uniform = true;
	char path[PATH_MAX], **argv, *map = NULL, *err;
	struct output co;
	int rc, ch;

	r->rules_file =
	    r->o.root ? xasprintf("%s%s", r->o.root, output) : xstrdup(output);
	for (i = 0; i < r->c.n; i++) {
		const struct disk *d = &r->c.v[i];

		if ((d->action != ACT_CREATED && d->action != ACT_KEPT) || !d->partition)
			nfail++;
		if (r->o.dry_run && d->action == ACT_CREATED)
			ndry++; /* would be created: no partition to name yet */
		uniform &= strcmp(eff_owner(r, d), eff_owner(r, first)) == 0 &&
			   strcmp(eff_group(r, d), eff_group(r, first)) == 0 &&
			   strcmp(eff_mode(r, d), eff_mode(r, first)) == 0;
	}
	if (nfail) {
		r->rules_result = "skipped";
		if (nfail == ndry)
			r->rules_reason = xstrdup("dry run: the rules can be shown once "
						  "the partitions exist");
		else
			r->rules_reason = xasprintf(
			    "not written: %zu of %zu disks have no usable partition, "
			    "and a file without them would drop their rules",
			    nfail - ndry, r->c.n);
		note(NULL, "rules: %s", r->rules_reason);
		return;
	}
	argv = calloc(r->c.n * 2 + 24, sizeof(char *));
	if (!argv)
		nomem();
	argv[n++] = PA_PROG;
	argv[n++] = "rules";
	argv[n++] = "--match";
	argv[n++] = "auto";
	argv[n++] = "--output";
	argv[n++] = (char *)output;
	if (r->o.root) {
		argv[n++] = "--root";
		argv[n++] = (char *)r->o.root;
	}
	if (r->o.no_reload)
		argv[n++] = "--no-reload";
	if (r->o.dry_run)
		argv[n++] = "--dry-run";
	if (uniform) {
		argv[n++] = "--owner";
		argv[n++] = (char *)eff_owner(r, first);
		argv[n++] = "--group";
		argv[n++] = (char *)eff_group(r, first);
		argv[n++] = "--mode";
		argv[n++] = (char *)eff_mode(r, first);
		for (i = 0; i < r->c.n; i++) {
			argv[n++] = "--disk";
			argv[n++] =
			    xasprintf("%s=%s", r->c.v[i].name, r->c.v[i].partition);
		}
	} else {
		map = write_map(r);
		if (!map) {
			r->rules_result = "refused";
			r->rules_reason =
			    xstrdup("cannot create the map file for partalign rules");
			r->status |= PA_EXIT_ERROR;
			free(argv);
			return;
		}
		argv[n++] = "--map";
		argv[n++] = map;
	}
	argv[n] = NULL;

	/* rules decides the same way; say it in the summary too */
	if (r->o.root)
		r->no_trigger = "--root: udev not triggered, the rules apply at the next "
				"boot of that system";
	else if ((ch = in_chroot()) > 0)
		r->no_trigger =
		    "running in a chroot: udev not triggered, the rules apply "
		    "at the next boot";
	else if (ch < 0)
		r->no_trigger =
		    "cannot tell whether this is a chroot (no /proc): udev not "
		    "triggered, the rules apply at the next boot";
	else if (r->o.no_reload)
		r->no_trigger = "--no-reload: udev not reloaded";
	if (r->no_trigger)
		note(NULL, "%s", r->no_trigger);

	rc = spawn(program(false, path, sizeof(path)), argv, false, &co);
	err = last_error(&co);
	output_free(&co);
	if (map) {
		unlink(map);
		free(map);
	} else {
		for (i = 0; argv[i]; i++)
			if (strcmp(argv[i], "--disk") == 0)
				free(argv[++i]);
	}
	free(argv);
	if (rc == PA_EXIT_OK) {
		r->rules_result = "unchanged";
	} else if (rc == PA_EXIT_CHANGED) {
		r->rules_result = "written";
		r->status |= PA_EXIT_CHANGED;
	} else if (rc == (PA_EXIT_CHANGED | PA_EXIT_ERROR)) {
		r->rules_result = "written";
		r->rules_reason =
		    xstrdup(err ? err : "written, but udev did not apply them");
		r->status |= PA_EXIT_CHANGED | PA_EXIT_ERROR;
	} else {
		r->rules_result = "refused";
		r->rules_reason = xstrdup(err	   ? err
					  : rc < 0 ? "cannot run partalign rules"
						   : "partalign rules failed");
		r->status |= PA_EXIT_ERROR;
	}
	free(err);
}

/* ---- the report ---------------------------------------------------------- */

/*
 * JSON by hand: libsmartcols prints one table as {"name": [rows]}, and this
 * report is an object with scalars, a list and a nested object.  Every string
 * is escaped: quotes, backslashes, control bytes, and bytes outside ASCII
 * (as \u00XX, so that the output is valid UTF-8 whatever a device string holds).
 */
static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static char *summary(const struct run *r)
{
	size_t count[ACT_ERROR + 1] = {0}, i;
	char *s, *t;

	for (i = 0; i < r->c.n; i++)
		count[r->c.v[i].action]++;
	s = xasprintf("%s%zu disk%s: %zu created, %zu kept",
		      r->o.dry_run ? "dry run: " : "", r->c.n, r->c.n == 1 ? "" : "s",
		      count[ACT_CREATED], count[ACT_KEPT]);
	if (count[ACT_REFUSED]) {
		t = xasprintf("%s, %zu refused", s, count[ACT_REFUSED]);
		free(s);
		s = t;
	}
	if (count[ACT_ERROR] + count[ACT_PENDING]) {
		t = xasprintf("%s, %zu failed", s, count[ACT_ERROR] + count[ACT_PENDING]);
		free(s);
		s = t;
	}
	if (r->no_trigger && strcmp(r->rules_result, "skipped") != 0)
		t = xasprintf("%s; rules %s: %s (%s)", s, r->rules_file, r->rules_result,
			      r->no_trigger);
	else
		t = xasprintf("%s; rules %s: %s", s, r->rules_file, r->rules_result);
	free(s);
	return t;
}

static int print_json(const struct run *r, const char *msg)
{
	size_t i;

	printf("{\n   \"changed\": %s,\n   \"msg\": ",
	       r->status & PA_EXIT_CHANGED ? "true" : "false");
	json_str(stdout, msg);
	printf(",\n   \"dry_run\": %s,\n   \"disks\": [",
	       r->o.dry_run ? "true" : "false");
	for (i = 0; i < r->c.n; i++) {
		const struct disk *d = &r->c.v[i];

		printf("%s\n      {\n         \"name\": ", i ? "," : "");
		json_str(stdout, d->name);
		printf(",\n         \"selector\": ");
		json_str(stdout, d->selector);
		printf(",\n         \"device\": ");
		json_str(stdout, d->device);
		printf(",\n         \"partition\": ");
		json_str(stdout, d->partition);
		printf(",\n         \"action\": ");
		json_str(stdout, action_names[d->action]);
		printf(",\n         \"changed\": %s,\n         \"aligned\": %s,\n"
		       "         \"reason\": ",
		       d->changed ? "true" : "false", d->aligned ? "true" : "false");
		json_str(stdout, d->reason);
		printf("\n      }");
	}
	printf("\n   ],\n   \"rules\": {\n      \"file\": ");
	json_str(stdout, r->rules_file);
	printf(",\n      \"result\": ");
	json_str(stdout, r->rules_result);
	printf(",\n      \"reason\": ");
	json_str(stdout, r->rules_reason);
	printf("\n   }\n}\n");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_err(NULL, errno, "write error on standard output");
		return PA_EXIT_ERROR;
	}
	return PA_EXIT_OK;
}

enum { PC_NAME, PC_DEVICE, PC_PARTITION, PC_ACTION, PC_ALIGNED, PC_REASON };

static const struct out_col pcols[] = {
    [PC_NAME] = {"NAME", 0.1, 0, SCOLS_JSON_STRING, "ASM disk name"},
    [PC_DEVICE] = {"DEVICE", 0.1, 0, SCOLS_JSON_STRING, "whole disk"},
    [PC_PARTITION] = {"PARTITION", 0.1, 0, SCOLS_JSON_STRING, "its partition"},
    [PC_ACTION] = {"ACTION", 7, 0, SCOLS_JSON_STRING, "created, kept, refused, error"},
    [PC_ALIGNED] = {"ALIGNED", 3, 0, SCOLS_JSON_STRING, "partition aligned"},
    [PC_REASON] = {"REASON", 0.5, SCOLS_FL_WRAP, SCOLS_JSON_STRING, "why"},
};

static int print_table(const struct run *r, const char *msg)
{
	const int sel[] = {PC_NAME,   PC_DEVICE,  PC_PARTITION,
			   PC_ACTION, PC_ALIGNED, PC_REASON};
	struct out_opts oo = {.format = OUT_TABLE};
	struct libscols_table *tb;
	size_t i;
	int status;

	tb = out_table_new(&oo, "provision", pcols, sel, sizeof(sel) / sizeof(sel[0]));
	if (!tb)
		nomem();
	for (i = 0; i < r->c.n; i++) {
		const struct disk *d = &r->c.v[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			nomem();
		out_set_str(ln, PC_NAME, d->name);
		out_set_str(ln, PC_DEVICE, d->device ? d->device : "-");
		out_set_str(ln, PC_PARTITION, d->partition ? d->partition : "-");
		out_set_str(ln, PC_ACTION, action_names[d->action]);
		out_set_str(ln, PC_ALIGNED,
			    d->partition || (r->o.dry_run && d->action == ACT_CREATED)
				? (d->aligned ? "yes" : "no")
				: "-");
		out_set_str(ln, PC_REASON, d->reason);
	}
	status = out_print(tb);
	scols_unref_table(tb);
	printf("%s\n", msg);
	if (r->rules_reason)
		printf("rules: %s\n", r->rules_reason);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		msg_err(NULL, errno, "write error on standard output");
		status |= PA_EXIT_ERROR;
	}
	return status;
}

/* ---- the command --------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("Usage: partalign provision --config FILE [options]\n"
	      "\n"
	      "Prepare the Oracle ASM disks a configuration names: partition each blank\n"
	      "disk (one GPT partition on the grain, named like the disk), check the\n"
	      "partitions, and write the udev rules for all of them.  Non-interactive\n"
	      "and idempotent: a second run changes nothing and exits 0.\n"
	      "\n"
	      "Configuration: one disk a line, 'NAME SELECTOR [owner=U] [group=G]\n"
	      "[mode=M]', SELECTOR a /dev path, wwn:ID, serial:ID or size:SIZE (the one\n"
	      "blank disk of that size); global lines 'owner U', 'group G', 'mode M',\n"
	      "'align SIZE', 'rules FILE'; '#' comments.  See partalign(8).\n"
	      "\n"
	      "Options:\n"
	      "  -c, --config FILE     the configuration (required)\n"
	      "  -J, --json            a JSON summary on stdout (logs stay on stderr)\n"
	      "      --root DIR        write the rules into the system mounted at DIR\n"
	      "                        (and the table backups, unless --backup-dir)\n"
	      "      --backup-dir DIR  where fix keeps the table backups\n"
	      "  -a, --align SIZE      policy grain (default: the configuration's, or "
	      "2MiB)\n"
	      "      --no-reload       do not reload or trigger udev\n"
	      "  -n, --dry-run         change nothing; report what would change\n"
	      "  -h, --help            this text\n"
	      "\n"
	      "Exit status: 0 nothing changed, 1 something changed, 2 written but the\n"
	      "kernel has the old table, 4 a disk refused or misaligned, 8 error, 16\n"
	      "usage or configuration error (OR-ed together).\n",
	      f);
}

static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_ROOT = 256, OPT_BACKUP, OPT_NO_RELOAD };
	static const struct option longopts[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, 'J'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"align", required_argument, NULL, 'a'},
	    {"no-reload", no_argument, NULL, OPT_NO_RELOAD},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pa_grain g;
	struct stat st;
	int c;

	while ((c = getopt_long(argc, argv, "c:Ja:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'J':
			o->json = true;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_BACKUP:
			o->backup_dir = optarg;
			break;
		case 'a':
			if (!cli_parse_grain(optarg, &g))
				return PA_EXIT_USAGE;
			o->align = optarg;
			break;
		case OPT_NO_RELOAD:
			o->no_reload = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return PA_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		msg_err(NULL, 0,
			"unexpected argument '%s' (the disks are in --config FILE)",
			argv[optind]);
		return PA_EXIT_USAGE;
	}
	if (!o->config) {
		msg_err(NULL, 0, "--config FILE is required");
		usage(stderr);
		return PA_EXIT_USAGE;
	}
	if (o->root && (!*o->root || stat(o->root, &st) < 0 || !S_ISDIR(st.st_mode))) {
		msg_err(o->root, *o->root ? errno : 0, "--root: not a directory");
		return PA_EXIT_USAGE;
	}
	return PA_EXIT_OK;
}

static void run_free(struct run *r)
{
	size_t i, j;

	for (i = 0; i < r->c.n; i++)
		disk_free(&r->c.v[i]);
	free(r->c.v);
	free(r->c.owner);
	free(r->c.group);
	free(r->c.align);
	free(r->c.rules);
	for (i = 0; i < r->nprobes; i++) {
		struct probe *p = &r->probes[i];

		free(p->action);
		free(p->pname);
		free(p->refused);
		free(p->new_start);
		for (j = 0; j < 3; j++)
			free(p->verdicts[j]);
		free(p->err);
	}
	free(r->probes);
	free(r->backup_dir);
	free(r->rules_file);
	free(r->rules_reason);
	pa_devlist_free(&r->devs);
	pa_devlist_free(&r->after);
}

int cmd_provision(int argc, char **argv)
{
	struct run r = {0};
	struct pa_scan_opts so = {0};
	struct pa_diags diags = {0};
	char *msg, **names;
	size_t i;
	int rc;

	rc = parse(argc, argv, &r.o);
	if (rc)
		return rc < 0 ? PA_EXIT_OK : rc;
	if (cfg_read(&r.c, r.o.config) < 0) {
		run_free(&r);
		return PA_EXIT_USAGE;
	}
	r.grain = r.c.grain;
	if (r.o.align)
		cli_parse_grain(r.o.align, &r.grain);
	if (r.o.backup_dir)
		r.backup_dir = xstrdup(r.o.backup_dir);
	else if (r.o.root)
		r.backup_dir = xasprintf("%s%s/backup", r.o.root, PA_STATEDIR);

	/* paths only: their neighbourhood is enough; IDs and sizes need the host */
	names = calloc(r.c.n + 1, sizeof(char *));
	if (!names)
		nomem();
	for (i = 0; i < r.c.n; i++) {
		if (r.c.v[i].sel != SEL_PATH)
			break;
		names[i] = (char *)r.c.v[i].value;
	}
	if (i == r.c.n) {
		so.names = names;
		so.nnames = r.c.n;
	}
	/* unreadable devices matter only when a selector lands on them */
	rc = scan_devices(&so, &r.devs, &diags);
	free(names);
	pa_diags_free(&diags);
	if (rc < 0) {
		msg_err(NULL, -rc, "cannot scan the block devices");
		run_free(&r);
		return PA_EXIT_ERROR;
	}
	resolve_all(&r);
	for (i = 0; i < r.c.n; i++)
		if (r.c.v[i].action == ACT_PENDING)
			provision_disk(&r, &r.c.v[i]);
	check_partitions(&r);
	for (i = 0; i < r.c.n; i++) {
		struct disk *d = &r.c.v[i];

		if (d->action == ACT_REFUSED)
			r.status |= PA_EXIT_MISALIGNED;
		else if (d->action == ACT_ERROR || d->action == ACT_PENDING)
			r.status |= PA_EXIT_ERROR;
		if (d->changed)
			r.status |= PA_EXIT_CHANGED;
		if (d->action == ACT_CREATED || d->action == ACT_KEPT)
			note(d->name, "%s%s%s: %s%s", d->device,
			     d->partition ? " -> " : "", d->partition ? d->partition : "",
			     action_names[d->action],
			     r.o.dry_run && d->action == ACT_CREATED ? " (dry run)" : "");
	}
	run_rules(&r);
	msg = summary(&r);
	note(NULL, "%s", msg);
	r.status |= r.o.json ? print_json(&r, msg) : print_table(&r, msg);
	free(msg);
	rc = r.status;
	run_free(&r);
	return rc;
}
