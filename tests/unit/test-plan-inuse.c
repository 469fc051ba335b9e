/*
 * Unit tests of the core's rules for a disk whose kernel view or users the
 * scan saw (core/plan.c): plan_kernel_stale (the kernel's partitions
 * against the table read from the disk) and plan_refusal_map_in_use (the
 * open counts of a multipath map and its kpartx partition maps).  Device
 * lists are built by hand on the stack, as src/scan fills them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "core/device.h"
#include "core/plan.h"

struct world {
	struct pa_dev disk, other, p1, p2, q1;
	struct pa_dev *v[5];
	struct pa_devlist l;
	struct pa_entry e[2];
	struct pa_table t;
};

/* sda with partitions 1 and 2 as kernel and table agree; sdb with one of its own. */
static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->disk = (struct pa_dev){.name = "sda", .kind = PA_KIND_DISK};
	w->other = (struct pa_dev){.name = "sdb", .kind = PA_KIND_DISK};
	w->p1 = (struct pa_dev){.name = "sda1",
				.kind = PA_KIND_PART,
				.disk = &w->disk,
				.partno = 1,
				.start = 1 * MiB,
				.size = 10 * MiB};
	w->p2 = (struct pa_dev){.name = "sda2",
				.kind = PA_KIND_PART,
				.disk = &w->disk,
				.partno = 2,
				.start = 11 * MiB,
				.size = 20 * MiB};
	w->q1 = (struct pa_dev){.name = "sdb1",
				.kind = PA_KIND_PART,
				.disk = &w->other,
				.partno = 1,
				.start = 3 * MiB,
				.size = 1 * MiB};
	w->v[0] = &w->disk;
	w->v[1] = &w->p1;
	w->v[2] = &w->other;
	w->v[3] = &w->q1;
	w->v[4] = &w->p2;
	w->l = (struct pa_devlist){.v = w->v, .n = 5, .cap = 5};
	w->e[0] = (struct pa_entry){.num = 1, .start = 1 * MiB, .size = 10 * MiB};
	w->e[1] = (struct pa_entry){.num = 2, .start = 11 * MiB, .size = 20 * MiB};
	w->t = (struct pa_table){.label = PA_LABEL_GPT, .n = 2, .v = w->e};
}

static void test_stale_agrees(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	assert_false(plan_kernel_stale(&w.l, &w.disk, &w.t));
	/* another disk's partitions are not compared */
	w.q1.start = 7 * MiB;
	assert_false(plan_kernel_stale(&w.l, &w.disk, &w.t));
}

static void test_stale_differs(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.p2.start = 12 * MiB; /* another start */
	assert_true(plan_kernel_stale(&w.l, &w.disk, &w.t));
	world_init(&w);
	w.p1.size = 9 * MiB; /* another size */
	assert_true(plan_kernel_stale(&w.l, &w.disk, &w.t));
	world_init(&w);
	w.p2.partno = 3; /* another number */
	assert_true(plan_kernel_stale(&w.l, &w.disk, &w.t));
	world_init(&w);
	w.l.n = 4; /* the kernel lacks partition 2 */
	assert_true(plan_kernel_stale(&w.l, &w.disk, &w.t));
	world_init(&w);
	w.t.n = 1; /* the kernel has a partition the table lacks */
	assert_true(plan_kernel_stale(&w.l, &w.disk, &w.t));
	world_init(&w);
	w.t.n = 0;
	w.l.n = 1; /* no partitions anywhere */
	assert_false(plan_kernel_stale(&w.l, &w.disk, &w.t));
}

/* The kernel shows a dos extended container as one or two sectors. */
static void test_stale_extended(void **state)
{
	struct world w;

	(void)state;
	world_init(&w);
	w.t.label = PA_LABEL_MSDOS;
	w.e[1].extended = true;
	w.p2.size = 1024;
	assert_false(plan_kernel_stale(&w.l, &w.disk, &w.t));
	w.e[1].extended = false;
	assert_true(plan_kernel_stale(&w.l, &w.disk, &w.t));
}

/* A multipath map dm-0 with kpartx partition maps dm-1 and dm-2, over path sdc. */
struct mworld {
	struct pa_dev map, path, m1, m2, k3;
	struct pa_dev *v[5];
	struct pa_devlist l;
	int opens[5];
};

static void mworld_init(struct mworld *w)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->map = (struct pa_dev){.name = "dm-0",
				 .kind = PA_KIND_MPATH,
				 .dm_uuid = "mpath-3600140512345",
				 .dm_name = "mpatha"};
	w->path = (struct pa_dev){
	    .name = "sdc", .kind = PA_KIND_DISK, .is_path = true, .map = &w->map};
	w->m1 = (struct pa_dev){.name = "dm-1",
				.kind = PA_KIND_PART,
				.disk = &w->map,
				.partno = 1,
				.dm_uuid = "part1-mpath-3600140512345"};
	w->m2 = (struct pa_dev){.name = "dm-2",
				.kind = PA_KIND_PART,
				.disk = &w->map,
				.partno = 2,
				.dm_uuid = "part2-mpath-3600140512345"};
	/* a partition of the map with no dm uuid: not a kpartx map, not counted */
	w->k3 = (struct pa_dev){
	    .name = "dm-3", .kind = PA_KIND_PART, .disk = &w->map, .partno = 3};
	w->v[0] = &w->path;
	w->v[1] = &w->map;
	w->v[2] = &w->m1;
	w->v[3] = &w->m2;
	w->v[4] = &w->k3;
	w->l = (struct pa_devlist){.v = w->v, .n = 5, .cap = 5};
	for (i = 0; i < 5; i++)
		w->opens[i] = -1;
	w->opens[1] = 4; /* two partition maps and partalign's two descriptors */
	w->opens[2] = 0;
	w->opens[3] = 0;
}

static void test_map_idle(void **state)
{
	struct mworld w;

	(void)state;
	mworld_init(&w);
	assert_null(plan_refusal_map_in_use(&w.l, &w.map, w.opens));
	/* unknown counts refuse nothing */
	w.opens[1] = w.opens[2] = w.opens[3] = -1;
	assert_null(plan_refusal_map_in_use(&w.l, &w.map, w.opens));
	/* a partition that is no kpartx map neither refuses nor counts */
	mworld_init(&w);
	w.opens[4] = 3;
	assert_null(plan_refusal_map_in_use(&w.l, &w.map, w.opens));
}

static void test_map_part_open(void **state)
{
	struct mworld w;
	char *why;

	(void)state;
	mworld_init(&w);
	w.opens[3] = 1;
	why = plan_refusal_map_in_use(&w.l, &w.map, w.opens);
	assert_non_null(why);
	assert_string_equal(why, "dm-2 (partition map 2 of dm-0) is open: in use");
	free(why);
	/* the first open partition map is named */
	w.opens[2] = 2;
	why = plan_refusal_map_in_use(&w.l, &w.map, w.opens);
	assert_string_equal(why, "dm-1 (partition map 1 of dm-0) is open: in use");
	free(why);
}

static void test_map_open(void **state)
{
	struct mworld w;
	char *why;

	(void)state;
	mworld_init(&w);
	w.opens[1] = 5; /* one more than its partition maps and partalign */
	why = plan_refusal_map_in_use(&w.l, &w.map, w.opens);
	assert_non_null(why);
	assert_string_equal(why, "dm-0 is open by another process: in use");
	free(why);
	/* without partition maps, partalign's own two descriptors only */
	mworld_init(&w);
	w.l.n = 2;
	w.opens[1] = 2;
	assert_null(plan_refusal_map_in_use(&w.l, &w.map, w.opens));
	w.opens[1] = 3;
	why = plan_refusal_map_in_use(&w.l, &w.map, w.opens);
	assert_string_equal(why, "dm-0 is open by another process: in use");
	free(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stale_agrees),   cmocka_unit_test(test_stale_differs),
	    cmocka_unit_test(test_stale_extended), cmocka_unit_test(test_map_idle),
	    cmocka_unit_test(test_map_part_open),  cmocka_unit_test(test_map_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
