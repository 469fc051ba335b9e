/*
 * Unit tests of an unfinished move as the audit sees it (core/movestate.c),
 * on device lists built in memory: what udev's database tells (the marked
 * disk GUID of this build, a marked entry of an earlier build on GPT and on
 * dos), the rows of the partitions the marker hides, and the words of each
 * row.  The texts are written out in full: the admin reads them in
 * check's REASON, and the shell tests match parts of them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "core/device.h"
#include "core/movestate.h"

static struct pa_dev *dev_of(struct pa_devlist *l, const char *name, enum pa_kind kind,
			     struct pa_dev *disk, unsigned int partno)
{
	struct pa_dev *d = device_new();
	char path[64];

	assert_non_null(d);
	d->name = strdup(name);
	snprintf(path, sizeof(path), "/dev/%s", name);
	d->path = strdup(path);
	d->kind = kind;
	d->disk = disk;
	d->partno = partno;
	d->topo.logical = 512;
	assert_int_equal(devlist_add(l, d), 0);
	return d;
}

static void test_gpt_from_udev(void **state)
{
	struct pa_devlist l = {0};
	struct pa_dev *w = dev_of(&l, "sdb", PA_KIND_DISK, NULL, 0), *p2, *r;
	char buf[256];

	(void)state;
	w->pt_uuid = strdup("db991ed2-f649-406f-0f3c-2a9b6d1e4c57");
	p2 = dev_of(&l, "sdb2", PA_KIND_PART, w, 2);
	assert_int_equal(move_state_from_udev(&l), 0);
	assert_non_null(w->move);
	assert_int_equal(w->move->seen, PA_MOVE_SEEN_MARKER);
	assert_true(w->move->id == 0x0f3c2a9b6d1e4c57ull && !w->move->id32);
	assert_null(p2->move);
	/* the id alone from udev: no hidden partition known, no row added */
	assert_int_equal(move_state_add_rows(&l, w), 0);
	assert_int_equal(l.n, 2);
	move_state_text(w, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "unfinished data move 0f3c2a9b6d1e4c57: finish it with "
				 "'partalign resume /dev/sdb'");
	move_state_text(w, p2, buf, sizeof(buf));
	assert_string_equal(buf, "its disk has an unfinished data move 0f3c2a9b6d1e4c57: "
				 "finish it with 'partalign resume /dev/sdb'");
	/* the disk's table (--probe) or the journal tell where partition 1 goes */
	assert_int_equal(move_state_add_part(
			     w->move, &(struct pa_move_part){1, 32256, 1 << 20, 2 << 20}),
			 0);
	assert_int_equal(move_state_add_rows(&l, w), 0);
	assert_int_equal(l.n, 3);
	r = l.v[2];
	assert_string_equal(r->name, "sdb1");
	assert_true(r->kernel_missing && r->start_known && r->start == 32256);
	assert_true(r->disk == w && r->partno == 1 && r->size == 1 << 20);
	move_state_text(w, r, buf, sizeof(buf));
	assert_string_equal(buf,
			    "data half moved to 2 MiB (move 0f3c2a9b6d1e4c57): finish "
			    "it with 'partalign resume /dev/sdb'");
	/* once per number */
	assert_int_equal(move_state_add_rows(&l, w), 0);
	assert_int_equal(l.n, 3);
	devlist_free(&l);
}

static void test_earlier_builds(void **state)
{
	struct pa_devlist l = {0};
	struct pa_dev *w = dev_of(&l, "nvme0n1", PA_KIND_DISK, NULL, 0), *p,
		      *d = dev_of(&l, "sdc", PA_KIND_DISK, NULL, 0), *q;
	char buf[256];

	(void)state;
	/* GPT: the marker's type on a partition the kernel has, the id in its name */
	p = dev_of(&l, "nvme0n1p3", PA_KIND_PART, w, 3);
	p->part_type = strdup("db991ed2-f649-406f-b0f6-8be79b36cd64");
	p->part_name = strdup("partalign-move 0f3c2a9b6d1e4c57");
	p->start_known = true;
	p->start = 1 << 20;
	p->size = 8 << 20;
	/* dos: type 0x7f, the id's low half in the PARTUUID */
	q = dev_of(&l, "sdc1", PA_KIND_PART, d, 1);
	q->part_type = strdup("0x7f");
	q->part_scheme = strdup("dos");
	q->part_uuid = strdup("6d1e4c57-01");
	assert_int_equal(move_state_from_udev(&l), 0);
	assert_true(w->move && w->move->id == 0x0f3c2a9b6d1e4c57ull);
	assert_non_null(move_state_part(w->move, 3));
	move_state_text(w, p, buf, sizeof(buf));
	assert_string_equal(buf,
			    "data half moved (move 0f3c2a9b6d1e4c57): finish it with "
			    "'partalign resume /dev/nvme0n1'");
	/* the kernel has it: no second row */
	assert_int_equal(move_state_add_rows(&l, w), 0);
	assert_int_equal(l.n, 4);
	assert_true(d->move && d->move->id32 && d->move->id == 0x6d1e4c57);
	move_state_text(d, NULL, buf, sizeof(buf));
	assert_string_equal(buf,
			    "unfinished data move 6d1e4c57: finish it with 'partalign "
			    "resume /dev/sdc'");
	devlist_free(&l);
}

static void test_journal_and_old(void **state)
{
	struct pa_devlist l = {0};
	struct pa_dev *w = dev_of(&l, "loop7", PA_KIND_LOOP, NULL, 0);
	struct pa_move_state *s;
	char buf[256];

	(void)state;
	/* a random disk GUID is no marker */
	w->pt_uuid = strdup("a3a2a1a0-a5a4-a7a6-a8a9-aaabacadaeaf");
	assert_int_equal(move_state_from_udev(&l), 0);
	assert_null(w->move);
	s = move_state_of(w);
	assert_non_null(s);
	s->seen = PA_MOVE_SEEN_JOURNAL;
	s->id = 0x1d6f39be9681b331ull;
	assert_int_equal(
	    move_state_add_part(s, &(struct pa_move_part){1, 1 << 20, 40 << 20, 2 << 20}),
	    0);
	assert_int_equal(move_state_add_rows(&l, w), 0);
	assert_string_equal(l.v[1]->name, "loop7p1");
	move_state_text(w, l.v[1], buf, sizeof(buf));
	assert_string_equal(buf,
			    "data half moved to 2 MiB (move 1d6f39be9681b331), from its "
			    "journal: finish it with 'partalign resume /dev/loop7'");
	s->seen = PA_MOVE_SEEN_OLD_JOURNAL;
	move_state_text(w, NULL, buf, sizeof(buf));
	assert_string_equal(buf,
			    "a move journal of partalign 0.1 is there for loop7: finish "
			    "that move with the partalign that started it");
	devlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpt_from_udev),
	    cmocka_unit_test(test_earlier_builds),
	    cmocka_unit_test(test_journal_and_old),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
