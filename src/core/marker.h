/*
 * The move marker: how a disk itself records that `fix --move-data` is
 * moving some of its partitions, so that no command needs a file outside
 * the disk to know it, and so that nothing presents a half-moved file
 * system: while the marker is on the disk, the table describes no partition
 * over the moving data.  Pure: the marker is a few bytes of the partition
 * table, read and written through callbacks over an image of the label
 * sectors (the disk, the shadow, a buffer in a test).
 *
 * On the disk (marker_set), each moving partition's entry is hidden:
 *  - GPT: its type GUID is zero, so the kernel, libblkid (udev, by-uuid
 *    links, fstab, fsck) and libparted skip it; its unique GUID, LBAs (the
 *    old place) and attributes stay; its name becomes "partalign-move <move
 *    id, 16 hex digits>" and the last 8 bytes of the name field hold the new
 *    start LBA.  sgdisk and sfdisk still list the entry (type zero), so they
 *    do not hand its sectors out.  The last four entries of the array, when
 *    unused, carry a record in their attribute and name bytes (type GUID,
 *    unique GUID and LBAs stay zero) with the move id, the disk GUID the
 *    table had and the path of the journal; when the record is there the
 *    disk GUID becomes PA_MOVE_DISK_GUID_PREFIX followed by the move id, so
 *    that udev's ID_PART_TABLE_UUID tells the move without reading the disk.
 *    Both copies of the table are changed, with their CRCs.
 *  - dos: each moving primary entry gets size 0 (empty for the kernel,
 *    libblkid, libparted and kpartx), system id PA_MOVE_DOS_TYPE, its start
 *    kept, its length in the CHS bytes and the new start as a difference in
 *    sectors (when it fits 16 bits); the disk signature becomes the low 32
 *    bits of the move id.
 * In the shadow libparted reads (marker_reveal), the hidden entries are
 * shown again at their old place with the marker's type and name, and the
 * disk GUID is the original: the form earlier builds wrote on the disk,
 * which marker_find still reads.
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
/* the first 8 bytes of a marked disk GUID; the move id follows */
#define PA_MOVE_DISK_GUID_PREFIX "DB991ED2-F649-406F-"
#define PA_MOVE_DOS_TYPE 0x7f
#define PA_MOVE_NAME_PREFIX "partalign-move "
#define PA_MARKER_PATH_MAX 298
#define PA_MARKER_PARTS 128

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

/* One marked partition as the table records it; bytes. */
struct pa_marker_part {
	unsigned int num;
	bool hidden;   /* this build's form: no partition over it */
	bool primary;  /* as the primary GPT copy (or the dos sector) has it, which
			  is what the kernel reads */
	uint64_t from; /* its place before the move */
	uint64_t len;
	uint64_t to; /* where it goes; 0 when the table does not say */
};

struct pa_marker {
	uint64_t move_id;		      /* GPT: all 64 bits; dos: the low 32 */
	bool id32;			      /* only the low 32 bits are known (dos) */
	char journal[PA_MARKER_PATH_MAX + 1]; /* where the journal was written; "" */
	bool hidden;	  /* some entry is hidden (this build's form) */
	bool guid_marked; /* the disk GUID is the marker's */
	bool guid_known;  /* @guid holds the table's own disk GUID */
	unsigned char guid[16];
	size_t n; /* marked partitions */
	unsigned int nums[PA_MARKER_PARTS];
	struct pa_marker_part parts[PA_MARKER_PARTS]; /* same order as @nums */
};

/*
 * Look for a marker in every valid copy of the table (the primary GPT copy
 * first).  1 with *m filled, 0 when the disk carries none (or has no
 * GPT/dos label), -errno.
 */
int marker_find(const struct marker_io *io, struct pa_marker *m);

/* Does @m record the move of @j? */
bool marker_matches(const struct pa_marker *m, const struct pa_journal *j);

/* The partition @num of @m, or NULL. */
const struct pa_marker_part *marker_part(const struct pa_marker *m, unsigned int num);

/*
 * The table's identity ("gpt:<disk GUID>", "dos:<signature, 8 hex>") and
 * each journalled partition's entry as it is now, into @j.  -ENOENT when
 * an entry is missing, -EOPNOTSUPP for another label.
 */
int marker_originals(const struct marker_io *io, struct pa_journal *j);

/*
 * Mark the partitions of @j, recording @journal_path (may be NULL): each
 * entry that is at the journal's old place is hidden (again); one already
 * at its new place (a final table write a cut left in one GPT copy) is
 * left as it is; any other is -ENOENT, nothing written.
 */
int marker_set(const struct marker_io *io, const struct pa_journal *j,
	       const char *journal_path);

/*
 * In an image that libparted is about to read (the shadow, never the disk):
 * show the hidden entries at their old place with the marker's type and
 * name, the disk GUID as the record keeps it.  0 (also when there is
 * nothing to show), -errno.
 */
int marker_reveal(const struct marker_io *io);

/* Put back what the marker replaced, from @j; a table without marker is left as it is. */
int marker_clear(const struct marker_io *io, const struct pa_journal *j);

/* Is a partition type (GUID text in any case, or dos "0xNN") the marker's? */
bool marker_type_is_move(const char *type);

/*
 * Is a disk GUID (udev's ID_PART_TABLE_UUID, any case) the one the marker
 * gives a GPT disk?  The move id into *id.
 */
bool marker_guid_is_move(const char *guid, uint64_t *id);

#endif
