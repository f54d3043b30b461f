// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bisection driver: find or create by key, run the session with the
 * real ops, finish in the store.
 */
#include "robot.h"
#include "bisection.h"
#include "context.h"
#include "job.h"
#include "lava-exec.h"
#include "payload.h"
#include "repo.h"
#include "runner.h"
#include "sbuf.h"
#include "session-exec.h"
#include "session.h"
#include "stats.h"
#include "store.h"
#include "svec.h"
#include "transport.h"

/* Find the bisection of the key or create it. 1 found, 0 created, -1. */
static int open_bisection(struct bisection_run *r, const char *key,
			  struct bisection_rec *rec)
{
	const struct bisection_request *q = r->req;
	char bad_hex[RB_OID_HEXSZ + 1];
	struct sbuf jn = SBUF_INIT;
	char *goods, *range;
	int found, ret;

	found = store_bisection_by_key(q->ctx->st, key, rec);
	if (found)
		return found;
	goods = bisection_hex_list(q->goods, q->nr_goods);
	rb_oid_hex(q->bad, bad_hex);
	job_name(q->ctx->job, &jn);
	range = bisection_range_key(q);
	ret = store_bisection_create(q->ctx->st, key, range, jn.buf, q->metric,
				     goods, bad_hex,
				     r->command ? r->command : "", &r->id);
	free(range);
	free(goods);
	sbuf_release(&jn);
	return ret;
}

/*
 * The range as git would refuse it: good == bad, swapped, a good that is
 * not an ancestor of bad (git tests their merge base first; on a lab that
 * is a measured commit nobody asked for, so the robot names it instead).
 */
static int check_range(const struct bisection_request *q)
{
	struct rb_repo *repo = q->ctx->repo;
	char g[RB_OID_HEXSZ + 1], b[RB_OID_HEXSZ + 1];
	uint8_t(*mb)[RB_OID_RAWSZ] = NULL;
	size_t i, nmb = 0;
	int anc;

	rb_oid_hex(q->bad, b);
	for (i = 0; i < q->nr_goods; i++) {
		rb_oid_hex(q->goods[i], g);
		if (!memcmp(q->goods[i], q->bad, RB_OID_RAWSZ))
			return rb_error("the good and the bad commit are the "
					"same, %.12s: there is nothing to "
					"bisect",
					b);
		anc = rb_repo_is_ancestor(repo, q->goods[i], q->bad);
		if (anc < 0)
			return -1;
		if (anc)
			continue;
		anc = rb_repo_is_ancestor(repo, q->bad, q->goods[i]);
		if (anc < 0)
			return -1;
		if (anc)
			return rb_error(
				"some good revs are not ancestors of the "
				"bad rev: the bad %.12s is an ancestor "
				"of the good %.12s; maybe good and bad "
				"are swapped?",
				b, g);
		if (rb_repo_merge_bases(repo, q->goods[i], &q->bad, 1, &mb,
					&nmb) < 0)
			return -1;
		if (nmb) {
			char m[RB_OID_HEXSZ + 1];

			rb_oid_hex(mb[0], m);
			free(mb);
			return rb_error(
				"some good revs are not ancestors of the "
				"bad rev: %.12s is not an ancestor of "
				"%.12s; their merge base %.12s is one "
				"(use it as --good if it is good)",
				g, b, m);
		}
		free(mb);
		return rb_error("some good revs are not ancestors of the bad "
				"rev: %.12s and %.12s have no common history",
				g, b);
	}
	return 0;
}

/*
 * The metric: one the job's runs carry (payload.h); a metric only a run
 * can tell is checked on the first run (session-exec.c).
 */
static int check_metric(const struct bisection_request *q)
{
	struct run_key key;
	struct svec seen = SVEC_INIT;
	int ret;

	runner_job_key(q->ctx->job, "", "", &key);
	ret = store_job_stat_names(q->ctx->st, key.testcase, key.path_params,
				   &seen);
	if (!ret)
		ret = payload_metric_check(q->ctx->job, q->metric, &seen);
	svec_clear(&seen);
	return ret < 0 ? -1 : 0;
}

/*
 * A percentage's sign against the metric's known direction: "+10%" on a
 * higher-is-better stat asks for a rise, an improvement, not a regression.
 */
static int check_threshold(const struct bisection_run *r)
{
	const char *t = r->req->threshold;
	struct stats_policy p;

	stats_policy_init(&p);
	p.direction = r->direction;
	if (session_parse_threshold(&p, t) < 0)
		return -1;
	if (p.threshold_kind != STATS_THRESHOLD_PCT || !r->direction ||
	    p.direction == r->direction)
		return 0;
	if (p.threshold >= 100)
		/* "+150%" on a higher-is-better stat: -150% cannot happen */
		return rb_error("threshold '%s': a rise of '%s' is an "
				"improvement (higher is better); a regression "
				"is a drop of less than 100%%",
				t, r->req->metric);
	return rb_error("threshold '%s': a %s of '%s' is an "
			"improvement (%s is better); a regression "
			"is %c%s",
			t, t[0] == '+' ? "rise" : "drop", r->req->metric,
			r->direction > 0 ? "higher" : "lower",
			t[0] == '+' ? '-' : '+', t + 1);
}

/* how long a host's payload may take to answer its help before a run */
#define HELP_TIMEOUT 30

/*
 * The host's payload help, when the host answers now (a box up before
 * its first boot of the bisection, a local one); NULL when it does not,
 * or answers with something else (its booted system may differ): the
 * first run asks again and tells.
 */
static char *host_help_now(const struct ctx *c, const struct lab_host *h,
			   const struct job *j)
{
	struct sbuf why = SBUF_INIT;
	struct transport t;
	char *help = NULL;

	if (transport_open(&t, &c->lab, h) < 0) {
		rb_error_clear();
		return NULL;
	}
	if (runner_payload_help(&t, payload_find(j->payload), h, HELP_TIMEOUT,
				&help, &why) < 0)
		rb_error_clear();
	transport_close(&t);
	sbuf_release(&why);
	return help;
}

/*
 * The job on each host, as the session's workers will resolve it (a
 * host's nproc asked over its transport when the lab does not give it,
 * as they would ask at their start), and what its runs will need of the
 * box: zero threads on a host, a disk it lacks, a batch LAVA cannot run,
 * and, when the host's payload answers now, a test or an option it does
 * not know (else the first run tells, after a build and a boot).
 */
static int check_hosts(const struct bisection_request *q)
{
	struct ctx *c = q->ctx;
	size_t i;

	for (i = 0; i < c->nr_hosts; i++) {
		const struct lab_host *h = c->hosts[i];
		const struct job *j = ctx_job(c, i);
		char *help;
		int bad;

		if (!j)
			return -1;
		if (transport_host_is_lava(h)) {
			if (lava_check_job(j, h) < 0)
				return -1;
			continue;
		}
		help = host_help_now(c, h, j);
		bad = runner_payload_check(j, h, help) < 0;
		free(help);
		if (bad)
			return -1;
	}
	return 0;
}

/*
 * Everything that can be refused before a run: one line each, before
 * the bisection is stored.
 */
static int precheck(const struct bisection_run *r)
{
	if (check_range(r->req) < 0 || check_metric(r->req) < 0 ||
	    check_threshold(r) < 0 || check_hosts(r->req) < 0)
		return -1;
	return 0;
}

/* The session over the context's hosts; *res set on 0. */
static int run_session(struct bisection_run *r,
		       struct session_outcome_info *res)
{
	const struct bisection_request *q = r->req;
	struct ctx *c = q->ctx;
	struct session_config cfg;
	struct session_ops ops = { 0 };
	struct session_exec_real *x = NULL;
	struct rb_range range;
	const char **names;
	size_t i;
	int ret = -1;

	memset(&cfg, 0, sizeof(cfg));
	stats_policy_init(&cfg.policy);
	cfg.policy.direction = r->direction;
	if (session_parse_threshold(&cfg.policy, q->threshold) < 0)
		return -1;
	if (rb_repo_load_range(c->repo, q->bad, q->goods, q->nr_goods,
			       q->first_parent ? RB_FIND_FIRST_PARENT : 0,
			       &range) < 0)
		return -1;
	names = xcalloc(c->nr_hosts, sizeof(*names));
	for (i = 0; i < c->nr_hosts; i++)
		names[i] = c->hosts[i]->name;
	if (session_exec_real_start(&x, c, r->id, q->metric, &ops) < 0)
		goto out;
	cfg.ops = &ops;
	cfg.range = &range;
	cfg.hosts = names;
	cfg.nr_hosts = (int)c->nr_hosts;
	cfg.metric = q->metric;
	cfg.progress = r->progress;
	cfg.tty = r->tty;
	ret = session_run(&cfg, res);
out:
	/* the workers' runs still going end (and are stored) first */
	session_exec_real_stop(x);
	free(names);
	rb_range_release(&range);
	return ret;
}

int bisection_run(struct bisection_run *r)
{
	const struct bisection_request *q = r->req;
	struct bisection_rec rec = { 0 };
	struct session_outcome_info res;
	char *key = bisection_key(q);
	int found, ret = -1;

	r->ended_before = false;
	r->status = r->json = NULL;
	r->culprit[0] = r->message[0] = '\0';
	if (precheck(r) < 0)
		goto out;
	if (r->key_extra) {
		char *k = xstrfmt("%s%s", key, r->key_extra);

		free(key);
		key = k;
	}
	found = open_bisection(r, key, &rec);
	if (found < 0)
		goto out;
	if (found) {
		r->id = rec.id;
		if (strcmp(rec.status, "running")) {
			r->ended_before = true;
			r->status = xstrdup(rec.status);
			if (rec.culprit)
				snprintf(r->culprit, sizeof(r->culprit), "%s",
					 rec.culprit);
			r->json = rec.result ? xstrdup(rec.result) : NULL;
			ret = 0;
			goto out;
		}
	}
	if (found && store_bisection_resume(q->ctx->st, r->id) < 0)
		goto out;
	if (r->opened && r->opened(r->arg, r->id, found) < 0)
		goto out;
	if (run_session(r, &res) < 0) {
		/* it stays resumable; list and report say it stopped, and why */
		char *why = xstrdup(rb_errmsg());

		if (store_bisection_stop(q->ctx->st, r->id, why) < 0)
			rb_warn("%s", rb_errmsg());
		rb_error("%s", why);
		free(why);
		goto out;
	}
	/*
	 * A LAVA job a killed robot of this bisection left queued or
	 * running (its row never opened again: the resumed session tested
	 * other commits there) is of no use now; the lab gets its device
	 * back. Nothing else of the bisection waits on a job any more.
	 */
	if (q->ctx->lab.lava.url) {
		size_t n;

		if (lava_cancel_waiting(&q->ctx->lab, q->ctx->st, r->id,
					"canceled at the end of its bisection: "
					"an earlier robot left it",
					&n) < 0)
			rb_warn("%s", rb_errmsg());
		else if (n)
			rb_notice("canceled %zu LAVA job%s an earlier robot "
				  "left",
				  n, RB_PLURAL(n));
	}
	r->status = xstrdup(session_status_name(res.status));
	if (res.status == SESSION_FOUND)
		snprintf(r->culprit, sizeof(r->culprit), "%s", res.culprit);
	snprintf(r->message, sizeof(r->message), "%s", res.message);
	r->json = bisection_result_json(q->ctx, r->id, q, &res);
	session_outcome_release(&res);
	if (!r->json || store_bisection_finish(
				q->ctx->st, r->id, r->status,
				r->culprit[0] ? r->culprit : NULL, r->json) < 0)
		goto out;
	ret = 0;
out:
	bisection_rec_release(&rec);
	free(key);
	return ret;
}

void bisection_run_release(struct bisection_run *r)
{
	free(r->status);
	free(r->json);
	r->status = r->json = NULL;
}
