// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nightly loop: fetch, measure, detect, bisect, mail, track (see
 * nightly.h). This is the top of the robot's unattended life: it is the
 * one place outside robot/cli/ that prints errors.
 */
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "robot.h"
#include "bisection.h"
#include "context.h"
#include "fetch.h"
#include "history.h"
#include "job.h"
#include "lab.h"
#include "measure.h"
#include "nightly-jobs.h"
#include "nightly-plan.h"
#include "nightly-store.h"
#include "nightly.h"
#include "outbox.h"
#include "repo.h"
#include "reporting.h"
#include "runner.h"
#include "sbuf.h"
#include "session.h"
#include "stats.h"
#include "store.h"
#include "workdir.h"
#include "svec.h"

struct nightly {
	const struct nightly_opts *o;
	struct lab lab;
	bool lab_up;
	char *workdir; /* of the lock */
	struct workdir_lock *lock;
	struct store *st;
	struct rb_repo *repo;
	FILE *log; /* WORKDIR/nightly.log */
	FILE *tee; /* stderr + the log, one timestamped line per event */
	struct sbuf pending; /* the log's current line */
	int64_t cycle; /* for the log lines */
	double cycle_started; /* runs since then are this cycle's */
	int direction; /* of the job at hand: +1 higher is better */
	double threshold_pct;
};

/* --- events: stderr and the log ---------------------------------------- */

/*
 * The tee's log side: a line is written when it ends; a carriage return
 * starts it again (a terminal's status line is never logged), terminal
 * escapes and the "robot: " prefix are dropped.
 */
static void log_line(struct nightly *n, const char *s)
{
	char when[32];

	if (rb_starts_with(s, "\033[K"))
		s += 3;
	if (rb_starts_with(s, "robot: "))
		s += 7;
	if (!*s || !n->log)
		return;
	rb_utc_stamp(when, sizeof(when));
	if (n->cycle)
		fprintf(n->log, "%s [cycle %lld] %s\n", when,
			(long long)n->cycle, s);
	else
		fprintf(n->log, "%s %s\n", when, s);
	fflush(n->log);
}

static ssize_t tee_write(void *cookie, const char *buf, size_t len)
{
	struct nightly *n = cookie;
	size_t i;

	fwrite(buf, 1, len, stderr);
	fflush(stderr);
	for (i = 0; i < len; i++) {
		if (buf[i] == '\r') {
			sbuf_reset(&n->pending);
		} else if (buf[i] == '\n') {
			log_line(n, n->pending.buf);
			sbuf_reset(&n->pending);
		} else {
			sbuf_addch(&n->pending, buf[i]);
		}
	}
	return (ssize_t)len;
}

static void ev(struct nightly *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ev(struct nightly *n, const char *fmt, ...)
{
	FILE *f = n->tee ? n->tee : stderr;
	va_list ap;

	va_start(ap, fmt);
	rb_vnotice_to(f, n->o->tty, fmt, ap);
	va_end(ap);
	fflush(f);
}

/* An error of the robot: the stored message as an event. */
static void ev_error(struct nightly *n, const char *what)
{
	ev(n, "error: %s%s%s", what ? what : "", what ? ": " : "", rb_errmsg());
}

/* A summary line: to `out` and to the log. */
static void say(struct nightly *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct nightly *n, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fprintf(n->o->out, "%s\n", sb.buf);
	fflush(n->o->out);
	log_line(n, sb.buf);
	sbuf_release(&sb);
}

/* --- a job's context ---------------------------------------------------- */

/*
 * A context for one atomic job that borrows the nightly's lab, store and
 * repository (ctx_close would free them): its own job list and hosts.
 */
static int job_ctx(struct nightly *n, const struct nightly_job_rec *j,
		   struct ctx *c)
{
	struct sbuf name = SBUF_INIT;
	char *copy, *save = NULL, *h;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->lab = n->lab;
	c->st = n->st;
	c->repo = n->repo;
	if (job_load_file(&c->jobs, j->job_file) < 0)
		goto fail;
	for (i = 0; i < c->jobs.nr && !c->job; i++)
		if (!strcmp(job_name(c->jobs.v[i], &name), j->job))
			c->job = c->jobs.v[i];
	sbuf_release(&name);
	if (!c->job) {
		rb_error("'%s' no longer holds the job '%s'", j->job_file,
			 j->job);
		goto fail;
	}
	c->hosts = xcalloc(n->lab.nr_hosts + 1, sizeof(*c->hosts));
	copy = xstrdup(j->hosts);
	for (h = strtok_r(copy, ",", &save); h;
	     h = strtok_r(NULL, ",", &save)) {
		const struct lab_host *lh = lab_find_host(&n->lab, h);

		if (!lh) {
			rb_error("no host '%s' in '%s' any more", h,
				 n->lab.file);
			free(copy);
			goto fail;
		}
		if (c->nr_hosts < n->lab.nr_hosts)
			c->hosts[c->nr_hosts++] = lh;
	}
	free(copy);
	if (!c->nr_hosts) {
		rb_error("job '%s' has no host", j->job);
		goto fail;
	}
	c->host_jobs = xcalloc(c->nr_hosts, sizeof(*c->host_jobs));
	return 0;
fail:
	job_list_release(&c->jobs);
	free(c->hosts);
	memset(c, 0, sizeof(*c));
	return -1;
}

static void job_ctx_release(struct ctx *c)
{
	size_t i;

	for (i = 0; c->host_jobs && i < c->nr_hosts; i++)
		job_free(c->host_jobs[i]);
	free(c->host_jobs);
	free(c->hosts);
	job_list_release(&c->jobs);
	memset(c, 0, sizeof(*c));
}

/* --- measuring ---------------------------------------------------------- */

struct meas {
	struct nightly *n;
	const struct lab_host *host;
	struct runner r;
	bool runner_up;
	struct measure ms;
};

static const double no_runs[1];

enum meas_out { MEAS_OK, MEAS_SKIP };

static void meas_note(void *arg, const char *line)
{
	struct meas *m = arg;

	ev(m->n, "%s", line);
}

/*
 * One more run of commit on the job's host, by the measure path (build and
 * boot first when needed, infrastructure failures retried). *out:
 * MEAS_SKIP when the commit cannot be built, booted or run (why says).
 * -1 when the robot failed or the infrastructure never came back.
 */
static int run_once(struct meas *m, const char *commit, enum meas_out *out,
		    struct sbuf *why)
{
	struct measure_result res;

	*out = MEAS_OK;
	if (measure_retry(&m->ms, commit, &res, NULL, why) < 0)
		return -1;
	if (res.outcome != MEASURE_OK)
		*out = MEAS_SKIP;
	return 0;
}

/* The values of commit's runs of this cycle (fresh ones). */
static int fresh(struct meas *m, const char *commit, const char *metric,
		 double **v, size_t *nv)
{
	struct run_key k;

	runner_key(&m->r, m->host->name, commit, &k);
	return nstore_key_values_since(m->n->st, &k, metric,
				       m->n->cycle_started, v, nv);
}

/*
 * Every stat's summary at the head (and the baseline) into the history,
 * from all their runs on the job's host so far (a bisection adds some).
 */
static int record_history(struct nightly *n, struct ctx *c,
			  const struct nightly_job_rec *j)
{
	const char *commits[2] = { j->head, j->baseline };
	struct nightly_summary *sm;
	struct runner r;
	struct run_key k;
	struct job *job = ctx_job(c, 0);
	size_t ns, i, w;
	int ret = 0;

	if (!job || runner_init(&r, &n->lab, n->st, n->repo, job, 0) < 0)
		return -1;
	if (store_begin(n->st) < 0) {
		runner_release(&r);
		return -1;
	}
	for (w = 0; w < 2 && !ret; w++) {
		if (!commits[w] || !*commits[w])
			continue;
		runner_key(&r, j->host, commits[w], &k);
		if (nstore_key_summaries(n->st, &k, &sm, &ns) < 0) {
			ret = -1;
			break;
		}
		for (i = 0; i < ns && !ret; i++)
			ret = nstore_history_put(n->st, j->job, commits[w],
						 j->host, j->cycle_id, &sm[i]);
		nightly_summaries_free(sm, ns);
	}
	if (ret < 0 || store_commit(n->st) < 0) {
		store_rollback(n->st);
		ret = -1;
	}
	runner_release(&r);
	return ret;
}

static char *detection_json(const struct nightly_job_rec *j,
			    const struct nplan *p, size_t nh, size_t nb,
			    double threshold, int direction)
{
	const struct stats_detection *d = &p->det;
	json_t *o = json_object();
	char *t;

	json_object_set_new(o, "metric", json_string(j->metric));
	json_object_set_new(o, "verdict", json_string(p->verdict));
	json_object_set_new(o, "head_runs", json_integer((json_int_t)nh));
	json_object_set_new(o, "baseline_runs", json_integer((json_int_t)nb));
	json_object_set_new(o, "threshold_pct", json_real(threshold));
	json_object_set_new(o, "direction", json_integer(direction));
	if (p->have_detection) {
		json_object_set_new(o, "baseline_mean",
				    json_real(d->base_mean));
		json_object_set_new(o, "head_mean", json_real(d->new_mean));
		json_object_set_new(o, "change_pct", json_real(d->change_pct));
		if (d->ci_pct.bounded) {
			json_object_set_new(o, "ci_lo",
					    json_real(d->ci_pct.lo));
			json_object_set_new(o, "ci_hi",
					    json_real(d->ci_pct.hi));
		}
		json_object_set_new(o, "p", json_real(d->p));
		json_object_set_new(o, "significant",
				    json_boolean(d->significant));
	}
	t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
				  JSON_REAL_PRECISION(10));
	json_decref(o);
	return t ? t : xstrdup("{}");
}

/*
 * Measure the head (and its baseline) until the plan decides; record the
 * history; set the verdict, the detection and the message.
 */
static int measure(struct nightly *n, struct ctx *c, struct nightly_job_rec *j)
{
	struct meas m = { 0 };
	struct nplan_opts po = { 0 };
	struct nplan plan;
	struct sbuf why = SBUF_INIT, msg = SBUF_INIT;
	double *hv = NULL, *bv = NULL;
	size_t nh = 0, nb = 0;
	enum meas_out mo;
	struct job *job = ctx_job(c, 0);
	bool have_base = j->baseline && *j->baseline;
	int ret = -1;

	m.n = n;
	m.host = c->hosts[0];
	if (!job || runner_init(&m.r, &n->lab, n->st, n->repo, job, 0) < 0)
		goto out;
	m.runner_up = true;
	m.r.quiet = !n->o->tty;
	measure_init(&m.ms, &m.r, m.host);
	m.ms.note = meas_note;
	m.ms.arg = &m;
	po.min_runs = (size_t)n->lab.nightly.min_runs;
	po.max_runs = (size_t)n->lab.nightly.max_runs;
	po.threshold_pct = n->threshold_pct;
	po.direction = n->direction;
	for (;;) {
		const char *which;

		free(hv);
		free(bv);
		hv = bv = NULL;
		nh = nb = 0;
		/* this cycle's runs decide (nightly-plan.h) */
		if (fresh(&m, j->head, j->metric, &hv, &nh) < 0 ||
		    (have_base &&
		     fresh(&m, j->baseline, j->metric, &bv, &nb) < 0))
			goto out;
		sbuf_reset(&why);
		/* a baseline without runs yet is still a baseline */
		if (nplan_next(&po, hv, nh,
			       have_base ? (bv ? bv : no_runs) : NULL, nb,
			       &plan, &why) < 0)
			goto out;
		if (plan.next == NPLAN_DONE)
			break;
		which = plan.next == NPLAN_HEAD ? j->head : j->baseline;
		if (run_once(&m, which, &mo, &msg) < 0)
			goto out;
		if (mo == MEAS_SKIP && plan.next == NPLAN_HEAD) {
			nightly_job_set(&j->verdict, "untestable");
			sbuf_reset(&why);
			sbuf_addf(&why, "the head %.12s cannot be tested: %s",
				  j->head, msg.buf);
			nightly_job_set(&j->message, why.buf);
			ev(n, "%s: %s", j->job, why.buf);
			ret = 0;
			goto out;
		}
		if (mo == MEAS_SKIP) {
			ev(n,
			   "%s: the baseline %.12s cannot be tested (%s): "
			   "the head is measured alone",
			   j->job, j->baseline, msg.buf);
			nightly_job_set(&j->baseline, "");
			nightly_job_set(&j->baseline_name, "untestable");
			have_base = false;
			if (nstore_job_update(n->st, j) < 0)
				goto out;
		}
	}
	if (record_history(n, c, j) < 0)
		goto out;
	nightly_job_set(&j->verdict, plan.verdict);
	{
		char *d = detection_json(j, &plan, nh, nb, n->threshold_pct,
					 n->direction);

		nightly_job_set(&j->detection, d);
		free(d);
	}
	sbuf_reset(&msg);
	if (have_base)
		sbuf_addf(&msg, "%s vs %s %.12s: %s", j->metric,
			  j->baseline_name, j->baseline, why.buf);
	else
		sbuf_addf(&msg, "%s at %.12s: %s", j->metric, j->head, why.buf);
	nightly_job_set(&j->message, msg.buf);
	ev(n, "%s: %s", j->job, msg.buf);
	ret = 0;
out:
	if (ret < 0)
		ev_error(n, j->job);
	if (m.runner_up) {
		measure_release(&m.ms);
		runner_release(&m.r);
	}
	free(hv);
	free(bv);
	sbuf_release(&why);
	sbuf_release(&msg);
	return ret;
}

/* --- bisecting and mailing ---------------------------------------------- */

struct bisect_arg {
	struct nightly *n;
	struct nightly_job_rec *j;
	const char *good_hex, *bad_hex;
	int64_t change; /* a change point's row (nightly_changes), or 0 */
	bool improvement;
};

/* The bisection is known: the job points at it before it runs. */
static int bisect_opened(void *data, int64_t id, bool resumed)
{
	struct bisect_arg *a = data;

	if (resumed)
		ev(a->n, "%s: resuming bisection %lld", a->j->job,
		   (long long)id);
	else
		ev(a->n, "%s: bisection %lld of the %s%s: %.12s..%.12s",
		   a->j->job, (long long)id,
		   a->improvement ? "improvement" : "regression",
		   a->change ? " of a change point" : "", a->good_hex,
		   a->bad_hex);
	if (a->change)
		return nstore_change_set_bisection(a->n->st, a->change, id);
	a->j->bisection_id = id;
	return nstore_job_update(a->n->st, a->j);
}

/*
 * Bisect good..bad for the job (or read the finished bisection of the
 * same key): *id, *status (malloc'd), culprit (empty unless found).
 * improvement: the change bisected is in the good direction.
 */
static int bisect(struct nightly *n, struct ctx *c, struct nightly_job_rec *j,
		  const char *good_hex, const char *bad_hex, int64_t change,
		  bool improvement, int64_t *id, char **status, char *culprit)
{
	struct bisection_request req;
	struct bisection_run run = { 0 };
	struct bisect_arg arg = { n, j, good_hex, bad_hex, change, improvement };
	struct sbuf extra = SBUF_INIT, cmd = SBUF_INIT;
	uint8_t good[1][RB_OID_RAWSZ];
	int dir = improvement ? -n->direction : n->direction;
	int ret = -1;

	*status = NULL;
	culprit[0] = '\0';
	memset(&req, 0, sizeof(req));
	if (rb_oid_from_hex(req.bad, bad_hex) < 0 ||
	    rb_oid_from_hex(good[0], good_hex) < 0) {
		rb_error("bad commit in the cycle's state");
		return -1;
	}
	req.ctx = c;
	req.metric = j->metric;
	req.goods = (const uint8_t(*)[RB_OID_RAWSZ])good;
	req.nr_goods = 1;
	/* the nightly's bisections: the change and its direction too */
	sbuf_addf(&extra, "|nightly%s|%s|%+d", change ? "-change" : "",
		  improvement ? "improvement" : "regression", dir);
	sbuf_addf(&cmd, "robot nightly --lab %s (cycle %lld, %s)", n->lab.file,
		  (long long)j->cycle_id, j->job);
	run.req = &req;
	run.key_extra = extra.buf;
	run.command = cmd.buf;
	run.direction = dir;
	run.progress = n->tee;
	run.tty = n->o->tty;
	run.opened = bisect_opened;
	run.arg = &arg;
	if (bisection_run(&run) < 0)
		goto out;
	*id = run.id;
	*status = run.status;
	run.status = NULL;
	snprintf(culprit, RB_OID_HEXSZ + 1, "%s", run.culprit);
	if (!run.ended_before)
		ev(n, "%s: bisection %lld: %s%s%.12s%s%s", j->job,
		   (long long)*id, *status, culprit[0] ? " " : "", culprit,
		   culprit[0] ? "" : ": ", culprit[0] ? "" : run.message);
	ret = 0;
out:
	bisection_run_release(&run);
	sbuf_release(&extra);
	sbuf_release(&cmd);
	return ret;
}

/*
 * The mail of a found bisection: drafted (once: the outbox dedups), its
 * path into the bisection's JSON, sent when the lab auto-sends. *mid the
 * outbox id.
 */
static int mail(struct nightly *n, struct ctx *c, struct nightly_job_rec *j,
		int64_t id, const char *culprit, char **mid)
{
	struct bisection_rec rec = { 0 };
	char *eml = NULL, *json = NULL;
	bool existing;
	int r, ret = -1;

	*mid = NULL;
	if (report_draft(c, id, NULL, 0, mid, &eml, &existing) < 0)
		goto out;
	if (store_bisection_get(n->st, id, &rec) <= 0 || !rec.result)
		goto out;
	json = bisection_set_mail(rec.result, eml);
	if (!json ||
	    store_bisection_finish(n->st, id, "found", culprit, json) < 0)
		goto out;
	ev(n, "%s: mail %s %s", j->job, *mid,
	   existing ? "was drafted before" : "drafted");
	if (report_auto_send(&n->lab)) {
		r = report_send(&n->lab, *mid, false);
		if (r < 0)
			ev(n,
			   "%s: mail %s not sent: %s (it stays in the "
			   "outbox)",
			   j->job, *mid, rb_errmsg());
		else if (r == 0)
			ev(n, "%s: mail %s sent", j->job, *mid);
	}
	ret = 0;
out:
	bisection_rec_release(&rec);
	free(eml);
	free(json);
	return ret;
}

static bool is_ancestor(struct nightly *n, const char *anc, const char *desc)
{
	uint8_t a[RB_OID_RAWSZ], d[RB_OID_RAWSZ];

	if (!anc || !*anc || !desc || !*desc || rb_oid_from_hex(a, anc) < 0 ||
	    rb_oid_from_hex(d, desc) < 0)
		return false;
	return rb_repo_is_ancestor(n->repo, a, d) == 1;
}

/* The metric's values of commit within a bisection, as an array. */
static int bisection_values(struct nightly *n, int64_t id, const char *commit,
			    const char *metric, double **v, size_t *nv)
{
	struct run_sample *s;
	size_t k;

	*v = NULL;
	*nv = 0;
	if (store_bisection_samples(n->st, id, commit, metric, &s, nv) < 0)
		return -1;
	*v = xcalloc(*nv + 1, sizeof(**v));
	for (k = 0; k < *nv; k++)
		(*v)[k] = s[k].value;
	run_samples_free(s, *nv);
	return 0;
}

/* The good commit a report's bisection started from (its first good). */
static char *bisection_good(struct nightly *n, int64_t id)
{
	struct bisection_rec rec = { 0 };
	char *g = NULL;

	if (store_bisection_get(n->st, id, &rec) > 0 && rec.good &&
	    strlen(rec.good) >= 2 + RB_OID_HEXSZ)
		g = xstrndup(rec.good + 2, RB_OID_HEXSZ);
	bisection_rec_release(&rec);
	return g;
}

/* The head's values of the job's metric on its host. */
static int head_values(struct nightly *n, struct ctx *c,
		       const struct nightly_job_rec *j, double **v, size_t *nv)
{
	struct runner r;
	struct run_key k;
	struct job *job = ctx_job(c, 0);
	int ret;

	if (!job || runner_init(&r, &n->lab, n->st, n->repo, job, 0) < 0)
		return -1;
	runner_key(&r, c->hosts[0]->name, j->head, &k);
	ret = store_samples(n->st, &k, j->metric, v, nv);
	runner_release(&r);
	return ret;
}

/* archive/<mail id>/still.txt: the report's later heads, for its readers */
static int write_still_file(struct nightly *n, int64_t report_id,
			    const char *mail_id)
{
	struct nightly_still_rec *v;
	struct sbuf sb = SBUF_INIT;
	char *dir, *path;
	size_t k, nv;
	int r;

	if (!mail_id)
		return 0;
	dir = xstrfmt("%s/archive/%s", n->lab.workdir, mail_id);
	if (!rb_file_exists(dir) ||
	    nstore_still_list(n->st, report_id, &v, &nv) < 0) {
		free(dir);
		return 0;
	}
	for (k = 0; k < nv; k++) {
		sbuf_addf(&sb, "[still regression on %s/%s %s]", v[k].tree,
			  v[k].branch, v[k].head);
		if (isfinite(v[k].change_pct))
			sbuf_addf(&sb, " %+.1f%% against the good commit",
				  v[k].change_pct);
		sbuf_addch(&sb, '\n');
	}
	nightly_still_recs_free(v, nv);
	path = xstrfmt("%s/still.txt", dir);
	r = rb_write_file_atomic(path, sb.buf, sb.len);
	free(path);
	free(dir);
	sbuf_release(&sb);
	return r;
}

/* A follow-up mail about a culprit that still shows (still_mail). */
static int still_mail(struct nightly *n, struct ctx *c,
		      const struct nightly_job_rec *j,
		      const struct nightly_report_rec *rep)
{
	struct nightly_still_rec *v;
	struct report_still *rs;
	size_t nv, k;
	char *mid = NULL, *eml = NULL;
	bool existing;
	int r, ret = -1;

	if (!rep->bisection_id ||
	    nstore_still_list(n->st, rep->id, &v, &nv) < 0)
		return -1;
	rs = xcalloc(nv + 1, sizeof(*rs));
	for (k = 0; k < nv; k++) {
		rs[k].tree = v[k].tree;
		rs[k].branch = v[k].branch;
		rs[k].sha = v[k].head;
	}
	if (report_draft_still(c, rep->bisection_id, rs, nv, &mid, &eml,
			       &existing) < 0 ||
	    nstore_still_set_mail(n->st, rep->id, j->head, mid) < 0)
		goto out;
	ev(n, "%s: follow-up mail %s %s", j->job, mid,
	   existing ? "was drafted before" : "drafted");
	if (report_auto_send(&n->lab)) {
		r = report_send(&n->lab, mid, false);
		if (r < 0)
			ev(n,
			   "%s: mail %s not sent: %s (it stays in the "
			   "outbox)",
			   j->job, mid, rb_errmsg());
		else if (r == 0)
			ev(n, "%s: mail %s sent", j->job, mid);
	}
	ret = 0;
out:
	nightly_still_recs_free(v, nv);
	free(rs);
	free(mid);
	free(eml);
	return ret;
}

/* Record that report rep still shows at the head (change vs its good). */
static int still(struct nightly *n, struct ctx *c,
		 const struct nightly_job_rec *j,
		 const struct nightly_report_rec *rep, double change)
{
	int r = nstore_still_add(n->st, rep->id, n->lab.tree.name,
				 n->lab.tree.branch, j->head, j->cycle_id,
				 change);

	if (r <= 0)
		return r;
	ev(n,
	   "%s: still regression on %s/%s %.12s: culprit %.12s "
	   "(reported at %.12s), %+.1f%% against its good commit",
	   j->job, n->lab.tree.name, n->lab.tree.branch, j->head, rep->culprit,
	   rep->head, change);
	if (write_still_file(n, rep->id, rep->mail) < 0)
		return -1;
	if (n->lab.nightly.still_mail && still_mail(n, c, j, rep) < 0)
		return -1;
	return 0;
}

/*
 * A regression explained by a reported culprit in the range
 * (baseline, head]: the head is not significantly worse than the culprit
 * was. Returns 1 (explained: recorded as still), 0 (not: *good gets the
 * newest such culprit to bisect from, or stays NULL), -1.
 */
static int explained(struct nightly *n, struct ctx *c,
		     struct nightly_job_rec *j, char **good)
{
	struct nightly_report_rec *v;
	struct stats_detect_opts o;
	struct stats_detection d;
	double *cv = NULL, *hv = NULL;
	size_t nv, k, ncv, nhv;
	int ret = 0;

	*good = NULL;
	if (nstore_reports_open(n->st, j->job, j->metric, "regression", &v,
				&nv) < 0)
		return -1;
	for (k = 0; k < nv && ret == 0 && !*good; k++) {
		char *g;

		if (!strcmp(v[k].head, j->head) || !v[k].bisection_id ||
		    !is_ancestor(n, v[k].culprit, j->head) ||
		    is_ancestor(n, v[k].culprit, j->baseline))
			continue;
		free(cv);
		free(hv);
		cv = hv = NULL;
		if (bisection_values(n, v[k].bisection_id, v[k].culprit,
				     j->metric, &cv, &ncv) < 0 ||
		    head_values(n, c, j, &hv, &nhv) < 0) {
			ret = -1;
			break;
		}
		if (ncv < 2 || nhv < 2)
			continue;
		stats_detect_opts_init(&o);
		o.direction = n->direction;
		o.threshold_pct = n->threshold_pct;
		if (stats_detect(&o, cv, ncv, hv, nhv, &d, NULL) < 0) {
			ret = -1;
			break;
		}
		if (!d.regression) {
			g = bisection_good(n, v[k].bisection_id);
			if (g) {
				double *gv = NULL;
				size_t ngv = 0;
				double change = NAN;

				if (bisection_values(n, v[k].bisection_id, g,
						     j->metric, &gv,
						     &ngv) == 0 &&
				    ngv)
					change = stats_pct_change(
						stats_mean(gv, ngv),
						stats_mean(hv, nhv));
				free(gv);
				free(g);
				if (still(n, c, j, &v[k], change) < 0) {
					ret = -1;
					break;
				}
			}
			ev(n,
			   "%s: the regression is culprit %.12s's, reported "
			   "before: not bisected again",
			   j->job, v[k].culprit);
			ret = 1;
		} else {
			*good = xstrdup(v[k].culprit);
		}
	}
	free(cv);
	free(hv);
	nightly_report_recs_free(v, nv);
	return ret;
}

/*
 * A found culprit: its mail (drafted once, sent when the lab auto-sends)
 * and its report, which later heads follow (still, gone). *mid the mail.
 */
static int report_found(struct nightly *n, struct ctx *c,
			struct nightly_job_rec *j, int64_t id,
			const char *culprit, bool improvement, const char *head,
			char **mid)
{
	struct nightly_report_rec rep;
	int64_t rid;

	if (mail(n, c, j, id, culprit, mid) < 0)
		return -1;
	memset(&rep, 0, sizeof(rep));
	rep.job = j->job;
	rep.metric = j->metric;
	rep.kind = (char *)(improvement ? "improvement" : "regression");
	rep.culprit = (char *)culprit;
	rep.bisection_id = id;
	rep.cycle_id = j->cycle_id;
	rep.head = (char *)head;
	rep.mail = *mid;
	return nstore_report_add(n->st, &rep, &rid);
}

/* What the act step does with a regression or an improvement. */
static int act(struct nightly *n, struct ctx *c, struct nightly_job_rec *j)
{
	bool improvement = !strcmp(j->verdict, "improvement");
	char culprit[RB_OID_HEXSZ + 1], *good = NULL, *status = NULL,
					*mid = NULL;
	struct sbuf out = SBUF_INIT;
	int64_t id = 0;
	int r, ret = -1;

	if (improvement && !n->lab.nightly.improvements)
		return 0;
	if (!j->baseline || !*j->baseline)
		return 0;
	if (!improvement) {
		r = explained(n, c, j, &good);
		if (r < 0)
			goto out;
		if (r > 0) {
			nightly_job_set(&j->outcome, "still");
			ret = 0;
			goto out;
		}
	}
	if (bisect(n, c, j, good ? good : j->baseline, j->head, 0, improvement,
		   &id, &status, culprit) < 0)
		goto out;
	j->bisection_id = id;
	sbuf_addf(&out, "bisection %lld %s", (long long)id, status);
	if (culprit[0]) {
		sbuf_addf(&out, " %s", culprit);
		if (report_found(n, c, j, id, culprit, improvement, j->head,
				 &mid) < 0)
			goto out;
		nightly_job_set(&j->mail, mid);
	}
	nightly_job_set(&j->outcome, out.buf);
	ret = 0;
out:
	if (ret < 0)
		ev_error(n, j->job);
	free(good);
	free(status);
	free(mid);
	sbuf_release(&out);
	return ret;
}

/*
 * Every open regression of this job whose culprit the head contains,
 * reported at another head: still there (against its bisection's good
 * commit), or gone.
 */
static int still_check(struct nightly *n, struct ctx *c,
		       struct nightly_job_rec *j)
{
	struct nightly_report_rec *v;
	struct stats_detect_opts o;
	struct stats_detection d;
	double *gv = NULL, *hv = NULL;
	size_t nv, k, ngv, nhv = 0;
	int ret = 0;

	if (!j->verdict || !strcmp(j->verdict, "untestable") ||
	    !strcmp(j->verdict, "failed"))
		return 0;
	if (nstore_reports_open(n->st, j->job, j->metric, "regression", &v,
				&nv) < 0)
		return -1;
	if (nv && head_values(n, c, j, &hv, &nhv) < 0)
		ret = -1;
	for (k = 0; k < nv && !ret; k++) {
		char *g;

		if (!strcmp(v[k].head, j->head) || !v[k].bisection_id ||
		    !is_ancestor(n, v[k].culprit, j->head))
			continue;
		g = bisection_good(n, v[k].bisection_id);
		free(gv);
		gv = NULL;
		ngv = 0;
		if (!g || bisection_values(n, v[k].bisection_id, g, j->metric,
					   &gv, &ngv) < 0) {
			free(g);
			continue;
		}
		free(g);
		if (ngv < 2 || nhv < 2)
			continue;
		stats_detect_opts_init(&o);
		o.direction = n->direction;
		o.threshold_pct = n->threshold_pct;
		if (stats_detect(&o, gv, ngv, hv, nhv, &d, NULL) < 0) {
			ret = -1;
			break;
		}
		if (d.regression) {
			if (still(n, c, j, &v[k], d.change_pct) < 0)
				ret = -1;
			continue;
		}
		if (nstore_report_gone(n->st, v[k].id, j->head) < 0) {
			ret = -1;
			break;
		}
		ev(n,
		   "%s: the regression of culprit %.12s is gone at %.12s "
		   "(%+.1f%% against its good commit)",
		   j->job, v[k].culprit, j->head, d.change_pct);
	}
	free(gv);
	free(hv);
	nightly_report_recs_free(v, nv);
	if (ret < 0)
		ev_error(n, j->job);
	return ret;
}

/* Do the head ranges (g1, b1] and (g2, b2] share a head? */
static bool ranges_overlap(struct nightly *n, const char *g1, const char *b1,
			   const char *g2, const char *b2)
{
	return strcmp(g1, b2) && is_ancestor(n, g1, b2) && strcmp(g2, b1) &&
	       is_ancestor(n, g2, b1);
}

/* A reported culprit of this job within (good, bad]: the change is its. */
static int reported_in(struct nightly *n, const struct nightly_job_rec *j,
		       const char *good, const char *bad)
{
	struct nightly_report_rec *v;
	size_t nv, k;
	int r = 0;

	if (nstore_reports_open(n->st, j->job, j->metric, NULL, &v, &nv) < 0)
		return -1;
	for (k = 0; k < nv && !r; k++)
		r = is_ancestor(n, v[k].culprit, bad) &&
		    !is_ancestor(n, v[k].culprit, good);
	nightly_report_recs_free(v, nv);
	return r;
}

/*
 * One change point no cycle called, beyond the threshold: recorded, then
 * bisected between its good and bad heads like a detected regression,
 * and reported when a culprit is found.
 */
static int change_bisect(struct nightly *n, struct ctx *c,
			 struct nightly_job_rec *j, const struct history *h,
			 const struct history_change *hc)
{
	struct nightly_change_rec rec = { 0 };
	const char *good = h->v[hc->good].commit, *bad = h->v[hc->bad].commit;
	bool improvement = !strcmp(hc->kind, "improvement");
	char culprit[RB_OID_HEXSZ + 1], *status = NULL, *mid = NULL;
	struct sbuf out = SBUF_INIT;
	int64_t row, id = 0;
	int ret = -1;

	ev(n,
	   "%s: change point of %s in cycles %lld..%lld, %+.1f%% (p = %.4f), "
	   "called by no cycle: bisecting %.12s..%.12s",
	   j->job, j->metric, (long long)h->v[hc->lo].cycle,
	   (long long)h->v[hc->hi].cycle, hc->change_pct, hc->p, good, bad);
	rec.job = j->job;
	rec.metric = j->metric;
	rec.host = j->host;
	rec.at = h->v[hc->at].commit;
	rec.good = (char *)good;
	rec.bad = (char *)bad;
	rec.kind = (char *)hc->kind;
	rec.change_pct = hc->change_pct;
	rec.p = hc->p;
	rec.cycle_id = j->cycle_id;
	if (nstore_change_add(n->st, &rec, &row) < 0 ||
	    bisect(n, c, j, good, bad, row, improvement, &id, &status,
		   culprit) < 0)
		goto out;
	sbuf_addf(&out, "change point %+.1f%%: bisection %lld %s",
		  hc->change_pct, (long long)id, status);
	if (culprit[0]) {
		sbuf_addf(&out, " %s", culprit);
		if (report_found(n, c, j, id, culprit, improvement, bad, &mid) <
		    0)
			goto out;
		if (!j->mail)
			nightly_job_set(&j->mail, mid);
	}
	/* once in the outcome, also when a resumed robot comes here again */
	if (!j->outcome || !strstr(j->outcome, out.buf)) {
		char *o = xstrfmt("%s%s%s", j->outcome ? j->outcome : "",
				  j->outcome ? "; " : "", out.buf);

		nightly_job_set(&j->outcome, o);
		free(o);
	}
	ret = nstore_job_update(n->st, j);
out:
	free(status);
	free(mid);
	sbuf_release(&out);
	return ret;
}

/*
 * The change points of the job's history with this head (history.h): the
 * ones no cycle's own test called, bigger than the threshold and not a
 * reported culprit's, are bisected. A change point's heads bisected by an
 * earlier cycle are not bisected again (this cycle's are: a robot that
 * stopped during the bisection resumes it).
 */
static int changes(struct nightly *n, struct ctx *c, struct nightly_job_rec *j)
{
	struct history h = HISTORY_INIT;
	struct nightly_change_rec *done = NULL;
	size_t nd = 0, k, i;
	int ret = -1, r;

	if (!j->verdict || !strcmp(j->verdict, "untestable") ||
	    !strcmp(j->verdict, "failed"))
		return 0;
	if (nstore_history_series_with(n->st, j->job, j->metric, j->id, &h) <
		    0 ||
	    history_find_changes(&h, j->host, n->direction) < 0 ||
	    nstore_changes(n->st, j->job, j->metric, &done, &nd) < 0)
		goto out;
	for (k = 0; k < h.changes_nr; k++) {
		const struct history_change *hc = &h.changes[k];
		const char *good = h.v[hc->good].commit,
			   *bad = h.v[hc->bad].commit;

		if (hc->called || !isfinite(hc->change_pct) ||
		    fabs(hc->change_pct) < n->threshold_pct ||
		    (!strcmp(hc->kind, "improvement") &&
		     !n->lab.nightly.improvements))
			continue;
		for (i = 0; i < nd; i++)
			if (ranges_overlap(n, done[i].good, done[i].bad, good,
					   bad))
				break;
		if (i < nd && done[i].cycle_id != j->cycle_id)
			continue;
		r = reported_in(n, j, good, bad);
		if (r < 0)
			goto out;
		if (r && i == nd)
			continue;
		if (change_bisect(n, c, j, &h, hc) < 0)
			goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		ev_error(n, j->job);
	nightly_change_recs_free(done, nd);
	history_release(&h);
	return ret;
}

/* --- a job through its states ------------------------------------------ */

static int choose_baseline(struct nightly *n,
			   const struct nightly_cycle_rec *cyc,
			   struct nightly_job_rec *j)
{
	uint8_t head[RB_OID_RAWSZ], tagged[RB_OID_RAWSZ];
	char hex[RB_OID_HEXSZ + 1], *tag = NULL;
	int r;

	if (!strcmp(n->lab.nightly.baseline, "tag")) {
		if (rb_oid_from_hex(head, j->head) < 0)
			return rb_error("bad head '%s'", j->head);
		r = rb_repo_last_tag(n->repo, head, n->lab.nightly.tag_pattern,
				     &tag, tagged);
		if (r < 0)
			return -1;
		if (r > 0) {
			nightly_job_set(&j->baseline, rb_oid_hex(tagged, hex));
			nightly_job_set(&j->baseline_name, tag);
			free(tag);
			return 0;
		}
		ev(n,
		   "%s: no tag '%s' below %.12s: the previous tested head "
		   "is the baseline",
		   j->job, n->lab.nightly.tag_pattern, j->head);
	}
	nightly_job_set(&j->baseline, cyc->previous ? cyc->previous : "");
	nightly_job_set(&j->baseline_name,
			cyc->previous ? "previous head" : "none");
	return 0;
}

static int set_direction(struct nightly *n, const struct nightly_job_rec *j)
{
	return nightly_job_direction(j->metric, j->threshold, &n->threshold_pct,
				     &n->direction);
}

static int save(struct nightly *n, struct nightly_job_rec *j, const char *state)
{
	nightly_job_set(&j->state, state);
	return nstore_job_update(n->st, j);
}

/*
 * Take a job from where it stands to done. -1 when the robot failed (the
 * job stays where it was: the next run continues it).
 */
static int run_job(struct nightly *n, const struct nightly_cycle_rec *cyc,
		   struct nightly_job_rec *j)
{
	struct ctx c;
	int ret = -1;

	if (job_ctx(n, j, &c) < 0 || set_direction(n, j) < 0) {
		/* a job that cannot run is this job's failure, not ours */
		ev(n, "%s: cannot run: %s", j->job, rb_errmsg());
		nightly_job_set(&j->verdict, "failed");
		nightly_job_set(&j->message, rb_errmsg());
		if (c.job)
			job_ctx_release(&c);
		return save(n, j, "done");
	}
	if (!strcmp(j->state, "measure")) {
		if (!j->baseline && choose_baseline(n, cyc, j) < 0) {
			ev_error(n, j->job);
			goto out;
		}
		if (nstore_job_update(n->st, j) < 0 || measure(n, &c, j) < 0 ||
		    save(n, j, "act") < 0)
			goto out;
	}
	if (!strcmp(j->state, "act")) {
		if (j->verdict &&
		    (!strcmp(j->verdict, "regression") ||
		     !strcmp(j->verdict, "improvement")) &&
		    act(n, &c, j) < 0)
			goto out;
		if (save(n, j, "still") < 0)
			goto out;
	}
	if (!strcmp(j->state, "still")) {
		if (still_check(n, &c, j) < 0 ||
		    (j->verdict && strcmp(j->verdict, "untestable") &&
		     record_history(n, &c, j) < 0) ||
		    changes(n, &c, j) < 0 || save(n, j, "done") < 0)
			goto out;
	}
	ret = 0;
out:
	job_ctx_release(&c);
	return ret;
}

/* --- cycles ------------------------------------------------------------- */

static void join(struct sbuf *sb, const struct svec *v, const char *sep)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		sbuf_addf(sb, "%s%s", i ? sep : "", v->v[i]);
}

struct add_jobs_ctx {
	struct nightly *n;
	int64_t cycle;
	const char *head;
	unsigned bad;
	int seq;
	struct svec seen;
	struct sbuf name, hosts, params;
};

/* One atomic job of nightly.jobs into the store (once per name). */
static int add_job(void *arg, const struct lab_nightly_job *ent,
		   const char *file, const struct job *job)
{
	struct add_jobs_ctx *c = arg;
	const struct lab_nightly *cfg = &c->n->lab.nightly;
	struct nightly_job_rec r;
	char *metric;
	int64_t id;
	size_t a;
	int ret;

	job_name(job, &c->name);
	if (svec_find(&c->seen, c->name.buf) >= 0)
		return 0;
	svec_push(&c->seen, c->name.buf);
	sbuf_reset(&c->hosts);
	if (ent->hosts.nr)
		join(&c->hosts, &ent->hosts, ",");
	else if (cfg->hosts.nr)
		join(&c->hosts, &cfg->hosts, ",");
	else
		for (a = 0; a < c->n->lab.nr_hosts; a++)
			sbuf_addf(&c->hosts, "%s%s", a ? "," : "",
				  c->n->lab.hosts[a].name);
	sbuf_reset(&c->params);
	join(&c->params, &ent->params, " ");
	metric = nightly_job_metric(&c->n->lab, ent, job);
	memset(&r, 0, sizeof(r));
	r.threshold = ent->threshold ? ent->threshold : cfg->threshold;
	r.cycle_id = c->cycle;
	r.seq = c->seq++;
	r.job = c->name.buf;
	r.job_file = (char *)file;
	r.params = c->params.buf;
	r.metric = metric;
	r.hosts = c->hosts.buf;
	r.host = xstrndup(c->hosts.buf, strcspn(c->hosts.buf, ","));
	r.head = (char *)c->head;
	ret = nstore_job_add(c->n->st, &r, &id);
	free(metric);
	free(r.host);
	return ret;
}

/* A nightly.jobs entry or file that gives no job: logged and counted. */
static void bad_job(void *arg, const char *msg)
{
	struct add_jobs_ctx *c = arg;

	ev(c->n, "%s", msg);
	c->bad++;
}

/*
 * The cycle's jobs from nightly.jobs, into the store. An entry that
 * cannot be tested (no file, a file that does not load, no atomic job
 * matching its params, a metric without a direction) is said at its
 * file:line:col and fails the whole: the caller rolls the cycle back, so
 * the head is tested once the lab is fixed instead of being taken for
 * tested.
 */
static int add_jobs(struct nightly *n, int64_t cycle, const char *head)
{
	struct add_jobs_ctx c = { .n = n,
				  .cycle = cycle,
				  .head = head,
				  .seen = SVEC_INIT,
				  .name = SBUF_INIT,
				  .hosts = SBUF_INIT,
				  .params = SBUF_INIT };
	int ret = nightly_jobs_each(&n->lab, add_job, bad_job, &c) ? -1 : 0;

	if (!ret && c.bad)
		ret = rb_error("%u of the nightly.jobs in '%s' cannot be "
			       "tested (above): nothing is tested until the "
			       "lab is fixed",
			       c.bad, n->lab.file);
	svec_clear(&c.seen);
	sbuf_release(&c.name);
	sbuf_release(&c.hosts);
	sbuf_release(&c.params);
	return ret;
}

static bool mail_sent(struct nightly *n, const char *id)
{
	struct rb_outbox ob = RB_OUTBOX_INIT;
	struct rb_outbox_entry e;
	char *dir = rb_path_join(n->lab.workdir, "outbox");
	bool sent = false;

	if (rb_outbox_open(&ob, dir) == 0 && rb_outbox_get(&ob, id, &e) == 0) {
		sent = e.state == RB_OUTBOX_SENT;
		rb_outbox_entry_release(&e);
	}
	rb_outbox_release(&ob);
	free(dir);
	return sent;
}

/* The summary of a cycle from its jobs in the store (resumes included). */
static int summarize(struct nightly *n, const struct nightly_cycle_rec *cyc,
		     struct nightly_job_rec *v, size_t nv, bool *finished)
{
	unsigned reg = 0, imp = 0, bis = 0, found = 0, mails = 0, still = 0,
		 fail = 0, undone = 0;
	struct sbuf sb = SBUF_INIT;
	struct svec follow = SVEC_INIT;
	int64_t cnt = 0;
	size_t i;

	say(n, "nightly cycle %lld: %s/%s %.12s%s%.12s%s", (long long)cyc->id,
	    cyc->tree, cyc->branch, cyc->head,
	    cyc->previous ? " (previous head " : "",
	    cyc->previous ? cyc->previous : "", cyc->previous ? ")" : "");
	for (i = 0; i < nv; i++) {
		const struct nightly_job_rec *j = &v[i];
		const char *vd = j->verdict ? j->verdict : "unfinished";

		if (strcmp(j->state, "done"))
			undone++;
		if (!strcmp(vd, "regression"))
			reg++;
		if (!strcmp(vd, "improvement"))
			imp++;
		if (!strcmp(vd, "failed"))
			fail++;
		if (j->bisection_id) {
			bis++;
			if (j->outcome && strstr(j->outcome, " found ") &&
			    strstr(j->outcome, " found ") <
				    (strstr(j->outcome, "change point") ?
					     strstr(j->outcome,
						    "change point") :
					     j->outcome + strlen(j->outcome)))
				found++;
		}
		/* the change points it bisected (changes()) */
		for (const char *o =
			     j->outcome ? strstr(j->outcome, "change point ") :
					  NULL;
		     o; o = strstr(o + 1, "change point ")) {
			const char *end = strstr(o + 1, "change point ");
			const char *f = strstr(o, " found ");

			bis++;
			found += f && (!end || f < end);
		}
		if (j->mail && mail_sent(n, j->mail))
			mails++;
		say(n, "  %s: %s%s%s%s%s", j->job, vd, j->message ? ": " : "",
		    j->message ? j->message : "", j->outcome ? "; " : "",
		    j->outcome ? j->outcome : "");
	}
	/* the follow-ups of reports whose culprit still shows */
	if (nstore_still_mails(n->st, cyc->id, &follow) < 0)
		return -1;
	for (i = 0; i < follow.nr; i++)
		mails += mail_sent(n, follow.v[i]);
	svec_clear(&follow);
	sbuf_addf(&sb, "cycle_id = %lld", (long long)cyc->id);
	if (store_count(n->st, "nightly_still", sb.buf, &cnt) < 0) {
		sbuf_release(&sb);
		return -1;
	}
	still = (unsigned)cnt;
	sbuf_reset(&sb);
	sbuf_addf(&sb,
		  "summary: 1 head tested, %zu job%s, %u regression%s, %u "
		  "improvement%s, %u bisection%s (%u culprit%s found), %u "
		  "mail%s sent, %u still regression%s, %u failure%s",
		  nv, RB_PLURAL(nv), reg, RB_PLURAL(reg), imp, RB_PLURAL(imp),
		  bis, RB_PLURAL(bis), found, RB_PLURAL(found), mails,
		  RB_PLURAL(mails), still, RB_PLURAL(still), fail,
		  RB_PLURAL(fail));
	if (undone)
		sbuf_addf(&sb, ", %u job%s unfinished (the next run continues)",
			  undone, RB_PLURAL(undone));
	say(n, "%s", sb.buf);
	/* finished, and without failures */
	*finished = !undone && !fail;
	if (!undone && nstore_cycle_finish(n->st, cyc->id,
					   sb.buf + strlen("summary: ")) < 0) {
		sbuf_release(&sb);
		return -1;
	}
	sbuf_release(&sb);
	return 0;
}

/*
 * Run (or continue) a cycle's jobs, then its summary: 0 when every job is
 * done without a failure, else -1.
 */
static int run_cycle(struct nightly *n, const struct nightly_cycle_rec *cyc)
{
	struct nightly_job_rec *v;
	size_t nv, i;
	bool finished = false;
	int failed = 0;

	n->cycle = cyc->id;
	n->cycle_started = cyc->started;
	if (nstore_jobs(n->st, cyc->id, &v, &nv) < 0)
		return -1;
	for (i = 0; i < nv; i++)
		if (strcmp(v[i].state, "done") && run_job(n, cyc, &v[i]) < 0)
			failed = -1;
	nightly_job_recs_free(v, nv);
	/* the summary from the store, as it stands now */
	if (nstore_jobs(n->st, cyc->id, &v, &nv) < 0)
		return -1;
	if (summarize(n, cyc, v, nv, &finished) < 0)
		failed = -1;
	nightly_job_recs_free(v, nv);
	n->cycle = 0;
	if (!finished)
		failed = -1;
	return failed ? -1 : 0;
}

/* Fetch (or read) the branch's head. */
static int fetch(struct nightly *n, char *head)
{
	const struct lab_tree *t = &n->lab.tree;
	struct rb_fetch_opts fo = { 0 };
	struct rb_fetch_result fr;
	struct rb_repo *r = NULL;
	uint8_t oid[RB_OID_RAWSZ];
	char *ref;
	int ret;

	if (!t->url) {
		ref = xstrfmt("refs/heads/%s", t->branch);
		ret = rb_repo_open(&r, t->path);
		if (!ret)
			ret = rb_repo_resolve(r, ref, oid);
		rb_repo_free(r);
		free(ref);
		if (ret < 0)
			return -1;
		rb_oid_hex(oid, head);
		ev(n, "%s/%s is at %.12s (no tree.url: not fetched)", t->name,
		   t->branch, head);
		return 0;
	}
	ref = xstrfmt("refs/remotes/%s/%s", t->name, t->branch);
	fo.path = t->path;
	fo.url = t->url;
	fo.branch = t->branch;
	fo.ref = ref;
	fo.ssh_key = t->ssh_key;
	fo.known_hosts = t->known_hosts;
	fo.ca_file = t->ca_file;
	fo.progress = n->o->tty ? stderr : NULL;
	ev(n, "fetching %s %s", t->url, t->branch);
	ret = rb_fetch(&fo, &fr);
	free(ref);
	if (ret < 0)
		return -1;
	rb_oid_hex(fr.head, head);
	if (fr.had_old && !memcmp(fr.old, fr.head, RB_OID_RAWSZ))
		ev(n, "fetched %s/%s: %.12s, unchanged", t->name, t->branch,
		   head);
	else
		ev(n, "fetched %s/%s: %.12s (%u objects, %.1f KiB)", t->name,
		   t->branch, head, fr.objects, (double)fr.bytes / 1024);
	return 0;
}

static int open_repo(struct nightly *n)
{
	rb_repo_free(n->repo);
	n->repo = NULL;
	return rb_repo_open(&n->repo, n->lab.tree.path);
}

/* One cycle: the unfinished one first, then a new head. 0 or -1. */
static int cycle(struct nightly *n)
{
	struct nightly_cycle_rec cyc = { 0 }, last = { 0 };
	char head[RB_OID_HEXSZ + 1];
	int r, ret = -1;
	int64_t id;

	r = nstore_cycle_running(n->st, n->lab.tree.name, n->lab.tree.branch,
				 &cyc);
	if (r < 0)
		goto fail;
	if (r > 0) {
		n->cycle = cyc.id;
		ev(n, "continuing cycle %lld at %.12s", (long long)cyc.id,
		   cyc.head);
		if (open_repo(n) < 0)
			goto fail;
		r = run_cycle(n, &cyc);
		nightly_cycle_rec_release(&cyc);
		if (r < 0)
			return -1;
	}
	if (fetch(n, head) < 0 || open_repo(n) < 0)
		goto fail;
	r = nstore_cycle_last_done(n->st, n->lab.tree.name, n->lab.tree.branch,
				   &last);
	if (r < 0)
		goto fail;
	if (r > 0 && !strcmp(last.head, head)) {
		say(n,
		    "nightly: %s/%s %.12s was tested in cycle %lld: "
		    "nothing new",
		    n->lab.tree.name, n->lab.tree.branch, head,
		    (long long)last.id);
		say(n, "summary: 0 heads tested");
		ret = 0;
		goto out;
	}
	if (store_begin(n->st) < 0)
		goto fail;
	if (nstore_cycle_create(n->st, n->lab.tree.name, n->lab.tree.branch,
				n->lab.tree.url, head, r > 0 ? last.head : NULL,
				&id) < 0 ||
	    add_jobs(n, id, head) < 0 || store_commit(n->st) < 0) {
		store_rollback(n->st);
		goto fail;
	}
	n->cycle = id;
	ev(n, "cycle %lld: testing %.12s%s%.12s", (long long)id, head,
	   r > 0 ? " after " : " (the first head)", r > 0 ? last.head : "");
	if (nstore_cycle_running(n->st, n->lab.tree.name, n->lab.tree.branch,
				 &cyc) <= 0)
		goto fail;
	ret = run_cycle(n, &cyc);
	goto out;
fail:
	ev_error(n, NULL);
out:
	n->cycle = 0;
	nightly_cycle_rec_release(&cyc);
	nightly_cycle_rec_release(&last);
	return ret;
}

/* --- the loop ----------------------------------------------------------- */

static int load(struct nightly *n)
{
	if (n->lab_up) {
		lab_release(&n->lab);
		n->lab_up = false;
	}
	if (lab_load(&n->lab, n->o->lab) < 0)
		return -1;
	n->lab_up = true;
	if (!n->lab.nightly.present)
		return rb_error("'%s' has no nightly: section", n->lab.file);
	if (!n->lab.tree.path)
		return rb_error("'%s' has no tree.path", n->lab.file);
	if (n->workdir && strcmp(n->workdir, n->lab.workdir))
		return rb_error("the workdir of '%s' changed: restart the "
				"nightly",
				n->lab.file);
	return 0;
}

/*
 * Wait for the next cycle. SIGTERM and SIGINT end the loop (1), SIGHUP
 * starts the next cycle at once; 0 when the time has come.
 */
static int wait_next(long seconds)
{
	sigset_t set, old;
	struct timespec ts = { seconds, 0 };
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	do {
		sig = sigtimedwait(&set, NULL, &ts);
	} while (sig < 0 && errno == EINTR);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return sig == SIGTERM || sig == SIGINT;
}

int nightly_main(const struct nightly_opts *o)
{
	struct nightly n;
	cookie_io_functions_t io = { .write = tee_write };
	char *logpath = NULL;
	int ret = RB_EXIT_OK;

	memset(&n, 0, sizeof(n));
	n.o = o;
	sbuf_init(&n.pending, 0);
	if (load(&n) < 0)
		goto fatal;
	n.workdir = xstrdup(n.lab.workdir);
	if (workdir_lock_take(&n.lock, n.workdir, "robot nightly") < 0 ||
	    store_open(&n.st, n.workdir) < 0)
		goto fatal;
	logpath = rb_path_join(n.workdir, "nightly.log");
	n.log = fopen(logpath, "ae");
	if (!n.log) {
		rb_error("cannot open '%s': %s", logpath, strerror(errno));
		goto fatal;
	}
	n.tee = fopencookie(&n, "w", io);
	if (!n.tee) {
		rb_error("cannot open the event stream");
		goto fatal;
	}
	setvbuf(n.tee, NULL, _IOLBF, 0);
	ev(&n, "nightly %s on %s/%s (%s)", o->once ? "once" : "started",
	   n.lab.tree.name, n.lab.tree.branch, n.lab.file);
	for (;;) {
		if (cycle(&n) < 0)
			ret = RB_EXIT_FAIL;
		if (o->once)
			break;
		ev(&n, "next cycle in %lds",
		   o->interval ? o->interval : n.lab.nightly.interval);
		if (wait_next(o->interval ? o->interval :
					    n.lab.nightly.interval))
			break;
		if (load(&n) < 0) {
			ev_error(&n, NULL);
			ret = RB_EXIT_FAIL;
			break;
		}
		ret = RB_EXIT_OK;
	}
	ev(&n, "nightly ends (exit %d)", ret);
	goto out;
fatal:
	if (n.tee)
		ev_error(&n, NULL);
	else
		rb_error_print();
	ret = RB_EXIT_FAIL;
out:
	if (n.tee)
		fclose(n.tee);
	if (n.log)
		fclose(n.log);
	rb_repo_free(n.repo);
	store_close(n.st);
	workdir_lock_release(n.lock);
	if (n.lab_up)
		lab_release(&n.lab);
	free(n.workdir);
	free(logpath);
	sbuf_release(&n.pending);
	return ret;
}
