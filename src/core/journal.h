/*
 * The move journal of `fix --move-data`: what is being moved on one disk and
 * how far it got, kept on another file system so that `partalign resume`
 * can finish the job after a crash at any instant.  Pure: the file format,
 * the chunk geometry and the rule that says which chunk copies a write
 * destroys; src/apply/move.c does the I/O.
 *
 * The disk carries the other half (src/apply/marker.c): before the first
 * data write the moving partitions are marked on the disk with the move id
 * below, and a journal is only ever used on a disk marked with its id.
 *
 * A move copies [from, from+len) to [to, to+len) in chunks.  Moving backward
 * (to < from) the chunks go from the first to the last, moving forward from
 * the last to the first, so a write only ever overwrites the source of the
 * chunk being written or of chunks copied before it.  A chunk's source may
 * be overwritten only once the chunk is safe: its copy durable on the disk
 * and its checksum durable in the CRC table (a progress record covers it),
 * or when the chunk itself is saved in the journal's data ring.
 * Moves whose distance is short compared with the chunk size ("save"
 * moves) save every chunk in the ring before writing it; the others only
 * record progress often enough.
 *
 * File layout (offsets are multiples of PA_JOURNAL_BLOCK):
 *   [0, hdr_len)            the text header below, NUL padded
 *   [prog_off, +2 blocks)   two progress records, written alternately
 *                           (struct pa_jprog: "PAJPROG2", earlier "PAJPROG1")
 *   [crc_off, +crc_len)     the CRC-32 of every chunk, 4 bytes little-endian
 *   [ring_off, ...)         `ring` slots of one block (slot header) + chunk
 *
 *   partalign-journal 2
 *   device /dev/sdb
 *   id wwn:0x5000c500a1b2c3d4        (informational: how the disk was named)
 *   label gpt:5B1C...                (the table's own identity: GPT disk GUID
 *                                     or dos:<disk signature>)
 *   move-id 0f3c2a9b6d1e4c57
 *   size 10737418240
 *   logical 512
 *   chunk 8388608                    (the ring slot size)
 *   nonce 6b8b4567327b23c6
 *   ring 16
 *   move 2 17408 1048576 104857600 save 8388608  (number from to len mode chunk)
 *   entry 2 <type> <uuid> <name>     (the entry as it was before the marker:
 *                                     GPT type and unique GUID, the 72 name
 *                                     bytes in hex; dos: 0xNN - -)
 *   crc32 1a2b3c4d                   (of every byte before this line)
 *   end
 * and nothing but NUL bytes after "end" up to hdr_len.
 *
 * Ownership: journal_free() releases what a struct pa_journal holds.
 */
#ifndef PARTALIGN_JOURNAL_H
#define PARTALIGN_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/crc32.h"

#include "core/plan.h"

#define PA_JOURNAL_BLOCK 4096u
#define PA_JOURNAL_HDR_MAX (1u << 20) /* the text header is never longer */
#define PA_JOURNAL_CHUNK (8u << 20)   /* default chunk: large sequential I/O */
#define PA_JOURNAL_CHUNK_MAX (64u << 20)
#define PA_JOURNAL_RING 16u /* data ring slots of a save move */
#define PA_JOURNAL_RING_MAX 64u
#define PA_JOURNAL_MAX_MOVES 256u
/* a move saves its chunks when a write can be fewer chunks ahead of its victim */
#define PA_JOURNAL_MIN_WINDOW 4u
/*
 * A move by at least this many bytes copies in chunks of at most its
 * distance and records progress only: no byte of it goes through the
 * journal.  Shorter moves save each chunk in the ring.  512 KiB: below it
 * a checkpoint per half distance costs more than writing every byte twice
 * (bench/README.md: at 1 MiB record-only was 0.76x dd, save 0.61x).
 */
#define PA_JOURNAL_RECORD_MIN (512u << 10)
#define PA_JOURNAL_NAME_LEN 72u /* a GPT entry's name field, UTF-16LE */

/* A moving partition's table entry as it was before the disk was marked. */
struct pa_jentry {
	char type[37]; /* GPT type GUID, or dos "0xNN" */
	char uuid[37]; /* GPT unique GUID, "" on dos */
	unsigned char name[PA_JOURNAL_NAME_LEN];
	bool has_name; /* GPT */
};

struct pa_jmove {
	unsigned int num;	/* partition number */
	uint64_t from, to, len; /* bytes */
	bool save;		/* chunks go through the data ring */
	uint64_t chunk;		/* this move's chunk size */
	struct pa_jentry entry;
};

struct pa_journal {
	char *device;
	char *id;
	char *label;	  /* "gpt:GUID" or "dos:xxxxxxxx": the table before the marker */
	uint64_t move_id; /* recorded on the disk by the marker; never 0 */
	uint64_t disk_size;
	uint32_t logical;
	uint64_t chunk; /* ring slot size: the largest chunk of a save move */
	uint64_t nonce; /* ties progress records and slots to this journal */
	uint32_t ring;	/* 0 when no move saves chunks */
	size_t n;
	struct pa_jmove *v; /* in the order they are carried out */
	/* layout, derived from the above by journal_layout() */
	uint64_t hdr_len, prog_off, crc_off, crc_len, ring_off, file_len;
};

/*
 * One progress record: moves before `move` are complete; of that move,
 * chunks [0, done) are durably at their destinations and the CRC table
 * holds the checksums of chunks [0, known) (done <= known).  Chunks
 * [done, known) may or may not be at their destinations: a resume reads
 * them back against their checksums and goes on from the first one that
 * differs (move-run.c).  A record of format 1 (PAJPROG1, earlier builds)
 * has no `known`: it decodes with known = done and v1 set.
 */
struct pa_jprog {
	uint64_t seq;
	uint32_t move;	/* == n once every move is complete */
	uint64_t done;	/* chunks copied durably, in processing order */
	uint64_t known; /* chunks whose checksums the table holds */
	uint32_t crcs;	/* CRC-32 over the CRC table entries [0, known) of that move */
	bool v1;	/* decoded from a format-1 record */
};

/* Header of a data ring slot; the chunk's bytes follow it. */
struct pa_jslot {
	uint32_t move;
	uint64_t chunk;
	uint64_t len;
	uint32_t crc; /* of the chunk's bytes */
};

/*
 * A journal for the PA_STEP_MOVE steps of @p (0 when there are none).
 * @chunk must be a multiple of PA_JOURNAL_BLOCK (0: the default); it is
 * the chunk of save moves and the largest chunk of any move.  A move by at
 * least PA_JOURNAL_RECORD_MIN bytes gets chunks of at most its distance
 * (and no save); @record_min overrides that threshold (0: the default,
 * UINT64_MAX: always save short moves as before).  Orders the moves so that
 * none overwrites data another has still to copy: forward moves from the
 * last partition to the first, then backward ones from the first to the
 * last.  The entries, label and move id are filled in by the caller
 * (journal_set_entry()).  Returns 0, -EINVAL or -ENOMEM.
 */
int journal_init(struct pa_journal *j, const struct pa_plan *p, const char *device,
		 const char *id, uint64_t chunk, uint64_t nonce);
/* @split: record moves use chunks of distance/split (1..PA_JOURNAL_MIN_WINDOW). */
int journal_init2(struct pa_journal *j, const struct pa_plan *p, const char *device,
		  const char *id, uint64_t chunk, uint64_t record_min, unsigned int split,
		  uint64_t nonce);
#define PA_JOURNAL_RECORD_SPLIT 2u
/* The move of partition @num, or NULL. */
struct pa_jmove *journal_move_of(struct pa_journal *j, unsigned int num);
/* Set the table identity (copied); -ENOMEM, -EINVAL for a string with blanks. */
int journal_set_label(struct pa_journal *j, const char *label);
/* Recompute the layout after the caller changed the header's content. */
void journal_relayout(struct pa_journal *j);
void journal_free(struct pa_journal *j);

/* The text header, hdr_len bytes NUL padded (malloc'd). */
int journal_format(const struct pa_journal *j, char **buf);
/*
 * Parse a header read from a file (@len bytes: the whole header block, or
 * more).  Every value is range-checked; -EBADMSG for anything else.
 */
int journal_parse(const char *buf, size_t len, struct pa_journal *j);

uint64_t journal_nchunks(const struct pa_journal *j, size_t m);
/* Chunk @i (processing order) of move @m: source, destination, length. */
void journal_chunk(const struct pa_journal *j, size_t m, uint64_t i, uint64_t *src,
		   uint64_t *dst, uint64_t *len);
/*
 * The highest processing index of move @m whose source the write of chunk
 * @i overwrites, or -1 when it overwrites none.  Never more than @i.
 */
int64_t journal_clobbers(const struct pa_journal *j, size_t m, uint64_t i);

/* File offsets of the CRC table entry of chunk @i of move @m, and of ring slot of @i. */
uint64_t journal_crc_pos(const struct pa_journal *j, size_t m, uint64_t i);
uint64_t journal_slot_pos(const struct pa_journal *j, uint64_t i);

/* Fixed-size binary records (PA_JOURNAL_BLOCK bytes); decoding returns -EBADMSG. */
void journal_prog_encode(const struct pa_jprog *r, uint64_t nonce, unsigned char *buf);
int journal_prog_decode(const unsigned char *buf, uint64_t nonce, struct pa_jprog *r);
void journal_slot_encode(const struct pa_jslot *s, uint64_t nonce, unsigned char *buf);
int journal_slot_decode(const unsigned char *buf, uint64_t nonce, struct pa_jslot *s);

/*
 * Rebuild the steps of @p (computed for the current table) from @j: each
 * journalled partition must sit at its old start (a MOVE step) or, once the
 * new table is written, at its new one (KEEP); every other one is KEEP.
 * A table that matches neither gets p->refusal.  0 or -ENOMEM.
 */
int journal_plan(const struct pa_journal *j, const struct pa_topology *topo,
		 const struct pa_plan_opts *o, struct pa_plan *p);

#endif
