/*
 * The value of a lowercase hex digit, as our files and udev's escapes write
 * them, and the in-place decoding of 4-byte escapes (udev's \xNN, the
 * kernel's \ooo).  Header-only and libc-only, so the pure core may include
 * it.
 */
#ifndef PARTALIGN_SHARED_HEX_H
#define PARTALIGN_SHARED_HEX_H

/* 0-15, or -1 for anything but 0-9 and a-f */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * Decode @s in place: each 4-byte escape that @esc reads as a byte (it
 * returns the byte, or -1 to keep the 4 bytes as they are) becomes that
 * byte; everything else is copied.
 */
static inline void unescape4(char *s, int (*esc)(const char *s))
{
	char *o = s;

	while (*s) {
		int c = esc(s);

		if (c >= 0) {
			*o++ = (char)c;
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

#endif
