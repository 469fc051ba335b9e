/*
 * The warnings of move-pending.c are declared in cli/move-pending.h; this
 * name stays only for the files that still include it (src/cli/check.c).
 * Remove it once they include cli/move-pending.h.
 */
#include "cli/move-pending.h"
