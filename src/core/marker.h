/*
 * The move marker: how a disk itself records that `fix --move-data` is
 * moving some of its partitions, so that no command needs a file outside
 * the disk to know it.  Pure: the marker is a few bytes of the partition
 * table, read and written through callbacks over an image of the label
 * sectors (the disk, the shadow, a buffer in a test).
 *
 * GPT: each moving partition's type GUID becomes PA_MOVE_TYPE_GUID and its
 * name "partalign-move <move id, 16 hex digits>"; the last four entries of
 * the array, when unused, carry a record in their attribute and name bytes
 * (type GUID, unique GUID and LBAs stay zero, so every tool ignores them)
 * with the move id and the path of the journal.
 * Both copies of the table are changed, with their CRCs.
 * dos: each moving primary partition's system id becomes PA_MOVE_DOS_TYPE
 * and the disk signature the low 32 bits of the move id.
 * The journal keeps what the marker replaced (journal.h: entry lines, the
 * label line); marker_clear() puts it back.
 */
#ifndef PARTALIGN_MARKER_H
#define PARTALIGN_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/journal.h"

#define PA_MOVE_TYPE_GUID "DB991ED2-F649-406F-B0F6-8BE79B36CD64"
#define PA_MOVE_DOS_TYPE 0x7f
#define PA_MOVE_NAME_PREFIX "partalign-move "
#define PA_MARKER_PATH_MAX 298

/* Read or write @len bytes at byte @off of an image; 0 or -errno. */
typedef int (*marker_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);
typedef int (*marker_write_fn)(void *ctx, uint64_t off, const void *buf, size_t len);

struct marker_io {
	marker_read_fn rd;
	marker_write_fn wr; /* NULL for reading only */
	void *ctx;
	uint32_t logical;
	uint64_t size; /* bytes of the whole disk */
};

struct pa_marker {
	uint64_t move_id;		      /* GPT: all 64 bits; dos: the low 32 */
	bool id32;			      /* only the low 32 bits are known (dos) */
	char journal[PA_MARKER_PATH_MAX + 1]; /* where the journal was written; "" */
	size_t n;			      /* marked partitions */
	unsigned int nums[128];
};

/*
 * Look for a marker in every valid copy of the table.  1 with *m filled,
 * 0 when the disk carries none (or has no GPT/dos label), -errno.
 */
int marker_find(const struct marker_io *io, struct pa_marker *m);

/* Does @m record the move of @j? */
bool marker_matches(const struct pa_marker *m, const struct pa_journal *j);

/*
 * The table's identity ("gpt:<disk GUID>", "dos:<signature, 8 hex>") and
 * each journalled partition's entry as it is now, into @j.  -ENOENT when
 * an entry is missing, -EOPNOTSUPP for another label.
 */
int marker_originals(const struct marker_io *io, struct pa_journal *j);

/* Mark the partitions of @j, recording @journal_path (may be NULL). */
int marker_set(const struct marker_io *io, const struct pa_journal *j,
	       const char *journal_path);

/* Put back what the marker replaced, from @j; a table without marker is left as it is. */
int marker_clear(const struct marker_io *io, const struct pa_journal *j);

/* Is a partition type (GUID text in any case, or dos "0xNN") the marker's? */
bool marker_type_is_move(const char *type);

#endif
