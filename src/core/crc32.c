/*
 * CRC-32 (IEEE, reflected 0xedb88320): slicing-by-8 tables, and carry-less
 * multiplication folding where the CPU has it (the move journal checksums
 * every byte it moves).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>

#include "core/crc32.h"

static uint32_t crc_tab[8][256];
static bool have_clmul; /* set once, before main(), like the tables */

/* Slicing-by-8 tables for the reflected polynomial 0xedb88320. */
__attribute__((constructor)) static void crc_tables(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_tab[k][i] = (crc_tab[k - 1][i] >> 8) ^
					crc_tab[0][crc_tab[k - 1][i] & 0xff];
#if defined(__x86_64__)
	__builtin_cpu_init();
	have_clmul = __builtin_cpu_supports("pclmul");
#endif
}

#if defined(__x86_64__)
#include <immintrin.h>

/*
 * CRC folding with carry-less multiplication (Gopal et al., "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ", Intel 2009): four
 * 128-bit lanes are folded 512 bits at a time, then into one lane, then
 * reduced to 32 bits (Barrett).  The constants are x^k mod P for the
 * reflected polynomial: fold by 4 lanes, fold by 1, 64 -> 32 bits, and
 * P' / mu for the reduction.  @crc is the raw register (not inverted);
 * @len is a multiple of 16, at least 64.
 */
__attribute__((target("pclmul,sse2"))) static uint32_t
crc_fold(uint32_t crc, const unsigned char *p, size_t len)
{
	const __m128i k12 = _mm_set_epi64x(0x1c6e41596ll, 0x154442bd4ll);
	const __m128i k34 = _mm_set_epi64x(0x0ccaa009ell, 0x1751997d0ll);
	const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124ll);
	const __m128i pu = _mm_set_epi64x(0x1f7011641ll, 0x1db710641ll);
	const __m128i mask = _mm_set_epi32(0, 0, 0, -1);
	__m128i x0, x1, x2, x3, t;

	x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p),
			   _mm_cvtsi32_si128((int)crc));
	x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	p += 64;
	len -= 64;
#define FOLD(x, k, next)                                                                 \
	do {                                                                             \
		t = _mm_clmulepi64_si128(x, k, 0x11);                                    \
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), t),    \
				  next);                                                 \
	} while (0)
	while (len >= 64) {
		FOLD(x0, k12, _mm_loadu_si128((const __m128i *)p));
		FOLD(x1, k12, _mm_loadu_si128((const __m128i *)(p + 16)));
		FOLD(x2, k12, _mm_loadu_si128((const __m128i *)(p + 32)));
		FOLD(x3, k12, _mm_loadu_si128((const __m128i *)(p + 48)));
		p += 64;
		len -= 64;
	}
	FOLD(x0, k34, x1);
	FOLD(x0, k34, x2);
	FOLD(x0, k34, x3);
	while (len >= 16) {
		FOLD(x0, k34, _mm_loadu_si128((const __m128i *)p));
		p += 16;
		len -= 16;
	}
#undef FOLD
	/* 128 -> 64 bits, then 64 -> 32 */
	t = _mm_clmulepi64_si128(k34, x0, 0x01);
	x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, mask), k5, 0x00);
	x0 = _mm_xor_si128(_mm_srli_si128(x0, 4), t);
	/* Barrett reduction */
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, mask), pu, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, mask), pu, 0x00);
	x0 = _mm_xor_si128(x0, t);
	return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x0, 4));
}

#endif

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
#if defined(__x86_64__)
	if (len >= 64 && have_clmul) {
		size_t n = len & ~(size_t)15;

		crc = crc_fold(crc, p, n);
		p += n;
		len -= n;
	}
#endif
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

		crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
		      crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
		      crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^ crc_tab[1][p[6]] ^
		      crc_tab[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
