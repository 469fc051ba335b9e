/*
 * Alignment arithmetic: the three verdicts for one start offset on one
 * topology, the kernel's own per-partition alignment_offset, and the
 * sanitising of the optimal I/O size.  Pure integer math on plain structs.
 */
#ifndef PARTALIGN_ALIGN_H
#define PARTALIGN_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/device.h"
#include "core/reason.h"
#include "core/units.h"

enum pa_verdict {
	PA_VERDICT_NA = 0,
	PA_VERDICT_OK,
	PA_VERDICT_MISALIGNED,
};

/* Optimal I/O sizes at or above this are not believed. */
#define PA_OPT_IO_MAX (64ull << 20)

#define PA_REASON_MAX 512

struct pa_check {
	enum pa_verdict physical;
	enum pa_verdict optimal;
	enum pa_verdict policy;
	uint64_t phys_grain;   /* max(physical, minimum I/O) */
	uint64_t opt_grain;    /* sanitised optimal I/O, 0 when ignored */
	uint64_t policy_grain; /* in bytes for this device, 0 when unusable */
	bool kalign_predicted_known;
	int64_t kalign_predicted; /* what the kernel's alignment_offset should say */
	bool kalign_mismatch;	  /* the kernel's value disagrees with ours */
	struct pa_reasons why;	  /* none when all three are ok (core/reason.h) */
	/* a stacked device judged through its layers (align_check_stacked) */
	bool stack_known;
	uint64_t abs_start; /* byte 0 of the worst segment on the bottom device */
	char layers[256];   /* "vda>vda1>dm-2", bottom first */
};

const char *align_verdict_name(enum pa_verdict v);

/* PA_EXIT_MISALIGNED when any of @c's three verdicts is misaligned, else 0. */
int align_check_exit(const struct pa_check *c);

/*
 * Sanitise t->opt_io.  Returns the usable optimal size in bytes, or 0 and in
 * *why why not: PA_OPT_ABSENT when the size is simply absent.
 */
uint64_t align_optimal_sane(const struct pa_topology *t, uint64_t dev_size,
			    enum pa_opt_why *why);

/* align_optimal_sane() with its explanation in words (NULL when absent). */
uint64_t align_optimal_usable(const struct pa_topology *t, uint64_t dev_size,
			      const char **why);

/* Granularity of the physical check: max(physical, minimum I/O), at least logical. */
uint64_t align_physical_grain(const struct pa_topology *t);

/* Policy grain in bytes on a device with this logical sector size; 0 if unusable. */
uint64_t align_policy_bytes(const struct pa_grain *g, uint32_t logical);

/*
 * Bytes from @start to the next byte at which (byte - offset) is a multiple of
 * @grain; 0 when @start is on such a boundary.  This is the formula of the
 * kernel's per-partition alignment_offset (queue_limit_alignment_offset).
 */
uint64_t align_distance(uint64_t start, uint64_t grain, uint64_t offset);

/* The kernel's per-partition alignment_offset for a partition at @start; -1 if misaligned
 * stack. */
int64_t align_kernel_offset(const struct pa_topology *t, uint64_t start);

/* Smallest b >= @from with (b - offset) % grain == 0. */
/* Least common multiple of two grains (either 0: the other); 0 when it does
 * not fit in 64 bits. */
uint64_t align_lcm(uint64_t a, uint64_t b);

uint64_t align_up(uint64_t from, uint64_t grain, uint64_t offset);
/* Largest b <= @from with (b - offset) % grain == 0 (0 if none). */
uint64_t align_down(uint64_t from, uint64_t grain, uint64_t offset);

enum pa_region {
	PA_REGION_PART,	   /* a partition at a known start on its disk */
	PA_REGION_WHOLE,   /* a whole device used without a partition table */
	PA_REGION_STACKED, /* a dm device whose place on the disk below is unknown */
};

/*
 * Compute the three verdicts for a region starting at @start bytes of a
 * device with topology @t.  @kernel_align (when @kalign_known) is the kernel's
 * alignment_offset of the region; a disagreement with the prediction is
 * flagged, explained, and counted as misaligned.
 */
void align_check(const struct pa_topology *t, uint64_t dev_size, enum pa_region region,
		 uint64_t start, const struct pa_grain *policy, bool kalign_known,
		 int64_t kernel_align, struct pa_check *out);

/*
 * The check of one scanned device: a partition, a whole device, or a stacked
 * dm device (whose placement below is known only through the kernel's offset).
 */
void align_check_dev(const struct pa_dev *d, const struct pa_grain *policy,
		     struct pa_check *out);

#endif
