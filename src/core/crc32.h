/* CRC-32 (IEEE 802.3, as GPT and zlib use it), for checksums in our own files. */
#ifndef PARTALIGN_CRC32_H
#define PARTALIGN_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue @crc (start with 0) over @len bytes. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

#endif
