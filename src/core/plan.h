/*
 * The plan: where each partition of one disk goes, and whether the disk may
 * be touched at all.  Pure arithmetic on a plain description of the table;
 * src/apply/ reads the table into these structs and carries the plan out.
 * `plan` prints a plan, `fix` prints it and then passes the write gate.
 *
 * Ownership: plan_free() releases everything a struct pa_plan holds,
 * including its table.
 */
#ifndef PARTALIGN_PLAN_H
#define PARTALIGN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/align.h"
#include "core/device.h"

enum pa_label {
	PA_LABEL_NONE = 0,
	PA_LABEL_GPT,
	PA_LABEL_MSDOS,
	PA_LABEL_OTHER,
};

/* One GPT copy (header and entry array) as checked raw; the order of core/label.h. */
enum pa_gpt_copy {
	PA_GPT_OK = 0,
	PA_GPT_NO_HEADER,  /* no "EFI PART" signature */
	PA_GPT_BAD_HEADER, /* a wrong header CRC or field */
	PA_GPT_BAD_ARRAY,  /* the entry array's CRC is wrong */
};

/* One partition table entry; positions in bytes. */
struct pa_entry {
	unsigned int num;
	uint64_t start;
	uint64_t size;
	bool logical;	 /* msdos logical partition */
	bool extended;	 /* msdos extended container */
	char *name;	 /* GPT name */
	char *type;	 /* GPT type GUID or msdos system id, for display */
	char *uuid;	 /* GPT unique GUID (PARTUUID), NULL on dos */
	char *signature; /* what libblkid found at the start: xfs, LVM2_member... */
	/* the move marker hides it on the disk (core/marker.h): no partition of
	   the kernel's is expected for it until the move's table is written */
	bool moving;
	uint64_t move_to; /* where the marker says it goes; 0 when it does not */
};

struct pa_table {
	enum pa_label label;
	uint64_t disk_size;    /* bytes */
	uint32_t logical;      /* bytes per sector */
	uint64_t first_usable; /* first byte a partition may use in the NEW label */
	uint64_t last_usable;  /* last byte (inclusive) a partition may use */
	char *signature;       /* no table: what the whole device holds */
	bool damaged;	       /* one GPT copy is corrupt; read from the other */
	/* sector 0 and both GPT copies checked raw, whatever libparted made of them */
	bool pmbr;		      /* a protective 0xEE entry in sector 0 */
	enum pa_gpt_copy gpt_primary; /* PA_GPT_OK unless pmbr */
	enum pa_gpt_copy gpt_backup;
	size_t backup_parts;	    /* primary not valid: used entries of the backup */
	unsigned int hybrid_entry;  /* a dos entry (1-4) beside the 0xEE one: hybrid */
	unsigned int hybrid_type;   /* its system id */
	bool gpt_odd_layout;	    /* entry array not at LBA 2 (or over 64 MiB) */
	unsigned int other_gpt;	    /* a dos table with a valid GPT header beside
				       it: 1 at LBA 1, 2 at the last LBA (label.h) */
	uint64_t gpt_entries_lba;   /* where it is, when known */
	uint64_t gpt_alternate_lba; /* where the valid primary says the backup is; 0 */
	bool unreadable;	    /* libparted could not read the table at all */
	char *broken;		    /* why, when the entries tell (overlap, past end) */
	size_t n;
	struct pa_entry *v;
	/* the move marker (core/marker.h) the table carries, if any */
	bool marked;
	uint64_t move_id; /* GPT: 64 bits; dos: the low 32 (move_id32) */
	bool move_id32;
	bool move_hidden;   /* the marker of this build: the entries hidden on the disk */
	char *move_journal; /* where the marker says the journal is; NULL */
	char ident[48];	    /* "gpt:<disk GUID>", "dos:<signature>", "" unknown */
};

enum pa_step_kind {
	PA_STEP_KEEP,	  /* already on the grain: untouched */
	PA_STEP_RECREATE, /* re-created at a new start; content not preserved */
	PA_STEP_CREATE,	  /* fix --new: a new partition on a blank disk */
	PA_STEP_DROP,	  /* msdos extended container, gone in GPT */
	PA_STEP_MOVE,	  /* --move-data: content moved to the new start, entry kept */
};

struct pa_step {
	enum pa_step_kind kind;
	const struct pa_entry *old; /* NULL for CREATE */
	unsigned int num;
	uint64_t new_start;
	uint64_t new_size;
	bool resized; /* size rounded down to fit */
	struct pa_check before;
	struct pa_check after;
};

struct pa_plan_opts {
	struct pa_grain grain;
	bool keep_label;   /* --label keep: an msdos table stays msdos */
	bool new_disk;	   /* fix --new */
	bool discard_data; /* signatures may be destroyed */
	bool move_data;	   /* move misaligned partitions' content; label and sizes kept */
};

struct pa_plan {
	struct pa_table table; /* the current table (owned) */
	enum pa_label new_label;
	uint64_t place_grain;  /* lcm(policy, physical, optimal) in bytes */
	uint64_t place_offset; /* the device alignment offset it is measured from */
	size_t n;
	struct pa_step *v;
	unsigned int changes; /* steps that are not KEEP; >= 1 for a damaged table */
	char *refusal;	      /* why the disk must not be touched; NULL if it may */
	bool destroys;	      /* some step overwrites a signature */
};

/* Usable byte range of a label on a disk of @size bytes with @logical sectors. */
void plan_label_range(enum pa_label label, uint64_t size, uint32_t logical,
		      uint64_t *first, uint64_t *last);

/* Entry list helpers; the table owns the strings. */
/* The step that leaves entry @e where and as it is. */
static inline struct pa_step plan_step_keep(const struct pa_entry *e)
{
	return (struct pa_step){.kind = PA_STEP_KEEP,
				.old = e,
				.num = e->num,
				.new_start = e->start,
				.new_size = e->size};
}

int plan_table_add(struct pa_table *t, const struct pa_entry *e);

/* Does @p move a partition's data (a PA_STEP_MOVE)? */
bool plan_moves_data(const struct pa_plan *p);
void plan_table_free(struct pa_table *t);

/*
 * Compute the plan for @t (moved into @p, which owns it afterwards) on a
 * device of topology @topo.  Returns 0, or -ENOMEM.  A disk that cannot be
 * planned (does not fit, unsupported layout) gets p->refusal, not an error.
 */
int plan_compute(struct pa_table *t, const struct pa_topology *topo,
		 const struct pa_plan_opts *o, struct pa_plan *p);

/*
 * Refusals that depend only on what the scan saw: the disk or any of its
 * partitions mounted, used as swap, held by dm/md/LVM, or a multipath path.
 * Returns a malloc'd one-line reason, or NULL when none applies.
 */
char *plan_refusal_in_use(const struct pa_devlist *l, const struct pa_dev *disk);

/*
 * Does the kernel's view of @disk (its partitions in @l, as scanned) differ
 * from the table @t as read: a partition missing, extra, or at another
 * start or size (a dos extended container's size is not compared)?
 */
bool plan_kernel_stale(const struct pa_devlist *l, const struct pa_dev *disk,
		       const struct pa_table *t);

/*
 * A multipath map in use: ASM and databases open devices without O_EXCL,
 * so only the open counts tell.  @opens[i] is the open count of l->v[i]
 * (as the device-mapper reports it), or -1 when unknown; only @map's and
 * those of its kpartx partition maps (partitions of @map with a dm uuid)
 * are read.  Refused: any partition map open, or the map open by more
 * than its partition maps and this process (two descriptors).  Returns a
 * malloc'd one-line reason, or NULL when it is not in use (or on ENOMEM).
 */
char *plan_refusal_map_in_use(const struct pa_devlist *l, const struct pa_dev *map,
			      const int *opens);

/*
 * One line on a damaged GPT copy (sector 0 protective, one or both copies
 * not valid), e.g. "the primary GPT header is damaged (...), the backup is
 * intact", into @buf.  Returns its length, 0 when both copies are intact
 * or the table is no GPT.
 */
int plan_table_damage(const struct pa_table *t, char *buf, size_t len);

/*
 * Where a GPT's backup lies against the disk's end, as the valid primary
 * header says: at the end, before it (the disk grew since the GPT was
 * written: fix writes the backup at the end), or past it (the disk shrank,
 * or is a truncated copy: refused).
 */
enum pa_gpt_end {
	PA_GPT_END_OK = 0,
	PA_GPT_END_GROWN,
	PA_GPT_END_SHRUNK,
};
enum pa_gpt_end plan_gpt_end(const struct pa_table *t);

/* Set p->refusal (first one wins) from a printf format; -ENOMEM on failure. */
int plan_refuse(struct pa_plan *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void plan_free(struct pa_plan *p);

const char *plan_step_name(enum pa_step_kind k);
const char *plan_label_name(enum pa_label l);

#endif
