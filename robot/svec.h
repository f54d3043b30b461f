/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SVEC_H
#define ROBOT_SVEC_H

#include <stddef.h>

/*
 * A NULL-terminated vector of owned strings: argv arrays for child
 * processes, environment lists, string lists from YAML.
 *
 * Invariant: v is never NULL after svec_init/SVEC_INIT (it points at a
 * static empty array until the first push) and v[nr] == NULL.
 */
struct svec {
	char **v;
	size_t nr;
	size_t alloc;
};

extern char *svec_empty[];
#define SVEC_INIT               \
	{                       \
		.v = svec_empty \
	}

void svec_init(struct svec *sv);
void svec_clear(struct svec *sv);
/* Push a copy of s; returns the copy. */
char *svec_push(struct svec *sv, const char *s);
char *svec_pushf(struct svec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Push s itself: the svec takes ownership. */
void svec_push_nodup(struct svec *sv, char *s);
void svec_pushv(struct svec *sv, const char *const *v);
/* Copy all of src onto the end of dst. */
void svec_append(struct svec *dst, const struct svec *src);
/* Index of s, or -1. */
long svec_find(const struct svec *sv, const char *s);
/* Set NAME=VALUE in an environment vector (replace or push). */
void svec_setenv(struct svec *env, const char *name, const char *value);

#define svec_for_each(sv, i) for ((i) = 0; (i) < (sv)->nr; (i)++)

#endif
