// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nightly loop's tables on a real SQLite store (nightly-store.c).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "robot.h"
#include "history.h"
#include "nightly-store.h"
#include "store.h"
#include "svec.h"

static char dir[64];
static struct store *st;

#define SHA(c)                                                                \
	c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
		c c c c c
#define A SHA("a")
#define B SHA("b")
#define C SHA("c")
#define X SHA("e")

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/robot-nstore-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
}

static void teardown(void)
{
	store_close(st);
	rb_remove_tree(dir);
}

TestSuite(nightly_store, .init = setup, .fini = teardown);

static int64_t new_cycle(const char *head, const char *prev)
{
	int64_t id;

	cr_assert_eq(nstore_cycle_create(st, "linus", "master", "git://x/y",
					 head, prev, &id),
		     0, "%s", rb_errmsg());
	return id;
}

static int64_t new_job(int64_t cycle, const char *head, int seq)
{
	struct nightly_job_rec j = { 0 };
	int64_t id;

	j.cycle_id = cycle;
	j.seq = seq;
	j.job = (char *)"stress-ng/1-mmapaddr-1s";
	j.job_file = (char *)"/jobs/toy.yaml";
	j.metric = (char *)"m.ops_per_sec";
	j.threshold = (char *)"5%";
	j.host = (char *)"box1";
	j.hosts = (char *)"box1,box2";
	j.head = (char *)head;
	cr_assert_eq(nstore_job_add(st, &j, &id), 0, "%s", rb_errmsg());
	return id;
}

Test(nightly_store, schema_version)
{
	cr_expect_eq(store_schema_version(st), 9);
}

Test(nightly_store, cycles_running_then_done)
{
	struct nightly_cycle_rec c;
	int64_t one, two;

	cr_expect_eq(nstore_cycle_running(st, "linus", "master", &c), 0);
	cr_expect_eq(nstore_cycle_last_done(st, "linus", "master", &c), 0);
	one = new_cycle(A, NULL);
	cr_assert_eq(nstore_cycle_running(st, "linus", "master", &c), 1);
	cr_expect_eq(c.id, one);
	cr_expect_str_eq(c.head, A);
	cr_expect_null(c.previous);
	cr_expect_str_eq(c.status, "running");
	cr_expect_str_eq(c.url, "git://x/y");
	nightly_cycle_rec_release(&c);
	/* another branch is another series */
	cr_expect_eq(nstore_cycle_running(st, "linus", "next", &c), 0);
	cr_assert_eq(nstore_cycle_finish(st, one, "1 head tested"), 0);
	cr_expect_eq(nstore_cycle_running(st, "linus", "master", &c), 0);
	two = new_cycle(B, A);
	cr_assert_eq(nstore_cycle_finish(st, two, "x"), 0);
	cr_assert_eq(nstore_cycle_last_done(st, "linus", "master", &c), 1);
	cr_expect_eq(c.id, two);
	cr_expect_str_eq(c.previous, A);
	cr_expect_str_eq(c.summary, "x");
	cr_expect_gt(c.finished, 0);
	nightly_cycle_rec_release(&c);
}

Test(nightly_store, jobs_keep_their_state)
{
	struct nightly_job_rec *v;
	size_t n;
	int64_t cy = new_cycle(A, NULL);

	new_job(cy, A, 1);
	new_job(cy, A, 0);
	cr_assert_eq(nstore_jobs(st, cy, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_eq(v[0].seq, 0);
	cr_expect_str_eq(v[0].state, "measure");
	cr_expect_null(v[0].baseline);
	cr_expect_str_eq(v[0].hosts, "box1,box2");
	nightly_job_set(&v[0].baseline, "");
	nightly_job_set(&v[0].baseline_name, "none");
	nightly_job_set(&v[0].state, "act");
	nightly_job_set(&v[0].verdict, "regression");
	nightly_job_set(&v[0].detection, "{\"change_pct\": -40}");
	v[0].bisection_id = 0;
	cr_assert_eq(nstore_job_update(st, &v[0]), 0, "%s", rb_errmsg());
	nightly_job_recs_free(v, n);
	cr_assert_eq(nstore_jobs(st, cy, &v, &n), 0);
	cr_expect_str_eq(v[0].state, "act");
	cr_expect_str_eq(v[0].baseline, "");
	cr_expect_str_eq(v[0].verdict, "regression");
	cr_expect_str_eq(v[1].state, "measure");
	nightly_job_recs_free(v, n);
	/* (cycle, seq) is unique */
	{
		struct nightly_job_rec j = { 0 };
		int64_t id;

		j.cycle_id = cy;
		j.seq = 0;
		j.job = j.job_file = j.metric = j.threshold = j.host = j.hosts =
			j.head = (char *)"x";
		cr_expect_eq(nstore_job_add(st, &j, &id), -1);
	}
}

Test(nightly_store, history_series)
{
	struct nightly_summary s = { "m.ops_per_sec", 3, 100, 2, 98, 102 };
	struct nightly_summary s2 = { "m.ops_per_sec", 3, 60, 1, 59, 61 };
	struct nightly_summary other = { "m.other", 3, 7, 0, 7, 7 };
	struct nightly_job_rec *v;
	struct history h = HISTORY_INIT;
	size_t n;
	int64_t c1 = new_cycle(A, NULL), c2;

	new_job(c1, A, 0);
	cr_assert_eq(nstore_history_put(st, "stress-ng/1-mmapaddr-1s", A,
					"box1", c1, &s),
		     0);
	cr_assert_eq(nstore_history_put(st, "stress-ng/1-mmapaddr-1s", A,
					"box1", c1, &other),
		     0);
	cr_expect_eq(nstore_history_has(st, "stress-ng/1-mmapaddr-1s", A,
					"box1"),
		     1);
	cr_expect_eq(nstore_history_has(st, "stress-ng/1-mmapaddr-1s", A,
					"box2"),
		     0);
	cr_assert_eq(nstore_jobs(st, c1, &v, &n), 0);
	nightly_job_set(&v[0].state, "done");
	nightly_job_set(&v[0].verdict, "first");
	nightly_job_set(&v[0].baseline, "");
	cr_assert_eq(nstore_job_update(st, &v[0]), 0);
	nightly_job_recs_free(v, n);
	cr_assert_eq(nstore_cycle_finish(st, c1, "s"), 0);
	c2 = new_cycle(B, A);
	new_job(c2, B, 0);
	cr_assert_eq(nstore_history_put(st, "stress-ng/1-mmapaddr-1s", B,
					"box1", c2, &s2),
		     0);
	/* measured again later: new numbers, the first cycle kept */
	s.n = 5;
	s.mean = 101;
	cr_assert_eq(nstore_history_put(st, "stress-ng/1-mmapaddr-1s", A,
					"box1", c2, &s),
		     0);
	cr_assert_eq(nstore_jobs(st, c2, &v, &n), 0);
	nightly_job_set(&v[0].state, "done");
	nightly_job_set(&v[0].verdict, "regression");
	nightly_job_set(&v[0].baseline, A);
	nightly_job_set(&v[0].baseline_name, "previous head");
	cr_assert_eq(nstore_job_update(st, &v[0]), 0);
	nightly_job_recs_free(v, n);

	cr_assert_eq(nstore_history_series(st, "stress-ng/1-mmapaddr-1s", NULL,
					   &h),
		     0, "%s", rb_errmsg());
	cr_expect_str_eq(h.stat, "m.ops_per_sec", "the job's metric");
	cr_assert_eq(h.nr, 2);
	cr_expect_str_eq(h.v[0].commit, A);
	cr_expect_eq(h.v[0].n, 5);
	cr_expect_float_eq(h.v[0].mean, 101, 1e-9);
	cr_expect_null(h.v[0].baseline);
	cr_expect_str_eq(h.v[1].verdict, "regression");
	cr_expect_str_eq(h.v[1].baseline, A);
	cr_expect(h.v[1].has_baseline_mean);
	cr_expect_float_eq(history_change_pct(&h.v[1]),
			   100.0 * (60.0 / 101 - 1), 1e-9);
	history_release(&h);
	cr_assert_eq(nstore_history_series(st, "stress-ng/1-mmapaddr-1s",
					   "m.other", &h),
		     0);
	cr_expect_eq(h.v[0].n, 3);
	cr_expect_eq(h.v[1].n, 0, "no m.other at B");
	history_release(&h);
	/* a job the nightly never ran: no stat */
	cr_assert_eq(nstore_history_series(st, "nope", NULL, &h), 0);
	cr_expect_null(h.stat);
	cr_expect_eq(h.nr, 0);
	history_release(&h);
}

/* The stats robot history --stat may name: the summaries and the metric. */
Test(nightly_store, history_stats)
{
	struct nightly_summary s = { "m.other", 3, 7, 0, 7, 7 };
	struct svec v = SVEC_INIT;
	int64_t c1 = new_cycle(A, NULL);

	cr_assert_eq(nstore_history_stats(st, "stress-ng/1-mmapaddr-1s", &v), 0,
		     "%s", rb_errmsg());
	cr_expect_eq(v.nr, 0, "no history yet");
	/* judged by m.ops_per_sec, whose runs all failed: no summary */
	new_job(c1, A, 0);
	cr_assert_eq(nstore_history_put(st, "stress-ng/1-mmapaddr-1s", A,
					"box1", c1, &s),
		     0);
	cr_assert_eq(nstore_history_put(st, "another/job", A, "box1", c1,
					&(struct nightly_summary){
						"m.third", 1, 1, 0, 1, 1 }),
		     0);
	cr_assert_eq(nstore_history_stats(st, "stress-ng/1-mmapaddr-1s", &v), 0,
		     "%s", rb_errmsg());
	cr_assert_eq(v.nr, 2);
	cr_expect_str_eq(v.v[0], "m.ops_per_sec");
	cr_expect_str_eq(v.v[1], "m.other");
	svec_clear(&v);
}

Test(nightly_store, reports_and_still)
{
	struct nightly_report_rec r = { 0 }, *v, one;
	struct nightly_still_rec *sv;
	size_t n;
	int64_t id, id2;

	r.job = (char *)"j";
	r.metric = (char *)"m";
	r.kind = (char *)"regression";
	r.culprit = (char *)C;
	r.head = (char *)B;
	r.bisection_id = 0;
	cr_assert_eq(nstore_report_add(st, &r, &id), 0, "%s", rb_errmsg());
	/* the same culprit again: the same report, now with its mail */
	r.mail = (char *)"mail-1";
	cr_assert_eq(nstore_report_add(st, &r, &id2), 0);
	cr_expect_eq(id, id2);
	cr_assert_eq(nstore_reports_open(st, "j", "m", "regression", &v, &n),
		     0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].mail, "mail-1");
	cr_expect_str_eq(v[0].status, "open");
	nightly_report_recs_free(v, n);
	cr_assert_eq(nstore_reports_open(st, "j", "m", "improvement", &v, &n),
		     0);
	cr_expect_eq(n, 0);
	nightly_report_recs_free(v, n);
	cr_expect_eq(nstore_report_of_bisection(st, 42, &one), 0);

	cr_expect_eq(nstore_still_add(st, id, "linus", "master", X, 0, -40.5),
		     1);
	cr_expect_eq(nstore_still_add(st, id, "linus", "master", X, 0, -41), 0,
		     "known");
	cr_expect_eq(nstore_still_add(st, id, "linus", "master", A, 0, NAN), 1);
	cr_assert_eq(nstore_still_set_mail(st, id, A, "mail-2"), 0);
	cr_assert_eq(nstore_still_list(st, id, &sv, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(sv[0].head, X);
	cr_expect_float_eq(sv[0].change_pct, -40.5, 1e-9);
	cr_expect_null(sv[0].mail);
	cr_expect(isnan(sv[1].change_pct));
	cr_expect_str_eq(sv[1].mail, "mail-2");
	nightly_still_recs_free(sv, n);

	cr_assert_eq(nstore_report_gone(st, id, A), 0);
	cr_assert_eq(nstore_reports_open(st, "j", "m", NULL, &v, &n), 0);
	cr_expect_eq(n, 0);
	nightly_report_recs_free(v, n);
}

Test(nightly_store, key_summaries)
{
	static const struct run_key key = {
		.testcase = "stress-ng",
		.path_params = "1-mmapaddr-1s",
		.host = "box1",
		.rootfs = "default",
		.kconfig = "none",
		.compiler = "gcc",
		.commit = A,
	};
	struct nightly_summary *v;
	size_t n;
	int64_t run;
	int i;

	for (i = 0; i < 3; i++) {
		struct statset s = STATSET_INIT;

		statset_set(&s, "a.ops_per_sec", 10.0 * (i + 1));
		if (i)
			statset_set(&s, "b.time", 5);
		cr_assert_eq(store_run_start(st, &key, i, 0, "/r", &run), 0);
		cr_assert_eq(store_run_finish(st, run,
					      i == 2 ? RUN_FAILED : RUN_OK,
					      NULL, &s),
			     0);
		statset_release(&s);
	}
	cr_assert_eq(nstore_key_summaries(st, &key, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(v[0].stat, "a.ops_per_sec");
	cr_expect_eq(v[0].n, 2, "the failed run does not count");
	cr_expect_float_eq(v[0].mean, 15, 1e-9);
	cr_expect_float_eq(v[0].min, 10, 1e-9);
	cr_expect_float_eq(v[0].max, 20, 1e-9);
	cr_expect_str_eq(v[1].stat, "b.time");
	cr_expect_eq(v[1].n, 1);
	nightly_summaries_free(v, n);
}

Test(nightly_store, change_points_recorded_once)
{
	struct nightly_change_rec c = { 0 }, *v = NULL;
	int64_t cyc = new_cycle(B, A), id1, id2;
	size_t n = 0;

	c.job = (char *)"stress-ng/1-mmapaddr-1s";
	c.metric = (char *)"m.ops_per_sec";
	c.host = (char *)"box1";
	c.at = (char *)B;
	c.good = (char *)A;
	c.bad = (char *)C;
	c.kind = (char *)"regression";
	c.change_pct = -12.5;
	c.p = 0.001;
	c.cycle_id = cyc;
	cr_assert_eq(nstore_change_add(st, &c, &id1), 0, "%s", rb_errmsg());
	/* the same heads again (a resumed robot): the same row */
	cr_assert_eq(nstore_change_add(st, &c, &id2), 0, "%s", rb_errmsg());
	cr_expect_eq(id1, id2);
	cr_assert_eq(nstore_changes(st, c.job, c.metric, &v, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(v[0].good, A);
	cr_expect_str_eq(v[0].bad, C);
	cr_expect_str_eq(v[0].at, B);
	cr_expect_eq(v[0].bisection_id, 0);
	cr_expect_eq(v[0].cycle_id, cyc);
	cr_expect_eq(v[0].change_pct, -12.5);
	nightly_change_recs_free(v, n);
	/* another metric has none */
	cr_assert_eq(nstore_changes(st, c.job, "other", &v, &n), 0);
	cr_expect_eq(n, 0);
	nightly_change_recs_free(v, n);
}
