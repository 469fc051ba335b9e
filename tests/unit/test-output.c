/*
 * Unit tests of cli/output.c: the --json, --pairs and --raw documents and
 * the table of a column table, pinned byte for byte as libsmartcols 2.38
 * prints them (numbers bare, unset and empty cells null, every escape, the
 * empty table, an empty right-aligned last cell).  Wherever libsmartcols prints --json
 * itself, the tests also hold out_json_write(), the writer of builds whose libsmartcols
 * cannot (EL8's 2.32), to the library's bytes; in such a build out_print() is that
 * writer, held to the same text.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

#include "cli/cli.h"
#include "core/exitcodes.h"

enum { C_NAME, C_MAJMIN, C_START, C_OPT_IO, C_ALIGN, C_REASON, C_MOUNTS };

#define N OUT_JSON_NUMBER
#define S OUT_JSON_STRING
static const struct out_col cols[] = {
    [C_NAME] = {"NAME", 0.1, SCOLS_FL_NOEXTREMES, S, "name"},
    [C_MAJMIN] = {"MAJ:MIN", 6, 0, S, "numbers"},
    [C_START] = {"START", 10, SCOLS_FL_RIGHT, N, "start"},
    [C_OPT_IO] = {"OPT-IO", 4, SCOLS_FL_RIGHT, N, "optimal I/O"},
    [C_ALIGN] = {"ALIGNMENT", 4, SCOLS_FL_RIGHT, N, "offset"},
    [C_REASON] = {"REASON", 0.3, SCOLS_FL_TRUNC, S, "why"},
    [C_MOUNTS] = {"MOUNTPOINTS", 0.1, SCOLS_FL_WRAP, S, "where"},
};
#undef N
#undef S
static const int all[] = {C_NAME,  C_MAJMIN, C_START, C_OPT_IO,
			  C_ALIGN, C_REASON, C_MOUNTS};
#define NALL (sizeof(all) / sizeof(all[0]))

/* Three rows: plain values, every escape, and nothing set at all. */
static struct libscols_table *table(enum out_format format, const char *name, bool rows)
{
	struct out_opts o = {.format = format};
	struct libscols_table *tb = out_table_new(&o, name, cols, all, NALL);
	struct libscols_line *ln;

	assert_non_null(tb);
	if (!rows)
		return tb;
	ln = scols_table_new_line(tb, NULL);
	assert_non_null(ln);
	out_set_str(ln, C_NAME, "sda1");
	out_set_str(ln, C_MAJMIN, "8:1");
	out_set_u64(ln, C_START, 1048576);
	out_set_u64(ln, C_OPT_IO, 0);
	out_set_s64(ln, C_ALIGN, -512);
	out_set_str(ln, C_REASON, "policy: start 63s is off the \"1 MiB\" grain \\ here");
	out_set_str(ln, C_MOUNTS, "/mnt/a b\n[SWAP]");

	ln = scols_table_new_line(tb, NULL);
	assert_non_null(ln);
	out_set_str(ln, C_NAME, "ctl\b\t\n\f\r\x01\x1f\x7f");
	out_set_str(ln, C_MAJMIN, "");
	out_set_u64(ln, C_START, 18446744073709551615ull);
	out_set_str(ln, C_REASON, "caf\xc3\xa9 \xff/");
	out_set_str(ln, C_MOUNTS, NULL);

	ln = scols_table_new_line(tb, NULL);
	assert_non_null(ln);
	return tb;
}

/* What out_print() (@own: out_json_write()) writes for @tb. */
static char *render(struct libscols_table *tb, bool own)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (own) {
		assert_int_equal(out_json_write(tb, f), 0);
	} else {
		scols_table_set_stream(tb, f);
		assert_int_equal(out_print(tb), PA_EXIT_OK);
		scols_table_set_stream(tb, stdout);
	}
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_json(enum out_format format, const char *name, bool rows,
			const char *want)
{
	struct libscols_table *tb = table(format, name, rows);
	char *got = render(tb, false);

	assert_string_equal(got, want);
	free(got);
	got = render(tb, true);
	assert_string_equal(got, want);
	free(got);
	scols_unref_table(tb);
}

static void test_json(void **state)
{
	expect_json(OUT_JSON, "devices", true,
		    "{\n"
		    "   \"devices\": [\n"
		    "      {\n"
		    "         \"name\": \"sda1\",\n"
		    "         \"maj:min\": \"8:1\",\n"
		    "         \"start\": 1048576,\n"
		    "         \"opt-io\": 0,\n"
		    "         \"alignment\": -512,\n"
		    "         \"reason\": \"policy: start 63s is off the \\\"1 MiB\\\" "
		    "grain \\\\ here\",\n"
		    "         \"mountpoints\": \"/mnt/a b\\n[SWAP]\"\n"
		    "      },{\n"
		    "         \"name\": \"ctl\\b\\t\\n\\f\\r\\u0001\\u001f\x7f\",\n"
		    "         \"maj:min\": null,\n"
		    "         \"start\": 18446744073709551615,\n"
		    "         \"opt-io\": null,\n"
		    "         \"alignment\": null,\n"
		    "         \"reason\": \"caf\xc3\xa9 \xff/\",\n"
		    "         \"mountpoints\": null\n"
		    "      },{\n"
		    "         \"name\": null,\n"
		    "         \"maj:min\": null,\n"
		    "         \"start\": null,\n"
		    "         \"opt-io\": null,\n"
		    "         \"alignment\": null,\n"
		    "         \"reason\": null,\n"
		    "         \"mountpoints\": null\n"
		    "      }\n"
		    "   ]\n"
		    "}\n");
}

/* No rows: the brackets with an empty line between them (plan of nothing). */
static void test_json_empty(void **state)
{
	expect_json(OUT_JSON, "plan", false,
		    "{\n"
		    "   \"plan\": [\n"
		    "\n"
		    "   ]\n"
		    "}\n");
}

static void expect_text(enum out_format format, const char *want)
{
	struct libscols_table *tb = table(format, "devices", true);
	char *got = render(tb, false);

	assert_string_equal(got, want);
	free(got);
	scols_unref_table(tb);
}

/*
 * --pairs: keys as shell variable names (libsmartcols 2.38, or output.c
 * before), and libsmartcols' \xNN for '"', '\', '`', '$' and every byte that
 * is no printable ASCII; --raw: \xNN for blanks and backslashes too, an
 * empty cell as nothing between the separators.
 */
static void test_pairs(void **state)
{
	expect_text(OUT_PAIRS,
		    "NAME=\"sda1\" MAJ_MIN=\"8:1\" START=\"1048576\" OPT_IO=\"0\" "
		    "ALIGNMENT=\"-512\" REASON=\"policy: start 63s is off the \\x221 "
		    "MiB\\x22 grain \\x5c here\" MOUNTPOINTS=\"/mnt/a b\\x0a[SWAP]\"\n"
		    "NAME=\"ctl\\x08\\x09\\x0a\\x0c\\x0d\\x01\\x1f\\x7f\" MAJ_MIN=\"\" "
		    "START=\"18446744073709551615\" OPT_IO=\"\" ALIGNMENT=\"\" "
		    "REASON=\"caf\\xc3\\xa9 \\xff/\" MOUNTPOINTS=\"\"\n"
		    "NAME=\"\" MAJ_MIN=\"\" START=\"\" OPT_IO=\"\" ALIGNMENT=\"\" "
		    "REASON=\"\" MOUNTPOINTS=\"\"\n");
}

static void test_raw(void **state)
{
	expect_text(
	    OUT_RAW,
	    "NAME MAJ:MIN START OPT-IO ALIGNMENT REASON MOUNTPOINTS\n"
	    "sda1 8:1 1048576 0 -512 "
	    "policy:\\x20start\\x2063s\\x20is\\x20off\\x20the\\x20\"1\\x20MiB\"\\x20"
	    "grain\\x20\\x5c\\x20here /mnt/a\\x20b\\x0a[SWAP]\n"
	    "ctl\\x08\\x09\\x0a\\x0c\\x0d\\x01\\x1f\\x7f  18446744073709551615   "
	    "caf\\xc3\\xa9\\x20\\xff/ \n"
	    "      \n");
}

/*
 * A table whose last column is right-aligned: a row with an empty last cell
 * ends after the column before it (libsmartcols 2.35 and later; out_print()
 * takes off the blanks an older one puts there).
 */
static void test_table(void **state)
{
	static const int sel[] = {C_NAME, C_MAJMIN, C_START, C_ALIGN};
	struct out_opts o = {.format = OUT_TABLE};
	struct libscols_table *tb = out_table_new(&o, "devices", cols, sel, 4);
	struct libscols_line *ln;
	char *got;

	assert_non_null(tb);
	ln = scols_table_new_line(tb, NULL);
	out_set_str(ln, 0, "sda1");
	out_set_str(ln, 1, "8:1");
	out_set_u64(ln, 2, 1048576);
	out_set_s64(ln, 3, -512);
	ln = scols_table_new_line(tb, NULL);
	out_set_str(ln, 0, "sdb");
	out_set_u64(ln, 2, 0);
	ln = scols_table_new_line(tb, NULL);
	out_set_str(ln, 0, "nvme0n1p12");
	out_set_str(ln, 1, "259:12");
	out_set_u64(ln, 2, 4096);
	out_set_s64(ln, 3, 0);
	got = render(tb, false);
	assert_string_equal(got, "NAME       MAJ:MIN      START ALIGNMENT\n"
				 "sda1       8:1        1048576      -512\n"
				 "sdb                         0 \n"
				 "nvme0n1p12 259:12        4096         0\n");
	free(got);
	scols_unref_table(tb);
}

/* out_unfill(): an older library's line with an empty last cell of width 9 */
static void test_unfill(void **state)
{
	static const char empty[] = "sdb                 0          ";
	static const char full[] = "sda1       8:1 1048576      -512";

	assert_int_equal(out_unfill(empty, strlen(empty), 9), strlen(empty) - 9);
	assert_int_equal(out_unfill(full, strlen(full), 9), strlen(full));
	assert_int_equal(out_unfill("NAME", 4, 9), 4);
	assert_int_equal(out_unfill("", 0, 9), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json),  cmocka_unit_test(test_json_empty),
	    cmocka_unit_test(test_pairs), cmocka_unit_test(test_raw),
	    cmocka_unit_test(test_table), cmocka_unit_test(test_unfill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
