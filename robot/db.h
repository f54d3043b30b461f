/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_DB_H
#define ROBOT_DB_H

#include <sqlite3.h>
#include <stdint.h>

/*
 * The SQLite helpers of the store (store.c) and the nightly's tables
 * (nightly-store.c): one way to prepare, bind, read and finish a statement,
 * and one error line, "store 'FILE': what: SQLite's message".
 */
int db_error(sqlite3 *db, const char *what);
/* Prepare sql; 0, or -1 with *s NULL and the error. */
int db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s);
/* Step a statement that returns no rows and finalize it; *id (may be
 * NULL) the new row's id. */
int db_done(sqlite3 *db, sqlite3_stmt *s, int64_t *id);
/* Bind text (copied), NULL as SQL NULL; an id, 0 as SQL NULL. */
void db_bind_opt(sqlite3_stmt *s, int i, const char *v);
void db_bind_id(sqlite3_stmt *s, int i, int64_t v);
/*
 * Step a query to its end, one element of size bytes a row, filled by
 * read(s, elem, arg) into a growing array (*out, *n: the caller frees it
 * with its own function, also after an error); finalizes s. 0, or -1 with
 * "what" in the error.
 */
int db_rows(sqlite3 *db, sqlite3_stmt *s, size_t size,
	    void (*read)(sqlite3_stmt *s, void *elem, void *arg), void *arg,
	    void **out, size_t *n, const char *what);
/* A column as a malloc'd string: "" or NULL for SQL NULL. */
char *db_col_text(sqlite3_stmt *s, int i);
char *db_col_opt(sqlite3_stmt *s, int i);

#endif
