/*
 * The value of a lowercase hex digit, as our files and udev's escapes write
 * them.  Header-only and libc-only, so the pure core may include it.
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

#endif
