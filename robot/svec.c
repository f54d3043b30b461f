// SPDX-License-Identifier: GPL-2.0-only
#include "robot.h"
#include "svec.h"

char *svec_empty[1];

void svec_init(struct svec *sv)
{
	sv->v = svec_empty;
	sv->nr = 0;
	sv->alloc = 0;
}

void svec_clear(struct svec *sv)
{
	size_t i;

	if (sv->alloc) {
		for (i = 0; i < sv->nr; i++)
			free(sv->v[i]);
		free(sv->v);
	}
	svec_init(sv);
}

void svec_push_nodup(struct svec *sv, char *s)
{
	if (sv->nr + 2 > sv->alloc) {
		size_t n = sv->alloc ? sv->alloc * 2 : 8;

		sv->v = sv->alloc ? xrealloc(sv->v, n * sizeof(*sv->v)) :
				    xmalloc(n * sizeof(*sv->v));
		sv->alloc = n;
	}
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

char *svec_push(struct svec *sv, const char *s)
{
	char *c = xstrdup(s);

	svec_push_nodup(sv, c);
	return c;
}

char *svec_pushf(struct svec *sv, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xstrvfmt(fmt, ap);
	va_end(ap);
	svec_push_nodup(sv, p);
	return p;
}

void svec_pushv(struct svec *sv, const char *const *v)
{
	for (; *v; v++)
		svec_push(sv, *v);
}

void svec_append(struct svec *dst, const struct svec *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++)
		svec_push(dst, src->v[i]);
}

long svec_find(const struct svec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}

void svec_setenv(struct svec *env, const char *name, const char *value)
{
	size_t n = strlen(name), i;
	char *entry = xstrfmt("%s=%s", name, value);

	for (i = 0; i < env->nr; i++) {
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = entry;
			return;
		}
	}
	svec_push_nodup(env, entry);
}
