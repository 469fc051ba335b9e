/*
 * Regression test of a fixed bug: align_distance(), align_up() and
 * align_down() compute start % grain + grain, which wraps for grains above
 * 2^63 once start % grain is large too.  No real disk gets there (a policy
 * such as "10000000TiB" parses to such a grain, but starts stay far below),
 * yet the header promises its definitions for every grain.  The bug is
 * fixed; the test fails if it comes back.
 */
#include "config.h"

#include "unit.h"

#include "core/align.h"

static void test_grain_above_2_63(void **state)
{
	const uint64_t g = (1ull << 63) + 2;
	const uint64_t from = (1ull << 63) + 1;

	/* from < g: the only aligned bytes are 0 and g */
	assert_int_equal(align_distance(from, g, 0), 1);
	assert_int_equal(align_up(from, g, 0), g);
	assert_int_equal(align_down(from, g, 0), 0);
	assert_int_equal(align_distance(5, UINT64_MAX, 0), UINT64_MAX - 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grain_above_2_63),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
