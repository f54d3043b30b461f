// SPDX-License-Identifier: GPL-2.0-only
/*
 * A bisection's identity, result JSON, and the texts people read.
 */
#include <jansson.h>
#include <math.h>
#include <time.h>

#include "robot.h"
#include "bisection.h"
#include "context.h"
#include "repo.h"
#include "runner.h"
#include "sbuf.h"
#include "session.h"
#include "store.h"
#include "svec.h"

static int cmp_oid(const void *a, const void *b)
{
	return memcmp(a, b, RB_OID_RAWSZ);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *key_of(const struct bisection_request *r, bool with_metric)
{
	const struct job *j = r->ctx->job;
	struct sbuf sb = SBUF_INIT, name = SBUF_INIT;
	uint8_t(*g)[RB_OID_RAWSZ] = xcalloc(r->nr_goods, sizeof(*g));
	char hex[RB_OID_HEXSZ + 1];
	size_t i;

	memcpy(g, r->goods, r->nr_goods * sizeof(*g));
	qsort(g, r->nr_goods, sizeof(*g), cmp_oid);
	job_name(j, &name);
	sbuf_addf(&sb, "v1|%s|%s|%s|%s|%s|", r->ctx->lab.workdir, name.buf,
		  j->kconfig ? j->kconfig : "", j->compiler ? j->compiler : "",
		  j->rootfs ? j->rootfs : "");
	if (with_metric)
		sbuf_addf(&sb, "%s|%s|", r->metric,
			  r->threshold ? r->threshold : "midpoint");
	sbuf_addf(&sb, "%s|%s",
		  r->first_parent ? "first-parent" : "all-parents",
		  rb_oid_hex(r->bad, hex));
	for (i = 0; i < r->nr_goods; i++) {
		if (i && !memcmp(g[i], g[i - 1], RB_OID_RAWSZ))
			continue;
		sbuf_addf(&sb, "|^%s", rb_oid_hex(g[i], hex));
	}
	/* other hosts measure another way: another bisection (the lab's
	 * default, all of its hosts, keeps the key it always had) */
	if (r->ctx->nr_hosts != r->ctx->lab.nr_hosts) {
		const char **h = xcalloc(r->ctx->nr_hosts, sizeof(*h));

		for (i = 0; i < r->ctx->nr_hosts; i++)
			h[i] = r->ctx->hosts[i]->name;
		qsort(h, r->ctx->nr_hosts, sizeof(*h), cmp_str);
		for (i = 0; i < r->ctx->nr_hosts; i++)
			sbuf_addf(&sb, "%s%s", i ? "," : "|hosts=", h[i]);
		free(h);
	}
	free(g);
	sbuf_release(&name);
	return sbuf_detach(&sb);
}

char *bisection_key(const struct bisection_request *r)
{
	return key_of(r, true);
}

char *bisection_range_key(const struct bisection_request *r)
{
	return key_of(r, false);
}

char *bisection_hex_list(const uint8_t (*oids)[RB_OID_RAWSZ], size_t n)
{
	struct sbuf sb = SBUF_INIT;
	char hex[RB_OID_HEXSZ + 1];
	size_t i;

	sbuf_addch(&sb, '[');
	for (i = 0; i < n; i++)
		sbuf_addf(&sb, "%s\"%s\"", i ? ", " : "",
			  rb_oid_hex(oids[i], hex));
	sbuf_addch(&sb, ']');
	return sbuf_detach(&sb);
}

/*
 * The commit's samples of the metric in the bisection, those up to run id
 * upto (> 0: the runs a verdict was given on, its "last_run") and after
 * run id after (> 0: a confirmation's verdict, on its fresh runs), so that
 * the JSON, the mail and the log show the same runs for a step.
 */
static json_t *samples_of(struct store *st, int64_t id, const char *commit,
			  const char *metric, int64_t upto, int64_t after)
{
	struct run_sample *v;
	json_t *a = json_array();
	size_t n, i;

	if (store_bisection_samples(st, id, commit, metric, &v, &n) < 0)
		return a;
	for (i = 0; i < n; i++)
		if ((upto <= 0 || v[i].run_id <= upto) &&
		    (after <= 0 || v[i].run_id > after))
			json_array_append_new(a, json_real(v[i].value));
	run_samples_free(v, n);
	return a;
}

static int64_t last_run(json_t *detail)
{
	return (int64_t)json_number_value(json_object_get(detail, "last_run"));
}

/* A confirmation's verdict: the run id its fresh runs start after. */
static int64_t after_run(json_t *detail)
{
	return (int64_t)json_number_value(json_object_get(detail, "after_run"));
}

static json_t *commit_info(struct rb_repo *repo, const char *hex)
{
	struct rb_commit_info ci;
	uint8_t oid[RB_OID_RAWSZ];
	json_t *o;

	if (rb_oid_from_hex(oid, hex) < 0 ||
	    rb_repo_commit_info(repo, oid, &ci) < 0)
		return json_null();
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:i}", "subject",
		      ci.subject, "author_name", ci.author_name, "author_email",
		      ci.author_email, "committer_name", ci.committer_name,
		      "committer_email", ci.committer_email, "author_time",
		      (json_int_t)ci.author_time, "author_offset",
		      ci.author_offset);
	rb_commit_info_release(&ci);
	return o ? o : json_null();
}

static json_t *hex_array(char (*v)[RB_OID_HEXSZ + 1], size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

char *bisection_result_json(struct ctx *c, int64_t id,
			    const struct bisection_request *r,
			    const struct session_outcome_info *res)
{
	struct bisection_step_rec *st = NULL;
	struct bisection_rec rec = { 0 };
	char hex[RB_OID_HEXSZ + 1];
	int64_t runs, builds, boots, ahead, unused;
	double wait;
	json_t *root, *steps, *goods, *a;
	size_t n = 0, i;
	unsigned rounds = 0;
	char *text = NULL;

	if (store_bisection_counts(c->st, id, &runs, &builds, &boots) < 0 ||
	    store_bisection_build_counts(c->st, id, &ahead, &unused, &wait) <
		    0 ||
	    store_bisection_steps(c->st, id, &st, &n) < 0 ||
	    store_bisection_get(c->st, id, &rec) <= 0)
		goto out;
	goods = json_array();
	for (i = 0; i < r->nr_goods; i++)
		json_array_append_new(
			goods, json_string(rb_oid_hex(r->goods[i], hex)));
	steps = json_array();
	/* the anchors first: the endpoint measurements */
	rb_oid_hex(r->goods[0], hex);
	json_array_append_new(
		steps, json_pack("{s:s, s:s, s:b, s:o}", "commit", hex,
				 "verdict", "good", "anchor", 1, "samples",
				 samples_of(c->st, id, hex, r->metric, 0, 0)));
	rb_oid_hex(r->bad, hex);
	json_array_append_new(
		steps, json_pack("{s:s, s:s, s:b, s:o}", "commit", hex,
				 "verdict", "bad", "anchor", 1, "samples",
				 samples_of(c->st, id, hex, r->metric, 0, 0)));
	for (i = 0; i < n; i++) {
		json_t *s, *detail = NULL;

		if (!strcmp(st[i].kind, "round"))
			rounds++;
		if (strcmp(st[i].kind, "verdict") || !st[i].commit)
			continue;
		if (st[i].detail)
			detail = json_loads(st[i].detail, 0, NULL);
		s = json_pack("{s:s, s:s, s:s, s:o}", "commit", st[i].commit,
			      "verdict", st[i].verdict ? st[i].verdict : "",
			      "host", st[i].host ? st[i].host : "", "samples",
			      samples_of(c->st, id, st[i].commit, r->metric,
					 last_run(detail), after_run(detail)));
		if (detail)
			json_object_set_new(s, "detail", detail);
		json_array_append_new(steps, s);
	}
	root = json_object();
	json_object_set_new(root, "id", json_integer(id));
	json_object_set_new(root, "status",
			    json_string(session_status_name(res->status)));
	json_object_set_new(root, "culprit",
			    res->status == SESSION_FOUND ?
				    json_string(res->culprit) :
				    json_null());
	json_object_set_new(root, "parents",
			    hex_array(res->parents, res->parents_nr));
	json_object_set_new(root, "good", goods);
	json_object_set_new(root, "bad", json_string(rb_oid_hex(r->bad, hex)));
	json_object_set_new(root, "metric", json_string(r->metric));
	json_object_set_new(root, "direction", json_integer(res->direction));
	json_object_set_new(root, "threshold", json_real(res->threshold));
	json_object_set_new(root, "confidence",
			    res->status == SESSION_FOUND ?
				    json_real(res->confidence) :
				    json_null());
	/* what the confidence is made of: 1 - decided_steps x step_alpha x
	 * confirm_alpha, each as it was when the culprit was confirmed */
	json_object_set_new(root, "confidence_terms",
			    res->status == SESSION_FOUND ?
				    json_pack("{s:i, s:f, s:f}",
					      "decided_steps",
					      (int)res->decided, "step_alpha",
					      res->step_alpha, "confirm_alpha",
					      res->confirm_alpha) :
				    json_null());
	json_object_set_new(
		root, "share",
		res->status == SESSION_FOUND && res->has_share ?
			json_pack("{s:f, s:f, s:f, s:f, s:f}", "culprit",
				  res->share.share, "lo", res->share.lo, "hi",
				  res->share.hi, "before", res->share.before,
				  "after", res->share.after) :
			json_null());
	json_object_set_new(root, "runs", json_integer(runs));
	json_object_set_new(root, "builds", json_integer(builds));
	json_object_set_new(root, "boots", json_integer(boots));
	/* of the builds: made by the look-ahead's builders (the anchors' too,
	 * which a box waits for), and of those the ones no step
	 * used; the seconds the boxes waited for kernels */
	json_object_set_new(root, "builds_ahead", json_integer(ahead));
	json_object_set_new(root, "builds_ahead_unused", json_integer(unused));
	json_object_set_new(root, "build_wait_seconds", json_real(wait));
	json_object_set_new(root, "wall_seconds",
			    json_real(rb_now() - rec.created));
	json_object_set_new(root, "steps", steps);
	json_object_set_new(root, "mail", json_null());
	json_object_set_new(root, "message", json_string(res->message));
	json_object_set_new(root, "rounds", json_integer(rounds));
	json_object_set_new(root, "job", json_string(rec.job));
	a = res->status == SESSION_FOUND ? commit_info(c->repo, res->culprit) :
					   json_null();
	json_object_set_new(root, "culprit_info", a);
	json_object_set_new(root, "only_skipped",
			    hex_array(res->list, res->list_nr));
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(15));
	json_decref(root);
	if (!text)
		rb_error("cannot encode the result of bisection %lld",
			 (long long)id);
out:
	bisection_steps_free(st, n);
	bisection_rec_release(&rec);
	return text;
}

char *bisection_set_mail(const char *json, const char *mail_path)
{
	json_t *root = json_loads(json, 0, NULL);
	char *text;

	if (!root) {
		rb_error("cannot read a bisection result");
		return NULL;
	}
	json_object_set_new(root, "mail", json_string(mail_path));
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(15));
	json_decref(root);
	return text;
}

int bisection_exit_code(const char *status)
{
	if (!strcmp(status, "found"))
		return RB_EXIT_OK;
	if (!strcmp(status, "not-reproduced") ||
	    !strcmp(status, "only-skipped") || !strcmp(status, "inconclusive"))
		return RB_EXIT_INCONCLUSIVE;
	return RB_EXIT_FAIL;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/*
 * git's date format: "Thu Jan 1 00:00:05 2026 +0000", the day of the month
 * unpadded (strftime's %e pads it with a space, %d with a zero)
 */
static void git_date(char *buf, size_t n, int64_t t, int offset_min)
{
	time_t tt = (time_t)(t + (int64_t)offset_min * 60);
	struct tm tm;
	char wm[32], hms[32];

	gmtime_r(&tt, &tm);
	strftime(wm, sizeof(wm), "%a %b", &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S %Y", &tm);
	snprintf(buf, n, "%s %d %s %c%02d%02d", wm, tm.tm_mday, hms,
		 offset_min < 0 ? '-' : '+', abs(offset_min) / 60,
		 abs(offset_min) % 60);
}

/*
 * "12 builds, 5 of them by the look-ahead builders (2 unused); the boxes
 * waited 3m 10s for kernels"; "1 build, 0 of them ..." when there is one.
 * The builders ahead build what the look-ahead lists, the anchors while
 * nothing is measured yet too: a box may have waited for such a build, so
 * it is not said to be "ahead of need" or made "while the box measured".
 */
static void build_line(FILE *f, long long builds, long long ahead,
		       long long unused, double wait)
{
	long w = lround(wait);

	fprintf(f,
		"%lld build%s, %lld of them by the look-ahead builders (%lld "
		"unused); "
		"the boxes waited ",
		builds, RB_PLURAL(builds), ahead, unused);
	if (w >= 60)
		fprintf(f, "%ldm %lds", w / 60, w % 60);
	else
		fprintf(f, "%lds", w);
	fprintf(f, " for kernels");
}

static void print_build_line(FILE *f, json_t *root)
{
	build_line(
		f,
		(long long)json_integer_value(json_object_get(root, "builds")),
		(long long)json_integer_value(
			json_object_get(root, "builds_ahead")),
		(long long)json_integer_value(
			json_object_get(root, "builds_ahead_unused")),
		json_number_value(json_object_get(root, "build_wait_seconds")));
	fputc('\n', f);
}

void bisection_print_result(FILE *f, const char *json)
{
	json_t *root = json_loads(json, 0, NULL), *v;
	const char *status;
	size_t i;

	if (!root)
		return;
	status = jstr(root, "status");
	if (!strcmp(status, "found")) {
		json_t *ci = json_object_get(root, "culprit_info");
		const char *c = jstr(root, "culprit");
		char date[96] = "", conf[32];
		long long runs = (long long)json_integer_value(
				  json_object_get(root, "runs")),
			  builds = (long long)json_integer_value(
				  json_object_get(root, "builds")),
			  boots = (long long)json_integer_value(
				  json_object_get(root, "boots"));

		fprintf(f, "%s is the first bad commit\n", c);
		fprintf(f, "commit %s\n", c);
		if (json_is_object(ci)) {
			git_date(date, sizeof(date),
				 json_integer_value(
					 json_object_get(ci, "author_time")),
				 (int)json_integer_value(
					 json_object_get(ci, "author_offset")));
			fprintf(f, "Author: %s <%s>\nDate:   %s\n\n    %s\n",
				jstr(ci, "author_name"),
				jstr(ci, "author_email"), date,
				jstr(ci, "subject"));
		}
		fprintf(f, "\n%s: %s\n", jstr(root, "metric"),
			jstr(root, "message"));
		rb_fmt_confidence(
			conf, sizeof(conf),
			json_number_value(json_object_get(root, "confidence")));
		fprintf(f,
			"confidence %s, %lld run%s, %lld build%s, "
			"%lld boot%s\n",
			conf, runs, RB_PLURAL(runs), builds, RB_PLURAL(builds),
			boots, RB_PLURAL(boots));
		print_build_line(f, root);
	} else if (!strcmp(status, "only-skipped")) {
		fprintf(f, "There are only 'skip'ped commits left to test.\n"
			   "The first bad commit could be any of:\n");
		v = json_object_get(root, "only_skipped");
		for (i = 0; i < json_array_size(v); i++)
			fprintf(f, "%s\n",
				json_string_value(json_array_get(v, i)));
		fprintf(f, "We cannot bisect more!\n");
	} else {
		fprintf(f, "%s: %s\n", status, jstr(root, "message"));
	}
	if (json_is_string(json_object_get(root, "mail")))
		fprintf(f, "mail: %s\n", jstr(root, "mail"));
	json_decref(root);
}

/* "[<sha>] <subject>" as git bisect log writes it. */
static void commit_line(FILE *f, struct rb_repo *repo, const char *hex)
{
	struct rb_commit_info ci;
	uint8_t oid[RB_OID_RAWSZ];

	fprintf(f, "[%s]", hex);
	if (repo && rb_oid_from_hex(oid, hex) == 0 &&
	    rb_repo_commit_info(repo, oid, &ci) == 0) {
		fprintf(f, " %s", ci.subject);
		rb_commit_info_release(&ci);
	}
}

/*
 * A step's numbers: the runs its verdict was given on (those up to its
 * last run, the same the result JSON and the mail show) and the
 * threshold it was held against.
 */
static void log_verdict(FILE *f, struct store *st, int64_t id,
			const char *metric, const struct bisection_step_rec *s,
			json_t *d)
{
	json_t *a = samples_of(st, id, s->commit, metric, last_run(d),
			       after_run(d));
	size_t i, n = json_array_size(a);
	double sum = 0;

	for (i = 0; i < n; i++)
		sum += json_number_value(json_array_get(a, i));
	fprintf(f, " (mean %.6g of %zu %sruns on %s, threshold %.6g)",
		n ? sum / (double)n : NAN, n,
		json_is_true(json_object_get(d, "confirmation")) ?
			"confirmation " :
			"",
		s->host ? s->host : "?",
		json_number_value(json_object_get(d, "threshold")));
	json_decref(a);
}

/*
 * A confirmation's numbers in words (its detail: one object a parent), in
 * parentheses after the commit's subject as a verdict's are: " (parent
 * P ..., culprit ...; parent Q ...)".
 */
static void log_confirm(FILE *f, json_t *d)
{
	char pv[32];
	size_t i;

	if (!json_is_array(d)) {
		if (json_object_get(d, "why"))
			fprintf(f, " (%s)", jstr(d, "why"));
		return;
	}
	for (i = 0; i < json_array_size(d); i++) {
		json_t *e = json_array_get(d, i),
		       *ci = json_object_get(e, "ci_pct");

		fprintf(f,
			"%sparent %.12s %.6g (%lld runs), culprit %.6g "
			"(%lld runs), change %+.2f%%",
			i ? "; " : " (", jstr(e, "parent"),
			json_number_value(json_object_get(e, "parent_mean")),
			(long long)json_integer_value(
				json_object_get(e, "parent_runs")),
			json_number_value(json_object_get(e, "culprit_mean")),
			(long long)json_integer_value(
				json_object_get(e, "culprit_runs")),
			json_number_value(json_object_get(e, "change_pct")));
		if (json_array_size(ci) == 2)
			fprintf(f, " [%+.2f%%, %+.2f%%] (%.0f%% ci)",
				json_number_value(json_array_get(ci, 0)),
				json_number_value(json_array_get(ci, 1)),
				100 * json_number_value(
					      json_object_get(e, "level")));
		rb_fmt_p(pv, sizeof(pv),
			 json_number_value(json_object_get(e, "p")));
		fprintf(f, ", %s", pv);
		if (json_object_get(e, "parent_level"))
			fprintf(f, " (the test's levels %.6g -> %.6g)",
				json_number_value(
					json_object_get(e, "parent_level")),
				json_number_value(
					json_object_get(e, "culprit_level")));
	}
	if (json_array_size(d))
		fputc(')', f);
}

/* Add the strings of json array `key` of d to set. */
static void collect(struct svec *set, json_t *d, const char *key)
{
	json_t *a = json_object_get(d, key);
	size_t i;

	for (i = 0; i < json_array_size(a); i++) {
		const char *e = json_string_value(json_array_get(a, i));

		if (e && svec_find(set, e) < 0)
			svec_push(set, e);
	}
}

/*
 * Which verdict steps are dropped by a later step (a culprit that did not
 * confirm, or a contradiction: their "drop" and "reopen" lists)? Those do
 * not stand, and a later verdict of the commit, if any, does. One pass
 * from the last step back, each drop's detail parsed once: dropped[i] for
 * every step i.
 */
static void mark_dropped(const struct bisection_step_rec *s, size_t n,
			 bool *dropped)
{
	struct svec later = SVEC_INIT;
	size_t i;

	for (i = n; i-- > 0;) {
		dropped[i] = false;
		if (!strcmp(s[i].kind, "verdict") && s[i].commit) {
			dropped[i] = svec_find(&later, s[i].commit) >= 0;
		} else if ((!strcmp(s[i].kind, "unconfirmed") ||
			    !strcmp(s[i].kind, "contradiction")) &&
			   s[i].detail) {
			json_t *d = json_loads(s[i].detail, 0, NULL);

			collect(&later, d, "drop");
			collect(&later, d, "reopen");
			json_decref(d);
		}
	}
	svec_clear(&later);
}

int bisection_print_log(FILE *f, struct store *st, struct rb_repo *repo,
			int64_t id)
{
	struct bisection_rec rec = { 0 };
	struct bisection_step_rec *s;
	json_t *goods;
	bool *dropped;
	size_t n, i, k;
	int r = store_bisection_get(st, id, &rec);

	if (r <= 0) {
		if (!r)
			rb_error("no bisection %lld", (long long)id);
		return -1;
	}
	if (store_bisection_steps(st, id, &s, &n) < 0) {
		bisection_rec_release(&rec);
		return -1;
	}
	fprintf(f, "# bisection %lld: %s, %s\n# %s\n", (long long)id, rec.job,
		rec.metric, rec.command);
	goods = json_loads(rec.good, 0, NULL);
	fprintf(f, "# bad: ");
	commit_line(f, repo, rec.bad);
	fputc('\n', f);
	for (k = 0; k < json_array_size(goods); k++) {
		fprintf(f, "# good: ");
		commit_line(f, repo,
			    json_string_value(json_array_get(goods, k)));
		fputc('\n', f);
	}
	fprintf(f, "git bisect start '%s'", rec.bad);
	for (k = 0; k < json_array_size(goods); k++)
		fprintf(f, " '%s'",
			json_string_value(json_array_get(goods, k)));
	fputc('\n', f);
	json_decref(goods);
	dropped = xcalloc(n + 1, sizeof(*dropped));
	mark_dropped(s, n, dropped);
	for (i = 0; i < n; i++) {
		json_t *d = s[i].detail ? json_loads(s[i].detail, 0, NULL) :
					  NULL;

		if (!strcmp(s[i].kind, "endpoint")) {
			fprintf(f,
				"# endpoints %s%s: good %.6g (%lld runs), "
				"bad %.6g (%lld runs), %+.1f%%\n",
				s[i].verdict,
				json_is_true(json_object_get(d, "again")) ?
					" (asked again)" :
					"",
				json_number_value(
					json_object_get(d, "good_mean")),
				(long long)json_integer_value(
					json_object_get(d, "good_runs")),
				json_number_value(
					json_object_get(d, "bad_mean")),
				(long long)json_integer_value(
					json_object_get(d, "bad_runs")),
				json_number_value(
					json_object_get(d, "change_pct")));
		} else if (!strcmp(s[i].kind, "verdict") && s[i].commit) {
			const char *v = s[i].verdict;
			bool skip = strcmp(v, "good") && strcmp(v, "bad");

			fprintf(f, "# %s: ", v);
			commit_line(f, repo, s[i].commit);
			if (json_object_get(d, "mean"))
				log_verdict(f, st, id, rec.metric, &s[i], d);
			else if (json_object_get(d, "why"))
				fprintf(f, " (%s)", jstr(d, "why"));
			/* a verdict dropped later stays out of a replay */
			fprintf(f, "\n%sgit bisect %s %s%s\n",
				dropped[i] ? "# " : "", skip ? "skip" : v,
				s[i].commit,
				dropped[i] ? " (dropped later)" : "");
		} else if (!strcmp(s[i].kind, "confirmed") ||
			   !strcmp(s[i].kind, "unconfirmed") ||
			   !strcmp(s[i].kind, "contradiction")) {
			fprintf(f, "# %s: ", s[i].kind);
			commit_line(f, repo, s[i].commit);
			log_confirm(f, d);
			fputc('\n', f);
		} else if (!strcmp(s[i].kind, "finish")) {
			if (rec.culprit) {
				fprintf(f, "# first bad commit: ");
				commit_line(f, repo, rec.culprit);
				fputc('\n', f);
			} else {
				fprintf(f, "# %s\n", s[i].verdict);
			}
		}
		json_decref(d);
	}
	{
		int64_t runs, builds, boots, ahead, unused;
		double wait;

		if (store_bisection_counts(st, id, &runs, &builds, &boots) ==
			    0 &&
		    store_bisection_build_counts(st, id, &ahead, &unused,
						 &wait) == 0) {
			fprintf(f, "# %lld run%s, %lld boot%s, ",
				(long long)runs, RB_PLURAL(runs),
				(long long)boots, RB_PLURAL(boots));
			build_line(f, (long long)builds, (long long)ahead,
				   (long long)unused, wait);
			fputc('\n', f);
		}
	}
	free(dropped);
	bisection_steps_free(s, n);
	bisection_rec_release(&rec);
	return 0;
}
