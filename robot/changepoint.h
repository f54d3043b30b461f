/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_CHANGEPOINT_H
#define ROBOT_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Change points in a series of per-night means (a job's history): where
 * the level moved, how sure that is, and a range of nights a bisection
 * can take as its good and bad heads. Pure: no I/O, no clock; the only
 * randomness is a generator seeded from cp_opts.seed, so the same series
 * and options always give the same answer.
 *
 * Method (doc/statistics.md, "Change points in the nightly history"):
 * binary segmentation. A segment's best split maximises the CUSUM
 * statistic T(k) = sqrt(k (m - k) / m) |mean(left) - mean(right)| over
 * splits leaving min_seg points on each side; its best stretch (two
 * change points, as in circular binary segmentation) maximises the same
 * for a stretch inside the segment against the rest, and is taken
 * instead of the split when its likelihood ratio is better by 3 ln m
 * (a level that goes and comes back, which no split can see). A
 * permutation test of the segment (perms shuffles) gives the p-value; at
 * p <= alpha the split (stretch) is kept and the pieces are searched in
 * turn, until they are shorter than 2 min_seg. The test is
 * distribution-free: on a series without a change it finds one with
 * probability at most alpha, whatever the shape of the noise.
 *
 * Cost: O(perms m^2) for a segment with a change (the stretches), far
 * less without one (the shuffles stop once the answer is known): 0.1 s
 * for a year of nights with two changes, 1 s for 1000 nights.
 */

struct cp_opts {
	unsigned perms; /* shuffles per segment test (>= 1) */
	double alpha; /* level of each segment test, in (0, 1) */
	size_t min_seg; /* fewest points on either side of a split (>= 1) */
	uint64_t seed; /* the permutations' generator */
	double conf; /* coverage of the localisation interval, in (0, 1) */
};

#define CP_OPTS_INIT                   \
	{                              \
		999, 0.005, 3, 1, 0.95 \
	}

/*
 * One change point. The level changed between point at - 1 and point at:
 * at is the first point of the new level (1 <= at < n).
 *
 *   p           the permutation p-value of the test that found it, in the
 *               segment it was found in: (1 + #{shuffles whose statistic
 *               reaches the observed one}) / (1 + perms), >= 1 / (1 +
 *               perms); both change points of a stretch have the same
 *   before      mean of the points from the previous change point (or 0)
 *               up to at - 1
 *   after       mean of the points from at up to the next change point
 *               (or n) - 1
 *   change_pct  (after - before) / before * 100; NAN when before is 0
 *   lo, hi      where the change may be, with coverage conf under normal
 *               noise: every at' in [lo, hi] is a plausible first point
 *               of the new level, so point lo - 1 is a "good" head and
 *               point hi a "bad" one (lo <= at <= hi, lo >= 1, hi < n)
 *
 * at is the best split within its final neighbours (the change points on
 * either side), which may differ from where the segment test put it when
 * a later split found another change inside that segment.
 */
struct change_point {
	size_t at, lo, hi;
	double p, before, after, change_pct;
};

/*
 * Find the change points of x[0 .. n - 1]. On success returns 0 with
 * *out an array of *nr change points in increasing order of at (NULL
 * when *nr is 0; the caller frees it with free()). Returns -1 (and sets
 * the error message) on bad arguments: out or nr NULL, x NULL with n > 0,
 * an option out of range, or a point that is not finite (NaN, inf): the
 * caller passes only measured nights. o NULL means CP_OPTS_INIT. A series
 * shorter than 2 min_seg has no change point (not an error).
 */
int cp_detect(struct change_point **out, size_t *nr, const double *x, size_t n,
	      const struct cp_opts *o);

#endif
