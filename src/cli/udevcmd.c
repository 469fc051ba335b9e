/* partalign udev: not written yet. */
#include "config.h"

#include "cli/cli.h"
#include "core/exitcodes.h"

int cmd_udev(int argc, char **argv)
{
	msg_err(NULL, 0, "udev: not implemented yet");
	return PA_EXIT_ERROR;
}
