/*
 * The label parser moved to the pure core (core/label.h); this name stays
 * only for the files that still include it from here (src/cli/check.c).
 * Remove it once they include core/label.h.
 */
#include "core/label.h"
