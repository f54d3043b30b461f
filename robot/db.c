// SPDX-License-Identifier: GPL-2.0-only
/* SQLite helpers (db.h). */
#include <math.h>

#include "robot.h"
#include "db.h"
#include "store.h"

int db_error(sqlite3 *db, const char *what)
{
	const char *f = sqlite3_db_filename(db, "main");

	return rb_error("store '%s': %s: %s", f && *f ? f : "?", what,
			sqlite3_errmsg(db));
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static void bind_key(sqlite3_stmt *s, int i, const struct run_key *k)
{
	bind_text(s, i, k->testcase);
	bind_text(s, i + 1, k->path_params);
	bind_text(s, i + 2, k->host);
	bind_text(s, i + 3, k->rootfs);
	bind_text(s, i + 4, k->kconfig);
	bind_text(s, i + 5, k->compiler);
	bind_text(s, i + 6, k->commit);
}

static void vbind(sqlite3_stmt *s, const char *fmt, va_list ap)
{
	int i = 1;
	int64_t id;
	double d;

	for (; *fmt; fmt++, i++) {
		switch (*fmt) {
		case 's':
			bind_text(s, i, va_arg(ap, const char *));
			break;
		case 'i':
			sqlite3_bind_int(s, i, va_arg(ap, int));
			break;
		case 'I':
			sqlite3_bind_int64(s, i, va_arg(ap, int64_t));
			break;
		case 'n':
			id = va_arg(ap, int64_t);
			if (id > 0)
				sqlite3_bind_int64(s, i, id);
			else
				sqlite3_bind_null(s, i);
			break;
		case 'd':
			sqlite3_bind_double(s, i, va_arg(ap, double));
			break;
		case 'D':
			d = va_arg(ap, double);
			if (isfinite(d))
				sqlite3_bind_double(s, i, d);
			else
				sqlite3_bind_null(s, i);
			break;
		case 'k':
			bind_key(s, i, va_arg(ap, const struct run_key *));
			i += 6;
			break;
		default:
			RB_BUG("bad bind letter '%c'", *fmt);
		}
	}
	if (i > 1 && i - 1 != sqlite3_bind_parameter_count(s))
		RB_BUG("%d parameters bound of %d in '%s'", i - 1,
		       sqlite3_bind_parameter_count(s), sqlite3_sql(s));
}

void db_bind(sqlite3_stmt *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vbind(s, fmt, ap);
	va_end(ap);
}

static int vquery(sqlite3 *db, sqlite3_stmt **s, const char *sql,
		  const char *fmt, va_list ap)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return db_error(db, "prepare");
	}
	vbind(*s, fmt, ap);
	return 0;
}

int db_query(sqlite3 *db, sqlite3_stmt **s, const char *sql, const char *fmt,
	     ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vquery(db, s, sql, fmt, ap);
	va_end(ap);
	return r;
}

int db_run(sqlite3 *db, int64_t *id, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *s;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vquery(db, &s, sql, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	r = sqlite3_step(s);
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(db, "write");
	if (id)
		*id = sqlite3_last_insert_rowid(db);
	return 0;
}

char *db_col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return xstrdup(t ? (const char *)t : "");
}

char *db_col_opt(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static void vcols(sqlite3_stmt *s, const char *fmt, va_list ap)
{
	int i;

	if (*fmt && strlen(fmt) != (size_t)sqlite3_column_count(s))
		RB_BUG("%zu columns read of %d in '%s'", strlen(fmt),
		       sqlite3_column_count(s), sqlite3_sql(s));
	for (i = 0; fmt[i]; i++) {
		switch (fmt[i]) {
		case 's':
			*va_arg(ap, char **) = db_col_opt(s, i);
			break;
		case 'S':
			*va_arg(ap, char **) = db_col_text(s, i);
			break;
		case 'i':
			*va_arg(ap, int *) = sqlite3_column_int(s, i);
			break;
		case 'I':
			*va_arg(ap, int64_t *) = sqlite3_column_int64(s, i);
			break;
		case 'd':
			*va_arg(ap, double *) = sqlite3_column_double(s, i);
			break;
		case 'D':
			*va_arg(ap, double *) =
				sqlite3_column_type(s, i) == SQLITE_NULL ?
					NAN :
					sqlite3_column_double(s, i);
			break;
		default:
			RB_BUG("bad column letter '%c'", fmt[i]);
		}
	}
}

void db_cols(sqlite3_stmt *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcols(s, fmt, ap);
	va_end(ap);
}

/* Step s once: 1 a row, 0 none, -1 error (s not finalized). */
static int step_one(sqlite3 *db, sqlite3_stmt *s, const char *what)
{
	int r = sqlite3_step(s);

	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return db_error(db, what);
}

int db_get(sqlite3 *db, sqlite3_stmt *s, const char *what, const char *fmt, ...)
{
	int r = step_one(db, s, what);
	va_list ap;

	if (r > 0) {
		va_start(ap, fmt);
		vcols(s, fmt, ap);
		va_end(ap);
	}
	sqlite3_finalize(s);
	return r;
}

int db_one(sqlite3 *db, sqlite3_stmt *s, const char *what,
	   const struct db_rowtype *t, void *elem)
{
	int r = step_one(db, s, what);

	if (r > 0)
		t->read(s, elem);
	sqlite3_finalize(s);
	return r;
}

int db_each(sqlite3 *db, sqlite3_stmt *s, const char *what,
	    void (*row)(sqlite3_stmt *s, void *arg), void *arg)
{
	int r;

	while ((r = sqlite3_step(s)) == SQLITE_ROW)
		row(s, arg);
	r = r == SQLITE_DONE ? 0 : db_error(db, what);
	sqlite3_finalize(s);
	return r;
}

struct rows {
	const struct db_rowtype *t;
	char *v;
	size_t nr, alloc;
};

static void add_row(sqlite3_stmt *s, void *arg)
{
	struct rows *r = arg;
	char *elem;

	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? r->alloc * 2 : 8;
		r->v = xrealloc(r->v, r->alloc * r->t->size);
	}
	elem = r->v + r->nr++ * r->t->size;
	memset(elem, 0, r->t->size);
	r->t->read(s, elem);
}

int db_rows(sqlite3 *db, sqlite3_stmt *s, const char *what,
	    const struct db_rowtype *t, void **out, size_t *n)
{
	struct rows r = { .t = t };

	*out = NULL;
	*n = 0;
	if (db_each(db, s, what, add_row, &r) < 0) {
		if (t->free)
			t->free(r.v, r.nr);
		else
			free(r.v);
		return -1;
	}
	*out = r.v;
	*n = r.nr;
	return 0;
}

static void read_double(sqlite3_stmt *s, void *elem)
{
	double *d = elem;

	*d = sqlite3_column_double(s, 0);
}

const struct db_rowtype db_double_rows = {
	.size = sizeof(double),
	.read = read_double,
};

static void read_text(sqlite3_stmt *s, void *elem)
{
	char **t = elem;

	*t = db_col_opt(s, 0);
}

static void free_texts(void *v, size_t n)
{
	char **t = v;

	while (n--)
		free(t[n]);
	free(t);
}

const struct db_rowtype db_text_rows = {
	.size = sizeof(char *),
	.read = read_text,
	.free = free_texts,
};
