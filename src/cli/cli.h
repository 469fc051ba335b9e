/*
 * Shared by the subcommands: messages, output formats and column tables.
 * Only cli/ prints and exits.
 */
#ifndef PARTALIGN_CLI_H
#define PARTALIGN_CLI_H

#include <libsmartcols.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/align.h"
#include "core/diag.h"
#include "core/rules.h"

#define PA_PROG "partalign"

/*
 * The end of every command's option switch: --help prints @usage to stdout
 * and gives PA_EXIT_OK; anything else prints it to stderr, PA_EXIT_USAGE.
 */
int cli_usage(void (*usage)(FILE *), bool help);

/*
 * "partalign: DEVICE: message[: strerror]" on stderr; err is a positive errno or 0.
 * EACCES or EPERM of a user who is not root gets "; run partalign as root".
 */
void msg_err(const char *device, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "; run partalign as root" for EACCES or EPERM when not root, else "". */
const char *msg_root_hint(int err);

/*
 * The reason of a run that a caller asked for (provision runs fix and
 * rules in process and reports why a disk failed): the text after
 * "partalign: " of the last error the run printed through its own log
 * (malloc'd, NULL when none).  Each run has its own, passed down with its
 * options; msg_log_free() frees the text.
 */
struct msg_log {
	char *last;
};
/* msg_err(), and the line into @log unless @log is NULL. */
void msg_log_err(struct msg_log *log, const char *device, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* msg_diags(), each line into @log unless @log is NULL. */
int msg_log_diags(struct msg_log *log, const struct pa_diags *d);
void msg_log_free(struct msg_log *log);

void msg_warn(const char *device, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print every diagnostic of @d; returns PA_EXIT_ERROR when there was one. */
int msg_diags(const struct pa_diags *d);

enum out_format {
	OUT_TABLE,
	OUT_JSON,
	OUT_PAIRS,
	OUT_RAW,
};

struct out_opts {
	enum out_format format;
	bool noheadings;
	bool bytes;	     /* sizes in bytes in the table too */
	const char *columns; /* -o LIST, "+LIST" appends to the defaults */
	bool terminal;	     /* a table to a terminal: see out_detect_terminal() */
};

/* The type of a column's --json values (libsmartcols' SCOLS_JSON_*, 2.33) */
enum out_json_type {
	OUT_JSON_STRING, /* "text"; null when unset or empty */
	OUT_JSON_NUMBER, /* the cell's text as it is; null when unset or empty */
};

struct out_col {
	const char *name;
	double whint;
	int flags; /* SCOLS_FL_* */
	enum out_json_type json_type;
	const char *help;
};

#define OUT_MAXCOLS 64

/* Resolve -o LIST (or @defaults when none) into column indexes; -1 with a message on
 * error. */
int out_select(const struct out_opts *o, const struct out_col *cols, size_t ncols,
	       const int *defaults, size_t ndefaults, int *sel, size_t *nsel);
/* A table with the selected columns, formatted as @o asks. */
struct libscols_table *out_table_new(const struct out_opts *o, const char *name,
				     const struct out_col *cols, const int *sel,
				     size_t nsel);
/* Print --list-columns. */
void out_list_columns(const struct out_col *cols, size_t ncols);
/* Print the table and check stdout for write errors; returns an exit bit. */
int out_print(struct libscols_table *tb);
/*
 * The --json document of @tb (made by out_table_new) on @f, byte for byte as
 * libsmartcols 2.37 and later print it, the values typed by the column
 * table; out_print() uses it where libsmartcols cannot (configure).
 * Returns 0 or -errno.
 */
int out_json_write(struct libscols_table *tb, FILE *f);
/*
 * The length of @line (@len bytes, no newline) as libsmartcols 2.35 and later
 * print it, from a table line of a library before 2.35 whose last column is
 * right-aligned and @width wide: an empty last cell was @width blanks at the
 * end, now taken off; a line that ends in text keeps it all.
 */
size_t out_unfill(const char *line, size_t len, size_t width);

/* Cell helpers: set cell @i of @ln, numbers as decimal, NULL stays empty/null. */
int out_set_str(struct libscols_line *ln, size_t i, const char *s);
int out_set_u64(struct libscols_line *ln, size_t i, unsigned long long v);
int out_set_s64(struct libscols_line *ln, size_t i, long long v);
/* Size: human ("1.5G") in a table unless --bytes, else bytes. */
int out_set_size(const struct out_opts *o, struct libscols_line *ln, size_t i,
		 unsigned long long v);

/*
 * Set o->terminal when the output is a table and stdout a terminal: the
 * commands then default to the columns that fit 80 columns (lsblk's way) and
 * show starts in logical sectors; a pipe or file keeps every column in bytes.
 */
void out_detect_terminal(struct out_opts *o);

/*
 * A start (bytes) on a disk with @logical-byte sectors: "63s" (parted's unit
 * s) in a table on a terminal unless --bytes, else bytes.
 */
int out_set_start(const struct out_opts *o, struct libscols_line *ln, size_t i,
		  unsigned long long bytes, unsigned int logical);

/* A JSON string for @s (null for NULL), for reports that are no single table. */
void out_json_str(FILE *f, const char *s);

/* Common options of the reporting commands; returns true if @c was one. */
bool out_parse_opt(int c, const char *arg, struct out_opts *o);

/* --align SIZE into @g; false with a message on error. */
bool cli_parse_grain(const char *arg, struct pa_grain *g);

int cmd_check(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_fix(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_provision(int argc, char **argv);
int cmd_udev(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_resume(int argc, char **argv);

#endif
