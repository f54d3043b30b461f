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
 * mean is within half the threshold, at most max_runs. With a baseline,
 * head and baseline runs alternate in ABBA order (head, baseline,
 * baseline, head, ...: a boot every two runs) on the job's host, and once
 * the head has min_runs and the baseline at least as
 * many, regression detection (stats_detect: Yuen's test one-sided in the
 * bad direction, the threshold) decides:
 *
 *   regression   significant, beyond the threshold, in the bad direction
 *   improvement  significant, beyond the threshold, in the good direction
 *   unchanged    the interval of the % change lies within +-threshold
 *   undecided    none of these at max_runs of the head
 *
 * and while it does not, both run once more.
 *
 * Only runs of this cycle decide (`head` and `fresh` are the runs since
 * the cycle started): stored baseline runs come from another hour or day,
 * when the lab's level (load, temperature, firmware) may have been
 * another, and a head 49% slower next to stale baseline runs taken under
 * load looked "undecided"; the caller reads them no more.
 * Every look tests at `alpha` (default 0.001, one-sided), so that the
 * looks of the loop keep the false reports of a branch without changes
 * near 1%.
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
 * What to do next with this cycle's runs of the head and of the baseline
 * (base NULL: no baseline; a baseline without runs yet is a non-NULL base
 * with nb 0). `why` (may be NULL) gets one line once DONE. 0, or -1 on
 * unusable input.
 */
int nplan_next(const struct nplan_opts *o, const double *head, size_t nh,
	       const double *base, size_t nb, struct nplan *out,
	       struct sbuf *why);

#endif
