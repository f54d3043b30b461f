// SPDX-License-Identifier: GPL-2.0-only
/* Distributions: normal, Student's t, incomplete beta, Kolmogorov. Pure. */
#include <float.h>
#include <math.h>

#include "robot.h"
#include "sbuf.h"
#include "stats.h"
#include "stats-internal.h"

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

/* One step of Lentz's method for a continued fraction: the factor. */
static double lentz_step(double aa, double *c, double *d, double tiny)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
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
		h *= lentz_step(aa, &c, &d, tiny);
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
		del = lentz_step(aa, &c, &d, tiny);
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
double stats_t_upper(double t, double df)
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
	return t >= 0 ? stats_t_upper(t, df) : 1 - stats_t_upper(-t, df);
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	return t >= 0 ? 1 - stats_t_upper(t, df) : stats_t_upper(-t, df);
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
		double f = stats_t_upper(t, df) - tail, next;

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
