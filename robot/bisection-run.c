// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bisection driver: find or create by key, run the session with the
 * real ops, finish in the store.
 */
#include "robot.h"
#include "bisection.h"
#include "context.h"
#include "job.h"
#include "repo.h"
#include "sbuf.h"
#include "session-exec.h"
#include "session.h"
#include "store.h"

/* Find the bisection of the key or create it. 1 found, 0 created, -1. */
static int open_bisection(struct bisection_run *r, const char *key,
			  struct bisection_rec *rec)
{
	const struct bisection_request *q = r->req;
	char bad_hex[RB_OID_HEXSZ + 1];
	struct sbuf jn = SBUF_INIT;
	char *goods;
	int found, ret;

	found = store_bisection_by_key(q->ctx->st, key, rec);
	if (found)
		return found;
	goods = bisection_hex_list(q->goods, q->nr_goods);
	rb_oid_hex(q->bad, bad_hex);
	job_name(q->ctx->job, &jn);
	ret = store_bisection_create(q->ctx->st, key, jn.buf, q->metric, goods,
				     bad_hex, r->command ? r->command : "",
				     &r->id);
	free(goods);
	sbuf_release(&jn);
	return ret;
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
	if (r->opened && r->opened(r->arg, r->id, found) < 0)
		goto out;
	if (run_session(r, &res) < 0)
		goto out;
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
