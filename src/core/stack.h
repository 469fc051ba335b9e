/*
 * A storage stack and the alignment of each stacked device at its real place
 * on the disk below (issue #15).  The caller (the scanner) describes the
 * devices as plain structs: disks at the bottom with their topology, and
 * layers above them that map ranges of the upper device onto lower devices
 * (partitions, device-mapper linear/striped tables, dm-crypt, md arrays, LVM
 * logical volumes).  This module only computes: where byte 0 of every segment
 * of a stacked device lands on each disk, the physical, optimal and policy
 * verdicts there, which layer is to blame, and what command would fix it.
 *
 * Every size and offset is in bytes (uint64_t), except where a field says
 * otherwise.  Every sum and product is overflow-checked: an input that would
 * wrap is refused with -ERANGE, a malformed one with -EINVAL.
 *
 * Memory: every array and string is owned by the caller and must live as long
 * as the struct pa_stack that points to it; nothing here allocates or frees.
 */
#ifndef PARTALIGN_STACK_H
#define PARTALIGN_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/align.h"
#include "core/device.h"
#include "core/reason.h"

enum pa_stack_kind {
	PA_STACK_DISK, /* bottom of the stack: a disk, LUN or anything whose layout is not
			  known */
	PA_STACK_PART, /* a partition: @lower at byte @offset (its start) */
	PA_STACK_DM,   /* a device-mapper table of linear and striped segments (multipath:
			  one linear segment at offset 0 of one path) */
	PA_STACK_CRYPT, /* dm-crypt: @lower from byte @offset (the payload offset) */
	PA_STACK_MD,	/* an md array over @members */
	PA_STACK_LV,	/* an LVM logical volume: @segs in extents of the PVs @pvs */
};

/* Where a segment (or one stripe of it) continues on the device below. */
struct pa_stack_ref {
	unsigned int
	    dev; /* PA_STACK_DM: index in pa_stack.dev; PA_STACK_LV: index in pvs */
	uint64_t
	    offset; /* PA_STACK_DM: bytes on that device; PA_STACK_LV: the PE number */
};

/*
 * One segment of a PA_STACK_DM table or of an LV: bytes [start, start + length)
 * of the upper device.  stripes == 1 is linear (chunk 0, to[0] only); more is
 * striped: chunk i (of @chunk bytes, counted from @start) goes to to[i %
 * stripes] at offset to[].offset + (i / stripes) * chunk.  length must be a
 * multiple of stripes * chunk (dm-stripe and LVM both guarantee it).
 */
struct pa_stack_seg {
	uint64_t start;
	uint64_t length;
	uint32_t stripes;
	uint64_t chunk;
	const struct pa_stack_ref *to; /* @stripes entries */
};

/* An md member: a device and where the array's data begins on it. */
struct pa_stack_member {
	unsigned int dev;     /* index in pa_stack.dev */
	uint64_t data_offset; /* bytes (mdadm --examine "Data Offset" is in 512-byte
				 sectors) */
};

/* A physical volume of an LV's volume group. */
struct pa_stack_pv {
	unsigned int dev; /* index in pa_stack.dev: the device the PV label is on */
	uint64_t
	    pe_start; /* bytes from the start of that device to PE 0 (pvs -o pe_start) */
};

struct pa_stack_dev {
	const char *name; /* "vda", "vda1", "md0", "vg-lv", "luks-..."; used in reasons */
	enum pa_stack_kind kind;
	uint64_t size; /* bytes */

	/* PA_STACK_DISK: the disk's own topology (logical, physical, minimum and
	   optimal I/O, alignment offset: the first aligned byte, -1 "cannot align") */
	struct pa_topology topo;

	/* PA_STACK_PART, PA_STACK_CRYPT */
	unsigned int lower; /* index in pa_stack.dev */
	uint64_t offset;    /* partition start / crypt payload offset, bytes on @lower */

	/* PA_STACK_MD.  Levels 0, 1, 4, 5, 6 and 10 (near layout only).  Chunk
	   in bytes (0 for level 1); data_disks: members carrying data in one
	   stripe (RAID0 n, RAID1 1, RAID4/5 n-1, RAID6 n-2, RAID10 n/copies);
	   copies: RAID10's near copies (else ignored). */
	unsigned int level;
	uint64_t chunk;
	unsigned int data_disks;
	unsigned int copies;
	unsigned int nmembers;
	const struct pa_stack_member *members;

	/* PA_STACK_DM and PA_STACK_LV: segments in ascending, non-overlapping order */
	unsigned int nsegs;
	const struct pa_stack_seg *segs;

	/* PA_STACK_LV */
	const char *vg;	      /* volume group name, for advice */
	uint64_t extent_size; /* bytes (vgs -o vg_extent_size) */
	unsigned int npvs;
	const struct pa_stack_pv *pvs;
};

/* The devices of a stack.  A device may refer only to devices listed before it. */
struct pa_stack {
	unsigned int ndevs;
	const struct pa_stack_dev *dev;
};

/* Limits that keep the walk bounded: deeper or wider stacks are refused (-E2BIG). */
#define PA_STACK_DEVS_MAX 256
#define PA_STACK_DEPTH_MAX 16
#define PA_STACK_FANOUT_MAX 64
/* layers visited while judging one segment (wide arrays over wide arrays) */
#define PA_STACK_STEPS_MAX 65536

/*
 * The verdict of one segment (or the worst of a device).  physical, optimal
 * and policy as align_check(): ok, misaligned or n/a.  @blame is the summand
 * (and @blame_dev the layer) responsible for the most severe miss (physical
 * over optimal over policy); @why holds every miss, in the walk's order.
 */
struct pa_stack_verdict {
	enum pa_verdict physical;
	enum pa_verdict optimal;
	enum pa_verdict policy;
	unsigned int seg; /* the segment of the checked device (0 for one-piece layers) */
	unsigned int bottom; /* the disk of the worst landing (index in pa_stack.dev) */
	uint64_t abs;	     /* where byte 0 of that segment lands on that disk */
	/* lcm of that disk's physical, optimal and policy grains (stack_extent_ok) */
	uint64_t bottom_grain;
	bool blamed;
	enum pa_stack_term_kind blame; /* valid when @blamed */
	unsigned int blame_dev;	       /* device whose term is responsible */
	uint64_t grain;		       /* the grain missed by the blamed term, bytes */
	/* the offset below the blamed term (where its layer starts) */
	uint64_t blame_base;
	uint64_t fix_grain; /* lcm of every grain judged where the blame was found */
	char path[256];	    /* "vda -> vda1 -> vg-lv" */
	/* the same devices as indices in pa_stack.dev, the checked one first */
	unsigned int route[PA_STACK_DEPTH_MAX + 1];
	unsigned int nroute;
	struct pa_reasons why; /* none when everything is ok (core/reason.h) */
};

/* 0, or -EINVAL / -ERANGE / -E2BIG with the offending device's index in *bad. */
int stack_validate(const struct pa_stack *s, unsigned int *bad);

/*
 * Judge device @dev: for each of its segments (a partition, crypt device or
 * md array has one; DM and LV their table's), follow byte 0 down to every
 * disk it lands on and judge it there: the disk's physical grain, usable
 * optimal I/O and @policy at the absolute offset; on the way, every md array
 * and striped segment judges the offset on itself against its chunk (as its
 * minimum I/O: physical), chunk x data disks (optimal) and @policy, and its
 * chunk against the grains of the disk below (a chunk that is no multiple of
 * the physical sector, or that straddles the disk's optimal I/O).  Inside an
 * array member the policy is not judged again on the disk.  Where the
 * member is not known (RAID4/5/6 rotate data and parity), every member is
 * judged at the same member offset; at a row start (RAID0, RAID10, striped)
 * every member or stripe is.  The worst segment goes to *out.
 * Returns 0, or a negative errno of stack_validate() (or -E2BIG when the
 * walk exceeds PA_STACK_STEPS_MAX).
 */
int stack_check_dev(const struct pa_stack *s, unsigned int dev,
		    const struct pa_grain *policy, struct pa_stack_verdict *out);

/*
 * An LV's volume group: does its extent size keep later LVs on @grain (the
 * bottom grain that LV's first segment needs)?  True when the extent size is
 * a multiple of @grain; otherwise the reason goes to *why (may be NULL).
 */
bool stack_extent_ok(const struct pa_stack_dev *lv, uint64_t grain,
		     struct pa_reason *why);

/* the name of device @i of @s, "?" when it has none */
const char *stack_dev_name(const struct pa_stack *s, unsigned int i);
/* "partition", "md array", ... */
const char *stack_kind_word(enum pa_stack_kind k);

#endif
