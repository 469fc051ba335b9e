/*
 * Bitwise CRC-32: backups are a few KiB, a table is not worth its code.
 */
#include "config.h"

#include "core/crc32.h"

uint32_t pa_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}
