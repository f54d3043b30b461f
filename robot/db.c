// SPDX-License-Identifier: GPL-2.0-only
/* SQLite helpers (db.h). */
#include "robot.h"
#include "db.h"

int db_error(sqlite3 *db, const char *what)
{
	const char *f = sqlite3_db_filename(db, "main");

	return rb_error("store '%s': %s: %s", f && *f ? f : "?", what,
			sqlite3_errmsg(db));
}

int db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s)
{
	if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
		*s = NULL;
		return db_error(db, "prepare");
	}
	return 0;
}

int db_done(sqlite3 *db, sqlite3_stmt *s, int64_t *id)
{
	int r = sqlite3_step(s);

	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(db, "write");
	if (id)
		*id = sqlite3_last_insert_rowid(db);
	return 0;
}

void db_bind_opt(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

void db_bind_id(sqlite3_stmt *s, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
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

int db_rows(sqlite3 *db, sqlite3_stmt *s, size_t size,
	    void (*read)(sqlite3_stmt *s, void *elem, void *arg), void *arg,
	    void **out, size_t *n, const char *what)
{
	char *v = NULL;
	size_t nr = 0, alloc = 0;
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (nr == alloc) {
			alloc = alloc ? alloc * 2 : 8;
			v = xrealloc(v, alloc * size);
		}
		memset(v + nr * size, 0, size);
		read(s, v + nr * size, arg);
		nr++;
	}
	sqlite3_finalize(s);
	*out = v;
	*n = nr;
	return rc == SQLITE_DONE ? 0 : db_error(db, what);
}
