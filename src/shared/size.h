/*
 * Sizes for people.  Two spellings are visible in partalign's output and kept
 * byte for byte: the table's (lsblk style) and the progress lines' (IEC units).
 */
#ifndef PARTALIGN_SHARED_SIZE_H
#define PARTALIGN_SHARED_SIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * lsblk style, as the table columns show sizes: "512B", "100M", "1.5G"; powers of
 * 1024, one decimal, rounded down so it never overstates, no decimal when it is 0.
 * Writes into @buf (24 bytes hold any value) and returns it.
 */
const char *size_human(uint64_t bytes, char *buf, size_t len);

/*
 * IEC units with a space, as progress and summary lines show them: "512 B",
 * "1.5 MiB", "16.0 GiB" (one decimal above bytes, rounded to nearest; PiB at most).
 */
const char *size_human_iec(uint64_t bytes, char *buf, size_t len);

#endif
