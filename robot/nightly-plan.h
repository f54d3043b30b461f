/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_NIGHTLY_PLAN_H
#define ROBOT_NIGHTLY_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

struct sbuf;

/*
 * The nightly's decisions, pure: how many runs a head (and its baseline)
 * get, and what the measured numbers mean.
 *
 * A head is measured adaptively. Without a baseline (the first head of a
 * branch) it gets min_runs runs, then more until the 95% interval of its
 * mean is within half the threshold, at most max_runs. With a baseline
 * (whose stored runs are reused) both sides get at least min_runs, then
 * regression detection (stats_detect: Yuen's test one-sided in the bad
 * direction, the threshold) decides:
 *
 *   regression   significant, beyond the threshold, in the bad direction
 *   improvement  significant, beyond the threshold, in the good direction
 *   unchanged    the interval of the % change lies within +-threshold
 *   undecided    none of these at max_runs of the head
 *
 * and while it does not, the side with fewer runs runs again (the
 * baseline at most max_runs in all), so that both are measured close in
 * time.
 *
 * Drift: stored baseline runs may come from another day, and a lab's
 * level moves (load, temperature, firmware). They may show that nothing
 * changed, but a change is only called against baseline runs of this
 * cycle (`fresh`): a suspected change first gets min_runs fresh baseline
 * runs, and from min_runs fresh runs on only they count. Every look tests at
 * `alpha` (default 0.001, one-sided), so that the looks of the loop keep
 * the false reports of a branch without changes near 1%.
 */
enum nplan_next {
	NPLAN_DONE,
	NPLAN_HEAD, /* run the head once more */
	NPLAN_BASE, /* run the baseline once more */
};

struct nplan_opts {
	size_t min_runs, max_runs;
	double threshold_pct; /* > 0 */
	int direction; /* +1 higher is better, -1 lower is better */
	double alpha; /* per look; 0: 0.001 */
};

struct nplan {
	enum nplan_next next;
	/* once DONE: first, regression, improvement, unchanged, undecided */
	const char *verdict;
	bool have_detection;
	struct stats_detection det;
};

/*
 * What to do next with these runs (base NULL: no baseline; fresh: the
 * baseline's runs of this cycle, also in base). `why` (may be NULL) gets
 * one line once DONE. 0, or -1 on unusable input.
 */
int nplan_next(const struct nplan_opts *o, const double *head, size_t nh,
	       const double *base, size_t nb, const double *fresh, size_t nf,
	       struct nplan *out, struct sbuf *why);

#endif
