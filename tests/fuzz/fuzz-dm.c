/*
 * The device-mapper DM_TABLE_STATUS reply (src/scan/dm.c,
 * scan_dm_table_start): the input is the reply buffer as the kernel fills
 * it (struct dm_ioctl, then the target specs at data_start).
 */
#include "config.h"

#include "fuzz.h"

#include "scan/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t start = 1;
	int rc = scan_dm_table_start(data, size, &start);

	FZ_ASSERT(rc == 0 || rc == -EOPNOTSUPP);
	FZ_ASSERT(rc < 0 || start % 512 == 0);
	return 0;
}
