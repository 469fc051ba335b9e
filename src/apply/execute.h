/*
 * The one write orchestration of fix and restore, past the last refusal:
 * backup, the gate, the data move (fix --move-data), wipes, the table
 * write, the kernel's partitions, kpartx for a multipath map.  It prints
 * nothing: the cli passes report callbacks for what it shows while it runs
 * and turns the result into its messages and exit bits.
 */
#ifndef PARTALIGN_APPLY_EXECUTE_H
#define PARTALIGN_APPLY_EXECUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apply/apply.h"
#include "apply/move.h"

struct apply_result;

/*
 * What the sequence reports while it runs, in this order; any may be NULL.
 * They only report: nothing they do changes what the sequence does next.
 */
struct apply_report_ops {
	void *arg;
	/* --move-data, a new move: its journal is made (before the backup) */
	void (*journal)(void *arg, const char *path, uint64_t move_id);
	/* the table backup is saved at @path (before the gate) */
	void (*saved)(void *arg, const char *path);
	/* --move-data: a few times a second while the data moves */
	void (*progress)(void *arg, const struct pa_move_progress *p);
	/* --move-data: the mover returned @rc (0: moved, @st says how much) */
	void (*moved)(void *arg, int rc, const struct pa_move_stats *st);
	/* --verify: the moved data matches its checksums */
	void (*verified)(void *arg);
	/* the new table is written, the move's journal could not be removed */
	void (*finished)(void *arg, const char *journal, int err);
	/* what libparted said reading the table back, and the kernel sync's notes */
	void (*diags)(void *arg, const struct pa_diags *d);
	/* the sequence stops at r->stage, before it puts back what it took */
	void (*stopped)(void *arg, const struct apply_result *r);
};

struct apply_request {
	struct pa_disk *disk;	  /* open and locked; closed only for kpartx */
	struct pa_proof *proof;	  /* taken when the table was read (apply_proof_take) */
	const struct pa_dev *dev; /* the whole disk as scanned under the lock */
	const struct pa_devlist *devs; /* its neighbourhood (the kpartx map names) */
	const char *backup_dir;
	/* fix: the plan, staged in @sh (a plan without changes writes no table) */
	const struct pa_plan *plan;
	struct pa_shadow *sh;
	bool discard; /* --discard-data: wipe signatures before and after the write */
	bool move;    /* --move-data: the journal, the marker and the move */
	bool verify;  /* --verify: re-read the moved data before the table */
	bool kpartx;  /* a map whose partitions the kernel cannot take: run kpartx */
	/* --move-data: the journal, NULL before a new move (made in @journal_dir,
	   NULL: move_journal_dir_default(), with @knobs) */
	struct pa_mover **mv;
	const char *journal_dir;
	struct apply_move_knobs knobs;
	/* restore: the backup to write back, and the extents to back up first */
	const struct pa_backup *restore;
	const struct pa_extent *save;
	size_t nsave;
};

/* Where the sequence stopped (APPLY_STAGE_DONE: it ran to the end). */
enum apply_stage {
	APPLY_STAGE_DONE = 0,
	APPLY_STAGE_LIMIT,   /* more partitions than the kernel step handles */
	APPLY_STAGE_PREPARE, /* reading the new table's sectors from the shadow */
	APPLY_STAGE_JOURNAL, /* a new move's journal (-EOPNOTSUPP: no label to mark) */
	APPLY_STAGE_BACKUP,  /* nothing written */
	APPLY_STAGE_GATE,
	APPLY_STAGE_PROOF,	/* the disk is not what the plan was made from:
				   apply_proof_change(rq->proof) says how; nothing written */
	APPLY_STAGE_TAKE,	/* the kernel will not let partition ->num go (-EBUSY: it
				   is in use); nothing written, the partitions taken are
				   back */
	APPLY_STAGE_MARKER,	/* the move marker; no data moved */
	APPLY_STAGE_FOREIGN,	/* the journal is of a disk of another size */
	APPLY_STAGE_MOVE,	/* the mover (-EINTR: ->signal asked it to stop) */
	APPLY_STAGE_VERIFY,	/* --verify (-EILSEQ: the data at byte ->bad) */
	APPLY_STAGE_REPROOF,	/* after the move, before the table: the disk changed */
	APPLY_STAGE_WIPE,	/* before the table write; ->num */
	APPLY_STAGE_ORDER,	/* restore: splitting the backup's regions */
	APPLY_STAGE_WRITE,	/* the table write */
	APPLY_STAGE_WIPE_AFTER, /* the new partitions' areas; ->num */
};

/* What the kernel has after the write. */
enum apply_kernel {
	APPLY_KERNEL_SYNCED,	    /* the new partitions */
	APPLY_KERNEL_STALE,	    /* the old ones (busy, or cannot tell) */
	APPLY_KERNEL_KPARTX,	    /* a map: kpartx updated its partition maps */
	APPLY_KERNEL_KPARTX_FAILED, /* a map: kpartx failed */
};

struct apply_result {
	enum apply_stage stage;
	int err;	  /* -errno of the stage that failed */
	unsigned int num; /* the partition of a failed wipe */
	int signal;	  /* the signal that stopped the move */
	uint64_t bad;	  /* the first byte --verify found wrong */
	char *backup;	  /* the table backup (malloc'd), once saved */
	uint64_t written; /* bytes of label written */
	enum apply_kernel kernel;
	const char *kpartx_sep; /* the -p SEPARATOR given to kpartx, NULL for none */
	bool disk_closed;	/* rq->disk was closed for kpartx */
};

/*
 * Run @rq: a new move's journal, backup (fix: of the sectors the new table
 * writes, recording its identity and the move id; restore: of @save), gate,
 * marker, move, verify, wipe, write, wipe, journal removed, the kernel's
 * partitions (fix: the plan's; restore: the table now on the disk),
 * kpartx.  SIGINT, SIGTERM and SIGHUP stop the move between chunks (and
 * only the move).  0 when the table is written (the kernel's state in
 * r->kernel), else the -errno of r->stage.  The caller frees r->backup
 * (apply_result_free).
 */
int apply_execute(const struct apply_request *rq, const struct apply_report_ops *ops,
		  struct apply_result *r);
void apply_result_free(struct apply_result *r);

#endif
