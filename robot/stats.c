// SPDX-License-Identifier: GPL-2.0-only
/*
 * Statistics: sample sets, summaries, distributions, two-sample tests and
 * intervals, and the decisions a bisection takes on them. Pure: see
 * stats.h for the API and the reasoning of each decision rule.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>

#include "robot.h"
#include "sbuf.h"
#include "stats.h"

/* ------------------------------------------------------------------ */
/* Sample sets */

void stats_set_init(struct stats_set *s)
{
	memset(s, 0, sizeof(*s));
}

void stats_set_release(struct stats_set *s)
{
	free(s->v);
	free(s->host);
	free(s->when);
	stats_set_init(s);
}

static void set_grow(struct stats_set *s, size_t n)
{
	if (n <= s->alloc)
		return;
	RB_ALLOC_GROW(s->v, n, s->alloc);
	if (s->host) {
		s->host = xrealloc(s->host, s->alloc * sizeof(*s->host));
		s->when = xrealloc(s->when, s->alloc * sizeof(*s->when));
	}
}

void stats_set_add(struct stats_set *s, double x)
{
	set_grow(s, s->nr + 1);
	s->v[s->nr] = x;
	if (s->host) {
		s->host[s->nr] = 0;
		s->when[s->nr] = 0;
	}
	s->nr++;
}

void stats_set_addv(struct stats_set *s, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		stats_set_add(s, v[i]);
}

void stats_set_add_run(struct stats_set *s, double x, int host, double when)
{
	set_grow(s, s->nr + 1);
	if (!s->host) {
		s->host = xcalloc(s->alloc ? s->alloc : 1, sizeof(*s->host));
		s->when = xcalloc(s->alloc ? s->alloc : 1, sizeof(*s->when));
	}
	s->v[s->nr] = x;
	s->host[s->nr] = host;
	s->when[s->nr] = when;
	s->nr++;
}

size_t stats_set_count_on(const struct stats_set *s, int host)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		if (!s->host || s->host[i] == host)
			n++;
	return n;
}

void stats_set_copy(struct stats_set *dst, const struct stats_set *src)
{
	size_t i;

	stats_set_release(dst);
	for (i = 0; i < src->nr; i++) {
		if (src->host)
			stats_set_add_run(dst, src->v[i], src->host[i],
					  src->when[i]);
		else
			stats_set_add(dst, src->v[i]);
	}
}

/* ------------------------------------------------------------------ */
/* Summaries */

void stats_running_add(struct stats_running *r, double x)
{
	double delta;

	if (!r->n || x < r->min)
		r->min = x;
	if (!r->n || x > r->max)
		r->max = x;
	r->n++;
	delta = x - r->mean;
	r->mean += delta / (double)r->n;
	r->m2 += delta * (x - r->mean);
}

double stats_running_var_pop(const struct stats_running *r)
{
	return r->n ? r->m2 / (double)r->n : 0;
}

double stats_running_var(const struct stats_running *r)
{
	return r->n > 1 ? r->m2 / (double)(r->n - 1) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));

	if (n)
		memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* Quantile of an already sorted array (type 7). */
static double sorted_quantile(const double *s, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (!n)
		return 0;
	if (q <= 0)
		return s[0];
	if (q >= 1)
		return s[n - 1];
	h = (double)(n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (h - lo) * (s[i + 1] - s[i]);
}

static double sorted_trimmed_mean(const double *s, size_t n, double frac)
{
	size_t g = (size_t)floor(frac * (double)n), i;
	double sum = 0;

	if (!n)
		return 0;
	if (2 * g >= n)
		g = (n - 1) / 2;
	for (i = g; i < n - g; i++)
		sum += s[i];
	return sum / (double)(n - 2 * g);
}

double stats_mean(const double *v, size_t n)
{
	struct stats_running r = STATS_RUNNING_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		stats_running_add(&r, v[i]);
	return r.mean;
}

double stats_quantile(const double *v, size_t n, double q)
{
	double *s = sorted_copy(v, n), r = sorted_quantile(s, n, q);

	free(s);
	return r;
}

double stats_median(const double *v, size_t n)
{
	return stats_quantile(v, n, 0.5);
}

double stats_trimmed_mean(const double *v, size_t n, double frac)
{
	double *s = sorted_copy(v, n), r = sorted_trimmed_mean(s, n, frac);

	free(s);
	return r;
}

void stats_summarize(struct stats_summary *out, const double *v, size_t n)
{
	struct stats_running r = STATS_RUNNING_INIT;
	double *s, *dev;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	for (i = 0; i < n; i++)
		stats_running_add(&r, v[i]);
	s = sorted_copy(v, n);
	out->n = n;
	out->mean = r.mean;
	out->stddev_pop = sqrt(stats_running_var_pop(&r));
	out->stddev = sqrt(stats_running_var(&r));
	out->cv_pct = r.mean != 0 ? 100 * out->stddev_pop / r.mean : 0;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = sorted_quantile(s, n, 0.5);
	out->q1 = sorted_quantile(s, n, 0.25);
	out->q3 = sorted_quantile(s, n, 0.75);
	out->trimmed_mean = sorted_trimmed_mean(s, n, 0.2);
	dev = xmalloc(n * sizeof(*dev));
	for (i = 0; i < n; i++)
		dev[i] = fabs(v[i] - out->median);
	qsort(dev, n, sizeof(*dev), cmp_double);
	out->mad = sorted_quantile(dev, n, 0.5);
	free(dev);
	free(s);
}

struct idx_val {
	double v;
	bool is_int;
};

static int cmp_idx_val(const void *a, const void *b)
{
	return cmp_double(&((const struct idx_val *)a)->v,
			  &((const struct idx_val *)b)->v);
}

void stats_lkp_summary(struct stats_lkp_summary *out, const double *v,
		       const bool *is_int, size_t n, size_t max_margin)
{
	struct idx_val *s;
	size_t margin = n >> 5, i, k;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	if (margin > max_margin)
		margin = max_margin;
	s = xmalloc(n * sizeof(*s));
	for (i = 0; i < n; i++) {
		s[i].v = v[i];
		s[i].is_int = is_int ? is_int[i] : false;
	}
	qsort(s, n, sizeof(*s), cmp_idx_val);
	if (2 * margin >= n) {
		free(s);
		return;
	}
	k = n - 2 * margin;
	out->n = k;
	out->min = s[margin].v;
	out->mid = s[margin + k / 2].v;
	out->mid_is_int = s[margin + k / 2].is_int;
	out->max = s[n - margin - 1].v;
	free(s);
}

double stats_pct_change(double a, double b)
{
	if (a == 0)
		a = 1e-100;
	return 100.0 * (b - a) / a;
}

bool stats_lkp_changed(const struct stats_lkp_summary *a,
		       const struct stats_lkp_summary *b)
{
	if (!a->n || !b->n)
		return false;
	return (b->min > a->mid && b->mid > a->max) ||
	       (a->min > b->mid && a->mid > b->max);
}

/* ------------------------------------------------------------------ */
/* Distributions */

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double stats_norm_sf(double x)
{
	return 0.5 * erfc(x / M_SQRT2);
}

/*
 * Inverse of the normal cdf: P. J. Acklam's rational approximation
 * (relative error 1.15e-9), then two Halley steps on erfc, which bring it
 * to full double precision.
 */
double stats_norm_quantile(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00
	};
	static const double b[] = { -5.447609879822406e+01,
				    1.615858368580409e+02,
				    -1.556989798598866e+02,
				    6.680131188771972e+01,
				    -1.328068155288572e+01 };
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00,	2.938163982698783e+00
	};
	static const double d[] = { 7.784695709041462e-03,
				    3.224671290700398e-01,
				    2.445134137142996e+00,
				    3.754408661907416e+00 };
	const double plow = 0.02425;
	double q, r, x;
	int i;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p < plow) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			     q +
		     c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= 1 - plow) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
			     r +
		     a[5]) *
		    q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
			     r +
		     1);
	} else {
		q = sqrt(-2 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			      q +
		      c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	for (i = 0; i < 2; i++) {
		double e, u;

		/* work in the smaller tail to keep precision */
		if (p < 0.5)
			e = stats_norm_cdf(x) - p;
		else
			e = (1 - p) - stats_norm_sf(x);
		u = e * sqrt(2 * M_PI) * exp(x * x / 2);
		x = x - u / (1 + x * u / 2);
	}
	return x;
}

static double log_gamma(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

/*
 * Continued fraction for the incomplete beta function, evaluated with the
 * modified Lentz method (converges for x < (a + 1) / (a + b + 2)).
 */
static double incbeta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double c = 1, d, h, aa, del;
	int m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m;

		aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_incbeta(double a, double b, double x)
{
	double lbt;

	if (isnan(x) || a <= 0 || b <= 0)
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * log(x) +
	      b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * incbeta_cf(a, b, x) / a;
	return 1 - exp(lbt) * incbeta_cf(b, a, 1 - x) / b;
}

/* P(T > t) for t >= 0 */
static double t_upper(double t, double df)
{
	if (isinf(t))
		return 0;
	if (df > 1e7)
		return stats_norm_sf(t);
	return 0.5 * stats_incbeta(df / 2, 0.5, df / (df + t * t));
}

double stats_t_sf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	return t >= 0 ? t_upper(t, df) : 1 - t_upper(-t, df);
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	return t >= 0 ? 1 - t_upper(t, df) : t_upper(-t, df);
}

static double t_pdf(double t, double df)
{
	return exp(log_gamma((df + 1) / 2) - log_gamma(df / 2) -
		   0.5 * log(df * M_PI) - (df + 1) / 2 * log1p(t * t / df));
}

/*
 * Newton's method on the upper tail from a Cornish-Fisher start (the
 * normal quantile corrected in powers of 1/df), kept inside a bracket
 * that bisection shrinks whenever a Newton step would leave it.
 */
double stats_t_quantile(double p, double df)
{
	double tail, z, t, lo = 0, hi = INFINITY;
	int i;

	if (isnan(p) || p < 0 || p > 1 || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	tail = p > 0.5 ? 1 - p : p;
	z = -stats_norm_quantile(tail);
	t = z + (z * z * z + z) / (4 * df) +
	    (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df);
	if (!(t > 0) || !isfinite(t))
		t = z;
	for (i = 0; i < 200; i++) {
		double f = t_upper(t, df) - tail, next;

		if (f > 0)
			lo = t;
		else
			hi = t;
		if (fabs(f) <= 1e-15 * tail)
			break;
		next = t + f / t_pdf(t, df);
		if (!(next > lo && next < hi))
			next = isinf(hi) ? 2 * t + 1 : 0.5 * (lo + hi);
		if (fabs(next - t) <= 1e-14 * t) {
			t = next;
			break;
		}
		t = next;
	}
	return p > 0.5 ? t : -t;
}

double stats_kolmogorov_sf(double x)
{
	double sum = 0, term;
	int k;

	if (x <= 0)
		return 1;
	if (x < 1) {
		/* the Jacobi theta form converges fast for small x */
		for (k = 1; k < 100; k++) {
			double j = 2.0 * k - 1;

			term = exp(-j * j * M_PI * M_PI / (8 * x * x));
			sum += term;
			if (term < 1e-17 * sum)
				break;
		}
		return 1 - sqrt(2 * M_PI) / x * sum;
	}
	for (k = 1; k < 100; k++) {
		term = exp(-2.0 * k * k * x * x);
		sum += (k & 1) ? term : -term;
		if (term < 1e-17)
			break;
	}
	sum *= 2;
	return sum < 0 ? 0 : sum > 1 ? 1 : sum;
}

/* ------------------------------------------------------------------ */
/* Tests and intervals */

static double sided_p(double stat, double df, enum stats_alt alt)
{
	switch (alt) {
	case STATS_GREATER:
		return stats_t_sf(stat, df);
	case STATS_LESS:
		return stats_t_cdf(stat, df);
	case STATS_TWO_SIDED:
	default:
		return RB_MIN(1.0, 2 * t_upper(fabs(stat), df));
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
	out->p = sided_p(out->stat, out->df, alt);
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
	double *s = sorted_copy(v, n), wm = 0, ws = 0;
	size_t g = (size_t)floor(frac * (double)n), i, k;

	if (n < 2 || n - 2 * g < 2) {
		free(s);
		return -1;
	}
	k = n - 2 * g;
	*tm = sorted_trimmed_mean(s, n, frac);
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
	return cmp_double(&((const struct ranked *)x)->v,
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
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
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
	qsort(d, m, sizeof(*d), cmp_double);
	out->est = sorted_quantile(d, m, 0.5);
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

/* ------------------------------------------------------------------ */
/* Directions */

static const struct {
	const char *re;
	int dir;
} direction_rows[] = {
	/* lkp's index: stress-ng rates are higher-is-better KPIs */
	{ "^stress-ng\\..+_per_(sec|item|seek)$", 1 },
	/* bogo ops counts depend on the run time: not a KPI */
	{ "^stress-ng\\.[^.]+\\.ops$", 0 },
	{ "\\.(fail|error|warn)$", -1 },
	{ "\\.pass$", 1 },
	/* latencies and times: lower is better */
	{ "latency|(^|[._])lat([._]|$)|wait_time|sch_delay|_delay", -1 },
	{ "(^|\\.)time\\.(elapsed_time|system_time|user_time)", -1 },
	{ "(_|\\.)(ns|us|usec|ms|msec|sec|seconds)(\\.max)?$", -1 },
	{ "\\.ms\\.", -1 },
	/* rates and throughputs: higher is better */
	{ "_per_(sec|s|min|second)$|throughput|(^|[._])ops_per|MB/sec|"
	  "_MB_per_sec|bogo_ops",
	  1 },
	{ "_per_", 1 },
};

static regex_t direction_re[RB_ARRAY_SIZE(direction_rows)];
static int direction_ok[RB_ARRAY_SIZE(direction_rows)];
static pthread_once_t direction_once = PTHREAD_ONCE_INIT;

static void direction_compile(void)
{
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(direction_rows); i++)
		direction_ok[i] =
			!regcomp(&direction_re[i], direction_rows[i].re,
				 REG_EXTENDED | REG_NOSUB | REG_ICASE);
}

int stats_direction(const char *stat)
{
	size_t i;

	pthread_once(&direction_once, direction_compile);
	for (i = 0; i < RB_ARRAY_SIZE(direction_rows); i++)
		if (direction_ok[i] &&
		    !regexec(&direction_re[i], stat, 0, NULL, 0))
			return direction_rows[i].dir;
	return 0;
}

const char *stats_change_kind(int direction, double change)
{
	if (!direction)
		return "undefined";
	return direction * change < 0 ? "regression" : "improvement";
}

/* ------------------------------------------------------------------ */
/* Decisions for a bisection */

/* Huber's tuning constant for the anchors' robust fit (95% efficiency). */
#define HUBER_K 1.5
/*
 * Siegmund's constant: a Gaussian random walk overshoots a far boundary by
 * about 0.583 increment standard deviations, so Wald's bound exp(-A)
 * overstates the error by exp(0.583 theta); the boundary is lowered by
 * that much (Siegmund, Sequential Analysis, 1985, ch. 3).
 */
#define SIEGMUND_RHO 0.583

void stats_policy_init(struct stats_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->direction = 0;
	p->threshold_kind = STATS_THRESHOLD_MIDPOINT;
	p->budget = 0.01;
	p->expected_steps = 10;
	p->endpoint_alpha = 0.005;
	p->min_runs = 2;
	p->max_runs = 30;
	p->anchor_min_runs = 3;
	p->anchor_max_runs = 30;
	p->clip_sd = 1.5;
	p->confirm_alpha = 0.02;
	p->drift = STATS_DRIFT_AUTO;
	p->anchor_refresh = 0;
}

void stats_noise_add(struct stats_noise *nz, const struct stats_set *runs)
{
	size_t i, j;

	/* the spread of the runs around their own mean, per host */
	for (i = 0; i < runs->nr; i++) {
		int h = runs->host ? runs->host[i] : 0;
		double sum = 0, ss = 0, mean;
		size_t k = 0;
		bool first = true;

		for (j = 0; j < i && first; j++)
			if ((runs->host ? runs->host[j] : 0) == h)
				first = false;
		if (!first)
			continue;
		for (j = i; j < runs->nr; j++)
			if ((runs->host ? runs->host[j] : 0) == h) {
				sum += runs->v[j];
				k++;
			}
		mean = sum / (double)k;
		for (j = i; j < runs->nr; j++)
			if ((runs->host ? runs->host[j] : 0) == h)
				ss += (runs->v[j] - mean) * (runs->v[j] - mean);
		if (k > 1) {
			nz->ss += ss;
			nz->df += (double)k - 1;
		}
	}
}

double stats_policy_step_alpha(const struct stats_policy *p)
{
	unsigned steps = p->expected_steps ? p->expected_steps : 1;

	return p->budget / (double)steps;
}

/* the drift rate the trend's prior allows, noise sd per `when` unit */
static double policy_drift_sd(const struct stats_policy *p)
{
	if (p->drift_sd > 0)
		return p->drift_sd;
	return p->anchor_refresh > 0 ? 1 / (8 * p->anchor_refresh) : 0;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_GOOD:
		return "good";
	case STATS_BAD:
		return "bad";
	case STATS_WEAK:
		return "weak";
	case STATS_NEED_MORE:
	default:
		return "need-more-runs";
	}
}

static const unsigned anchor_looks[] = { 3, 4, 5, 6, 8, 10, 13, 16, 20 };

/* the looks of a policy, in order; returns how many */
static size_t policy_looks(const struct stats_policy *p, unsigned *out)
{
	unsigned lo = p->anchor_min_runs ? p->anchor_min_runs : 2;
	unsigned hi = p->anchor_max_runs > lo ? p->anchor_max_runs : lo;
	size_t n = 0, i;

	out[n++] = lo;
	for (i = 0; i < RB_ARRAY_SIZE(anchor_looks); i++)
		if (anchor_looks[i] > lo && anchor_looks[i] < hi)
			out[n++] = anchor_looks[i];
	if (hi > lo)
		out[n++] = hi;
	return n;
}

unsigned stats_anchor_look(const struct stats_policy *p, size_t n)
{
	unsigned looks[RB_ARRAY_SIZE(anchor_looks) + 2];
	size_t k = policy_looks(p, looks), i;

	for (i = 0; i < k; i++)
		if (looks[i] >= n)
			return looks[i];
	return 0;
}

/*
 * The SPRT boundary for a per-step error alpha when the noise variance is
 * estimated with df degrees of freedom. With a plug-in estimate s^2 the
 * test's log likelihood ratio is the true one scaled by sigma^2 / s^2, so
 * Wald's bound becomes exp(-A s^2 / sigma^2); averaged over s^2 ~
 * sigma^2 chi2_df / df that is (1 + 2A/df)^(-df/2). Setting it to alpha:
 *
 *   A = (df / 2) (alpha^(-2/df) - 1)     (-> -log alpha as df grows)
 */
static double sprt_bound(double alpha, double df)
{
	if (df > 1e6)
		return -log(alpha);
	return df / 2 * expm1(-2 / df * log(alpha));
}

#define FIT_MAXHOST 16
#define FIT_MAXP (3 + FIT_MAXHOST)

struct obs {
	double y, t;
	int g; /* 0 good anchor, 1 bad anchor */
	int host;
};

/*
 * The anchors' model: y = mu_g + offset_host + slope (t - tbar) + noise,
 * fitted by iteratively reweighted least squares with Huber weights
 * (scale from the MAD of the residuals), so that an outlying anchor run
 * moves neither mean. Columns: 0 mu_good, 1 mu_bad, then one offset per
 * host but the reference (hosts[0]), then the slope when fitted.
 */
struct fit {
	size_t p, n;
	int nhost;
	int hosts[FIT_MAXHOST];
	bool slope;
	double slope_k; /* how much of the fitted slope is used (1) */
	double ridge; /* prior precision of the slope, in 1/sigma^2 */
	bool plain; /* least squares, no Huber weights */
	double tbar;
	double beta[FIT_MAXP];
	double cov[FIT_MAXP][FIT_MAXP]; /* (X'WX)^-1 */
	double rss, df;
};

static size_t fit_row(const struct fit *f, const struct obs *o, double *x)
{
	int k;

	memset(x, 0, f->p * sizeof(*x));
	x[o->g] = 1;
	for (k = 1; k < f->nhost; k++)
		if (f->hosts[k] == o->host)
			x[1 + k] = 1;
	if (f->slope)
		x[f->p - 1] = o->t - f->tbar;
	return f->p;
}

/* Invert the p x p matrix m in place (Gauss-Jordan, partial pivoting). */
static int invert(double m[FIT_MAXP][FIT_MAXP], size_t p)
{
	double a[FIT_MAXP][2 * FIT_MAXP], scale = 0;
	size_t i, j, k;

	for (i = 0; i < p; i++) {
		for (j = 0; j < p; j++) {
			a[i][j] = m[i][j];
			a[i][p + j] = i == j;
			scale = RB_MAX(scale, fabs(m[i][j]));
		}
	}
	for (i = 0; i < p; i++) {
		size_t piv = i;
		double d;

		for (k = i + 1; k < p; k++)
			if (fabs(a[k][i]) > fabs(a[piv][i]))
				piv = k;
		if (fabs(a[piv][i]) <= 1e-10 * (scale > 0 ? scale : 1))
			return -1;
		if (piv != i)
			for (j = 0; j < 2 * p; j++) {
				double t = a[i][j];

				a[i][j] = a[piv][j];
				a[piv][j] = t;
			}
		d = a[i][i];
		for (j = 0; j < 2 * p; j++)
			a[i][j] /= d;
		for (k = 0; k < p; k++) {
			double f = a[k][i];

			if (k == i || f == 0)
				continue;
			for (j = 0; j < 2 * p; j++)
				a[k][j] -= f * a[i][j];
		}
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			m[i][j] = a[i][p + j];
	return 0;
}

static int fit_solve(struct fit *f, const struct obs *o, const double *w)
{
	double m[FIT_MAXP][FIT_MAXP] = { { 0 } }, r[FIT_MAXP] = { 0 };
	double x[FIT_MAXP];
	size_t i, j, k;

	for (i = 0; i < f->n; i++) {
		fit_row(f, &o[i], x);
		for (j = 0; j < f->p; j++) {
			r[j] += w[i] * x[j] * o[i].y;
			for (k = 0; k < f->p; k++)
				m[j][k] += w[i] * x[j] * x[k];
		}
	}
	if (f->slope && f->ridge > 0)
		m[f->p - 1][f->p - 1] += f->ridge;
	if (invert(m, f->p))
		return -1;
	for (j = 0; j < f->p; j++) {
		f->beta[j] = 0;
		for (k = 0; k < f->p; k++)
			f->beta[j] += m[j][k] * r[k];
	}
	memcpy(f->cov, m, sizeof(m));
	return 0;
}

static double fit_predict(const struct fit *f, const struct obs *o)
{
	double x[FIT_MAXP], y = 0;
	size_t j;

	fit_row(f, o, x);
	for (j = 0; j < f->p; j++)
		y += x[j] * f->beta[j];
	return y;
}

static int fit_robust(struct fit *f, const struct obs *o)
{
	double *w = xmalloc(f->n * sizeof(*w)),
	       *ar = xmalloc(f->n * sizeof(*ar));
	double prev[FIT_MAXP];
	size_t i, it;
	int ret = 0;

	for (i = 0; i < f->n; i++)
		w[i] = 1;
	for (it = 0; it < (f->plain ? 1 : 50); it++) {
		double s, change = 0, size = 0;

		memcpy(prev, f->beta, sizeof(prev));
		if (fit_solve(f, o, w)) {
			ret = -1;
			break;
		}
		for (i = 0; i < f->p && it; i++) {
			change = RB_MAX(change, fabs(f->beta[i] - prev[i]));
			size = RB_MAX(size, fabs(f->beta[i]));
		}
		if (it && change <= 1e-12 * (size > 0 ? size : 1))
			break;
		for (i = 0; i < f->n; i++)
			ar[i] = fabs(o[i].y - fit_predict(f, &o[i]));
		qsort(ar, f->n, sizeof(*ar), cmp_double);
		s = 1.4826 * sorted_quantile(ar, f->n, 0.5);
		for (i = 0; i < f->n; i++) {
			double r = fabs(o[i].y - fit_predict(f, &o[i]));

			w[i] = r <= HUBER_K * s ? 1 : HUBER_K * s / r;
			if (w[i] < 1e-3)
				w[i] = 1e-3;
		}
	}
	f->rss = 0;
	for (i = 0; i < f->n && !ret; i++) {
		double r = o[i].y - fit_predict(f, &o[i]);

		f->rss += r * r;
	}
	f->df = (double)f->n - (double)f->p;
	free(w);
	free(ar);
	return ret;
}

/* L' cov L */
static double quad(const struct fit *f, const double *L)
{
	double q = 0;
	size_t i, j;

	for (i = 0; i < f->p; i++)
		for (j = 0; j < f->p; j++)
			q += L[i] * f->cov[i][j] * L[j];
	return q;
}

static int host_index(const struct fit *f, int host)
{
	int k;

	for (k = 0; k < f->nhost; k++)
		if (f->hosts[k] == host)
			return k;
	return -1;
}

static size_t collect_anchors(struct obs **out, const struct stats_set *good,
			      const struct stats_set *bad)
{
	size_t n = good->nr + bad->nr, i, k = 0;
	struct obs *o = xmalloc((n ? n : 1) * sizeof(*o));

	for (i = 0; i < good->nr; i++, k++)
		o[k] = (struct obs){ good->v[i], good->when ? good->when[i] : 0,
				     0, good->host ? good->host[i] : 0 };
	for (i = 0; i < bad->nr; i++, k++)
		o[k] = (struct obs){ bad->v[i], bad->when ? bad->when[i] : 0, 1,
				     bad->host ? bad->host[i] : 0 };
	*out = o;
	return n;
}

/*
 * Fit the anchors. The reference host is the one with the most anchor
 * runs. The trend term: never (DRIFT_OFF or no times), always (DRIFT_ON,
 * when it is estimable), or AUTO: the posterior under a normal prior
 * N(0, tau^2) on the slope, tau^2 = max(drift_sd^2 s^2, b^2 - 4 se^2)
 * (a ridge of s^2 / tau^2; with no drift_sd, a shrinkage by
 * (t^2 - 4) / (t^2 - 3) for |t| > 2, and no slope below).
 *
 * Why a prior: James-Stein shrinkage alone (k = 1 - 1/t^2, the rule
 * before) left a real drift that the few anchors could not show (|t| ~ 1)
 * out of the model and out of its variance, and the simulated 2-sd
 * bisections with drift went wrong 1-2% of the time; the unshrunk slope
 * (DRIFT_ON) costs 30-40% more runs everywhere, because its variance far
 * from the anchors' times asks for anchor runs even when nothing drifts.
 * The prior states how much drift the policy expects: stale anchors are
 * then worth what that drift allows, and a clear slope still goes through.
 */
static int fit_anchors(struct fit *f, const struct stats_policy *pol,
		       const struct obs *o, size_t n, bool plain)
{
	int counts[FIT_MAXHOST] = { 0 };
	double tmin = 0, tmax = 0, tsum = 0;
	size_t i;
	int k, best = 0;

	memset(f, 0, sizeof(*f));
	f->plain = plain;
	f->n = n;
	for (i = 0; i < n; i++) {
		k = host_index(f, o[i].host);
		if (k < 0) {
			if (f->nhost == FIT_MAXHOST)
				return rb_error("more than %d test hosts in "
						"one bisection",
						FIT_MAXHOST);
			k = f->nhost++;
			f->hosts[k] = o[i].host;
		}
		counts[k]++;
		tsum += o[i].t;
		if (!i || o[i].t < tmin)
			tmin = o[i].t;
		if (!i || o[i].t > tmax)
			tmax = o[i].t;
	}
	for (k = 1; k < f->nhost; k++)
		if (counts[k] > counts[best])
			best = k;
	if (best) {
		int t = f->hosts[0];

		f->hosts[0] = f->hosts[best];
		f->hosts[best] = t;
	}
	f->tbar = n ? tsum / (double)n : 0;
	f->p = 2 + (size_t)(f->nhost - 1);
	f->slope = pol->drift != STATS_DRIFT_OFF && tmax > tmin;
	f->slope_k = 1;
	if (f->slope) {
		f->p++;
		if (f->n <= f->p || fit_robust(f, o)) {
			f->slope = false;
		} else if (pol->drift == STATS_DRIFT_AUTO) {
			double s2 = f->rss / f->df, rho = policy_drift_sd(pol);
			double b = f->beta[f->p - 1];
			double se2 = s2 * f->cov[f->p - 1][f->p - 1];
			double tau2 = RB_MAX(rho * rho * s2, b * b - 4 * se2);
			double vflat = f->cov[f->p - 1][f->p - 1];

			/* the posterior under N(0, tau2): a ridge of s2/tau2 */
			if (!(tau2 > 0) || !(se2 > 0)) {
				f->slope = false;
			} else if (f->ridge = s2 / tau2, fit_robust(f, o)) {
				f->slope = false;
			} else {
				/* the slope uses vpost/vflat of a degree of
				 * freedom (the trace of the ridge's hat) */
				f->df += 1 - f->cov[f->p - 1][f->p - 1] / vflat;
			}
		}
		if (!f->slope)
			f->p--;
	}
	if (f->slope)
		return 0;
	if (f->n <= f->p)
		return rb_error("the anchors need more runs: %zu runs for %zu "
				"parameters",
				f->n, f->p);
	if (fit_robust(f, o))
		return rb_error("the anchors' runs cannot separate the hosts' "
				"offsets");
	return 0;
}

/*
 * The test uses an estimate of w: with w_hat = w (1 + e), e ~ N(0, r^2),
 * its error is about alpha^(w / w_used) (the drift of the evidence scales
 * with w, its boundary-crossing exponent with w / w_used). Averaged over
 * e that is alpha exp(-z r L + r^2 L^2 / 2) for w_used = w_hat - z se,
 * L = -log alpha ~ A: z = r L / 2 keeps it at alpha. So
 *
 *   w_used = w_hat - A se^2 / (2 w_hat)     (at least w_hat / 2)
 */
static double shrink_w(double w, double var_w, double A)
{
	if (!(w > 0) || !(var_w > 0))
		return w;
	return RB_MAX(w - A * var_w / (2 * w), w / 2);
}

struct step_ctx {
	double T, o, dg, db, w, w_eff, vw, sigma2, v, df, A, scale, c;
	double L_T[FIT_MAXP];
};

static int step_threshold(const struct stats_policy *p, const struct fit *f,
			  struct step_ctx *c, struct sbuf *why)
{
	double mg = f->beta[0], mb = f->beta[1], Lw[FIT_MAXP] = { 0 };
	double bad_dir;
	size_t j;

	if (mb == mg)
		return rb_error("the anchors have the same mean (%g)", mg);
	c->o = mb > mg ? 1 : -1;
	memset(c->L_T, 0, sizeof(c->L_T));
	switch (p->threshold_kind) {
	case STATS_THRESHOLD_VALUE:
		c->T = p->threshold;
		break;
	case STATS_THRESHOLD_PCT:
		bad_dir = p->direction ? -p->direction : c->o;
		c->T = mg * (1 + bad_dir * fabs(p->threshold) / 100);
		c->L_T[0] = 1 + bad_dir * fabs(p->threshold) / 100;
		break;
	case STATS_THRESHOLD_MIDPOINT:
	default:
		c->T = (mg + mb) / 2;
		c->L_T[0] = c->L_T[1] = 0.5;
		break;
	}
	c->dg = c->o * (c->T - mg);
	c->db = c->o * (mb - c->T);
	if (c->dg <= 0 || c->db <= 0)
		return rb_error("threshold %g is not between the anchors' "
				"means %g (good) and %g (bad)",
				c->T, mg, mb);
	for (j = 0; j < f->p; j++)
		Lw[j] = c->dg <= c->db ? c->o * (c->L_T[j] - (j == 0)) :
					 c->o * ((j == 1) - c->L_T[j]);
	c->w = RB_MIN(c->dg, c->db);
	c->w_eff = c->w;
	(void)why;
	c->vw = c->sigma2 * quad(f, Lw);
	if (c->sigma2 > 0)
		c->w_eff = shrink_w(c->w, c->vw, c->A);
	return 0;
}

/* anchors may be re-measured during the steps up to this many runs */
#define STEP_ANCHOR_CAP(p) (4 * (size_t)(p)->anchor_max_runs)

/*
 * Where should the next runs go? The candidate is held against a
 * threshold estimated from the anchors, so its evidence is limited by
 * var(mean - T) = sigma^2 / n + v. One more candidate run removes about
 * sigma^2 / (n (n + 1)) of it; one more run of each anchor (two runs)
 * removes about v / (na + 1). Measure the anchors when that is the better
 * buy per run.
 */
static bool anchors_pay(double v, double sigma2, size_t n, size_t na)
{
	double cand = sigma2 / ((double)n * ((double)n + 1));
	double anch = v / ((double)na + 1) / 2;

	return anch > cand;
}

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * The evidence of n adjusted runs for a stricter bound A0: w' shrunk for
 * A0, each run clipped at c (Huber) and never above cap.
 */
static double evidence(const struct step_ctx *c, const struct stats_policy *p,
		       const double *adj, size_t n, double A0, double cap,
		       bool zero)
{
	double w_eff = c->w_eff, scale, clip, S = 0,
	       var = c->sigma2 + (double)n * c->v;
	size_t i;

	if (zero) {
		for (i = 0; i < n; i++) {
			double d = c->o * (adj[i] - c->T);

			S += d > 0 ? cap : d < 0 ? -cap : 0;
		}
		return S;
	}
	if (c->sigma2 > 0)
		w_eff = shrink_w(c->w, c->vw, A0);
	scale = 2 * w_eff / var;
	clip = RB_MIN(
		scale * (RB_MAX(c->dg, c->db) + p->clip_sd * sqrt(c->sigma2)),
		cap);
	for (i = 0; i < n; i++)
		S += clamp(scale * c->o * (adj[i] - c->T), -clip, clip);
	return S;
}

static void why_runs(struct sbuf *why, const char *what, double mean, double sd,
		     size_t n)
{
	if (!why)
		return;
	sbuf_addf(why, "%s %.6g", what, mean);
	if (mean != 0 && n > 1 && sd > 0)
		sbuf_addf(why, " +-%.2g%%", 100 * sd / fabs(mean));
	sbuf_addf(why, " (%zu run%s)", n, n == 1 ? "" : "s");
}

/*
 * The step verdict (expect NEED_MORE: both bounds at the step alpha) and
 * the confirmation's re-decision (expect GOOD or BAD: that side's bound at
 * confirm_alpha from one run on, the other at the step alpha).
 */
static int decide(const struct stats_policy *p, const struct stats_set *good,
		  const struct stats_set *bad, const struct stats_set *cand,
		  enum stats_verdict expect, struct stats_step *out,
		  struct sbuf *why)
{
	struct step_ctx c;
	struct fit *f;
	struct obs *o = NULL;
	size_t n = cand->nr, i, na;
	double Lc[FIT_MAXP] = { 0 }, *adj = NULL, mean = 0, ss = 0, S = 0;
	double alpha = stats_policy_step_alpha(p), tiny, cand_t = -INFINITY;
	double scale_abs, A_bad, A_good;
	unsigned min_bad = p->min_runs, min_good = p->min_runs;
	int ret = -1, need_host = -1, cand_host = 0;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	out->anchor_host = -1;
	out->lean = STATS_GOOD;
	if (good->nr < 2 || bad->nr < 2)
		return rb_error("the anchors need 2 runs each, got %zu (good) "
				"and %zu (bad)",
				good->nr, bad->nr);
	f = xmalloc(sizeof(*f));
	na = collect_anchors(&o, good, bad);
	if (fit_anchors(f, p, o, na, false))
		goto done;

	/* the candidate's runs, adjusted to the reference host and tbar */
	adj = xmalloc((n ? n : 1) * sizeof(*adj));
	for (i = 0; i < n; i++) {
		int h = cand->host ? cand->host[i] : 0, k = host_index(f, h);
		double t = cand->when ? cand->when[i] : 0;

		if (k < 0) {
			need_host = h;
			continue;
		}
		if (t >= cand_t) {
			cand_t = t;
			cand_host = h;
		}
		adj[i] = cand->v[i];
		if (k > 0) {
			adj[i] -= f->beta[1 + k];
			Lc[1 + k] += 1.0 / (double)n;
		}
		if (f->slope) {
			adj[i] -=
				f->slope_k * f->beta[f->p - 1] * (t - f->tbar);
			Lc[f->p - 1] += f->slope_k * (t - f->tbar) / (double)n;
		}
		mean += adj[i];
	}
	out->good_mean = f->beta[0];
	out->bad_mean = f->beta[1];
	out->runs = n;
	out->trend = f->slope ? f->slope_k * f->beta[f->p - 1] : 0;
	out->hosts = f->nhost;
	if (need_host >= 0) {
		/* a host's offset needs anchor runs on that host */
		out->verdict = STATS_NEED_MORE;
		out->more_anchor_runs = 1;
		out->anchor_host = need_host;
		if (why)
			sbuf_addf(why,
				  "need anchor runs on host %d before its "
				  "candidate runs count",
				  need_host);
		ret = 0;
		goto done;
	}
	if (n)
		mean /= (double)n;
	for (i = 0; i < n; i++)
		ss += (adj[i] - mean) * (adj[i] - mean);
	c.df = f->df + (n > 1 ? (double)n - 1 : 0) + p->noise.df;
	c.sigma2 = c.df > 0 ? (f->rss + ss + p->noise.ss) / c.df : 0;
	c.A = sprt_bound(alpha, c.df);
	if (step_threshold(p, f, &c, why))
		goto done;
	for (i = 0; i < f->p; i++)
		Lc[i] += c.L_T[i];
	c.v = c.sigma2 * quad(f, Lc);
	out->threshold = c.T;
	out->noise_sd = sqrt(c.sigma2);
	out->cand_mean = mean;

	scale_abs = RB_MAX(fabs(out->good_mean), fabs(out->bad_mean));
	tiny = 1e-12 * (scale_abs > 0 ? scale_abs : 1);
	/* the confirmation: the expected side needs confirm_alpha only */
	A_bad = A_good = c.A;
	if (expect == STATS_GOOD || expect == STATS_BAD) {
		double Ac = RB_MIN(sprt_bound(p->confirm_alpha, c.df), c.A);

		if (expect == STATS_GOOD) {
			A_good = Ac;
			min_good = 1;
		} else {
			A_bad = Ac;
			min_bad = 1;
		}
	}
	if (c.sigma2 + (double)n * c.v <= tiny * tiny) {
		/* zero variance: each run counts fully, min_runs decide */
		c.scale = INFINITY;
		c.c = c.A;
	} else {
		double theta;

		c.scale = 2 * c.w_eff / (c.sigma2 + (double)n * c.v);
		/* the evidence per run has sd theta */
		theta = c.scale * sqrt(c.sigma2 + (double)n * c.v);
		c.A = RB_MAX(c.A - SIEGMUND_RHO * theta, c.A / 2);
		A_bad = RB_MAX(A_bad - SIEGMUND_RHO * theta, A_bad / 2);
		A_good = RB_MAX(A_good - SIEGMUND_RHO * theta, A_good / 2);
		c.c = RB_MIN(c.scale * (RB_MAX(c.dg, c.db) +
					p->clip_sd * sqrt(c.sigma2)),
			     c.A);
	}
	out->bound = c.A;
	for (i = 0; i < n; i++) {
		double d = c.o * (adj[i] - c.T), l;

		if (isinf(c.scale))
			l = d > 0 ? c.c : d < 0 ? -c.c : 0;
		else
			l = clamp(c.scale * d, -c.c, c.c);
		S += l;
	}
	out->llr = S;
	out->lean = S > 0 ? STATS_BAD : STATS_GOOD;

	if (n >= min_bad && S >= A_bad) {
		out->verdict = STATS_BAD;
	} else if (n >= min_good && S <= -A_good) {
		out->verdict = STATS_GOOD;
	} else if (n >= p->max_runs) {
		out->verdict = STATS_WEAK;
	} else {
		/* Wald's estimate of the runs still needed */
		double m, reach;
		unsigned more;

		out->verdict = STATS_NEED_MORE;
		if (isinf(c.scale)) {
			more = 1;
		} else {
			double sc = 2 * c.w_eff /
				    (c.sigma2 + (double)p->max_runs * c.v);

			m = c.scale * c.w;
			reach = (double)p->max_runs * sc * c.w;
			/*
			 * Once the candidate has its minimum runs, the
			 * anchors get one more run each when that buys
			 * more than a candidate run, or when even the
			 * cap of candidate runs could not decide against
			 * anchors this uncertain.
			 */
			if (c.v > 0 && n >= p->min_runs &&
			    RB_MIN(good->nr, bad->nr) < STEP_ANCHOR_CAP(p) &&
			    (anchors_pay(c.v, c.sigma2, n,
					 RB_MIN(good->nr, bad->nr)) ||
			     reach < c.A)) {
				out->more_anchor_runs = 1;
				out->anchor_host = cand_host;
			}
			more = (unsigned)clamp(
				ceil(((S > 0 ? A_bad : A_good) - fabs(S)) / m),
				1, (double)(p->max_runs - n));
		}
		if (n + more < RB_MIN(min_bad, min_good))
			more = RB_MIN(min_bad, min_good) - (unsigned)n;
		out->more_runs = more;
	}
	/*
	 * Evidence enough for alpha x confirm_alpha too (Ville: a likelihood
	 * ratio ever reaches 1/x under the other hypothesis with chance at
	 * most x): the verdict is as sure as a confirmed one. Each run counts
	 * up to half that bound (it takes two runs far beyond the
	 * threshold), the bound is not lowered for the overshoot.
	 */
	if (expect == STATS_NEED_MORE &&
	    (out->verdict == STATS_GOOD || out->verdict == STATS_BAD)) {
		double A2 = sprt_bound(alpha * p->confirm_alpha, c.df);
		double S2 = evidence(&c, p, adj, n, A2, A2 / 2, isinf(c.scale));

		out->sure = out->verdict == STATS_BAD ? S2 >= A2 : S2 <= -A2;
	}
	/*
	 * Stale anchors: when the evidence is not decisive yet, fresh anchor
	 * runs come before more candidate runs (a decisive verdict does not
	 * wait: drift small against the anchors' gap cannot flip it).
	 */
	if (out->verdict == STATS_NEED_MORE && p->anchor_refresh > 0 && n &&
	    cand->when && fabs(S) < c.A) {
		double tg = -INFINITY, tb = -INFINITY, age = p->anchor_refresh;

		for (i = 0; i < good->nr; i++)
			if ((good->host ? good->host[i] : 0) == cand_host)
				tg = RB_MAX(tg, good->when ? good->when[i] : 0);
		for (i = 0; i < bad->nr; i++)
			if ((bad->host ? bad->host[i] : 0) == cand_host)
				tb = RB_MAX(tb, bad->when ? bad->when[i] : 0);
		if (c.sigma2 > 0)
			age *= RB_MAX(1.0, c.w / sqrt(c.sigma2));
		if (cand_t - RB_MIN(tg, tb) > age) {
			out->more_anchor_runs = 1;
			out->anchor_host = cand_host;
		}
	}

	if (why) {
		sbuf_addf(why, "%s: ", stats_verdict_name(out->verdict));
		why_runs(why, "candidate", mean, sqrt(c.sigma2), n);
		sbuf_addf(why, " vs threshold %.6g (", c.T);
		why_runs(why, "good", out->good_mean, 0, good->nr);
		sbuf_addf(why, ", ");
		why_runs(why, "bad", out->bad_mean, 0, bad->nr);
		sbuf_addf(why, "), noise %.3g", sqrt(c.sigma2));
		if (out->trend)
			sbuf_addf(why, ", drift %.3g", out->trend);
		if (out->hosts > 1)
			sbuf_addf(why, ", %d hosts", out->hosts);
		sbuf_addf(why, ", evidence %+.2f of +-%.2f", S, c.A);
		if (out->verdict == STATS_WEAK)
			sbuf_addf(why, ", leaning %s after the cap of %u runs",
				  stats_verdict_name(out->lean), p->max_runs);
		else if (out->more_anchor_runs)
			sbuf_addf(why, ", needs %u more run%s of each anchor",
				  out->more_anchor_runs,
				  out->more_anchor_runs == 1 ? "" : "s");
		else if (out->verdict == STATS_NEED_MORE)
			sbuf_addf(why, ", needs ~%u more run%s", out->more_runs,
				  out->more_runs == 1 ? "" : "s");
	}
	ret = 0;
done:
	free(adj);
	free(o);
	free(f);
	return ret;
}

int stats_step_verdict(const struct stats_policy *p,
		       const struct stats_set *good,
		       const struct stats_set *bad,
		       const struct stats_set *cand, struct stats_step *out,
		       struct sbuf *why)
{
	return decide(p, good, bad, cand, STATS_NEED_MORE, out, why);
}

int stats_confirm_verdict(const struct stats_policy *p,
			  const struct stats_set *good,
			  const struct stats_set *bad,
			  const struct stats_set *cand,
			  enum stats_verdict expect, struct stats_step *out,
			  struct sbuf *why)
{
	if (expect != STATS_GOOD && expect != STATS_BAD)
		return rb_error("a confirmation expects good or bad, not %s",
				stats_verdict_name(expect));
	return decide(p, good, bad, cand, expect, out, why);
}

double stats_runs_needed(const struct stats_policy *p, double effect,
			 size_t n_anchor, double *worst)
{
	double alpha = stats_policy_step_alpha(p), w = fabs(effect) / 2;
	double na = (double)(n_anchor < 2 ? 2 : n_anchor);
	double vT = 1 / (2 * na), w_eff, N = 0, A = 0;
	double lo = p->min_runs ? p->min_runs : 1, hi = p->max_runs;
	int it;

	if (worst)
		*worst = hi;
	if (!(effect != 0))
		return hi;
	if (isinf(effect)) {
		if (worst)
			*worst = lo;
		return lo;
	}
	N = lo;
	for (it = 0; it < 50; it++) {
		double den, s2;

		A = sprt_bound(alpha, 2 * na - 2 + N - 1);
		w_eff = shrink_w(w, vT, A);
		s2 = 1 + N * vT;
		A = RB_MAX(A - SIEGMUND_RHO * 2 * w_eff / sqrt(s2), A / 2);
		den = 2 * w_eff * w - A * vT;
		if (den <= 0)
			return hi;
		N = RB_MAX(A / den, lo);
	}
	if (worst) {
		double s2 = 1 + N * vT, sc = 2 * w_eff / s2;
		double m = sc * w, var = sc * sc * s2;

		*worst =
			clamp(N + 1.2816 * sqrt(A * var / (m * m * m)), lo, hi);
	}
	return clamp(N, lo, hi);
}

/*
 * Futility: even an optimistic change, the measured one plus 2.5 standard
 * errors (in the bad direction, in noise sd), would need more than
 * max_runs runs per step with anchors measured to their cap: a bisection
 * could not decide its steps, so the endpoint check stops early (this
 * only ever lowers the false-report rate; a real change of 2 sd passes it
 * with probability > 0.999 in the simulations). Not before the noise has
 * FUTILITY_DF degrees of freedom: 3 runs of a bimodal metric can all fall
 * in one mode, and their tiny spread made a real 2-sd change of the
 * simulations look hopeless 0.4% of the time.
 */
#define FUTILITY_DF 10

static bool too_small(const struct stats_policy *p, double bad_diff, double sd,
		      size_t ng, size_t nb)
{
	double se = sqrt(1 / (double)ng + 1 / (double)nb), upper;

	if (!(sd > 0))
		return false;
	upper = bad_diff / sd + 2.5 * se;
	if (upper <= 0)
		return true;
	/* with the anchors measured up to their cap */
	return stats_runs_needed(p, upper,
				 RB_MAX(RB_MIN(ng, nb), p->anchor_max_runs),
				 NULL) >= (double)p->max_runs;
}

/*
 * Anchors measured on several hosts: their difference within hosts, from
 * the anchors' least-squares fit with host offsets (no trend: the anchors
 * alternate; no Huber weights: the test is Welch's otherwise),
 * so that the hosts' offsets do not count as noise. The t test of bad -
 * good on the fit's residual degrees of freedom, in both directions;
 * *diff and *sd the fitted difference and noise. False (nothing set) with
 * one host, or when the fit fails.
 */
static bool anchors_by_host(const struct stats_policy *p,
			    const struct stats_set *good,
			    const struct stats_set *bad, enum stats_alt alt,
			    struct stats_test *t, struct stats_test *tother,
			    double *diff, double *sd)
{
	struct stats_policy flat = *p;
	struct fit *f;
	struct obs *o;
	size_t n = collect_anchors(&o, good, bad), i;
	bool several = false, ok = false;
	double s2, var;

	for (i = 1; i < n && !several; i++)
		several = o[i].host != o[0].host;
	if (!several)
		goto out;
	f = xmalloc(sizeof(*f));
	flat.drift = STATS_DRIFT_OFF;
	if (fit_anchors(f, &flat, o, n, true) || !(f->df > 0)) {
		rb_error_clear();
		free(f);
		goto out;
	}
	s2 = f->rss / f->df;
	var = s2 * (f->cov[0][0] + f->cov[1][1] - 2 * f->cov[0][1]);
	*diff = f->beta[1] - f->beta[0];
	*sd = sqrt(s2);
	memset(t, 0, sizeof(*t));
	t->df = f->df;
	t->stat = var > 0   ? *diff / sqrt(var) :
		  *diff > 0 ? INFINITY :
		  *diff < 0 ? -INFINITY :
			      0;
	*tother = *t;
	t->p = sided_p(t->stat, t->df, alt);
	tother->p = sided_p(t->stat, t->df,
			    alt == STATS_LESS ? STATS_GREATER : STATS_LESS);
	free(f);
	ok = true;
out:
	free(o);
	return ok;
}

int stats_power_check(const struct stats_policy *p,
		      const struct stats_set *good, const struct stats_set *bad,
		      struct stats_power *out, struct sbuf *why)
{
	unsigned looks[RB_ARRAY_SIZE(anchor_looks) + 2];
	size_t nlooks = policy_looks(p, looks), n;
	struct stats_summary sg, sb;
	struct stats_test t, tother;
	enum stats_alt alt, other;
	double diff, pooled, bad_dir, T = 0;
	bool beyond = true, short_of = false, last, zero;
	unsigned look;
	const char *reason = NULL;

	memset(out, 0, sizeof(*out));
	if (good->nr < 2 || bad->nr < 2)
		return rb_error("the endpoint check needs 2 runs of each "
				"anchor, got %zu (good) and %zu (bad)",
				good->nr, bad->nr);
	n = RB_MIN(good->nr, bad->nr);
	stats_summarize(&sg, good->v, good->nr);
	stats_summarize(&sb, bad->v, bad->nr);
	diff = sb.mean - sg.mean;
	out->good_mean = sg.mean;
	out->bad_mean = sb.mean;
	out->change_pct = stats_pct_change(sg.mean, sb.mean);
	out->direction = p->direction ? p->direction : diff > 0 ? -1 : 1;
	bad_dir = -out->direction;
	pooled = sqrt((sg.stddev * sg.stddev * (double)(good->nr - 1) +
		       sb.stddev * sb.stddev * (double)(bad->nr - 1)) /
		      (double)(good->nr + bad->nr - 2));
	out->noise_sd = pooled;
	out->effect = pooled > 0 ? fabs(diff) / pooled :
		      diff != 0	 ? INFINITY :
				   0;
	out->alpha = p->endpoint_alpha / (double)nlooks;
	/*
	 * A look is when the anchors have 2 x look runs together: the
	 * session asks after every run, and each look must be tested once
	 * (the alpha is split over the looks), on one host or many.
	 */
	look = stats_anchor_look(p, (good->nr + bad->nr + 1) / 2);
	last = !look || n >= looks[nlooks - 1];
	if (!last && (n < p->anchor_min_runs ||
		      (look && good->nr + bad->nr != 2 * (size_t)look))) {
		out->verdict = STATS_ENDPOINT_NEED_MORE;
		out->more_anchor_runs =
			n < p->anchor_min_runs ?
				p->anchor_min_runs - (unsigned)n :
				(unsigned)((2 * look - good->nr - bad->nr + 1) /
					   2);
		if (why)
			sbuf_addf(why, "measure each anchor %u more time%s",
				  out->more_anchor_runs,
				  out->more_anchor_runs == 1 ? "" : "s");
		return 0;
	}
	if (p->threshold_kind == STATS_THRESHOLD_VALUE)
		T = p->threshold;
	else if (p->threshold_kind == STATS_THRESHOLD_PCT)
		T = sg.mean * (1 + bad_dir * fabs(p->threshold) / 100);
	if (p->threshold_kind != STATS_THRESHOLD_MIDPOINT) {
		double se = sqrt(sb.stddev * sb.stddev / (double)bad->nr +
				 sg.stddev * sg.stddev / (double)good->nr);

		beyond = bad_dir * (sb.mean - T) > 0;
		if (se > 0)
			short_of = bad_dir * (sb.mean - T) / se <
				   -stats_t_quantile(1 - out->alpha,
						     (double)(n * 2 - 2));
		else
			short_of = !beyond;
	}
	alt = p->direction > 0 ? STATS_LESS :
	      p->direction < 0 ? STATS_GREATER :
				 STATS_TWO_SIDED;
	other = alt == STATS_LESS ? STATS_GREATER : STATS_LESS;
	zero = sg.stddev == 0 && sb.stddev == 0;
	if (anchors_by_host(p, good, bad, alt, &t, &tother, &diff, &pooled)) {
		out->noise_sd = pooled;
		out->effect = pooled > 0 ? fabs(diff) / pooled :
			      diff != 0	 ? INFINITY :
					   0;
	} else {
		stats_welch(&t, good->v, good->nr, bad->v, bad->nr, alt);
		stats_welch(&tother, good->v, good->nr, bad->v, bad->nr, other);
	}
	out->p = t.p;
	if (zero && n < p->anchor_min_runs) {
		out->verdict = STATS_ENDPOINT_NEED_MORE;
		out->more_anchor_runs = p->anchor_min_runs - (unsigned)n;
		return 0;
	}
	if (t.p <= out->alpha && beyond) {
		out->verdict = STATS_REPRODUCED;
	} else if (p->direction && tother.p <= out->alpha && diff != 0) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = "the bad commit is better";
	} else if (short_of) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = "the change does not reach the threshold";
	} else if (!zero && good->nr + bad->nr >= FUTILITY_DF + 2 &&
		   too_small(p, bad_dir * diff, pooled, good->nr, bad->nr)) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = "too small to bisect";
	} else if (zero || last) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = zero ? "no difference in constant results" :
				"no significant difference";
	} else {
		look = stats_anchor_look(p, n + 1);
		out->verdict = STATS_ENDPOINT_NEED_MORE;
		out->more_anchor_runs = look ? look - (unsigned)n : 1;
	}
	out->runs_per_step =
		stats_runs_needed(p, out->effect, n, &out->runs_per_step_worst);
	out->runs_total = out->runs_per_step * (double)p->expected_steps;
	if (!why)
		return 0;
	switch (out->verdict) {
	case STATS_REPRODUCED:
		sbuf_addstr(why, "reproduced: ");
		break;
	case STATS_NOT_REPRODUCED:
		sbuf_addstr(why, "not reproduced: ");
		break;
	default:
		sbuf_addstr(why, "undecided: ");
		break;
	}
	why_runs(why, "good", sg.mean, sg.stddev_pop, good->nr);
	sbuf_addstr(why, ", ");
	why_runs(why, "bad", sb.mean, sb.stddev_pop, bad->nr);
	sbuf_addf(why, ": %+.1f%%, p=%.2g needs <=%.2g", out->change_pct,
		  out->p, out->alpha);
	if (p->threshold_kind != STATS_THRESHOLD_MIDPOINT)
		sbuf_addf(why, ", threshold %.6g", T);
	if (reason)
		sbuf_addf(why, " (%s)", reason);
	if (out->verdict == STATS_REPRODUCED)
		sbuf_addf(why,
			  "; change of %.3g noise sd: ~%.1f runs per step "
			  "(90%%: %.0f), ~%.0f runs for %u steps",
			  out->effect, out->runs_per_step,
			  out->runs_per_step_worst, out->runs_total,
			  p->expected_steps);
	else if (out->verdict == STATS_ENDPOINT_NEED_MORE)
		sbuf_addf(why, "; measure each anchor %u more time%s",
			  out->more_anchor_runs,
			  out->more_anchor_runs == 1 ? "" : "s");
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
		sbuf_addf(why,
			  " (%.0f%% ci), p=%.2g, %.6g -> %.6g, %zu vs %zu runs",
			  100 * o->level, out->p, out->base_mean, out->new_mean,
			  na, nb);
	}
	return 0;
}
