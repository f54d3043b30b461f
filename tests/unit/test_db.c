// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SQLite helpers (db.c) on an in-memory database: the bind and column
 * letters, and what a failing list query leaves behind.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>

#include "robot.h"
#include "db.h"
#include "store.h"

static sqlite3 *db;

static void setup(void)
{
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db,
				  "CREATE TABLE t (id INTEGER PRIMARY KEY,"
				  " a TEXT, b INTEGER, c REAL, d REAL)",
				  NULL, NULL, NULL),
		     SQLITE_OK);
}

static void teardown(void)
{
	sqlite3_close(db);
}

TestSuite(db, .init = setup, .fini = teardown);

Test(db, binds_and_reads_every_letter)
{
	static const struct {
		const char *a;
		int64_t b; /* bound with 'n' */
		double d; /* bound with 'D' */
		const char *want_a; /* read back with 'S' */
		bool b_null, d_null;
	} cases[] = {
		{ "x", 7, 1.5, "x", false, false },
		{ NULL, 0, NAN, "", true, true },
		{ "", -3, INFINITY, "", true, true },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		sqlite3_stmt *s;
		int64_t id, b = -1;
		char *a = NULL, *opt = NULL;
		double c, d;
		int nulls;

		cr_assert_eq(
			db_run(db, &id,
			       "INSERT INTO t (a, b, c, d) VALUES (?,?,?,?)",
			       "sndD", cases[i].a, cases[i].b, 2.25,
			       cases[i].d),
			0, "%s", rb_errmsg());
		cr_assert_eq(db_query(db, &s,
				      "SELECT a, a, b, c, d, (b IS NULL) +"
				      " 2 * (d IS NULL) FROM t WHERE id = ?",
				      "I", id),
			     0);
		cr_assert_eq(db_get(db, s, "read t", "SsIdDi", &a, &opt, &b, &c,
				    &d, &nulls),
			     1);
		cr_assert_str_eq(a, cases[i].want_a);
		if (cases[i].a)
			cr_assert_str_eq(opt, cases[i].a);
		else
			cr_assert_null(opt);
		cr_assert_eq(nulls, cases[i].b_null + 2 * cases[i].d_null);
		cr_assert_eq(b, cases[i].b_null ? 0 : cases[i].b);
		cr_assert_float_eq(c, 2.25, 1e-12);
		if (cases[i].d_null)
			cr_assert(isnan(d));
		else
			cr_assert_float_eq(d, cases[i].d, 1e-12);
		free(a);
		free(opt);
	}
}

Test(db, binds_a_run_key_as_seven_texts)
{
	const struct run_key k = { "tc", "pp", NULL, "rf", "kc", "cc", "sha" };
	sqlite3_stmt *s;
	char *v = NULL;

	cr_assert_eq(db_query(db, &s,
			      "SELECT ?1 || ?2 || coalesce(?3, '-') || ?4 ||"
			      " ?5 || ?6 || ?7 || ?8",
			      "ks", &k, "!"),
		     0);
	cr_assert_eq(db_get(db, s, "read", "s", &v), 1);
	cr_assert_str_eq(v, "tcpp-rfkcccsha!");
	free(v);
}

Test(db, get_without_a_row_leaves_the_pointers)
{
	sqlite3_stmt *s;
	int64_t b = 42;

	cr_assert_eq(db_query(db, &s, "SELECT b FROM t", ""), 0);
	cr_assert_eq(db_get(db, s, "read t", "I", &b), 0);
	cr_assert_eq(b, 42);
}

Test(db, rows_in_order)
{
	static const char *const want[] = { "a", NULL, "c" };
	sqlite3_stmt *s;
	char **v;
	size_t i, n;

	for (i = 0; i < RB_ARRAY_SIZE(want); i++)
		cr_assert_eq(db_run(db, NULL, "INSERT INTO t (a) VALUES (?)",
				    "s", want[i]),
			     0);
	cr_assert_eq(db_query(db, &s, "SELECT a FROM t ORDER BY id", ""), 0);
	cr_assert_eq(db_rows(db, s, "read t", &db_text_rows, (void **)&v, &n),
		     0);
	cr_assert_eq(n, RB_ARRAY_SIZE(want));
	for (i = 0; i < n; i++)
		if (want[i])
			cr_assert_str_eq(v[i], want[i]);
		else
			cr_assert_null(v[i]);
	db_text_rows.free(v, n);
}

/* The second row overflows: the first one's text must not leak. */
Test(db, a_failing_list_frees_what_it_read)
{
	sqlite3_stmt *s;
	char *old[1];
	char **v = old;
	size_t n = 9;

	cr_assert_eq(db_run(db, NULL, "INSERT INTO t (a, b) VALUES (?,?)", "si",
			    "one", 1),
		     0);
	cr_assert_eq(db_run(db, NULL, "INSERT INTO t (a, b) VALUES (?,?)", "si",
			    "two", 2),
		     0);
	cr_assert_eq(db_query(db, &s,
			      "SELECT CASE WHEN b > 1"
			      " THEN abs(-9223372036854775807 - 1)"
			      " ELSE a END FROM t ORDER BY id",
			      ""),
		     0);
	cr_assert_eq(db_rows(db, s, "read t", &db_text_rows, (void **)&v, &n),
		     -1);
	cr_assert_null(v);
	cr_assert_eq(n, 0);
	cr_assert_str_eq(rb_errmsg(), "store '?': read t: integer overflow");
}

Test(db, a_failing_write_says_so)
{
	int64_t id = 5;

	cr_assert_eq(db_run(db, &id, "INSERT INTO nowhere VALUES (?)", "i", 1),
		     -1);
	cr_assert_eq(id, 5);
	cr_assert_str_eq(rb_errmsg(),
			 "store '?': prepare: no such table: nowhere");
	cr_assert_eq(db_run(db, &id, "INSERT INTO t (id) VALUES (?)", "I",
			    (int64_t)3),
		     0);
	cr_assert_eq(id, 3);
	cr_assert_eq(db_run(db, &id, "INSERT INTO t (id) VALUES (?)", "I",
			    (int64_t)3),
		     -1);
	cr_assert_eq(id, 3);
	cr_assert(strstr(rb_errmsg(), "store '?': write: UNIQUE constraint"),
		  "%s", rb_errmsg());
}

/* A format must cover the whole statement: a letter short is a bug. */
Test(db, a_format_short_of_the_columns_is_a_bug, .signal = SIGABRT)
{
	sqlite3_stmt *s;
	int64_t a, b;

	cr_assert_eq(db_query(db, &s, "SELECT 1, 2", ""), 0);
	db_get(db, s, "read", "I", &a, &b);
}

Test(db, a_format_short_of_the_parameters_is_a_bug, .signal = SIGABRT)
{
	sqlite3_stmt *s;

	db_query(db, &s, "SELECT ?, ?", "i", 1, 2);
}
