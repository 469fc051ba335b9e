/*
 * The provision configuration (src/cli/provision.c, the parser behind
 * provision_config_check), from a file.  Its messages go to stderr.
 */
#include "config.h"

#include "fuzz.h"

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int rc = provision_config_check(fz_file(data, size));

	FZ_ASSERT(rc == 0 || rc == -EINVAL);
	return 0;
}
