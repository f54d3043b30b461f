/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_HISTORY_H
#define ROBOT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sbuf;

/*
 * The history of a job: one point per head the nightly loop tested, in
 * the order it tested them, with the summary of one stat at that head and
 * what the nightly made of it (`robot history`). Pure: the points come
 * from the store (nightly-store.c); this file only lays them out as a
 * table, as JSON and as an SVG drawing.
 *
 * Strings are owned by the point (history_release frees them); NULL
 * where there is nothing to say.
 */
struct history_point {
	int64_t cycle;
	double time; /* when the cycle started (epoch seconds) */
	char *commit; /* 40 hex */
	char *subject; /* the head's subject, or NULL */
	size_t n; /* runs (0: no measurement: untestable, failed) */
	double mean, stddev, min, max;
	char *verdict; /* first, unchanged, undecided, regression, ... */
	char *baseline; /* the commit the head was compared with */
	char *baseline_name; /* "previous head", "v6.9", ... */
	bool has_baseline_mean;
	double baseline_mean; /* the baseline's mean of the same stat */
	int64_t bisection; /* 0: none */
	char *bisection_status; /* found, not-reproduced, ... */
	char *culprit; /* the bisection's culprit */
	char *culprit_subject;
	char *still; /* a reported culprit that still shows at this head */
	char *host; /* the box that measured it */
};

/*
 * A change point of the series (history_find_changes): the level moved
 * between point at - 1 and point at (indices into the history's points,
 * unmeasured points skipped), somewhere in [lo, hi]; good and bad the
 * points a bisection of it takes as its endpoints. What the robot did
 * about it comes from the store (nightly_changes): called (a cycle's own
 * test flagged a head of its range), or the bisection of it.
 */
struct history_change {
	size_t at, lo, hi, good, bad;
	double p, before, after, change_pct;
	const char *kind; /* "regression", "improvement" (static) */
	bool called; /* a head in (good, bad] had this verdict */
	int64_t bisection; /* 0: not bisected */
	char *bisection_status, *culprit;
};

struct history {
	char *job, *stat;
	struct history_point *v;
	size_t nr, alloc;
	struct history_change *changes;
	size_t changes_nr;
};

#define HISTORY_INIT \
	{            \
		0    \
	}

/* A new zeroed point at the end (owned by h). */
struct history_point *history_add(struct history *h);
void history_release(struct history *h);

/*
 * The change points of the measured points of host (NULL: every host),
 * into h->changes (replacing what was there): the change-point method
 * of changepoint.h with seed 1 over the points' means; direction +1 when
 * higher is better (the kind of each change). Change points of one
 * direction with at most 2 min_seg points between their intervals are one
 * change (a creep the segmentation cut). good and bad widen the change's
 * interval by its width (at least 2 points) on each side, within the
 * neighbouring changes; before and after (and the size) are the mean
 * levels up to good and from bad on: what a bisection between them sees.
 * 0 or -1.
 */
int history_find_changes(struct history *h, const char *host, int direction);

/*
 * The change of point i against its baseline, in percent (NAN when the
 * baseline has no mean of this stat).
 */
double history_change_pct(const struct history_point *p);

/*
 * One line per tested head:
 *
 *   cycle  date        commit        mean ± stddev     runs  change  verdict
 *       1  2026-01-05  1a2b3c4d5e6f  1234.5 ± 0.8%        3       -  first
 *       2  2026-01-06  9f8e7d6c5b4a   640.2 ± 1.1%        3  -48.1%  regression: culprit 5d6e7f8a9b0c
 */
int history_table(const struct history *h, struct sbuf *out);
/* {"job", "stat", "points": [{...}]}; numbers as JSON numbers. */
int history_json(const struct history *h, struct sbuf *out);
/*
 * One line per change point (history_find_changes):
 *
 *   cycles  commits                     size    p       what
 *   12..14  1a2b3c4d5e6f..9f8e7d6c5b4a  -6.1%   0.002   regression, not called: bisection 7 found 5d6e7f8a9b0c
 */
int history_changes_table(const struct history *h, struct sbuf *out);
/*
 * An SVG drawing: the mean of every tested head as a line with a ±stddev
 * bar, heads on the x axis in test order, the stat on the y axis;
 * regressions (red) and improvements (green) marked at the head that
 * showed them, with the culprit the bisection found; heads where a
 * reported culprit still showed get an orange ring; change points
 * (h->changes) a purple band over their interval with their size.
 * Plain SVG 1.1.
 */
int history_svg(const struct history *h, struct sbuf *out);

#endif
