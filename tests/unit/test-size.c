/*
 * Unit tests of shared/size.c: the two spellings of sizes in partalign's
 * output, pinned byte for byte.
 */
#include "config.h"

#include <stdio.h>

#include "unit.h"

#include "shared/size.h"

static void expect(uint64_t v, const char *table, const char *iec)
{
	char a[32], b[32];

	assert_string_equal(size_human(v, a, sizeof(a)), table);
	assert_ptr_equal(size_human(v, a, sizeof(a)), a);
	assert_string_equal(size_human_iec(v, b, sizeof(b)), iec);
}

static void test_sizes(void **state)
{
	expect(0, "0B", "0 B");
	expect(1, "1B", "1 B");
	expect(1023, "1023B", "1023 B");
	expect(1024, "1K", "1.0 KiB");
	expect(1536, "1.5K", "1.5 KiB");
	expect(2047, "1.9K",
	       "2.0 KiB"); /* the table rounds down, the IEC form to nearest */
	expect(100 * MiB, "100M", "100.0 MiB");
	expect(1536 * MiB, "1.5G", "1.5 GiB");
	expect(16 * GiB - 1, "15.9G", "16.0 GiB");
	expect(10 * TiB + 512 * GiB, "10.5T", "10.5 TiB");
	expect(1ull << 50, "1P", "1.0 PiB");
	expect(1ull << 60, "1E", "1024.0 PiB");
	expect(UINT64_MAX, "15.9E", "16384.0 PiB");
}

static void test_short_buffer(void **state)
{
	char b[4];

	assert_string_equal(size_human(1536 * MiB, b, sizeof(b)), "1.5");
	assert_string_equal(size_human_iec(1536 * MiB, b, sizeof(b)), "1.5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
