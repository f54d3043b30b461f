/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPORT_PAGE_H
#define ROBOT_REPORT_PAGE_H

#include <jansson.h>

struct bisection_rec;
struct ctx;
struct rb_report;

/*
 * Which way is better for a bisection's stat, as its mail (regression or
 * improvement, "higher is better") and its evidence page both say it:
 * the stat's own (stats_direction), else the bisection's (result JSON
 * "direction": +1 when its good side is the higher). The bisection's
 * alone would read backwards for a bisected improvement, whose bad side
 * is the better one. +1 higher is better, -1 lower, 0 unknown.
 */
int report_direction(const char *metric, json_t *res);

/*
 * Write the evidence page of a found bisection (report-html.h) to path:
 * rec and res its store record and result JSON, mail the report its mail
 * was (or would be) drafted from: confirmation, compare table,
 * confidence, share, lab time, the command to reproduce. 0, or -1 with
 * rb_error() set.
 */
int report_page_write(struct ctx *c, const struct bisection_rec *rec,
		      json_t *res, const struct rb_report *mail,
		      const char *path);

#endif
