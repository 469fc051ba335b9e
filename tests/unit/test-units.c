/*
 * Unit tests of core/units.c: parted's size units on input, exact binary
 * units on output.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "unit.h"

#include "core/units.h"

static void expect_grain(const char *s, uint64_t value, bool sectors)
{
	struct pa_grain g = {.value = 12345, .sectors = !sectors};
	int rc = units_parse_grain(s, &g);

	if (rc != 0 || g.value != value || g.sectors != sectors) {
		print_error("\"%s\": rc %d, %" PRIu64 "%s; want %" PRIu64 "%s\n", s, rc,
			    g.value, g.sectors ? "s" : " B", value, sectors ? "s" : " B");
		fail();
	}
}

static void expect_refused(const char *s, int err)
{
	struct pa_grain g = {0};
	int rc = units_parse_grain(s, &g);

	if (rc != err) {
		print_error("\"%s\": rc %d, want %d\n", s, rc, err);
		fail();
	}
}

static void test_parse_units(void **state)
{
	expect_grain("8s", 8, true);
	expect_grain("4096s", 4096, true);
	expect_grain("1s", 1, true);
	expect_grain("512B", 512, false);
	expect_grain("1B", 1, false);
	expect_grain("1kB", 1000, false);
	expect_grain("4kB", 4000, false);
	expect_grain("1MB", 1000000, false);
	expect_grain("1GB", 1000000000, false);
	expect_grain("1TB", 1000000000000ull, false);
	expect_grain("4KiB", 4096, false);
	expect_grain("2MiB", 2 * MiB, false);
	expect_grain("1GiB", GiB, false);
	expect_grain("3TiB", 3 * TiB, false);
	expect_grain("0010MiB", 10 * MiB, false);
	expect_grain("18446744073709551615B", UINT64_MAX, false);
	expect_grain("18446744073709551615s", UINT64_MAX, true);
	expect_grain("16777215TiB", UINT64_MAX - TiB + 1, false);
}

static void test_parse_case(void **state)
{
	expect_grain("2mib", 2 * MiB, false);
	expect_grain("2MIB", 2 * MiB, false);
	expect_grain("2Mib", 2 * MiB, false);
	expect_grain("4kib", 4096, false);
	expect_grain("4KIB", 4096, false);
	expect_grain("1gib", GiB, false);
	expect_grain("1tib", TiB, false);
	expect_grain("1kb", 1000, false);
	expect_grain("1KB", 1000, false);
	expect_grain("1mb", 1000000, false);
	expect_grain("1gb", 1000000000, false);
	expect_grain("1tb", 1000000000000ull, false);
	expect_grain("512b", 512, false);
}

static void test_parse_refused(void **state)
{
	/* a bare number: bytes or sectors? */
	expect_refused("2048", -EINVAL);
	expect_refused("1", -EINVAL);
	/* zero */
	expect_refused("0s", -EINVAL);
	expect_refused("0B", -EINVAL);
	expect_refused("0MiB", -EINVAL);
	expect_refused("000KiB", -EINVAL);
	/* negative */
	expect_refused("-1MiB", -EINVAL);
	expect_refused("-8s", -EINVAL);
	/* garbage */
	expect_refused("", -EINVAL);
	expect_refused("MiB", -EINVAL);
	expect_refused("s", -EINVAL);
	expect_refused("abc", -EINVAL);
	expect_refused("2MiBx", -EINVAL);
	expect_refused("2MiB 4KiB", -EINVAL);
	expect_refused("8ss", -EINVAL);
	expect_refused("0x800s", -EINVAL);
	expect_refused("1e6B", -EINVAL);
	/* unknown units, and parted units that are no size */
	expect_refused("2XiB", -EINVAL);
	expect_refused("2PiB", -EINVAL);
	expect_refused("50%", -EINVAL);
	expect_refused("1cyl", -EINVAL);
	expect_refused("1chs", -EINVAL);
	expect_refused("1compact", -EINVAL);
	/* overflow */
	expect_refused("18446744073709551616B", -ERANGE);
	expect_refused("18446744073709551616s", -ERANGE);
	expect_refused("99999999999999999999999999s", -ERANGE);
	expect_refused("16777216TiB", -ERANGE);
	expect_refused("17179869184GiB", -ERANGE);
	expect_refused("18446744073709552kB", -ERANGE);
	expect_refused("18446745TB", -ERANGE);
}

/* Every power-of-two size written in each binary unit reads back exactly. */
static void test_parse_roundtrip(void **state)
{
	static const struct {
		const char *unit;
		unsigned int shift;
	} u[] = {{"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
	char buf[64];
	size_t i;
	unsigned int e;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		for (e = 0; e + u[i].shift < 64; e++) {
			snprintf(buf, sizeof(buf), "%" PRIu64 "%s", (uint64_t)1 << e,
				 u[i].unit);
			expect_grain(buf, (uint64_t)1 << (e + u[i].shift), false);
		}
		/* 2^64 bytes in this unit */
		if (u[i].shift) {
			snprintf(buf, sizeof(buf), "%" PRIu64 "%s",
				 (uint64_t)1 << (64 - u[i].shift), u[i].unit);
			expect_refused(buf, -ERANGE);
		}
	}
}

static void expect_exact(uint64_t bytes, const char *want)
{
	char buf[64];

	assert_ptr_equal(units_exact(bytes, buf, sizeof(buf)), buf);
	assert_string_equal(buf, want);
}

static void test_exact(void **state)
{
	expect_exact(0, "0 B");
	expect_exact(1, "1 B");
	expect_exact(512, "512 B");
	expect_exact(1000, "1000 B");
	expect_exact(1024, "1 KiB");
	expect_exact(1536, "1536 B");
	expect_exact(3584, "3584 B");
	expect_exact(4096, "4 KiB");
	expect_exact(196608, "192 KiB");
	expect_exact(1 * MiB, "1 MiB");
	expect_exact(2 * MiB, "2 MiB");
	expect_exact(1 * MiB + 1024, "1025 KiB");
	expect_exact(33553920, "33553920 B");
	expect_exact(GiB, "1 GiB");
	expect_exact(3 * TiB, "3 TiB");
	expect_exact(1ull << 50, "1 PiB");
	expect_exact(1ull << 60, "1024 PiB");
	expect_exact(UINT64_MAX, "18446744073709551615 B");
	expect_exact(UINT64_MAX - 1023, "18014398509481983 KiB");
}

static void expect_amount(uint64_t bytes, const char *want)
{
	char buf[64];

	assert_ptr_equal(units_amount(bytes, buf, sizeof(buf)), buf);
	assert_string_equal(buf, want);
}

/* Amounts to add or free: exact when whole, else rounded up, with the bytes. */
static void test_amount(void **state)
{
	expect_amount(0, "0 bytes");
	expect_amount(1, "1 byte");
	expect_amount(512, "512 bytes");
	expect_amount(1023, "1023 bytes");
	expect_amount(1024, "1 KiB");
	expect_amount(1536, "1.5 KiB (1536 bytes)");
	expect_amount(1025, "1.1 KiB (1025 bytes)"); /* up, never less than needed */
	expect_amount(2 * MiB, "2 MiB");
	expect_amount(2064896, "2.0 MiB (2064896 bytes)"); /* 1.969 MiB */
	expect_amount(2079744, "2.0 MiB (2079744 bytes)");
	expect_amount(MiB - 1, "1.0 MiB (1048575 bytes)"); /* not "1024.0 KiB" */
	expect_amount(MiB + 1, "1.1 MiB (1048577 bytes)");
	expect_amount(1023 * MiB, "1023 MiB");
	expect_amount(3 * TiB + 1, "3.1 TiB (3298534883329 bytes)");
	expect_amount(UINT64_MAX, "16.0 EiB (18446744073709551615 bytes)");
}

static void test_exact_short_buffer(void **state)
{
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	units_exact(123456789, buf, 4);
	assert_string_equal(buf, "123");
	assert_int_equal(buf[4], 'x');
}

static void test_grain_text(void **state)
{
	char buf[64];
	struct pa_grain g;

	g = (struct pa_grain){.value = 8, .sectors = true};
	assert_string_equal(units_grain(&g, buf, sizeof(buf)), "8 sectors");
	g = (struct pa_grain){.value = 1, .sectors = true};
	assert_string_equal(units_grain(&g, buf, sizeof(buf)), "1 sector");
	g = (struct pa_grain){.value = 2048, .sectors = true};
	assert_string_equal(units_grain(&g, buf, sizeof(buf)), "2048 sectors");
	g = PA_GRAIN_DEFAULT;
	assert_string_equal(units_grain(&g, buf, sizeof(buf)), "2 MiB");
	g = (struct pa_grain){.value = 1000, .sectors = false};
	assert_string_equal(units_grain(&g, buf, sizeof(buf)), "1000 B");
	g = (struct pa_grain){.value = 8192, .sectors = false};
	assert_string_equal(units_grain(&g, buf, sizeof(buf)), "8 KiB");
}

/* What an admin types comes back in the grain's own words. */
static void test_parse_then_print(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"2MiB", "2 MiB"}, {"8s", "8 sectors"},  {"1MB", "1000000 B"},
	    {"4kB", "4000 B"}, {"1024KiB", "1 MiB"}, {"4096B", "4 KiB"},
	};
	char buf[64];
	struct pa_grain g;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(units_parse_grain(cases[i].in, &g), 0);
		assert_string_equal(units_grain(&g, buf, sizeof(buf)), cases[i].out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_units),
	    cmocka_unit_test(test_parse_case),
	    cmocka_unit_test(test_parse_refused),
	    cmocka_unit_test(test_parse_roundtrip),
	    cmocka_unit_test(test_exact),
	    cmocka_unit_test(test_amount),
	    cmocka_unit_test(test_exact_short_buffer),
	    cmocka_unit_test(test_grain_text),
	    cmocka_unit_test(test_parse_then_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
