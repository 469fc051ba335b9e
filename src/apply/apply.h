/*
 * The write path.  Everything that opens a disk read-write lives here, and
 * only one function does it: apply_gate_open().  `plan` and `fix` run the
 * same code up to that call; `plan` stops there.
 *
 * libparted never sees the real disk: the label sectors are copied into an
 * in-memory shadow of the disk's size (a sparse memfd), libparted reads and
 * rewrites the table there, and the gate copies the changed label sectors
 * to the disk in a crash-safe order (backup GPT first, the primary in one
 * write, sector 0 last).
 */
#ifndef PARTALIGN_APPLY_H
#define PARTALIGN_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/device.h"
#include "core/diag.h"
#include "core/plan.h"
#include "scan/holders.h"

/* An open, exclusively claimed and flock()ed whole disk (read-only fd). */
struct pa_disk {
	int fd;	    /* read-only; O_EXCL when opened exclusively */
	int lockfd; /* holds the flock */
	char *path;
	uint64_t size;
	uint32_t logical;
	uint32_t physical;
	struct pa_holder locker; /* -EWOULDBLOCK: who held the lock (pid 0: not known) */
};

/*
 * Open @path read-only.  PA_DISK_LOCK: take flock(LOCK_EX), waiting up to
 * @wait_ms for another holder (udev, a second partalign) blocked in flock(),
 * so that /proc/locks lists this run as a waiter, not a user of the disk;
 * -EWOULDBLOCK if the lock stays taken, with d->locker naming its holder.  PA_DISK_EXCL:
 * then also open it with O_EXCL, which fails with -EBUSY when anything claims the disk (a
 * mount, swap, dm, md). With neither the disk is only looked at (a plan for a disk in
 * use).
 */
#define PA_DISK_LOCK 1u
#define PA_DISK_EXCL 2u
int apply_disk_open(const char *path, unsigned int flags, int wait_ms, struct pa_disk *d);
void apply_disk_close(struct pa_disk *d);

/*
 * Is the kernel write-protecting @d (BLKROGET: losetup -r, a read-only LUN,
 * sysfs ro = 1)?  Every command that writes asks before its first write or
 * backup, so that nothing is half done.
 */
bool apply_disk_is_readonly(const struct pa_disk *d);

/* A stable identity for backups: "wwn:…", "serial:…", "file:…" or "name:…". */
char *apply_disk_id(const struct pa_dev *whole);

/*
 * Is @d (both its descriptor and the one holding the lock) still the block
 * device @major:@minor that was scanned?  0 if so; -ESTALE if not, with
 * *now (may be NULL) set to the device the descriptor opened; or -errno.
 * Call it after apply_disk_open(), whose lock wait leaves time for the
 * node to be replaced.
 */
int apply_disk_same(const struct pa_disk *d, unsigned int major, unsigned int minor,
		    dev_t *now);

struct label_id; /* core/label.h */

/* The label identity (label_identity()) of the table on @d now. */
int apply_disk_identity(struct pa_disk *d, struct label_id *id);

struct pa_extent {
	uint64_t off; /* bytes */
	uint64_t len;
	bool late; /* old label sectors the new label does not use: after sector 0 */
};

struct pa_shadow; /* the libparted view of the disk (opaque) */

/*
 * Read @d's partition table through a shadow into @t (label, entries,
 * signatures of each entry and of the whole disk).  @msgs receives what
 * libparted complained about.  Returns 0 or -errno.
 */
int apply_table_read(struct pa_disk *d, struct pa_shadow **sh, struct pa_table *t,
		     struct pa_diags *msgs);

/*
 * The same with @n regions laid over the disk's label sectors first (a
 * table backup's, for restore to show the table it would write): what
 * libparted reads from the disk as it would be.  The health fields of @t
 * are the disk's own, as it is now.
 */
int apply_table_read_over(struct pa_disk *d, const struct pa_extent *regs,
			  void *const *bufs, size_t n, struct pa_shadow **out,
			  struct pa_table *t, struct pa_diags *msgs);
void apply_shadow_free(struct pa_shadow *sh);

/*
 * Carry @p out in the shadow: libparted writes the new table into it.
 * @name names the partition of fix --new (may be NULL).  Afterwards
 * apply_shadow_regions() lists the sectors the gate has to write.
 */
int apply_table_stage(struct pa_shadow *sh, const struct pa_plan *p, const char *name,
		      struct pa_diags *msgs);
int apply_shadow_regions(struct pa_shadow *sh, struct pa_extent **regs, size_t *n);
/*
 * Put back in the shadow what a move marker replaced (after staging the
 * final table of a marked disk): the entries and signature of @j.
 */
struct pa_journal;
int apply_shadow_unmark(struct pa_shadow *sh, const struct pa_journal *j);

/* The label identity of the table in the shadow (after staging: the new one). */
int apply_shadow_identity(struct pa_shadow *sh, struct label_id *id);
/* Content of the shadow at @r (malloc'd, r->len bytes). */
int apply_shadow_read(struct pa_shadow *sh, const struct pa_extent *r, void **buf);

/* The disk content of @regs, to back it up before the first write. */
int apply_disk_read(struct pa_disk *d, const struct pa_extent *r, void **buf);

/*
 * Backup files (format 2, see backup.c): <dir>/<id>-<UTC>.pt holding the
 * content of @regs on @d, the label identity of the table those bytes hold,
 * and @after (may be NULL): the identity of the table about to be written
 * over it, which restore accepts on the disk as well.  @move_id (0: none)
 * marks a backup taken before a data move; restore refuses it.  *path is
 * malloc'd.  @dir must be trusted (shared/trust.h; made 0700 when missing):
 * -EPERM when it is not, before anything is written.
 */
int apply_backup_save(struct pa_disk *d, const char *dir, const char *id,
		      const struct pa_extent *regs, size_t n,
		      const struct label_id *after, uint64_t move_id, char **path);

struct pa_backup {
	unsigned int format; /* 1 or 2 */
	char *device;	     /* where it was taken (informational) */
	char *id;	     /* apply_disk_id() of that disk */
	uint64_t size;
	uint32_t logical;
	char *created;
	struct label_id *label; /* the table the regions hold, read from them */
	struct label_id *after; /* format 2: the table written over it, or NULL */
	uint64_t move_id;	/* format 2: taken before data move move_id; 0: none */
	size_t n;
	struct pa_extent *regs;
	unsigned char **data;
};

/*
 * Load @file (format 1 or 2) into @b; apply_backup_free() frees it.
 * -EBADMSG for anything but a whole, unchanged backup: a bad checksum, a
 * truncated file, an unknown or missing header line, a label line that
 * does not match the bytes.
 */
int apply_backup_load(const char *file, struct pa_backup *b);

struct trust_fail;

/*
 * The same for a backup restore writes to a disk: @file is opened without
 * following a link and read only when it and its directory are trusted
 * (shared/trust.h); -EPERM with @f saying why not.
 */
int apply_backup_load_trusted(const char *file, struct pa_backup *b,
			      struct trust_fail *f);

/*
 * What restore may write: the label areas of the table @b holds (sector 0
 * or the protective MBR, the GPT header and entry array at both ends, the
 * dos EBRs of its chain, all found by parsing @b's own bytes) and those of
 * the table on @d now.  0 if every region of @b lies inside them, except
 * for stretches the disk already holds byte for byte (the restore does not
 * write those: a second restore of one backup is a no-op); -ERANGE with
 * *bad = the first byte of a stretch that is neither; or -errno.  With
 * @save non-NULL it also gives the extents a backup of @d must hold before
 * the restore writes (@b's regions and both tables' label areas, merged;
 * malloc'd array in *save, count in *nsave).
 */
int apply_backup_check(const struct pa_backup *b, struct pa_disk *d, uint64_t *bad,
		       struct pa_extent **save, size_t *nsave);
/*
 * The regions of @b split and marked for apply_write_regions(): sectors of
 * the label the backup holds are written first (sector 0, its switch, last
 * of them); the other sectors (those of the label on the disk now) only
 * after the switch, so a crash leaves one valid label or the other.
 * *regs and *bufs are malloc'd arrays; the buffers point into @b.
 */
int apply_backup_order(const struct pa_backup *b, struct pa_extent **regs, void ***bufs,
		       size_t *n);
void apply_backup_free(struct pa_backup *b);

/*
 * The proof that a disk is still what its plan was made from (proof.c).
 * apply_proof_take() records, when the table is read, the disk's size and
 * sector sizes and the bytes of its label areas, and watches the disk and
 * its partitions in @l (which must outlive the proof) for other openers.
 * The gate checks it before the first write; what the gate writes is
 * folded in.  A failed check leaves what it found in apply_proof_change().
 */
struct pa_proof;

/* Where on the disk a label byte changed. */
enum pa_area {
	PA_AREA_NONE = 0,
	PA_AREA_SECTOR0,	    /* the MBR or protective MBR */
	PA_AREA_GPT_HEADER,	    /* the primary GPT header (LBA 1) */
	PA_AREA_GPT_ENTRIES,	    /* the primary GPT entry array */
	PA_AREA_GPT_BACKUP_ENTRIES, /* the backup entry array, before the last LBA */
	PA_AREA_GPT_BACKUP_HEADER,  /* the backup GPT header (last LBA) */
	PA_AREA_EBR,		    /* a dos extended boot record */
	PA_AREA_DISK_START,	    /* a blank disk's first sectors */
	PA_AREA_DISK_END,	    /* a blank disk's last sectors */
};

enum pa_change_kind {
	PA_CHANGE_NONE = 0,
	PA_CHANGE_SIZE,	     /* was, now: bytes */
	PA_CHANGE_SECTORS,   /* logical was -> now, physical was2 -> now2 */
	PA_CHANGE_LABEL,     /* area, off: the first byte that differs */
	PA_CHANGE_SIGNATURE, /* partition num (0: the whole disk), was_sig -> now_sig */
	PA_CHANGE_OPENED,    /* devno held by what holder says (a process pid (comm),
				a thread tid of it, a mapping, a loop device comm);
				count holders */
	PA_CHANGE_MAP_OPEN,  /* multipath: devno open count times by others */
};

struct pa_change {
	enum pa_change_kind kind;
	uint64_t was, now, was2, now2;
	enum pa_area area;
	uint64_t off;
	unsigned int num;
	char was_sig[32], now_sig[32]; /* "" for none */
	dev_t devno;
	enum pa_holder_kind holder; /* PA_CHANGE_OPENED: how devno is held */
	pid_t pid;		    /* 0: not known */
	pid_t tid;		    /* PA_HOLDER_THREAD_FD: the thread */
	size_t count;
	char comm[32]; /* the process's command; PA_HOLDER_LOOP: the loop device */
};

int apply_proof_take(struct pa_disk *d, const struct pa_devlist *l,
		     const struct pa_dev *dev, struct pa_proof **out);
void apply_proof_free(struct pa_proof *p);
/* Also prove the signatures @plan found in what it re-creates (kept, not owned). */
void apply_proof_expect(struct pa_proof *p, const struct pa_plan *plan);
/*
 * Check @p against the disk now: @fd reads through the page cache (for
 * libblkid), @dfd around it (O_DIRECT); @own is how many descriptors of
 * this process hold a multipath map open.  0 when everything is as it
 * was; -ESTALE (changed) or -EBUSY (opened), with apply_proof_change()
 * saying what; or -errno.
 */
int apply_proof_check(struct pa_proof *p, int fd, int dfd, int own);
/*
 * Only the disk's size and sector sizes, as the kernel gives them now
 * (before a backup of the old table is read: a disk that shrank fails that
 * read, which would say less): -ESTALE with apply_proof_change(), 0, or
 * -errno.
 */
int apply_proof_geometry(struct pa_proof *p, struct pa_disk *d);

/*
 * Only the openers: -EBUSY with apply_proof_change(), 0, or -errno.  With
 * @ix (may be NULL), /proc is read once for the run: the index is made at
 * the first call and looked up after (scan_openers_lookup); the gate
 * (apply_proof_check) always reads /proc again.
 */
int apply_proof_openers(struct pa_proof *p, struct pa_opener_index *ix);
/* @len bytes at @off are now @buf on the disk: partalign wrote them. */
void apply_proof_wrote(struct pa_proof *p, uint64_t off, const void *buf, uint64_t len);
const struct pa_change *apply_proof_change(const struct pa_proof *p);

/*
 * The write gate: the one read-write open of a disk, and only after @proof
 * holds (its result is the gate's: -ESTALE or -EBUSY with
 * apply_proof_change() saying what is different).
 */
struct pa_writer;
int apply_gate_open(struct pa_disk *d, struct pa_proof *proof, struct pa_writer **w);
/* The proof again, before a later write (a table written after a long move). */
int apply_gate_prove(struct pa_writer *w);
void apply_gate_close(struct pa_writer *w);
/* The gate's O_RDWR|O_DIRECT descriptor, for bulk data moves (move.c); owned by @w. */
int apply_gate_direct_fd(const struct pa_writer *w);

/*
 * Write @n regions with contents @bufs in the crash-safe order: regions
 * after the first MiB first (the backup GPT), then the head without
 * sector 0 in one write, then sector 0; each step made durable before the
 * next.  Sectors that already hold the new content are not rewritten.
 * *written counts the bytes written.
 */
int apply_write_regions(struct pa_writer *w, const struct pa_extent *regs,
			void *const *bufs, size_t n, uint64_t *written);

/* Erase every signature libblkid finds in [off, off+len). *wiped counts them. */
int apply_wipe(struct pa_writer *w, uint64_t off, uint64_t len, unsigned int *wiped);

/*
 * The move marker (core/marker.h) on the disk itself: 1 with *m, 0 when
 * there is none, -errno.
 */
struct pa_marker;
int apply_disk_marker(struct pa_disk *d, struct pa_marker *m);

/* Knobs of a new move's journal (0: the defaults); for benchmarks. */
struct apply_move_knobs {
	uint64_t chunk;
	uint64_t record_min;
	unsigned int split;
};

/*
 * A new journal for the MOVE steps of @p (in memory, not yet written):
 * chunks and modes, a random move id, the table's identity and each moving
 * entry as it is on @d now.  0 or -errno (-EOPNOTSUPP: no GPT or dos
 * table the marker can be written to).
 */
int apply_move_journal(struct pa_disk *d, const struct pa_plan *p, const char *id,
		       const struct apply_move_knobs *k, struct pa_journal *j);

/*
 * Write the marker of @j (recording @journal_path) through the gate, in
 * the crash-safe order of apply_write_regions(), and check that the disk
 * now carries it.  Before the first data byte of the move is written.
 */
int apply_marker_write(struct pa_disk *d, struct pa_writer *w, const struct pa_journal *j,
		       const char *journal_path);

/* Partitions as the kernel should see them after the write. */
struct pa_kpart {
	unsigned int num;
	uint64_t start; /* bytes */
	uint64_t size;
};

/*
 * Make the kernel's partitions of @d match @parts (BLKPG delete/add; works
 * whether or not the kernel parses tables).  Partitions that are busy stay
 * as they were and are named in @msgs; returns 0 when the kernel matches,
 * -EBUSY when it kept something old, or -errno.
 */
int apply_kernel_sync(struct pa_disk *d, const struct pa_dev *whole,
		      const struct pa_kpart *parts, size_t n, struct pa_diags *msgs);

/*
 * Take partition @num of @d away from the kernel (BLKPG; nobody can open it
 * then), or give it back at @start, @size bytes.  0, -ENXIO when the
 * kernel has no such partition, -EBUSY when it is open, or -errno.
 */
int apply_kernel_del(struct pa_disk *d, unsigned int num);
int apply_kernel_add(struct pa_disk *d, unsigned int num, uint64_t start, uint64_t size);

/*
 * Before a table write: take every partition of @whole the kernel has that
 * is not in @keep exactly (number, start, size) away from the kernel with
 * BLKPG, so that the write never leaves the kernel a partition whose entry
 * changed under it.  The kernel is the judge of "in use": a partition it
 * will not let go (-EBUSY: open, mounted, swap, a holder, a loop device or
 * a mapping over it) stops it, with its number in *@busy, and the ones
 * already taken are given back.  The taken ones in @taken (at most @max),
 * for apply_kernel_give().  -EOPNOTSUPP for a dm map (its partitions are
 * kpartx maps).
 */
int apply_kernel_take(struct pa_disk *d, const struct pa_dev *whole,
		      const struct pa_kpart *keep, size_t nkeep, struct pa_kpart *taken,
		      size_t max, size_t *ntaken, unsigned int *busy);

/* Give the kernel back partitions taken with apply_kernel_take(), where they were. */
void apply_kernel_give(struct pa_disk *d, const struct pa_kpart *parts, size_t n);

/* Does the kernel's view (sysfs) of @whole match @parts exactly? */
bool apply_kernel_matches(const struct pa_dev *whole, const struct pa_kpart *parts,
			  size_t n);

#endif
