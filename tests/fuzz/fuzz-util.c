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
 * An encoded word is "=?charset?encoding?text?=": four '?' from its
 * start, the last one followed by '='.
 */
int fuzz_header_fields(const char *s, size_t len, const char **why)
{
	size_t i, line = 0, word = 0;
	int fields = 0, marks = 0;

	if (len && s[len - 1] != '\n') {
		*why = "no line end at the end";
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (line == 0 && c != ' ' && c != '\t')
			fields++;
		if (c == '\n') {
			if (marks) {
				*why = "an encoded word cut by a line end";
				return -1;
			}
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
		if (!marks && c == '=' && i + 1 < len && s[i + 1] == '?' &&
		    (line == 1 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
			word = 0;
			marks = -1; /* the '?' that follows makes it 1 */
		}
		if (marks) {
			word++;
			if (c == '?')
				marks = marks < 0 ? 1 : marks + 1;
			else if (c == '=' && marks == 4)
				marks = 0;
			else if (c == ' ' || c == '\t') {
				*why = "an encoded word with a space in it";
				return -1;
			}
			if (word > 75) {
				*why = "an encoded word over 75 characters";
				return -1;
			}
		}
	}
	return fields;
}
