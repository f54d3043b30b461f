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

static bool within(const struct stats_detection *d, double thr)
{
	return d->ci_pct.bounded && d->ci_pct.lo > -thr && d->ci_pct.hi < thr;
}

/*
 * Head and baseline in ABBA order (head, baseline, baseline, head, head,
 * ...): balanced against a drift, and a boot every two runs on a box
 * rather than every run. The side behind (a skipped run) goes first.
 */
static enum nplan_next abba(size_t nh, size_t nb)
{
	if (nb != nh)
		return nb > nh ? NPLAN_HEAD : NPLAN_BASE;
	return nh % 2 ? NPLAN_BASE : NPLAN_HEAD;
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
	if (!base && nh < min) {
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
	/* the baseline's runs interleaved with the head's, as many at least */
	if (nb < nh || nh < min) {
		out->next = abba(nh, nb);
		return 0;
	}
	stats_detect_opts_init(&d);
	d.direction = o->direction;
	d.threshold_pct = o->threshold_pct;
	d.alpha = o->alpha > 0 ? o->alpha : 0.001;
	if (stats_detect(&d, base, nb, head, nh, &out->det, NULL) < 0)
		return -1;
	out->have_detection = true;
	if (out->det.regression)
		out->verdict = "regression";
	else if (out->det.improvement)
		out->verdict = "improvement";
	else if (within(&out->det, o->threshold_pct))
		out->verdict = "unchanged";
	else if (nh >= max)
		out->verdict = "undecided";
	else
		out->next = abba(nh, nb);
	if (out->verdict && why) {
		const struct stats_detection *x = &out->det;
		char pv[32];

		sbuf_addf(why, "%s: %+.2f%%", out->verdict, x->change_pct);
		if (x->ci_pct.bounded)
			sbuf_addf(why, " [%+.2f%%, %+.2f%%]", x->ci_pct.lo,
				  x->ci_pct.hi);
		rb_fmt_p(pv, sizeof(pv), x->p);
		sbuf_addf(why, " (95%% ci), %s, %.6g -> %.6g, %zu vs %zu runs",
			  pv, x->base_mean, x->new_mean, nb, nh);
	}
	return 0;
}
