/*
 * Raw label layout, for the few things libparted 3.5 does not expose: where
 * the GPT arrays and dos EBRs lie, and the GPT type GUID and unique GUID of
 * each entry.  Internal to src/apply/.
 */
#ifndef PARTALIGN_LABEL_H
#define PARTALIGN_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apply/apply.h"

/* Reads @len bytes at byte @off of some image; 0 or -errno. */
typedef int (*label_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* GPT: bytes of the header + entry array at the start; the same at the end. */
int label_gpt_extent(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *head_len,
		     uint64_t *tail_len);

/*
 * dos: the byte offsets of every EBR in the chain (at most @max);
 * returns how many, 0 if there is no extended partition, or -errno.
 */
int label_dos_ebrs(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *ebrs,
		   size_t max);

/* GPT entry @num (1-based): type GUID and unique GUID as text, if in use. */
int label_gpt_entry_guids(label_read_fn rd, void *ctx, uint32_t logical, unsigned int num,
			  char type[37], char uuid[37]);

/* dos primary entry @num (1..4): system id, or -ENOENT. */
int label_dos_system(label_read_fn rd, void *ctx, unsigned int num);

#endif
