/*
 * Shared bits of the cmocka unit tests of the pure core: the cmocka includes
 * in the order it needs them, and a substring assertion that says what it
 * looked for.
 */
#ifndef PARTALIGN_TEST_UNIT_H
#define PARTALIGN_TEST_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/reason.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define TiB (1ull << 40)

/* Fails unless @needle occurs in @hay, printing both. */
#define assert_contains(hay, needle)                                                     \
	do {                                                                             \
		const char *h_ = (hay);                                                  \
		const char *n_ = (needle);                                               \
		if (!h_ || !strstr(h_, n_)) {                                            \
			print_error("\"%s\" does not contain \"%s\"\n",                  \
				    h_ ? h_ : "(null)", n_);                             \
			fail();                                                          \
		}                                                                        \
	} while (0)

#define assert_not_contains(hay, needle)                                                 \
	do {                                                                             \
		const char *h_ = (hay);                                                  \
		const char *n_ = (needle);                                               \
		if (h_ && strstr(h_, n_)) {                                              \
			print_error("\"%s\" unexpectedly contains \"%s\"\n", h_, n_);    \
			fail();                                                          \
		}                                                                        \
	} while (0)

/* The words of @l as every output shows them (a buffer per call site's turn). */
static inline const char *why_text(const struct pa_reasons *l)
{
	static char buf[4][PA_REASON_TEXT_MAX];
	static unsigned int k;
	char *b = buf[k++ % 4];

	reason_render(l, b, PA_REASON_TEXT_MAX, NULL, NULL);
	return b;
}

#endif
