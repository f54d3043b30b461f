// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two-sample tests and intervals (Welch, Yuen, Mann-Whitney, KS, the
 * change's intervals, Hodges-Lehmann) and regression detection. Pure.
 */
#include <float.h>
#include <math.h>

#include "robot.h"
#include "sbuf.h"
#include "stats.h"
#include "stats-internal.h"

/* ------------------------------------------------------------------ */
/* Tests and intervals */

double stats_sided_p(double stat, double df, enum stats_alt alt)
{
	switch (alt) {
	case STATS_GREATER:
		return stats_t_sf(stat, df);
	case STATS_LESS:
		return stats_t_cdf(stat, df);
	case STATS_TWO_SIDED:
	default:
		return RB_MIN(1.0, 2 * stats_t_upper(fabs(stat), df));
	}
}

/* t test from two means, two variances of the means and their dfs */
static void welch_from(struct stats_test *out, double ma, double va_m,
		       double dfa, double mb, double vb_m, double dfb,
		       enum stats_alt alt)
{
	double se2 = va_m + vb_m, diff = mb - ma;

	memset(out, 0, sizeof(*out));
	if (se2 <= 0) {
		out->df = dfa + dfb;
		if (diff == 0) {
			out->stat = 0;
			out->p = 1;
		} else {
			out->stat = diff > 0 ? INFINITY : -INFINITY;
			out->p = (alt == STATS_GREATER &&
				  diff < 0) || (alt == STATS_LESS && diff > 0) ?
					 1 :
					 0;
		}
		return;
	}
	out->stat = diff / sqrt(se2);
	out->df = se2 * se2 /
		  ((va_m > 0 ? va_m * va_m / dfa : 0) +
		   (vb_m > 0 ? vb_m * vb_m / dfb : 0));
	out->p = stats_sided_p(out->stat, out->df, alt);
}

int stats_welch(struct stats_test *out, const double *a, size_t na,
		const double *b, size_t nb, enum stats_alt alt)
{
	struct stats_summary sa, sb;

	if (na < 2 || nb < 2)
		return rb_error("welch test needs 2 runs on each side, got "
				"%zu and %zu",
				na, nb);
	stats_summarize(&sa, a, na);
	stats_summarize(&sb, b, nb);
	welch_from(out, sa.mean, sa.stddev * sa.stddev / (double)na,
		   (double)na - 1, sb.mean, sb.stddev * sb.stddev / (double)nb,
		   (double)nb - 1, alt);
	return 0;
}

/* trimmed mean and the d term of Yuen's test */
static int yuen_side(const double *v, size_t n, double frac, double *tm,
		     double *d, double *h)
{
	double *s = stats_sorted_copy(v, n), wm = 0, ws = 0;
	size_t g = (size_t)floor(frac * (double)n), i, k;

	if (n < 2 || n - 2 * g < 2) {
		free(s);
		return -1;
	}
	k = n - 2 * g;
	*tm = stats_sorted_trimmed_mean(s, n, frac);
	for (i = 0; i < n; i++) {
		double w = s[i < g ? g : i >= n - g ? n - g - 1 : i];

		wm += w;
	}
	wm /= (double)n;
	for (i = 0; i < n; i++) {
		double w = s[i < g ? g : i >= n - g ? n - g - 1 : i];

		ws += (w - wm) * (w - wm);
	}
	/* (n - 1) s_w^2 / (h (h - 1)) */
	*d = ws / ((double)k * ((double)k - 1));
	*h = (double)k;
	free(s);
	return 0;
}

int stats_yuen(struct stats_test *out, const double *a, size_t na,
	       const double *b, size_t nb, double frac, enum stats_alt alt)
{
	double ta, da, ha, tb, db, hb;

	if (yuen_side(a, na, frac, &ta, &da, &ha) ||
	    yuen_side(b, nb, frac, &tb, &db, &hb))
		return rb_error("yuen test needs 2 runs left after trimming on "
				"each side, got %zu and %zu",
				na, nb);
	welch_from(out, ta, da, ha - 1, tb, db, hb - 1, alt);
	return 0;
}

/* average ranks of the pooled sample; returns the tie term sum(t^3 - t) */
struct ranked {
	double v;
	int side;
	double rank;
};

static int cmp_ranked(const void *x, const void *y)
{
	return stats_cmp_double(&((const struct ranked *)x)->v,
				&((const struct ranked *)y)->v);
}

static double rank_pool(struct ranked *r, size_t n)
{
	size_t i = 0, j;
	double ties = 0;

	qsort(r, n, sizeof(*r), cmp_ranked);
	while (i < n) {
		double t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		for (size_t k = i; k < j; k++)
			r[k].rank = (double)(i + j + 1) / 2.0;
		ties += t * t * t - t;
		i = j;
	}
	return ties;
}

/*
 * Exact null distribution of U = W - nb(nb+1)/2 where W is the rank sum of
 * nb values among N = na + nb without ties: counts of nb-subsets of
 * {1..N} by their sum, by dynamic programming; returned as probabilities
 * pmf[0..na*nb].
 */
static double *mwu_pmf(size_t na, size_t nb)
{
	size_t N = na + nb, smax = N * (N + 1) / 2, k, s, i, umax = na * nb;
	double *dp = xcalloc((nb + 1) * (smax + 1), sizeof(*dp));
	double *pmf = xcalloc(umax + 1, sizeof(*pmf)), total = 0;
	size_t base = nb * (nb + 1) / 2;

#define DP(k, s) dp[(k) * (smax + 1) + (s)]
	DP(0, 0) = 1;
	for (i = 1; i <= N; i++)
		for (k = RB_MIN(i, nb); k >= 1; k--)
			for (s = smax; s >= i; s--)
				DP(k, s) += DP(k - 1, s - i);
	for (s = base; s <= base + umax; s++) {
		pmf[s - base] = DP(nb, s);
		total += DP(nb, s);
	}
#undef DP
	for (s = 0; s <= umax; s++)
		pmf[s] /= total;
	free(dp);
	return pmf;
}

int stats_mann_whitney(struct stats_test *out, const double *a, size_t na,
		       const double *b, size_t nb, enum stats_alt alt)
{
	struct ranked *r;
	size_t N = na + nb, i;
	double ties, wb = 0, u, mu, var;

	memset(out, 0, sizeof(*out));
	if (!na || !nb)
		return rb_error("mann-whitney test needs runs on both sides");
	r = xmalloc(N * sizeof(*r));
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0, 0 };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1, 0 };
	ties = rank_pool(r, N);
	for (i = 0; i < N; i++)
		if (r[i].side)
			wb += r[i].rank;
	free(r);
	u = wb - (double)nb * ((double)nb + 1) / 2;
	out->stat = u;
	mu = (double)na * (double)nb / 2;
	if (ties == 0 && na <= 50 && nb <= 50) {
		double *pmf = mwu_pmf(na, nb), ge = 0, le = 0;
		size_t ui = (size_t)llround(u), k;

		for (k = 0; k <= na * nb; k++) {
			if (k >= ui)
				ge += pmf[k];
			if (k <= ui)
				le += pmf[k];
		}
		free(pmf);
		out->exact = true;
		if (alt == STATS_GREATER)
			out->p = ge;
		else if (alt == STATS_LESS)
			out->p = le;
		else
			out->p = RB_MIN(1.0, 2 * RB_MIN(ge, le));
		out->p = RB_MIN(1.0, out->p);
		return 0;
	}
	var = (double)na * (double)nb / 12 *
	      ((double)N + 1 - ties / ((double)N * ((double)N - 1)));
	if (var <= 0) {
		out->p = 1;
		return 0;
	}
	if (alt == STATS_GREATER) {
		out->p = stats_norm_sf((u - mu - 0.5) / sqrt(var));
	} else if (alt == STATS_LESS) {
		out->p = stats_norm_cdf((u - mu + 0.5) / sqrt(var));
	} else {
		double z = (fabs(u - mu) - 0.5) / sqrt(var);

		out->p = z <= 0 ? 1 : RB_MIN(1.0, 2 * stats_norm_sf(z));
	}
	return 0;
}

/*
 * Exact two-sided p of the two-sample KS statistic: the share of the
 * monotone lattice paths from (0, 0) to (na, nb) that leave the band
 * |i nb - j na| < dn (dn = D na nb, an integer), every path equally
 * likely. Probabilities instead of counts keep it in range.
 */
static double ks_exact_p(size_t na, size_t nb, long dn)
{
	double *u = xcalloc(nb + 1, sizeof(*u)), inside;
	size_t i, j, N = na + nb;

	for (i = 0; i <= na; i++) {
		for (j = 0; j <= nb; j++) {
			long gap = labs((long)(i * nb) - (long)(j * na));
			double p = 0;

			if (gap >= dn) {
				u[j] = 0;
				continue;
			}
			if (!i && !j) {
				u[j] = 1;
				continue;
			}
			/* from (i-1, j): an a step; from (i, j-1): a b step */
			if (i)
				p += u[j] * (double)(na - i + 1) /
				     (double)(N - (i - 1) - j);
			if (j)
				p += u[j - 1] * (double)(nb - j + 1) /
				     (double)(N - i - (j - 1));
			u[j] = p;
		}
	}
	inside = u[nb];
	free(u);
	return RB_MAX(0.0, RB_MIN(1.0, 1 - inside));
}

int stats_ks2(struct stats_test *out, const double *a, size_t na,
	      const double *b, size_t nb)
{
	double *sa, *sb;
	size_t i = 0, j = 0;
	long dn = 0;

	memset(out, 0, sizeof(*out));
	if (!na || !nb)
		return rb_error("kolmogorov-smirnov test needs runs on both "
				"sides");
	sa = stats_sorted_copy(a, na);
	sb = stats_sorted_copy(b, nb);
	while (i < na || j < nb) {
		double x;
		long g;

		if (j >= nb || (i < na && sa[i] <= sb[j]))
			x = sa[i];
		else
			x = sb[j];
		while (i < na && sa[i] == x)
			i++;
		while (j < nb && sb[j] == x)
			j++;
		g = labs((long)(i * nb) - (long)(j * na));
		if (g > dn)
			dn = g;
	}
	free(sa);
	free(sb);
	out->stat = (double)dn / ((double)na * (double)nb);
	if ((double)na * (double)nb <= 250000) {
		out->p = dn ? ks_exact_p(na, nb, dn) : 1;
		out->exact = true;
	} else {
		double en = sqrt((double)na * (double)nb / (double)(na + nb));

		out->p = stats_kolmogorov_sf((en + 0.12 + 0.11 / en) *
					     out->stat);
	}
	return 0;
}

int stats_diff_ci(struct stats_interval *out, const double *a, size_t na,
		  const double *b, size_t nb, double level)
{
	struct stats_summary sa, sb;
	struct stats_test t;
	double se, q;

	memset(out, 0, sizeof(*out));
	if (stats_welch(&t, a, na, b, nb, STATS_TWO_SIDED))
		return -1;
	stats_summarize(&sa, a, na);
	stats_summarize(&sb, b, nb);
	out->est = sb.mean - sa.mean;
	se = sqrt(sa.stddev * sa.stddev / (double)na +
		  sb.stddev * sb.stddev / (double)nb);
	q = se > 0 ? stats_t_quantile(0.5 + level / 2, t.df) : 0;
	out->lo = out->est - q * se;
	out->hi = out->est + q * se;
	out->bounded = true;
	return 0;
}

/*
 * Fieller's interval for rho = mu_b / mu_a: the rho with
 * (mb - rho ma)^2 <= q^2 (vb + rho^2 va), a quadratic in rho that is a
 * bounded interval when ma^2 > q^2 va (the base mean is significantly
 * away from zero).
 */
int stats_pct_change_ci(struct stats_interval *out, const double *a, size_t na,
			const double *b, size_t nb, double level)
{
	struct stats_summary sa, sb;
	struct stats_test t;
	double va, vb, q, A, B, C, disc, r1, r2;

	memset(out, 0, sizeof(*out));
	if (stats_welch(&t, a, na, b, nb, STATS_TWO_SIDED))
		return -1;
	stats_summarize(&sa, a, na);
	stats_summarize(&sb, b, nb);
	out->est = stats_pct_change(sa.mean, sb.mean);
	va = sa.stddev * sa.stddev / (double)na;
	vb = sb.stddev * sb.stddev / (double)nb;
	if (va + vb == 0) {
		out->lo = out->hi = out->est;
		out->bounded = sa.mean != 0;
		return 0;
	}
	q = stats_t_quantile(0.5 + level / 2, t.df);
	A = sa.mean * sa.mean - q * q * va;
	B = -2 * sa.mean * sb.mean;
	C = sb.mean * sb.mean - q * q * vb;
	disc = B * B - 4 * A * C;
	if (A <= 0 || disc < 0) {
		out->lo = -INFINITY;
		out->hi = INFINITY;
		out->bounded = false;
		return 0;
	}
	r1 = (-B - sqrt(disc)) / (2 * A);
	r2 = (-B + sqrt(disc)) / (2 * A);
	out->lo = 100 * (RB_MIN(r1, r2) - 1);
	out->hi = 100 * (RB_MAX(r1, r2) - 1);
	out->bounded = true;
	return 0;
}

int stats_hodges_lehmann(struct stats_interval *out, const double *a, size_t na,
			 const double *b, size_t nb, double level)
{
	size_t m = na * nb, i, j, k = 0;
	double *d, alpha = 1 - level;

	memset(out, 0, sizeof(*out));
	if (!na || !nb)
		return rb_error("hodges-lehmann needs runs on both sides");
	d = xmalloc(m * sizeof(*d));
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, m, sizeof(*d), stats_cmp_double);
	out->est = stats_sorted_quantile(d, m, 0.5);
	/* k: how many differences to cut at each end */
	if (na <= 50 && nb <= 50) {
		double *pmf = mwu_pmf(na, nb), cum = 0;

		for (k = 0; k <= m; k++) {
			if (cum + pmf[k] > alpha / 2)
				break;
			cum += pmf[k];
		}
		free(pmf);
	} else {
		double sd = sqrt((double)na * (double)nb *
				 (double)(na + nb + 1) / 12);
		double kk =
			(double)m / 2 - stats_norm_quantile(1 - alpha / 2) * sd;

		k = kk > 0 ? (size_t)floor(kk) : 0;
	}
	if (k == 0 || 2 * k > m) {
		out->lo = -INFINITY;
		out->hi = INFINITY;
		out->bounded = false;
	} else {
		out->lo = d[k - 1];
		out->hi = d[m - k];
		out->bounded = true;
	}
	free(d);
	return 0;
}

void stats_detect_opts_init(struct stats_detect_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.01;
	o->level = 0.95;
	o->trim = 0.1;
}

int stats_detect(const struct stats_detect_opts *o, const double *a, size_t na,
		 const double *b, size_t nb, struct stats_detection *out,
		 struct sbuf *why)
{
	struct stats_test t, tb;
	enum stats_alt bad_alt, good_alt;

	memset(out, 0, sizeof(*out));
	if (na < 2 || nb < 2)
		return rb_error("detection needs 2 runs on each side, got %zu "
				"and %zu",
				na, nb);
	out->base_mean = stats_mean(a, na);
	out->new_mean = stats_mean(b, nb);
	out->change_abs = out->new_mean - out->base_mean;
	out->change_pct = stats_pct_change(out->base_mean, out->new_mean);
	if (stats_diff_ci(&out->ci_abs, a, na, b, nb, o->level) ||
	    stats_pct_change_ci(&out->ci_pct, a, na, b, nb, o->level) ||
	    stats_hodges_lehmann(&out->shift, a, na, b, nb, o->level))
		return -1;
	stats_welch(&t, a, na, b, nb, STATS_TWO_SIDED);
	out->p_welch = t.p;
	stats_mann_whitney(&t, a, na, b, nb, STATS_TWO_SIDED);
	out->p_mwu = t.p;
	stats_ks2(&t, a, na, b, nb);
	out->p_ks = t.p;
	bad_alt = o->direction > 0 ? STATS_LESS :
		  o->direction < 0 ? STATS_GREATER :
				     STATS_TWO_SIDED;
	good_alt = o->direction > 0 ? STATS_GREATER :
		   o->direction < 0 ? STATS_LESS :
				      STATS_TWO_SIDED;
	if (stats_yuen(&t, a, na, b, nb, o->trim, bad_alt) ||
	    stats_yuen(&tb, a, na, b, nb, o->trim, good_alt))
		return -1;
	out->beyond_threshold = fabs(out->change_pct) >= o->threshold_pct &&
				out->change_abs != 0;
	out->bad_direction = o->direction ? o->direction * out->change_abs < 0 :
					    out->change_abs != 0;
	/* p of the one-sided test in the direction the change went */
	out->p = !o->direction || out->bad_direction ? t.p : tb.p;
	out->significant = out->p <= o->alpha;
	out->regression = out->significant && out->beyond_threshold &&
			  out->bad_direction;
	out->improvement = o->direction && out->significant &&
			   out->beyond_threshold && !out->bad_direction;
	if (why) {
		char pv[32];

		sbuf_addf(why, "%s: %+.2f%%",
			  out->regression	 ? "regression" :
			  out->improvement	 ? "improvement" :
			  !out->significant	 ? "no significant change" :
			  !out->beyond_threshold ? "below the threshold" :
						   "change",
			  out->change_pct);
		if (out->ci_pct.bounded)
			sbuf_addf(why, " [%+.2f%%, %+.2f%%]", out->ci_pct.lo,
				  out->ci_pct.hi);
		rb_fmt_p(pv, sizeof(pv), out->p);
		sbuf_addf(why,
			  " (%.0f%% ci), %s, %.6g -> %.6g, %zu vs %zu runs",
			  100 * o->level, pv, out->base_mean, out->new_mean, na,
			  nb);
	}
	return 0;
}
