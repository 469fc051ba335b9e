/*
 * Why a verdict is what it is, as data: each reason is a kind, the verdict it
 * explains, the layer to blame and its numbers.  Classification, ordering and
 * exit bits use these fields only; the words are written once, at output, by
 * reason_render() (core/reason.c), the same for the table, JSON, pairs, udev
 * properties and syslog.
 *
 * Names in a reason point into the caller's device list or stack (as in
 * struct pa_stack_dev): they must live as long as the reason is rendered.
 */
#ifndef PARTALIGN_REASON_H
#define PARTALIGN_REASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which verdict a reason explains; the values are the severities of stack.c. */
enum pa_reason_verdict {
	PA_RV_NONE = 0,	    /* a note */
	PA_RV_POLICY = 1,   /* the site's grain */
	PA_RV_OPTIMAL = 2,  /* the optimal I/O size (or a stripe width) */
	PA_RV_PHYSICAL = 4, /* physical sector, minimum I/O, chunk, offset -1 */
	PA_RV_ASM = 8,	    /* an Oracle ASM disk group finding (core/asm-audit.c) */
};

/* Why the optimal I/O size is not believed (align_optimal_usable). */
enum pa_opt_why {
	PA_OPT_ABSENT = 0,  /* the device reports none */
	PA_OPT_FFFF,	    /* 0xffff sectors */
	PA_OPT_NOT_PHYS,    /* not a multiple of the physical grain */
	PA_OPT_IMPLAUSIBLE, /* too large */
};

/* Why one offset is what it is: one summand, bottom layer first. */
enum pa_stack_term_kind {
	PA_TERM_PART_START,  /* partition start */
	PA_TERM_DM_OFFSET,   /* dm linear offset / striped per-stripe offset */
	PA_TERM_PAYLOAD,     /* dm-crypt payload offset */
	PA_TERM_DATA_OFFSET, /* md member data offset */
	PA_TERM_ROW,	     /* chunk rows of an md array or striped segment */
	PA_TERM_PE_START,    /* LVM pe_start */
	PA_TERM_EXTENTS,     /* LVM: PE number x extent size */
	PA_TERM_WITHIN,	     /* bytes into a segment of the layer */
};

/* The grain a stacked offset missed. */
enum pa_grain_kind {
	PA_GRAIN_PHYSICAL, /* physical sector and minimum I/O of a disk */
	PA_GRAIN_OPTIMAL,  /* optimal I/O of a disk */
	PA_GRAIN_POLICY,   /* the site's grain */
	PA_GRAIN_CHUNK,	   /* chunk of an md array or striped segment */
	PA_GRAIN_STRIPE,   /* its chunk x data disks */
};

enum pa_reason_kind {
	/* one device at a start (align_check) */
	PA_REASON_OFF_GRAIN,	   /* start @a past a @b boundary, offset @c */
	PA_REASON_CANNOT_ALIGN,	   /* the kernel's alignment offset is -1 */
	PA_REASON_KERNEL_OFFSET,   /* the kernel's alignment_offset @s1, ours @s2 */
	PA_REASON_OPT_IGNORED,	   /* optimal I/O @a not believed: @opt_why */
	PA_REASON_OPT_ABSENT,	   /* no optimal I/O size */
	PA_REASON_STACKED_UNKNOWN, /* a stacked device's place below is not known */
	PA_REASON_GRAIN_UNUSABLE,  /* policy grain @a (@sectors) vs logical @b */
	PA_REASON_WHOLE,	   /* a whole device: aligned by construction */
	/* through a stack (stack_check_dev) */
	PA_REASON_LAYER,	  /* @term of @layer takes the offset off a grain */
	PA_REASON_BYTE0,	  /* byte 0 of @layer (no summand) off a grain */
	PA_REASON_DISK_CANNOT,	  /* @space reports alignment offset -1 */
	PA_REASON_CHUNK_SECTOR,	  /* chunk @a of @layer vs the physical grain @b of @space
				   */
	PA_REASON_CHUNK_STRADDLE, /* chunk @a of @layer straddles optimal I/O @b of @space
				   */
	PA_REASON_NO_OPT,	  /* bottom disk @space has no usable optimal I/O */
	PA_REASON_EXTENT_SIZE,	  /* extent size @a of VG @vg vs grain @b */
	PA_REASON_MORE,		  /* more reasons than room */
	/* Oracle ASM (asm_audit), verdict PA_RV_ASM; @vg the group, @layer the disk */
	PA_REASON_ASM_MIXED, /* group mixes @a-byte sectors (@base_dev) and @b (@space) */
	PA_REASON_ASM_SECSIZE,	 /* the header says @a-byte sectors, the kernel @b */
	PA_REASON_ASM_DUPLICATE, /* also on @base_dev; ASM should see @space (or NULL) */
	PA_REASON_ASM_TABLE,  /* a @base_word table over the header; backup block @count
				 of AU 1 at byte @a (@value: it holds the header), repair
				 with kfed on @space, AU size @b */
	PA_REASON_ASM_OFF_AU, /* start @a past a @b allocation unit boundary */
	PA_REASON_ASM_BACKUP, /* backup block @count of AU 1 (byte @a): @value 0 unread,
				 1 no header, 2 differs in @base_word */
	PA_REASON_ASM_TRUNCATED, /* @a allocation units of @b bytes, the device @c bytes
				  */
	PA_REASON_ASM_DAMAGED,	 /* the header is damaged: @base_word */
};

struct pa_reason {
	enum pa_reason_kind kind;
	enum pa_reason_verdict verdict; /* what it explains */
	/* PA_REASON_LAYER: the summand to blame and the grain it missed */
	enum pa_stack_term_kind term;
	enum pa_grain_kind grain;
	enum pa_opt_why opt_why;
	bool sectors; /* PA_REASON_GRAIN_UNUSABLE: the grain is in sectors */
	bool lands;   /* PA_REASON_LAYER: more summands follow; @at is where */
	bool on;      /* PA_REASON_LAYER: the summand is on a lower layer (@base_*) */
	const char *layer; /* the device of the summand / chunk */
	const char *space; /* the device of the grain (a disk, an array) */
	const char *vg;	   /* LVM: the volume group */
	/* PA_REASON_LAYER with @on: what the summand sits on */
	enum pa_stack_term_kind base_term;
	const char *base_word; /* "md array", "dm device"... (not for part/pe) */
	const char *base_dev;
	uint64_t base;
	/* numbers, bytes unless said */
	uint64_t a, b, c;
	uint64_t value; /* PA_REASON_LAYER: the summand */
	uint64_t count; /* PA_TERM_EXTENTS: the PE number */
	uint64_t extent_size;
	uint64_t sum; /* the offset after the summand */
	uint64_t at;  /* where the segment lands */
	unsigned int ndata;
	int64_t s1, s2;
};

#define PA_REASONS_MAX 24
/* reason_add() keeps two places free for the notes after a stack's walk */
#define PA_REASONS_ADD_MAX (PA_REASONS_MAX - 2)

enum pa_reasons_form {
	PA_REASONS_PLAIN,   /* align_check(): each clause labelled with its verdict */
	PA_REASONS_WALK,    /* stack_check_dev(): the walk's clauses in its order */
	PA_REASONS_STACKED, /* layers_check(): the walk's, the one about @worst
			       first and labelled, then the notes after r[nwalk] */
};

/* The reasons of one verdict. */
struct pa_reasons {
	unsigned int n;
	enum pa_reasons_form form;
	unsigned int nwalk;
	enum pa_reason_verdict worst;
	struct pa_reason r[PA_REASONS_MAX];
};

/* Adds @r unless an equal reason is there; a full list ends with PA_REASON_MORE. */
void reason_add(struct pa_reasons *l, const struct pa_reason *r);

/* One clause of a rendered reason: its place in the text and its label. */
struct pa_reason_span {
	size_t off, len;
	enum pa_reason_verdict label; /* the verdict named at its start, or none */
};

#define PA_REASON_TEXT_MAX 512
#define PA_REASON_SPANS_MAX (PA_REASONS_MAX + 4)

/*
 * The words of @l into @buf (at most PA_REASON_TEXT_MAX - 1 bytes; empty when
 * there is no reason), "; " between clauses; each clause's place in @spans
 * (may be NULL) and their number in *nspans.  Returns the text's length.
 */
size_t reason_render(const struct pa_reasons *l, char *buf, size_t len,
		     struct pa_reason_span *spans, unsigned int *nspans);

/* The words of one reason, without a verdict label. */
void reason_text(const struct pa_reason *r, char *buf, size_t len);

/* Why an optimal I/O size is ignored, in words. */
const char *reason_opt_why_text(enum pa_opt_why w);

/* "optimal" and its kin: the label of a clause. */
const char *reason_verdict_word(enum pa_reason_verdict v);

#endif
