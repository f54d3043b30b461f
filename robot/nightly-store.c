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

static int one_cycle(struct store *st, const char *sql, const char *tree,
		     const char *branch, struct nightly_cycle_rec *c)
{
	sqlite3_stmt *s;

	memset(c, 0, sizeof(*c));
	if (db_query(store_db(st), &s, sql, "ss", tree, branch) < 0)
		return -1;
	return db_get(store_db(st), s, "read a cycle", "Isssssssdd", &c->id,
		      &c->tree, &c->branch, &c->url, &c->head, &c->previous,
		      &c->status, &c->summary, &c->started, &c->finished);
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
	return db_run(
		store_db(st), id,
		"INSERT INTO nightly_cycles (tree, branch, url, head,"
		" previous, status, started) VALUES (?,?,?,?,?,'running',?)",
		"sssssd", tree, branch, url ? url : "", head, previous,
		rb_now());
}

int nstore_cycle_finish(struct store *st, int64_t id, const char *summary)
{
	return db_run(store_db(st), NULL,
		      "UPDATE nightly_cycles SET status = 'done', summary = ?,"
		      " finished = ? WHERE id = ?",
		      "sdI", summary, rb_now(), id);
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
	return db_run(store_db(st), id,
		      "INSERT INTO nightly_jobs (cycle_id, seq, job, job_file,"
		      " params, metric, threshold, host, hosts, head, state)"
		      " VALUES (?,?,?,?,?,?,?,?,?,?,'measure')",
		      "Iissssssss", j->cycle_id, j->seq, j->job, j->job_file,
		      j->params ? j->params : "", j->metric, j->threshold,
		      j->host, j->hosts, j->head);
}

static void read_job(sqlite3_stmt *s, void *elem)
{
	struct nightly_job_rec *j = elem;

	db_cols(s, "IIissssssssssssssssI", &j->id, &j->cycle_id, &j->seq,
		&j->job, &j->job_file, &j->params, &j->metric, &j->threshold,
		&j->host, &j->hosts, &j->head, &j->baseline, &j->baseline_name,
		&j->state, &j->verdict, &j->detection, &j->outcome, &j->mail,
		&j->message, &j->bisection_id);
}

static void free_jobs(void *v, size_t n)
{
	nightly_job_recs_free(v, n);
}

static const struct db_rowtype job_rows = {
	.size = sizeof(struct nightly_job_rec),
	.read = read_job,
	.free = free_jobs,
};

int nstore_jobs(struct store *st, int64_t cycle_id,
		struct nightly_job_rec **out, size_t *n)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if (db_query(store_db(st), &s,
		     "SELECT id, cycle_id, seq, job, job_file, params, metric,"
		     " threshold, host, hosts, head, baseline, baseline_name,"
		     " state, verdict, detection, outcome, mail, message,"
		     " bisection_id FROM nightly_jobs WHERE cycle_id = ?"
		     " ORDER BY seq",
		     "I", cycle_id) < 0)
		return -1;
	return db_rows(store_db(st), s, "read the cycle's jobs", &job_rows,
		       (void **)out, n);
}

int nstore_job_update(struct store *st, const struct nightly_job_rec *j)
{
	return db_run(store_db(st), NULL,
		      "UPDATE nightly_jobs SET baseline = ?, baseline_name = ?,"
		      " state = ?, verdict = ?, detection = ?, outcome = ?,"
		      " mail = ?, message = ?, bisection_id = ? WHERE id = ?",
		      "ssssssssnI", j->baseline, j->baseline_name, j->state,
		      j->verdict, j->detection, j->outcome, j->mail, j->message,
		      j->bisection_id, j->id);
}

/* ---- history --------------------------------------------------------- */

int nstore_history_put(struct store *st, const char *job, const char *commit,
		       const char *host, int64_t cycle_id,
		       const struct nightly_summary *sm)
{
	return db_run(
		store_db(st), NULL,
		"INSERT INTO nightly_history (job, commit_sha, host, stat,"
		" n, mean, stddev, min, max, cycle_id, time)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?)"
		" ON CONFLICT (job, commit_sha, host, stat) DO UPDATE SET"
		" n = excluded.n, mean = excluded.mean,"
		" stddev = excluded.stddev, min = excluded.min,"
		" max = excluded.max, time = excluded.time",
		"ssssIddddnd", job, commit, host, sm->stat, (int64_t)sm->n,
		sm->mean, sm->stddev, sm->min, sm->max, cycle_id, rb_now());
}

int nstore_history_has(struct store *st, const char *job, const char *commit,
		       const char *host)
{
	sqlite3_stmt *s;

	if (db_query(store_db(st), &s,
		     "SELECT 1 FROM nightly_history WHERE job = ? AND"
		     " commit_sha = ? AND host = ? LIMIT 1",
		     "sss", job, commit, host) < 0)
		return -1;
	return db_get(store_db(st), s, "read the history", "");
}

static char *last_metric(struct store *st, const char *job)
{
	sqlite3_stmt *s;
	char *m = NULL;

	if (db_query(store_db(st), &s,
		     "SELECT metric FROM nightly_jobs WHERE job = ?"
		     " ORDER BY id DESC LIMIT 1",
		     "s", job) < 0 ||
	    db_get(store_db(st), s, "read the history", "s", &m) < 0)
		return NULL;
	return m;
}

static void read_point(sqlite3_stmt *s, void *arg)
{
	struct history_point *p = history_add(arg);
	int64_t n;

	db_cols(s, "IdsIddddsssDIsss", &p->cycle, &p->time, &p->commit, &n,
		&p->mean, &p->stddev, &p->min, &p->max, &p->verdict,
		&p->baseline, &p->baseline_name, &p->baseline_mean,
		&p->bisection, &p->bisection_status, &p->culprit, &p->host);
	p->n = (size_t)n;
	if (p->baseline && !*p->baseline) {
		free(p->baseline);
		p->baseline = NULL;
	}
	/* SQLite keeps no NaN: NaN is SQL NULL, no mean */
	p->has_baseline_mean = !isnan(p->baseline_mean);
	if (!p->has_baseline_mean)
		p->baseline_mean = 0;
}

struct still_heads {
	struct history *h;
	size_t first; /* the points of this series */
};

/* A row (head, culprit): the culprit still showed at that head. */
static void mark_still(sqlite3_stmt *s, void *arg)
{
	struct still_heads *sh = arg;
	const char *head = (const char *)sqlite3_column_text(s, 0);
	struct history_point *p;
	size_t i;

	for (i = sh->first; i < sh->h->nr; i++) {
		p = &sh->h->v[i];
		if (!strcmp(p->commit, head) && !p->still)
			p->still = db_col_opt(s, 1);
	}
}

int nstore_history_series(struct store *st, const char *job, const char *stat,
			  struct history *h)
{
	return nstore_history_series_with(st, job, stat, 0, h);
}

int nstore_history_series_with(struct store *st, const char *job,
			       const char *stat, int64_t with_job,
			       struct history *h)
{
	sqlite3_stmt *s;
	char *metric = stat ? xstrdup(stat) : last_metric(st, job);
	struct still_heads sh = { h, h->nr };

	free(h->job);
	free(h->stat);
	h->job = xstrdup(job);
	h->stat = metric;
	if (!metric)
		return 0; /* the nightly never ran this job */
	if (db_query(store_db(st), &s,
		     "SELECT c.id, c.started, j.head, hh.n, hh.mean, hh.stddev,"
		     " hh.min, hh.max, j.verdict, j.baseline, j.baseline_name,"
		     " hb.mean, j.bisection_id, b.status, b.culprit, j.host"
		     " FROM nightly_jobs j"
		     " JOIN nightly_cycles c ON c.id = j.cycle_id"
		     " LEFT JOIN nightly_history hh ON hh.job = j.job AND"
		     "  hh.commit_sha = j.head AND hh.host = j.host AND"
		     "  hh.stat = ?2"
		     " LEFT JOIN nightly_history hb ON hb.job = j.job AND"
		     "  hb.commit_sha = j.baseline AND hb.host = j.host AND"
		     "  hb.stat = ?2"
		     " LEFT JOIN bisections b ON b.id = j.bisection_id"
		     " WHERE j.job = ?1 AND (j.state = 'done' OR j.id = ?3)"
		     " ORDER BY c.id, j.seq",
		     "ssI", job, metric, with_job) < 0 ||
	    db_each(store_db(st), s, "read the history", read_point, h) < 0)
		return -1;
	/* the heads at which a reported culprit still showed */
	if (db_query(store_db(st), &s,
		     "SELECT s.head, r.culprit FROM nightly_still s"
		     " JOIN nightly_reports r ON r.id = s.report_id"
		     " WHERE r.job = ? AND r.metric = ?",
		     "ss", job, metric) < 0 ||
	    db_each(store_db(st), s, "read the history", mark_still, &sh) < 0)
		return -1;
	return 0;
}

static void read_change(sqlite3_stmt *s, void *arg)
{
	struct nightly_change_rec **pv = arg, *c = *pv;

	db_cols(s, "IsssssssDdIII", &c->id, &c->job, &c->metric, &c->host,
		&c->at, &c->good, &c->bad, &c->kind, &c->change_pct, &c->p,
		&c->bisection_id, &c->cycle_id, &c->found);
	(*pv)++;
}

int nstore_change_add(struct store *st, const struct nightly_change_rec *c,
		      int64_t *id)
{
	sqlite3_stmt *s;

	if (db_run(store_db(st), NULL,
		   "INSERT INTO nightly_changes (job, metric, host, at_commit,"
		   " good, bad, kind, change_pct, p, bisection_id, cycle_id,"
		   " created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
		   " ON CONFLICT (job, metric, good, bad) DO NOTHING",
		   "sssssssDdnnd", c->job, c->metric, c->host, c->at, c->good,
		   c->bad, c->kind, c->change_pct, c->p, c->bisection_id,
		   c->cycle_id, rb_now()) < 0 ||
	    db_query(store_db(st), &s,
		     "SELECT id FROM nightly_changes WHERE job = ? AND"
		     " metric = ? AND good = ? AND bad = ?",
		     "ssss", c->job, c->metric, c->good, c->bad) < 0)
		return -1;
	if (db_get(store_db(st), s, "read a change", "I", id) <= 0)
		return db_error(store_db(st), "read a change");
	return 0;
}

int nstore_change_set_bisection(struct store *st, int64_t id,
				int64_t bisection_id)
{
	return db_run(
		store_db(st), NULL,
		"UPDATE nightly_changes SET bisection_id = ? WHERE id = ?",
		"nI", bisection_id, id);
}

int nstore_changes(struct store *st, const char *job, const char *metric,
		   struct nightly_change_rec **out, size_t *n)
{
	sqlite3_stmt *s;
	int64_t cnt = 0;
	struct nightly_change_rec *cur;

	*out = NULL;
	*n = 0;
	/* a store older than the table, opened read-only: none yet */
	if (store_schema_version(st) < 8)
		return 0;
	if (db_query(store_db(st), &s,
		     "SELECT COUNT(*) FROM nightly_changes WHERE job = ? AND"
		     " metric = ?",
		     "ss", job, metric) < 0 ||
	    db_get(store_db(st), s, "count changes", "I", &cnt) < 0)
		return -1;
	*out = xcalloc((size_t)cnt + 1, sizeof(**out));
	cur = *out;
	if (db_query(store_db(st), &s,
		     "SELECT c.id, c.job, c.metric, c.host, c.at_commit, c.good,"
		     " c.bad, c.kind, c.change_pct, c.p,"
		     " COALESCE(c.bisection_id, 0), COALESCE(c.cycle_id, 0),"
		     " b.status = 'found'"
		     " FROM nightly_changes c"
		     " LEFT JOIN bisections b ON b.id = c.bisection_id"
		     " WHERE c.job = ? AND c.metric = ? ORDER BY c.id LIMIT ?",
		     "ssI", job, metric, cnt) < 0 ||
	    db_each(store_db(st), s, "read changes", read_change, &cur) < 0) {
		nightly_change_recs_free(*out, (size_t)(cur - *out));
		*out = NULL;
		return -1;
	}
	*n = (size_t)(cur - *out);
	return 0;
}

void nightly_change_recs_free(struct nightly_change_rec *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].job);
		free(v[i].metric);
		free(v[i].host);
		free(v[i].at);
		free(v[i].good);
		free(v[i].bad);
		free(v[i].kind);
	}
	free(v);
}

static void push_text(sqlite3_stmt *s, void *arg)
{
	svec_push(arg, (const char *)sqlite3_column_text(s, 0));
}

int nstore_history_stats(struct store *st, const char *job, struct svec *out)
{
	sqlite3_stmt *s;

	if (db_query(store_db(st), &s,
		     "SELECT stat FROM nightly_history WHERE job = ?1"
		     " UNION SELECT metric FROM nightly_jobs WHERE job = ?1"
		     " ORDER BY 1",
		     "s", job) < 0)
		return -1;
	return db_each(store_db(st), s, "read the history's stats", push_text,
		       out);
}

int nstore_history_jobs(struct store *st, char ***names, size_t *n)
{
	sqlite3_stmt *s;

	*names = NULL;
	*n = 0;
	if (db_query(store_db(st), &s,
		     "SELECT DISTINCT job FROM nightly_jobs ORDER BY job",
		     "") < 0)
		return -1;
	return db_rows(store_db(st), s, "read the jobs", &db_text_rows,
		       (void **)names, n);
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

static void read_report(sqlite3_stmt *s, void *elem)
{
	struct nightly_report_rec *r = elem;

	db_cols(s, "IIIssssssssd", &r->id, &r->bisection_id, &r->cycle_id,
		&r->job, &r->metric, &r->kind, &r->culprit, &r->head, &r->mail,
		&r->status, &r->gone_at, &r->created);
}

static void free_reports(void *v, size_t n)
{
	nightly_report_recs_free(v, n);
}

static const struct db_rowtype report_rows = {
	.size = sizeof(struct nightly_report_rec),
	.read = read_report,
	.free = free_reports,
};

int nstore_report_add(struct store *st, const struct nightly_report_rec *r,
		      int64_t *id)
{
	sqlite3_stmt *s;
	int found;

	if (db_run(store_db(st), NULL,
		   "INSERT INTO nightly_reports (job, metric, kind, culprit,"
		   " bisection_id, cycle_id, head, mail, status, created)"
		   " VALUES (?,?,?,?,?,?,?,?,'open',?)"
		   " ON CONFLICT (job, metric, culprit) DO UPDATE SET"
		   " mail = coalesce(mail, excluded.mail)",
		   "ssssnnssd", r->job, r->metric, r->kind, r->culprit,
		   r->bisection_id, r->cycle_id, r->head, r->mail,
		   rb_now()) < 0 ||
	    db_query(store_db(st), &s,
		     "SELECT id FROM nightly_reports WHERE job = ? AND"
		     " metric = ? AND culprit = ?",
		     "sss", r->job, r->metric, r->culprit) < 0)
		return -1;
	found = db_get(store_db(st), s, "read a report", "I", id);
	if (!found) /* the row just written */
		return db_error(store_db(st), "read a report");
	return found < 0 ? -1 : 0;
}

int nstore_reports_open(struct store *st, const char *job, const char *metric,
			const char *kind, struct nightly_report_rec **out,
			size_t *n)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if (db_query(store_db(st), &s,
		     "SELECT " REPORT_COLS " FROM nightly_reports WHERE job = ?"
		     " AND metric = ? AND status = 'open' AND"
		     " (?3 IS NULL OR kind = ?3) ORDER BY id DESC",
		     "sss", job, metric, kind) < 0)
		return -1;
	return db_rows(store_db(st), s, "read the reports", &report_rows,
		       (void **)out, n);
}

int nstore_report_of_bisection(struct store *st, int64_t bisection_id,
			       struct nightly_report_rec *out)
{
	sqlite3_stmt *s;

	memset(out, 0, sizeof(*out));
	if (db_query(store_db(st), &s,
		     "SELECT " REPORT_COLS " FROM nightly_reports WHERE"
		     " bisection_id = ? ORDER BY id LIMIT 1",
		     "I", bisection_id) < 0)
		return -1;
	return db_one(store_db(st), s, "read a report", &report_rows, out);
}

int nstore_report_gone(struct store *st, int64_t id, const char *head)
{
	return db_run(store_db(st), NULL,
		      "UPDATE nightly_reports SET status = 'gone', gone_at = ?"
		      " WHERE id = ?",
		      "sI", head, id);
}

int nstore_still_add(struct store *st, int64_t report_id, const char *tree,
		     const char *branch, const char *head, int64_t cycle_id,
		     double change_pct)
{
	if (db_run(store_db(st), NULL,
		   "INSERT OR IGNORE INTO nightly_still (report_id, head, tree,"
		   " branch, cycle_id, change_pct, time) VALUES (?,?,?,?,?,?,?)",
		   "IsssnDd", report_id, head, tree, branch, cycle_id,
		   change_pct, rb_now()) < 0)
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

static void read_still(sqlite3_stmt *s, void *elem)
{
	struct nightly_still_rec *e = elem;

	db_cols(s, "ssssDd", &e->tree, &e->branch, &e->head, &e->mail,
		&e->change_pct, &e->time);
}

static void free_stills(void *v, size_t n)
{
	nightly_still_recs_free(v, n);
}

static const struct db_rowtype still_rows = {
	.size = sizeof(struct nightly_still_rec),
	.read = read_still,
	.free = free_stills,
};

int nstore_still_list(struct store *st, int64_t report_id,
		      struct nightly_still_rec **out, size_t *n)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if (db_query(store_db(st), &s,
		     "SELECT tree, branch, head, mail, change_pct, time FROM"
		     " nightly_still WHERE report_id = ? ORDER BY time, rowid",
		     "I", report_id) < 0)
		return -1;
	return db_rows(store_db(st), s, "read the still entries", &still_rows,
		       (void **)out, n);
}

int nstore_still_set_mail(struct store *st, int64_t report_id, const char *head,
			  const char *mail)
{
	return db_run(
		store_db(st), NULL,
		"UPDATE nightly_still SET mail = ? WHERE report_id = ? AND"
		" head = ?",
		"sIs", mail, report_id, head);
}

/* ---- summaries of a key's runs ---------------------------------------- */

/* The summaries of rows (stat, value) that come ordered by stat. */
struct summing {
	struct nightly_summary *v;
	size_t n, alloc;
	char *stat; /* of the values gathered so far */
	double *vals;
	size_t nvals, valloc;
};

static void add_summary(struct summing *g)
{
	struct stats_summary sm;
	struct nightly_summary *e;

	stats_summarize(&sm, g->vals, g->nvals);
	RB_ALLOC_GROW(g->v, g->n + 1, g->alloc);
	e = &g->v[g->n++];
	e->stat = xstrdup(g->stat);
	e->n = g->nvals;
	e->mean = sm.mean;
	e->stddev = sm.stddev;
	e->min = sm.min;
	e->max = sm.max;
	g->nvals = 0;
}

static void sum_row(sqlite3_stmt *s, void *arg)
{
	struct summing *g = arg;
	const char *stat = (const char *)sqlite3_column_text(s, 0);

	if (!g->stat || strcmp(g->stat, stat)) {
		if (g->nvals)
			add_summary(g);
		free(g->stat);
		g->stat = xstrdup(stat);
	}
	RB_ALLOC_GROW(g->vals, g->nvals + 1, g->valloc);
	g->vals[g->nvals++] = sqlite3_column_double(s, 1);
}

int nstore_key_summaries(struct store *st, const struct run_key *k,
			 struct nightly_summary **out, size_t *n)
{
	struct summing g = { 0 };
	sqlite3_stmt *s;
	int r;

	*out = NULL;
	*n = 0;
	if (db_query(store_db(st), &s,
		     "SELECT s.stat, s.value FROM runs r JOIN samples s ON"
		     " s.run_id = r.id WHERE r.testcase = ? AND"
		     " r.path_params = ? AND r.host = ? AND r.rootfs = ? AND"
		     " r.kconfig = ? AND r.compiler = ? AND r.commit_sha = ?"
		     " AND r.status = 'ok' ORDER BY s.stat, r.id",
		     "k", k) < 0)
		return -1;
	r = db_each(store_db(st), s, "read samples", sum_row, &g);
	if (g.nvals)
		add_summary(&g);
	free(g.stat);
	free(g.vals);
	if (r < 0) {
		nightly_summaries_free(g.v, g.n);
		return -1;
	}
	*out = g.v;
	*n = g.n;
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

	*v = NULL;
	*n = 0;
	if (db_query(
		    store_db(st), &s,
		    "SELECT s.value FROM runs r JOIN samples s ON s.run_id = r.id"
		    " WHERE r.testcase = ? AND r.path_params = ? AND r.host = ?"
		    " AND r.rootfs = ? AND r.kconfig = ? AND r.compiler = ? AND"
		    " r.commit_sha = ? AND r.status = 'ok' AND s.stat = ? AND"
		    " r.started >= ? ORDER BY r.id",
		    "ksd", k, stat, since) < 0)
		return -1;
	return db_rows(store_db(st), s, "read samples", &db_double_rows,
		       (void **)v, n);
}

int nstore_still_mails(struct store *st, int64_t cycle_id, struct svec *ids)
{
	sqlite3_stmt *s;

	if (db_query(store_db(st), &s,
		     "SELECT mail FROM nightly_still WHERE cycle_id = ? AND"
		     " mail IS NOT NULL ORDER BY time",
		     "I", cycle_id) < 0)
		return -1;
	return db_each(store_db(st), s, "read the follow-up mails", push_text,
		       ids);
}
