/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPORTING_H
#define ROBOT_REPORTING_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;
struct lab;

/*
 * From a found bisection in the store to a mail in the outbox: the glue
 * between the bisection (store, repository, job), the pure mail text
 * (report.c), the compare table (compare.c), the outbox and SMTP delivery
 * (outbox.c, mail.c).
 *
 * report_draft  builds the mail of bisection id and adds it to
 *               WORKDIR/outbox, with its reproduce materials under
 *               WORKDIR/archive/<message-id>/: job.yaml, reproduce.sh,
 *               the kernel config (when there is one), bisect.log, the
 *               matrix.json of the good and the culprit commits, and the
 *               raw files of the confirming runs. A mail about the same culprit, stat and
 *               job is never drafted twice: the existing one is returned
 *               (*existing set). *id (the outbox id) and *eml (its path)
 *               are malloc'd.
 * report_send   delivers an outbox mail with the lab's mail settings;
 *               never twice (the outbox refuses a sent mail). Returns 0
 *               sent, 1 already sent, -1 failed (state "failed" + reason).
 */
struct report_still {
	const char *tree, *branch, *sha;
};

int report_draft(struct ctx *c, int64_t bisection_id,
		 const struct report_still *still, size_t still_nr, char **id,
		 char **eml, bool *existing);
/*
 * The follow-up of a report whose culprit still shows at later heads: the
 * same mail with the `[still regression on TREE/BRANCH SHA]` lines, a mail
 * of its own in the outbox (its key is the report's plus the newest
 * head's sha, so each newest head gets at most one). Drafted only when
 * asked (`robot report --still`, or the nightly's still_mail: true).
 */
int report_draft_still(struct ctx *c, int64_t bisection_id,
		       const struct report_still *still, size_t still_nr,
		       char **id, char **eml, bool *existing);
/* The evidence page's name among a mail's materials and in --html DIR. */
#define REPORT_PAGE "report.html"

/*
 * The evidence page of a found bisection into dir/report.html (*path,
 * malloc'd); the mail's archive has the same page. 0 or -1.
 */
int report_html(struct ctx *c, int64_t bisection_id, const char *dir,
		char **path);
int report_send(const struct lab *lab, const char *id, bool force);
/* Whether the lab sends drafted mails by itself (mail.smtp and
 * mail.auto_send). */
bool report_auto_send(const struct lab *lab);

#endif
