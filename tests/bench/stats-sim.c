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
 * The session is simulated as robot/session.c runs it, with the real
 * commit picks of robot/bisect.c over the line of commits:
 *  - endpoints: every idle host runs the anchor it has fewer runs of, in
 *    pairs (g b b g ...), until stats_power_check decides; the runs still
 *    going then end (and count);
 *  - rounds: one host picks one commit (rb_bisect_next) and with several
 *    hosts rb_bisect_picks gives each host a commit; each commit is run
 *    one run at a time until stats_step_verdict decides; anchor runs it
 *    asks for go first (good ones, then bad ones) on the same host; a weak
 *    verdict is a skip (a neighbour is tested instead); decided steps add
 *    their candidate runs to the policy's noise pool;
 *  - confirmation: the parent and the culprit are decided again by
 *    stats_confirm_verdict on fresh runs, interleaved on host 0
 *    (anchors are known): confirmed when the parent is good
 *    and the culprit bad; an unconfirmed culprit drops its and its
 *    parent's verdicts and the bisection goes on (at most 3 tries, then
 *    inconclusive); verdicts of one round are applied in the order they
 *    were decided, one that contradicts them is left out, and when the
 *    verdicts leave no candidate the last round's are dropped; a dropped
 *    commit is decided again on runs after the drop only.
 * The budget is split over git's estimate of the steps plus 2 (session.c),
 * anchors are refreshed after 12 runs per host, runs carry their host and
 * the run counter (`when`) as in the store. Every run takes 0.9 to 1.1
 * time units; drift follows that clock.
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
#include "stats.h"

enum shape { GAUSS, BIMODAL, HEAVY, DRIFT, HOSTS, NSHAPES };
static const char *const shape_names[] = { "gaussian", "bimodal", "heavy",
					   "drift", "hosts" };

#define MAXHOSTS 8
static int nr_hosts_shape = 4;
static double drift_per_run = 0.01;
#define BASE 1000.0
#define SD 10.0

/* session.c's confirmation: tries before giving up */
#define CONFIRM_ATTEMPTS 2

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
/* the session */

enum kind { K_ENDPOINT, K_ANCHOR, K_CAND, K_CONFIRM, NKINDS };

struct host {
	bool busy;
	long commit;
	int role; /* 0 none, 1 good, 2 bad, 3 candidate */
	enum kind kind;
	double start, finish;
	double when;
};

struct probe {
	long commit;
	int host;
	bool done;
	enum rb_verdict verdict;
	unsigned anchor_due, anchor_good;
};

struct vrec {
	long commit;
	enum rb_verdict v;
	double after, last_run; /* its runs: (after, last_run] */
	bool dropped;
};

struct result {
	long reported; /* culprit reported, 0: none */
	long runs;
	long kind_runs[NKINDS];
	int weak;
	int unconfirmed; /* culprits that did not confirm */
	int contradictions; /* rounds dropped: no candidate left */
	bool reproduced; /* the endpoint check said so */
	bool inconclusive;
	double clock; /* wall time */
};

struct sess {
	struct world *w;
	struct stats_policy pol, pol0;
	long N;
	int nhosts;
	struct stats_set *set; /* runs of commit 0..N */
	struct host hosts[MAXHOSTS];
	double clock, run_id;
	struct vrec *log;
	size_t nlog, alog;
	const struct rb_graph *g;
	struct rb_bisect b;
	struct result *res;
	/* dropped verdicts: commit k's runs count after fresh[k] only */
	double *fresh;
	long last_round[MAXHOSTS]; /* the commits of the last round */
	uint32_t n_last;
};

/* the line of commits N..1 in walk order: node i is commit N - i */
static struct rb_graph graph;
static uint32_t *walk;
static long graph_n;

static void oid_of(long k, uint8_t *oid)
{
	uint64_t h = ((uint64_t)k + 1) * 0x9e3779b97f4a7c15ULL;
	int i;

	for (i = 0; i < RB_OID_RAWSZ; i++) {
		h ^= h >> 29;
		h *= 0xbf58476d1ce4e5b9ULL;
		oid[i] = (uint8_t)(h >> 56);
	}
}

static void build_graph(long N)
{
	long k;

	rb_graph_init(&graph);
	walk = xmalloc(sizeof(*walk) * (size_t)N);
	for (k = N; k >= 1; k--) {
		uint8_t oid[RB_OID_RAWSZ], par[1][RB_OID_RAWSZ];

		oid_of(k, oid);
		oid_of(k - 1, par[0]);
		walk[N - k] = rb_graph_add(&graph, oid, k, RB_NODE_CAND, 1,
					   (const uint8_t(*)[RB_OID_RAWSZ])par);
	}
	rb_graph_resolve(&graph);
	graph_n = N;
}

static long commit_of(uint32_t node)
{
	return graph_n - (long)node;
}

static uint32_t node_of(long k)
{
	return (uint32_t)(graph_n - k);
}

static void start(struct sess *s, int h, long commit, int role, enum kind k)
{
	struct host *hs = &s->hosts[h];

	hs->busy = true;
	hs->commit = commit;
	hs->role = role;
	hs->kind = k;
	hs->start = s->clock;
	hs->finish = s->clock + 0.9 + 0.2 * rng_unif(&s->w->rng);
	/* run ids are given when a run starts */
	hs->when = ++s->run_id;
}

/* the next run to end: its value goes to its commit's set */
static int wait_one(struct sess *s)
{
	int h, best = -1;
	struct host *hs;

	for (h = 0; h < s->nhosts; h++)
		if (s->hosts[h].busy &&
		    (best < 0 || s->hosts[h].finish < s->hosts[best].finish))
			best = h;
	if (best < 0)
		rb_die("wait with no run going");
	hs = &s->hosts[best];
	s->clock = hs->finish;
	hs->busy = false;
	stats_set_add_run(&s->set[hs->commit],
			  measure(s->w, hs->commit, best, hs->start), best,
			  hs->when);
	s->res->kind_runs[hs->kind]++;
	return best;
}

static bool busy_any(const struct sess *s)
{
	int h;

	for (h = 0; h < s->nhosts; h++)
		if (s->hosts[h].busy)
			return true;
	return false;
}

/* endpoints(): measure the anchors until the power check decides */
static bool endpoints(struct sess *s)
{
	struct stats_set *good = &s->set[0], *bad = &s->set[s->N];
	struct stats_power pw;
	int h;

	for (;;) {
		if (good->nr >= 2 && bad->nr >= 2) {
			if (stats_power_check(&s->pol, good, bad, &pw, NULL))
				rb_die("power check: %s", rb_errmsg());
			if (pw.verdict != STATS_ENDPOINT_NEED_MORE) {
				if (getenv("SIM_DEBUG") && s->w->culprit &&
				    pw.verdict != STATS_REPRODUCED) {
					struct sbuf sb = SBUF_INIT;

					stats_power_check(&s->pol, good, bad,
							  &pw, &sb);
					printf("REFUSED %s %.0f: %s\n",
					       shape_names[s->w->shape],
					       s->w->effect, sb.buf);
					sbuf_release(&sb);
				}
				break;
			}
		}
		for (h = 0; h < s->nhosts; h++) {
			struct host *hs = &s->hosts[h];
			size_t ng = stats_set_count_on(good, h),
			       nb = stats_set_count_on(bad, h);
			bool g;

			if (hs->busy)
				continue;
			if (hs->role == 1 && ng < nb + 1)
				g = true;
			else if (hs->role == 2 && nb < ng + 1)
				g = false;
			else
				g = ng <= nb;
			start(s, h, g ? 0 : s->N, g ? 1 : 2, K_ENDPOINT);
		}
		wait_one(s);
	}
	while (busy_any(s))
		wait_one(s);
	return pw.verdict == STATS_REPRODUCED;
}

static void log_verdict(struct sess *s, long commit, enum rb_verdict v,
			double last_run)
{
	RB_ALLOC_GROW(s->log, s->nlog + 1, s->alog);
	s->log[s->nlog++] =
		(struct vrec){ commit, v, s->fresh[commit], last_run, false };
}

/* commit k's runs in (after, upto] (session.c's load_set_upto) */
static void runs_of(const struct sess *s, long k, double after, double upto,
		    struct stats_set *out)
{
	const struct stats_set *set = &s->set[k];
	size_t i;

	stats_set_release(out);
	for (i = 0; i < set->nr; i++)
		if (set->when[i] > after && set->when[i] <= upto)
			stats_set_add_run(out, set->v[i], set->host[i],
					  set->when[i]);
}

/* drop commit k's verdicts: it is decided again on runs from now on */
static void drop(struct sess *s, long k)
{
	size_t i;

	for (i = 0; i < s->nlog; i++)
		if (s->log[i].commit == k)
			s->log[i].dropped = true;
	s->fresh[k] = s->run_id;
}

static void debug_wrong(struct sess *s, const struct probe *p,
			const struct stats_step *st)
{
	struct sbuf sb = SBUF_INIT;
	struct stats_step tmp;

	if (!getenv("SIM_DEBUG") || st->verdict == STATS_WEAK ||
	    (st->verdict == STATS_BAD) ==
		    (s->w->culprit && p->commit >= s->w->culprit))
		return;
	stats_step_verdict(&s->pol, &s->set[0], &s->set[s->N],
			   &s->set[p->commit], &tmp, &sb);
	printf("WRONG %s %.0f step %ld culprit=%ld runs=%ld: %s\n",
	       shape_names[s->w->shape], s->w->effect, p->commit, s->w->culprit,
	       s->w->runs, sb.buf);
	sbuf_release(&sb);
}

/* evaluate(): what probe p needs next; p->done once its verdict is in */
static void evaluate(struct sess *s, struct probe *p)
{
	struct stats_set fresh = STATS_SET_INIT, *c = &s->set[p->commit];
	struct stats_step st;

	if (s->fresh[p->commit] > 0) {
		runs_of(s, p->commit, s->fresh[p->commit], INFINITY, &fresh);
		c = &fresh;
	}
	if (stats_step_verdict(&s->pol, &s->set[0], &s->set[s->N], c, &st,
			       NULL))
		rb_die("verdict: %s", rb_errmsg());
	switch (st.verdict) {
	case STATS_NEED_MORE:
		p->anchor_due = st.more_anchor_runs * 2;
		p->anchor_good = st.more_anchor_runs;
		stats_set_release(&fresh);
		return;
	case STATS_GOOD:
		p->verdict = RB_GOOD;
		break;
	case STATS_BAD:
		p->verdict = RB_BAD;
		break;
	case STATS_WEAK:
		/* the truncated test: the lean, the confirmation backs it */
		p->verdict = st.lean == STATS_BAD ? RB_BAD : RB_GOOD;
		s->res->weak++;
		break;
	}
	debug_wrong(s, p, &st);
	stats_noise_add(&s->pol.noise, c);
	log_verdict(s, p->commit, p->verdict, c->nr ? c->when[c->nr - 1] : 0);
	p->done = true;
	stats_set_release(&fresh);
}

static void dispatch(struct sess *s, struct probe *p)
{
	if (p->anchor_due) {
		bool g = p->anchor_good > 0;

		if (g)
			p->anchor_good--;
		p->anchor_due--;
		start(s, p->host, g ? 0 : s->N, g ? 1 : 2, K_ANCHOR);
		return;
	}
	start(s, p->host, p->commit, 3, K_CAND);
}

static void run_round(struct sess *s, const uint32_t *picks, uint32_t n)
{
	struct probe probes[MAXHOSTS];
	uint32_t i;

	for (i = 0; i < n; i++) {
		memset(&probes[i], 0, sizeof(probes[i]));
		probes[i].commit = commit_of(picks[i]);
		probes[i].host = (int)i;
		s->last_round[i] = probes[i].commit;
	}
	s->n_last = n;
	for (;;) {
		for (i = 0; i < n; i++) {
			struct probe *p = &probes[i];

			if (p->done || s->hosts[p->host].busy)
				continue;
			if (!p->anchor_due)
				evaluate(s, p);
			if (p->done)
				continue;
			dispatch(s, p);
		}
		if (!busy_any(s))
			break;
		wait_one(s);
	}
	/* in the order decided; a contradicting verdict is left out */
	for (i = s->nlog - n; i < s->nlog; i++)
		rb_bisect_mark(&s->b, node_of(s->log[i].commit), s->log[i].v);
}

/* the runs of commit k after run id `after` on host `only` */
static void load_after(const struct sess *s, long k, double after, int only,
		       struct stats_set *out)
{
	const struct stats_set *set = &s->set[k];
	size_t i;

	stats_set_release(out);
	for (i = 0; i < set->nr; i++)
		if (set->when[i] > after && set->host[i] == only)
			stats_set_add_run(out, set->v[i], set->host[i],
					  set->when[i]);
}

/*
 * confirm(): the parent and the culprit are decided again, each on fresh
 * runs (after the confirmation started, on host 0, interleaved) against
 * the anchors: confirmed when the parent is good and the culprit bad. An
 * anchor is known already and is not run again.
 */
static bool confirm(struct sess *s, long culprit)
{
	struct stats_set fresh = STATS_SET_INIT;
	struct probe m[2];
	double after = s->run_id;
	bool confirmed = false;
	int k, left;

	memset(m, 0, sizeof(m));
	m[0].commit = culprit - 1;
	m[1].commit = culprit;
	m[0].done = m[0].commit == 0;
	m[0].verdict = RB_GOOD;
	m[1].done = m[1].commit == s->N;
	m[1].verdict = RB_BAD;
	for (;;) {
		left = 0;
		for (k = 0; k < 2; k++) {
			struct probe *p = &m[k];
			struct stats_step st;

			if (p->done)
				continue;
			if (!p->anchor_due) {
				load_after(s, p->commit, after, 0, &fresh);
				if (stats_confirm_verdict(
					    &s->pol, &s->set[0], &s->set[s->N],
					    &fresh, k ? STATS_BAD : STATS_GOOD,
					    &st, NULL))
					rb_die("verdict: %s", rb_errmsg());
				if (st.verdict == STATS_NEED_MORE) {
					p->anchor_due = st.more_anchor_runs * 2;
					p->anchor_good = st.more_anchor_runs;
				} else {
					p->done = true;
					p->verdict = st.verdict == STATS_GOOD ?
							     RB_GOOD :
						     st.verdict == STATS_BAD ?
							     RB_BAD :
							     RB_SKIP;
					if (p->verdict !=
					    (k ? RB_BAD : RB_GOOD))
						goto out;
					continue;
				}
			}
			left++;
			if (p->anchor_due) {
				bool g = p->anchor_good > 0;

				if (g)
					p->anchor_good--;
				p->anchor_due--;
				start(s, 0, g ? 0 : s->N, g ? 1 : 2, K_CONFIRM);
			} else {
				start(s, 0, p->commit, 3, K_CONFIRM);
			}
			wait_one(s);
		}
		if (!left)
			break;
	}
	confirmed = true;
out:
	stats_set_release(&fresh);
	return confirmed;
}

/* back into the range without the dropped verdicts (session's replay) */
static void replay(struct sess *s)
{
	struct stats_set c = STATS_SET_INIT;
	size_t i;

	rb_bisect_release(&s->b);
	rb_bisect_init(&s->b, s->g, walk, (uint32_t)s->N, 0);
	s->pol.noise = s->pol0.noise;
	for (i = 0; i < s->nlog; i++) {
		if (s->log[i].dropped)
			continue;
		/* a verdict that contradicts the others is left out */
		rb_bisect_mark(&s->b, node_of(s->log[i].commit), s->log[i].v);
		if (s->log[i].v == RB_SKIP)
			continue;
		runs_of(s, s->log[i].commit, s->log[i].after,
			s->log[i].last_run, &c);
		stats_noise_add(&s->pol.noise, &c);
	}
	stats_set_release(&c);
}

static void ours(struct world *w, long N, int nhosts,
		 const struct stats_policy *pol0, struct result *res)
{
	struct sess s;
	struct rb_bisect_step bs = RB_BISECT_STEP_INIT;
	uint32_t picks[MAXHOSTS];
	unsigned attempts = 0;
	long k;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	s.w = w;
	s.N = N;
	s.nhosts = nhosts;
	s.res = res;
	s.g = &graph;
	s.pol = *pol0;
	s.set = xcalloc((size_t)N + 1, sizeof(*s.set));
	s.fresh = xcalloc((size_t)N + 1, sizeof(*s.fresh));
	rb_bisect_init(&s.b, s.g, walk, (uint32_t)N, 0);
	s.pol.expected_steps =
		(unsigned)rb_bisect_estimate_steps(rb_bisect_candidates(&s.b)) +
		2;
	if (s.pol.anchor_refresh == 0)
		s.pol.anchor_refresh = 12.0 * nhosts;
	s.pol0 = s.pol;
	if (!endpoints(&s))
		goto out;
	res->reproduced = true;
	for (;;) {
		uint32_t n;
		long culprit;

		rb_bisect_step_release(&bs);
		rb_bisect_next(&s.b, &bs);
		if (bs.status == RB_BISECT_EMPTY && s.n_last &&
		    attempts < CONFIRM_ATTEMPTS) {
			/* contradicting verdicts: the last round again */
			uint32_t i;

			res->contradictions++;
			attempts++;
			for (i = 0; i < s.n_last; i++)
				drop(&s, s.last_round[i]);
			s.n_last = 0;
			replay(&s);
			continue;
		}
		if (bs.status != RB_BISECT_CONTINUE &&
		    bs.status != RB_BISECT_FOUND) {
			res->inconclusive = true;
			break;
		}
		if (bs.status == RB_BISECT_FOUND) {
			culprit = commit_of(bs.pick);
			if (confirm(&s, culprit)) {
				res->reported = culprit;
				if (getenv("SIM_DEBUG") &&
				    culprit != w->culprit)
					printf("WRONG CULPRIT %s %.0f: %ld (true "
					       "%ld) at run %.0f, try %u\n",
					       shape_names[w->shape], w->effect,
					       culprit, w->culprit, s.run_id,
					       attempts + 1);
				break;
			}
			res->unconfirmed++;
			attempts++;
			drop(&s, culprit);
			drop(&s, culprit - 1);
			if (attempts > CONFIRM_ATTEMPTS) {
				res->inconclusive = true;
				break;
			}
			s.n_last = 0;
			replay(&s);
			continue;
		}
		if (bs.is_merge_base || nhosts == 1) {
			picks[0] = bs.pick;
			n = 1;
		} else {
			n = rb_bisect_picks(&s.b, (uint32_t)nhosts, picks);
			if (!n) {
				picks[0] = bs.pick;
				n = 1;
			}
		}
		run_round(&s, picks, n);
	}
out:
	res->runs = w->runs;
	res->clock = s.clock;
	rb_bisect_step_release(&bs);
	rb_bisect_release(&s.b);
	for (k = 0; k <= N; k++)
		stats_set_release(&s.set[k]);
	free(s.set);
	free(s.fresh);
	free(s.log);
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
	double runs, kind_runs[NKINDS], clock;
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
	for (k = 0; k < NKINDS; k++)
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
	       to->kind_runs[K_ENDPOINT] / n, to->kind_runs[K_CAND] / n,
	       to->kind_runs[K_ANCHOR] / n, to->kind_runs[K_CONFIRM] / n,
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
	build_graph(N);
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
				ours(&w, N, nhosts, &pol, &r);
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
	free(walk);
	rb_graph_release(&graph);
	return 0;
}
