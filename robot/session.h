/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SESSION_H
#define ROBOT_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bisect.h"
#include "record.h"
#include "stats.h"

struct sbuf;

/*
 * A bisection from a good and a bad commit to a confirmed culprit: the
 * robot's main job (`robot bisect`).
 *
 *   endpoints      the good anchor (the first good commit) and the bad one
 *                  are measured alternately until the power check says the
 *                  regression reproduces (or does not: "not-reproduced")
 *   rounds         the picks of bisect.c, one per host (k-way when there are
 *                  several), each measured on its host one run at a time
 *                  until the step verdict of stats.c decides (anchor runs on
 *                  that host when it asks for them); build/boot exit 125
 *                  and a payload that cannot run are skips; a verdict left
 *                  weak at the run cap goes by its lean (Wald's truncated
 *                  test: a skip could leave the culprit among skipped
 *                  commits, a wrong lean is caught by the confirmation);
 *                  the round's verdicts are then applied in the order they
 *                  were decided, one that contradicts those before it (a
 *                  good commit above a bad one, possible with several
 *                  hosts) is left out
 *   confirmation   the parent(s) and the culprit are decided again on
 *                  fresh runs, interleaved on one host (parent, culprit,
 *                  parent, ...), against the anchors (stats_confirm_verdict:
 *                  the expected verdict at confirm_alpha, the other at the
 *                  refute alpha; the culprit's crossing of the threshold
 *                  too), then the change test (change_alpha); a wrong
 *                  step always leaves a wrong verdict on the culprit or
 *                  its parent, so a wrong culprit needs a wrong step and
 *                  a fresh decision repeating it (fresh runs also catch
 *                  what the noise model does not see: a transient that
 *                  slowed a commit's runs in its step); a culprit that
 *                  does not confirm sends the bisection back into the
 *                  range, 9 times at most (a culprit whose parent
 *                  cannot be measured: the second time), then
 *                  "inconclusive":
 *                  after the first failure of cheap steps a member
 *                  decided the other way becomes a verdict ("verdict"
 *                  step, detail "confirmation": true and the run id its
 *                  fresh runs start after) and drops the verdicts it
 *                  contradicts, and every cheap verdict not sure is
 *                  opened again ("reopen": dropped, runs kept; the steps
 *                  from then on strict); later failures drop the
 *                  culprit's and its parents' verdicts. Verdicts that
 *                  leave no candidate (they contradict one first bad
 *                  commit) drop the last round's the same way, only
 *                  skipped commits left after cheap steps reopen them. A
 *                  dropped commit is decided again on runs after the drop
 *                  only
 *
 * Crash safety: every run is in the store (tagged with the bisection)
 * before the session reads it back, and every decision is appended to the
 * bisection's steps before it is acted on. Starting a session on an
 * existing bisection replays its steps over the same graph and reads the
 * stored samples, so nothing measured is measured again and the decisions
 * come out the same.
 *
 * The session is pure, single-threaded and deterministic for a given order
 * of finished runs: it reads and appends its records and runs payloads
 * only through `struct session_ops`. The real ops are robot/session-exec.c
 * (the store, and a worker thread per host with the runner); tests and the
 * simulation (tests/lib/session-mem.c) keep everything in memory. A run is
 * recorded (its samples readable) before wait() reports it.
 */

enum session_outcome {
	SESSION_RUN_OK, /* the run and its samples are in the store */
	SESSION_RUN_SKIP, /* build or boot exited 125: untestable commit */
	SESSION_RUN_FAILED, /* the payload ran and failed on this kernel */
	SESSION_RUN_INFRA, /* could not tell: retried, never a verdict */
	SESSION_RUN_BAD_INPUT, /* stored, but without the metric: the
				* session stops with the why */
};

struct session_result {
	int host;
	char commit[RB_OID_HEXSZ + 1];
	enum session_outcome outcome;
	int64_t run_id; /* SESSION_RUN_OK */
	char why[512];
};

struct session_ops {
	void *data;
	/*
	 * The bisection's steps in the order they were appended, and the
	 * samples of the metric for commit in run order: both borrowed, valid
	 * until the next call of the same op or step_add(). 0 or -1.
	 */
	int (*steps)(void *data, const struct bisection_step_rec **out,
		     size_t *n);
	int (*samples)(void *data, const char *commit,
		       const struct run_sample **out, size_t *n);
	/* Append a step (NULL fields: none). 0 or -1. */
	int (*step_add)(void *data, const char *kind, const char *commit,
			const char *host, const char *verdict,
			const char *detail);
	/* The newest run id (0: none); run ids only grow. */
	int64_t (*last_run_id)(void *data);
	/* The parents of a commit in order (malloc'd). 0 or -1. */
	int (*parents)(void *data, const uint8_t *oid,
		       uint8_t (**out)[RB_OID_RAWSZ], size_t *n);
	/* Start one payload run of commit on (idle) host h, building and
	 * booting first when needed. 0, or -1 when the robot failed. */
	int (*start)(void *data, int h, const char *commit);
	/* Wait for one started run to end. 0 or -1. */
	int (*wait)(void *data, struct session_result *res);
	/* Seconds, any origin (progress and the time estimate). */
	double (*now)(void *data);
	/* Pause before retrying after an infrastructure failure. */
	void (*pause)(void *data, double seconds);
	/*
	 * Optional (NULL: none): the commits the session may start next,
	 * the likeliest first (rb_bisect_ahead: the next rounds' picks for
	 * each outcome of this one, the culprit's parents when an outcome
	 * ends the bisection; the anchors while they are measured). Each
	 * list replaces the one before. A hint for building ahead: nothing
	 * the session decides depends on what the ops do with it.
	 */
	void (*ahead)(void *data, const char (*commits)[RB_OID_HEXSZ + 1],
		      size_t n);
};

struct session_config {
	const struct session_ops *ops;
	/* bad --not goods, loaded (rb_repo_load_range): the first good is
	 * the good anchor */
	const struct rb_range *range;
	const char *const *hosts; /* names, index = host id */
	int nr_hosts;
	const char *metric;
	struct stats_policy policy; /* threshold and direction set */
	/* progress: event lines to this stream (NULL: none); a status line
	 * too when tty */
	FILE *progress;
	bool tty;
};

enum session_status {
	SESSION_FOUND,
	SESSION_NOT_REPRODUCED,
	SESSION_ONLY_SKIPPED,
	SESSION_INCONCLUSIVE,
};
const char *session_status_name(enum session_status s);

struct session_outcome_info {
	enum session_status status;
	char culprit[RB_OID_HEXSZ + 1];
	char (*list)[RB_OID_HEXSZ + 1]; /* only-skipped: git's list */
	size_t list_nr;
	char (*parents)[RB_OID_HEXSZ + 1];
	size_t parents_nr;
	int direction;
	double threshold; /* the metric's value the steps were held to */
	/*
	 * 1 - the chance of a wrong culprit the bisection spent: a wrong
	 * step (step alpha each, union bound) that the confirmation repeats
	 * (confirm_alpha): 1 - decided x step_alpha x confirm_alpha, the
	 * three as they were when the culprit was confirmed
	 */
	double confidence;
	unsigned decided; /* steps decided good or bad */
	double step_alpha; /* what each of them may err */
	double confirm_alpha; /* what the confirmation may repeat an error */
	/*
	 * found: the share of the good -> bad change the step first parent
	 * -> culprit accounts for (has_share false when it cannot be told)
	 */
	bool has_share;
	struct stats_share share;
	char message[1024]; /* one paragraph for the user */
};
void session_outcome_release(struct session_outcome_info *o);

/*
 * Run (or resume) the bisection to its end. 0 with *out filled, or -1 when
 * the robot itself failed (its records, infrastructure that never came
 * back): the bisection stays resumable.
 */
int session_run(const struct session_config *cfg,
		struct session_outcome_info *out);

/*
 * Parse --threshold: "VALUE" (the metric's value), "-N%" (a drop of N% from
 * good is a regression: higher is better; 0 < N < 100) or "+N%" (a rise:
 * lower is better; N > 0), as stats_parse_pct reads them; NULL or "" the
 * midpoint of the anchors. Sets the policy's threshold and, for
 * percentages, its direction. 0 or -1.
 */
int session_parse_threshold(struct stats_policy *p, const char *text);

#endif
