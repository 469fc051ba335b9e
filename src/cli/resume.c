/*
 * partalign resume, and the command-line side of fix --move-data: the hooks
 * plan.c calls (move-cli.h), progress on a terminal, the closing
 * report.  `resume DEVICE` is `fix --move-data --yes DEVICE` for a disk
 * that has a journal: the plan comes from the journal, the data moves on
 * from its last progress record, then the table is written.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/move-cli.h"
#include "core/exitcodes.h"
#include "scan/scan.h"

static const char *jdir(const struct cli_move_opts *mo)
{
	return mo && mo->journal_dir ? mo->journal_dir : move_journal_dir_default();
}

/* Replace any refusal by @why: an unfinished move or a misplaced journal outranks all. */
static int refuse_over(struct pa_plan *p, char *why)
{
	int rc;

	if (!why)
		return -ENOMEM;
	free(p->refusal);
	p->refusal = NULL;
	rc = plan_refuse(p, "%s", why);
	free(why);
	return rc;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, f);
	rc = vasprintf(&s, f, ap);
	va_end(ap);
	return rc < 0 ? NULL : s;
}

int cli_move_prepare(const struct cli_move_opts *mo, const struct pa_plan_opts *po,
		     const struct pa_dev *dev, struct pa_plan *p, struct pa_mover **mv)
{
	char *path = NULL, *pointer = NULL;
	int rc = move_journal_find(jdir(mo), dev, &path);

	if (rc <= 0)
		return rc;
	rc = 0;
	msg_warn(dev->path, "unfinished data move, journal %s", path);
	if (!po->move_data) {
		rc = refuse_over(
		    p, fmt("an unfinished data move (journal %s): finish it with "
			   "'partalign resume %s'",
			   path, dev->path));
		goto out;
	}
	pointer = move_journal_path(move_journal_dir_default(), dev);
	rc = move_open(path, pointer, mv);
	free(pointer);
	if (rc < 0) {
		msg_err(dev->path, -rc, "cannot read the journal %s", path);
		rc = refuse_over(
		    p, fmt("the journal %s of an unfinished move cannot be read", path));
		goto out;
	}
	rc = journal_plan(move_journal(*mv), &dev->topo, po, p);
out:
	free(path);
	return rc;
}

int cli_move_check_location(const struct cli_move_opts *mo, const struct pa_plan_opts *po,
			    const struct pa_devlist *l, const struct pa_dev *dev,
			    struct pa_plan *p)
{
	char *where = NULL, *msg;
	int rc;

	if (!po->move_data || (!p->changes && !p->refusal))
		return 0;
	rc = move_journal_on_disk(jdir(mo), l, dev, &where);
	if (rc <= 0)
		return 0; /* cannot tell: the journal's own open fails later if it must */
	msg = fmt(
	    "the journal directory %s is on %s, on the disk being moved: give --journal "
	    "on another disk",
	    jdir(mo), where);
	free(where);
	return refuse_over(p, msg);
}

/* Are two directory names the same directory (either may not exist yet)? */
static bool same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (strcmp(a, b) == 0)
		return true;
	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

static const char *human(uint64_t b, char *buf, size_t len)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b;
	size_t i = 0;

	while (v >= 1024 && i + 1 < sizeof(u) / sizeof(u[0])) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, u[i]);
	return buf;
}

struct prog_ctx {
	const char *dev;
	bool show;
	bool shown;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static bool on_progress(void *arg, const struct pa_move_progress *p)
{
	struct prog_ctx *c = arg;
	double rate = p->seconds > 0 ? (double)p->done / p->seconds : 0;
	char a[32], b[32];
	long eta = rate > 0 ? (long)((double)(p->total - p->done) / rate) : 0;

	if (c->show) {
		fprintf(stderr,
			"\r%s: moving partition %u (%zu/%zu): %s of %s, %.0f MB/s, "
			"ETA %ld:%02ld\033[K",
			c->dev, p->num, p->index + 1, p->count,
			human(p->done, a, sizeof(a)), human(p->total, b, sizeof(b)),
			rate / 1e6, eta / 60, eta % 60);
		fflush(stderr);
		c->shown = true;
	}
	return stop_signal != 0;
}

/* Ctrl-C, SIGTERM, SIGHUP: stop the move between chunks (it is resumable anyway). */
static void catch_signals(bool on, struct sigaction *old)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (on)
			sigaction(sigs[i], &sa, &old[i]);
		else
			sigaction(sigs[i], &old[i], NULL);
	}
}

static uint64_t chunk_from_env(void)
{
	const char *e = getenv("PARTALIGN_MOVE_CHUNK");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return 0;
	v = strtoull(e, &end, 10);
	return *end || v % PA_JOURNAL_BLOCK ? 0 : v;
}

int cli_move_run(const struct cli_move_opts *mo, const struct pa_dev *dev,
		 struct pa_disk *d, const struct pa_plan *p, struct pa_mover **mv,
		 struct pa_writer *w, bool report)
{
	struct prog_ctx pc = {.dev = dev->path};
	struct sigaction old[3];
	struct pa_move_stats st;
	char a[32], b[32], *id = NULL, *path = NULL, *pointer;
	uint64_t bad = 0;
	int rc;

	if (!*mv) {
		if (!p->changes)
			return PA_EXIT_OK;
		path = move_journal_path(jdir(mo), dev);
		id = apply_disk_id(dev);
		pointer = same_dir(jdir(mo), move_journal_dir_default())
			      ? NULL
			      : move_journal_path(move_journal_dir_default(), dev);
		rc = path && id ? move_create(path, pointer, p, dev->path, id,
					      chunk_from_env(), mv)
				: -ENOMEM;
		free(id);
		free(pointer);
		if (rc < 0) {
			msg_err(dev->path, -rc,
				"cannot create the move journal %s; nothing moved",
				path ? path : jdir(mo));
			free(path);
			return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
		}
		free(path);
		if (report)
			printf("%s: move journal %s\n", dev->path, move_path(*mv));
	}
	if (move_journal(*mv)->disk_size != d->size ||
	    move_journal(*mv)->logical != d->logical) {
		msg_err(dev->path, 0, "the journal %s belongs to a disk of another size",
			move_path(*mv));
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	}
	pc.show = !mo->quiet && isatty(STDERR_FILENO);
	stop_signal = 0;
	catch_signals(true, old);
	rc = move_run(*mv, w, on_progress, &pc, &st);
	catch_signals(false, old);
	if (pc.shown)
		fputc('\n', stderr);
	if (rc == -EINTR) {
		msg_err(dev->path, 0,
			"interrupted by signal %d; the journal %s holds all it needs: "
			"finish with 'partalign resume %s'",
			(int)stop_signal, move_path(*mv), dev->path);
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	}
	if (rc < 0) {
		msg_err(dev->path, -rc,
			"moving the data stopped; the journal %s holds all it needs: "
			"finish with 'partalign resume %s'",
			move_path(*mv), dev->path);
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	}
	if (report && st.bytes)
		printf("%s: moved %s in %.2f s, %.0f MB/s%s%s%s\n", dev->path,
		       human(st.bytes, a, sizeof(a)), st.seconds,
		       st.seconds > 0 ? (double)st.bytes / st.seconds / 1e6 : 0.0,
		       st.redone ? " (" : "",
		       st.redone ? human(st.redone, b, sizeof(b)) : "",
		       st.redone ? " redone from the journal)" : "");
	if (mo->verify) {
		rc = move_verify(*mv, w, &bad);
		if (rc == -EILSEQ) {
			msg_err(dev->path, 0,
				"verify: the data at byte %" PRIu64 " does not match "
				"its checksum; table not written, journal %s kept",
				bad, move_path(*mv));
			return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
		}
		if (rc < 0) {
			msg_err(dev->path, -rc, "verify: cannot re-read the moved data");
			return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
		}
		if (report)
			printf("%s: verified: the moved data matches its checksums\n",
			       dev->path);
	}
	return PA_EXIT_OK;
}

void cli_move_done(const struct pa_dev *dev, struct pa_mover *mv)
{
	int rc;

	if (!mv)
		return;
	rc = move_finish(mv);
	if (rc < 0)
		msg_warn(dev->path, "cannot remove the finished journal %s: %s",
			 move_path(mv), strerror(-rc));
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: partalign resume [options] DEVICE...\n"
	    "\n"
	    "Finish an interrupted 'partalign fix --move-data' on each DEVICE: move the "
	    "rest\n"
	    "of the data from the journal's last record, then write the new table.\n"
	    "\n"
	    "Options:\n"
	    "      --journal DIR     where the journals are (default %s)\n"
	    "      --backup-dir DIR  where table backups go (default %s/backup)\n"
	    "      --verify          re-read the moved data and compare the checksums\n"
	    "  -q, --quiet           no progress on the terminal\n"
	    "      --wait SECONDS    wait this long for the disk lock (default 10)\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Exit status as for fix; 0 when there is nothing to resume.  See "
	    "partalign(8).\n",
	    move_journal_dir_default(), PA_STATEDIR);
}

int cmd_resume(int argc, char **argv)
{
	enum { OPT_JOURNAL = 256, OPT_BACKUP, OPT_VERIFY, OPT_WAIT };
	static const struct option longopts[] = {
	    {"journal", required_argument, NULL, OPT_JOURNAL},
	    {"backup-dir", required_argument, NULL, OPT_BACKUP},
	    {"verify", no_argument, NULL, OPT_VERIFY},
	    {"quiet", no_argument, NULL, 'q'},
	    {"wait", required_argument, NULL, OPT_WAIT},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *journal = NULL, *backup = NULL, *wait = NULL;
	bool verify = false, quiet = false;
	struct pa_scan_opts so = {0};
	struct pa_devlist devs = {0};
	struct pa_diags diags = {0};
	char *fargv[16 + 256];
	int fargc = 0, status = PA_EXIT_OK, c, i, rc, pending = 0;

	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JOURNAL:
			journal = optarg;
			break;
		case OPT_BACKUP:
			backup = optarg;
			break;
		case OPT_VERIFY:
			verify = true;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_WAIT:
			wait = optarg;
			break;
		case 'h':
			usage(stdout);
			return PA_EXIT_OK;
		default:
			usage(stderr);
			return PA_EXIT_USAGE;
		}
	}
	if (optind == argc || argc - optind > 256) {
		msg_err(NULL, 0, optind == argc ? "no device given" : "too many devices");
		return PA_EXIT_USAGE;
	}
	rc = scan_devices(&so, &devs, &diags);
	status |= msg_diags(&diags);
	pa_diags_free(&diags);
	if (rc < 0) {
		msg_err(NULL, -rc, "cannot scan block devices");
		pa_devlist_free(&devs);
		return status | PA_EXIT_ERROR;
	}
	fargv[fargc++] = argv[0];
	fargv[fargc++] = "--move-data";
	fargv[fargc++] = "--yes";
	if (journal) {
		fargv[fargc++] = "--journal";
		fargv[fargc++] = (char *)journal;
	}
	if (backup) {
		fargv[fargc++] = "--backup-dir";
		fargv[fargc++] = (char *)backup;
	}
	if (wait) {
		fargv[fargc++] = "--wait";
		fargv[fargc++] = (char *)wait;
	}
	if (verify)
		fargv[fargc++] = "--verify";
	if (quiet)
		fargv[fargc++] = "--quiet";
	for (i = optind; i < argc; i++) {
		struct pa_dev *d = NULL;
		char *path;

		rc = scan_lookup(&devs, argv[i], &d);
		if (rc < 0 || d->kind == PA_KIND_PART) {
			fargv[fargc++] = argv[i]; /* fix says what is wrong with it */
			pending++;
			continue;
		}
		path = NULL;
		if (move_journal_find(journal ? journal : move_journal_dir_default(), d,
				      &path) > 0) {
			fargv[fargc++] = argv[i];
			pending++;
		} else {
			printf("%s: nothing to resume (no journal in %s)\n", d->path,
			       journal ? journal : move_journal_dir_default());
		}
		free(path);
	}
	fargv[fargc] = NULL;
	pa_devlist_free(&devs);
	if (!pending)
		return status;
	optind = 0; /* fix parses its own arguments */
	return status | cmd_fix(fargc, fargv);
}
