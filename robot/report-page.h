/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPORT_PAGE_H
#define ROBOT_REPORT_PAGE_H

#include <jansson.h>

struct bisection_rec;
struct ctx;
struct rb_report;

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
