// SPDX-License-Identifier: GPL-2.0-only
/*
 * The robot's verdict policy: the noise pool, the step verdict (a
 * sequential test against the anchors' fit), the confirmation's verdict,
 * the endpoint (power) check. Pure; the reasoning is in stats.h and
 * doc/statistics.md.
 */
#include <float.h>
#include <math.h>

#include "robot.h"
#include "sbuf.h"
#include "stats.h"
#include "stats-internal.h"

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
	p->step_budget = 0.2;
	p->expected_steps = 10;
	p->endpoint_alpha = 0.005;
	p->endpoint_beta = 0.01;
	p->endpoint_effect = 2;
	p->min_runs = 2;
	p->max_runs = 30;
	p->anchor_min_runs = 3;
	p->anchor_max_runs = 30;
	p->clip_sd = 1.5;
	p->confirm_alpha = 0.02;
	p->change_alpha = 0.005;
	p->drift = STATS_DRIFT_AUTO;
	p->anchor_refresh = 0;
	p->pool_decided = true;
}

void stats_noise_add(struct stats_noise *nz, const struct stats_set *runs)
{
	size_t i, j, k;

	/* one group per host, with its runs in order */
	for (i = 0; i < runs->nr; i++) {
		int h = runs->host ? runs->host[i] : 0;
		bool first = true;

		for (j = 0; j < i && first; j++)
			if ((runs->host ? runs->host[j] : 0) == h)
				first = false;
		if (!first)
			continue;
		for (j = i, k = 0; j < runs->nr; j++)
			k += (runs->host ? runs->host[j] : 0) == h;
		if (k < 2 || nz->nr + k > STATS_NOISE_MAX)
			continue;
		for (j = i; j < runs->nr; j++)
			if ((runs->host ? runs->host[j] : 0) == h) {
				nz->v[nz->nr] = runs->v[j];
				nz->grp[nz->nr++] = nz->groups;
			}
		nz->groups++;
	}
}

/*
 * The noise model: most runs are normal around their commit's level, a
 * share of them may be anything (contamination: a box that stalled, a
 * cache that was cold). A residual beyond CONTAM_K robust sd (1.4826 MAD)
 * is counted as contamination (contam_share) and left out of the noise
 * variance, which is then that of the normal core (a normal sample loses
 * 0.006% of its runs and 0.1% of its variance, corrected by
 * trunc_kappa); the steps' evidence is clipped for the contamination
 * instead. A run OUTLIER_R sd beyond the farther anchor carries no
 * evidence at all.
 */
#define CONTAM_K 4.0
#define OUTLIER_R 4.0
/* the residuals a robust scale must rest on before any is left out of
 * the noise; and before the anchors' fit rejects a run */
#define CONTAM_MIN_N 20
#define CONTAM_FIT_N 10

/* E[z^2 | |z| <= c] for a standard normal z */
static double trunc_kappa(double c)
{
	double inside = 1 - 2 * stats_norm_sf(c),
	       dens = exp(-c * c / 2) / sqrt(2 * M_PI);

	return 1 - 2 * c * dens / inside;
}

/* 1.4826 x the median of |r|: a normal sd from residuals */
static double mad_sd(const double *r, size_t n, double *scratch)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		scratch[i] = fabs(r[i]);
	qsort(scratch, n, sizeof(*scratch), stats_cmp_double);
	return 1.4826 * stats_sorted_quantile(scratch, n, 0.5);
}

/*
 * The runs x[0..m) of one group (sorted in place) around their median
 * (*med): |x - med| scaled by sqrt(m / (m - 1)) into out, the median run
 * itself left out (it lies on it); none for m < 2. Returns how many.
 */
static size_t median_residuals(double *x, size_t m, double *out, double *med)
{
	size_t i, n = 0;
	bool skipped = false;

	qsort(x, m, sizeof(*x), stats_cmp_double);
	*med = m ? stats_sorted_quantile(x, m, 0.5) : 0;
	for (i = 0; i < m; i++) {
		if (m < 2 || (m % 2 && !skipped && x[i] == *med)) {
			skipped = true;
			continue;
		}
		out[n++] =
			fabs(x[i] - *med) * sqrt((double)m / (double)(m - 1));
	}
	return n;
}

/* Huber's location of x with scale s (median start, iterated) */
static double huber_loc(const double *x, size_t n, double s, double *scratch)
{
	double mu;
	size_t i, it;

	memcpy(scratch, x, n * sizeof(*x));
	qsort(scratch, n, sizeof(*scratch), stats_cmp_double);
	mu = stats_sorted_quantile(scratch, n, 0.5);
	if (!(s > 0))
		return mu;
	for (it = 0; it < 20; it++) {
		double sum = 0, prev = mu;

		for (i = 0; i < n; i++)
			sum += RB_MAX(mu - HUBER_K * s,
				      RB_MIN(mu + HUBER_K * s, x[i]));
		mu = sum / (double)n;
		if (fabs(mu - prev) <= 1e-12 * (fabs(mu) + s))
			break;
	}
	return mu;
}

/*
 * Residuals of the groups of x (grp nondecreasing; NULL: one group)
 * around each group's median (s 0) or Huber location with scale s, into
 * r. Returns the degrees of freedom: the runs less one per group.
 */
static double group_residuals(const double *x, const unsigned *grp, size_t n,
			      double s, double *r, double *scratch)
{
	size_t i = 0, j;
	double df = 0;

	while (i < n) {
		double mu;

		for (j = i; j < n && (!grp || grp[j] == grp[i]); j++)
			;
		mu = huber_loc(x + i, j - i, s, scratch);
		df += (double)(j - i) - 1;
		for (; i < j; i++)
			r[i] = x[i] - mu;
	}
	return df;
}

double stats_policy_step_alpha(const struct stats_policy *p)
{
	unsigned steps = p->expected_steps ? p->expected_steps : 1;

	return (p->step_budget > 0 ? p->step_budget : p->budget) /
	       (double)steps;
}

double stats_policy_refute_alpha(const struct stats_policy *p)
{
	unsigned steps = p->expected_steps ? p->expected_steps : 1;

	return RB_MIN(p->budget / (double)steps, stats_policy_step_alpha(p));
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
	double s; /* the robust scale of the last iteration (0: none) */
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

/*
 * The scale the anchors' fit may not exceed: the MAD of the residuals
 * around the median of each anchor's runs on each host (a group's median
 * run, which lies on it, left out; groups of one run give none), each
 * scaled by sqrt(m / (m - 1)) for its group's m runs. A fit from least
 * squares lets a handful of far runs pull both the means and the scale
 * (three of eight runs 9 sd low take a Huber mean with a MAD scale 2.5 sd
 * off and the scale to 2.5 sd: no run is then far enough to be left out);
 * the medians are not pulled. 0 when there is no such residual.
 */
static double start_scale(const struct fit *f, const struct obs *o, double *ar)
{
	double *x = xmalloc(f->n * sizeof(*x));
	bool *done = xcalloc(f->n, sizeof(*done));
	size_t i, j, m, nr = 0;
	double med, sc;

	for (i = 0; i < f->n; i++) {
		if (done[i])
			continue;
		for (j = i, m = 0; j < f->n; j++)
			if (o[j].g == o[i].g && o[j].host == o[i].host) {
				x[m++] = o[j].y;
				done[j] = true;
			}
		nr += median_residuals(x, m, ar + nr, &med);
	}
	sc = mad_sd(ar, nr, x);
	free(x);
	free(done);
	return sc;
}

static int fit_robust(struct fit *f, const struct obs *o)
{
	double *w = xmalloc(f->n * sizeof(*w)),
	       *ar = xmalloc(f->n * sizeof(*ar));
	double prev[FIT_MAXP], s_cap;
	size_t i, it;
	int ret = 0;

	s_cap = start_scale(f, o, ar);
	for (i = 0; i < f->n; i++)
		w[i] = 1;
	/* Huber's weights to convergence (from least squares), then the
	 * same with runs beyond CONTAM_K scales left out (contamination:
	 * a share of runs far off pulls a Huber mean by up to HUBER_K s
	 * each, and a handful of anchor runs can hold several) */
	for (it = 0; it < (f->plain ? 1 : 100); it++) {
		double s, change = 0, size = 0;
		bool reject = it >= 50;

		memcpy(prev, f->beta, sizeof(prev));
		if (fit_solve(f, o, w)) {
			ret = -1;
			break;
		}
		for (i = 0; i < f->p && it; i++) {
			change = RB_MAX(change, fabs(f->beta[i] - prev[i]));
			size = RB_MAX(size, fabs(f->beta[i]));
		}
		if (it && change <= 1e-12 * (size > 0 ? size : 1)) {
			if (reject || f->plain)
				break;
			/* converged: the weights below leave the far runs
			 * out, and the fit goes on with them */
			it = 49;
			reject = true;
		}
		for (i = 0; i < f->n; i++)
			ar[i] = fabs(o[i].y - fit_predict(f, &o[i]));
		qsort(ar, f->n, sizeof(*ar), stats_cmp_double);
		s = 1.4826 * stats_sorted_quantile(ar, f->n, 0.5);
		if (s_cap > 0 && s > s_cap)
			s = s_cap;
		f->s = s;
		for (i = 0; i < f->n; i++) {
			double r = fabs(o[i].y - fit_predict(f, &o[i]));

			w[i] = r <= HUBER_K * s ? 1 : HUBER_K * s / r;
			if (reject && f->n >= CONTAM_FIT_N && r > CONTAM_K * s)
				w[i] = 0;
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

/* every residual of the pooled noise, and their robust scale */
struct resid {
	double *r;
	size_t n;
	double s0;
	/* the variance with every residual beyond CONTAM_K s0 left out,
	 * however few there are (0 when none is left) */
	double core_var;
};

/*
 * The variance of the normal core of residuals r[0..n) with df degrees of
 * freedom, however few: those beyond CONTAM_K scales left out, the scale
 * being s0 at first and then the core's own sd, to its fixed point (a
 * MAD scale grows with the share of far residuals: with a third of them
 * 10 sd off, 4 MAD scales reach them). 0 when nothing is left.
 */
static double core_var(const double *r, size_t n, double df, double s0)
{
	double s = s0, v = 0;
	size_t i, it;

	for (it = 0; it < 20; it++) {
		double sum = 0, far = 0, prev = s;

		for (i = 0; i < n; i++) {
			if (s > 0 && fabs(r[i]) > CONTAM_K * s)
				far++;
			else
				sum += r[i] * r[i];
		}
		if (!(df - far > 0))
			return 0;
		v = s > 0 ? sum / (trunc_kappa(CONTAM_K) * (df - far)) :
			    sum / (df - far);
		s = sqrt(v);
		if (!(s0 > 0) || fabs(s - prev) <= 1e-9 * s)
			break;
	}
	return v;
}

/*
 * The noise variance pooled over the anchors (their fit's residuals), the
 * decided candidates of earlier steps and this candidate's adjusted runs
 * adj[0..n): a robust scale s0 from the MAD of every residual, each
 * group's residuals taken around its Huber location at s0, then the mean
 * square of those within CONTAM_K s0 over the degrees of freedom left.
 * With s0 = 0 (most residuals zero) the plain mean square. *df gets the
 * degrees of freedom, res the residuals (free res->r).
 */
static double pooled_var(const struct fit *f, const struct obs *o, size_t na,
			 const struct stats_noise *nz, const double *adj,
			 size_t n, double *df, struct resid *res)
{
	size_t tot = na + nz->nr + n, i;
	double *r = xmalloc((tot ? tot : 1) * sizeof(*r));
	double *tmp = xmalloc((tot ? tot : 1) * sizeof(*tmp));
	double s0, sum = 0, clip2, dropped = 0;

	for (i = 0; i < na; i++)
		r[i] = o[i].y - fit_predict(f, &o[i]);
	*df = f->df;
	*df += group_residuals(nz->v, nz->grp, nz->nr, 0, r + na, tmp);
	if (n > 1)
		*df += group_residuals(adj, NULL, n, 0, r + na + nz->nr, tmp);
	else
		tot = na + nz->nr;
	s0 = mad_sd(r, tot, tmp);
	if (s0 > 0) {
		group_residuals(nz->v, nz->grp, nz->nr, s0, r + na, tmp);
		if (n > 1)
			group_residuals(adj, NULL, n, s0, r + na + nz->nr, tmp);
	}
	/* few residuals give a rough scale: none is left out then, those
	 * beyond it count as if they lay there (winsorized) */
	clip2 = CONTAM_K * CONTAM_K * s0 * s0;
	for (i = 0; i < tot; i++) {
		if (s0 > 0 && r[i] * r[i] > clip2 && tot >= CONTAM_MIN_N)
			dropped++;
		else if (s0 > 0 && r[i] * r[i] > clip2)
			sum += clip2;
		else
			sum += r[i] * r[i];
	}
	free(tmp);
	res->r = r;
	res->n = tot;
	res->s0 = s0;
	res->core_var = core_var(r, tot, *df, s0);
	if (!(*df - dropped > 0))
		return 0;
	*df -= dropped;
	return s0 > 0 ? sum / (trunc_kappa(CONTAM_K) * *df) : sum / *df;
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
	double c_up, c_dn; /* contamination's clip toward bad and good */
	double far; /* |x - T| beyond which a run is an outlier (no evidence) */
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
 * One run's evidence for bad (> 0): d = o (x - T) scaled, clipped at
 * c_dn below and c_up above (and at cap); none at all for a run beyond
 * `far` (an outlier: neither hypothesis explains it).
 */
static double run_evidence(const struct step_ctx *c, double scale, double d,
			   double cap)
{
	if (isinf(scale))
		return d > 0 ? cap : d < 0 ? -cap : 0;
	if (fabs(d) > c->far)
		return 0;
	return clamp(scale * d, -RB_MIN(c->c_dn, cap), RB_MIN(c->c_up, cap));
}

/* Huber's clip at a scale: a run clip_sd noise sd beyond the far anchor */
static double far_clip(const struct step_ctx *c, const struct stats_policy *p,
		       double scale)
{
	return scale * (RB_MAX(c->dg, c->db) + p->clip_sd * sqrt(c->sigma2));
}

/*
 * The evidence of n adjusted runs for a stricter bound A0: w' shrunk for
 * A0, each run's evidence as run_evidence, and never above cap.
 */
static double evidence(const struct step_ctx *c, const struct stats_policy *p,
		       const double *adj, size_t n, double A0, double cap,
		       bool zero)
{
	double w_eff = c->w_eff, scale, S = 0,
	       var = c->sigma2 + (double)n * c->v;
	size_t i;

	if (zero) {
		scale = INFINITY;
	} else {
		if (c->sigma2 > 0)
			w_eff = shrink_w(c->w, c->vw, A0);
		scale = 2 * w_eff / var;
		cap = RB_MIN(far_clip(c, p, scale), cap);
	}
	for (i = 0; i < n; i++)
		S += run_evidence(c, scale, c->o * (adj[i] - c->T), cap);
	return S;
}

/*
 * "what MEAN +-SD% (N runs)": sd is the runs' sample stddev, what the
 * mail's bisection and confirmation tables show for the same runs.
 */
static void why_runs(struct sbuf *why, const char *what, double mean, double sd,
		     size_t n)
{
	if (!why)
		return;
	sbuf_addf(why, "%s %.6g", what, mean);
	if (mean != 0 && n > 1 && sd > 0)
		sbuf_addf(why, " +-%.2g%%", 100 * sd / fabs(mean));
	sbuf_addf(why, " (%zu run%s)", n, RB_PLURAL(n));
}

/*
 * The candidate's runs adjusted to the reference host and tbar into adj
 * (Lc gets their contrast); the newest run's time and host. A run on a
 * host the anchors have not seen sets *need_host. Returns their mean.
 */
static double adjust(const struct fit *f, const struct stats_set *cand,
		     double *adj, double *Lc, double *cand_t, int *cand_host,
		     int *need_host)
{
	size_t i, n = cand->nr;
	double mean = 0;

	for (i = 0; i < n; i++) {
		int h = cand->host ? cand->host[i] : 0, k = host_index(f, h);
		double t = cand->when ? cand->when[i] : 0;

		if (k < 0) {
			*need_host = h;
			continue;
		}
		if (t >= *cand_t) {
			*cand_t = t;
			*cand_host = h;
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
	return n ? mean / (double)n : mean;
}

/*
 * Undecided: Wald's estimate of the runs still needed to reach the bound
 * A (from evidence S), at least to min_runs; anchor runs
 * first when they buy more than candidate runs.
 */
static void more_runs(const struct stats_policy *p, const struct step_ctx *c,
		      const struct stats_set *good, const struct stats_set *bad,
		      size_t n, double A, double S, int cand_host,
		      unsigned min_runs, struct stats_step *out)
{
	unsigned more = 1;

	if (!isinf(c->scale)) {
		double sc =
			2 * c->w_eff / (c->sigma2 + (double)p->max_runs * c->v);
		double m = c->scale * c->w;
		double reach = (double)p->max_runs * sc * c->w;

		/*
		 * Once the candidate has its minimum runs, the anchors get
		 * one more run each when that buys more than a candidate
		 * run, or when even the cap of candidate runs could not
		 * decide against anchors this uncertain.
		 */
		if (c->v > 0 && n >= min_runs &&
		    RB_MIN(good->nr, bad->nr) < STEP_ANCHOR_CAP(p) &&
		    (anchors_pay(c->v, c->sigma2, n,
				 RB_MIN(good->nr, bad->nr)) ||
		     reach < c->A)) {
			out->more_anchor_runs = 1;
			out->anchor_host = cand_host;
		}
		more = (unsigned)clamp(ceil((A - fabs(S)) / m), 1,
				       (double)(p->max_runs - n));
	}
	if (n + more < min_runs)
		more = min_runs - (unsigned)n;
	out->more_runs = more;
}

/*
 * Stale anchors: when the evidence is not decisive yet, fresh anchor runs
 * come before more candidate runs (a decisive verdict does not wait:
 * drift small against the anchors' gap cannot flip it). Are the host's
 * newest anchor runs older than the refresh age?
 */
static bool stale(const struct stats_policy *p, const struct step_ctx *c,
		  const struct stats_set *good, const struct stats_set *bad,
		  double cand_t, int cand_host)
{
	double tg = -INFINITY, tb = -INFINITY, age = p->anchor_refresh;
	size_t i;

	for (i = 0; i < good->nr; i++)
		if ((good->host ? good->host[i] : 0) == cand_host)
			tg = RB_MAX(tg, good->when ? good->when[i] : 0);
	for (i = 0; i < bad->nr; i++)
		if ((bad->host ? bad->host[i] : 0) == cand_host)
			tb = RB_MAX(tb, bad->when ? bad->when[i] : 0);
	if (c->sigma2 > 0)
		age *= RB_MAX(1.0, c->w / sqrt(c->sigma2));
	return cand_t - RB_MIN(tg, tb) > age;
}

/* The step's numbers in words. */
static void step_why(struct sbuf *why, const struct stats_policy *p,
		     const struct step_ctx *c, const struct stats_set *good,
		     const struct stats_set *bad, const struct stats_set *cand,
		     const struct stats_step *out, double S)
{
	struct stats_running r = STATS_RUNNING_INIT;
	const char *model = NULL;
	size_t i;

	/*
	 * The candidate's runs as measured (runs_mean, the mean `robot
	 * bisect log`, the result JSON and the mail show; their spread from
	 * r; the pooled noise follows as
	 * "noise"), then, when the model moved it by a tenth of the noise
	 * or more, the mean the step held against the threshold: after the
	 * drift, the hosts' offsets. The anchors' levels are the model's.
	 */
	for (i = 0; i < cand->nr; i++)
		stats_running_add(&r, cand->v[i]);
	if (out->hosts > 1 ||
	    fabs(out->cand_mean - out->runs_mean) >= 0.1 * sqrt(c->sigma2))
		model = out->trend && out->hosts > 1 ?
				"the drift and the hosts' offsets" :
			out->hosts > 1 ? "the hosts' offsets" :
					 "the drift";
	sbuf_addf(why, "%s: ", stats_verdict_name(out->verdict));
	why_runs(why, "candidate", out->runs_mean, sqrt(stats_running_var(&r)),
		 cand->nr);
	if (model)
		sbuf_addf(why, ", %.6g after %s,", out->cand_mean, model);
	sbuf_addf(why, " vs threshold %.6g (", c->T);
	why_runs(why, "good", out->good_mean, 0, good->nr);
	sbuf_addf(why, ", ");
	why_runs(why, "bad", out->bad_mean, 0, bad->nr);
	if (model)
		sbuf_addf(why, ", after %s", model);
	sbuf_addf(why, "), noise %.3g", sqrt(c->sigma2));
	if (out->trend)
		sbuf_addf(why, ", drift %.3g", out->trend);
	if (out->hosts > 1)
		sbuf_addf(why, ", %d hosts", out->hosts);
	sbuf_addf(why, ", evidence %+.2f of +-%.2f", S, c->A);
	if (out->verdict == STATS_WEAK)
		sbuf_addf(why, ", leaning %s after the cap of %u runs",
			  stats_verdict_name(out->lean), p->max_runs);
	else if (out->more_anchor_runs)
		sbuf_addf(why, ", needs %u more run%s of each anchor",
			  out->more_anchor_runs,
			  RB_PLURAL(out->more_anchor_runs));
	else if (out->verdict == STATS_NEED_MORE)
		sbuf_addf(why, ", needs ~%u more run%s", out->more_runs,
			  RB_PLURAL(out->more_runs));
}

/*
 * Contamination. A share eps of the runs may be anything (a box that
 * stalled, a cache that was cold): Huber's robust test bounds each run's
 * evidence so that its likelihood ratio stays a supermartingale under
 * every distribution within eps of a hypothesis (then Ville's inequality
 * keeps the error of bound A at e^-A, whatever the outliers do). For the
 * evidence Z ~ N(-theta^2/2, theta^2) of a normal run of the other kind,
 * clipped at c, that is
 *
 *   (1 - eps) E[e^clip(Z, c)] + eps e^c <= 1,
 *
 * equal at c = 0; the largest c where it holds is the clip. eps 0: none.
 * eps is measured on the pooled residuals (contam_share); with 10% of the
 * runs 10 sd off and theta 2 the clip is 1.4 (a normal run's mean
 * evidence is 2).
 */

static double contam_g(double c, double eps, double th)
{
	double m = -th * th / 2, inside, e;

	inside = stats_norm_cdf((c - m - th * th) / th) -
		 stats_norm_cdf((-c - m - th * th) / th);
	e = exp(-c) * stats_norm_cdf((-c - m) / th) + inside +
	    exp(c) * stats_norm_sf((c - m) / th);
	return (1 - eps) * e + eps * exp(c) - 1;
}

static double contam_clip(double eps, double th)
{
	double lo = 0, hi = 0.1, c;
	int i;

	if (!(eps > 0) || !(th > 0))
		return INFINITY;
	while (contam_g(hi, eps, th) <= 0) {
		lo = hi;
		hi *= 2;
		if (hi > 64)
			return INFINITY;
	}
	for (i = 0; i < 30; i++) {
		c = (lo + hi) / 2;
		if (contam_g(c, eps, th) <= 0)
			lo = c;
		else
			hi = c;
	}
	return lo > 0 ? lo : hi / 2;
}

/*
 * The share of runs displaced toward bad (dir +1) or good (dir -1) by
 * more than CONTAM_K robust sd, up to `reach` (farther ones land beyond
 * `far` from any candidate and carry no evidence).
 */
static double contam_share(const struct resid *res, double o, int dir,
			   double reach)
{
	size_t i, k = 0;

	if (!(res->s0 > 0) || res->n < CONTAM_MIN_N)
		return 0;
	for (i = 0; i < res->n; i++) {
		double d = dir * o * res->r[i];

		k += d > CONTAM_K * res->s0 && d <= reach;
	}
	return res->n ? (double)k / (double)res->n : 0;
}

/*
 * The fewest runs a verdict rests on: min_runs, so that one run far off
 * (an outlier at the other anchor's level) cannot decide alone. A cheap
 * step (not a confirmation, nor a strict step after a failed one: the
 * bet on one change at the anchors' levels is off then) may decide on
 * one run once the noise is known to be clean: a scale from CONTAM_MIN_N
 * residuals or more, none of them contamination either way (the clips
 * are the plain one). Under 10% of
 * the runs far off, 20 residuals show some 88% of the time, and the
 * first steps, before that many, keep two runs: deciding on one run from
 * the start took the simulation's outlier row at 10 sd from 99% to 94.5%
 * right (an outlier there lands at the bad anchor's level). A one-run
 * verdict is never sure (each run counts up to half the sure bound), so a
 * failed confirmation opens it again.
 */
static unsigned fewest_runs(const struct stats_policy *p,
			    const struct step_ctx *c, const struct resid *res,
			    enum stats_verdict expect)
{
	if (expect == STATS_NEED_MORE && p->min_runs > 1 &&
	    p->step_budget > p->budget && res->n >= CONTAM_MIN_N &&
	    res->s0 > 0 && isinf(c->c_up) && isinf(c->c_dn))
		return 1;
	return p->min_runs;
}

/*
 * The evidence's scale per run and its clip, and the bounds: the step's
 * at the step alpha; the confirmation's expected side at confirm_alpha.
 * Lowered for the overshoot (Siegmund).
 */
static void bounds(const struct stats_policy *p, struct step_ctx *c, size_t n,
		   const struct resid *res, enum stats_verdict expect,
		   double scale_abs, double *A_bad, double *A_good)
{
	double tiny = 1e-12 * (scale_abs > 0 ? scale_abs : 1);

	*A_bad = *A_good = c->A;
	if (expect == STATS_GOOD || expect == STATS_BAD) {
		double Ac = RB_MIN(sprt_bound(p->confirm_alpha, c->df), c->A);

		/* min_runs still: one run far off (an outlier at the other
		 * anchor's level) must not confirm alone */
		if (expect == STATS_GOOD)
			*A_good = Ac;
		else
			*A_bad = Ac;
	}
	if (c->sigma2 + (double)n * c->v <= tiny * tiny) {
		/* zero variance: each run counts fully, min_runs decide */
		c->scale = INFINITY;
		c->c = c->A;
		c->far = INFINITY;
		c->c_up = c->c_dn = INFINITY;
	} else {
		double theta;

		c->scale = 2 * c->w_eff / (c->sigma2 + (double)n * c->v);
		/* the evidence per run has sd theta */
		theta = c->scale * sqrt(c->sigma2 + (double)n * c->v);
		c->A = RB_MAX(c->A - SIEGMUND_RHO * theta, c->A / 2);
		*A_bad = RB_MAX(*A_bad - SIEGMUND_RHO * theta, *A_bad / 2);
		*A_good = RB_MAX(*A_good - SIEGMUND_RHO * theta, *A_good / 2);
		c->c = RB_MIN(far_clip(c, p, c->scale), c->A);
		c->far = RB_MAX(c->dg, c->db) + OUTLIER_R * sqrt(c->sigma2);
		c->c_up = contam_clip(
			contam_share(res, c->o, 1, c->dg + c->far), theta);
		c->c_dn = contam_clip(
			contam_share(res, c->o, -1, c->db + c->far), theta);
	}
}

/*
 * Does the culprit cross the threshold? Between the anchors' levels (a
 * change in several steps) a commit whose level is just short of the
 * threshold is called bad by the test of the anchors' levels a quarter
 * of the time at 2 sd: that test assumes the candidate sits at one of
 * them. This one is the sequential test of "w/2 beyond the threshold"
 * against "w/2 short of it" on the same runs, at confirm_alpha both
 * ways: 1 when it shows the crossing, -1 when it shows the culprit short
 * of the threshold, 0 undecided. A culprit at the bad anchor's level
 * passes it about as soon as the other test (its evidence per run is
 * half of that one's, and it needs less), one just short of the
 * threshold is refuted.
 */
static int crossing(const struct stats_policy *p, const struct step_ctx *c,
		    const double *adj, size_t n)
{
	double S = 0, A = sprt_bound(p->confirm_alpha, c->df), theta;
	size_t i;

	if (isinf(c->scale))
		return 1; /* zero variance: the other test decides */
	theta = c->scale / 2 * sqrt(c->sigma2 + (double)n * c->v);
	A = RB_MAX(A - SIEGMUND_RHO * theta, A / 2);
	for (i = 0; i < n; i++)
		S += run_evidence(c, c->scale / 2, c->o * (adj[i] - c->T),
				  c->c / 2);
	return S >= A ? 1 : S <= -A ? -1 : 0;
}

/* The clipped log likelihood ratio of the adjusted runs. */
static double llr(const struct step_ctx *c, const double *adj, size_t n)
{
	double S = 0;
	size_t i;

	for (i = 0; i < n; i++)
		S += run_evidence(c, c->scale, c->o * (adj[i] - c->T), c->c);
	return S;
}

/*
 * A step's start: *out cleared, the anchors (2 runs each at least) fitted
 * into a new fit (freed by the caller, with *o), or NULL (rb_error).
 */
static struct fit *step_start(const struct stats_policy *p,
			      const struct stats_set *good,
			      const struct stats_set *bad,
			      struct stats_step *out, struct obs **o,
			      size_t *na)
{
	struct fit *f;

	memset(out, 0, sizeof(*out));
	out->anchor_host = -1;
	out->lean = STATS_GOOD;
	*o = NULL;
	if (good->nr < 2 || bad->nr < 2) {
		rb_error("the anchors need 2 runs each, got %zu (good) and "
			 "%zu (bad)",
			 good->nr, bad->nr);
		return NULL;
	}
	f = xmalloc(sizeof(*f));
	*na = collect_anchors(o, good, bad);
	if (fit_anchors(f, p, *o, *na, false)) {
		free(f);
		return NULL;
	}
	return f;
}

/*
 * The step verdict (expect NEED_MORE: both bounds at the step alpha) and
 * the confirmation's re-decision (expect GOOD or BAD: that side's bound at
 * confirm_alpha, the other at the step alpha).
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
	double Lc[FIT_MAXP] = { 0 }, *adj = NULL, mean, S = 0;
	/* a confirmation refutes at the stricter refute alpha */
	double alpha = expect == STATS_NEED_MORE ? stats_policy_step_alpha(p) :
						   stats_policy_refute_alpha(p);
	double cand_t = -INFINITY;
	double A_bad, A_good;
	int cross = 1;
	unsigned min_runs;
	int ret = -1, need_host = -1, cand_host = 0;
	struct resid res = { 0 };

	memset(&c, 0, sizeof(c));
	f = step_start(p, good, bad, out, &o, &na);
	if (!f)
		goto done;

	adj = xmalloc((n ? n : 1) * sizeof(*adj));
	mean = adjust(f, cand, adj, Lc, &cand_t, &cand_host, &need_host);
	out->runs_mean = 0;
	for (i = 0; i < n; i++)
		out->runs_mean += cand->v[i] / (double)n;
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
	c.sigma2 = pooled_var(f, o, na, &p->noise, adj, n, &c.df, &res);
	c.A = sprt_bound(alpha, c.df);
	if (step_threshold(p, f, &c, why))
		goto done;
	for (i = 0; i < f->p; i++)
		Lc[i] += c.L_T[i];
	c.v = c.sigma2 * quad(f, Lc);
	out->threshold = c.T;
	out->noise_sd = sqrt(c.sigma2);
	out->cand_mean = mean;

	bounds(p, &c, n, &res, expect,
	       RB_MAX(fabs(out->good_mean), fabs(out->bad_mean)), &A_bad,
	       &A_good);
	out->bound = c.A;
	S = llr(&c, adj, n);
	out->llr = S;
	out->lean = S > 0 ? STATS_BAD : STATS_GOOD;

	min_runs = fewest_runs(p, &c, &res, expect);
	if (expect == STATS_BAD)
		cross = crossing(p, &c, adj, n);
	if (n >= min_runs && S >= A_bad && cross > 0) {
		out->verdict = STATS_BAD;
	} else if (n >= min_runs && (S <= -A_good || cross < 0)) {
		out->verdict = STATS_GOOD;
	} else if (n >= p->max_runs) {
		out->verdict = STATS_WEAK;
	} else {
		out->verdict = STATS_NEED_MORE;
		more_runs(p, &c, good, bad, n, S > 0 ? A_bad : A_good, S,
			  cand_host, min_runs, out);
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
	if (out->verdict == STATS_NEED_MORE && p->anchor_refresh > 0 && n &&
	    cand->when && fabs(S) < c.A &&
	    stale(p, &c, good, bad, cand_t, cand_host)) {
		out->more_anchor_runs = 1;
		out->anchor_host = cand_host;
	}
	if (why)
		step_why(why, p, &c, good, bad, cand, out, S);
	ret = 0;
done:
	free(res.r);
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

/*
 * The change test's evidence as Huber's robust test takes it: each of the
 * culprit's runs against the parent's location lp (taken as known; the
 * test's own llr weighs the parent's runs too), clipped at the
 * contamination's clip for its per-run sd (delta, and delta / 2 for the
 * half change), the two likelihood ratios mixed as the test mixes them.
 * The share of contamination is measured on the anchors' residuals and
 * every decided candidate's (p->contam): the anchors' own 10-20 runs
 * seldom show it (below CONTAM_MIN_N residuals none is counted).
 *
 * Why: with contamination toward bad, a run there says at most about
 * ln((1 - eps) / eps) whatever the change, and the members' test lets a
 * good commit whose fresh runs are two outliers at the bad level through
 * at confirm_alpha (eps^2 = 1% at eps 10%, under its 2%); the change test
 * on the same runs then passed too, with evidence in the hundreds. Now it
 * asks for a third run and more (the simulation's outlier rows named a
 * good commit 1 time in 1,000 at 5 and at 10 sd; see doc/statistics.md).
 * INFINITY when no contamination toward bad is seen.
 */
static double change_clipped(const struct fit *f, const struct obs *o,
			     size_t na, const struct stats_policy *p,
			     const struct resid *anchors, double o_dir,
			     double sigma, double delta, double lp,
			     const struct stats_set *culprit)
{
	struct resid all = { 0 };
	const struct resid *res = anchors;
	double d[2] = { delta, delta / 2 }, S[2] = { 0, 0 }, m, df;
	double eps_up, eps_dn;
	size_t i, k;

	if (p->contam.nr) {
		pooled_var(f, o, na, &p->contam, NULL, 0, &df, &all);
		res = &all;
	}
	eps_up = contam_share(res, o_dir, 1, INFINITY);
	eps_dn = contam_share(res, o_dir, -1, INFINITY);
	free(all.r);
	if (!(eps_up > 0))
		return INFINITY;
	/* k of n displaced toward bad is the likeliest share, not the
	 * largest the runs allow: counted as k + 1 (toward good as seen,
	 * which lets a good run of the culprit count more against it) */
	eps_up += 1 / (double)res->n;
	for (k = 0; k < 2; k++) {
		double up = contam_clip(eps_up, d[k]);
		double dn = contam_clip(eps_dn, d[k]);

		for (i = 0; i < culprit->nr; i++) {
			double x = o_dir * (culprit->v[i] - lp) / sigma;

			S[k] += clamp(d[k] * x - d[k] * d[k] / 2, -dn, up);
		}
	}
	m = RB_MAX(S[0], S[1]);
	return m + log((exp(S[0] - m) + exp(S[1] - m)) / 2);
}

int stats_change_verdict(const struct stats_policy *p,
			 const struct stats_set *good,
			 const struct stats_set *bad,
			 const struct stats_set *parent,
			 const struct stats_set *culprit,
			 struct stats_step *out, struct sbuf *why)
{
	struct fit *f;
	struct obs *o = NULL;
	struct resid res = { 0 };
	size_t na;
	double sigma2, df, sigma, o_dir, delta, D, q, llr, A, B, lp, lc;
	double robust = INFINITY, A_robust;
	double *tmp = NULL;
	int ret = -1;

	f = step_start(p, good, bad, out, &o, &na);
	if (!f)
		goto done;
	sigma2 = pooled_var(f, o, na, &p->noise, NULL, 0, &df, &res);
	sigma = sqrt(sigma2);
	o_dir = f->beta[1] > f->beta[0] ? 1 : -1;
	out->good_mean = f->beta[0];
	out->bad_mean = f->beta[1];
	out->noise_sd = sigma;
	out->runs = RB_MIN(parent->nr, culprit->nr);
	if (!parent->nr || !culprit->nr) {
		out->verdict = STATS_NEED_MORE;
		out->more_runs = 1;
		ret = 0;
		goto done;
	}
	tmp = xmalloc((parent->nr + culprit->nr) * sizeof(*tmp));
	lp = huber_loc(parent->v, parent->nr, sigma, tmp);
	lc = huber_loc(culprit->v, culprit->nr, sigma, tmp);
	D = o_dir * (lc - lp);
	q = 1 / (double)parent->nr + 1 / (double)culprit->nr;
	out->cand_mean = lc;
	out->threshold = lp;
	if (!(sigma > 0)) {
		llr = D > 0 ? INFINITY : -INFINITY;
	} else {
		double l1, l2, m;

		delta = fabs(f->beta[1] - f->beta[0]) / sigma;
		l1 = (delta * D / sigma - delta * delta / 2) / q;
		l2 = (delta / 2 * D / sigma - delta * delta / 8) / q;
		m = RB_MAX(l1, l2);
		llr = m + log((exp(l1 - m) + exp(l2 - m)) / 2);
		robust = change_clipped(f, o, na, p, &res, o_dir, sigma, delta,
					lp, culprit);
	}
	A = sprt_bound(p->change_alpha > 0 ? p->change_alpha : p->confirm_alpha,
		       df);
	B = sprt_bound(stats_policy_refute_alpha(p), df);
	/*
	 * The clipped evidence's bound is the plain one: a run at the clip
	 * says as much whatever the noise estimate (the bound's correction
	 * for its few degrees of freedom is the normal llr's, which must
	 * reach A too).
	 */
	A_robust =
		-log(p->change_alpha > 0 ? p->change_alpha : p->confirm_alpha);
	out->llr = llr;
	out->bound = A;
	out->lean = llr > 0 ? STATS_BAD : STATS_GOOD;
	if (llr >= A && robust >= A_robust && out->runs >= p->min_runs)
		out->verdict = STATS_BAD;
	else if (llr <= -B && out->runs >= p->min_runs)
		out->verdict = STATS_GOOD;
	else if (out->runs >= p->max_runs)
		out->verdict = STATS_WEAK;
	else {
		out->verdict = STATS_NEED_MORE;
		out->more_runs = 1;
	}
	if (why)
		sbuf_addf(why,
			  "change %s: parent %.6g (%zu runs), culprit %.6g "
			  "(%zu runs), noise %.3g, evidence %+.2f of %+.2f",
			  out->verdict == STATS_BAD  ? "confirmed" :
			  out->verdict == STATS_GOOD ? "refuted" :
			  out->verdict == STATS_WEAK ? "not shown" :
						       "undecided",
			  lp, parent->nr, lc, culprit->nr, sigma, llr,
			  llr > 0 ? A : -B);
	ret = 0;
done:
	free(tmp);
	free(res.r);
	free(o);
	free(f);
	return ret;
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
 * How much the plain means of the anchors' core runs (residuals within
 * CONTAM_K core sd sc) move the fit's difference: Huber's weights
 * pull a mean toward the outliers that are not far enough to be left out
 * (by up to HUBER_K scales each), and when they fall on one anchor only
 * that pull shrinks or grows its difference. 0 without a scale.
 */
static double core_shift(const struct fit *f, const struct obs *o, size_t n,
			 double sc)
{
	double sum[2] = { 0, 0 }, cnt[2] = { 0, 0 };
	size_t i;

	if (!(sc > 0))
		return 0;
	for (i = 0; i < n; i++) {
		double r = o[i].y - fit_predict(f, &o[i]);

		if (fabs(r) > CONTAM_K * sc)
			continue;
		sum[o[i].g] += r;
		cnt[o[i].g]++;
	}
	if (!cnt[0] || !cnt[1])
		return 0;
	return sum[1] / cnt[1] - sum[0] / cnt[0];
}

/*
 * The anchors' difference from their robust fit (Huber weights, an offset
 * per host when they ran on several, no trend: the anchors alternate),
 * so that neither an outlying run nor the hosts' offsets count as a
 * change or as noise: the t test of bad - good on the fit's residual
 * degrees of freedom with the pooled robust noise (pooled_var), in both
 * directions; *diff and *sd the fitted difference and noise, *q the
 * difference's variance in noise variances (1/ng + 1/nb on one host).
 * False (nothing set) when the fit fails.
 */
static bool anchors_fit_test(const struct stats_policy *p,
			     const struct stats_set *good,
			     const struct stats_set *bad, enum stats_alt alt,
			     struct stats_test *t, struct stats_test *tother,
			     double *diff, double *sd, double *core_sd,
			     double *core_diff, double *q)
{
	static const struct stats_noise none;
	struct stats_policy flat = *p;
	struct resid res = { 0 };
	struct fit *f = xmalloc(sizeof(*f));
	struct obs *o;
	size_t n = collect_anchors(&o, good, bad);
	bool ok = false;
	double s2, var, df;

	flat.drift = STATS_DRIFT_OFF;
	if (fit_anchors(f, &flat, o, n, false) || !(f->df > 0)) {
		rb_error_clear();
		goto out;
	}
	s2 = pooled_var(f, o, n, &none, NULL, 0, &df, &res);
	*q = f->cov[0][0] + f->cov[1][1] - 2 * f->cov[0][1];
	var = s2 * *q;
	*diff = f->beta[1] - f->beta[0];
	*sd = sqrt(s2);
	*core_sd = res.core_var > 0 ? sqrt(res.core_var) : *sd;
	*core_diff = *diff + core_shift(f, o, n, *core_sd);
	memset(t, 0, sizeof(*t));
	t->df = f->df;
	t->stat = var > 0   ? *diff / sqrt(var) :
		  *diff > 0 ? INFINITY :
		  *diff < 0 ? -INFINITY :
			      0;
	*tother = *t;
	t->p = stats_sided_p(t->stat, t->df, alt);
	tother->p = stats_sided_p(
		t->stat, t->df, alt == STATS_LESS ? STATS_GREATER : STATS_LESS);
	ok = true;
out:
	free(res.r);
	free(f);
	free(o);
	return ok;
}

/*
 * The threshold the bad anchor must cross (0 for the midpoint, which it
 * always does): *beyond when its mean does, *short_of when it is
 * significantly short of it.
 */
static double power_threshold(const struct stats_policy *p,
			      const struct stats_summary *sg,
			      const struct stats_summary *sb, size_t ng,
			      size_t nb, double bad_dir, double alpha,
			      bool *beyond, bool *short_of)
{
	double T = 0, se;
	size_t n = RB_MIN(ng, nb);

	*beyond = true;
	*short_of = false;
	if (p->threshold_kind == STATS_THRESHOLD_MIDPOINT)
		return T;
	if (p->threshold_kind == STATS_THRESHOLD_VALUE)
		T = p->threshold;
	else if (p->threshold_kind == STATS_THRESHOLD_PCT)
		T = sg->mean * (1 + bad_dir * fabs(p->threshold) / 100);
	se = sqrt(sb->stddev * sb->stddev / (double)nb +
		  sg->stddev * sg->stddev / (double)ng);
	*beyond = bad_dir * (sb->mean - T) > 0;
	if (se > 0)
		*short_of = bad_dir * (sb->mean - T) / se <
			    -stats_t_quantile(1 - alpha, (double)(n * 2 - 2));
	else
		*short_of = !*beyond;
	return T;
}

/* The endpoint check's numbers in words. */
static void power_why(struct sbuf *why, const struct stats_policy *p,
		      const struct stats_power *out,
		      const struct stats_summary *sg,
		      const struct stats_summary *sb, size_t ng, size_t nb,
		      double T, const char *reason)
{
	char pv[32];

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
	why_runs(why, "good", sg->mean, sg->stddev, ng);
	sbuf_addstr(why, ", ");
	why_runs(why, "bad", sb->mean, sb->stddev, nb);
	rb_fmt_p(pv, sizeof(pv), out->p);
	sbuf_addf(why, ": %+.1f%%, %s, evidence %+.2f of +%.2f",
		  out->change_pct, pv, out->llr, out->bound);
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
			  RB_PLURAL(out->more_anchor_runs));
}

/*
 * Not reproduced needs this many runs of each anchor: with fewer, two
 * outliers among three runs of the good anchor look like no change or a
 * better bad commit (when 10% of the runs are far off, 2.8% of the time;
 * with 5 runs, three outliers: 0.9%).
 */
#define REFUSE_MIN_RUNS 5

/*
 * Whether the anchors' runs are homogeneous enough to decide on: each
 * anchor has min_in runs, and two thirds of its runs, within CONTAM_K
 * scales of its median. The scale is a MAD of the runs around their
 * anchor's median (each median run itself left out, the rest scaled by
 * sqrt(m / (m - 1))): the smaller of the two anchors' with min_in runs
 * each (the noise is the same on both), else both anchors' runs together
 * (from two or three runs each, the smaller of two MADs is too often far
 * too small: normal runs fell outside it). When outliers are 10% of the
 * runs, an
 * anchor now and then holds three of its first five or six, or four of
 * eight: no estimate tells the core from the outliers then. Refusing
 * would end a real regression's bisection before it began (3% of the
 * simulated 2-sd histories with outliers did); reproducing would set the
 * threshold from the outliers' level (at 5 sd, three of the bad anchor's
 * first five runs 10 sd low put the threshold below the bad level, every
 * step after it went wrong and the bisection ended inconclusive).
 */
static bool homogeneous(const struct stats_set *good,
			const struct stats_set *bad, size_t min_in)
{
	const struct stats_set *set[2] = { good, bad };
	size_t n = good->nr + bad->nr, k, i, in, nr = 0;
	double *r = xmalloc(n * sizeof(*r)), *tmp = xmalloc(n * sizeof(*tmp));
	double med[2], sd[2], sc;
	bool ok = true;

	for (k = 0; k < 2; k++) {
		size_t got;

		memcpy(tmp, set[k]->v, set[k]->nr * sizeof(*tmp));
		got = median_residuals(tmp, set[k]->nr, r + nr, &med[k]);
		sd[k] = mad_sd(r + nr, got, tmp);
		nr += got;
	}
	sc = mad_sd(r, nr, tmp);
	free(r);
	free(tmp);
	/* each anchor's own scale once both have a few runs: the cleaner
	 * one then tells the noise, whatever the other holds */
	if (min_in)
		sc = RB_MIN(sd[0], sd[1]);
	if (!(sc > 0))
		return true;
	for (k = 0; k < 2 && ok; k++) {
		for (i = in = 0; i < set[k]->nr; i++)
			in += fabs(set[k]->v[i] - med[k]) <= CONTAM_K * sc;
		ok = in >= min_in && 3 * in >= 2 * set[k]->nr;
	}
	return ok;
}

/*
 * The endpoint check's evidence: the log likelihood ratio of "the bad
 * anchor is worse by endpoint_effect noise sd" against "no change" for
 * the fitted difference D (oriented: > 0 worse) with variance sigma^2 q:
 *
 *   llr = (delta D / sigma - delta^2 / 2) / q
 */
static double endpoint_llr(double delta, double D, double sigma, double q)
{
	if (!(q > 0))
		return 0;
	if (!(sigma > 0))
		return D > 0 ? INFINITY : -INFINITY;
	return (delta * D / sigma - delta * delta / 2) / q;
}

static int power_check(const struct stats_policy *p,
		       const struct stats_set *good,
		       const struct stats_set *bad, bool recheck,
		       struct stats_power *out, struct sbuf *why)
{
	size_t n;
	struct stats_summary sg, sb;
	struct stats_test t, tother;
	enum stats_alt alt, other;
	double diff, pooled, core_sd, core_diff, bad_dir, T, q, llr, llr_core;
	double A, B, df, orient;
	bool beyond = true, short_of = false, last, zero, refusable, ruled_out;
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
	out->alpha = p->endpoint_alpha;
	last = n >= p->anchor_max_runs;
	if (!last && n < p->anchor_min_runs) {
		out->verdict = STATS_ENDPOINT_NEED_MORE;
		out->more_anchor_runs = p->anchor_min_runs - (unsigned)n;
		if (why)
			sbuf_addf(why, "measure each anchor %u more time%s",
				  out->more_anchor_runs,
				  RB_PLURAL(out->more_anchor_runs));
		return 0;
	}
	T = power_threshold(p, &sg, &sb, good->nr, bad->nr, bad_dir, out->alpha,
			    &beyond, &short_of);
	alt = p->direction > 0 ? STATS_LESS :
	      p->direction < 0 ? STATS_GREATER :
				 STATS_TWO_SIDED;
	other = alt == STATS_LESS ? STATS_GREATER : STATS_LESS;
	zero = sg.stddev == 0 && sb.stddev == 0;
	if (!anchors_fit_test(p, good, bad, alt, &t, &tother, &diff, &pooled,
			      &core_sd, &core_diff, &q)) {
		stats_welch(&t, good->v, good->nr, bad->v, bad->nr, alt);
		stats_welch(&tother, good->v, good->nr, bad->v, bad->nr, other);
		pooled = sqrt((sg.stddev * sg.stddev * (double)(good->nr - 1) +
			       sb.stddev * sb.stddev * (double)(bad->nr - 1)) /
			      (double)(good->nr + bad->nr - 2));
		q = 1 / (double)good->nr + 1 / (double)bad->nr;
		t.df = (double)(good->nr + bad->nr - 2);
		core_sd = pooled;
		core_diff = diff;
	}
	df = t.df > 0 ? t.df : 1;
	out->noise_sd = pooled;
	out->effect = pooled > 0 ? fabs(diff) / pooled :
		      diff != 0	 ? INFINITY :
				   0;
	out->p = t.p;
	/* the direction of the metric when known, else the change's */
	orient = p->direction ? bad_dir : diff >= 0 ? 1 : -1;
	llr = endpoint_llr(p->endpoint_effect, orient * diff, pooled, q);
	llr_core = endpoint_llr(p->endpoint_effect, orient * core_diff, core_sd,
				q);
	/* constant results: any change in the bad direction is sure (a
	 * drop of a stat whose direction is not known was oriented as the
	 * change, not taken for "no difference") */
	if (zero)
		llr = llr_core = orient * diff > 0 ? INFINITY : -INFINITY;
	A = sprt_bound(p->endpoint_alpha, df);
	B = sprt_bound(recheck ? p->endpoint_beta / 10 : p->endpoint_beta, df);
	out->llr = llr;
	out->bound = A;
	/* a refusal needs a homogeneous core of each anchor's runs */
	refusable = zero || homogeneous(good, bad, REFUSE_MIN_RUNS);
	ruled_out = RB_MAX(llr, llr_core) <= -B && refusable;
	if (recheck) {
		/* only a change ruled out ends a bisection under way */
		if (!zero && ruled_out) {
			out->verdict = STATS_NOT_REPRODUCED;
			reason = "a change worth bisecting is ruled out by the "
				 "anchors' runs so far";
		} else {
			out->verdict = STATS_ENDPOINT_NEED_MORE;
		}
	} else if (llr >= A && beyond &&
		   (zero || (endpoint_llr(p->endpoint_effect,
					  orient * core_diff, pooled, q) >= A &&
			     homogeneous(good, bad, 0)))) {
		out->verdict = STATS_REPRODUCED;
	} else if (p->direction && tother.p <= out->alpha && diff != 0 &&
		   refusable) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = "the bad commit is better";
	} else if (short_of) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = "the change does not reach the threshold";
	} else if (ruled_out) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = zero ? "no difference in constant results" :
				"a change worth bisecting is ruled out";
	} else if (last) {
		out->verdict = STATS_NOT_REPRODUCED;
		reason = "no significant difference";
	} else {
		out->verdict = STATS_ENDPOINT_NEED_MORE;
		out->more_anchor_runs = 1;
	}
	out->runs_per_step =
		stats_runs_needed(p, out->effect, n, &out->runs_per_step_worst);
	out->runs_total = out->runs_per_step * (double)p->expected_steps;
	if (why)
		power_why(why, p, out, &sg, &sb, good->nr, bad->nr, T, reason);
	return 0;
}

int stats_power_check(const struct stats_policy *p,
		      const struct stats_set *good, const struct stats_set *bad,
		      struct stats_power *out, struct sbuf *why)
{
	return power_check(p, good, bad, false, out, why);
}

int stats_power_recheck(const struct stats_policy *p,
			const struct stats_set *good,
			const struct stats_set *bad, struct stats_power *out,
			struct sbuf *why)
{
	return power_check(p, good, bad, true, out, why);
}

/* --- multi-step regressions ------------------------------------------ */

/*
 * The robust locations of sets[0..n) into loc[], and the pooled noise
 * variance of one run (residuals beyond CONTAM_K scales left out from
 * CONTAM_MIN_N on) into *var with its degrees of freedom *df.
 */
static void robust_levels(const struct stats_set *const *set, size_t n,
			  double *loc, double *var, double *df)
{
	double *r, *tmp, s0, ss = 0;
	size_t tot = 0, k, i, j;

	for (k = 0; k < n; k++)
		tot += set[k]->nr;
	r = xmalloc((tot ? tot : 1) * sizeof(*r));
	tmp = xmalloc((tot ? tot : 1) * sizeof(*tmp));
	for (k = 0, j = 0; k < n; j += set[k]->nr, k++)
		group_residuals(set[k]->v, NULL, set[k]->nr, 0, r + j, tmp);
	s0 = mad_sd(r, tot, tmp);
	*df = 0;
	for (k = 0; k < n; k++) {
		loc[k] = huber_loc(set[k]->v, set[k]->nr, s0, tmp);
		for (i = 0; i < set[k]->nr; i++) {
			double e = set[k]->v[i] - loc[k];

			if (tot >= CONTAM_MIN_N && s0 > 0 &&
			    fabs(e) > CONTAM_K * s0)
				continue;
			ss += e * e;
			*df += 1;
		}
		*df -= 1;
	}
	*var = *df > 0 ? ss / *df : 0;
	free(r);
	free(tmp);
}

bool stats_same_level(const struct stats_set *a, const struct stats_set *b,
		      double z)
{
	const struct stats_set *set[2] = { a, b };
	double loc[2], var, df;

	if (a->nr < 2 || b->nr < 2)
		return false;
	robust_levels(set, 2, loc, &var, &df);
	return fabs(loc[0] - loc[1]) <=
	       z * sqrt(var * (1 / (double)a->nr + 1 / (double)b->nr));
}

int stats_share(const struct stats_set *good, const struct stats_set *parent,
		const struct stats_set *culprit, const struct stats_set *bad,
		double level, struct stats_share *out)
{
	const struct stats_set *set[4] = { good, parent, culprit, bad };
	double loc[4], var[4], v1, df, d, z;
	double vc, vt, cov;
	size_t k;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < 4; k++)
		if (set[k]->nr < 2)
			return rb_error("a share of the change needs 2 runs of "
					"each commit, got %zu",
					set[k]->nr);
	robust_levels(set, 4, loc, &v1, &df);
	for (k = 0; k < 4; k++)
		var[k] = v1 / (double)set[k]->nr;
	d = loc[0] - loc[3];
	if (d == 0)
		return rb_error("the anchors have the same level (%g)", loc[0]);
	out->share = (loc[1] - loc[2]) / d;
	out->before = (loc[0] - loc[1]) / d;
	out->after = (loc[2] - loc[3]) / d;
	/* var of P - C and of G - B, and their covariance (shared sets) */
	vc = (parent == good ? var[0] : var[1]) +
	     (culprit == bad ? var[3] : var[2]);
	vt = var[0] + var[3];
	cov = (parent == good ? var[0] : 0) + (culprit == bad ? var[3] : 0);
	z = stats_t_quantile(1 - (1 - level) / 2, df > 1 ? df : 1);
	d = sqrt(RB_MAX(0, vc + out->share * out->share * vt -
				   2 * out->share * cov)) /
	    fabs(loc[0] - loc[3]);
	out->lo = out->share - z * d;
	out->hi = out->share + z * d;
	return 0;
}
