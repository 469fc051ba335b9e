/*
 * The command-line side of fix --move-data and resume: the hooks of
 * move-cli.h that plan.c and fix.c call (an unfinished move found on the
 * disk, where the journal may live, a new move's journal, the move with
 * its progress on a terminal and its report, the journal's end).  It calls
 * nothing of plan.c, fix.c or resume.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/move-cli.h"
#include "cli/trusted.h"
#include "core/exitcodes.h"
#include "scan/scan.h"
#include "shared/size.h"

static const char *jdir(const struct cli_move_opts *mo)
{
	return mo && mo->journal_dir ? mo->journal_dir : move_journal_dir_default();
}

static bool same_dir(const char *a, const char *b);

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

/*
 * Refuse a journal, or the place the disk records for it, that is not
 * trusted: "@what: <why>; <rule><@tail>" (@what is freed).
 */
static int refuse_untrusted(struct pa_plan *p, char *what, const struct trust_fail *f,
			    const char *tail)
{
	char *t = cli_trust_text(NULL, f);
	int rc = refuse_over(
	    p, what && t ? fmt("%s: %s; %s%s", what, t, cli_trust_rule(f), tail) : NULL);

	free(what);
	free(t);
	return rc;
}

/* " (the disk says it was written to PATH)", in a static buffer. */
static const char *fmt_where(const char *path)
{
	static char buf[PATH_MAX + 64];

	snprintf(buf, sizeof(buf), " (the disk says it was written to %s)", path);
	return buf;
}

/* "0f3c2a9b6d1e4c57", or the 8 digits a dos disk records. */
static const char *id_text(uint64_t id, bool id32, char *buf, size_t len)
{
	if (id32)
		snprintf(buf, len, "%08" PRIx32, (uint32_t)id);
	else
		snprintf(buf, len, "%016" PRIx64, id);
	return buf;
}

/* The journal belongs to this disk's table: identity, and the GUID of each entry. */
static char *foreign_journal(const struct pa_journal *j, const struct pa_table *t)
{
	size_t m, i;
	char *why = NULL;

	for (m = 0; m < j->n; m++) {
		const struct pa_jmove *v = &j->v[m];

		for (i = 0; i < t->n && t->v[i].num != v->num; i++)
			;
		if (i == t->n)
			continue; /* journal_plan says what is missing */
		if (v->entry.uuid[0] &&
		    (!t->v[i].uuid || strcasecmp(t->v[i].uuid, v->entry.uuid)))
			return fmt("partition %u has the GUID %s, the journal's has %s",
				   v->num, t->v[i].uuid ? t->v[i].uuid : "none",
				   v->entry.uuid);
	}
	if (strncmp(j->label, "gpt:", 4) == 0 && t->label != PA_LABEL_GPT)
		why = fmt("the journal is of a GPT disk (%s)", j->label);
	else if (strncmp(j->label, "gpt:", 4) == 0 && t->ident[0] &&
		 strcasecmp(t->ident, j->label))
		why = fmt("the journal is of the table %s, this disk has %s", j->label,
			  t->ident);
	else if (strncmp(j->label, "dos:", 4) == 0 && t->label != PA_LABEL_MSDOS)
		why = fmt("the journal is of a dos disk (%s)", j->label);
	return why;
}

int cli_move_prepare(const struct cli_move_opts *mo, const struct pa_plan_opts *po,
		     const struct pa_devlist *l, const struct pa_dev *dev,
		     struct pa_plan *p, struct pa_mover **mv)
{
	const struct pa_table *t = &p->table;
	char *path = NULL, *why, idt[24];
	struct trust_fail tf;
	int rc;

	if (!t->marked) {
		/* a 0.1 journal: its move left no marker, so only that journal knows */
		rc = move_journal_find(jdir(mo), dev, &path);
		if (rc == 0 && cli_move_warn_stray(jdir(mo), dev, l) == 0 &&
		    !same_dir(jdir(mo), move_journal_dir_default()))
			cli_move_warn_stray(move_journal_dir_default(), dev, l);
		if (rc <= 0)
			return rc;
		rc = refuse_over(
		    p, fmt("a move journal of partalign 0.1 (%s) is there for this "
			   "disk, which carries no move marker: finish that move with "
			   "the partalign that started it, or move the file away if it "
			   "is not this disk's",
			   path));
		free(path);
		return rc;
	}
	id_text(t->move_id, t->move_id32, idt, sizeof(idt));
	rc = move_journal_find_move(jdir(mo), t->move_id, t->move_id32, t->move_journal,
				    &path, &tf);
	if (rc < 0)
		return rc;
	if (rc == 0 && tf.why != TRUST_OK)
		return refuse_untrusted(
		    p,
		    fmt("the journal of the unfinished data move (move id %s) is "
			"recorded as %s",
			idt, t->move_journal),
		    &tf,
		    ": move it into one and give that to 'partalign resume --journal "
		    "DIR'");
	if (rc == 0) {
		msg_warn(dev->path,
			 "unfinished data move %s recorded on the disk; no journal of "
			 "it found",
			 idt);
		return refuse_over(
		    p,
		    fmt("an unfinished data move (move id %s) is recorded on the disk, "
			"but its "
			"journal is not in %s%s%s%s: give the directory that holds it, "
			"'partalign resume --journal DIR %s'",
			idt, jdir(mo),
			strcmp(jdir(mo), move_journal_dir_default()) ? " nor in " : "",
			strcmp(jdir(mo), move_journal_dir_default())
			    ? move_journal_dir_default()
			    : "",
			t->move_journal ? fmt_where(t->move_journal) : "", dev->path));
	}
	msg_warn(dev->path, "unfinished data move %s, journal %s", idt, path);
	if (!po->move_data) {
		rc = refuse_over(
		    p, fmt("an unfinished data move (move id %s, journal %s): finish "
			   "it with 'partalign resume %s'",
			   idt, path, dev->path));
		goto out;
	}
	rc = move_open(path, NULL, mv, &tf);
	if (rc == -EPERM) {
		rc = refuse_untrusted(
		    p, fmt("the journal %s of the unfinished move %s", path, idt), &tf,
		    "");
		goto out;
	}
	if (rc < 0) {
		msg_err(dev->path, -rc, "cannot read the journal %s", path);
		rc = refuse_over(
		    p, fmt("the journal %s of the unfinished move %s cannot be read",
			   path, idt));
		goto out;
	}
	why = foreign_journal(move_journal(*mv), t);
	if (why) {
		rc = refuse_over(p,
				 fmt("the journal %s is not this disk's: %s", path, why));
		free(why);
		move_free(*mv);
		*mv = NULL;
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
	const char *fstype = NULL;
	int rc;

	if (!po->move_data || (!p->changes && !p->refusal) || p->table.marked)
		return 0; /* nothing to move, or an unfinished move: that outranks this */
	if (move_journal_durable(jdir(mo), &fstype) == -EROFS)
		return refuse_over(
		    p, fmt("the journal directory %s is on %s, which does not "
			   "outlive a power cut: give --journal on a disk file "
			   "system (not the disk being moved)",
			   jdir(mo), fstype));
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
			size_human_iec(p->done, a, sizeof(a)),
			size_human_iec(p->total, b, sizeof(b)), rate / 1e6, eta / 60,
			eta % 60);
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

/* A number from the environment, 0 when unset or not a number. */
static uint64_t env_u64(const char *name)
{
	const char *e = getenv(name);
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return 0;
	errno = 0;
	v = strtoull(e, &end, 10);
	return errno || *end ? 0 : v;
}

/*
 * Benchmark knobs (bench/move-bench): PARTALIGN_MOVE_CHUNK (bytes, a
 * multiple of 4096), PARTALIGN_MOVE_RECORD_MIN (the shortest move that
 * records progress only; 0 the default), PARTALIGN_MOVE_SPLIT (chunks per
 * distance of such a move).  Invalid values are the defaults.
 */
static struct apply_move_knobs knobs_from_env(void)
{
	struct apply_move_knobs k = {.chunk = env_u64("PARTALIGN_MOVE_CHUNK"),
				     .record_min = env_u64("PARTALIGN_MOVE_RECORD_MIN"),
				     .split =
					 (unsigned int)env_u64("PARTALIGN_MOVE_SPLIT")};

	if (k.chunk % PA_JOURNAL_BLOCK || k.chunk > PA_JOURNAL_CHUNK_MAX)
		k.chunk = 0;
	if (k.split > PA_JOURNAL_MIN_WINDOW)
		k.split = 0;
	return k;
}

/* Create the journal of a new move; exit bits, 0 when created. */
int cli_move_journal_new(const struct cli_move_opts *mo, const struct pa_dev *dev,
			 struct pa_disk *d, const struct pa_plan *p, struct pa_mover **mv)
{
	struct apply_move_knobs k = knobs_from_env();
	struct pa_journal j;
	char *id = apply_disk_id(dev);
	int rc = id ? apply_move_journal(d, p, id, &k, &j) : -ENOMEM;

	free(id);
	if (rc == -EOPNOTSUPP) {
		msg_err(dev->path, 0,
			"the partition table cannot record a move (no valid GPT or "
			"dos label); nothing moved");
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	}
	if (rc == 0)
		rc = move_create(jdir(mo),
				 same_dir(jdir(mo), move_journal_dir_default())
				     ? NULL
				     : move_journal_dir_default(),
				 &j, mv);
	if (rc < 0) {
		msg_err(dev->path, -rc,
			"cannot create the move journal in %s; nothing moved", jdir(mo));
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	}
	return PA_EXIT_OK;
}

int cli_move_run(const struct cli_move_opts *mo, const struct pa_dev *dev,
		 struct pa_disk *d, const struct pa_plan *p, struct pa_mover **mv,
		 struct pa_writer *w, bool report)
{
	struct prog_ctx pc = {.dev = dev->path};
	struct sigaction old[3];
	struct pa_move_stats st;
	char a[32], b[32];
	uint64_t bad = 0;
	int rc;

	if (!*mv) {
		if (!p->changes)
			return PA_EXIT_OK;
		rc = cli_move_journal_new(mo, dev, d, p, mv);
		if (rc)
			return rc;
	}
	/*
	 * The disk records the move before its first data write; on a resume
	 * again, since a cut may have left the marker half written, and so that
	 * it names where the journal is now.
	 */
	rc = apply_marker_write(d, w, move_journal(*mv), move_path_abs(*mv));
	if (rc < 0) {
		msg_err(dev->path, -rc,
			"cannot record the move on the disk; this run moved no data: "
			"'partalign "
			"resume %s' tries again (journal %s)",
			dev->path, move_path(*mv));
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
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
		/* the cause first; a disk that went away may come back under another name
		 */
		msg_err(
		    dev->path, 0,
		    "moving the data stopped: %s; the journal %s holds all it needs: "
		    "finish with 'partalign resume %s' (the disk's name when it is back)",
		    strerror(-rc), move_path(*mv), dev->path);
		return PA_EXIT_ERROR | PA_EXIT_MISALIGNED;
	}
	if (report && st.bytes)
		printf("%s: moved %s in %.2f s, %.0f MB/s%s%s%s\n", dev->path,
		       size_human_iec(st.bytes, a, sizeof(a)), st.seconds,
		       st.seconds > 0 ? (double)st.bytes / st.seconds / 1e6 : 0.0,
		       st.redone ? " (" : "",
		       st.redone ? size_human_iec(st.redone, b, sizeof(b)) : "",
		       st.redone ? " redone from the journal)" : "");
	if (report && st.checked)
		/* one line of an 80-column terminal for a /dev/sdX name */
		printf("%s: %" PRIu64 " of %" PRIu64
		       " chunks past the last progress record were in place\n",
		       dev->path, st.found, st.checked);
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
