// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bisection loop (the real session_run) over its in-memory ops
 * (tests/lib/session-mem.c) and a model of the history:
 *
 *   c0 - c1 - c2 - ... - c19        c0 good, c19 bad
 *
 * Commits from the culprit on measure `slow`, the others `fast`, plus
 * seeded noise; listed commits cannot be built (skip); the first `infra`
 * runs fail for the infrastructure. With `dag`, the history is a
 * linux-like DAG with merges instead, and the commits that contain the
 * culprit are slow.
 */
#include <math.h>

#include <criterion/criterion.h>

#include "robot.h"
#include "session-mem.h"
#include "session.h"

#define NC 20

struct fake {
	int culprit; /* index, or -1: no change */
	bool skip[128]; /* per commit (NC of a line, more in a DAG) */
	double fast, slow, noise;
	uint64_t rng;
	int flaky_parent; /* this many first runs of culprit-1 read slow */
	int infra; /* this many first runs fail for the infrastructure */
	bool dag;
	int first; /* two steps: from this index on `mid` (0: one step) */
	double mid;
	double duration; /* of a run (0: the model's default) */
	int mid_read_k; /* this commit's first mid_reads runs read mid_read */
	int mid_reads;
	double mid_read;
	int seen[128]; /* runs per commit so far */
	struct session_mem m;
};

static double uniform(struct fake *f)
{
	f->rng = f->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(f->rng >> 11) / 9007199254740992.0;
}

static enum session_outcome f_run(void *data, int h, long k, double t,
				  double *value, double *duration)
{
	struct fake *f = data;
	double v;

	if (f->infra > 0) {
		f->infra--;
		return SESSION_RUN_INFRA;
	}
	if (f->skip[k])
		return SESSION_RUN_SKIP;
	if (f->dag)
		v = f->culprit >= 0 &&
				    session_mem_contains(&f->m, k, f->culprit) ?
			    f->slow :
			    f->fast;
	else
		v = f->culprit >= 0 && k >= f->culprit ? f->slow :
		    f->first && k >= f->first	       ? f->mid :
							 f->fast;
	if (f->mid_reads && k == f->mid_read_k && f->seen[k]++ < f->mid_reads)
		v = f->mid_read;
	if (f->flaky_parent > 0 && k == f->culprit - 1) {
		f->flaky_parent--;
		v = f->slow;
	}
	*value = v + f->noise * (uniform(f) + uniform(f) + uniform(f) - 1.5);
	if (f->duration > 0)
		*duration = f->duration;
	return SESSION_RUN_OK;
}

static void fake_init(struct fake *f, int hosts)
{
	struct session_mem_model model = { .data = f, .run = f_run };

	session_mem_init(&f->m, NC - 1, hosts, &model);
}

static char *hex(int k)
{
	static char buf[4][RB_OID_HEXSZ + 1];
	static int i;

	return session_mem_hex(k, buf[i++ % 4]);
}

/* One bisection over the model (resumed when it has records). */
static int bisect(struct fake *f, struct session_outcome_info *out,
		  const char *threshold)
{
	struct stats_policy pol;

	stats_policy_init(&pol);
	pol.direction = 1;
	cr_assert_eq(session_parse_threshold(&pol, threshold), 0);
	return session_mem_run(&f->m, &pol, out);
}

/* A bisection of the model on `hosts` hosts that must name commit k. */
static void bisect_to(struct fake *f, int hosts, int k,
		      struct session_outcome_info *out)
{
	fake_init(f, hosts);
	cr_assert_eq(bisect(f, out, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out->status, SESSION_FOUND, "%s: %s",
		     session_status_name(out->status), out->message);
	cr_assert_str_eq(out->culprit, hex(k));
}

static void release(struct fake *f, struct session_outcome_info *out)
{
	session_outcome_release(out);
	session_mem_release(&f->m);
}

Test(session, finds_and_confirms_the_culprit)
{
	struct fake f = {
		.culprit = 11, .fast = 100, .slow = 70, .noise = 6, .rng = 1
	};
	struct session_outcome_info out;

	bisect_to(&f, 1, 11, &out);
	cr_assert_eq(out.parents_nr, 1);
	cr_assert_str_eq(out.parents[0], hex(10));
	cr_assert_gt(out.confidence, 0.98);
	/* the confidence's terms as the mail states them: every decided
	 * step, the step alpha, the first confirmation's alpha */
	cr_assert_eq(out.decided,
		     session_mem_count_steps(&f.m, "verdict", NULL));
	cr_assert_gt(out.decided, 0);
	cr_assert(out.step_alpha > 0 && out.step_alpha <= 0.2, "%g",
		  out.step_alpha);
	cr_assert_float_eq(out.confirm_alpha, 0.02, 1e-12);
	cr_assert_float_eq(out.confidence,
			   1 - out.decided * out.step_alpha * out.confirm_alpha,
			   1e-12);
	cr_assert_float_eq(out.threshold, 85, 5);
	cr_assert_eq(session_mem_count_steps(&f.m, "confirmed", NULL), 1);
	cr_assert_eq(session_mem_count_steps(&f.m, "finish", NULL), 1);
	release(&f, &out);
}

/* The first commit of a topic branch from commit 30 on (-1: none): its
 * parent is the mainline commit the branch forks from. */
static long first_of_a_topic(const struct session_mem_graph *g)
{
	long k;

	for (k = 30; k < g->n; k++)
		if (g->npar[k] == 1 && g->par[k][0] != k - 1)
			return k;
	return -1;
}

Test(session, finds_the_culprit_in_a_history_with_merges)
{
	struct fake f = {
		.fast = 100, .slow = 70, .noise = 6, .rng = 5, .dag = true
	};
	struct session_mem_model model = { .data = &f, .run = f_run };
	struct session_mem_graph g;
	struct session_outcome_info out;
	long k, merges = 0, culprit = -1, later = 0;

	session_mem_linux_like(&g, 80, 42);
	for (k = 1; k <= g.n; k++)
		merges += g.npar[k] == 2;
	cr_assert_gt(merges, 5, "a history with merges");
	/* a commit on a topic branch: its merge and the mainline after it
	 * contain it, the mainline commits next to it do not */
	culprit = first_of_a_topic(&g);
	cr_assert_geq(culprit, 0);
	f.culprit = (int)culprit;
	session_mem_init_graph(&f.m, &g, 1, &model);
	for (k = culprit + 1; k <= g.n; k++)
		later += !session_mem_contains(&f.m, k, culprit);
	cr_assert_gt(later, 0, "newer commits without the culprit");
	cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_FOUND, "%s", out.message);
	cr_assert_eq(session_mem_commit(&f.m, out.culprit), culprit);
	cr_assert_eq(out.parents_nr, 1);
	cr_assert_eq(session_mem_commit(&f.m, out.parents[0]),
		     g.par[culprit][0]);
	release(&f, &out);
	session_mem_graph_release(&g);
}

/*
 * The culprit is the first commit of a topic branch and its parent, the
 * mainline commit the branch forks from, does not build: the bisection
 * knows that parent good without testing it (a mainline commit after it
 * is good), but the confirmation must measure it. The session does not
 * fail (it did: "cannot be measured for the confirmation"); the culprit
 * cannot be confirmed, and when the bisection names it again it ends
 * inconclusive, saying why (no retry can measure that parent).
 */
Test(session, culprit_whose_parent_does_not_build)
{
	struct fake f = {
		.fast = 100, .slow = 70, .noise = 6, .rng = 5, .dag = true
	};
	struct session_mem_model model = { .data = &f, .run = f_run };
	struct session_mem_graph g;
	struct session_outcome_info out;
	long culprit;
	char par[64];

	session_mem_linux_like(&g, 80, 42);
	culprit = first_of_a_topic(&g);
	cr_assert_geq(culprit, 0);
	f.culprit = (int)culprit;
	f.skip[g.par[culprit][0]] = true;
	session_mem_init_graph(&f.m, &g, 1, &model);
	cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_INCONCLUSIVE, "%s: %s",
		     session_status_name(out.status), out.message);
	cr_assert(strstr(out.message, "cannot be measured"), "%s", out.message);
	snprintf(par, sizeof(par), "%.12s cannot be measured",
		 hex((int)g.par[culprit][0]));
	cr_assert(strstr(out.message, par), "%s", out.message);
	cr_assert_eq(session_mem_count_steps(&f.m, "unconfirmed", NULL), 2);
	cr_assert_eq(session_mem_count_steps(&f.m, "unconfirmed",
					     "\"unmeasurable\": true"),
		     2);
	cr_assert(strstr(out.message, "2 times"), "%s", out.message);
	/* the first failure opens the cheap verdicts, and so does a culprit
	 * named again (the wrong verdict is elsewhere, if any) */
	cr_assert_eq(session_mem_count_steps(&f.m, "unconfirmed",
					     "\"reopen\": ["),
		     2);
	cr_assert_eq(session_mem_count_steps(&f.m, "confirmed", NULL), 0);
	release(&f, &out);
	session_mem_graph_release(&g);
}

/*
 * Two steps: 100 -> 90 at c6, -> 70 at c13. The midpoint (85) is crossed
 * at c13, which accounts for 2/3 of the change; the rest happened before
 * its parent.
 */
Test(session, names_the_step_that_crosses_and_its_share)
{
	struct fake f = { .culprit = 13,
			  .first = 6,
			  .fast = 100,
			  .mid = 90,
			  .slow = 70,
			  .noise = 4,
			  .rng = 11 };
	struct session_outcome_info out;

	bisect_to(&f, 1, 13, &out);
	cr_assert(out.has_share);
	cr_assert(out.share.lo <= 2.0 / 3 && 2.0 / 3 <= out.share.hi,
		  "%g [%g, %g]", out.share.share, out.share.lo, out.share.hi);
	cr_assert_gt(out.share.before, 0.2, "%g", out.share.before);
	cr_assert_lt(fabs(out.share.after), 0.1, "%g", out.share.after);
	release(&f, &out);
}

/*
 * Two steps, 100 -> 90 at c6, -> 70 at c13 (threshold 85), and the first
 * 2 runs of c9 (the first pick, of the middle level) read 83: it is
 * decided bad, a step near the threshold gone wrong, and the culprit
 * found below it (c6) does not confirm on its fresh runs (90). The
 * unconfirmed culprit takes c9's verdict with it (dropped: its runs are
 * at neither anchor's level; or opened again, as every cheap step's after
 * a first failure, and held to the strict bound on more runs): decided
 * again it comes out good and the bisection ends at c13. Before, c9's wrong "bad" stayed and held
 * the bisection below it until a culprit next to it failed to confirm
 * too; with a few such verdicts the attempts ran out (the simulated
 * two-step changes ended inconclusive 12% of the time at 2 sd).
 */
/* Is sha in the JSON list that starts at list ("name": [...])? */
static bool listed(const char *list, const char *sha)
{
	const char *at = strstr(list, sha);

	return at && at < strchr(list, ']');
}

Test(session, an_unconfirmed_culprit_drops_the_verdicts_between_the_levels)
{
	struct fake f = { .culprit = 13,
			  .first = 6,
			  .fast = 100,
			  .mid = 90,
			  .slow = 70,
			  .noise = 0.5,
			  .rng = 12,
			  .mid_read_k = 9,
			  .mid_reads = 2,
			  .mid_read = 83 };
	struct session_outcome_info out;
	const struct bisection_step_rec *st;
	const char *c9 = hex(9);
	size_t i, wider = 0;

	bisect_to(&f, 1, 13, &out);
	st = f.m.steps;
	for (i = 0; i < f.m.steps_nr; i++) {
		const char *d, *r;

		if (strcmp(st[i].kind, "unconfirmed"))
			continue;
		/* c9 is neither the culprit nor its parent: dropped, or
		 * opened again (the cheap steps' verdicts after the first
		 * failure) */
		d = strstr(st[i].detail, "\"drop\": [");
		r = strstr(st[i].detail, "\"reopen\": [");
		cr_assert(d, "%s", st[i].detail);
		wider += listed(d, c9) || (r && listed(r, c9));
	}
	cr_assert_geq(wider, 1,
		      "c9's verdict was neither dropped nor opened "
		      "again");
	release(&f, &out);
}

/*
 * One wrong cheap step: c14 (bad) reads 100 for its first 3 runs and is
 * decided good, so the bisection ends above it, at c15. The confirmation
 * decides c14 bad on its fresh runs: that verdict stands as a step of its
 * own ("confirmation": true, on the runs after the confirmation started),
 * the verdicts it contradicts (c14's good) are dropped, every other cheap
 * verdict is opened again, and the bisection goes on below c14 to c11.
 */
Test(session, a_parent_found_bad_in_the_confirmation_is_a_verdict)
{
	struct fake f = { .culprit = 11,
			  .fast = 100,
			  .slow = 70,
			  .noise = 0.5,
			  .rng = 3,
			  .mid_read_k = 14,
			  .mid_reads = 3,
			  .mid_read = 100 };
	struct session_outcome_info out;
	const struct bisection_step_rec *st;
	const char *c14 = hex(14), *c15 = hex(15);
	size_t i, flips = 0, unconfirmed = 0;

	bisect_to(&f, 1, 11, &out);
	st = f.m.steps;
	for (i = 0; i < f.m.steps_nr; i++) {
		if (!strcmp(st[i].kind, "unconfirmed")) {
			const char *d = strstr(st[i].detail, "\"drop\": [");

			unconfirmed++;
			cr_assert_str_eq(st[i].commit, c15);
			cr_assert(d && listed(d, c14), "%s", st[i].detail);
			cr_assert(strstr(st[i].detail, "\"reopen\": ["), "%s",
				  st[i].detail);
			/* c14's flip is the next step */
			cr_assert_lt(i + 1, f.m.steps_nr);
			cr_assert_str_eq(st[i + 1].kind, "verdict");
			cr_assert_str_eq(st[i + 1].commit, c14);
			cr_assert_str_eq(st[i + 1].verdict, "bad");
		}
		flips += !strcmp(st[i].kind, "verdict") &&
			 strstr(st[i].detail, "\"confirmation\": true");
	}
	cr_assert_eq(unconfirmed, 1);
	cr_assert_eq(flips, 1);
	cr_assert_eq(session_mem_count_steps(&f.m, "confirmed", NULL), 1);
	release(&f, &out);
}

Test(session, null_history_is_not_reproduced)
{
	struct fake f = { .culprit = -1, .fast = 100, .noise = 6, .rng = 2 };
	struct session_outcome_info out;

	fake_init(&f, 1);
	cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_NOT_REPRODUCED);
	cr_assert(strstr(out.message, "not reproduced") != NULL, "%s",
		  out.message);
	/* only the endpoints ran */
	cr_assert_eq(f.m.runs, f.m.kind_runs[MEM_ENDPOINT]);
	release(&f, &out);
}

/* A drop too small for the threshold asked: not reproduced. */
Test(session, threshold_beyond_the_change)
{
	struct fake f = {
		.culprit = 5, .fast = 100, .slow = 97, .noise = 0.5, .rng = 3
	};
	struct session_outcome_info out;

	fake_init(&f, 1);
	cr_assert_eq(bisect(&f, &out, "-20%"), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_NOT_REPRODUCED, "%s", out.message);
	release(&f, &out);
}

/* Zero-variance data (QEMU under icount) decide at the minimum runs. */
Test(session, zero_variance)
{
	struct fake f = { .culprit = 7, .fast = 47, .slow = 42, .rng = 4 };
	struct session_outcome_info out;

	bisect_to(&f, 1, 7, &out);
	cr_assert_lt(f.m.runs, 40, "%ld runs for deterministic numbers",
		     f.m.runs);
	release(&f, &out);
}

/* The culprit's neighbours cannot be built: git's only-skipped list. */
Test(session, only_skipped_left)
{
	struct fake f = {
		.culprit = 9, .fast = 100, .slow = 50, .noise = 2, .rng = 5
	};
	struct session_outcome_info out;
	size_t i;
	bool has9 = false;

	f.skip[8] = f.skip[9] = true;
	fake_init(&f, 1);
	cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_ONLY_SKIPPED, "%s",
		     session_status_name(out.status));
	for (i = 0; i < out.list_nr; i++)
		has9 |= !strcmp(out.list[i], hex(9));
	cr_assert(has9, "the culprit is not in the list");
	release(&f, &out);
}

/*
 * The parent reads slow in its bisection runs but not in the
 * confirmation: the first culprit (c10) does not confirm, the bisection
 * goes back into the range and ends at the real one. With this little
 * noise a step decides on min_runs (2) runs, so the parent's first 2 runs
 * read slow (the step is checked below to have used exactly those).
 */
Test(session, unconfirmed_culprit_goes_back_into_the_range)
{
	struct fake f = { .culprit = 11,
			  .fast = 100,
			  .slow = 60,
			  .noise = 0.5,
			  .rng = 6,
			  .flaky_parent = 2 };
	struct session_outcome_info out;
	const struct bisection_step_rec *st;
	size_t i, unconfirmed = 0;

	bisect_to(&f, 1, 11, &out);
	st = f.m.steps;
	for (i = 0; i < f.m.steps_nr; i++) {
		unconfirmed += !strcmp(st[i].kind, "unconfirmed");
		if (!strcmp(st[i].kind, "verdict") &&
		    !strcmp(st[i].commit, hex(10)) && unconfirmed == 0)
			cr_assert(strstr(st[i].detail, "\"runs\": 2,") &&
					  !strcmp(st[i].verdict, "bad"),
				  "the transient should fool c10's step: %s",
				  st[i].detail);
	}
	cr_assert_eq(unconfirmed, 1);
	release(&f, &out);
}

/* Resuming a finished (or half-done) bisection measures nothing again. */
Test(session, resume_replays_without_measuring)
{
	struct fake f = {
		.culprit = 13, .fast = 100, .slow = 70, .noise = 4, .rng = 7
	};
	struct session_outcome_info out, again;
	long runs;

	fake_init(&f, 1);
	cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_FOUND);
	runs = f.m.runs;
	cr_assert_eq(bisect(&f, &again, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(again.status, SESSION_FOUND);
	cr_assert_str_eq(again.culprit, out.culprit);
	cr_assert_eq(f.m.runs, runs, "%ld runs again", f.m.runs - runs);
	session_outcome_release(&out);
	session_outcome_release(&again);
	session_mem_release(&f.m);
}

/*
 * Infrastructure failures are paused on (2, 4, 8, ... s on the clock) and
 * retried; six in a row on a host and the robot gives up, resumable.
 */
Test(session, infrastructure_failures_pause_then_give_up)
{
	struct fake f = {
		.culprit = 4, .fast = 100, .slow = 50, .noise = 1, .rng = 8
	};
	struct session_outcome_info out;

	f.infra = 5;
	bisect_to(&f, 1, 4, &out);
	/* 2+4+8+16+30 s of pauses, one time unit a run (the failed ones too) */
	cr_assert_float_eq(f.m.clock, 60.0 + 5 + (double)f.m.runs, 1e-9,
			   "clock %g, %ld runs", f.m.clock, f.m.runs);
	release(&f, &out);

	f.infra = 6;
	fake_init(&f, 1);
	cr_assert_eq(bisect(&f, &out, NULL), -1);
	cr_assert(strstr(rb_errmsg(), "6 infrastructure failures") != NULL,
		  "%s", rb_errmsg());
	cr_assert_eq(f.m.runs, 0);
	session_mem_release(&f.m);
}

/* Four hosts test four commits a round and agree on the culprit. */
Test(session, k_way_rounds_on_four_hosts)
{
	struct fake f = {
		.culprit = 15, .fast = 100, .slow = 70, .noise = 3, .rng = 9
	};
	struct session_outcome_info out;
	const struct bisection_step_rec *st;
	size_t i, rounds = 0, wide = 0;

	bisect_to(&f, 4, 15, &out);
	st = f.m.steps;
	for (i = 0; i < f.m.steps_nr; i++)
		if (!strcmp(st[i].kind, "round")) {
			const char *c;
			int quotes = 0;

			rounds++;
			for (c = st[i].detail; *c; c++)
				quotes += *c == '"';
			wide += quotes > 2;
		}
	cr_assert_geq(rounds, 1);
	cr_assert_geq(wide, 1, "no round tested several commits");
	release(&f, &out);
}

/*
 * The confirmation's numbers are its change test's: over noisy seeded
 * histories (the culprit 2 noise sd worse), every "confirmed" step's 95%
 * interval lies on the regression's side, and a refuted one's
 * ("unconfirmed") is not reported as a change. The interval, the word
 * "reproduced" and the confidence cannot disagree; nor can the change and
 * the numbers shown with it: the runs' means, and the test's own levels
 * when the change between the means reads otherwise.
 */
static double num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	cr_assert_not_null(p, "no %s in %s", key, s);
	return strtod(p + strlen(key), NULL);
}

/* The mean of commit hx's runs after run id `after` (its fresh runs). */
static double fresh_mean(const struct fake *f, const char *hx, int64_t after,
			 size_t *n)
{
	const struct session_mem_samples *sm = NULL;
	double sum = 0;
	long k;
	size_t i;

	for (k = 0; k <= f->m.n && !sm; k++)
		if (!strncmp(hex((int)k), hx, 40))
			sm = &f->m.samples[k];
	cr_assert_not_null(sm, "no commit %.40s", hx);
	*n = 0;
	for (i = 0; i < sm->nr; i++) {
		if (sm->v[i].run_id <= after)
			continue;
		sum += sm->v[i].value;
		(*n)++;
	}
	return *n ? sum / (double)*n : NAN;
}

Test(session, confirmed_interval_never_holds_zero)
{
	unsigned seed, found = 0, levels = 0;
	double pm, cm, pct, m;

	for (seed = 1; seed <= 30; seed++) {
		struct fake f = { .culprit = 11,
				  .fast = 100,
				  .slow = 90,
				  .noise = 10,
				  .rng = seed };
		struct session_outcome_info out;
		size_t i;

		fake_init(&f, 1);
		cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
		for (i = 0; i < f.m.steps_nr; i++) {
			const struct bisection_step_rec *st = &f.m.steps[i];
			const char *d = st->detail, *ci;
			double lo, hi;
			int64_t after;
			size_t n;

			if (strcmp(st->kind, "confirmed") || !d)
				continue;
			ci = strstr(d, "\"ci_pct\": [");
			cr_assert_not_null(ci, "seed %u: %s", seed, d);
			cr_assert_eq(sscanf(ci, "\"ci_pct\": [%lf, %lf]", &lo,
					    &hi),
				     2);
			cr_expect_lt(hi, 0, "seed %u: [%g, %g]", seed, lo, hi);
			cr_expect(strstr(d, "\"method\": \"sequential change "
					    "test, pooled noise"));
			found++;
			/*
			 * the change reads from the means shown, or, said
			 * with them, from the test's levels
			 */
			pm = num_after(d, "\"parent_mean\": ");
			cm = num_after(d, "\"culprit_mean\": ");
			pct = num_after(d, "\"change_pct\": ");
			/* the means are the fresh runs' */
			after = (int64_t)num_after(d, "\"after_run\": ");
			m = fresh_mean(&f, strstr(d, "\"parent\": \"") + 11,
				       after, &n);
			cr_expect_lt(fabs(m - pm), 1e-9, "seed %u: %g, %s",
				     seed, m, d);
			cr_expect_eq(n,
				     (size_t)num_after(d, "\"parent_runs\": "));
			m = fresh_mean(&f, st->commit, after, &n);
			cr_expect_lt(fabs(m - cm), 1e-9, "seed %u: %g, %s",
				     seed, m, d);
			cr_expect_eq(
				n, (size_t)num_after(d, "\"culprit_runs\": "));
			if (strstr(d, "\"parent_level\": ")) {
				cr_expect(strstr(d, "; its levels "), "%s", d);
				pm = num_after(d, "\"parent_level\": ");
				cm = num_after(d, "\"culprit_level\": ");
				levels++;
			}
			cr_expect_lt(fabs(100 * (cm - pm) / fabs(pm) - pct),
				     0.05, "seed %u: %s", seed, d);
		}
		release(&f, &out);
	}
	cr_expect_geq(found, 25, "only %u confirmed", found);
	/* noisy runs: the robust levels differ from the means at times */
	cr_expect_geq(levels, 1, "no confirmation named its levels");
}

/*
 * What a user watches: on a terminal the status line is drawn again in
 * place (carriage return and erase, never glued to what was there), names
 * the endpoint check while it runs (not "step 0 of about n"), and a long
 * phase prints an event at least every minute with the runs so far.
 */
Test(session, progress_on_a_terminal)
{
	struct fake f = { .culprit = 11,
			  .fast = 100,
			  .slow = 93,
			  .noise = 10,
			  .rng = 5,
			  .duration = 25 };
	struct session_outcome_info out;
	char *buf = NULL, *p, *prev;
	size_t len = 0, heartbeats = 0;

	fake_init(&f, 1);
	f.m.progress = open_memstream(&buf, &len);
	f.m.tty = true;
	cr_assert_not_null(f.m.progress);
	cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
	fclose(f.m.progress);
	cr_assert_not_null(strstr(buf, "measuring the endpoints, "));
	cr_expect_null(strstr(buf, "step 0 of about"), "%s", buf);
	/* every status line is drawn after \r and an erase */
	for (p = buf; (p = strstr(p, "measuring the endpoints, ")); p++)
		cr_expect(p - buf >= 4 && !strncmp(p - 4, "\r\033[K", 4),
			  "glued: %.60s", p - 4);
	for (p = buf; (p = strstr(p, " of about ")); p++) {
		prev = p;
		while (prev > buf && prev[-1] != '\r' && prev[-1] != '\n')
			prev--;
		cr_expect(prev - buf >= 1 && prev[-1] == '\r' &&
				  !strncmp(prev, "\033[Kstep ", 8),
			  "glued: %.60s", prev);
	}
	for (p = buf; (p = strstr(p, "robot: measuring the endpoints: ")); p++)
		heartbeats++;
	for (p = buf; (p = strstr(p, "robot: step ")); p++)
		heartbeats += !!strstr(p, "runs so far");
	/* runs of 25 s: a minute passes every 3 runs without an event */
	cr_expect_geq(heartbeats, 1, "%s", buf);
	cr_expect(strstr(buf, "runs so far, the last "), "%s", buf);
	release(&f, &out);
	free(buf);
}

/*
 * A boot costs minutes on a real box: the confirmation runs parent and
 * culprit in ABBA order (parent, culprit, culprit, parent, ...), a boot
 * every two runs, not every run; and over the whole bisection fewer than
 * 2 boots for 3 runs.
 */
Test(session, confirmation_boots_every_two_runs)
{
	unsigned seed;

	for (seed = 1; seed <= 10; seed++) {
		struct fake f = { .culprit = 11,
				  .fast = 100,
				  .slow = 90,
				  .noise = 10,
				  .rng = seed };
		struct session_outcome_info out;
		long runs, boots;

		fake_init(&f, 1);
		cr_assert_eq(bisect(&f, &out, NULL), 0, "%s", rb_errmsg());
		runs = f.m.kind_runs[MEM_CONFIRM];
		boots = f.m.kind_boots[MEM_CONFIRM];
		cr_expect_geq(runs, 4, "seed %u", seed);
		cr_expect_leq(boots * 3, runs * 2 + 3,
			      "seed %u: %ld boots for %ld confirming runs",
			      seed, boots, runs);
		cr_expect_lt(f.m.boots * 3, f.m.runs * 2,
			     "seed %u: %ld boots for %ld runs", seed, f.m.boots,
			     f.m.runs);
		release(&f, &out);
	}
}

/*
 * Building ahead: the same bisection (same seed) without and with the
 * session's look-ahead on two simulated build slots. The runs and the
 * culprit are the same; the box waits less for kernels, and every commit
 * a step tested was built before the box wanted it, but the anchors'.
 */
Test(session, builds_ahead_change_nothing_but_the_wait)
{
	struct session_mem_costs cost = { .build = 600,
					  .build_incr = 180,
					  .boot = 60,
					  .incr_within = 2,
					  .slots = 2 };
	struct session_outcome_info out[2];
	long runs[2], k, missed = 0;
	double wait[2], wall[2];
	int v;

	for (v = 0; v < 2; v++) {
		struct fake f = { .culprit = 13,
				  .fast = 100,
				  .slow = 70,
				  .noise = 6,
				  .rng = 7,
				  .duration = 70 };

		fake_init(&f, 1);
		f.m.cost = cost;
		f.m.cost.ahead = v == 1;
		cr_assert_eq(bisect(&f, &out[v], NULL), 0, "%s", rb_errmsg());
		runs[v] = f.m.runs;
		wait[v] = f.m.build_wait;
		wall[v] = f.m.clock;
		if (v == 0) {
			cr_assert_eq(f.m.ahead_calls, 0);
		} else {
			cr_assert_gt(f.m.ahead_calls, 0);
			cr_assert_gt(f.m.builds_ahead, 0);
			/* the candidates tested: built ahead, all but
			 * one whose step leaned the wrong way at most */
			for (k = 1; k < NC - 1; k++)
				if (f.m.samples[k].nr &&
				    !(f.m.art_flags[k] & 1))
					missed++;
			cr_assert_leq(missed, 1, "%ld not built ahead", missed);
		}
		session_mem_release(&f.m);
	}
	cr_assert_eq(out[0].status, SESSION_FOUND);
	cr_assert_str_eq(out[1].culprit, out[0].culprit);
	cr_assert_eq(runs[1], runs[0]);
	cr_assert_lt(wait[1], wait[0]);
	cr_assert_lt(wall[1], wall[0]);
	session_outcome_release(&out[0]);
	session_outcome_release(&out[1]);
}

/*
 * --threshold's text: a percentage is signed, its number a plain decimal,
 * a drop below 100% (a rise of any size); each refusal names what is
 * wrong, as the lab's nightly.threshold does (stats_parse_pct).
 */
Test(session, threshold_text)
{
	static const struct {
		const char *text;
		enum stats_threshold_kind kind;
		double threshold;
		int direction;
		const char *err;
	} cases[] = {
		{ "", STATS_THRESHOLD_MIDPOINT, 0, 0, NULL },
		{ "-5%", STATS_THRESHOLD_PCT, 5, +1, NULL },
		{ "+2.5%", STATS_THRESHOLD_PCT, 2.5, -1, NULL },
		{ "-99.5%", STATS_THRESHOLD_PCT, 99.5, +1, NULL },
		/* latency three times as long: a rise beyond 100% happens */
		{ "+200%", STATS_THRESHOLD_PCT, 200, -1, NULL },
		{ "1234.5", STATS_THRESHOLD_VALUE, 1234.5, 0, NULL },
		{ "-1000%", 0, 0, 0,
		  "threshold '-1000%' must be between 0% and 100%" },
		{ "-100%", 0, 0, 0,
		  "threshold '-100%' must be between 0% and 100%" },
		{ "-0%", 0, 0, 0,
		  "threshold '-0%' must be between 0% and 100%" },
		{ "+0%", 0, 0, 0, "threshold '+0%' must be more than 0%" },
		{ "-1e999%", 0, 0, 0,
		  "threshold '-1e999%' must be between 0% and 100%" },
		{ "+1e999%", 0, 0, 0,
		  "threshold '+1e999%' must be more than 0%" },
		{ "-abc%", 0, 0, 0,
		  "threshold '-abc%': 'abc' is not a number" },
		{ "-5 %", 0, 0, 0, "threshold '-5 %': '5 ' is not a number" },
		{ "- 5%", 0, 0, 0, "threshold '- 5%': ' 5' is not a number" },
		{ "--5%", 0, 0, 0, "threshold '--5%': '-5' is not a number" },
		{ "-0x5%", 0, 0, 0,
		  "threshold '-0x5%': '0x5' is not a number" },
		{ "-nan%", 0, 0, 0,
		  "threshold '-nan%': 'nan' is not a number" },
		{ "-%", 0, 0, 0,
		  "threshold '-%' is not a percentage (5%, -5%: a drop is the "
		  "regression, +5%: a rise is)" },
		{ "5%", 0, 0, 0,
		  "threshold '5%': a percentage needs a sign (-5%: a drop is "
		  "the regression, +5%: a rise is)" },
		{ "abc", 0, 0, 0,
		  "threshold 'abc' is not a number or a percentage" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct stats_policy pol;
		int r;

		stats_policy_init(&pol);
		pol.direction = 0;
		r = session_parse_threshold(&pol, cases[i].text);
		if (cases[i].err) {
			cr_expect_eq(r, -1, "'%s' accepted", cases[i].text);
			cr_expect_str_eq(rb_errmsg(), cases[i].err);
			continue;
		}
		cr_expect_eq(r, 0, "'%s': %s", cases[i].text, rb_errmsg());
		cr_expect_eq(pol.threshold_kind, cases[i].kind, "'%s'",
			     cases[i].text);
		cr_expect_float_eq(pol.threshold, cases[i].threshold, 1e-12,
				   "'%s'", cases[i].text);
		cr_expect_eq(pol.direction, cases[i].direction, "'%s'",
			     cases[i].text);
	}
}
