// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nightly loop's tables (SQLite; the schema is migration 3 of
 * store.c). See nightly-store.h.
 */
#include <math.h>
#include <sqlite3.h>

#include "robot.h"
#include "db.h"
#include "history.h"
#include "nightly-store.h"
#include "stats.h"
#include "store.h"
#include "svec.h"

/* ---- cycles ---------------------------------------------------------- */

void nightly_cycle_rec_release(struct nightly_cycle_rec *c)
{
	free(c->tree);
	free(c->branch);
	free(c->url);
	free(c->head);
	free(c->previous);
	free(c->status);
	free(c->summary);
	memset(c, 0, sizeof(*c));
}

#define CYCLE_COLS                                                         \
	"id, tree, branch, url, head, previous, status, summary, started," \
	" finished"

static void read_cycle(sqlite3_stmt *s, struct nightly_cycle_rec *c)
{
	c->id = sqlite3_column_int64(s, 0);
	c->tree = db_col_opt(s, 1);
	c->branch = db_col_opt(s, 2);
	c->url = db_col_opt(s, 3);
	c->head = db_col_opt(s, 4);
	c->previous = db_col_opt(s, 5);
	c->status = db_col_opt(s, 6);
	c->summary = db_col_opt(s, 7);
	c->started = sqlite3_column_double(s, 8);
	c->finished = sqlite3_column_double(s, 9);
}

static int one_cycle(struct store *st, const char *sql, const char *tree,
		     const char *branch, struct nightly_cycle_rec *out)
{
	sqlite3_stmt *s;
	int r;

	memset(out, 0, sizeof(*out));
	if (db_prepare(store_db(st), sql, &s) < 0)
		return -1;
	db_bind_opt(s, 1, tree);
	db_bind_opt(s, 2, branch);
	r = sqlite3_step(s);
	if (r == SQLITE_ROW) {
		read_cycle(s, out);
		r = 1;
	} else if (r == SQLITE_DONE) {
		r = 0;
	} else {
		r = db_error(store_db(st), "read a cycle");
	}
	sqlite3_finalize(s);
	return r;
}

int nstore_cycle_running(struct store *st, const char *tree, const char *branch,
			 struct nightly_cycle_rec *out)
{
	return one_cycle(st,
			 "SELECT " CYCLE_COLS " FROM nightly_cycles WHERE"
			 " tree = ? AND branch = ? AND status = 'running'"
			 " ORDER BY id LIMIT 1",
			 tree, branch, out);
}

int nstore_cycle_last_done(struct store *st, const char *tree,
			   const char *branch, struct nightly_cycle_rec *out)
{
	return one_cycle(st,
			 "SELECT " CYCLE_COLS " FROM nightly_cycles WHERE"
			 " tree = ? AND branch = ? AND status = 'done'"
			 " ORDER BY id DESC LIMIT 1",
			 tree, branch, out);
}

int nstore_cycle_create(struct store *st, const char *tree, const char *branch,
			const char *url, const char *head, const char *previous,
			int64_t *id)
{
	sqlite3_stmt *s;

	if (db_prepare(
		    store_db(st),
		    "INSERT INTO nightly_cycles (tree, branch, url, head,"
		    " previous, status, started) VALUES (?,?,?,?,?,'running',?)",
		    &s) < 0)
		return -1;
	db_bind_opt(s, 1, tree);
	db_bind_opt(s, 2, branch);
	db_bind_opt(s, 3, url ? url : "");
	db_bind_opt(s, 4, head);
	db_bind_opt(s, 5, previous);
	sqlite3_bind_double(s, 6, rb_now());
	return db_done(store_db(st), s, id);
}

int nstore_cycle_finish(struct store *st, int64_t id, const char *summary)
{
	sqlite3_stmt *s;

	if (db_prepare(store_db(st),
		       "UPDATE nightly_cycles SET status = 'done', summary = ?,"
		       " finished = ? WHERE id = ?",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, summary);
	sqlite3_bind_double(s, 2, rb_now());
	sqlite3_bind_int64(s, 3, id);
	return db_done(store_db(st), s, NULL);
}

/* ---- jobs ------------------------------------------------------------ */

void nightly_job_set(char **field, const char *v)
{
	free(*field);
	*field = v ? xstrdup(v) : NULL;
}

void nightly_job_rec_release(struct nightly_job_rec *j)
{
	char **f[] = { &j->job,		  &j->job_file,	 &j->params,
		       &j->metric,	  &j->threshold, &j->host,
		       &j->hosts,	  &j->head,	 &j->baseline,
		       &j->baseline_name, &j->state,	 &j->verdict,
		       &j->detection,	  &j->outcome,	 &j->mail,
		       &j->message };
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(f); i++)
		free(*f[i]);
	memset(j, 0, sizeof(*j));
}

void nightly_job_recs_free(struct nightly_job_rec *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		nightly_job_rec_release(&v[i]);
	free(v);
}

int nstore_job_add(struct store *st, const struct nightly_job_rec *j,
		   int64_t *id)
{
	sqlite3_stmt *s;

	if (db_prepare(store_db(st),
		       "INSERT INTO nightly_jobs (cycle_id, seq, job, job_file,"
		       " params, metric, threshold, host, hosts, head, state)"
		       " VALUES (?,?,?,?,?,?,?,?,?,?,'measure')",
		       &s) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, j->cycle_id);
	sqlite3_bind_int(s, 2, j->seq);
	db_bind_opt(s, 3, j->job);
	db_bind_opt(s, 4, j->job_file);
	db_bind_opt(s, 5, j->params ? j->params : "");
	db_bind_opt(s, 6, j->metric);
	db_bind_opt(s, 7, j->threshold);
	db_bind_opt(s, 8, j->host);
	db_bind_opt(s, 9, j->hosts);
	db_bind_opt(s, 10, j->head);
	return db_done(store_db(st), s, id);
}

static void read_job(sqlite3_stmt *s, void *elem, void *arg)
{
	struct nightly_job_rec *j = elem;

	j->id = sqlite3_column_int64(s, 0);
	j->cycle_id = sqlite3_column_int64(s, 1);
	j->seq = sqlite3_column_int(s, 2);
	j->job = db_col_opt(s, 3);
	j->job_file = db_col_opt(s, 4);
	j->params = db_col_opt(s, 5);
	j->metric = db_col_opt(s, 6);
	j->threshold = db_col_opt(s, 7);
	j->host = db_col_opt(s, 8);
	j->hosts = db_col_opt(s, 9);
	j->head = db_col_opt(s, 10);
	j->baseline = db_col_opt(s, 11);
	j->baseline_name = db_col_opt(s, 12);
	j->state = db_col_opt(s, 13);
	j->verdict = db_col_opt(s, 14);
	j->detection = db_col_opt(s, 15);
	j->outcome = db_col_opt(s, 16);
	j->mail = db_col_opt(s, 17);
	j->message = db_col_opt(s, 18);
	j->bisection_id = sqlite3_column_int64(s, 19);
}

int nstore_jobs(struct store *st, int64_t cycle_id,
		struct nightly_job_rec **out, size_t *n)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if (db_prepare(store_db(st),
		       "SELECT id, cycle_id, seq, job, job_file, params, metric,"
		       " threshold, host, hosts, head, baseline, baseline_name,"
		       " state, verdict, detection, outcome, mail, message,"
		       " bisection_id FROM nightly_jobs WHERE cycle_id = ?"
		       " ORDER BY seq",
		       &s) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, cycle_id);
	if (db_rows(store_db(st), s, sizeof(**out), read_job, NULL,
		    (void **)out, n, "read the cycle's jobs") < 0) {
		nightly_job_recs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int nstore_job_update(struct store *st, const struct nightly_job_rec *j)
{
	sqlite3_stmt *s;

	if (db_prepare(store_db(st),
		       "UPDATE nightly_jobs SET baseline = ?, baseline_name = ?,"
		       " state = ?, verdict = ?, detection = ?, outcome = ?,"
		       " mail = ?, message = ?, bisection_id = ? WHERE id = ?",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, j->baseline);
	db_bind_opt(s, 2, j->baseline_name);
	db_bind_opt(s, 3, j->state);
	db_bind_opt(s, 4, j->verdict);
	db_bind_opt(s, 5, j->detection);
	db_bind_opt(s, 6, j->outcome);
	db_bind_opt(s, 7, j->mail);
	db_bind_opt(s, 8, j->message);
	db_bind_id(s, 9, j->bisection_id);
	sqlite3_bind_int64(s, 10, j->id);
	return db_done(store_db(st), s, NULL);
}

/* ---- history --------------------------------------------------------- */

int nstore_history_put(struct store *st, const char *job, const char *commit,
		       const char *host, int64_t cycle_id,
		       const struct nightly_summary *sm)
{
	sqlite3_stmt *s;

	if (db_prepare(
		    store_db(st),
		    "INSERT INTO nightly_history (job, commit_sha, host, stat,"
		    " n, mean, stddev, min, max, cycle_id, time)"
		    " VALUES (?,?,?,?,?,?,?,?,?,?,?)"
		    " ON CONFLICT (job, commit_sha, host, stat) DO UPDATE SET"
		    " n = excluded.n, mean = excluded.mean,"
		    " stddev = excluded.stddev, min = excluded.min,"
		    " max = excluded.max, time = excluded.time",
		    &s) < 0)
		return -1;
	db_bind_opt(s, 1, job);
	db_bind_opt(s, 2, commit);
	db_bind_opt(s, 3, host);
	db_bind_opt(s, 4, sm->stat);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)sm->n);
	sqlite3_bind_double(s, 6, sm->mean);
	sqlite3_bind_double(s, 7, sm->stddev);
	sqlite3_bind_double(s, 8, sm->min);
	sqlite3_bind_double(s, 9, sm->max);
	db_bind_id(s, 10, cycle_id);
	sqlite3_bind_double(s, 11, rb_now());
	return db_done(store_db(st), s, NULL);
}

int nstore_history_has(struct store *st, const char *job, const char *commit,
		       const char *host)
{
	sqlite3_stmt *s;
	int r;

	if (db_prepare(store_db(st),
		       "SELECT 1 FROM nightly_history WHERE job = ? AND"
		       " commit_sha = ? AND host = ? LIMIT 1",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, job);
	db_bind_opt(s, 2, commit);
	db_bind_opt(s, 3, host);
	r = sqlite3_step(s);
	sqlite3_finalize(s);
	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return db_error(store_db(st), "read the history");
}

static char *last_metric(struct store *st, const char *job)
{
	sqlite3_stmt *s;
	char *m = NULL;

	if (db_prepare(store_db(st),
		       "SELECT metric FROM nightly_jobs WHERE job = ?"
		       " ORDER BY id DESC LIMIT 1",
		       &s) < 0)
		return NULL;
	db_bind_opt(s, 1, job);
	if (sqlite3_step(s) == SQLITE_ROW)
		m = db_col_opt(s, 0);
	sqlite3_finalize(s);
	return m;
}

int nstore_history_series(struct store *st, const char *job, const char *stat,
			  struct history *h)
{
	sqlite3_stmt *s;
	char *metric = stat ? xstrdup(stat) : last_metric(st, job);
	size_t i, first = h->nr;
	int r;

	free(h->job);
	free(h->stat);
	h->job = xstrdup(job);
	h->stat = metric;
	if (!metric)
		return 0; /* the nightly never ran this job */
	if (db_prepare(
		    store_db(st),
		    "SELECT c.id, c.started, j.head, hh.n, hh.mean, hh.stddev,"
		    " hh.min, hh.max, j.verdict, j.baseline, j.baseline_name,"
		    " hb.mean, j.bisection_id, b.status, b.culprit"
		    " FROM nightly_jobs j"
		    " JOIN nightly_cycles c ON c.id = j.cycle_id"
		    " LEFT JOIN nightly_history hh ON hh.job = j.job AND"
		    "  hh.commit_sha = j.head AND hh.host = j.host AND"
		    "  hh.stat = ?2"
		    " LEFT JOIN nightly_history hb ON hb.job = j.job AND"
		    "  hb.commit_sha = j.baseline AND hb.host = j.host AND"
		    "  hb.stat = ?2"
		    " LEFT JOIN bisections b ON b.id = j.bisection_id"
		    " WHERE j.job = ?1 AND j.state = 'done'"
		    " ORDER BY c.id, j.seq",
		    &s) < 0)
		return -1;
	db_bind_opt(s, 1, job);
	db_bind_opt(s, 2, metric);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct history_point *p = history_add(h);

		p->cycle = sqlite3_column_int64(s, 0);
		p->time = sqlite3_column_double(s, 1);
		p->commit = db_col_opt(s, 2);
		p->n = (size_t)sqlite3_column_int64(s, 3);
		p->mean = sqlite3_column_double(s, 4);
		p->stddev = sqlite3_column_double(s, 5);
		p->min = sqlite3_column_double(s, 6);
		p->max = sqlite3_column_double(s, 7);
		p->verdict = db_col_opt(s, 8);
		p->baseline = db_col_opt(s, 9);
		if (p->baseline && !*p->baseline) {
			free(p->baseline);
			p->baseline = NULL;
		}
		p->baseline_name = db_col_opt(s, 10);
		p->has_baseline_mean = sqlite3_column_type(s, 11) !=
				       SQLITE_NULL;
		p->baseline_mean = sqlite3_column_double(s, 11);
		p->bisection = sqlite3_column_int64(s, 12);
		p->bisection_status = db_col_opt(s, 13);
		p->culprit = db_col_opt(s, 14);
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(store_db(st), "read the history");
	/* the heads at which a reported culprit still showed */
	if (db_prepare(store_db(st),
		       "SELECT s.head, r.culprit FROM nightly_still s"
		       " JOIN nightly_reports r ON r.id = s.report_id"
		       " WHERE r.job = ? AND r.metric = ?",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, job);
	db_bind_opt(s, 2, metric);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		const char *head = (const char *)sqlite3_column_text(s, 0);

		for (i = first; i < h->nr; i++)
			if (!strcmp(h->v[i].commit, head) && !h->v[i].still)
				h->v[i].still = db_col_opt(s, 1);
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(store_db(st), "read the history");
	return 0;
}

int nstore_history_jobs(struct store *st, char ***names, size_t *n)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int r;

	*names = NULL;
	*n = 0;
	if (db_prepare(store_db(st),
		       "SELECT DISTINCT job FROM nightly_jobs ORDER BY job",
		       &s) < 0)
		return -1;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		RB_ALLOC_GROW(*names, *n + 1, alloc);
		(*names)[(*n)++] = db_col_opt(s, 0);
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(store_db(st), "read the jobs");
	return 0;
}

/* ---- reports --------------------------------------------------------- */

void nightly_report_rec_release(struct nightly_report_rec *r)
{
	free(r->job);
	free(r->metric);
	free(r->kind);
	free(r->culprit);
	free(r->head);
	free(r->mail);
	free(r->status);
	free(r->gone_at);
	memset(r, 0, sizeof(*r));
}

void nightly_report_recs_free(struct nightly_report_rec *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		nightly_report_rec_release(&v[i]);
	free(v);
}

#define REPORT_COLS                                                     \
	"id, bisection_id, cycle_id, job, metric, kind, culprit, head," \
	" mail, status, gone_at, created"

static void read_report(sqlite3_stmt *s, struct nightly_report_rec *r)
{
	r->id = sqlite3_column_int64(s, 0);
	r->bisection_id = sqlite3_column_int64(s, 1);
	r->cycle_id = sqlite3_column_int64(s, 2);
	r->job = db_col_opt(s, 3);
	r->metric = db_col_opt(s, 4);
	r->kind = db_col_opt(s, 5);
	r->culprit = db_col_opt(s, 6);
	r->head = db_col_opt(s, 7);
	r->mail = db_col_opt(s, 8);
	r->status = db_col_opt(s, 9);
	r->gone_at = db_col_opt(s, 10);
	r->created = sqlite3_column_double(s, 11);
}

static void read_report_row(sqlite3_stmt *s, void *elem, void *arg)
{
	read_report(s, elem);
}

int nstore_report_add(struct store *st, const struct nightly_report_rec *r,
		      int64_t *id)
{
	sqlite3_stmt *s;

	if (db_prepare(store_db(st),
		       "INSERT INTO nightly_reports (job, metric, kind, culprit,"
		       " bisection_id, cycle_id, head, mail, status, created)"
		       " VALUES (?,?,?,?,?,?,?,?,'open',?)"
		       " ON CONFLICT (job, metric, culprit) DO UPDATE SET"
		       " mail = coalesce(mail, excluded.mail)",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, r->job);
	db_bind_opt(s, 2, r->metric);
	db_bind_opt(s, 3, r->kind);
	db_bind_opt(s, 4, r->culprit);
	db_bind_id(s, 5, r->bisection_id);
	db_bind_id(s, 6, r->cycle_id);
	db_bind_opt(s, 7, r->head);
	db_bind_opt(s, 8, r->mail);
	sqlite3_bind_double(s, 9, rb_now());
	if (db_done(store_db(st), s, NULL) < 0)
		return -1;
	if (db_prepare(store_db(st),
		       "SELECT id FROM nightly_reports WHERE job = ? AND"
		       " metric = ? AND culprit = ?",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, r->job);
	db_bind_opt(s, 2, r->metric);
	db_bind_opt(s, 3, r->culprit);
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return db_error(store_db(st), "read a report");
	}
	*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return 0;
}

int nstore_reports_open(struct store *st, const char *job, const char *metric,
			const char *kind, struct nightly_report_rec **out,
			size_t *n)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if (db_prepare(store_db(st),
		       "SELECT " REPORT_COLS
		       " FROM nightly_reports WHERE job = ?"
		       " AND metric = ? AND status = 'open' AND"
		       " (?3 IS NULL OR kind = ?3) ORDER BY id DESC",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, job);
	db_bind_opt(s, 2, metric);
	db_bind_opt(s, 3, kind);
	if (db_rows(store_db(st), s, sizeof(**out), read_report_row, NULL,
		    (void **)out, n, "read the reports") < 0) {
		nightly_report_recs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int nstore_report_of_bisection(struct store *st, int64_t bisection_id,
			       struct nightly_report_rec *out)
{
	sqlite3_stmt *s;
	int r;

	memset(out, 0, sizeof(*out));
	if (db_prepare(store_db(st),
		       "SELECT " REPORT_COLS " FROM nightly_reports WHERE"
		       " bisection_id = ? ORDER BY id LIMIT 1",
		       &s) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, bisection_id);
	r = sqlite3_step(s);
	if (r == SQLITE_ROW) {
		read_report(s, out);
		r = 1;
	} else if (r == SQLITE_DONE) {
		r = 0;
	} else {
		r = db_error(store_db(st), "read a report");
	}
	sqlite3_finalize(s);
	return r;
}

int nstore_report_gone(struct store *st, int64_t id, const char *head)
{
	sqlite3_stmt *s;

	if (db_prepare(store_db(st),
		       "UPDATE nightly_reports SET status = 'gone', gone_at = ?"
		       " WHERE id = ?",
		       &s) < 0)
		return -1;
	db_bind_opt(s, 1, head);
	sqlite3_bind_int64(s, 2, id);
	return db_done(store_db(st), s, NULL);
}

int nstore_still_add(struct store *st, int64_t report_id, const char *tree,
		     const char *branch, const char *head, int64_t cycle_id,
		     double change_pct)
{
	sqlite3_stmt *s;

	if (db_prepare(
		    store_db(st),
		    "INSERT OR IGNORE INTO nightly_still (report_id, head, tree,"
		    " branch, cycle_id, change_pct, time) VALUES (?,?,?,?,?,?,?)",
		    &s) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, report_id);
	db_bind_opt(s, 2, head);
	db_bind_opt(s, 3, tree);
	db_bind_opt(s, 4, branch);
	db_bind_id(s, 5, cycle_id);
	if (isfinite(change_pct))
		sqlite3_bind_double(s, 6, change_pct);
	else
		sqlite3_bind_null(s, 6);
	sqlite3_bind_double(s, 7, rb_now());
	if (db_done(store_db(st), s, NULL) < 0)
		return -1;
	return sqlite3_changes(store_db(st)) > 0;
}

void nightly_still_recs_free(struct nightly_still_rec *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].tree);
		free(v[i].branch);
		free(v[i].head);
		free(v[i].mail);
	}
	free(v);
}

static void read_still(sqlite3_stmt *s, void *elem, void *arg)
{
	struct nightly_still_rec *e = elem;

	e->tree = db_col_opt(s, 0);
	e->branch = db_col_opt(s, 1);
	e->head = db_col_opt(s, 2);
	e->mail = db_col_opt(s, 3);
	e->change_pct = sqlite3_column_type(s, 4) == SQLITE_NULL ?
				NAN :
				sqlite3_column_double(s, 4);
	e->time = sqlite3_column_double(s, 5);
}

int nstore_still_list(struct store *st, int64_t report_id,
		      struct nightly_still_rec **out, size_t *n)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if (db_prepare(store_db(st),
		       "SELECT tree, branch, head, mail, change_pct, time FROM"
		       " nightly_still WHERE report_id = ? ORDER BY time, rowid",
		       &s) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, report_id);
	if (db_rows(store_db(st), s, sizeof(**out), read_still, NULL,
		    (void **)out, n, "read the still entries") < 0) {
		nightly_still_recs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int nstore_still_set_mail(struct store *st, int64_t report_id, const char *head,
			  const char *mail)
{
	sqlite3_stmt *s;

	if (db_prepare(
		    store_db(st),
		    "UPDATE nightly_still SET mail = ? WHERE report_id = ? AND"
		    " head = ?",
		    &s) < 0)
		return -1;
	db_bind_opt(s, 1, mail);
	sqlite3_bind_int64(s, 2, report_id);
	db_bind_opt(s, 3, head);
	return db_done(store_db(st), s, NULL);
}

/* ---- summaries of a key's runs ---------------------------------------- */

static void add_summary(struct nightly_summary **out, size_t *n, size_t *alloc,
			const char *stat, const double *v, size_t nv)
{
	struct stats_summary sm;
	struct nightly_summary *e;

	stats_summarize(&sm, v, nv);
	RB_ALLOC_GROW(*out, *n + 1, *alloc);
	e = &(*out)[(*n)++];
	e->stat = xstrdup(stat);
	e->n = nv;
	e->mean = sm.mean;
	e->stddev = sm.stddev;
	e->min = sm.min;
	e->max = sm.max;
}

int nstore_key_summaries(struct store *st, const struct run_key *k,
			 struct nightly_summary **out, size_t *n)
{
	sqlite3_stmt *s;
	char *cur = NULL;
	double *v = NULL;
	size_t nv = 0, valloc = 0, alloc = 0;
	int r;

	*out = NULL;
	*n = 0;
	if (db_prepare(
		    store_db(st),
		    "SELECT s.stat, s.value FROM runs r JOIN samples s ON"
		    " s.run_id = r.id WHERE r.testcase = ? AND r.path_params = ?"
		    " AND r.host = ? AND r.rootfs = ? AND r.kconfig = ? AND"
		    " r.compiler = ? AND r.commit_sha = ? AND r.status = 'ok'"
		    " ORDER BY s.stat, r.id",
		    &s) < 0)
		return -1;
	db_bind_opt(s, 1, k->testcase);
	db_bind_opt(s, 2, k->path_params);
	db_bind_opt(s, 3, k->host);
	db_bind_opt(s, 4, k->rootfs);
	db_bind_opt(s, 5, k->kconfig);
	db_bind_opt(s, 6, k->compiler);
	db_bind_opt(s, 7, k->commit);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		const char *stat = (const char *)sqlite3_column_text(s, 0);

		if (cur && strcmp(cur, stat)) {
			add_summary(out, n, &alloc, cur, v, nv);
			nv = 0;
		}
		if (!cur || strcmp(cur, stat)) {
			free(cur);
			cur = xstrdup(stat);
		}
		RB_ALLOC_GROW(v, nv + 1, valloc);
		v[nv++] = sqlite3_column_double(s, 1);
	}
	sqlite3_finalize(s);
	if (cur && nv)
		add_summary(out, n, &alloc, cur, v, nv);
	free(cur);
	free(v);
	if (r != SQLITE_DONE) {
		nightly_summaries_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_error(store_db(st), "read samples");
	}
	return 0;
}

void nightly_summaries_free(struct nightly_summary *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free((char *)v[i].stat);
	free(v);
}

int nstore_key_values_since(struct store *st, const struct run_key *k,
			    const char *stat, double since, double **v,
			    size_t *n)
{
	sqlite3_stmt *s;
	size_t alloc = 0;
	int r;

	*v = NULL;
	*n = 0;
	if (db_prepare(
		    store_db(st),
		    "SELECT s.value FROM runs r JOIN samples s ON s.run_id = r.id"
		    " WHERE r.testcase = ? AND r.path_params = ? AND r.host = ?"
		    " AND r.rootfs = ? AND r.kconfig = ? AND r.compiler = ? AND"
		    " r.commit_sha = ? AND r.status = 'ok' AND s.stat = ? AND"
		    " r.started >= ? ORDER BY r.id",
		    &s) < 0)
		return -1;
	db_bind_opt(s, 1, k->testcase);
	db_bind_opt(s, 2, k->path_params);
	db_bind_opt(s, 3, k->host);
	db_bind_opt(s, 4, k->rootfs);
	db_bind_opt(s, 5, k->kconfig);
	db_bind_opt(s, 6, k->compiler);
	db_bind_opt(s, 7, k->commit);
	db_bind_opt(s, 8, stat);
	sqlite3_bind_double(s, 9, since);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		RB_ALLOC_GROW(*v, *n + 1, alloc);
		(*v)[(*n)++] = sqlite3_column_double(s, 0);
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE) {
		free(*v);
		*v = NULL;
		*n = 0;
		return db_error(store_db(st), "read samples");
	}
	return 0;
}

int nstore_still_mails(struct store *st, int64_t cycle_id, struct svec *ids)
{
	sqlite3_stmt *s;
	int r;

	if (db_prepare(store_db(st),
		       "SELECT mail FROM nightly_still WHERE cycle_id = ? AND"
		       " mail IS NOT NULL ORDER BY time",
		       &s) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, cycle_id);
	while ((r = sqlite3_step(s)) == SQLITE_ROW)
		svec_push(ids, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (r != SQLITE_DONE)
		return db_error(store_db(st), "read the follow-up mails");
	return 0;
}
