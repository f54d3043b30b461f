// SPDX-License-Identifier: GPL-2.0-only
/*
 * How many runs a head gets and what they say (pure; see nightly-plan.h).
 */
#include <math.h>

#include "robot.h"
#include "nightly-plan.h"
#include "sbuf.h"

/* Half the width of the 95% interval of the mean, in % of the mean. */
static double mean_ci_pct(const double *v, size_t n)
{
	struct stats_summary s;

	stats_summarize(&s, v, n);
	if (n < 2 || s.mean == 0)
		return INFINITY;
	return 100.0 * stats_t_quantile(0.975, (double)(n - 1)) * s.stddev /
	       sqrt((double)n) / fabs(s.mean);
}

int nplan_next(const struct nplan_opts *o, const double *head, size_t nh,
	       const double *base, size_t nb, struct nplan *out,
	       struct sbuf *why)
{
	struct stats_detect_opts d;
	size_t min = RB_MAX(o->min_runs, 2), max = RB_MAX(o->max_runs, min);
	double ci;

	memset(out, 0, sizeof(*out));
	if (!(o->threshold_pct > 0) || !o->direction)
		return rb_error("a detection needs a threshold and a "
				"direction");
	out->next = NPLAN_DONE;
	if (nh < min) {
		out->next = NPLAN_HEAD;
		return 0;
	}
	if (!base) {
		ci = mean_ci_pct(head, nh);
		if (nh < max && ci > o->threshold_pct / 2) {
			out->next = NPLAN_HEAD;
			return 0;
		}
		out->verdict = "first";
		if (why) {
			struct stats_summary s;

			stats_summarize(&s, head, nh);
			sbuf_addf(why,
				  "%.6g +-%.2f%% (95%% ci of the mean), "
				  "%zu runs",
				  s.mean, ci, nh);
		}
		return 0;
	}
	if (nb < min) {
		out->next = NPLAN_BASE;
		return 0;
	}
	stats_detect_opts_init(&d);
	d.direction = o->direction;
	d.threshold_pct = o->threshold_pct;
	if (stats_detect(&d, base, nb, head, nh, &out->det, why) < 0)
		return -1;
	out->have_detection = true;
	if (out->det.regression) {
		out->verdict = "regression";
	} else if (out->det.improvement) {
		out->verdict = "improvement";
	} else if (out->det.ci_pct.bounded &&
		   out->det.ci_pct.lo > -o->threshold_pct &&
		   out->det.ci_pct.hi < o->threshold_pct) {
		out->verdict = "unchanged";
	} else if (nh >= max) {
		out->verdict = "undecided";
	} else {
		/* the side with fewer runs, the baseline up to the cap */
		out->next = nh <= nb || nb >= max ? NPLAN_HEAD : NPLAN_BASE;
		if (why)
			sbuf_reset(why);
	}
	return 0;
}
