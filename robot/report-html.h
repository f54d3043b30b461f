/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPORT_HTML_H
#define ROBOT_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/*
 * The evidence page of a bisection (`robot report --html`, report.html in
 * a mail's archive): one self-contained HTML file, no script, no network,
 * the chart an inline SVG made here. Pure: the caller (report-page.c)
 * gathers the store's runs, steps and counts; every string is borrowed.
 *
 * What a reader checks it by: every run of the metric in the bisection is
 * one <circle class="run ..." data-commit="<40 hex>" data-run="<id>">
 * (class "confirm" too for the confirmation's runs), the culprit's column
 * is a <rect class="culprit" data-commit=...>, and every tested commit a
 * row of the table id="commits" with its counts and log links.
 */

struct rh_run {
	int64_t id;
	double value; /* the metric in this run */
	const char *host;
	const char *dir; /* its result directory (a local path), or NULL */
	bool confirm; /* a run of the confirmation */
};

struct rh_commit {
	const char *sha; /* 40 hex */
	const char *subject; /* or NULL */
	const char *verdict; /* good, bad, skip, weak; NULL: none */
	bool anchor; /* a good or the bad endpoint */
	unsigned step; /* the order of its verdict, 1-based; 0: none */
	bool has_llr; /* the step's sequential test, when it had one */
	double llr, bound;
	bool sure;
	unsigned builds, boots, boots_failed, runs_failed;
	const char *build_log, *boot_log; /* the latest, or NULL */
	const struct rh_run *runs;
	size_t runs_nr;
};

/* A monitor's stat, the mean over the culprit's and its parent's runs. */
struct rh_stat {
	const char *name;
	double parent, culprit;
};

struct rh_report {
	int64_t id;
	const char *job, *metric, *status;
	const char *tree, *branch; /* may be NULL */
	int direction; /* +1: higher is better, -1: lower */
	double threshold; /* NAN: not known */
	const char *good, *bad; /* the first good anchor, the bad one */
	const char *culprit, *culprit_subject, *parent; /* NULL: none */
	double confidence; /* < 0: not stated */
	bool has_share;
	double share, share_lo, share_hi;
	const struct rb_report_confirm *confirm; /* NULL: none */
	const char *table; /* the compare table (text), or NULL */
	/* in the chart's order: ancestors before descendants */
	const struct rh_commit *commits;
	size_t commits_nr;
	const struct rh_stat *monitors;
	size_t monitors_nr;
	bool has_cost;
	struct rb_report_cost cost;
	const char *reproduce; /* command lines, or NULL */
	const char *mail; /* the mail's Message-ID, or NULL */
};

/*
 * Append the page to out: 0, or -1 with rb_error() when the report has no
 * metric or no commit.
 */
int rh_render(struct sbuf *out, const struct rh_report *r);

#endif
