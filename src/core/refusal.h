/*
 * The refusals of plan, fix and resume that are rules, not I/O: what an
 * unfinished move or a journal found (or not found) for a disk means, where
 * a new move's journal may not be, when a disk in use is refused, and which
 * refusal outranks which.  Every function here decides from its arguments
 * alone and returns the words the admin reads; src/apply finds the facts,
 * src/cli prints.
 *
 * Ownership: the texts are malloc'd and go to the caller.
 */
#ifndef PARTALIGN_CORE_REFUSAL_H
#define PARTALIGN_CORE_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/journal.h"
#include "core/plan.h"

/* What was found of an unfinished move of a disk (apply_move_find()). */
enum refusal_move_kind {
	REFUSAL_MOVE_NONE,	     /* no marker and no journal of partalign 0.1 */
	REFUSAL_MOVE_OLD_JOURNAL,    /* no marker, a journal of 0.1 at ->path */
	REFUSAL_MOVE_HINT_UNTRUSTED, /* the place the marker records is not trusted */
	REFUSAL_MOVE_NO_JOURNAL,     /* marked, no journal of the move anywhere */
	REFUSAL_MOVE_FOUND,	     /* marked, its journal at ->path (not opened) */
	REFUSAL_MOVE_UNTRUSTED,	     /* the journal at ->path is not trusted */
	REFUSAL_MOVE_UNREADABLE,     /* the journal at ->path cannot be read */
	REFUSAL_MOVE_FOREIGN,	     /* the journal at ->path is another disk's */
	REFUSAL_MOVE_OPENED,	     /* the journal at ->path is this move's, open */
};

struct refusal_move {
	enum refusal_move_kind kind;
	const char *disk;	 /* the disk's path, as the admin named it */
	const char *id;		 /* the move id (refusal_move_id()) */
	const char *path;	 /* the journal found */
	const char *recorded;	 /* where the marker says the journal is, or NULL */
	const char *dir;	 /* where journals were looked for (--journal) */
	const char *default_dir; /* and the default directory */
	const char *trust;	 /* _UNTRUSTED: what is wrong with it, and the rule */
	const char *rule;
	const char *foreign; /* _FOREIGN: why it is not this disk's */
};

/* "0f3c2a9b6d1e4c57", or the 8 digits a dos disk records (@id32), in @buf. */
const char *refusal_move_id(uint64_t id, bool id32, char *buf, size_t len);

/*
 * Why @m refuses the disk, into *why (malloc'd; NULL for _NONE and
 * _OPENED, which refuse nothing).  0 or -ENOMEM.
 */
int refusal_move_text(const struct refusal_move *m, char **why);

/*
 * Journal @j against the table @t it is to finish: NULL when it is this
 * table's (its identity and the GUID of each entry), else why not
 * (malloc'd).
 */
char *refusal_journal_foreign(const struct pa_journal *j, const struct pa_table *t);

/*
 * Does the place of a new move's journal matter for @p?  Only with
 * --move-data, when something is to move, and not on a disk with an
 * unfinished move (that refusal outranks it).
 */
bool refusal_journal_place_matters(const struct pa_plan_opts *po,
				   const struct pa_plan *p);

/* A journal directory @dir on a file system of type @fstype that a power cut empties. */
char *refusal_journal_volatile(const char *dir, const char *fstype);

/* A journal directory @dir on @where, which is on the disk being moved. */
char *refusal_journal_on_disk(const char *dir, const char *where);

/* "NAME cannot be opened exclusively: it is in use" */
char *refusal_busy(const char *name);

/* "PATH is read-only (write-protected)" */
char *refusal_readonly(const char *path);

/*
 * Is a disk in use refused with plan @p?  Only when something would be
 * written to it: a change, the kernel's partitions to update (@stale), or
 * a refusal already there (being in use is said first).
 */
bool refusal_in_use_applies(const struct pa_plan *p, bool stale);

/*
 * @why replaces any refusal of @p: being in use, an unfinished move and a
 * misplaced journal outrank everything the plan found.  0 or -ENOMEM
 * (@why NULL: out of memory before).
 */
int refusal_replace(struct pa_plan *p, const char *why);

/*
 * restore: what it knows of the backup and of the disk, and its rules.
 * The identity rule (format 2): the disk's table must be the one the
 * backup holds or the one partalign wrote over it, and the device id the
 * backup's; --force waives one of the two -- the device id (a disk moved
 * to another controller), or the label when the disk has none that can be
 * identified.  Format 1 has only the device id, which --force cannot waive.
 */
struct label_id;

/* A region of a backup: [off, off + len) bytes. */
struct refusal_region {
	uint64_t off, len;
};

struct refusal_restore {
	/* the backup */
	unsigned int format;   /* 1 or 2 */
	const char *backup_id; /* the device id it records */
	uint64_t size;	       /* of the disk it was taken from */
	uint32_t logical;
	const struct label_id *held;  /* the table its regions hold */
	const struct label_id *wrote; /* format 2: the table written over it; NULL */
	uint64_t move_id;	      /* taken before data move move_id; 0 */
	const struct refusal_region *regs;
	size_t nregs;
	/* the disk now */
	const char *disk_id; /* apply_disk_id() */
	uint64_t disk_size;
	uint32_t disk_logical;
	bool readonly;
	const char *path;
	bool marked; /* its table carries a move marker */
	uint64_t marker_id;
	bool marker_id32;
	const struct label_id *cur; /* its table's identity */
	bool force;
};

/*
 * NULL when the backup may be written back, else the refusal (malloc'd,
 * without "refused: ").  *@warn: what to say when it may (malloc'd lines
 * joined by "\n", NULL for none).  -ENOMEM in *@err when memory ran out
 * (then both are NULL), else 0.
 */
char *refusal_restore(const struct refusal_restore *r, char **warn, int *err);

#endif
