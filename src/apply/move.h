/*
 * fix --move-data: moving partition contents to their aligned starts,
 * crash-safe and resumable, through the write gate's O_DIRECT descriptor.
 * The journal format and the copy rules are in core/journal.h; this is
 * the I/O: the journal file, and a reader, a saver and a writer thread
 * overlapping reads with writes while the calling thread records progress.
 *
 * Ownership: move_free() closes and frees a struct pa_mover; the journal
 * file itself stays until move_finish().
 */
#ifndef PARTALIGN_MOVE_H
#define PARTALIGN_MOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "apply/apply.h"
#include "core/journal.h"

struct pa_mover; /* one disk's open journal (opaque) */

/* The journal directory used when none is given: $PARTALIGN_JOURNAL or
 * PA_STATEDIR/journal. */
const char *move_journal_dir_default(void);

/* "<dir>/<disk id>.journal" for @whole (malloc'd); NULL on ENOMEM. */
char *move_journal_path(const char *dir, const struct pa_dev *whole);

/*
 * The journal of @whole: "<dir>/<id>.journal", else the pointer (a
 * symbolic link) that a move journalled elsewhere left in the default
 * directory -- so that a run with another --journal, or none, still finds
 * an unfinished move.  1 with *path (malloc'd), 0 when there is none,
 * -ENOMEM.
 */
int move_journal_find(const char *dir, const struct pa_dev *whole, char **path);

/*
 * Does the file system that holds @dir (or its nearest existing parent)
 * live on @whole: on the disk, one of its partitions, or a dm, md or loop
 * device stacked on them?  1 with the device's name in *where (malloc'd),
 * 0 when not, -errno when it cannot be told.
 */
int move_journal_on_disk(const char *dir, const struct pa_devlist *l,
			 const struct pa_dev *whole, char **where);

/*
 * Open the journal at @path (a pointer is followed): -ENOENT when there is
 * none (or a pointer leads nowhere), -EBADMSG when damaged.  @pointer, if
 * set and a link to the same journal, is removed with it by move_finish().
 */
int move_open(const char *path, const char *pointer, struct pa_mover **m);

/*
 * Write a new journal for the MOVE steps of @p at @path, durably (temporary
 * file, fsync, rename, directory fsync), before the first data write; and,
 * when @pointer is set, a symbolic link there to it.  @chunk 0 is the
 * default.  -EEXIST when a journal or pointer is already there.
 */
int move_create(const char *path, const char *pointer, const struct pa_plan *p,
		const char *device, const char *id, uint64_t chunk, struct pa_mover **m);

const struct pa_journal *move_journal(const struct pa_mover *m);
const char *move_path(const struct pa_mover *m);
/* Bytes still to move according to the journal's last progress record. */
uint64_t move_remaining(const struct pa_mover *m);
void move_free(struct pa_mover *m);

struct pa_move_progress {
	size_t index, count;  /* the move being carried out, of how many */
	unsigned int num;     /* its partition */
	uint64_t done, total; /* bytes of this run: moved, to move */
	double seconds;	      /* since the run started */
};

struct pa_move_stats {
	uint64_t bytes;	      /* moved by this run (redone chunks included) */
	uint64_t redone;      /* of which rewritten from the journal's ring */
	uint64_t checkpoints; /* durable progress records */
	double seconds;
};

/* Progress; returning true asks the mover to stop (a signal: Ctrl-C). */
typedef bool (*pa_move_cb)(void *ctx, const struct pa_move_progress *p);

/*
 * Carry out every move of @m from where the journal stands.  @cb, if set,
 * is called a few times a second from the calling thread.  0, -EINTR when
 * @cb asked to stop, or -errno (the journal then still holds everything a
 * resume needs).
 */
int move_run(struct pa_mover *m, struct pa_writer *w, pa_move_cb cb, void *ctx,
	     struct pa_move_stats *st);

/*
 * Re-read every moved chunk and compare it with the journal's checksum.
 * 0; -EILSEQ with the first bad chunk's disk offset in *bad; -errno.
 */
int move_verify(struct pa_mover *m, struct pa_writer *w, uint64_t *bad);

/* The moves are done and the new table is written: remove the journal (and pointer)
 * durably. */
int move_finish(struct pa_mover *m);

/* Stage @p's MOVE steps in the shadow: the entries are kept, only their starts change. */
int move_table_stage(struct pa_shadow *sh, const struct pa_plan *p,
		     struct pa_diags *msgs);

#endif
