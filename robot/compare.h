/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_COMPARE_H
#define ROBOT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/*
 * The 0-Day "%stddev %change %stddev" table, byte for byte as lkp-tests'
 * ncompare (lib/compare.rb) prints it, and the rows it would show.
 *
 * Input: per commit a matrix as lkp's matrix.json holds it, {stat:
 * [run0, run1, ...], "stats_source": [...]}: cmp_matrix below. The first
 * matrix is the base; each later one gets a %change / %stddev pair of
 * columns. Pure: no I/O (robot/cmp-load.c reads the files).
 *
 * What is reproduced (see lkp-tests.md §3 and the README's notes):
 *  - the ==== header, the sorted common axes, "commit: " and one line per
 *    commit, the column labels cut to 16 and 27 characters, the dashes;
 *  - values %10.2f below 1000, %10.4g above 1e8, else truncated %10d;
 *    " ±%3d%%" of the population stddev in % of the mean, truncated, only
 *    above 2; changes %+10.1f%% (%+10.2g%% from 1e5), absolute changes
 *    (names ending in %, perf-profile.*) without the %; the 1e-100 base;
 *  - the fail:runs / %reproduction section for pass/fail stats (with
 *    lkp's runs index as it is: the change of commit i divides by the
 *    runs of commit i-1, the same when run counts are equal);
 *  - the rows: lkp's denylist/report allowlist, the >= 3 runs rule, its
 *    change rule on trimmed summaries, the magnitude filters (ratio >
 *    1.01, > 1.05 unless a perf metric, per-stat floors), in lkp's order.
 *    The group order follows the real mails (the testcase's group is not
 *    pinned first, unlike the public code).
 */

struct cmp_stat {
	char *name;
	double *v;
	bool *is_int; /* the value was a JSON integer (lkp's Integer) */
	size_t nr, alloc;
	bool has_string; /* a non-number was seen: lkp skips such a stat */
};

struct cmp_matrix {
	char *label; /* the compare axis value: a 40-hex sha, a name */
	char *title; /* the "commit:" line, e.g. `f35ab95ca0 ("mm: ...")`;
		      * NULL: the label */
	struct cmp_stat *stats; /* in the file's order */
	size_t nr, alloc;
	size_t *index; /* open addressing: stats index + 1, 0 empty */
	size_t index_size; /* a power of 2 above 2 nr */
	size_t sources; /* entries of "stats_source" */
	bool has_sources;
};

void cmp_matrix_init(struct cmp_matrix *m);
void cmp_matrix_release(struct cmp_matrix *m);
/* The stat of that name, created (empty) when missing. */
struct cmp_stat *cmp_matrix_stat(struct cmp_matrix *m, const char *name);
const struct cmp_stat *cmp_matrix_find(const struct cmp_matrix *m,
				       const char *name);
void cmp_stat_push(struct cmp_stat *st, double v, bool is_int);
/*
 * lkp's matrix_cols: the number of stats_source entries, else the longer
 * of the first and the last stat's arrays; 0 for an empty matrix.
 */
size_t cmp_matrix_cols(const struct cmp_matrix *m);
/*
 * Drop the runs whose last_state.is_incomplete_run is 1 from every stat
 * (lkp's complete_matrix / filter_incomplete_run), and that stat itself.
 */
void cmp_matrix_complete(struct cmp_matrix *dst, const struct cmp_matrix *src);

struct cmp_axis {
	const char *key, *value;
};

struct cmp_opts {
	bool all; /* every stat (ncompare -a) */
	bool more; /* no denylist (ncompare -m) */
	const struct cmp_axis *axes; /* common axes, any order */
	size_t naxes;
	const char *compare_key; /* "commit" (NULL: "commit") */
	/* stats shown whenever a commit has them, changed or not (the
	 * metric a report is about), in lkp's order with the others */
	const char *const *keep;
	size_t nkeep;
};

void cmp_opts_init(struct cmp_opts *o);

/* Classification of stat names, after lkp's etc/ files (our tables). */
bool cmp_function_stat(const char *stat);
bool cmp_perf_metric(const char *stat);
bool cmp_absolute_change(const char *stat);

/*
 * One row of the table, as computed for rendering and for --json. For a
 * pass/fail stat: fails[] and runs[] per commit, changes[] the
 * %reproduction per later commit. Otherwise: avgs[], stddevs[] (-1 for a
 * single run), changes[] per later commit (absolute when abs).
 */
struct cmp_row {
	const char *name;
	bool failure, abs;
	double *avgs, *stddevs, *fails, *changes;
	size_t *runs;
	long group_count; /* lkp's sort key parts */
};

struct cmp_table {
	struct cmp_row *rows;
	size_t nr;
	size_t ncommits;
};

/*
 * The rows lkp would show for these matrices (all of them with opts->all),
 * in lkp's order. Returns -1 when fewer than 2 matrices are given.
 */
int cmp_table_build(struct cmp_table *t, const struct cmp_opts *o,
		    const struct cmp_matrix *const *m, size_t n);
void cmp_table_release(struct cmp_table *t);

/* Render the whole block (header, sections, closing empty line). */
int cmp_render(struct sbuf *out, const struct cmp_opts *o,
	       const struct cmp_matrix *const *m, size_t n);

/*
 * The same rows as JSON for machines: {"axes": {...}, "commits": [{label,
 * title, runs}], "rows": [{stat, kind: "perf"|"fail", values: [{mean,
 * stddev_pct, runs}] or [{fails, runs}], changes: [...], absolute}],
 * "tests": [{stat, change_pct, ci_pct: [lo, hi], p, regression}]} where
 * tests compare each later commit with the base (stats_detect), for the
 * perf rows with enough runs.
 */
int cmp_render_json(struct sbuf *out, const struct cmp_opts *o,
		    const struct cmp_matrix *const *m, size_t n);

/* The pieces, exposed for the table-driven tests. */
void cmp_fmt_value(struct sbuf *out, double avg);
void cmp_fmt_stddev(struct sbuf *out, double avg, double stddev);
void cmp_fmt_change(struct sbuf *out, double change, bool abs);
void cmp_fmt_perf_row(struct sbuf *out, const struct cmp_row *r,
		      size_t ncommits);
void cmp_fmt_failure_row(struct sbuf *out, const struct cmp_row *r,
			 size_t ncommits);

#endif
