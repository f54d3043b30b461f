// SPDX-License-Identifier: GPL-2.0-only
/*
 * Change points in a nightly history: binary segmentation with a
 * permutation-tested CUSUM split or stretch (pure; see changepoint.h).
 */
#include <math.h>

#include "robot.h"
#include "changepoint.h"

/*
 * splitmix64 (Steele, Lea and Flood): one 64-bit state, every seed a
 * full-period stream. Each segment test starts its own stream from the
 * seed and the segment's bounds, so what a segment's test says depends
 * only on the seed and the points in it, not on which segments were
 * tested before.
 */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A draw in [0, bound) by multiply-shift on the top 32 bits (Lemire): no
 * division in the shuffle. Its bias is below bound / 2^32, nothing for a
 * few hundred nights (cp_detect refuses series of 2^32 points or more).
 */
static size_t below(uint64_t *s, size_t bound)
{
	return (size_t)(((splitmix64(s) >> 32) * (uint64_t)bound) >> 32);
}

struct cp_work {
	const double *x;
	size_t n;
	const struct cp_opts *o;
	double *buf; /* n: the segment, centred, then shuffled */
	double *d; /* n + 1: its centred cumulative sums */
	double *w; /* n: m / (l (m - l)) for the segment's lengths */
	struct change_point *v;
	size_t nr, alloc;
};

/* Centre x[0 .. m - 1] into buf; returns the sum of squares. */
static double centre(double *buf, const double *x, size_t m)
{
	double mean = 0, ss = 0;
	size_t i;

	for (i = 0; i < m; i++)
		mean += x[i];
	mean /= m;
	for (i = 0; i < m; i++) {
		buf[i] = x[i] - mean;
		ss += buf[i] * buf[i];
	}
	return ss;
}

/*
 * d[k] = S_k - k S_m / m for k in [0, m], S_k the sum of the first k
 * points (d[0] = d[m] = 0). A stretch [i, j) of l = j - i points against
 * the other m - l differs in mean by (d[j] - d[i]) m / (l (m - l)), and
 *
 *   T(i, j)^2 = (d[j] - d[i])^2 m / (l (m - l)) = w[l] (d[j] - d[i])^2
 *
 * is sqrt(l (m - l) / m) |mean(inside) - mean(outside)| squared: the
 * split at k is the stretch [0, k) (or [k, m)). The points are centred
 * first, so that a level of 1e9 loses no digits to the sums.
 */
static void cusum(double *d, const double *v, size_t m)
{
	double mean;
	size_t k;

	d[0] = 0;
	for (k = 0; k < m; k++)
		d[k + 1] = d[k] + v[k];
	mean = d[m] / m;
	for (k = 1; k <= m; k++)
		d[k] -= k * mean;
}

static void segment_weights(double *w, size_t m)
{
	size_t l;

	for (l = 1; l < m; l++)
		w[l] = (double)m / ((double)l * (double)(m - l));
}

/*
 * The largest split T(k)^2, k in [g, m - g], and its k. With stop > 0 it
 * returns as soon as a split reaches stop: a shuffle only has to say
 * whether it reaches the observed statistic.
 */
static double best_split(const double *d, const double *w, size_t m, size_t g,
			 size_t *arg, double stop)
{
	double best = -1;
	size_t k;

	for (k = g; k + g <= m; k++) {
		double t2 = d[k] * d[k] * w[k];

		if (t2 > best) {
			best = t2;
			*arg = k;
			if (stop > 0 && best >= stop)
				break;
		}
	}
	return best;
}

/*
 * The largest T(i, j)^2 of a stretch inside the segment, touching
 * neither end: g <= i, i + g <= j <= m - g (-1 when the segment is
 * shorter than 3 g). Stops at stop (> 0) as best_split does.
 */
static double best_stretch(const double *d, const double *w, size_t m, size_t g,
			   size_t *ai, size_t *aj, double stop)
{
	double best = -1, lo, hi;
	size_t i, j;

	if (m < 3 * g)
		return -1;
	lo = hi = d[g];
	/*
	 * No stretch can beat (max d - min d)^2 w[g] (w[l] is largest at
	 * the shortest stretch a segment allows): most shuffles are settled
	 * by it without the m^2 / 2 stretches.
	 */
	for (i = g + 1; i + g <= m; i++) {
		lo = RB_MIN(lo, d[i]);
		hi = RB_MAX(hi, d[i]);
	}
	if (stop > 0 && (hi - lo) * (hi - lo) * w[g] < stop)
		return (hi - lo) * (hi - lo) * w[g];
	for (i = g; i + 2 * g <= m; i++) {
		double far = RB_MAX(hi - d[i], d[i] - lo);

		/* and none starting at i can beat far^2 w[g] */
		if (stop > 0 && far * far * w[g] < stop)
			continue;
		for (j = i + g; j + g <= m; j++) {
			double e = d[j] - d[i], t2 = e * e * w[j - i];

			if (t2 > best) {
				best = t2;
				*ai = i;
				*aj = j;
				if (stop > 0 && best >= stop)
					return best;
			}
		}
	}
	return best;
}

/*
 * 2 log LR of a fit that leaves ss - t2 of the sum of squares ss, under
 * normal noise of unknown sd, and back.
 */
static double lr(double t2, double ss, size_t m)
{
	return t2 >= ss ? INFINITY : -(double)m * log1p(-t2 / ss);
}

static double lr_inv(double l, double ss, size_t m)
{
	return -ss * expm1(-l / (double)m);
}

static void add_cp(struct cp_work *cw, size_t at, double p)
{
	struct change_point *cp;

	RB_ALLOC_GROW(cw->v, cw->nr + 1, cw->alloc);
	cp = &cw->v[cw->nr++];
	memset(cp, 0, sizeof(*cp));
	cp->at = at;
	cp->p = p;
}

/*
 * The permutation test of segment [s, e) and, when it finds a change,
 * the same on every piece.
 *
 * The statistic: the better of the best split and the best stretch
 * inside the segment, compared as penalised likelihood ratios: a stretch
 * wins only when its 2 log LR beats the best split's by more than 3 ln m. A split alone cannot see a change that goes and comes back
 * (a regression and its fix): the two sides of any split average it
 * out. A stretch sees it, and the penalty keeps the many stretches from
 * diluting the test's power on a single step (doc/statistics.md has the
 * numbers). Whichever wins, a shuffle counts when its own split or
 * stretch would have won at least as clearly: thr1 and thr2 are the
 * observed statistic in each one's T^2.
 *
 * The shuffles count those that reach the observed statistic (within a
 * relative 1e-9, so that a tie computed in another order still counts:
 * the test errs toward no change). Once more shuffles reached it than
 * p <= alpha allows, the answer is known and the rest are not drawn: on
 * a series without a change the test stops after a few dozen shuffles on
 * average.
 */
static void segment_test(struct cp_work *cw, size_t s, size_t e)
{
	const struct cp_opts *o = cw->o;
	size_t m = e - s, g = o->min_seg, k = 0, ai = 0, aj = 0, i, j, u;
	double ss, t1, t2, l1, l2, thr1, thr2, tmp, pen, p;
	unsigned r, reached = 0;
	bool stretch;
	uint64_t st;

	if (m < 2 * g)
		return;
	ss = centre(cw->buf, cw->x + s, m);
	if (ss <= 0)
		return;
	segment_weights(cw->w, m);
	cusum(cw->d, cw->buf, m);
	t1 = best_split(cw->d, cw->w, m, g, &k, 0);
	t2 = best_stretch(cw->d, cw->w, m, g, &ai, &aj, 0);
	/* a split that explains nothing (rounding of equal points) */
	if (RB_MAX(t1, t2) <= 1e-12 * ss)
		return;
	pen = 3 * log((double)m);
	l1 = lr(t1, ss, m);
	l2 = t2 < 0 ? -INFINITY : lr(t2, ss, m) - pen;
	stretch = l2 > l1;
	if (!stretch) {
		thr1 = t1;
		thr2 = t2 < 0 ? INFINITY : lr_inv(l1 + pen, ss, m);
	} else {
		thr1 = lr_inv(l2, ss, m);
		thr2 = t2;
	}
	thr1 *= 1 - 1e-9;
	thr2 *= 1 - 1e-9;

	st = o->seed ^ (0xd1b54a32d192ed03ULL * (s + 1)) ^
	     (0x8cb92ba72f3d8dd7ULL * (e + 1));
	for (r = 0; r < o->perms; r++) {
		for (i = m - 1; i > 0; i--) {
			j = below(&st, i + 1);
			tmp = cw->buf[i];
			cw->buf[i] = cw->buf[j];
			cw->buf[j] = tmp;
		}
		cusum(cw->d, cw->buf, m);
		if (best_split(cw->d, cw->w, m, g, &u, thr1) < thr1 &&
		    best_stretch(cw->d, cw->w, m, g, &u, &u, thr2) < thr2)
			continue;
		if (++reached + 1.0 > o->alpha * (o->perms + 1.0))
			return;
	}

	p = (reached + 1.0) / (o->perms + 1.0);
	if (!stretch) {
		add_cp(cw, s + k, p);
		segment_test(cw, s, s + k);
		segment_test(cw, s + k, e);
		return;
	}
	add_cp(cw, s + ai, p);
	add_cp(cw, s + aj, p);
	segment_test(cw, s, s + ai);
	segment_test(cw, s + ai, s + aj);
	segment_test(cw, s + aj, e);
}

static int cmp_at(const void *a, const void *b)
{
	const struct change_point *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

static double mean_of(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / n;
}

/*
 * The localisation interval of a change in segment [0, m) (one change
 * between its neighbours) best placed at khat: every split k with
 * T(khat)^2 - T(k)^2 <= 2 c sigma^2, sigma^2 the pooled variance within
 * the two sides of khat. Why c = -ln(1 - sqrt(conf)): under normal noise
 * (T(khat)^2 - T(k0)^2) / (2 sigma^2) is the log-likelihood ratio of the
 * best split against the true one k0. Moving the split j points past k0
 * changes the log-likelihood by a gaussian random walk with drift
 * -delta^2 / (2 sigma^2) a point and variance delta^2 / sigma^2 a point:
 * Brownian motion W(t) - t / 2 observed at the points. Its maximum over
 * t >= 0 is exponential with mean 1 (P(max > c) = e^-c), the points see
 * no more than the whole path, and the two sides are independent, so
 * P(the ratio > c) <= 1 - (1 - e^-c)^2 = 1 - conf. With the chi-square
 * quantile (3.84 / 2 at 95%) the interval would cover about 73%. That
 * holds for known levels and sigma; here they are estimated, which the
 * conservative step (path against points) more than pays for in the
 * unit tests (the 95% interval holds a 5% step in 98% of the series).
 */
static void localise(struct change_point *cp, const double *d, const double *w,
		     size_t m, size_t khat, double ss, double conf)
{
	double t2 = d[khat] * d[khat] * w[khat], sigma2, lim;
	size_t k;

	sigma2 = m > 2 ? RB_MAX(ss - t2, 0) / (double)(m - 2) : 0;
	lim = t2 - 2 * -log(1 - sqrt(conf)) * sigma2 - 1e-9 * t2;
	cp->lo = cp->hi = khat;
	for (k = 1; k < m; k++) {
		if (d[k] * d[k] * w[k] >= lim) {
			cp->lo = RB_MIN(cp->lo, k);
			cp->hi = RB_MAX(cp->hi, k);
		}
	}
}

/*
 * With every change point found, each is placed again at the best split
 * between its neighbours (the previous one as already placed, the next
 * as found), and its interval and means are taken there: a segment test
 * that saw two changes placed its split with the other one pulling at
 * it.
 */
static void finish(struct cp_work *cw)
{
	size_t i, g = cw->o->min_seg;

	if (!cw->nr)
		return;
	qsort(cw->v, cw->nr, sizeof(*cw->v), cmp_at);
	for (i = 0; i < cw->nr; i++) {
		struct change_point *cp = &cw->v[i];
		size_t s = i ? cw->v[i - 1].at : 0;
		size_t e = i + 1 < cw->nr ? cw->v[i + 1].at : cw->n, m = e - s;
		const double *x = cw->x + s;
		double ss = centre(cw->buf, x, m);
		size_t k = cp->at - s;

		segment_weights(cw->w, m);
		cusum(cw->d, cw->buf, m);
		best_split(cw->d, cw->w, m, g, &k, 0);
		cp->at = s + k;
		localise(cp, cw->d, cw->w, m, k, ss, cw->o->conf);
		cp->lo += s;
		cp->hi += s;
		cp->before = mean_of(x, k);
		cp->after = mean_of(x + k, m - k);
		cp->change_pct = NAN;
		if (cp->before != 0)
			cp->change_pct =
				100 * (cp->after - cp->before) / cp->before;
	}
}

int cp_detect(struct change_point **out, size_t *nr, const double *x, size_t n,
	      const struct cp_opts *o)
{
	static const struct cp_opts defaults = CP_OPTS_INIT;
	struct cp_work cw = { 0 };
	size_t i;

	if (!out || !nr)
		return rb_error("change points: no place for the result");
	*out = NULL;
	*nr = 0;
	if (!o)
		o = &defaults;
	if (!x && n)
		return rb_error("change points: no series");
	if (!o->perms || !(o->alpha > 0 && o->alpha < 1) || !o->min_seg ||
	    !(o->conf > 0 && o->conf < 1))
		return rb_error(
			"change points: options out of range (perms %u, "
			"alpha %g, min_seg %zu, conf %g)",
			o->perms, o->alpha, o->min_seg, o->conf);
	if ((uint64_t)n > UINT32_MAX)
		return rb_error("change points: %zu points are too many", n);
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return rb_error("change points: point %zu is %g", i,
					x[i]);
	if (n < 2 * o->min_seg)
		return 0;

	cw.x = x;
	cw.n = n;
	cw.o = o;
	cw.buf = xmalloc(n * sizeof(*cw.buf));
	cw.d = xmalloc((n + 1) * sizeof(*cw.d));
	cw.w = xmalloc(n * sizeof(*cw.w));
	segment_test(&cw, 0, n);
	finish(&cw);
	free(cw.buf);
	free(cw.d);
	free(cw.w);
	*out = cw.v;
	*nr = cw.nr;
	return 0;
}
