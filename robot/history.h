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
};

struct history {
	char *job, *stat;
	struct history_point *v;
	size_t nr, alloc;
};

#define HISTORY_INIT \
	{            \
		0    \
	}

/* A new zeroed point at the end (owned by h). */
struct history_point *history_add(struct history *h);
void history_release(struct history *h);

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
 * An SVG drawing: the mean of every tested head as a line with a ±stddev
 * bar, heads on the x axis in test order, the stat on the y axis;
 * regressions (red) and improvements (green) marked at the head that
 * showed them, with the culprit the bisection found; heads where a
 * reported culprit still showed get an orange ring. Plain SVG 1.1.
 */
int history_svg(const struct history *h, struct sbuf *out);

#endif
