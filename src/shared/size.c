/*
 * Size formatters: the two spellings partalign prints.
 */
#include "config.h"

#include <stdio.h>

#include "shared/size.h"

const char *size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char suffix[] = "BKMGTPE";
	uint64_t v = bytes, frac = 0;
	int i = 0;

	while (v >= 1024 && i < 6) {
		frac = v % 1024;
		v /= 1024;
		i++;
	}
	frac = frac * 10 / 1024;
	if (i == 0)
		snprintf(buf, len, "%lluB", (unsigned long long)v);
	else if (frac)
		snprintf(buf, len, "%llu.%llu%c", (unsigned long long)v,
			 (unsigned long long)frac, suffix[i]);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suffix[i]);
	return buf;
}

const char *size_human_iec(uint64_t bytes, char *buf, size_t len)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	size_t i = 0;

	while (v >= 1024 && i + 1 < sizeof(u) / sizeof(u[0])) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", v, u[i]);
	return buf;
}
