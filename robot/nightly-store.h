/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_NIGHTLY_STORE_H
#define ROBOT_NIGHTLY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct history;
struct svec;

/*
 * The nightly loop's tables in the store (migration 3, store.c):
 *
 *   nightly_cycles   one per head tested: tree, branch, url, the head, the
 *                    previous tested head, running|done, the summary
 *   nightly_jobs     the atomic jobs of a cycle and where each stands
 *                    (state measure -> act -> still -> done), the
 *                    baseline chosen, the verdict and detection, the
 *                    bisection and the mail; the cycle's state, so that a
 *                    robot killed at any point continues where it stopped
 *   nightly_history  per job, commit, host and stat: the summary of the
 *                    runs (the history `robot history` draws)
 *   nightly_reports  culprits reported by the nightly (job, metric,
 *                    culprit unique), open until a head no longer shows
 *                    them
 *   nightly_still    the later heads at which a reported culprit still
 *                    showed ([still regression on ...])
 *
 * Every function returns 0 (or 1/0 for "found") and -1 with rb_error().
 */

struct nightly_cycle_rec {
	int64_t id;
	char *tree, *branch, *url, *head, *previous, *status, *summary;
	double started, finished;
};
void nightly_cycle_rec_release(struct nightly_cycle_rec *c);

/* The unfinished cycle of tree/branch; 1, 0 none, -1. */
int nstore_cycle_running(struct store *st, const char *tree, const char *branch,
			 struct nightly_cycle_rec *out);
/* The last finished cycle of tree/branch; 1, 0 none, -1. */
int nstore_cycle_last_done(struct store *st, const char *tree,
			   const char *branch, struct nightly_cycle_rec *out);
int nstore_cycle_create(struct store *st, const char *tree, const char *branch,
			const char *url, const char *head, const char *previous,
			int64_t *id);
int nstore_cycle_finish(struct store *st, int64_t id, const char *summary);

struct nightly_job_rec {
	int64_t id, cycle_id;
	int seq;
	/* fixed when the cycle starts */
	char *job, *job_file, *params, *metric, *threshold, *host, *hosts;
	char *head;
	/* filled as the job goes */
	char *baseline, *baseline_name; /* NULL: not chosen; "": none */
	char *state, *verdict, *detection, *outcome, *mail, *message;
	int64_t bisection_id; /* 0: none */
};
void nightly_job_rec_release(struct nightly_job_rec *j);
void nightly_job_recs_free(struct nightly_job_rec *v, size_t n);

int nstore_job_add(struct store *st, const struct nightly_job_rec *j,
		   int64_t *id);
/* The jobs of a cycle, in seq order. */
int nstore_jobs(struct store *st, int64_t cycle_id,
		struct nightly_job_rec **out, size_t *n);
/* Write the mutable fields (baseline.. bisection_id) of j. */
int nstore_job_update(struct store *st, const struct nightly_job_rec *j);
/* Set a string field: j->field (freed) = a copy of v (NULL allowed). */
void nightly_job_set(char **field, const char *v);

/*
 * One summary row of the history: a commit measured again (more runs)
 * gets its numbers updated, and keeps the cycle that first recorded it.
 */
struct nightly_summary {
	const char *stat;
	size_t n;
	double mean, stddev, min, max;
};
int nstore_history_put(struct store *st, const char *job, const char *commit,
		       const char *host, int64_t cycle_id,
		       const struct nightly_summary *s);
/*
 * The summary of every stat over the OK runs of a key (host included), by
 * stat name. Free with nightly_summaries_free (stat names are owned).
 */
struct run_key;
int nstore_key_summaries(struct store *st, const struct run_key *k,
			 struct nightly_summary **out, size_t *n);
void nightly_summaries_free(struct nightly_summary *v, size_t n);
/* The values of stat over the OK runs of a key started at or after
 * `since` (epoch seconds), in run order; *v malloc'd. */
int nstore_key_values_since(struct store *st, const struct run_key *k,
			    const char *stat, double since, double **v,
			    size_t *n);
/* Whether a commit has history rows for a job on a host: 1, 0, -1. */
int nstore_history_has(struct store *st, const char *job, const char *commit,
		       const char *host);
/*
 * The series of stat for job: every tested head in test order (points
 * appended to h, h->job and h->stat set). stat NULL: the metric the
 * nightly judged the job by last. 0 (even when empty) or -1.
 */
int nstore_history_series(struct store *st, const char *job, const char *stat,
			  struct history *h);
/* The same with the job of id with_job included whatever its state (the
 * job a cycle is finishing; 0: none). */
int nstore_history_series_with(struct store *st, const char *job,
			       const char *stat, int64_t with_job,
			       struct history *h);

/*
 * A change point of the history no cycle's own test called, bisected
 * between two heads (nightly_changes): job, metric, host, the first head
 * of the new level (at), the bisection's endpoints, its kind, size and
 * p-value, the bisection (0: not yet), the cycle that found it; found:
 * the bisection found a culprit (read only).
 */
struct nightly_change_rec {
	int64_t id, bisection_id, cycle_id, found;
	char *job, *metric, *host, *at, *good, *bad, *kind;
	double change_pct, p;
};
/* Record one (an existing one of the same endpoints stays); *id. */
int nstore_change_add(struct store *st, const struct nightly_change_rec *c,
		      int64_t *id);
int nstore_change_set_bisection(struct store *st, int64_t id,
				int64_t bisection_id);
/* The change points of a job and metric, oldest first. */
int nstore_changes(struct store *st, const char *job, const char *metric,
		   struct nightly_change_rec **out, size_t *n);
void nightly_change_recs_free(struct nightly_change_rec *v, size_t n);

/* The jobs with a history, for messages. */
int nstore_history_jobs(struct store *st, char ***names, size_t *n);
/*
 * The stats the history of job holds (the nightly's summaries of every
 * stat of its heads, and the metrics it judged the job by), sorted, pushed
 * to out; none when the nightly never ran the job. 0 or -1.
 */
int nstore_history_stats(struct store *st, const char *job, struct svec *out);

struct nightly_report_rec {
	int64_t id, bisection_id, cycle_id;
	char *job, *metric, *kind, *culprit, *head, *mail, *status, *gone_at;
	double created;
};
void nightly_report_rec_release(struct nightly_report_rec *r);
void nightly_report_recs_free(struct nightly_report_rec *v, size_t n);

/*
 * Record a reported culprit (job, metric, culprit unique: an existing one
 * keeps its row, and gets the mail id when it had none). *id its id.
 */
int nstore_report_add(struct store *st, const struct nightly_report_rec *r,
		      int64_t *id);
/* The open reports of a job and metric, newest first. kind NULL: any. */
int nstore_reports_open(struct store *st, const char *job, const char *metric,
			const char *kind, struct nightly_report_rec **out,
			size_t *n);
/* The report about a bisection; 1, 0 none, -1. */
int nstore_report_of_bisection(struct store *st, int64_t bisection_id,
			       struct nightly_report_rec *out);
/* A head no longer shows it. */
int nstore_report_gone(struct store *st, int64_t id, const char *head);

/* A later head at which the culprit still shows: 1 new, 0 known, -1. */
int nstore_still_add(struct store *st, int64_t report_id, const char *tree,
		     const char *branch, const char *head, int64_t cycle_id,
		     double change_pct);
struct nightly_still_rec {
	char *tree, *branch, *head, *mail;
	double change_pct, time;
};
/* The heads at which a report still showed, oldest first. */
int nstore_still_list(struct store *st, int64_t report_id,
		      struct nightly_still_rec **out, size_t *n);
void nightly_still_recs_free(struct nightly_still_rec *v, size_t n);
/* The follow-up mails drafted in a cycle (outbox ids pushed to ids). */
int nstore_still_mails(struct store *st, int64_t cycle_id, struct svec *ids);
/* The follow-up mail sent about a still entry. */
int nstore_still_set_mail(struct store *st, int64_t report_id, const char *head,
			  const char *mail);

#endif
