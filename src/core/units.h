/*
 * Sizes as admins type and read them: parted's units on input, exact binary
 * units on output (a value is never rounded in a message).
 */
#ifndef PARTALIGN_UNITS_H
#define PARTALIGN_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The site's policy grain: a byte count, or a count of logical sectors ("8s"). */
struct pa_grain {
	uint64_t value;
	bool sectors;
};

#define PA_GRAIN_DEFAULT ((struct pa_grain){.value = 2u << 20, .sectors = false})

/*
 * Parse "2MiB", "4096s", "1GB", "512B"... into a grain.  Units as parted(8):
 * s (logical sectors), B, kB MB GB TB (powers of 1000), KiB MiB GiB TiB.
 * A bare number is refused: "2048" could mean bytes or sectors.
 * Returns 0, -EINVAL (syntax, unit, zero) or -ERANGE.
 */
int units_parse_grain(const char *s, struct pa_grain *g);

/* "4 KiB", "2 MiB", "3584 B": the largest binary unit that divides exactly. */
const char *units_exact(uint64_t bytes, char *buf, size_t len);

/*
 * An amount an admin must add or free, in words: "2 MiB" when exact, else one
 * decimal rounded up (never less than needed) and the bytes:
 * "2.0 MiB (2064896 bytes)"; "512 bytes" below 1 KiB.
 */
const char *units_amount(uint64_t bytes, char *buf, size_t len);

/* "2 MiB" or "8 sectors" */
const char *units_grain(const struct pa_grain *g, char *buf, size_t len);

#endif
