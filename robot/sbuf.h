/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SBUF_H
#define ROBOT_SBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>

/*
 * A growable string with an optional maximum size (curl's dynbuf).
 *
 * Invariants: buf is never NULL after sbuf_init (it points at a static ""
 * until the first append), buf[len] == '\0', len < alloc when alloc > 0.
 * With max > 0, appends that would make len exceed max fail with -1 and
 * leave the buffer unchanged except that `truncated` is set; captures of
 * child output use this to keep memory bounded.
 *
 * Ownership: the sbuf owns buf. sbuf_detach() hands it to the caller (a
 * malloc'd string, never NULL) and re-initialises the sbuf.
 */
struct sbuf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t max;
	bool truncated;
};

extern char sbuf_empty[];
#define SBUF_INIT                 \
	{                         \
		.buf = sbuf_empty \
	}
#define SBUF_INIT_MAX(m)                      \
	{                                     \
		.buf = sbuf_empty, .max = (m) \
	}

void sbuf_init(struct sbuf *sb, size_t max);
void sbuf_release(struct sbuf *sb);
/* Empty the string, keep the memory. */
void sbuf_reset(struct sbuf *sb);
char *sbuf_detach(struct sbuf *sb);

int sbuf_add(struct sbuf *sb, const void *data, size_t len);
int sbuf_addstr(struct sbuf *sb, const char *s);
int sbuf_addch(struct sbuf *sb, char c);
int sbuf_addf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Append s quoted for a POSIX shell ('...' with '\'' for quotes). */
int sbuf_add_shell_quoted(struct sbuf *sb, const char *s);
/* Append s as one shell word: as it is when it is made only of characters
 * no shell treats specially, else quoted. */
int sbuf_add_shell_word(struct sbuf *sb, const char *s);
/*
 * Append s as one line a terminal shows as it is: LF and TAB as \n and
 * \t, other control characters (ESC, CR, DEL) as \xNN.
 */
int sbuf_add_escaped(struct sbuf *sb, const char *s);
/* Remove trailing whitespace. */
void sbuf_rtrim(struct sbuf *sb);
/* Shorten to len (len <= sb->len). */
void sbuf_setlen(struct sbuf *sb, size_t len);

#endif
