/*
 * Size parsing and exact formatting.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/units.h"

static const struct {
	const char *name;
	uint64_t mult;
} units[] = {
    {"B", 1},
    {"kB", 1000ull},
    {"MB", 1000ull * 1000},
    {"GB", 1000ull * 1000 * 1000},
    {"TB", 1000ull * 1000 * 1000 * 1000},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
};

int units_parse_grain(const char *s, struct pa_grain *g)
{
	const char *p = s;
	const char *unit;
	uint64_t v = 0;
	size_t i;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int dgt = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - dgt) / 10)
			return -ERANGE;
		v = v * 10 + dgt;
	}
	unit = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	while (isspace((unsigned char)*p))
		p++;
	if (*p || v == 0 || unit == p)
		return -EINVAL;

	if ((unit[0] == 's' || unit[0] == 'S') &&
	    (unit[1] == '\0' || isspace((unsigned char)unit[1]))) {
		g->value = v;
		g->sectors = true;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].name);

		/* parted accepts unit names in any case: "mib", "MiB", "kb" */
		if (strncasecmp(unit, units[i].name, n) == 0 &&
		    (unit[n] == '\0' || isspace((unsigned char)unit[n]))) {
			if (v > UINT64_MAX / units[i].mult)
				return -ERANGE;
			g->value = v * units[i].mult;
			g->sectors = false;
			return 0;
		}
	}
	return -EINVAL;
}

const char *units_exact(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t i = 0;

	while (bytes && bytes % 1024 == 0 && i + 1 < sizeof(names) / sizeof(names[0])) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", bytes, names[i]);
	return buf;
}

const char *units_amount(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B",   "KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB"};
	uint64_t unit = 1, tenths;
	size_t i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " byte%s", bytes, bytes == 1 ? "" : "s");
		return buf;
	}
	while (i + 1 < sizeof(names) / sizeof(names[0]) && bytes / unit >= 1024) {
		unit <<= 10;
		i++;
	}
	if (bytes % unit == 0) {
		snprintf(buf, len, "%" PRIu64 " %s", bytes / unit, names[i]);
		return buf;
	}
	/* rem * 10 < 2^64: unit is at most 2^60 */
	tenths = bytes / unit * 10 + ((bytes % unit) * 10 + unit - 1) / unit;
	if (tenths >= 10240 && i + 1 < sizeof(names) / sizeof(names[0])) {
		/* 1023.95 KiB and up reads better as 1.0 MiB */
		unit <<= 10;
		i++;
		tenths = bytes / unit * 10 + ((bytes % unit) * 10 + unit - 1) / unit;
	}
	snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " %s (%" PRIu64 " bytes)", tenths / 10,
		 tenths % 10, names[i], bytes);
	return buf;
}

const char *units_grain(const struct pa_grain *g, char *buf, size_t len)
{
	if (g->sectors)
		snprintf(buf, len, "%" PRIu64 " sector%s", g->value,
			 g->value == 1 ? "" : "s");
	else
		units_exact(g->value, buf, len);
	return buf;
}
