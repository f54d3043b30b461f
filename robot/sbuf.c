// SPDX-License-Identifier: GPL-2.0-only
#include "robot.h"
#include "sbuf.h"

char sbuf_empty[1];

void sbuf_init(struct sbuf *sb, size_t max)
{
	sb->buf = sbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->max = max;
	sb->truncated = false;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sbuf_init(sb, sb->max);
}

void sbuf_reset(struct sbuf *sb)
{
	sbuf_setlen(sb, 0);
	sb->truncated = false;
}

char *sbuf_detach(struct sbuf *sb)
{
	char *p = sb->alloc ? sb->buf : xstrdup("");

	sbuf_init(sb, sb->max);
	return p;
}

void sbuf_setlen(struct sbuf *sb, size_t len)
{
	if (len > sb->len)
		RB_BUG("sbuf_setlen beyond length");
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}

static int grow(struct sbuf *sb, size_t extra)
{
	size_t want;

	if (sb->max && sb->len + extra > sb->max) {
		sb->truncated = true;
		return -1;
	}
	want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return 0;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	if (!sb->alloc) {
		sb->buf = xmalloc(want);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, want);
	}
	sb->alloc = want;
	return 0;
}

int sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	if (!len)
		return 0;
	if (grow(sb, len) < 0)
		return -1;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sbuf_addstr(struct sbuf *sb, const char *s)
{
	return sbuf_add(sb, s, strlen(s));
}

int sbuf_addch(struct sbuf *sb, char c)
{
	return sbuf_add(sb, &c, 1);
}

int sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	char small[256];
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(small, sizeof(small), fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof(small))
		return sbuf_add(sb, small, (size_t)n);
	if (grow(sb, (size_t)n) < 0)
		return -1;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

int sbuf_add_escaped(struct sbuf *sb, const char *s)
{
	int r = 0;

	for (; *s && !r; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			r = sbuf_addstr(sb, "\\n");
		else if (c == '\t')
			r = sbuf_addstr(sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			r = sbuf_addf(sb, "\\x%02x", c);
		else
			r = sbuf_addch(sb, (char)c);
	}
	return r;
}

int sbuf_add_shell_quoted(struct sbuf *sb, const char *s)
{
	if (sbuf_addch(sb, '\'') < 0)
		return -1;
	for (; *s; s++) {
		if (*s == '\'') {
			if (sbuf_addstr(sb, "'\\''") < 0)
				return -1;
		} else if (sbuf_addch(sb, *s) < 0) {
			return -1;
		}
	}
	return sbuf_addch(sb, '\'');
}

int sbuf_add_shell_word(struct sbuf *sb, const char *s)
{
	const char *p;

	if (!*s)
		return sbuf_addstr(sb, "''");
	for (p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./%=:,+-@",
			    *p))
			return sbuf_add_shell_quoted(sb, s);
	return sbuf_addstr(sb, s);
}

void sbuf_rtrim(struct sbuf *sb)
{
	while (sb->len &&
	       (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
		sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}
