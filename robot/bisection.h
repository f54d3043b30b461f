/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_BISECTION_H
#define ROBOT_BISECTION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "oid.h"

struct ctx;
struct store;
struct rb_repo;
struct session_outcome_info;

/*
 * What a bisection is about, around the session: its identity in the store,
 * its result JSON (`robot bisect --json`, kept in the store), how the
 * result and the log read for people.
 */
struct bisection_request {
	struct ctx *ctx;
	const char *metric;
	const char *threshold; /* as given, or NULL */
	bool first_parent;
	uint8_t bad[RB_OID_RAWSZ];
	const uint8_t (*goods)[RB_OID_RAWSZ];
	size_t nr_goods;
};

/*
 * The key of a bisection: the same lab workdir, atomic job, metric,
 * threshold, options, bad commit and set of good commits give the same key,
 * so running the same command again resumes it. malloc'd.
 */
char *bisection_key(const struct bisection_request *r);
/*
 * The same without the metric and the threshold: bisections of one range
 * share their runs (a new --metric measures only what the runs so far do
 * not settle). malloc'd.
 */
char *bisection_range_key(const struct bisection_request *r);
/* ["<hex>", ...] of n oids. malloc'd. */
char *bisection_hex_list(const uint8_t (*oids)[RB_OID_RAWSZ], size_t n);

/*
 * The result JSON of a finished session: id, status, culprit, parents,
 * good, bad, metric, direction, threshold, confidence and its
 * confidence_terms (decided_steps, step_alpha, confirm_alpha), runs,
 * builds, boots (what this bisection executed, resumed parts included),
 * wall_seconds,
 * steps (the anchors, then each tested commit: verdict, host, samples),
 * mail (null until a mail is drafted), and message, rounds, culprit_info,
 * only_skipped. malloc'd, or NULL with an error.
 */
char *bisection_result_json(struct ctx *c, int64_t id,
			    const struct bisection_request *r,
			    const struct session_outcome_info *res);
/*
 * The one bisection driver (`robot bisect`, `robot nightly`): find the
 * bisection of the request's key (plus key_extra) in the store, or create
 * it (recording job name, metric, endpoints and command); unless it ended
 * before, run the session on the context's hosts with the real ops to its
 * end and finish it in the store with its result JSON.
 */
struct bisection_run {
	/* in */
	const struct bisection_request *req;
	const char *key_extra; /* appended to the key, or NULL */
	const char *command; /* recorded with a new bisection */
	int direction; /* +1 higher is better, -1 lower, 0 from the data */
	FILE *progress; /* the session's events, or NULL */
	bool tty;
	/* called once the bisection is known, before it runs (or NULL);
	 * -1 stops */
	int (*opened)(void *arg, int64_t id, bool resumed);
	void *arg;
	/* out */
	int64_t id;
	bool ended_before; /* found finished: nothing ran */
	char *status; /* session_status_name() or the stored status */
	char culprit[RB_OID_HEXSZ + 1]; /* empty unless found */
	char *json; /* the result JSON (NULL when none was stored) */
	char message[1024]; /* the session's paragraph (when it ran) */
};
/* 0 with the outputs set, or -1 (the bisection stays resumable). */
int bisection_run(struct bisection_run *r);
void bisection_run_release(struct bisection_run *r);

/* Set "mail" in a result JSON; returns the new text (malloc'd) or NULL. */
char *bisection_set_mail(const char *json, const char *mail_path);

/* The result as git prints it ("<sha> is the first bad commit", ...). */
void bisection_print_result(FILE *f, const char *json);
/* 0 found, 2 not-reproduced, only-skipped, inconclusive, 1 otherwise. */
int bisection_exit_code(const char *status);

/*
 * A git-bisect-log-like history of bisection id with the numbers of each
 * step. repo may be NULL (no subjects then). 0 or -1.
 */
int bisection_print_log(FILE *f, struct store *st, struct rb_repo *repo,
			int64_t id);

#endif
