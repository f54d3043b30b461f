/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPORT_JSON_H
#define ROBOT_REPORT_JSON_H

#include "report.h"

/*
 * A report described in a JSON file (`robot outbox draft`): the fields of
 * struct rb_report under the names the README lists, plus "job" (or
 * "key") for the outbox's dedup key. Unknown names are errors, so that a
 * typo does not silently drop a section.
 *
 * doc->r borrows its strings from the parsed JSON, which the doc keeps
 * until rb_report_doc_release(). "date" and "message_id" may be absent:
 * doc->has_date is then false and r.message_id NULL, for the caller to
 * fill from the clock (the loader itself reads no clock).
 */
struct rb_report_doc {
	struct rb_report r;
	char *key; /* culprit/stat/job, or the given "key" */
	const char *domain; /* for a generated message id, or NULL */
	bool has_date;

	/* owned storage behind r */
	void *json;
	char *table;
	struct rb_report_param *params;
	struct rb_report_still *still;
	struct rb_mail_addr *to, *cc;
	struct rb_report_step *steps;
	struct rb_report_confirm confirm;
};

/*
 * 0, or -1 with "FILE:LINE:COL: ..." or "FILE: ..." in rb_errmsg(). The
 * doc is released with rb_report_doc_release() either way.
 */
int rb_report_doc_load(struct rb_report_doc *doc, const char *path);
/* The same from len bytes of JSON text; source names it in errors. */
int rb_report_doc_parse(struct rb_report_doc *doc, const char *source,
			const char *text, size_t len);
void rb_report_doc_release(struct rb_report_doc *doc);

#endif
