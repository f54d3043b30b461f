// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated bisections for the step verdict (robot/stats.c), driven the
 * way robot/session.c drives it.
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
 *   hosts      gaussian plus a per-host offset N(0, 1) on 4 test hosts
 *              (host 0 has none); the session uses all 4 hosts
 *
 * Our side is the robot's own loop: the real session_run (robot/session.c,
 * with its endpoint check, rounds of k-way picks, step verdicts, anchor
 * refreshes, confirmation and drops) over in-memory ops
 * (tests/lib/session-mem.c): a line of commits, the bisection's records in
 * arrays, and a simulated lab where every run takes 0.9 to 1.1 time units
 * on its host (drift follows that clock). What is tallied comes from the
 * steps the session appended, as `robot bisect log` reads them.
 *
 * The baseline is lkp's practice: 6 runs per commit on one host (a random
 * one with hosts), the endpoint and every step of a binary search decided
 * by lkp's change rule against the good anchor, no confirmation.
 *
 * Printed per scenario: right culprits (or false reports for null
 * histories), weak steps, mean runs per bisection, and the same for the
 * baseline; then where the runs go (endpoint check, candidates, anchors
 * re-measured during the steps, confirmation), the drops (unconfirmed
 * culprits and contradicting rounds) and inconclusive ends per bisection, and how long a bisection takes in
 * run times (the hosts run in parallel; lkp's runs one after another).
 * Seeded: the same numbers every time.
 *
 * usage: stats-sim [trials per scenario (1000)] [commits (500)]
 *
 * Knobs for exploring (environment): SIM_SHAPES (bit mask of the noise
 * shapes), SIM_EFFECTS (bit mask of the rows: 2, 3, 5, 10 sd, null),
 * SIM_DRIFT (sd per run, 0.01), SIM_DRIFT_MODE (0 off, 1 auto, 2 on),
 * SIM_DRIFT_SD (the policy's drift_sd), SIM_MIN_RUNS, SIM_ANCHOR_MAX,
 * SIM_ANCHOR_MIN, SIM_ENDPOINT_ALPHA, SIM_CONFIRM_ALPHA, SIM_HOSTS (hosts
 * of the hosts shape, 4), SIM_DEBUG (print every wrong step with its
 * evidence, every refused endpoint and every wrong culprit).
 */
#include <math.h>

#include "robot.h"
#include "bisect.h"
#include "sbuf.h"
#include "session-mem.h"
#include "session.h"
#include "stats.h"

enum shape { GAUSS, BIMODAL, HEAVY, DRIFT, HOSTS, NSHAPES };
static const char *const shape_names[] = { "gaussian", "bimodal", "heavy",
					   "drift", "hosts" };

#define MAXHOSTS SESSION_MEM_MAX_HOSTS
static int nr_hosts_shape = 4;
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
	long runs; /* runs so far */
	double clock; /* the drift clock (serial runs: the run counter) */
	double host_off[MAXHOSTS];
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

/* one run of commit k on host h at time t */
static double measure(struct world *w, long k, int h, double t)
{
	double x = noise(w);

	if (w->culprit && k >= w->culprit)
		x -= w->effect;
	if (w->shape == DRIFT)
		x += drift_per_run * t;
	if (w->shape == HOSTS)
		x += w->host_off[h];
	w->runs++;
	return BASE + SD * x;
}

/* ------------------------------------------------------------------ */
/* the session: the real one over in-memory ops */

struct result {
	long reported; /* culprit reported, 0: none */
	long runs;
	long kind_runs[MEM_KINDS];
	long weak;
	long unconfirmed; /* culprits that did not confirm */
	long contradictions; /* rounds dropped: no candidate left */
	bool reproduced; /* the endpoint check said so */
	bool inconclusive;
	double clock; /* wall time */
};

/* one run of commit k on host h started at t, 0.9 to 1.1 units long */
static enum session_outcome sim_run(void *data, int h, long k, double t,
				    double *value, double *duration)
{
	struct world *w = data;

	*duration = 0.9 + 0.2 * rng_unif(&w->rng);
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
		    strcmp(st->verdict, "reproduced"))
			printf("REFUSED %s %.0f: %s\n", shape_names[w->shape],
			       w->effect, st->detail);
		if (strcmp(st->kind, "verdict") || !st->commit ||
		    !strcmp(st->verdict, "skip"))
			continue;
		k = session_mem_commit(m, st->commit);
		if (!strcmp(st->verdict, "bad") !=
		    (w->culprit && k >= w->culprit))
			printf("WRONG %s %.0f step %ld culprit=%ld: %s\n",
			       shape_names[w->shape], w->effect, k, w->culprit,
			       st->detail);
	}
	if (out->status == SESSION_FOUND &&
	    session_mem_commit(m, out->culprit) != w->culprit)
		printf("WRONG CULPRIT %s %.0f: %ld (true %ld) after %ld runs\n",
		       shape_names[w->shape], w->effect,
		       session_mem_commit(m, out->culprit), w->culprit,
		       m->runs);
}

static void ours(struct world *w, struct session_mem *m,
		 const struct stats_policy *pol, struct result *res)
{
	struct session_outcome_info out;
	int k;

	memset(res, 0, sizeof(*res));
	session_mem_reset(m);
	m->model.data = w;
	if (session_mem_run(m, pol, &out) < 0)
		rb_die("session: %s", rb_errmsg());
	if (getenv("SIM_DEBUG"))
		debug(w, m, &out);
	if (out.status == SESSION_FOUND)
		res->reported = session_mem_commit(m, out.culprit);
	res->reproduced = out.status != SESSION_NOT_REPRODUCED;
	res->inconclusive = res->reproduced && out.status != SESSION_FOUND;
	res->weak =
		(long)session_mem_count_steps(m, "verdict", "\"weak\": true");
	res->unconfirmed =
		(long)session_mem_count_steps(m, "unconfirmed", NULL);
	res->contradictions =
		(long)session_mem_count_steps(m, "contradiction", NULL);
	res->runs = m->runs;
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

static void lkp_runs(struct world *w, struct stats_set *set, long k, int h,
		     int n)
{
	int i;

	for (i = 0; i < n; i++) {
		stats_set_add(set, measure(w, k, h, w->clock));
		w->clock += 1;
	}
}

static void baseline(struct world *w, long N, struct result *res)
{
	struct stats_set g = STATS_SET_INIT, b = STATS_SET_INIT;
	long lo = 0, hi = N;

	memset(res, 0, sizeof(*res));
	lkp_runs(w, &g, 0, 0, 6);
	lkp_runs(w, &b, N, 0, 6);
	if (!lkp_bad(&g, &b))
		goto out;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;
		int h = w->shape == HOSTS ? (int)(rng_next(&w->rng) %
						  (uint64_t)nr_hosts_shape) :
					    0;
		struct stats_set c = STATS_SET_INIT;

		lkp_runs(w, &c, mid, h, 6);
		if (lkp_bad(&g, &c))
			hi = mid;
		else
			lo = mid;
		stats_set_release(&c);
	}
	res->reported = hi;
out:
	res->runs = w->runs;
	res->clock = w->clock;
	stats_set_release(&g);
	stats_set_release(&b);
}

/* ------------------------------------------------------------------ */

struct tally {
	long trials, right, reported, weak_steps, unconfirmed, inconclusive;
	long reproduced;
	double runs, kind_runs[MEM_KINDS], clock;
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
	for (int h = 0; h < MAXHOSTS; h++)
		w->host_off[h] = h ? rng_gauss(&w->rng) : 0;
}

static void add(struct tally *t, const struct result *r, long culprit)
{
	int k;

	t->trials++;
	t->runs += (double)r->runs;
	t->clock += r->clock;
	t->weak_steps += r->weak;
	t->unconfirmed += r->unconfirmed + r->contradictions;
	t->inconclusive += r->inconclusive;
	t->reproduced += r->reproduced;
	for (k = 0; k < MEM_KINDS; k++)
		t->kind_runs[k] += (double)r->kind_runs[k];
	if (r->reported)
		t->reported++;
	if (r->reported && r->reported == culprit)
		t->right++;
}

static void print_row(const char *shape, double effect, const struct tally *to,
		      const struct tally *tb)
{
	double n = (double)to->trials, nb = (double)tb->trials;

	if (effect > 0)
		printf("%-9s %6.0f | %7.2f%% %7s %6.2f %6.1f | %7.2f%% %6.1f | "
		       "%5.2f\n",
		       shape, effect, 100.0 * (double)to->right / n, "",
		       (double)to->weak_steps / n, to->runs / n,
		       100.0 * (double)tb->right / nb, tb->runs / nb,
		       to->runs / tb->runs);
	else
		printf("%-9s %6s | %8s %6.2f%% %6.2f %6.1f | %6.2f%%F %6.1f | "
		       "%5.2f\n",
		       shape, "null", "", 100.0 * (double)to->reported / n,
		       (double)to->weak_steps / n, to->runs / n,
		       100.0 * (double)tb->reported / nb, tb->runs / nb,
		       to->runs / tb->runs);
}

/* where the runs go, and the time the bisection takes */
static void print_where(const char *shape, double effect,
			const struct tally *to, const struct tally *tb)
{
	double n = (double)to->trials;
	char ef[16];

	snprintf(ef, sizeof(ef), effect > 0 ? "%.0f" : "null", effect);
	printf("%-9s %6s | %6.2f%% %8.1f %6.1f %6.1f %7.1f | %6.3f %6.2f%% | "
	       "%6.1f %6.1f\n",
	       shape, ef, 100.0 * (double)to->reproduced / n,
	       to->kind_runs[MEM_ENDPOINT] / n, to->kind_runs[MEM_CAND] / n,
	       to->kind_runs[MEM_ANCHOR] / n, to->kind_runs[MEM_CONFIRM] / n,
	       (double)to->unconfirmed / n,
	       100.0 * (double)to->inconclusive / n, to->clock / n,
	       tb->clock / (double)tb->trials);
}

int main(int argc, char **argv)
{
	static const double effects[] = { 2, 3, 5, 10, 0 };
	enum { NEFF = RB_ARRAY_SIZE(effects) };
	long trials = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long N = argc > 2 ? strtol(argv[2], NULL, 10) : 500;
	struct tally to[NSHAPES][NEFF], tb[NSHAPES][NEFF];
	struct stats_policy pol;
	struct session_mem_model model = { .run = sim_run };
	struct session_mem one, many;
	double tot_ours = 0, tot_base = 0, null_ours = 0, null_base = 0;
	long n_right = 0, n_cul = 0, n_false = 0, n_null = 0, b_right = 0;
	long b_false = 0;
	double worst_right = 1, worst_ratio = 0;
	long shape_mask = -1, effect_mask = -1;
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
	if (getenv("SIM_EFFECTS"))
		effect_mask = strtol(getenv("SIM_EFFECTS"), NULL, 0);
	if (getenv("SIM_MIN_RUNS"))
		pol.min_runs =
			(unsigned)strtol(getenv("SIM_MIN_RUNS"), NULL, 10);
	if (getenv("SIM_ANCHOR_MIN"))
		pol.anchor_min_runs =
			(unsigned)strtol(getenv("SIM_ANCHOR_MIN"), NULL, 10);
	if (getenv("SIM_ANCHOR_MAX"))
		pol.anchor_max_runs =
			(unsigned)strtol(getenv("SIM_ANCHOR_MAX"), NULL, 10);
	if (getenv("SIM_ENDPOINT_ALPHA"))
		pol.endpoint_alpha = strtod(getenv("SIM_ENDPOINT_ALPHA"), NULL);
	if (getenv("SIM_CONFIRM_ALPHA"))
		pol.confirm_alpha = strtod(getenv("SIM_CONFIRM_ALPHA"), NULL);
	if (getenv("SIM_DRIFT_SD"))
		pol.drift_sd = strtod(getenv("SIM_DRIFT_SD"), NULL);
	if (getenv("SIM_HOSTS"))
		nr_hosts_shape = (int)RB_MAX(
			1, RB_MIN(MAXHOSTS,
				  strtol(getenv("SIM_HOSTS"), NULL, 10)));
	if (N < 2 || trials < 1)
		rb_die("usage: stats-sim [trials] [commits >= 2]");
	session_mem_init(&one, N, 1, &model);
	session_mem_init(&many, N, nr_hosts_shape, &model);
	memset(to, 0, sizeof(to));
	memset(tb, 0, sizeof(tb));
	printf("simulated bisections: %ld commits (%d steps), %ld histories "
	       "per row, budget %.0f%% wrong culprits\n\n",
	       N, rb_bisect_estimate_steps((uint32_t)N) + 1, trials,
	       100 * pol.budget);
	printf("%-9s %6s | %8s %7s %6s %6s | %8s %6s | %5s\n", "noise",
	       "change", "right", "false", "weak", "runs", "lkp-right", "runs",
	       "ratio");
	printf("%-9s %6s | %8s %7s %6s %6s | %8s %6s | %5s\n", "", "(sd)",
	       "culprit", "report", "steps", "", "culprit", "", "");
	for (s = 0; s < NSHAPES; s++) {
		if (!(shape_mask & (1L << s)))
			continue;
		for (e = 0; e < NEFF; e++) {
			struct tally *o = &to[s][e], *b = &tb[s][e];
			int nhosts = s == HOSTS ? nr_hosts_shape : 1;
			long i;

			if (!(effect_mask & (1L << e)))
				continue;
			for (i = 0; i < trials; i++) {
				struct world w;
				struct result r;
				uint64_t seed = 1000003ULL * (uint64_t)i +
						7919ULL * (uint64_t)s +
						(uint64_t)(effects[e] * 101);

				new_world(&w, seed, (enum shape)s, effects[e],
					  N);
				ours(&w, nhosts > 1 ? &many : &one, &pol, &r);
				add(o, &r, w.culprit);
				new_world(&w, seed, (enum shape)s, effects[e],
					  N);
				baseline(&w, N, &r);
				add(b, &r, w.culprit);
			}
			if (effects[e] > 0) {
				tot_ours += o->runs;
				tot_base += b->runs;
				n_right += o->right;
				b_right += b->right;
				n_cul += o->trials;
				worst_right = RB_MIN(worst_right,
						     (double)o->right /
							     (double)o->trials);
				worst_ratio =
					RB_MAX(worst_ratio, o->runs / b->runs);
			} else {
				null_ours += o->runs;
				null_base += b->runs;
				n_false += o->reported;
				b_false += b->reported;
				n_null += o->trials;
			}
			print_row(shape_names[s], effects[e], o, b);
			fflush(stdout);
		}
	}
	if (n_cul)
		printf("\nhistories with a culprit: %.2f%% right (worst row "
		       "%.2f%%; lkp %.2f%%), %.2f of the baseline's runs "
		       "(worst row %.2f)\n",
		       100.0 * (double)n_right / (double)n_cul,
		       100 * worst_right,
		       100.0 * (double)b_right / (double)n_cul,
		       tot_ours / tot_base, worst_ratio);
	if (n_null)
		printf("null histories: %.2f%% false reports (lkp %.2f%%), "
		       "%.1f runs to refuse (lkp %.1f)\n",
		       100.0 * (double)n_false / (double)n_null,
		       100.0 * (double)b_false / (double)n_null,
		       null_ours / (double)n_null, null_base / (double)n_null);
	printf("\nwhere the runs go (per bisection), and its length in run "
	       "times (hosts in parallel)\n\n");
	printf("%-9s %6s | %7s %8s %6s %6s %7s | %6s %7s | %6s %6s\n", "noise",
	       "change", "repro", "endpoint", "cand", "anchor", "confirm",
	       "drops", "inconcl", "time", "lkp");
	for (s = 0; s < NSHAPES; s++)
		for (e = 0; e < NEFF; e++)
			if (to[s][e].trials)
				print_where(shape_names[s], effects[e],
					    &to[s][e], &tb[s][e]);
	session_mem_release(&one);
	session_mem_release(&many);
	return 0;
}
