/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_STATS_H
#define ROBOT_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/*
 * Statistics for the robot: sample sets and their summaries, the tests and
 * intervals that compare two sets, and the decisions built on them:
 *
 *   stats_power_check()   before a bisection: do the anchors differ, and
 *                         how many runs per step will the steps need
 *   stats_step_verdict()  one bisection step: good, bad, need more runs
 *                         (or weak once the cap is reached)
 *   stats_detect()        regression detection between two commits
 *                         (nightly runs, endpoint and culprit checks)
 *
 * The module is pure: no I/O, no clock, no global state (only what the
 * caller passes in). Functions allocate scratch memory with xmalloc and
 * free it before they return; nothing they return needs freeing except a
 * struct stats_set.
 *
 * Conventions: every function that compares two sets takes the base (the
 * good or older commit, "a") first and the new one ("b") second; a change
 * is b - a. A direction is +1 when higher values are better (lkp's index:
 * `*_per_sec`), -1 when lower is better (latencies, times), 0 unknown.
 */

/* ------------------------------------------------------------------ */
/* Sample sets */

/*
 * The values of one stat over several runs, in run order. Each run may
 * carry the test box it ran on (host, small integers; 0 when there is one)
 * and when it ran (any increasing number: a run counter, seconds). Those
 * two are used by the step verdict to remove per-host offsets and slow
 * drift; leave them out (stats_set_add) when they are not known.
 *
 * Invariant: v (and host/when once used) hold nr elements; host and when
 * are NULL until stats_set_add_run is first called, after which every run
 * has them (runs added with stats_set_add get host 0 and when 0).
 */
struct stats_set {
	double *v;
	int *host;
	double *when;
	size_t nr, alloc;
};

#define STATS_SET_INIT \
	{              \
		0      \
	}

void stats_set_init(struct stats_set *s);
void stats_set_release(struct stats_set *s);
void stats_set_add(struct stats_set *s, double x);
void stats_set_addv(struct stats_set *s, const double *v, size_t n);
void stats_set_add_run(struct stats_set *s, double x, int host, double when);
/* The runs of s on host (every run when s carries no hosts). */
size_t stats_set_count_on(const struct stats_set *s, int host);
/* Copy src into dst (which is released first). */
void stats_set_copy(struct stats_set *dst, const struct stats_set *src);

/* Welford's running mean and variance (fio's add_stat_sample). */
struct stats_running {
	size_t n;
	double mean, m2, min, max;
};
#define STATS_RUNNING_INIT \
	{                  \
		0          \
	}
void stats_running_add(struct stats_running *r, double x);
/* Population (divide by n) and sample (n - 1) variance; 0 when undefined. */
double stats_running_var_pop(const struct stats_running *r);
double stats_running_var(const struct stats_running *r);

struct stats_summary {
	size_t n;
	double mean;
	double stddev_pop; /* divides by n (lkp's %stddev) */
	double stddev; /* divides by n - 1; 0 for n < 2 */
	double cv_pct; /* 100 * stddev_pop / mean; 0 when mean is 0 */
	double median, min, max;
	double q1, q3; /* quartiles (linear interpolation, type 7) */
	double mad; /* median absolute deviation (unscaled) */
	double trimmed_mean; /* 20% trimmed mean */
};

/* Summarise n values; all zero when n == 0. */
void stats_summarize(struct stats_summary *out, const double *v, size_t n);
double stats_mean(const double *v, size_t n);
double stats_median(const double *v, size_t n);
/* Quantile q in [0, 1], linear interpolation between order statistics. */
double stats_quantile(const double *v, size_t n, double q);
/* Mean after dropping floor(frac * n) values at each end. */
double stats_trimmed_mean(const double *v, size_t n, double frac);

/*
 * lkp's robust summary (StatSummary): sort, drop margin = min(n >> 5,
 * max_margin) values at each end, then min, "mean" (the middle element
 * s[n/2], a median) and max of what is left.
 */
struct stats_lkp_summary {
	size_t n; /* values left after trimming */
	double min, mid, max;
	bool mid_is_int; /* the middle value came from an integer */
};
void stats_lkp_summary(struct stats_lkp_summary *out, const double *v,
		       const bool *is_int, size_t n, size_t max_margin);

/*
 * Change of b against base a, in percent, with lkp's rule for a zero base
 * (replaced by 1e-100: 0 -> x reads +1e+102%).
 */
double stats_pct_change(double a, double b);

/*
 * lkp's default change test (LKP::ChangedStat#change? without distance):
 * every value of one side lies beyond the other side's middle value, and
 * that side's middle lies beyond every value of the other side.
 */
bool stats_lkp_changed(const struct stats_lkp_summary *a,
		       const struct stats_lkp_summary *b);

/* ------------------------------------------------------------------ */
/* Distributions (tested against published tables) */

double stats_norm_cdf(double x);
double stats_norm_sf(double x); /* 1 - cdf, accurate in the upper tail */
double stats_norm_quantile(double p);
/* Regularized incomplete beta I_x(a, b). */
double stats_incbeta(double a, double b, double x);
/* Student t with df degrees of freedom (df may be fractional). */
double stats_t_cdf(double t, double df);
double stats_t_sf(double t, double df);
double stats_t_quantile(double p, double df);
/* Kolmogorov's limiting distribution: P(sqrt(n) D > x). */
double stats_kolmogorov_sf(double x);

/* ------------------------------------------------------------------ */
/* Tests and intervals between two sets */

enum stats_alt {
	STATS_TWO_SIDED,
	STATS_GREATER, /* b is greater than a */
	STATS_LESS, /* b is less than a */
};

struct stats_test {
	double stat; /* t, U (of b) or D */
	double df; /* t tests only */
	double p;
	bool exact; /* p from the exact distribution */
};

/*
 * Welch's t test of the means. With zero variance on both sides the
 * statistic is +-inf (p = 0) when the means differ, 0 (p = 1) otherwise.
 * Needs n >= 2 on each side: returns -1 otherwise.
 */
int stats_welch(struct stats_test *out, const double *a, size_t na,
		const double *b, size_t nb, enum stats_alt alt);
/*
 * Yuen's test: Welch's on trimmed means with winsorized variances (frac of
 * each end trimmed, 0.2 usual); robust to outliers. -1 when n < 2 after
 * trimming.
 */
int stats_yuen(struct stats_test *out, const double *a, size_t na,
	       const double *b, size_t nb, double frac, enum stats_alt alt);
/*
 * Mann-Whitney U (Wilcoxon rank-sum). Exact distribution without ties for
 * na, nb <= 50, else the normal approximation with tie and continuity
 * corrections. stat is U of b: the number of pairs with b > a (ties 1/2).
 */
int stats_mann_whitney(struct stats_test *out, const double *a, size_t na,
		       const double *b, size_t nb, enum stats_alt alt);
/* Two-sample Kolmogorov-Smirnov, two-sided; exact for small samples. */
int stats_ks2(struct stats_test *out, const double *a, size_t na,
	      const double *b, size_t nb);

struct stats_interval {
	double est, lo, hi;
	bool bounded; /* false when the interval is the whole line */
};

/* Welch interval for mean(b) - mean(a) at the given level (0.95). */
int stats_diff_ci(struct stats_interval *out, const double *a, size_t na,
		  const double *b, size_t nb, double level);
/*
 * Interval for the percent change 100 * (mean(b) / mean(a) - 1) by
 * Fieller's theorem; unbounded when mean(a) is not significantly away
 * from zero.
 */
int stats_pct_change_ci(struct stats_interval *out, const double *a, size_t na,
			const double *b, size_t nb, double level);
/*
 * Hodges-Lehmann shift (median of all b_j - a_i) and its distribution-free
 * interval from the Mann-Whitney distribution; robust to outliers.
 */
int stats_hodges_lehmann(struct stats_interval *out, const double *a, size_t na,
			 const double *b, size_t nb, double level);

/* ------------------------------------------------------------------ */
/* Metric direction */

/*
 * The direction of a stat from a table of regular expressions (lkp's
 * etc/index-perf-all.yaml idea, our own rows): +1 higher is better
 * (stress-ng's *_per_sec, *_per_item, *_per_seek, bogo ops rates,
 * throughputs), -1 lower is better (latencies, elapsed and system times,
 * failures), 0 unknown. The first matching row wins.
 */
int stats_direction(const char *stat);
/*
 * A threshold in percent: "5%", "-5%" (a drop is bad) or "+5%" (a rise is
 * bad) into its size and *sign (-1, +1, 0: the metric decides). A drop,
 * or a change that may be one, lies between 0 and 100 exclusive (a drop
 * of 100% takes the metric to 0); a rise is above 0. 0, or -1 with a
 * message naming what is wrong (no location).
 */
int stats_parse_pct(const char *text, double *pct, int *sign);
/*
 * lkp's kpi_stat_direction: "regression" when direction * change < 0,
 * "improvement" otherwise, "undefined" when the direction is 0.
 */
const char *stats_change_kind(int direction, double change);

/* ------------------------------------------------------------------ */
/* Decisions for a bisection */

enum stats_threshold_kind {
	STATS_THRESHOLD_MIDPOINT, /* halfway between the anchors' means */
	STATS_THRESHOLD_VALUE, /* an absolute value of the metric */
	STATS_THRESHOLD_PCT, /* a change from good, in %, bad direction */
};

enum stats_drift {
	STATS_DRIFT_OFF, /* no trend term */
	STATS_DRIFT_AUTO, /* a trend term with a prior (drift_sd) */
	STATS_DRIFT_ON, /* always the whole fitted trend (needs `when`) */
};

/*
 * What earlier steps learnt about the run-to-run noise: the runs of each
 * decided candidate, one group per commit and host (a group's level is
 * its own; only the spread around it is noise). Noise estimated on more
 * degrees of freedom lowers the evidence bound (see stats_step_verdict),
 * so later steps need fewer runs. The session adds each decided step's
 * candidate runs with stats_noise_add (assumption: the noise is the same
 * for every commit of the range, as the anchors' pooling already assumes).
 * Groups that no longer fit are left out.
 */
#define STATS_NOISE_MAX 512
struct stats_noise {
	double v[STATS_NOISE_MAX];
	unsigned grp[STATS_NOISE_MAX]; /* nondecreasing group numbers */
	unsigned nr, groups;
};
void stats_noise_add(struct stats_noise *nz, const struct stats_set *runs);

/*
 * How a bisection decides. stats_policy_init() fills the defaults noted.
 *
 * Error budgets: `budget` (0.01) is the chance of a wrong culprit the
 * whole bisection may spend; `step_budget` (0.2) what its steps may spend
 * together, alpha = step_budget / expected_steps each (union bound; the
 * session sets expected_steps to git's estimate of the steps plus 2).
 *
 * A wrong step verdict always lands next to the culprit the bisection ends
 * on: a bad commit called good ends it on its child (the wrong one is the
 * parent), a good one called bad ends it on that commit. So the session
 * confirms a culprit by deciding its parent and it again, on fresh runs
 * (stats_confirm_verdict): a wrong culprit then needs a wrong step (at
 * most step_budget) and a fresh decision repeating it (at most
 * confirm_alpha), step_budget x confirm_alpha <= budget per confirmation;
 * a right one is refuted at most at the refute alpha (budget /
 * expected_steps) per commit, and costs a retry, not a wrong answer.
 * Cheap steps are a bet that the range holds one change: the session
 * takes their verdicts up again at alpha = budget / expected_steps once a
 * culprit fails to confirm (doc/statistics.md).
 *
 * The endpoint (power) check spends endpoint_alpha (0.005) on "reproduced"
 * when the anchors do not differ: that is the false-report rate on a
 * history without a change.
 */
struct stats_policy {
	int direction; /* +1, -1, or 0: take it from the anchors */
	enum stats_threshold_kind threshold_kind;
	double threshold; /* the value, or the % for THRESHOLD_PCT */
	double budget; /* 0.01 */
	/*
	 * What the steps may spend together (0.2): a step errs at most
	 * step_budget / expected_steps. A wrong step costs a failed
	 * confirmation and a retry, not a wrong culprit (that takes the
	 * confirmation repeating it too: step_budget x confirm_alpha <=
	 * budget), so steps may err far more often than culprits; the
	 * confirmation refutes a member at budget / expected_steps, so a
	 * right culprit is seldom refuted. See doc/statistics.md.
	 */
	double step_budget;
	unsigned expected_steps; /* 10 */
	double confirm_alpha; /* 0.02: see stats_confirm_verdict */
	/*
	 * The change test's bound to confirm (0.005, stats_change_verdict):
	 * it runs on the members' fresh runs, so a parent and a culprit of
	 * the same level whose few runs came out far apart pass the members
	 * and the change together; a bound of its own keeps that rare
	 */
	double change_alpha;
	double endpoint_alpha; /* 0.005 */
	/*
	 * The endpoint check's other error: a change of endpoint_effect
	 * noise sd (2) is called not reproduced at most endpoint_beta
	 * (0.01) of the time; smaller changes cost more runs per step than
	 * a bisection is worth (and are often refused), and a history
	 * without a change is settled in about 8 runs of each anchor.
	 */
	double endpoint_beta;
	double endpoint_effect;
	/* 2: never decide on fewer runs; a step may on one once the noise
	 * is known clean (20 residuals or more, none far off) */
	unsigned min_runs;
	unsigned max_runs; /* 30: the cap per candidate, then weak */
	unsigned anchor_min_runs; /* 3 */
	unsigned anchor_max_runs; /* 30 */
	/*
	 * Outliers: a run's evidence is clipped as if it lay at most
	 * clip_sd noise stddevs beyond the farther anchor (1.5), Huber's
	 * robust probability ratio test.
	 */
	double clip_sd;
	enum stats_drift drift; /* STATS_DRIFT_AUTO */
	/*
	 * Re-measure the anchors when the newest candidate run is more than
	 * this (in `when` units) times max(1, w / sigma) after the newest
	 * anchor runs on its host, while the evidence is short of the bound
	 * (w: the distance from the threshold to the nearer anchor; a drift
	 * of a given rate matters in proportion to w, so anchors may age
	 * longer when the change is large); 0 (default): only when the
	 * candidate's host has none.
	 */
	double anchor_refresh;
	/*
	 * The drift the trend's prior allows (DRIFT_AUTO, see
	 * stats_step_verdict): the sd of the drift rate, in noise sd per
	 * `when` unit; 0 (default): 1/8 noise sd per anchor_refresh (none
	 * when anchor_refresh is 0 too).
	 */
	double drift_sd;
	/*
	 * The session lets the runs of every commit decided good (bad)
	 * stand for the good (bad) anchor in later steps and in the
	 * confirmation (true): the threshold is then carried by all the
	 * runs on either side. Off: each decided candidate's runs only add
	 * to `noise`.
	 */
	bool pool_decided;
	struct stats_noise noise; /* from earlier steps, empty at start */
	/*
	 * Every decided candidate's runs (the session adds them whatever
	 * pool_decided says), for the contamination share of the
	 * confirmation's change test only: its noise is the anchors' own,
	 * whose few runs seldom show contamination (see
	 * stats_change_verdict). Empty at start.
	 */
	struct stats_noise contam;
};

void stats_policy_init(struct stats_policy *p);
/* The error each step may spend: step_budget / expected_steps. */
double stats_policy_step_alpha(const struct stats_policy *p);
/*
 * The error a confirmation may spend refuting a member (a right culprit
 * sent back into the range): budget / expected_steps.
 */
double stats_policy_refute_alpha(const struct stats_policy *p);

enum stats_verdict {
	STATS_NEED_MORE, /* run the candidate (or anchors) again */
	STATS_GOOD,
	STATS_BAD,
	STATS_WEAK, /* the cap was reached undecided: see lean */
};
const char *stats_verdict_name(enum stats_verdict v);

struct stats_step {
	enum stats_verdict verdict;
	enum stats_verdict lean; /* GOOD or BAD: where the evidence points */
	unsigned more_runs; /* candidate runs the evidence may still need */
	unsigned more_anchor_runs; /* runs of each anchor wanted first */
	int anchor_host; /* the host those anchor runs should use, or -1 */
	double llr; /* evidence for bad (>0) or good (<0), natural log */
	double bound; /* |llr| needed to decide */
	double threshold; /* the threshold the candidate is held against */
	double good_mean, bad_mean; /* anchors (robust, adjusted) */
	double cand_mean; /* candidate, adjusted for host and drift */
	double runs_mean; /* the candidate's runs as measured */
	double noise_sd; /* pooled noise stddev of single runs */
	double trend; /* fitted drift per `when` unit (0: none fitted) */
	int hosts; /* hosts whose offsets were fitted */
	size_t runs; /* candidate runs used */
	/*
	 * GOOD or BAD with evidence enough for the bound of alpha x
	 * confirm_alpha too (each run counting at most half of it): as sure,
	 * under the noise model, as a confirmed verdict (Ville's
	 * inequality). Information: the session records it, and still
	 * decides the culprit and its parent again on fresh runs, which also
	 * catch what the model does not see (a transient that slowed a
	 * commit's runs, the first anchor runs of a bimodal metric all in
	 * one mode).
	 */
	bool sure;
};

/*
 * One bisection step: is the candidate like the good anchor or like the
 * bad one? A sequential probability ratio test (Wald) of "the candidate's
 * mean sits w below the threshold" against "w above it" (w: the distance
 * from the threshold to the nearer anchor), one run at a time:
 *
 *   llr = sum_i clip(2 w' (x_i - T) / s^2, -c, c)      (oriented: >0 bad)
 *
 *  - x_i: the candidate's runs after removing the host offsets and the
 *    drift fitted on the anchors' runs (y = mu_good|bad + host + b t;
 *    Huber IRLS, so an outlying anchor run moves nothing);
 *  - the drift b (DRIFT_AUTO) is the posterior mean under a normal prior
 *    N(0, tau^2), tau = drift_sd in noise sd (a ridge of 1/drift_sd^2 on
 *    b), raised to tau^2 = b_hat^2 - 4 se^2 when the anchors' own slope is
 *    clearly larger (|t| > 2 and more): a chance slope is shrunk to the
 *    drift the policy expects, a clear one is kept almost whole, and the
 *    posterior variance of b (which grows with the time from the
 *    anchors to the candidate) enters v below, so stale anchors weigh
 *    less. The slope then uses vpost / vflat of a degree of freedom;
 *  - T: the threshold; w' = w less A se(w)^2 / (2 w), which keeps the
 *    error at alpha despite w being estimated;
 *  - s^2 = sigma^2 + n v: the noise variance pooled over the anchors, the
 *    candidate and policy.noise (robust: residuals around each group's
 *    Huber location, those beyond 4 MAD sd left out as contamination,
 *    which clips the evidence instead), plus n times the variance the anchors
 *    leave in T and the adjustments (the summed evidence of n runs then
 *    saturates, so that poorly measured anchors cannot give confident
 *    verdicts);
 *  - c: Huber's clip, as if a run lay at most clip_sd noise sd beyond the
 *    farther anchor (robust to outliers), and never more than A.
 *
 * It decides BAD when llr >= A, GOOD when llr <= -A, on at least min_runs
 * runs (one run once 20 residuals or more show no contamination). A = -log(alpha), corrected for the degrees of freedom df of
 * sigma^2 (A = (df/2)(alpha^(-2/df) - 1), the error averaged over the
 * noise estimate) and for the overshoot (Siegmund: less 0.583 sd of one
 * run's evidence). Zero-variance data clip every run to +-A: min_runs
 * concordant runs decide. After max_runs runs it answers WEAK with the
 * lean (the session goes by the lean: Wald's truncated test). The
 * per-step error rates this gives are measured in tests/unit/test_stats.c
 * and tests/bench/stats-sim.c (gaussian noise: well under alpha; bimodal
 * noise with few anchor runs: up to a few times alpha, which the
 * confirmation absorbs).
 *
 * NEED_MORE sets more_runs (Wald's estimate of the candidate runs still
 * needed), or more_anchor_runs and anchor_host: run each anchor that many
 * times on that host (alternating good and bad, next to the candidate's
 * runs, so drift cancels) before more candidate runs. Anchor runs are
 * asked for when the candidate ran on a host without anchor runs, when
 * one more run of each anchor shrinks the uncertainty of (mean - T) more
 * per run than a candidate run would, when even max_runs candidate runs
 * could not decide against anchors this uncertain, and (anchor_refresh)
 * when the anchors on the candidate's host are stale and the evidence is
 * still short of A.
 *
 * `why` (may be NULL) receives one line saying what was measured and why
 * the verdict is what it is. Returns -1 (rb_error) on unusable input:
 * anchors with fewer than 2 runs each, equal anchor means, a threshold
 * outside the anchors, more than 16 hosts.
 */
int stats_step_verdict(const struct stats_policy *p,
		       const struct stats_set *good,
		       const struct stats_set *bad,
		       const struct stats_set *cand, struct stats_step *out,
		       struct sbuf *why);

/*
 * The confirmation of a culprit: a commit whose verdict is expected
 * (the parent GOOD, the culprit BAD) is decided again on fresh runs (the
 * caller passes only those as cand). The same test as stats_step_verdict
 * with unequal bounds (Wald's SPRT with alpha != beta): the expected
 * verdict needs the bound of confirm_alpha, A_c = (df/2)(confirm_alpha^
 * (-2/df) - 1) less Siegmund's correction, the other one the step's
 * bound A; both min_runs runs (a single run far off, an outlier at the
 * other anchor's level, must not decide). So a commit
 * that really is the other kind (a wrong step before) is called as
 * expected at most confirm_alpha of the time, and a right one is refuted
 * at most at the step alpha. STATS_NEED_MORE and STATS_WEAK as for a
 * step. -1 when expect is neither GOOD nor BAD.
 */
int stats_confirm_verdict(const struct stats_policy *p,
			  const struct stats_set *good,
			  const struct stats_set *bad,
			  const struct stats_set *cand,
			  enum stats_verdict expect, struct stats_step *out,
			  struct sbuf *why);

/*
 * The confirmation's last question: does the culprit hold a change at
 * all? Its parent and it may both sit close to the threshold (a change in
 * several steps, or anchors that happen to be off), where deciding each
 * against the threshold cannot tell them apart. A sequential probability
 * ratio test on their fresh runs (parent, culprit) of "the culprit is
 * worse by the anchors' change, or by half of it" (an even mixture of
 * the two) against "no change", with the noise pooled over the anchors
 * and policy.noise (as a step's):
 *
 *   l(d) = (d D / sigma - d^2 / 2) / (1/np + 1/nc)
 *   llr  = log((exp(l(delta)) + exp(l(delta / 2))) / 2)
 *
 * (D: the culprit's robust location less the parent's, oriented worse >
 * 0; delta: the anchors' change in noise sd). The half is for the
 * culprit of a change in several steps, which holds only its part: with
 * "the anchors' change" alone, a culprit with 2/3 of a 2-sd change
 * lay just past the middle of the two hypotheses and was refuted one
 * time in ten. A mixture of likelihood ratios is one too: the error
 * bounds hold (refuting a real change at most twice the step alpha).
 * Under contamination (runs displaced toward bad among the anchors'
 * and policy.contam's residuals) a change also needs Huber's clipped
 * evidence of the culprit's runs against the parent's location at
 * ln(1 / change_alpha): a few outliers at the bad level cannot show one.
 * STATS_BAD (a change) at
 * the bound of change_alpha, STATS_GOOD (no change: the culprit is
 * refuted) at the step alpha's with 2 runs of each at least, STATS_WEAK
 * after max_runs of each, STATS_NEED_MORE otherwise (a run of each). So a
 * culprit without a change is confirmed at most confirm_alpha of the
 * time, whatever the verdicts against the threshold said. -1 on unusable
 * input.
 */
int stats_change_verdict(const struct stats_policy *p,
			 const struct stats_set *good,
			 const struct stats_set *bad,
			 const struct stats_set *parent,
			 const struct stats_set *culprit,
			 struct stats_step *out, struct sbuf *why);

/*
 * Expected candidate runs per step for a change of `effect` noise stddevs
 * between the anchors (midpoint threshold), anchors of n_anchor runs each:
 * Wald's approximation of the mean sample number, at least min_runs, at
 * most max_runs. *worst (may be NULL) gets a 90% quantile estimate.
 */
double stats_runs_needed(const struct stats_policy *p, double effect,
			 size_t n_anchor, double *worst);

enum stats_endpoint {
	STATS_ENDPOINT_NEED_MORE,
	STATS_REPRODUCED,
	STATS_NOT_REPRODUCED,
};

struct stats_power {
	enum stats_endpoint verdict;
	unsigned more_anchor_runs; /* runs of each anchor before asking again */
	int direction; /* the direction used (policy's, or the anchors') */
	double good_mean, bad_mean, change_pct;
	double noise_sd, effect; /* |bad - good| in noise stddevs */
	double p; /* one-sided p of "bad is worse" (the robust fit's t) */
	double alpha; /* endpoint_alpha */
	double llr, bound; /* the evidence for a change, and its bound */
	double runs_per_step; /* expected, for the steps to come */
	double runs_per_step_worst; /* 90% quantile */
	double runs_total; /* rough runs for expected_steps steps */
};

/*
 * The endpoint check and power check before a bisection: a sequential
 * probability ratio test of "the bad anchor is worse by endpoint_effect
 * noise sd" against "no change", on the anchors' difference from their
 * robust fit (Huber weights, an offset per host, the pooled robust noise;
 * stats_step_verdict's), asked after every run (Ville's inequality keeps
 * the errors at endpoint_alpha and endpoint_beta however often it is
 * asked; the bounds are corrected for the noise's degrees of freedom):
 * REPRODUCED when the evidence reaches log(1/endpoint_alpha) and the bad
 * anchor is beyond the threshold; NOT_REPRODUCED when it falls to
 * -log(1/endpoint_beta) (a change worth bisecting is ruled out), when the
 * bad anchor is significantly better, when it is significantly short of
 * the threshold, or at anchor_max_runs; NEED_MORE (one more run of each)
 * otherwise, and before anchor_min_runs. Both anchors constant: decided
 * at anchor_min_runs.
 *
 * Once reproduced, runs_per_step says how many candidate runs the steps
 * will need at the policy's error budget. `why` gets the message, e.g.
 *   not reproduced: good 4406 +-2% (6 runs), bad 4380 +-3% (6 runs):
 *   -0.6%, p=0.41, evidence -5.10 of +5.30 (a change worth bisecting is
 *   ruled out)
 * (the caller prefixes the stat name). -1 on unusable input.
 */
int stats_power_check(const struct stats_policy *p,
		      const struct stats_set *good, const struct stats_set *bad,
		      struct stats_power *out, struct sbuf *why);

/*
 * The endpoint check asked again during the bisection, on the anchors'
 * runs so far: NOT_REPRODUCED when they now rule a change worth bisecting
 * out at endpoint_beta / 10 (the same evidence as the check's, both the
 * fit's and the core's, with each anchor's runs homogeneous), else
 * NEED_MORE. A reproduced check is wrong endpoint_alpha of the time
 * (0.5%), and the bisection of a history without a change then costs
 * hundreds of runs before its culprit fails to confirm; steps that ask
 * for anchor runs give the check the runs to see it. For a real change
 * the evidence falls that far with chance at most endpoint_beta / 10
 * (Ville's inequality), however often it is asked.
 */
int stats_power_recheck(const struct stats_policy *p,
			const struct stats_set *good,
			const struct stats_set *bad, struct stats_power *out,
			struct sbuf *why);

/*
 * Do a and b measure the same level? Their robust locations (Huber, scale
 * from the pooled MAD) differ by at most z standard errors of the pooled
 * robust noise. False when either has fewer than 2 runs.
 */
bool stats_same_level(const struct stats_set *a, const struct stats_set *b,
		      double z);

/*
 * A multi-step regression: how much of the good -> bad change does the
 * step parent -> culprit account for? share = (P - C) / (G - B) from the
 * robust locations (Huber, scale from the pooled MAD) of the good anchor,
 * the parent, the culprit and the bad anchor, with a delta-method interval
 * at `level` (lo, hi); before = (G - P) / (G - B) happened between the
 * good anchor and the parent, after = (C - B) / (G - B) between the
 * culprit and the bad anchor (the three add up to 1). The parent may be
 * the good anchor and the culprit the bad one (pass the same set: their
 * covariance is taken into account). -1 when a set has fewer than 2 runs
 * or the anchors do not differ.
 */
struct stats_share {
	double share, lo, hi, before, after;
};
int stats_share(const struct stats_set *good, const struct stats_set *parent,
		const struct stats_set *culprit, const struct stats_set *bad,
		double level, struct stats_share *out);

struct stats_detect_opts {
	int direction; /* +1, -1, 0 (any change counts as "changed") */
	double threshold_pct; /* minimum |change| to report, % (0) */
	double alpha; /* 0.01 */
	double level; /* confidence level of intervals, 0.95 */
	double trim; /* Yuen trimming, 0.1 (none below 10 runs) */
};
void stats_detect_opts_init(struct stats_detect_opts *o);

struct stats_detection {
	bool significant; /* p <= alpha */
	bool beyond_threshold; /* |change| >= threshold_pct */
	bool bad_direction; /* the change is in the bad direction */
	bool regression; /* all three */
	bool improvement; /* significant, beyond, good direction */
	double base_mean, new_mean;
	double change_pct, change_abs;
	struct stats_interval ci_pct; /* Fieller */
	struct stats_interval ci_abs; /* Welch */
	struct stats_interval shift; /* Hodges-Lehmann, robust */
	double p; /* Yuen's p: one-sided, in the direction the change went,
		   * when the direction is known; else two-sided */
	double p_welch, p_mwu, p_ks; /* two-sided, for the record */
};

/*
 * Regression detection between two commits (a = base, b = new): is the
 * change significant (Yuen's trimmed-mean test at alpha, one-sided in the
 * direction it went when the metric's direction is known), beyond
 * threshold_pct, in the bad direction; with the change and its
 * intervals. A regression is all three; an improvement is significant,
 * beyond the threshold and in the good direction. Needs >= 2 runs on
 * each side (-1 otherwise). `why` gets one line.
 */
int stats_detect(const struct stats_detect_opts *o, const double *a, size_t na,
		 const double *b, size_t nb, struct stats_detection *out,
		 struct sbuf *why);

#endif
