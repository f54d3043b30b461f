// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated bisections for the step verdict (robot/stats.c).
 *
 * A history is a line of N commits; commit 0 is the good anchor and
 * commit N the bad one. In a history with a culprit c (uniform in 1..N),
 * every commit >= c has its metric lowered by `effect` noise stddevs (a
 * regression of a higher-is-better *_per_sec metric); a null history has
 * no change at all. Every run draws noise of one shape:
 *
 *   gaussian   N(0, 1)
 *   bimodal    70% N(-0.62, 0.3), 30% N(+1.46, 0.3)  (mean 0, sd 1)
 *   heavy      Student t with 3 df plus 1% wild runs at +-6; sd 1 overall
 *   drift      gaussian plus a linear drift of 0.01 sd per run (1 sd per
 *              100 runs, about what a 2-sd bisection takes)
 *   hosts      gaussian plus a per-host offset N(0, 1) on 4 hosts; each
 *              step runs on a random host (the endpoints on host 0)
 *
 * The robot's session is simulated as session.c will run it: endpoint
 * (power) check with anchors measured alternately until it decides, then
 * a plain binary search where each step runs the candidate one run at a
 * time until stats_step_verdict decides, re-measuring anchors when it
 * asks (on the step's host; the policy's anchor_refresh is 12 runs). Runs
 * carry their host and a run counter as `when`. The baseline is lkp's practice: 6 runs per commit, the endpoint
 * and every step decided by lkp's change rule against the good anchor.
 *
 * Printed per scenario: right culprits (or false reports for null
 * histories), weak steps, mean runs per bisection, and the same for the
 * baseline. Seeded: the same numbers every time.
 *
 * usage: stats-sim [trials per scenario (1000)] [commits (500)]
 *
 * Knobs for exploring (environment): SIM_SHAPES (bit mask of the noise
 * shapes), SIM_DRIFT (sd per run, 0.01), SIM_DRIFT_MODE (0 off, 1 auto,
 * 2 on), SIM_REFRESH (anchor refresh interval in runs, 12), SIM_MIN_RUNS,
 * SIM_ANCHOR_MAX, SIM_VERBOSE (where the runs go), SIM_DEBUG (print every
 * wrong step with its evidence).
 */
#include <math.h>

#include "robot.h"
#include "sbuf.h"
#include "stats.h"

enum shape { GAUSS, BIMODAL, HEAVY, DRIFT, HOSTS, NSHAPES };
static const char *const shape_names[] = { "gaussian", "bimodal", "heavy",
					   "drift", "hosts" };

#define NHOSTS 4
static double drift_per_run = 0.01;
#define BASE 1000.0
#define SD 10.0

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unif(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_gauss(struct rng *r)
{
	return sqrt(-2 * log(rng_unif(r))) * cos(2 * M_PI * rng_unif(r));
}

struct world {
	struct rng rng;
	enum shape shape;
	double effect; /* in noise sds; 0: null history */
	long culprit; /* 0 when null */
	long runs; /* runs so far (the drift clock) */
	double host_off[NHOSTS];
};

static double noise(struct world *w)
{
	double x, u;

	switch (w->shape) {
	case BIMODAL:
		u = rng_unif(&w->rng);
		return (u < 0.7 ? -0.624 : 1.456) + 0.3 * rng_gauss(&w->rng);
	case HEAVY:
		if (rng_unif(&w->rng) < 0.01)
			return (rng_unif(&w->rng) < 0.5 ? -6 : 6);
		x = rng_gauss(&w->rng);
		u = 0;
		for (int i = 0; i < 3; i++) {
			double g = rng_gauss(&w->rng);

			u += g * g;
		}
		/* t3 has variance 3; the wild runs add 0.36 */
		return x / sqrt(u / 3) / sqrt(3) * sqrt(0.64 / 0.99);
	default:
		return rng_gauss(&w->rng);
	}
}

/* one run of commit k on host h */
static double measure(struct world *w, long k, int h)
{
	double x = noise(w);

	if (w->culprit && k >= w->culprit)
		x -= w->effect;
	if (w->shape == DRIFT)
		x += drift_per_run * (double)w->runs;
	if (w->shape == HOSTS)
		x += w->host_off[h];
	w->runs++;
	return BASE + SD * x;
}

struct result {
	long reported; /* culprit reported, 0: none */
	long runs;
	long endpoint_runs; /* of which the endpoint check */
	long anchor_runs; /* of which anchors re-measured during steps */
	int weak;
};

static void run_anchor_pair(struct world *w, struct stats_set *g,
			    struct stats_set *b, long n, int h, long N)
{
	for (long i = 0; i < n; i++) {
		double t = (double)w->runs;

		stats_set_add_run(g, measure(w, 0, h), h, t);
		t = (double)w->runs;
		stats_set_add_run(b, measure(w, N, h), h, t);
	}
}

static unsigned log2_ceil(long n)
{
	unsigned k = 0;

	while ((1L << k) < n)
		k++;
	return k;
}

static void ours(struct world *w, long N, const struct stats_policy *pol0,
		 struct result *res)
{
	struct stats_set g = STATS_SET_INIT, b = STATS_SET_INIT;
	struct stats_policy pol = *pol0;
	struct stats_power pw;
	long lo = 0, hi = N;

	memset(res, 0, sizeof(*res));
	pol.expected_steps = log2_ceil(N);
	run_anchor_pair(w, &g, &b, pol.anchor_min_runs, 0, N);
	for (;;) {
		if (stats_power_check(&pol, &g, &b, &pw, NULL))
			rb_die("power check: %s", rb_errmsg());
		if (pw.verdict != STATS_ENDPOINT_NEED_MORE)
			break;
		run_anchor_pair(w, &g, &b, pw.more_anchor_runs, 0, N);
	}
	res->endpoint_runs = w->runs;
	if (pw.verdict != STATS_REPRODUCED)
		goto out;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;
		int h = w->shape == HOSTS ? (int)(rng_next(&w->rng) % NHOSTS) :
					    0;
		struct stats_set c = STATS_SET_INIT;
		struct stats_step st;
		long before;

		for (;;) {
			if (stats_step_verdict(&pol, &g, &b, &c, &st, NULL))
				rb_die("verdict: %s", rb_errmsg());
			if (st.verdict != STATS_NEED_MORE)
				break;
			if (st.more_anchor_runs) {
				before = w->runs;
				run_anchor_pair(w, &g, &b, st.more_anchor_runs,
						st.anchor_host, N);
				res->anchor_runs += w->runs - before;
			} else
				stats_set_add_run(&c, measure(w, mid, h), h,
						  (double)w->runs);
		}
		if (st.verdict == STATS_WEAK)
			res->weak++;
		/* what this step learnt about the noise helps the next */
		if (!getenv("SIM_NO_NOISE_POOL"))
			stats_noise_add(&pol.noise, &c);
		if (getenv("SIM_DEBUG") &&
		    ((st.verdict == STATS_WEAK ? st.lean : st.verdict) ==
		     STATS_BAD) != (mid >= w->culprit)) {
			struct sbuf sb = SBUF_INIT;

			stats_step_verdict(&pol, &g, &b, &c, &st, &sb);
			printf("WRONG %s %.0f step mid=%ld culprit=%ld runs=%ld: %s\n",
			       shape_names[w->shape], w->effect, mid,
			       w->culprit, w->runs, sb.buf);
			sbuf_release(&sb);
		}
		if ((st.verdict == STATS_WEAK ? st.lean : st.verdict) ==
		    STATS_BAD)
			hi = mid;
		else
			lo = mid;
		stats_set_release(&c);
	}
	res->reported = hi;
out:
	res->runs = w->runs;
	stats_set_release(&g);
	stats_set_release(&b);
}

/* lkp: bad when the change rule fires and the median moved down */
static bool lkp_bad(const struct stats_set *good, const struct stats_set *c)
{
	struct stats_lkp_summary a, b;

	stats_lkp_summary(&a, good->v, NULL, good->nr, 3);
	stats_lkp_summary(&b, c->v, NULL, c->nr, 3);
	return stats_lkp_changed(&a, &b) && b.mid < a.mid;
}

static void baseline(struct world *w, long N, struct result *res)
{
	struct stats_set g = STATS_SET_INIT, b = STATS_SET_INIT;
	long lo = 0, hi = N;

	memset(res, 0, sizeof(*res));
	run_anchor_pair(w, &g, &b, 6, 0, N);
	if (!lkp_bad(&g, &b))
		goto out;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;
		int h = w->shape == HOSTS ? (int)(rng_next(&w->rng) % NHOSTS) :
					    0;
		struct stats_set c = STATS_SET_INIT;

		for (int i = 0; i < 6; i++)
			stats_set_add(&c, measure(w, mid, h));
		if (lkp_bad(&g, &c))
			hi = mid;
		else
			lo = mid;
		stats_set_release(&c);
	}
	res->reported = hi;
out:
	res->runs = w->runs;
	stats_set_release(&g);
	stats_set_release(&b);
}

struct tally {
	long trials, right, reported, weak_runs, weak_steps;
	double runs, endpoint_runs, anchor_runs;
};

static void new_world(struct world *w, uint64_t seed, enum shape shape,
		      double effect, long N)
{
	memset(w, 0, sizeof(*w));
	w->rng.s = seed;
	w->shape = shape;
	w->effect = effect;
	w->culprit = effect > 0 ? 1 + (long)(rng_next(&w->rng) % (uint64_t)N) :
				  0;
	for (int h = 0; h < NHOSTS; h++)
		w->host_off[h] = h ? rng_gauss(&w->rng) : 0;
}

int main(int argc, char **argv)
{
	static const double effects[] = { 2, 3, 5, 10, 0 };
	long trials = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long N = argc > 2 ? strtol(argv[2], NULL, 10) : 500;
	struct stats_policy pol;
	double tot_ours = 0, tot_base = 0, null_ours = 0, null_base = 0;
	long n_right = 0, n_cul = 0, n_false = 0, n_null = 0, b_right = 0;
	long b_false = 0;
	double worst_right = 1;
	long shape_mask = -1;
	int s;
	size_t e;

	stats_policy_init(&pol);
	pol.direction = 1;
	if (getenv("SIM_DRIFT"))
		drift_per_run = strtod(getenv("SIM_DRIFT"), NULL);
	if (getenv("SIM_DRIFT_MODE"))
		pol.drift = (enum stats_drift)strtol(getenv("SIM_DRIFT_MODE"),
						     NULL, 10);
	if (getenv("SIM_SHAPES"))
		shape_mask = strtol(getenv("SIM_SHAPES"), NULL, 0);
	if (getenv("SIM_MIN_RUNS"))
		pol.min_runs =
			(unsigned)strtol(getenv("SIM_MIN_RUNS"), NULL, 10);
	if (getenv("SIM_ANCHOR_MAX"))
		pol.anchor_max_runs =
			(unsigned)strtol(getenv("SIM_ANCHOR_MAX"), NULL, 10);
	if (getenv("SIM_REFRESH"))
		pol.anchor_refresh = strtod(getenv("SIM_REFRESH"), NULL);
	else
		pol.anchor_refresh = 12;
	printf("simulated bisections: %ld commits (%u steps), %ld histories "
	       "per row, budget %.0f%% wrong culprits\n\n",
	       N, log2_ceil(N), trials, 100 * pol.budget);
	printf("%-9s %6s | %8s %7s %6s %6s | %8s %6s | %5s\n", "noise",
	       "change", "right", "false", "weak", "runs", "lkp-right", "runs",
	       "ratio");
	printf("%-9s %6s | %8s %7s %6s %6s | %8s %6s | %5s\n", "", "(sd)",
	       "culprit", "report", "steps", "", "culprit", "", "");
	for (s = 0; s < NSHAPES; s++) {
		if (!(shape_mask & (1L << s)))
			continue;
		for (e = 0; e < RB_ARRAY_SIZE(effects); e++) {
			struct tally to = { 0 }, tb = { 0 };
			long i;

			for (i = 0; i < trials; i++) {
				struct world w;
				struct result r;
				uint64_t seed = 1000003ULL * (uint64_t)i +
						7919ULL * (uint64_t)s +
						(uint64_t)(effects[e] * 101);

				new_world(&w, seed, (enum shape)s, effects[e],
					  N);
				ours(&w, N, &pol, &r);
				to.trials++;
				to.runs += (double)r.runs;
				to.weak_steps += r.weak;
				to.endpoint_runs += (double)r.endpoint_runs;
				to.anchor_runs += (double)r.anchor_runs;
				if (r.reported)
					to.reported++;
				if (r.reported && r.reported == w.culprit)
					to.right++;

				new_world(&w, seed, (enum shape)s, effects[e],
					  N);
				baseline(&w, N, &r);
				tb.trials++;
				tb.runs += (double)r.runs;
				if (r.reported)
					tb.reported++;
				if (r.reported && r.reported == w.culprit)
					tb.right++;
			}
			if (getenv("SIM_VERBOSE"))
				printf("    not reported %.2f%%, endpoint %.1f, "
				       "anchors %.1f, candidates %.1f runs\n",
				       100.0 *
					       (double)(to.trials -
							to.reported) /
					       (double)to.trials,
				       to.endpoint_runs / (double)to.trials,
				       to.anchor_runs / (double)to.trials,
				       (to.runs - to.endpoint_runs -
					to.anchor_runs) /
					       (double)to.trials);
			if (effects[e] > 0) {
				tot_ours += to.runs;
				tot_base += tb.runs;
				n_right += to.right;
				b_right += tb.right;
				n_cul += to.trials;
				worst_right = RB_MIN(worst_right,
						     (double)to.right /
							     (double)to.trials);
			} else {
				null_ours += to.runs;
				null_base += tb.runs;
				n_false += to.reported;
				b_false += tb.reported;
				n_null += to.trials;
			}
			if (effects[e] > 0)
				printf("%-9s %6.0f | %7.2f%% %7s %6.2f %6.1f | "
				       "%7.2f%% %6.1f | %5.2f\n",
				       shape_names[s], effects[e],
				       100.0 * (double)to.right /
					       (double)to.trials,
				       "",
				       (double)to.weak_steps /
					       (double)to.trials,
				       to.runs / (double)to.trials,
				       100.0 * (double)tb.right /
					       (double)tb.trials,
				       tb.runs / (double)tb.trials,
				       to.runs / tb.runs);
			else
				printf("%-9s %6s | %8s %6.2f%% %6.2f %6.1f | "
				       "%6.2f%%F %6.1f | %5.2f\n",
				       shape_names[s], "null", "",
				       100.0 * (double)to.reported /
					       (double)to.trials,
				       (double)to.weak_steps /
					       (double)to.trials,
				       to.runs / (double)to.trials,
				       100.0 * (double)tb.reported /
					       (double)tb.trials,
				       tb.runs / (double)tb.trials,
				       to.runs / tb.runs);
			fflush(stdout);
		}
	}
	printf("\nhistories with a culprit: %.2f%% right (worst row %.2f%%; "
	       "lkp %.2f%%), %.2f of the baseline's runs\n",
	       100.0 * (double)n_right / (double)n_cul, 100 * worst_right,
	       100.0 * (double)b_right / (double)n_cul, tot_ours / tot_base);
	printf("null histories: %.2f%% false reports (lkp %.2f%%), %.1f runs "
	       "to refuse (lkp %.1f)\n",
	       100.0 * (double)n_false / (double)n_null,
	       100.0 * (double)b_false / (double)n_null,
	       null_ours / (double)n_null, null_base / (double)n_null);
	return 0;
}
