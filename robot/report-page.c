// SPDX-License-Identifier: GPL-2.0-only
/*
 * The evidence page of a found bisection (report-page.h): what the store
 * and the repository know, handed to the pure renderer (report-html.c).
 */
#include <jansson.h>
#include <math.h>

#include "robot.h"
#include "context.h"
#include "monitor.h"
#include "oid.h"
#include "record.h"
#include "repo.h"
#include "report-html.h"
#include "report-page.h"
#include "result.h"
#include "sbuf.h"
#include "stats.h"
#include "store.h"
#include "svec.h"

/* At most this many monitor stats a monitor, the largest changes. */
#define PAGE_MONITOR_STATS 6

struct page {
	struct rh_commit *commits;
	size_t nr, alloc;
	struct rh_run **runs; /* per commit, owned */
	struct commit_counts *counts; /* per commit, owned */
	struct svec strings; /* subjects, hosts, dirs */
	struct rh_stat *mon;
	size_t mon_nr;
	/* the confirmations' runs: run ids in (lo, hi] of a window */
	struct confirm_window {
		int64_t lo, hi;
	} * confirm;
	size_t confirm_nr, confirm_alloc;
};

static struct rh_commit *page_commit(struct page *pg, const char *sha)
{
	size_t i;

	for (i = 0; i < pg->nr; i++)
		if (!strcmp(pg->commits[i].sha, sha))
			return &pg->commits[i];
	RB_ALLOC_GROW(pg->commits, pg->nr + 1, pg->alloc);
	memset(&pg->commits[pg->nr], 0, sizeof(pg->commits[0]));
	pg->commits[pg->nr].sha = svec_push(&pg->strings, sha);
	return &pg->commits[pg->nr++];
}

/* The commits of the result's steps, the anchors first, in step order. */
static void page_steps(struct page *pg, json_t *res)
{
	json_t *a = json_object_get(res, "steps"), *s;
	size_t i;
	unsigned order = 0;

	json_array_foreach(a, i, s)
	{
		const char *sha =
			json_string_value(json_object_get(s, "commit"));
		const char *v =
			json_string_value(json_object_get(s, "verdict"));
		json_t *d = json_object_get(s, "detail");
		struct rh_commit *c;

		if (!sha || strlen(sha) != RB_OID_HEXSZ)
			continue;
		c = page_commit(pg, sha);
		c->verdict = v ? svec_push(&pg->strings, v) : NULL;
		if (json_is_true(json_object_get(s, "anchor"))) {
			c->anchor = true;
			continue;
		}
		c->step = ++order;
		if (json_is_true(json_object_get(d, "weak")))
			c->verdict = "weak";
		c->has_llr = json_is_number(json_object_get(d, "llr"));
		c->llr = json_number_value(json_object_get(d, "llr"));
		c->bound = json_number_value(json_object_get(d, "bound"));
		c->sure = json_is_true(json_object_get(d, "sure"));
	}
}

/*
 * Every confirmation's runs, the failed ones' too: from its confirm-start
 * (the run id it starts after) to the unconfirmed step that ends it (the
 * run id its drop counts from), or to the end. Only the confirmation
 * measures in between: its members, the anchors, and a member decided
 * the other way (a verdict of its own, on those runs).
 */
static int page_confirm_windows(struct page *pg, struct ctx *c, int64_t id)
{
	struct bisection_step_rec *st = NULL;
	size_t n = 0, i;
	bool open = false;

	if (store_bisection_steps(c->st, id, &st, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int64_t a = record_detail_int(st[i].detail, "after_run", -1);

		if (!strcmp(st[i].kind, "confirm-start") && a >= 0) {
			RB_ALLOC_GROW(pg->confirm, pg->confirm_nr + 1,
				      pg->confirm_alloc);
			pg->confirm[pg->confirm_nr].lo = a;
			pg->confirm[pg->confirm_nr++].hi = INT64_MAX;
			open = true;
		} else if (open && !strcmp(st[i].kind, "unconfirmed")) {
			pg->confirm[pg->confirm_nr - 1].hi = a >= 0 ? a :
								      INT64_MAX;
			open = false;
		}
	}
	bisection_steps_free(st, n);
	return 0;
}

static bool page_confirm_run(const struct page *pg, int64_t run_id)
{
	size_t i;

	for (i = 0; i < pg->confirm_nr; i++)
		if (run_id > pg->confirm[i].lo && run_id <= pg->confirm[i].hi)
			return true;
	return false;
}

/* Each commit's runs of the metric, counts, logs and subject. */
static int page_runs(struct page *pg, struct ctx *c, int64_t id,
		     const char *metric)
{
	size_t i, k;

	pg->runs = xcalloc(pg->nr, sizeof(*pg->runs));
	pg->counts = xcalloc(pg->nr, sizeof(*pg->counts));
	for (i = 0; i < pg->nr; i++) {
		struct rh_commit *cm = &pg->commits[i];
		struct run_stats *rs;
		struct rb_commit_info ci;
		uint8_t oid[RB_OID_RAWSZ];
		size_t n;

		if (store_bisection_run_stats(c->st, id, cm->sha, NULL, &rs,
					      &n) < 0)
			return -1;
		pg->runs[i] = xcalloc(n + 1, sizeof(**pg->runs));
		for (k = 0; k < n; k++) {
			const double *v = statset_get(&rs[k].stats, metric);
			struct rh_run *u = &pg->runs[i][cm->runs_nr];

			if (!v)
				continue;
			u->id = rs[k].run_id;
			u->value = *v;
			u->host = rs[k].host ?
					  svec_push(&pg->strings, rs[k].host) :
					  NULL;
			u->dir = rs[k].result_dir ?
					 svec_push(&pg->strings,
						   rs[k].result_dir) :
					 NULL;
			u->confirm = page_confirm_run(pg, rs[k].run_id);
			cm->runs_nr++;
		}
		cm->runs = pg->runs[i];
		run_stats_free(rs, n);
		if (store_bisection_commit_counts(c->st, id, cm->sha,
						  &pg->counts[i]) < 0)
			return -1;
		cm->builds = (unsigned)pg->counts[i].builds;
		cm->boots = (unsigned)pg->counts[i].boots;
		cm->boots_failed = (unsigned)pg->counts[i].boots_failed;
		cm->runs_failed = (unsigned)pg->counts[i].runs_failed;
		cm->build_log = pg->counts[i].build_log;
		cm->boot_log = pg->counts[i].boot_log;
		if (rb_oid_from_hex(oid, cm->sha) == 0 &&
		    rb_repo_commit_info(c->repo, oid, &ci) == 0) {
			cm->subject = svec_push(&pg->strings, ci.subject);
			rb_commit_info_release(&ci);
		}
	}
	return 0;
}

/*
 * Ancestors before descendants: a commit's place is how many of the
 * others are its ancestors (the tested commits of one range are few);
 * ties keep the order they were tested in.
 */
static int page_order(struct page *pg, struct ctx *c)
{
	size_t n = pg->nr, i, j;
	size_t *rank = xcalloc(n, sizeof(*rank));
	uint8_t(*oids)[RB_OID_RAWSZ] = xcalloc(n + 1, sizeof(*oids));
	struct rh_commit *sorted;
	size_t want;
	int ret = -1;

	for (i = 0; i < n; i++)
		if (rb_oid_from_hex(oids[i], pg->commits[i].sha) < 0)
			goto out;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int r;

			if (i == j)
				continue;
			r = rb_repo_is_ancestor(c->repo, oids[j], oids[i]);
			if (r < 0)
				goto out;
			rank[i] += r > 0;
		}
	sorted = xcalloc(n + 1, sizeof(*sorted));
	j = 0;
	for (want = 0; j < n && want < n; want++)
		for (i = 0; i < n; i++)
			if (rank[i] == want)
				sorted[j++] = pg->commits[i];
	/* rank < n always: every commit is placed once */
	memcpy(pg->commits, sorted, n * sizeof(*sorted));
	free(sorted);
	ret = 0;
out:
	free(rank);
	free(oids);
	return ret;
}

static bool monitor_stat(const char *name)
{
	size_t i, l;

	for (i = 0; i < monitor_table_nr; i++) {
		l = strlen(monitor_table[i]->name);
		if (!strncmp(name, monitor_table[i]->name, l) && name[l] == '.')
			return true;
	}
	return false;
}

static double stat_mean(const struct run_stats *rs, size_t n, const char *name,
			size_t *count)
{
	double s = 0;
	size_t k;

	*count = 0;
	for (k = 0; k < n; k++) {
		const double *v = statset_get(&rs[k].stats, name);

		if (v) {
			s += *v;
			(*count)++;
		}
	}
	return *count ? s / (double)*count : NAN;
}

static int cmp_change(const void *a, const void *b)
{
	const struct rh_stat *x = a, *y = b;
	double cx = fabs(x->culprit - x->parent) / fabs(x->parent);
	double cy = fabs(y->culprit - y->parent) / fabs(y->parent);

	if (strcspn(x->name, ".") != strcspn(y->name, ".") ||
	    strncmp(x->name, y->name, strcspn(x->name, ".")))
		return strcmp(x->name, y->name);
	return cx < cy ? 1 : cx > cy ? -1 : strcmp(x->name, y->name);
}

/* The runs after run id `after` of v (in run id order): their index. */
static size_t runs_after(const struct run_stats *v, size_t n, int64_t after)
{
	size_t i;

	for (i = 0; i < n && v[i].run_id <= after; i++)
		;
	return i;
}

/*
 * The monitors' stats of the culprit against its parent: per monitor the
 * ones that changed most (both sides measured, the parent's mean not 0),
 * on the runs the compare table shows: the confirmation's (conf) when
 * the mail has one, else all of them.
 */
static int page_monitors(struct page *pg, struct ctx *c, int64_t id,
			 const char *culprit, const char *parent,
			 const struct rb_report_confirm *conf)
{
	struct run_stats *rc = NULL, *rp = NULL;
	size_t nc = 0, np = 0, i, kept = 0, per = 0, fc = 0, fp = 0;
	const char *host = conf && conf->host ? conf->host : NULL;
	struct rh_stat *all;
	int ret = -1;

	if (host && *conf->parent.sha)
		parent = conf->parent.sha;
	if (!culprit || !parent ||
	    store_bisection_run_stats(c->st, id, culprit, host, &rc, &nc) < 0 ||
	    store_bisection_run_stats(c->st, id, parent, host, &rp, &np) < 0)
		goto out;
	if (host) {
		fc = runs_after(rc, nc, conf->after_run);
		fp = runs_after(rp, np, conf->after_run);
	}
	all = xcalloc(fc < nc ? rc[fc].stats.nr + 1 : 1, sizeof(*all));
	for (i = 0; fc < nc && i < rc[fc].stats.nr; i++) {
		const char *name = rc[fc].stats.v[i].name;
		size_t a, b;
		double mc, mp;

		if (!monitor_stat(name))
			continue;
		mc = stat_mean(rc + fc, nc - fc, name, &a);
		mp = stat_mean(rp + fp, np - fp, name, &b);
		if (!a || !b || mp == 0 || !isfinite(mc) || !isfinite(mp))
			continue;
		all[kept++] = (struct rh_stat){ svec_push(&pg->strings, name),
						mp, mc };
	}
	qsort(all, kept, sizeof(*all), cmp_change);
	pg->mon = xcalloc(kept + 1, sizeof(*pg->mon));
	for (i = 0; i < kept; i++) {
		size_t pre = strcspn(all[i].name, ".");

		per = i && !strncmp(all[i].name, all[i - 1].name, pre) &&
				      strcspn(all[i - 1].name, ".") == pre ?
			      per + 1 :
			      0;
		if (per < PAGE_MONITOR_STATS)
			pg->mon[pg->mon_nr++] = all[i];
	}
	free(all);
	ret = 0;
out:
	run_stats_free(rc, nc);
	run_stats_free(rp, np);
	return ret;
}

static void page_release(struct page *pg)
{
	size_t i;

	for (i = 0; i < pg->nr; i++) {
		if (pg->runs)
			free(pg->runs[i]);
		if (pg->counts) {
			free(pg->counts[i].build_log);
			free(pg->counts[i].boot_log);
		}
	}
	free(pg->runs);
	free(pg->counts);
	free(pg->commits);
	free(pg->mon);
	free(pg->confirm);
	svec_clear(&pg->strings);
}

int report_direction(const char *metric, json_t *res)
{
	int d = metric ? stats_direction(metric) : 0;

	if (!d)
		d = (int)json_integer_value(json_object_get(res, "direction"));
	return d > 0 ? 1 : d < 0 ? -1 : 0;
}

int report_page_write(struct ctx *c, const struct bisection_rec *rec,
		      json_t *res, const struct rb_report *mail,
		      const char *path)
{
	struct page pg = { .strings = SVEC_INIT };
	struct rh_report r;
	struct sbuf out = SBUF_INIT;
	struct svec ran = SVEC_INIT;
	size_t i;
	const char *parent = json_string_value(
		json_array_get(json_object_get(res, "parents"), 0));
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.id = rec->id;
	r.job = rec->job;
	r.metric = rec->metric;
	r.status = rec->status;
	r.tree = c->lab.tree.name;
	r.branch = c->lab.tree.branch;
	r.direction = report_direction(rec->metric, res);
	r.threshold =
		json_is_number(json_object_get(res, "threshold")) ?
			json_number_value(json_object_get(res, "threshold")) :
			NAN;
	r.good = json_string_value(
		json_array_get(json_object_get(res, "good"), 0));
	r.bad = json_string_value(json_object_get(res, "bad"));
	r.culprit = rec->culprit;
	r.parent = parent;
	r.confidence = mail->confidence;
	r.has_share = mail->has_share;
	r.share = mail->share;
	r.share_lo = mail->share_lo;
	r.share_hi = mail->share_hi;
	r.confirm = mail->confirm;
	r.table = mail->table;
	r.has_cost = mail->has_cost;
	r.cost = mail->cost;
	r.reproduce = mail->reproduce;
	r.mail = mail->message_id;
	r.culprit_subject = mail->subject;

	page_steps(&pg, res);
	if (parent && strlen(parent) == RB_OID_HEXSZ)
		page_commit(&pg, parent);
	/* and any other commit the bisection ran (a dropped verdict's) */
	if (store_bisection_commits(c->st, rec->id, &ran) < 0)
		goto out;
	for (i = 0; i < ran.nr; i++)
		page_commit(&pg, ran.v[i]);
	if (page_confirm_windows(&pg, c, rec->id) < 0 ||
	    page_order(&pg, c) < 0 ||
	    page_runs(&pg, c, rec->id, rec->metric) < 0 ||
	    page_monitors(&pg, c, rec->id, rec->culprit, parent,
			  mail->confirm) < 0)
		goto out;
	r.commits = pg.commits;
	r.commits_nr = pg.nr;
	r.monitors = pg.mon;
	r.monitors_nr = pg.mon_nr;
	if (rh_render(&out, &r) < 0 ||
	    rb_write_file_atomic(path, out.buf, out.len) < 0)
		goto out;
	ret = 0;
out:
	sbuf_release(&out);
	svec_clear(&ran);
	page_release(&pg);
	return ret;
}
