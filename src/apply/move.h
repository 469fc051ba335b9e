/*
 * fix --move-data: moving partition contents to their aligned starts,
 * crash-safe and resumable, through the write gate's O_DIRECT descriptor.
 * The journal format and the copy rules are in core/journal.h; this is
 * the I/O: the journal file, and a reader, a writer and a flusher thread
 * overlapping reads with writes and the disk's flushes while the calling
 * thread writes checksums and progress to the journal (move-run.c).
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
#include "core/refusal.h"
#include "shared/trust.h"

struct pa_mover; /* one disk's open journal (opaque) */

/* The journal directory used when none is given: $PARTALIGN_JOURNAL or
 * PA_STATEDIR/journal. */
const char *move_journal_dir_default(void);
/* @dir, or the default directory when @dir is NULL (no --journal). */
const char *move_journal_dir(const char *dir);

/* "<dir>/<disk id>.journal" for @whole (malloc'd): partalign 0.1's journal name. */
char *move_journal_path(const char *dir, const struct pa_dev *whole);

/*
 * A journal under partalign 0.1's name for @whole in @dir or the default
 * directory (file or pointer).  Such a journal belongs to a move that left
 * no marker on the disk: it is never used, and while it is there the disk
 * is refused.  1 with *path (malloc'd), 0 when there is none, -ENOMEM.
 */
int move_journal_find(const char *dir, const struct pa_dev *whole, char **path);

/* "<dir>/<disk id>-<move id>.journal" (malloc'd): the name of a new journal. */
char *move_journal_file(const char *dir, const char *id, uint64_t move_id);

/*
 * The journal of the move a disk's marker records (@move_id; only its low
 * 32 bits with @id32): the path the marker recorded (@hint, may be NULL),
 * then every *.journal file in @dir and in the default directory, each
 * checked by the move id in its header.  1 with *path (malloc'd), 0 when
 * none is found, -ENOMEM.  @hint is not looked at when its directory is
 * not trusted (shared/trust.h): *@skipped says why (why TRUST_OK: it was
 * not skipped for that).
 */
int move_journal_find_move(const char *dir, uint64_t move_id, bool id32, const char *hint,
			   char **path, struct trust_fail *skipped);

/*
 * A journal (or pointer) of a move of @whole in @dir, by its name, with the
 * move id in its header: what `check` reports when it cannot see the disk's
 * marker, and what is left of a move the disk no longer records.  1 with
 * *path (malloc'd) and *move_id (unless @move_id is NULL), 0, -ENOMEM.
 */
int move_journal_find_any(const char *dir, const struct pa_dev *whole, char **path,
			  uint64_t *move_id);

/*
 * The header of the journal (or pointer) at @path, read to report it, never
 * to move by it (move_open() checks the file's trust): 0 with *j filled
 * (journal_free), -EBADMSG when it is none of ours, -errno.
 */
int move_journal_peek(const char *path, struct pa_journal *j);

/*
 * Is there anything named *.journal in @dir?  0 when there is not (or @dir
 * is missing), 1 when there is or @dir cannot be listed: an audit of many
 * disks looks for their journals only when this is 1.
 */
int move_journal_dir_holds(const char *dir);

/*
 * Does the file system of @dir (or its nearest existing parent) outlive a
 * power cut?  0 when it does; -EROFS with its type's name in *fstype
 * (static) for tmpfs, ramfs, overlayfs and the like; -errno.
 */
int move_journal_durable(const char *dir, const char **fstype);

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
 * none (or a pointer leads nowhere), -EBADMSG when damaged, -EPERM with @f
 * saying why when the journal or its directory is not trusted (a regular
 * file owned by root that no one else can write, in a directory only root
 * can change: shared/trust.h).  @pointer, if set and a link to the same
 * journal, is removed with it by move_finish().
 */
int move_open(const char *path, const char *pointer, struct pa_mover **m,
	      struct trust_fail *f);

/*
 * Write the new journal @j (its content is taken over; see
 * apply_move_journal()) as move_journal_file(@dir, ...), durably (temporary
 * file, fsync, rename, directory fsync), before the disk is marked; and,
 * when @pointer_dir is set, a symbolic link there to it.  -EEXIST when a
 * journal or pointer of that name is already there, -EROFS when @dir is on
 * a file system that does not outlive a power cut, -EPERM when @dir or
 * @pointer_dir is not trusted (shared/trust.h; both are made 0700 when
 * missing).  Every file is made relative to its checked directory
 * (O_EXCL | O_NOFOLLOW): nothing planted there is followed.
 */
int move_create(const char *dir, const char *pointer_dir, struct pa_journal *j,
		struct pa_mover **m);

const struct pa_journal *move_journal(const struct pa_mover *m);
const char *move_path(const struct pa_mover *m);
/* The journal's absolute path (what the marker records). */
const char *move_path_abs(const struct pa_mover *m);
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
	uint64_t checkpoints; /* journal steps: durable progress records */
	/* resume: chunks past the newest record's `done` read back against
	   their checksums, and how many of them were at their destinations */
	uint64_t checked, found;
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

/* What apply_move_find() found of an unfinished move. */
struct apply_move_found {
	enum refusal_move_kind kind;
	char *path;		 /* the journal (malloc'd), or NULL */
	struct trust_fail trust; /* _HINT_UNTRUSTED, _UNTRUSTED: why */
	int err;		 /* _UNREADABLE: -errno */
	char *foreign;		 /* _FOREIGN: why it is another disk's (malloc'd) */
};

/*
 * The unfinished move of @dev, whose table @t was just read: on an unmarked
 * table the journal of partalign 0.1 (in @dir or the default directory); on
 * a marked one the journal of the move it records.  With @open (--move-data)
 * the journal is opened into *mv and checked against @t.  0 with @f filled
 * (apply_move_found_free()), or -errno.
 */
int apply_move_find(const char *dir, const struct pa_dev *dev, const struct pa_table *t,
		    bool open, struct pa_mover **mv, struct apply_move_found *f);
void apply_move_found_free(struct apply_move_found *f);

/*
 * Stage @p's MOVE steps in the shadow: the entries are kept, only their
 * starts change; on a marked table what the marker replaced comes back
 * from @j, so the final table and the marker's removal are one write.
 */
int move_table_stage(struct pa_shadow *sh, const struct pa_plan *p,
		     const struct pa_journal *j, struct pa_diags *msgs);

#endif
