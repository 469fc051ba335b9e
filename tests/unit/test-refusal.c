/*
 * Unit tests of the refusal rules of plan, fix and resume (core/refusal.c):
 * each kind of unfinished move and the words that refuse it, a journal
 * against the table it is to finish, the place of a new move's journal, a
 * disk in use, a refusal replacing another, and restore's rules (the
 * disk, the backup's fit, the identity rule and what --force waives).  The expected texts
 * are written out in full: they are what the admin reads, and the shell tests match parts
 * of them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/label.h"
#include "core/plan.h"
#include "core/refusal.h"

static const struct refusal_move base = {
    .disk = "/dev/sdb",
    .id = "0f3c2a9b6d1e4c57",
    .path = "/var/lib/partalign/journal/x-0f3c2a9b6d1e4c57.journal",
    .dir = "/var/lib/partalign/journal",
    .default_dir = "/var/lib/partalign/journal",
};

/* refusal_move_text() of @m, which must succeed. */
static char *text(const struct refusal_move *m)
{
	char *why = (char *)1;

	assert_int_equal(refusal_move_text(m, &why), 0);
	return why;
}

static void test_move_id(void **state)
{
	char buf[24];

	(void)state;
	assert_string_equal(
	    refusal_move_id(0x0f3c2a9b6d1e4c57ull, false, buf, sizeof(buf)),
	    "0f3c2a9b6d1e4c57");
	/* a dos marker holds the low 32 bits only */
	assert_string_equal(
	    refusal_move_id(0x0f3c2a9b6d1e4c57ull, true, buf, sizeof(buf)), "6d1e4c57");
}

static void test_none_and_opened_refuse_nothing(void **state)
{
	struct refusal_move m = base;

	(void)state;
	m.kind = REFUSAL_MOVE_NONE;
	assert_null(text(&m));
	m.kind = REFUSAL_MOVE_OPENED;
	assert_null(text(&m));
}

static void test_old_journal(void **state)
{
	struct refusal_move m = base;
	char *s;

	(void)state;
	m.kind = REFUSAL_MOVE_OLD_JOURNAL;
	m.path = "/var/lib/partalign/journal/x.journal";
	s = text(&m);
	assert_string_equal(
	    s, "a move journal of partalign 0.1 (/var/lib/partalign/journal/x.journal) "
	       "is there for this disk, which carries no move marker: finish that "
	       "move with the partalign that started it, or move the file away if it "
	       "is not this disk's");
	free(s);
}

static void test_hint_untrusted(void **state)
{
	struct refusal_move m = base;
	char *s;

	(void)state;
	m.kind = REFUSAL_MOVE_HINT_UNTRUSTED;
	m.recorded = "/tmp/j/x.journal";
	m.trust = "/tmp/j is writable by others (mode 0777)";
	m.rule = "journals and backups must be in a directory only root can change";
	s = text(&m);
	assert_string_equal(
	    s, "the journal of the unfinished data move (move id 0f3c2a9b6d1e4c57) is "
	       "recorded as /tmp/j/x.journal: /tmp/j is writable by others (mode "
	       "0777); journals and backups must be in a directory only root can "
	       "change: move it into one and give that to 'partalign resume "
	       "--journal DIR'");
	free(s);
}

static void test_no_journal(void **state)
{
	struct refusal_move m = base;
	char *s;

	(void)state;
	m.kind = REFUSAL_MOVE_NO_JOURNAL;
	s = text(&m);
	assert_string_equal(
	    s, "an unfinished data move (move id 0f3c2a9b6d1e4c57) is recorded on the "
	       "disk, but its journal is not in /var/lib/partalign/journal: give the "
	       "directory that holds it, 'partalign resume --journal DIR /dev/sdb'");
	free(s);
	/* --journal elsewhere, and the place the marker recorded */
	m.dir = "/srv/j";
	m.recorded = "/mnt/j/x.journal";
	s = text(&m);
	assert_string_equal(
	    s, "an unfinished data move (move id 0f3c2a9b6d1e4c57) is recorded on the "
	       "disk, but its journal is not in /srv/j nor in "
	       "/var/lib/partalign/journal (the disk says it was written to "
	       "/mnt/j/x.journal): give the directory that holds it, 'partalign "
	       "resume --journal DIR /dev/sdb'");
	free(s);
}

static void test_found_without_move_data(void **state)
{
	struct refusal_move m = base;
	char *s;

	(void)state;
	m.kind = REFUSAL_MOVE_FOUND;
	s = text(&m);
	assert_string_equal(
	    s, "an unfinished data move (move id 0f3c2a9b6d1e4c57, journal "
	       "/var/lib/partalign/journal/x-0f3c2a9b6d1e4c57.journal): finish it "
	       "with 'partalign resume /dev/sdb'");
	free(s);
}

static void test_untrusted_unreadable_foreign(void **state)
{
	struct refusal_move m = base;
	char *s;

	(void)state;
	m.kind = REFUSAL_MOVE_UNTRUSTED;
	m.path = "/j/x.journal";
	m.trust = "/j/x.journal is owned by uid 1000, not root";
	m.rule = "a journal or backup is read only when root owns it and no one else "
		 "can write it";
	s = text(&m);
	assert_string_equal(s, "the journal /j/x.journal of the unfinished move "
			       "0f3c2a9b6d1e4c57: /j/x.journal is owned by uid 1000, "
			       "not root; a journal or backup is read only when root "
			       "owns it and no one else can write it");
	free(s);
	/* no words for the trust failure: out of memory, not a refusal without them */
	m.trust = NULL;
	s = (char *)1;
	assert_int_equal(refusal_move_text(&m, &s), -ENOMEM);
	assert_null(s);

	m.kind = REFUSAL_MOVE_UNREADABLE;
	s = text(&m);
	assert_string_equal(s, "the journal /j/x.journal of the unfinished move "
			       "0f3c2a9b6d1e4c57 cannot be read");
	free(s);

	m.kind = REFUSAL_MOVE_FOREIGN;
	m.foreign = "the journal is of a dos disk (dos:1234abcd)";
	s = text(&m);
	assert_string_equal(s, "the journal /j/x.journal is not this disk's: the "
			       "journal is of a dos disk (dos:1234abcd)");
	free(s);
}

static void test_journal_foreign(void **state)
{
	struct pa_entry e[1] = {{.num = 1, .uuid = "AAAA-1"}};
	struct pa_table t = {.label = PA_LABEL_GPT, .n = 1, .v = e};
	struct pa_jmove v = {.num = 1};
	struct pa_journal j = {.label = "gpt:G1", .n = 1, .v = &v};
	char *s;

	(void)state;
	snprintf(t.ident, sizeof(t.ident), "gpt:G1");
	snprintf(v.entry.uuid, sizeof(v.entry.uuid), "aaaa-1");
	assert_null(refusal_journal_foreign(&j, &t)); /* GUIDs compare without case */

	snprintf(v.entry.uuid, sizeof(v.entry.uuid), "BBBB-2");
	s = refusal_journal_foreign(&j, &t);
	assert_string_equal(s,
			    "partition 1 has the GUID AAAA-1, the journal's has BBBB-2");
	free(s);
	e[0].uuid = NULL;
	s = refusal_journal_foreign(&j, &t);
	assert_string_equal(s, "partition 1 has the GUID none, the journal's has BBBB-2");
	free(s);

	/* a partition the table does not have: journal_plan() says that */
	v.num = 7;
	assert_null(refusal_journal_foreign(&j, &t));

	snprintf(t.ident, sizeof(t.ident), "gpt:G2");
	s = refusal_journal_foreign(&j, &t);
	assert_string_equal(s,
			    "the journal is of the table gpt:G1, this disk has gpt:G2");
	free(s);
	t.ident[0] = '\0'; /* identity unknown: not held against it */
	assert_null(refusal_journal_foreign(&j, &t));

	t.label = PA_LABEL_MSDOS;
	s = refusal_journal_foreign(&j, &t);
	assert_string_equal(s, "the journal is of a GPT disk (gpt:G1)");
	free(s);

	j.label = "dos:1234abcd";
	assert_null(refusal_journal_foreign(&j, &t));
	t.label = PA_LABEL_GPT;
	s = refusal_journal_foreign(&j, &t);
	assert_string_equal(s, "the journal is of a dos disk (dos:1234abcd)");
	free(s);
}

static void test_journal_place(void **state)
{
	struct pa_plan_opts po = {.move_data = true};
	struct pa_plan p = {.changes = 1};
	char *s;

	(void)state;
	assert_true(refusal_journal_place_matters(&po, &p));
	po.move_data = false;
	assert_false(refusal_journal_place_matters(&po, &p));
	po.move_data = true;
	p.changes = 0;
	assert_false(refusal_journal_place_matters(&po, &p)); /* nothing moves */
	p.refusal = "x";
	assert_true(refusal_journal_place_matters(&po, &p));
	p.table.marked = true; /* the unfinished move outranks it */
	assert_false(refusal_journal_place_matters(&po, &p));

	s = refusal_journal_volatile("/run/j", "tmpfs");
	assert_string_equal(s, "the journal directory /run/j is on tmpfs, which does not "
			       "outlive a power cut: give --journal on a disk file "
			       "system (not the disk being moved)");
	free(s);
	s = refusal_journal_on_disk("/mnt/j", "/dev/sdb1");
	assert_string_equal(s, "the journal directory /mnt/j is on /dev/sdb1, on the "
			       "disk being moved: give --journal on another disk");
	free(s);
}

static void test_in_use(void **state)
{
	struct pa_plan p = {0};
	char *s;

	(void)state;
	/* nothing to write: being in use refuses nothing */
	assert_false(refusal_in_use_applies(&p, false));
	assert_true(refusal_in_use_applies(&p, true));
	p.changes = 2;
	assert_true(refusal_in_use_applies(&p, false));
	p.changes = 0;
	p.refusal = "damaged";
	assert_true(refusal_in_use_applies(&p, false));

	s = refusal_busy("sdb");
	assert_string_equal(s, "sdb cannot be opened exclusively: it is in use");
	free(s);
	s = refusal_readonly("/dev/sdb");
	assert_string_equal(s, "/dev/sdb is read-only (write-protected)");
	free(s);
}

static void test_replace(void **state)
{
	struct pa_plan p = {0};

	(void)state;
	assert_int_equal(refusal_replace(&p, "first"), 0);
	assert_string_equal(p.refusal, "first");
	assert_int_equal(refusal_replace(&p, "in use"), 0);
	assert_string_equal(p.refusal, "in use");
	/* out of memory before: the refusal there stays */
	assert_int_equal(refusal_replace(&p, NULL), -ENOMEM);
	assert_string_equal(p.refusal, "in use");
	free(p.refusal);
}

/* ---- restore (refusal_restore) ---- */

static struct label_id *ident(enum label_id_kind kind, const char *disk)
{
	struct label_id *id = calloc(1, sizeof(*id));

	assert_non_null(id);
	id->kind = kind;
	snprintf(id->disk, sizeof(id->disk), "%s", disk);
	return id;
}

/* refusal_restore() of @r: its refusal (NULL: none), the warning into @warn. */
static char *restore_says(const struct refusal_restore *r, char **warn)
{
	int err = 1;
	char *why = refusal_restore(r, warn, &err);

	assert_int_equal(err, 0);
	return why;
}

static void test_restore(void **state)
{
	static const struct refusal_region regs[] = {{0, 17408},
						     {107374165504ull, 16896}};
	struct label_id *held = ident(LABEL_ID_DOS, "1122aabb"),
			*wrote =
			    ident(LABEL_ID_GPT, "A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF"),
			*other =
			    ident(LABEL_ID_GPT, "00000000-1111-2222-3333-444444444444"),
			*none = ident(LABEL_ID_NONE, "");
	struct refusal_restore r = {.format = 2,
				    .backup_id = "wwn:0x5000c500a1b2c3d4",
				    .size = 107374182400ull,
				    .logical = 512,
				    .held = held,
				    .wrote = wrote,
				    .regs = regs,
				    .nregs = 2,
				    .disk_id = "wwn:0x5000c500a1b2c3d4",
				    .disk_size = 107374182400ull,
				    .disk_logical = 512,
				    .path = "/dev/sdb",
				    .cur = wrote};
	struct refusal_restore x;
	char *why, *warn;

	(void)state;
	/* the disk holds what partalign wrote over the backup: restored */
	assert_null(restore_says(&r, &warn));
	assert_null(warn);
	x = r;
	x.cur = held; /* or the table the backup holds */
	assert_null(restore_says(&x, &warn));

	x = r;
	x.readonly = true;
	why = restore_says(&x, &warn);
	assert_string_equal(why, "/dev/sdb is read-only (write-protected)");
	free(why);
	x = r;
	x.marked = true;
	x.marker_id = 0x0f3c2a9b6d1e4c57ull;
	why = restore_says(&x, &warn);
	assert_string_equal(why, "an unfinished data move (move id 0f3c2a9b6d1e4c57) is "
				 "recorded on the disk: finish it with 'partalign resume "
				 "/dev/sdb'");
	free(why);
	x.marker_id32 = true;
	x.marker_id = 0x6d1e4c57;
	why = restore_says(&x, &warn);
	assert_non_null(strstr(why, "(move id 6d1e4c57)"));
	free(why);
	x = r;
	x.move_id = 0x0f3c2a9b6d1e4c57ull;
	why = restore_says(&x, &warn);
	assert_string_equal(why,
			    "the backup was taken before data move 0f3c2a9b6d1e4c57; "
			    "its partitions' data has moved since");
	free(why);

	x = r;
	x.disk_size = 2 * r.size;
	why = restore_says(&x, &warn);
	assert_string_equal(why,
			    "the backup is of a 107374182400-byte disk with 512-byte "
			    "sectors, this one has 214748364800 and 512");
	free(why);
	x = r;
	x.disk_logical = 4096;
	x.logical = 4096;
	why = restore_says(&x, &warn); /* 17408 is no multiple of 4096 */
	assert_string_equal(why, "the backup has a region off the disk");
	free(why);

	x = r;
	x.cur = other;
	why = restore_says(&x, &warn);
	assert_string_equal(why,
			    "the backup is of the table dos:1122aabb (or "
			    "gpt:A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF, which partalign "
			    "wrote over it), this disk has "
			    "gpt:00000000-1111-2222-3333-444444444444");
	free(why);
	x = r;
	x.disk_id = "wwn:0x5000c500ffffffff";
	why = restore_says(&x, &warn);
	assert_string_equal(why,
			    "the backup is of wwn:0x5000c500a1b2c3d4, this disk is "
			    "wwn:0x5000c500ffffffff (its label "
			    "gpt:A3A2A1A0-A5A4-A7A6-A8A9-AAABACADAEAF matches: --force "
			    "if the disk has moved)");
	free(why);
	x.force = true; /* --force waives the device id: a warning says so */
	assert_null(restore_says(&x, &warn));
	assert_non_null(warn);
	assert_non_null(strstr(warn, "restoring (--force, its label"));
	free(warn);
	x = r;
	x.cur = none;
	why = restore_says(&x, &warn);
	assert_non_null(strstr(why, "no partition table to identify it by (the backup is "
				    "of dos:1122aabb); --force restores it"));
	free(why);
	x.force = true; /* --force waives the label when the device id matches */
	assert_null(restore_says(&x, &warn));
	assert_non_null(strstr(warn, "(--force, the device id"));
	free(warn);
	x.disk_id = "wwn:0x5000c500ffffffff"; /* never both */
	why = restore_says(&x, &warn);
	assert_non_null(
	    strstr(why, "no partition table to identify it by and the backup"));
	free(why);
	/* format 1: the device id alone, which --force cannot waive */
	x = r;
	x.format = 1;
	x.cur = other;
	assert_null(restore_says(&x, &warn));
	x.disk_id = "wwn:0x5000c500ffffffff";
	x.force = true;
	why = restore_says(&x, &warn);
	assert_string_equal(why, "the backup is of wwn:0x5000c500a1b2c3d4, this disk is "
				 "wwn:0x5000c500ffffffff");
	free(why);
	free(held);
	free(wrote);
	free(other);
	free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_move_id),
	    cmocka_unit_test(test_none_and_opened_refuse_nothing),
	    cmocka_unit_test(test_old_journal),
	    cmocka_unit_test(test_hint_untrusted),
	    cmocka_unit_test(test_no_journal),
	    cmocka_unit_test(test_found_without_move_data),
	    cmocka_unit_test(test_untrusted_unreadable_foreign),
	    cmocka_unit_test(test_journal_foreign),
	    cmocka_unit_test(test_journal_place),
	    cmocka_unit_test(test_in_use),
	    cmocka_unit_test(test_replace),
	    cmocka_unit_test(test_restore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
