// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the fuzz targets share: failing loudly, strings from bytes, the
 * check of a mail's header block.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: fuzz check failed: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The length of the encoded word "=?charset?encoding?text?=" at s (n
 * octets left, up to the end of the token), or 0 when the token is not
 * one (an address such as "=?@example.org" is not).
 */
static size_t encoded_word_at(const char *s, size_t n)
{
	size_t i, marks = 1;

	if (n < 2 || s[0] != '=' || s[1] != '?')
		return 0;
	for (i = 2; i < n; i++) {
		if (s[i] != '?')
			continue;
		if (++marks == 4)
			return i + 1 < n && s[i + 1] == '=' ? i + 2 : 0;
	}
	return 0;
}

int fuzz_header_fields(const char *s, size_t len, const char **why)
{
	size_t i, line = 0;
	int fields = 0;

	if (len && s[len - 1] != '\n') {
		*why = "no line end at the end";
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (line == 0 && c != ' ' && c != '\t')
			fields++;
		if (c == '\n') {
			if (line == 0) {
				*why = "an empty line";
				return -1;
			}
			line = 0;
			continue;
		}
		if (c == '\r') {
			*why = "a bare CR";
			return -1;
		}
		if ((c < 0x20 && c != '\t') || c >= 0x7f) {
			*why = "a byte that is not printable ASCII";
			return -1;
		}
		if (++line > 998) {
			*why = "a line over 998 octets";
			return -1;
		}
		/* an encoded word is a token of its own */
		if (c == '=' &&
		    (line == 1 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
			size_t end = strcspn(s + i, " \t\n");

			if (encoded_word_at(s + i, end) > 75) {
				*why = "an encoded word over 75 characters";
				return -1;
			}
		}
	}
	return fields;
}
