/* partalign plan fix restore: not written yet. */
#include "config.h"

#include "cli/cli.h"
#include "core/exitcodes.h"

int cmd_plan(int argc, char **argv)
{
	msg_err(NULL, 0, "plan: not implemented yet");
	return PA_EXIT_ERROR;
}

int cmd_fix(int argc, char **argv)
{
	msg_err(NULL, 0, "fix: not implemented yet");
	return PA_EXIT_ERROR;
}

int cmd_restore(int argc, char **argv)
{
	msg_err(NULL, 0, "restore: not implemented yet");
	return PA_EXIT_ERROR;
}
