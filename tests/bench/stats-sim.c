// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated bisections on the robot's own loop: the real session_run
 * (robot/session.c: the endpoint check, rounds of picks of robot/bisect.c,
 * k-way on several hosts, step verdicts, anchor runs, confirmation and
 * drops) over in-memory ops (tests/lib/session-mem.c: the records in
 * arrays, a simulated lab where every run takes 0.9 to 1.1 time units on
 * its host). What is tallied comes from the steps the session appended, as
 * `robot bisect log` reads them.
 *
 * A history is linux-like (session_mem_linux_like): N + 1 commits, about a
 * quarter of them merges of topic branches; commit 0 is the good anchor,
 * commit N the bad one. The culprit is a random non-merge commit; every
 * commit that contains it has its metric lowered by `effect` noise
 * stddevs (a regression of a higher-is-better *_per_sec metric); a null
 * history has no change. Noise models:
 *
 *   gaussian   N(0, 1)
 *   outliers   N(0, 1), and 10% of the runs 10 sd low (30% low at 3% sd)
 *   t3         Student t with 3 df, scaled to sd 1
 *   drift      gaussian plus 1/60 sd per run time (0.05% a run at 3% sd)
 *   hosts      gaussian plus an offset N(0, 1) per test host (host 0
 *              none); the session uses 3 hosts
 *   two-step   gaussian; a first culprit takes 1/3 of the change, a
 *              second one (a descendant of it) the rest: the right answer
 *              is the second one, whose change crosses the midpoint
 *   flaky      gaussian; 5% of the runs end in an infrastructure failure
 *              (a box that did not boot or answer), retried
 *   unbuild    gaussian; 10% of the commits do not build (exit 125),
 *              never the culprit, its parents or the anchors
 *
 * The baseline is lkp's practice: 6 runs per commit on one host (a random
 * one with hosts), the endpoint and every step of git's bisection decided
 * by lkp's change rule against the good anchor, no confirmation.
 *
 * Printed per row: right culprits (or false reports for null histories),
 * the share of the culprits named that are right and the mean confidence
 * stated with them (calibration: the two should agree), weak steps, runs
 * and builds per bisection, and the same for the baseline; then where the
 * runs go (endpoint check, candidates, anchors re-measured during the
 * steps, confirmation), the drops (unconfirmed culprits and contradicting
 * rounds), inconclusive ends, and the length of a bisection in run times
 * (hosts run in parallel), and the share of the change stated with the
 * right culprits (truth: 100%, two-step 67%) with how often its 95%
 * interval holds the truth. Seeded: the same numbers every time.
 *
 * usage: stats-sim [trials per row (200)] [commits (300)]
 *
 * Knobs for exploring (environment): SIM_SHAPES (bit mask of the noise
 * models), SIM_EFFECTS (bit mask of the rows: 2, 3, 5, 10 sd, null),
 * SIM_DRIFT (sd per run, 1/60), SIM_DRIFT_MODE (0 off, 1 auto, 2 on),
 * SIM_DRIFT_SD (the policy's drift_sd), SIM_MIN_RUNS, SIM_ANCHOR_MAX,
 * SIM_ANCHOR_MIN, SIM_ENDPOINT_ALPHA, SIM_CONFIRM_ALPHA, SIM_BUDGET,
 * SIM_POOL (0: decided commits do not join the anchors' runs),
 * SIM_ENDPOINT_EFFECT, SIM_ENDPOINT_BETA, SIM_HOSTS (hosts of the hosts
 * model, 3); with SIM_DEBUG every wrong step with its evidence, every
 * refused endpoint (with the anchors' runs) and every wrong culprit (with
 * its steps) is printed, and SIM_STEPS (every bisection's steps),
 * SIM_INCONCL (the steps of inconclusive ones) and SIM_SHARE (every stated
 * share) print more.
 */
#include <math.h>

#include "robot.h"
#include "bisect.h"
#include "sbuf.h"
#include "rng.h"
#include "session-mem.h"
#include "session.h"
#include "stats.h"

enum shape {
	GAUSS,
	OUTLIERS,
	T3,
	DRIFT,
	HOSTS,
	TWOSTEP,
	FLAKY,
	UNBUILD,
	NSHAPES
};
static const char *const shape_names[] = { "gaussian", "outliers", "t3",
					   "drift",    "hosts",	   "two-step",
					   "flaky",    "unbuild" };

#define MAXHOSTS SESSION_MEM_MAX_HOSTS
static int nr_hosts_shape = 3;
static double drift_per_run = 1.0 / 60;
#define BASE 1000.0
#define SD 10.0

struct world {
	struct rng rng;
	const struct session_mem *m; /* the history */
	enum shape shape;
	double effect; /* in noise sds; 0: null history */
	long culprit; /* the right answer, 0 when null */
	long first; /* two-step: the first (smaller) step, else 0 */
	long runs; /* runs so far */
	double clock; /* the drift clock (serial runs: the run counter) */
	double host_off[MAXHOSTS];
	uint8_t *broken; /* per commit: does not build */
	uint8_t *built; /* per commit: built once */
	long builds;
};

static double noise(struct world *w)
{
	double x, u;

	switch (w->shape) {
	case OUTLIERS:
		x = rng_gauss(&w->rng);
		return rng_unif(&w->rng) < 0.1 ? x - 10 : x;
	case T3:
		x = rng_gauss(&w->rng);
		u = 0;
		for (int i = 0; i < 3; i++) {
			double g = rng_gauss(&w->rng);

			u += g * g;
		}
		/* t3 has variance 3 */
		return x / sqrt(u / 3) / sqrt(3);
	default:
		return rng_gauss(&w->rng);
	}
}

/* the metric's true level of commit k, in noise sds */
static double level(const struct world *w, long k)
{
	double x = 0;

	if (w->first && session_mem_contains(w->m, k, w->first))
		x -= w->effect / 3;
	if (w->culprit && session_mem_contains(w->m, k, w->culprit))
		x -= w->first ? w->effect * 2 / 3 : w->effect;
	return x;
}

/* one run of commit k on host h at time t */
static double measure(struct world *w, long k, int h, double t)
{
	double x = noise(w) + level(w, k);

	if (w->shape == DRIFT)
		x += drift_per_run * t;
	if (w->shape == HOSTS)
		x += w->host_off[h];
	w->runs++;
	return BASE + SD * x;
}

static void build(struct world *w, long k)
{
	if (!w->built[k]) {
		w->built[k] = 1;
		w->builds++;
	}
}

/* ------------------------------------------------------------------ */
/* the session: the real one over in-memory ops */

struct result {
	long reported; /* culprit reported, 0: none */
	long runs, builds;
	long kind_runs[MEM_KINDS];
	long weak;
	long unconfirmed; /* culprits that did not confirm */
	long contradictions; /* rounds dropped: no candidate left */
	bool reproduced; /* the endpoint check said so */
	bool inconclusive;
	double confidence; /* stated with a culprit */
	bool has_share, share_covers; /* the interval holds the truth */
	double share;
	double clock; /* wall time */
};

/* one run of commit k on host h started at t, 0.9 to 1.1 units long */
static enum session_outcome sim_run(void *data, int h, long k, double t,
				    double *value, double *duration)
{
	struct world *w = data;

	*duration = 0.9 + 0.2 * rng_unif(&w->rng);
	build(w, k);
	if (w->broken[k])
		return SESSION_RUN_SKIP;
	if (w->shape == FLAKY && rng_unif(&w->rng) < 0.05)
		return SESSION_RUN_INFRA;
	*value = measure(w, k, h, t);
	return SESSION_RUN_OK;
}

/* SIM_DEBUG: every wrong step with its evidence, every wrong culprit */
static void debug(const struct world *w, const struct session_mem *m,
		  const struct session_outcome_info *out)
{
	size_t i;

	for (i = 0; i < m->steps_nr; i++) {
		const struct bisection_step_rec *st = &m->steps[i];
		long k;

		if (!strcmp(st->kind, "endpoint") && w->culprit &&
		    strcmp(st->verdict, "reproduced")) {
			size_t j;

			printf("REFUSED %s %.0f: %s\n", shape_names[w->shape],
			       w->effect, st->detail);
			for (j = 0; j < m->samples[0].nr; j++)
				printf(" g%.0f", m->samples[0].v[j].value);
			for (j = 0; j < m->samples[m->n].nr; j++)
				printf(" b%.0f", m->samples[m->n].v[j].value);
			printf("\n");
		}
		if (strcmp(st->kind, "verdict") || !st->commit ||
		    !strcmp(st->verdict, "skip"))
			continue;
		k = session_mem_commit(m, st->commit);
		if (!strcmp(st->verdict, "bad") !=
		    (w->culprit && level(w, k) < -w->effect / 2))
			printf("WRONG %s %.0f step %ld culprit=%ld level "
			       "%.2f: %s\n",
			       shape_names[w->shape], w->effect, k, w->culprit,
			       level(w, k), st->detail);
	}
	if (out->status == SESSION_FOUND &&
	    session_mem_commit(m, out->culprit) != w->culprit)
		printf("WRONG CULPRIT %s %.0f: %ld (true %ld, first %ld, "
		       "levels %.2f/%.2f) after %ld runs\n",
		       shape_names[w->shape], w->effect,
		       session_mem_commit(m, out->culprit), w->culprit,
		       w->first,
		       level(w, session_mem_commit(m, out->parents[0])),
		       level(w, session_mem_commit(m, out->culprit)), m->runs);
	if (out->status == SESSION_FOUND && getenv("SIM_SAMPLES") &&
	    session_mem_commit(m, out->culprit) != w->culprit) {
		long ks[2] = { session_mem_commit(m, out->parents[0]),
			       session_mem_commit(m, out->culprit) };
		size_t j;

		for (i = 0; i < 2; i++) {
			printf("  runs of %ld:", ks[i]);
			for (j = 0; j < m->samples[ks[i]].nr; j++)
				printf(" %.0f@%lld",
				       m->samples[ks[i]].v[j].value,
				       (long long)m->samples[ks[i]].v[j].run_id);
			printf("\n");
		}
	}
	if ((out->status == SESSION_FOUND &&
	     session_mem_commit(m, out->culprit) != w->culprit) ||
	    getenv("SIM_STEPS") ||
	    (getenv("SIM_INCONCL") && out->status == SESSION_INCONCLUSIVE)) {
		printf("HISTORY %s %.0f: culprit %ld, first %ld, %s\n",
		       shape_names[w->shape], w->effect, w->culprit, w->first,
		       session_status_name(out->status));
		for (i = 0; i < m->steps_nr; i++)
			printf("  %s %ld %s %.3000s\n", m->steps[i].kind,
			       m->steps[i].commit ?
				       session_mem_commit(m,
							  m->steps[i].commit) :
				       -1,
			       m->steps[i].verdict ? m->steps[i].verdict : "-",
			       m->steps[i].detail ? m->steps[i].detail : "");
	}
}

static void ours(struct world *w, struct session_mem *m,
		 const struct stats_policy *pol, struct result *res)
{
	struct session_outcome_info out;
	int k;

	memset(res, 0, sizeof(*res));
	m->model.data = w;
	if (getenv("SIM_EVENTS"))
		m->progress = stdout;
	if (session_mem_run(m, pol, &out) < 0)
		rb_die("session: %s", rb_errmsg());
	if (getenv("SIM_DEBUG"))
		debug(w, m, &out);
	if (out.status == SESSION_FOUND) {
		double truth = w->first ? 2.0 / 3 : 1;

		res->reported = session_mem_commit(m, out.culprit);
		res->confidence = out.confidence;
		res->has_share = out.has_share && res->reported == w->culprit;
		res->share = out.share.share;
		res->share_covers = out.share.lo <= truth &&
				    truth <= out.share.hi;
		if (getenv("SIM_SHARE"))
			printf("share %.3f [%.3f, %.3f] before %.3f after "
			       "%.3f\n",
			       out.share.share, out.share.lo, out.share.hi,
			       out.share.before, out.share.after);
	}
	res->reproduced = out.status != SESSION_NOT_REPRODUCED;
	res->inconclusive = res->reproduced && out.status != SESSION_FOUND;
	res->weak =
		(long)session_mem_count_steps(m, "verdict", "\"weak\": true");
	res->unconfirmed =
		(long)session_mem_count_steps(m, "unconfirmed", NULL);
	res->contradictions =
		(long)session_mem_count_steps(m, "contradiction", NULL);
	res->runs = m->runs;
	res->builds = w->builds;
	for (k = 0; k < MEM_KINDS; k++)
		res->kind_runs[k] = m->kind_runs[k];
	res->clock = m->clock;
	session_outcome_release(&out);
}

/* ------------------------------------------------------------------ */
/* the baseline */

/* lkp: bad when the change rule fires and the median moved down */
static bool lkp_bad(const struct stats_set *good, const struct stats_set *c)
{
	struct stats_lkp_summary a, b;

	stats_lkp_summary(&a, good->v, NULL, good->nr, 3);
	stats_lkp_summary(&b, c->v, NULL, c->nr, 3);
	return stats_lkp_changed(&a, &b) && b.mid < a.mid;
}

/* 6 runs of commit k on host h, one after another; false: no build */
static bool lkp_runs(struct world *w, struct stats_set *set, long k, int h,
		     int n)
{
	int i;

	build(w, k);
	if (w->broken[k])
		return false;
	for (i = 0; i < n; i++) {
		stats_set_add(set, measure(w, k, h, w->clock));
		w->clock += 1;
	}
	return true;
}

static long node_commit(const struct session_mem *m, uint32_t node)
{
	char hex[RB_OID_HEXSZ + 1];

	return session_mem_commit(m, rb_oid_hex(m->range.g.oid[node], hex));
}

/* git's bisection, each step decided by lkp's rule (a skip: no build) */
static void baseline(struct world *w, const struct session_mem *m,
		     struct result *res)
{
	struct stats_set g = STATS_SET_INIT, b = STATS_SET_INIT;
	struct rb_bisect bis = RB_BISECT_INIT;

	memset(res, 0, sizeof(*res));
	lkp_runs(w, &g, 0, 0, 6);
	lkp_runs(w, &b, m->n, 0, 6);
	if (!lkp_bad(&g, &b))
		goto out;
	rb_range_start(&m->range, &bis);
	for (;;) {
		struct rb_bisect_step st = RB_BISECT_STEP_INIT;
		struct stats_set c = STATS_SET_INIT;
		int h = w->shape == HOSTS ? (int)(rng_next(&w->rng) %
						  (uint64_t)nr_hosts_shape) :
					    0;
		enum rb_verdict v;
		uint32_t pick;

		rb_bisect_next(&bis, &st);
		pick = st.pick;
		if (st.status != RB_BISECT_CONTINUE) {
			if (st.status == RB_BISECT_FOUND)
				res->reported = node_commit(m, pick);
			rb_bisect_step_release(&st);
			break;
		}
		rb_bisect_step_release(&st);
		v = !lkp_runs(w, &c, node_commit(m, pick), h, 6) ? RB_SKIP :
		    lkp_bad(&g, &c)				 ? RB_BAD :
								   RB_GOOD;
		stats_set_release(&c);
		if (rb_bisect_mark(&bis, pick, v) < 0)
			break;
	}
	rb_bisect_release(&bis);
out:
	res->runs = w->runs;
	res->builds = w->builds;
	res->clock = w->clock;
	stats_set_release(&g);
	stats_set_release(&b);
}

/* ------------------------------------------------------------------ */

struct tally {
	long trials, right, reported, weak_steps, unconfirmed, inconclusive;
	long reproduced;
	double runs, builds, kind_runs[MEM_KINDS], clock, confidence;
	long shares, covers;
	double share;
};

/* a random non-merge commit in 1..N that contains `in` (0: any) */
static long pick_commit(struct world *w, long in)
{
	const struct session_mem *m = w->m;

	for (;;) {
		long k = 1 + (long)(rng_next(&w->rng) % (uint64_t)m->n);

		if (m->graph.npar[k] == 1 && k != in &&
		    session_mem_contains(m, k, in))
			return k;
	}
}

static void new_world(struct world *w, const struct session_mem *m,
		      uint64_t seed, enum shape shape, double effect,
		      uint8_t *broken, uint8_t *built)
{
	long k, n = m->n;
	int i;

	memset(w, 0, sizeof(*w));
	w->m = m;
	w->rng.s = seed;
	w->shape = shape;
	w->effect = effect;
	w->broken = broken;
	w->built = built;
	memset(broken, 0, (size_t)n + 1);
	memset(built, 0, (size_t)n + 1);
	if (effect > 0) {
		w->culprit = pick_commit(w, 0);
		if (shape == TWOSTEP && m->n > 2) {
			/* the first step, then the culprit containing it */
			do {
				w->first = pick_commit(w, 0);
			} while (w->first == m->n ||
				 w->first == m->graph.par[m->n][0]);
			w->culprit = pick_commit(w, w->first);
		}
	}
	for (int h = 0; h < MAXHOSTS; h++)
		w->host_off[h] = h ? rng_gauss(&w->rng) : 0;
	if (shape != UNBUILD)
		return;
	for (k = 1; k < n; k++)
		broken[k] = rng_unif(&w->rng) < 0.1;
	for (k = 1; k <= n; k++)
		if (k == w->culprit || k == w->first)
			for (i = 0; i < m->graph.npar[k]; i++)
				broken[m->graph.par[k][i]] = 0;
	broken[w->culprit] = broken[w->first] = 0;
}

static void add(struct tally *t, const struct result *r, long culprit)
{
	int k;

	t->trials++;
	t->runs += (double)r->runs;
	t->builds += (double)r->builds;
	t->clock += r->clock;
	t->weak_steps += r->weak;
	t->unconfirmed += r->unconfirmed + r->contradictions;
	t->inconclusive += r->inconclusive;
	t->reproduced += r->reproduced;
	for (k = 0; k < MEM_KINDS; k++)
		t->kind_runs[k] += (double)r->kind_runs[k];
	if (r->reported) {
		t->reported++;
		t->confidence += r->confidence;
	}
	if (r->reported && r->reported == culprit)
		t->right++;
	if (r->has_share) {
		t->shares++;
		t->covers += r->share_covers;
		t->share += r->share;
	}
}

static void print_row(const char *shape, double effect, const struct tally *to,
		      const struct tally *tb)
{
	double n = (double)to->trials, nb = (double)tb->trials;
	double conf =
		to->reported ? 100 * to->confidence / (double)to->reported : 0;

	double named = to->reported ? 100.0 * (double)to->right /
					      (double)to->reported :
				      0;

	if (effect > 0)
		printf("%-9s %6.0f | %7.2f%% %7s %6.2f%% %6.2f %5.2f %6.1f "
		       "%6.1f | %7.2f%% %6.1f %6.1f\n",
		       shape, effect, 100.0 * (double)to->right / n, "", named,
		       conf, (double)to->weak_steps / n, to->runs / n,
		       to->builds / n, 100.0 * (double)tb->right / nb,
		       tb->runs / nb, tb->builds / nb);
	else
		printf("%-9s %6s | %8s %6.2f%% %7s %6s %5.2f %6.1f %6.1f | "
		       "%6.2f%%F %6.1f %6.1f\n",
		       shape, "null", "", 100.0 * (double)to->reported / n, "",
		       "", (double)to->weak_steps / n, to->runs / n,
		       to->builds / n, 100.0 * (double)tb->reported / nb,
		       tb->runs / nb, tb->builds / nb);
}

/* where the runs go, and the time the bisection takes */
static void print_where(const char *shape, double effect,
			const struct tally *to, const struct tally *tb)
{
	double n = (double)to->trials;
	char ef[16], sh[32] = "", cov[32] = "";

	snprintf(ef, sizeof(ef), effect > 0 ? "%.0f" : "null", effect);
	if (to->shares) {
		snprintf(sh, sizeof(sh), "%.0f%%",
			 100 * to->share / (double)to->shares);
		snprintf(cov, sizeof(cov), "%.0f%%",
			 100.0 * (double)to->covers / (double)to->shares);
	}
	printf("%-9s %6s | %6.2f%% %8.1f %6.1f %6.1f %7.1f | %6.3f %6.2f%% | "
	       "%6.1f %6.1f | %5s %5s\n",
	       shape, ef, 100.0 * (double)to->reproduced / n,
	       to->kind_runs[MEM_ENDPOINT] / n, to->kind_runs[MEM_CAND] / n,
	       to->kind_runs[MEM_ANCHOR] / n, to->kind_runs[MEM_CONFIRM] / n,
	       (double)to->unconfirmed / n,
	       100.0 * (double)to->inconclusive / n, to->clock / n,
	       tb->clock / (double)tb->trials, sh, cov);
}

static void knobs(struct stats_policy *pol, long *shape_mask, long *effect_mask)
{
	if (getenv("SIM_DRIFT"))
		drift_per_run = strtod(getenv("SIM_DRIFT"), NULL);
	if (getenv("SIM_DRIFT_MODE"))
		pol->drift = (enum stats_drift)strtol(getenv("SIM_DRIFT_MODE"),
						      NULL, 10);
	if (getenv("SIM_SHAPES"))
		*shape_mask = strtol(getenv("SIM_SHAPES"), NULL, 0);
	if (getenv("SIM_EFFECTS"))
		*effect_mask = strtol(getenv("SIM_EFFECTS"), NULL, 0);
	if (getenv("SIM_MIN_RUNS"))
		pol->min_runs =
			(unsigned)strtol(getenv("SIM_MIN_RUNS"), NULL, 10);
	if (getenv("SIM_ANCHOR_MIN"))
		pol->anchor_min_runs =
			(unsigned)strtol(getenv("SIM_ANCHOR_MIN"), NULL, 10);
	if (getenv("SIM_ANCHOR_MAX"))
		pol->anchor_max_runs =
			(unsigned)strtol(getenv("SIM_ANCHOR_MAX"), NULL, 10);
	if (getenv("SIM_ENDPOINT_ALPHA"))
		pol->endpoint_alpha =
			strtod(getenv("SIM_ENDPOINT_ALPHA"), NULL);
	if (getenv("SIM_CONFIRM_ALPHA"))
		pol->confirm_alpha = strtod(getenv("SIM_CONFIRM_ALPHA"), NULL);
	if (getenv("SIM_CHANGE_ALPHA"))
		pol->change_alpha = strtod(getenv("SIM_CHANGE_ALPHA"), NULL);
	if (getenv("SIM_ENDPOINT_EFFECT"))
		pol->endpoint_effect =
			strtod(getenv("SIM_ENDPOINT_EFFECT"), NULL);
	if (getenv("SIM_ENDPOINT_BETA"))
		pol->endpoint_beta = strtod(getenv("SIM_ENDPOINT_BETA"), NULL);
	if (getenv("SIM_POOL"))
		pol->pool_decided = strtol(getenv("SIM_POOL"), NULL, 10) != 0;
	if (getenv("SIM_BUDGET"))
		pol->budget = strtod(getenv("SIM_BUDGET"), NULL);
	if (getenv("SIM_STEP_BUDGET"))
		pol->step_budget = strtod(getenv("SIM_STEP_BUDGET"), NULL);
	if (getenv("SIM_DRIFT_SD"))
		pol->drift_sd = strtod(getenv("SIM_DRIFT_SD"), NULL);
	if (getenv("SIM_HOSTS"))
		nr_hosts_shape = (int)RB_MAX(
			1, RB_MIN(MAXHOSTS,
				  strtol(getenv("SIM_HOSTS"), NULL, 10)));
}

struct totals {
	double ours, base, null_ours, null_base, worst_right, worst_ratio;
	long right, cul, false_rep, null, b_right, b_false;
};

static void total(struct totals *t, double effect, const struct tally *o,
		  const struct tally *b)
{
	if (effect > 0) {
		t->ours += o->runs;
		t->base += b->runs;
		t->right += o->right;
		t->b_right += b->right;
		t->cul += o->trials;
		t->worst_right = RB_MIN(t->worst_right,
					(double)o->right / (double)o->trials);
		t->worst_ratio = RB_MAX(t->worst_ratio, o->runs / b->runs);
	} else {
		t->null_ours += o->runs;
		t->null_base += b->runs;
		t->false_rep += o->reported;
		t->b_false += b->reported;
		t->null += o->trials;
	}
}

static void print_totals(const struct totals *t)
{
	if (t->cul)
		printf("\nhistories with a culprit: %.2f%% right (worst row "
		       "%.2f%%; lkp %.2f%%), %.2f of the baseline's runs "
		       "(worst row %.2f)\n",
		       100.0 * (double)t->right / (double)t->cul,
		       100 * t->worst_right,
		       100.0 * (double)t->b_right / (double)t->cul,
		       t->ours / t->base, t->worst_ratio);
	if (t->null)
		printf("null histories: %.2f%% false reports (lkp %.2f%%), "
		       "%.1f runs to refuse (lkp %.1f)\n",
		       100.0 * (double)t->false_rep / (double)t->null,
		       100.0 * (double)t->b_false / (double)t->null,
		       t->null_ours / (double)t->null,
		       t->null_base / (double)t->null);
}

static const double effects[] = { 2, 3, 5, 10, 0 };
#define NEFF RB_ARRAY_SIZE(effects)

/* one row: `trials` histories of one noise model and effect */
static void row(int s, size_t e, long trials, long N,
		const struct stats_policy *pol, struct tally *o,
		struct tally *b)
{
	struct session_mem_model model = { .run = sim_run };
	uint8_t *broken = xmalloc((size_t)N + 1),
		*built = xmalloc((size_t)N + 1);
	int nhosts = s == HOSTS ? nr_hosts_shape : 1;
	long i;

	for (i = 0; i < trials; i++) {
		struct session_mem_graph g;
		struct session_mem m;
		struct world w;
		struct result r;
		uint64_t seed = 1000003ULL * (uint64_t)i +
				7919ULL * (uint64_t)s +
				(uint64_t)(effects[e] * 101);

		/* the same 200 histories in every row */
		session_mem_linux_like(&g, N, 0x5eed0000ULL + (uint64_t)i);
		session_mem_init_graph(&m, &g, nhosts, &model);
		session_mem_graph_release(&g);
		new_world(&w, &m, seed, (enum shape)s, effects[e], broken,
			  built);
		ours(&w, &m, pol, &r);
		add(o, &r, w.culprit);
		new_world(&w, &m, seed, (enum shape)s, effects[e], broken,
			  built);
		baseline(&w, &m, &r);
		add(b, &r, w.culprit);
		session_mem_release(&m);
	}
	free(broken);
	free(built);
}

/* ------------------------------------------------------------------ */
/*
 * Building ahead: the same bisections on a simulated clock, without and
 * with the session's look-ahead on 1, 2 and 4 build slots (one test box).
 * Each variant replays the same seed, so the verdicts must come out the
 * same: what changes is when kernels are ready.
 */

#define AHEAD_RUN 70.0
#define AHEAD_VARIANTS 4
static const int ahead_slots[AHEAD_VARIANTS] = { 1, 1, 2, 4 };

struct ahead_tally {
	long trials, same;
	double wall, wait, builds, wasted;
};

/* one run, AHEAD_RUN seconds (0.9 to 1.1 of it) */
static enum session_outcome timed_run(void *data, int h, long k, double t,
				      double *value, double *duration)
{
	enum session_outcome o = sim_run(data, h, k, t, value, duration);

	*duration *= AHEAD_RUN;
	return o;
}

static void ahead_row(int s, double effect, long trials, long N,
		      const struct stats_policy *pol,
		      struct ahead_tally t[AHEAD_VARIANTS])
{
	struct session_mem_model model = { .run = timed_run };
	uint8_t *broken = xmalloc((size_t)N + 1),
		*built = xmalloc((size_t)N + 1);
	long i;
	int v;

	for (i = 0; i < trials; i++) {
		struct session_mem_graph g;
		struct session_mem m;
		struct result r0;
		uint64_t seed = 1000003ULL * (uint64_t)i +
				7919ULL * (uint64_t)s +
				(uint64_t)(effect * 101);

		session_mem_linux_like(&g, N, 0x5eed0000ULL + (uint64_t)i);
		session_mem_init_graph(&m, &g, 1, &model);
		session_mem_graph_release(&g);
		for (v = 0; v < AHEAD_VARIANTS; v++) {
			struct world w;
			struct result r;

			session_mem_reset(&m);
			m.cost = (struct session_mem_costs){
				.build = 600,
				.build_incr = 180,
				.boot = 60,
				.incr_within = 16,
				.slots = ahead_slots[v],
				.ahead = v > 0
			};
			new_world(&w, &m, seed, (enum shape)s, effect, broken,
				  built);
			ours(&w, &m, pol, &r);
			if (!v)
				r0 = r;
			t[v].trials++;
			t[v].same += r.reported == r0.reported &&
				     r.runs == r0.runs &&
				     r.reproduced == r0.reproduced;
			t[v].wall += r.clock;
			t[v].wait += m.build_wait;
			t[v].builds += (double)m.builds;
			t[v].wasted += (double)session_mem_builds_wasted(&m);
		}
		session_mem_release(&m);
	}
	free(broken);
	free(built);
}

static void ahead_table(long trials, long N, const struct stats_policy *pol)
{
	static const int shapes[] = { GAUSS, OUTLIERS, T3 };
	static const double eff[] = { 2, 5, 10 };
	struct ahead_tally all[AHEAD_VARIANTS];
	size_t a, e;
	int v;

	memset(all, 0, sizeof(all));
	printf("\nbuilding ahead: hours per bisection on a simulated clock "
	       "(build 10 min, 3 min within 16 commits of the slot's last "
	       "build; boot 1 min; run 70 s), one test box, %ld histories a "
	       "row\n\n",
	       trials);
	printf("%-9s %6s | %14s | %21s | %21s | %21s | %5s\n", "", "",
	       "not ahead", "ahead, 1 slot", "2 slots", "4 slots", "same");
	printf("%-9s %6s | %5s %4s %3s | %5s %4s %4s %4s %1s | %5s %4s %4s "
	       "%4s %1s | %5s %4s %4s %4s %1s | %5s\n",
	       "noise", "change", "hours", "wait", "bld", "hours", "x", "wait",
	       "bld", "", "hours", "x", "wait", "bld", "", "hours", "x", "wait",
	       "bld", "", "runs");
	for (a = 0; a < RB_ARRAY_SIZE(shapes); a++)
		for (e = 0; e < RB_ARRAY_SIZE(eff); e++) {
			struct ahead_tally t[AHEAD_VARIANTS];
			double n = (double)trials;

			memset(t, 0, sizeof(t));
			ahead_row(shapes[a], eff[e], trials, N, pol, t);
			printf("%-9s %6.0f | %5.2f %4.2f %3.0f |",
			       shape_names[shapes[a]], eff[e],
			       t[0].wall / n / 3600, t[0].wait / n / 3600,
			       t[0].builds / n);
			for (v = 1; v < AHEAD_VARIANTS; v++)
				printf(" %5.2f %4.2f %4.2f %4.1f %1s |",
				       t[v].wall / n / 3600,
				       t[v].wall / t[0].wall,
				       t[v].wait / n / 3600, t[v].builds / n,
				       "");
			printf(" %4.0f%%\n",
			       100.0 *
				       (double)(t[1].same + t[2].same +
						t[3].same) /
				       (3 * n));
			fflush(stdout);
			for (v = 0; v < AHEAD_VARIANTS; v++) {
				all[v].trials += t[v].trials;
				all[v].same += t[v].same;
				all[v].wall += t[v].wall;
				all[v].wait += t[v].wait;
				all[v].builds += t[v].builds;
				all[v].wasted += t[v].wasted;
			}
		}
	printf("\n(x: wall time against not building ahead; wait: hours the "
	       "box waited for kernels; bld: builds started)\n");
	/* no robot does better than one whose kernels are all ready when
	 * wanted but the first (the good anchor's full build) */
	printf("floor: every kernel ready when wanted but the first: %.2f of "
	       "the wall time\n",
	       (all[0].wall - all[0].wait + 600.0 * (double)all[0].trials) /
		       all[0].wall);
	for (v = 1; v < AHEAD_VARIANTS; v++)
		printf("ahead on %d build slot%s: %.2f of the wall time "
		       "(target <= 0.6 on 2), %.2f of the builds (target <= "
		       "2; %.1f a bisection wasted), same runs and culprit in "
		       "%ld of %ld\n",
		       ahead_slots[v], ahead_slots[v] == 1 ? "" : "s",
		       all[v].wall / all[0].wall, all[v].builds / all[0].builds,
		       all[v].wasted / (double)all[v].trials, all[v].same,
		       all[v].trials);
}

int main(int argc, char **argv)
{
	long trials = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
	long N = argc > 2 ? strtol(argv[2], NULL, 10) : 300;
	struct tally to[NSHAPES][NEFF], tb[NSHAPES][NEFF];
	struct stats_policy pol;
	struct totals t = { .worst_right = 1 };
	long shape_mask = -1, effect_mask = -1;
	int s;
	size_t e;

	stats_policy_init(&pol);
	pol.direction = 1;
	knobs(&pol, &shape_mask, &effect_mask);
	if (N < 8 || trials < 1)
		rb_die("usage: stats-sim [trials] [commits >= 8]");
	memset(to, 0, sizeof(to));
	memset(tb, 0, sizeof(tb));
	printf("simulated bisections: linux-like histories of %ld commits "
	       "with merges (%d steps), %ld per row, budget %.0f%% wrong "
	       "culprits, %.0f%% wrong steps\n\n",
	       N, rb_bisect_estimate_steps((uint32_t)N) + 1, trials,
	       100 * pol.budget, 100 * pol.step_budget);
	printf("%-9s %6s | %8s %7s %7s %6s %5s %6s %6s | %8s %6s %6s\n",
	       "noise", "change", "right", "false", "named", "stated", "weak",
	       "runs", "builds", "lkp-right", "runs", "builds");
	printf("%-9s %6s | %8s %7s %7s %6s %5s %6s %6s | %8s %6s %6s\n", "",
	       "(sd)", "culprit", "report", "right", "conf%", "steps", "", "",
	       "culprit", "", "");
	for (s = 0; s < NSHAPES; s++) {
		if (!(shape_mask & (1L << s)))
			continue;
		for (e = 0; e < NEFF; e++) {
			if (!(effect_mask & (1L << e)))
				continue;
			row(s, e, trials, N, &pol, &to[s][e], &tb[s][e]);
			total(&t, effects[e], &to[s][e], &tb[s][e]);
			print_row(shape_names[s], effects[e], &to[s][e],
				  &tb[s][e]);
			fflush(stdout);
		}
	}
	print_totals(&t);
	printf("\nwhere the runs go (per bisection), and its length in run "
	       "times (hosts in parallel)\n\n");
	printf("%-9s %6s | %7s %8s %6s %6s %7s | %6s %7s | %6s %6s | %5s %5s\n",
	       "noise", "change", "repro", "endpoint", "cand", "anchor",
	       "confirm", "drops", "inconcl", "time", "lkp", "share", "cover");
	for (s = 0; s < NSHAPES; s++)
		for (e = 0; e < NEFF; e++)
			if (to[s][e].trials)
				print_where(shape_names[s], effects[e],
					    &to[s][e], &tb[s][e]);
	if (!getenv("SIM_AHEAD") || strcmp(getenv("SIM_AHEAD"), "0"))
		ahead_table(trials, N, &pol);
	return 0;
}
