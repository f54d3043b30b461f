/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPORT_H
#define ROBOT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mail-header.h"
#include "sbuf.h"
#include "svec.h"

/*
 * The "kernel test robot noticed" mail, as text: pure (no clock, no I/O).
 *
 * The caller fills a struct rb_report (every string borrowed, none owned)
 * and rb_report_render() writes the whole RFC 5322 message into an sbuf:
 * headers, one empty line, the body in the 0-Day layout plus the sections
 * 0-Day does not give (bisection steps, confirmation, confidence, the
 * command to reproduce by hand).
 *
 * The rendered text uses "\n" line ends (what the outbox keeps and what a
 * terminal prints); rb_mail_envelope() turns it into CRLF for SMTP.
 *
 * Every text that comes from a commit or a job (subjects, names, values)
 * goes through rb_mail_sanitize(): control characters (CR, LF, TAB, ...)
 * become spaces, runs of white space one space, invalid UTF-8 U+FFFD. So
 * a subject "x\r\nBcc: victim@example.org" stays inside its own header.
 * Headers are folded at 78 columns and non-ASCII words in them become
 * RFC 2047 encoded-words (Q encoding, UTF-8). Body lines never exceed 998
 * octets: a longer line of ours is broken at a space, a longer line of
 * the pre-rendered table is an error (the table is never broken).
 */

/* One job parameter, printed as "\t<key>: <value>" in job order. */
struct rb_report_param {
	const char *key;
	const char *value;
};

/* "[still regression on <tree>/<branch> <sha>]" */
struct rb_report_still {
	const char *tree;
	const char *branch;
	const char *sha;
};

enum rb_report_kind {
	RB_REPORT_REGRESSION,
	RB_REPORT_IMPROVEMENT,
};

/* What the "±" of a measurement means. */
enum rb_report_spread {
	RB_SPREAD_CI, /* half-width of a confidence interval (ci_level) */
	RB_SPREAD_STDDEV, /* sample standard deviation */
};

/* One commit measured during the bisection, in the order tested. */
struct rb_report_step {
	const char *sha; /* 12 or more hex digits; printed as 12 */
	const char *subject;
	double mean;
	double spread; /* < 0: unknown (one run) */
	unsigned runs;
	const char *verdict; /* "good", "bad", "skip": as decided */
};

struct rb_report_measure {
	const char *sha;
	double mean;
	double spread; /* < 0: unknown */
	unsigned runs;
};

/* The parent and the culprit re-run in interleaved rounds. */
struct rb_report_confirm {
	struct rb_report_measure parent;
	struct rb_report_measure culprit;
	unsigned rounds; /* interleaved rounds; 0: not interleaved */
	double pct; /* culprit vs parent, signed percent */
	double p_value; /* < 0: not given */
	const char *method; /* the test behind p_value, or NULL */
	/* the interval of pct at ci_level (ci_level 0: none given) */
	double ci_lo, ci_hi, ci_level;
	bool reproduced;
	/*
	 * Where its runs are (the robot's own reports: the compare table
	 * and the evidence page take the same runs): those on host after
	 * the run id after_run. host NULL: not known.
	 */
	const char *host;
	int64_t after_run;
};

struct rb_report {
	/* where the culprit was found */
	const char *tree; /* "linus" */
	const char *branch; /* "master" */
	const char *tree_url; /* printed before the branch; may be NULL */

	/* the culprit */
	const char *sha; /* 40 hex digits */
	const char *subject;
	struct rb_mail_addr author; /* To: */
	struct rb_mail_addr committer; /* Cc: */

	enum rb_report_kind kind;
	const char *stat; /* "stress-ng.mlockmany.ops_per_sec" */
	double pct; /* signed change; the headline shows its magnitude */
	const struct rb_report_still *still;
	size_t still_nr;

	/* what ran, where */
	const char *testcase;
	const char *config;
	const char *compiler;
	const char *machine;
	const struct rb_report_param *params;
	size_t params_nr;

	/* the lab */
	struct rb_mail_addr from; /* also the Reported-by: trailer */
	const struct rb_mail_addr *to; /* after the author */
	size_t to_nr;
	const struct rb_mail_addr *cc; /* before the committer */
	size_t cc_nr;
	const char *archive_url; /* Closes: <archive_url>/<message id> */
	const char *materials_url; /* NULL: <archive_url>/<message id> */
	/* the materials hold no kernel config (a lab without kconfig whose
	 * builds leave none): the mail does not say they do */
	bool no_config;
	/* the evidence page among the materials ("report.html"), or NULL */
	const char *details;
	const char *signature; /* lines after "-- "; NULL: ours */

	/* the mail's identity, chosen by the caller */
	int64_t date; /* seconds since the epoch */
	int tz_minutes; /* offset east of UTC, -1439..1439 */
	const char *message_id; /* "<...>", see rb_report_message_id() */

	/* the evidence */
	const char *table; /* the rendered compare table, or NULL */
	enum rb_report_spread spread_kind;
	double ci_level; /* 0.95; 0 means 0.95 */
	const struct rb_report_step *steps;
	size_t steps_nr;
	const struct rb_report_confirm *confirm; /* NULL: not confirmed */
	/*
	 * A multi-step change: the share of the change from good_sha to
	 * bad_sha the culprit accounts for, its interval, and the parts
	 * before (good_sha .. the parent) and after it (the culprit ..
	 * bad_sha); has_share false: not stated
	 */
	bool has_share;
	double share, share_lo, share_hi, share_before, share_after;
	const char *good_sha, *bad_sha;
	double confidence; /* 0..1; < 0: not stated */
	const char *confidence_note; /* why, in a sentence or two; or NULL */
	const char *reproduce; /* exact command line(s), or NULL */
	/*
	 * The lab time the bisection took (has_cost false: not stated):
	 * payload runs, boots, builds and of them those the look-ahead's
	 * builders made (a box may have waited for one: the anchors' are
	 * built that way before anything is measured; and of those the ones
	 * no step used), and
	 * the seconds the boxes waited for kernels
	 */
	bool has_cost;
	struct rb_report_cost {
		unsigned runs, boots, builds, builds_ahead, builds_unused;
		double build_wait;
	} cost;
};

/*
 * Append the whole message to out. Returns 0, or -1 with rb_error() set
 * when an input cannot make a valid mail (an invalid mail address, a
 * missing sha or stat, a table line over 998 octets).
 */
int rb_report_render(struct sbuf *out, const struct rb_report *r);

/* The Subject text before encoding and folding. 0 or -1. */
int rb_report_subject(struct sbuf *out, const struct rb_report *r);

/*
 * The robot's confidence_note for a confidence of 1 - decided x step_alpha
 * x confirm_alpha (the session's, see doc/statistics.md): what each term
 * is, with its value, appended to out.
 */
void rb_report_confidence_note(struct sbuf *out, unsigned decided,
			       double step_alpha, double confirm_alpha);

/*
 * The subsystem prefix of a commit subject as 0-Day prints it: the text
 * before the first ':', trimmed ("sched/fair: x" -> "sched/fair"). Nothing
 * is appended when the subject has no ':'.
 */
void rb_report_subsystem(struct sbuf *out, const char *subject);

#endif
