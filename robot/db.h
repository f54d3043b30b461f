/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_DB_H
#define ROBOT_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The SQLite helpers of the store (store.c) and the nightly's tables
 * (nightly-store.c): one way to prepare, bind, read and finish a statement,
 * and one error line, "store 'FILE': what: SQLite's message", where FILE is
 * the database as SQLite names it.
 *
 * Binding. A bind format has one letter a parameter, for ?1, ?2, ... in
 * order, and each letter takes one argument after the format:
 *
 *   's'  const char *    text (copied); NULL binds SQL NULL
 *   'i'  int
 *   'I'  int64_t
 *   'n'  int64_t         an id; 0 or less ("none") binds SQL NULL
 *   'd'  double
 *   'D'  double          NaN or infinite binds SQL NULL
 *   'k'  const struct run_key *
 *                        seven 's' parameters: testcase, path_params,
 *                        host, rootfs, kconfig, compiler, commit
 *
 * Reading. A column format has one letter a column, from column 0, and
 * each letter takes a pointer to where the value goes:
 *
 *   's'  char **         malloc'd text, NULL for SQL NULL
 *   'S'  char **         malloc'd text, "" for SQL NULL
 *   'i'  int *
 *   'I'  int64_t *       0 for SQL NULL
 *   'd'  double *        0 for SQL NULL
 *   'D'  double *        NaN for SQL NULL
 *
 * A bind format binds every parameter of its statement, or, empty, none
 * (db_bind() binds them later); a column format reads every column of the
 * row, or, empty, none. The compiler does not check the arguments: an 'I'
 * or 'n' wants an int64_t (cast a size_t), a column letter a pointer of
 * exactly its type. An unknown letter, or a format that binds or reads
 * some of the statement only, is a bug (RB_BUG).
 *
 * Every function below that takes a prepared statement steps it and
 * finalizes it, also after an error; "what" names the read in the error.
 * Functions that return int return -1 with rb_error() set on failure.
 */

/* rb_error() "store 'FILE': what: SQLite's message"; returns -1. */
int db_error(sqlite3 *db, const char *what);

/* Prepare sql and bind its parameters; 0, or -1 with *s NULL. */
int db_query(sqlite3 *db, sqlite3_stmt **s, const char *sql, const char *fmt,
	     ...);
/*
 * Prepare, bind and step a statement that returns no rows (INSERT,
 * UPDATE, DELETE), then finalize it. *id (id may be NULL) is the id of
 * the last row inserted. A failed step is a "write" error.
 */
int db_run(sqlite3 *db, int64_t *id, const char *sql, const char *fmt, ...);
/* Bind the parameters of s again, say after sqlite3_reset(). */
void db_bind(sqlite3_stmt *s, const char *fmt, ...);

/* Read the current row of s (which stays unfinalized). */
void db_cols(sqlite3_stmt *s, const char *fmt, ...);
/* One column as a malloc'd string: "" or NULL for SQL NULL. */
char *db_col_text(sqlite3_stmt *s, int i);
char *db_col_opt(sqlite3_stmt *s, int i);

/*
 * Step s once and read the row, if there is one, by a column format.
 * 1 a row, 0 none (the pointers untouched), -1 error.
 */
int db_get(sqlite3 *db, sqlite3_stmt *s, const char *what, const char *fmt,
	   ...);
/* Step s to its end, calling row(s, arg) for each row; 0 or -1. */
int db_each(sqlite3 *db, sqlite3_stmt *s, const char *what,
	    void (*row)(sqlite3_stmt *s, void *arg), void *arg);

/*
 * What a row of a query makes: an element of size bytes, zeroed then
 * filled by read(); free() frees an array of n of them (NULL: the
 * elements own nothing, free(3) the array).
 */
struct db_rowtype {
	size_t size;
	void (*read)(sqlite3_stmt *s, void *elem);
	void (*free)(void *v, size_t n);
};
/* Column 0 as a double; as a malloc'd string (NULL for SQL NULL). */
extern const struct db_rowtype db_double_rows;
extern const struct db_rowtype db_text_rows;

/*
 * Every row of s as a malloc'd array of t elements (*out, *n; NULL and 0
 * when there is none). On error the rows read so far are freed, *out is
 * NULL and *n 0.
 */
int db_rows(sqlite3 *db, sqlite3_stmt *s, const char *what,
	    const struct db_rowtype *t, void **out, size_t *n);
/* The first row of s read into elem by t; 1 a row, 0 none, -1 error. */
int db_one(sqlite3 *db, sqlite3_stmt *s, const char *what,
	   const struct db_rowtype *t, void *elem);

#endif
