// SPDX-License-Identifier: GPL-2.0-only
/* Object ids as raw bytes and hex (oid.h). */
#include "robot.h"
#include "oid.h"

char *rb_oid_hex(const uint8_t *oid, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < RB_OID_RAWSZ; i++) {
		buf[2 * i] = hex[oid[i] >> 4];
		buf[2 * i + 1] = hex[oid[i] & 15];
	}
	buf[RB_OID_HEXSZ] = '\0';
	return buf;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rb_oid_from_hex(uint8_t *oid, const char *hex)
{
	int i;

	for (i = 0; i < RB_OID_RAWSZ; i++) {
		int hi = hexval(hex[2 * i]), lo;

		if (hi < 0)
			return -1;
		lo = hexval(hex[2 * i + 1]);
		if (lo < 0)
			return -1;
		oid[i] = (uint8_t)(hi << 4 | lo);
	}
	return hex[RB_OID_HEXSZ] ? -1 : 0;
}
