/* The write path (not written yet). */
#include "config.h"

#include "apply/apply.h"

int apply_placeholder_(void);
int apply_placeholder_(void)
{
	return 0;
}
