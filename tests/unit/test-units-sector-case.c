/*
 * Regression test of a fixed bug: parted reads unit names in any case, so
 * "8S" means 8 sectors, but units_parse_grain() compares the sector unit
 * case-sensitively and refused it.  The bug is fixed; the test fails if it
 * comes back.
 */
#include "config.h"

#include "unit.h"

#include "core/units.h"

static void test_sector_unit_any_case(void **state)
{
	struct pa_grain g = {0};

	assert_int_equal(units_parse_grain("8S", &g), 0);
	assert_int_equal(g.value, 8);
	assert_true(g.sectors);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sector_unit_any_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
