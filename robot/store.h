/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_STORE_H
#define ROBOT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "result.h"

/*
 * The store: one SQLite database per workdir (`<workdir>/robot.db`), in WAL
 * mode with foreign keys on. It keeps every build, boot, run and sample the
 * robot produced; later layers add bisection and mail state through
 * migrations (see store.c, `migrations[]`). PRAGMA user_version is the
 * schema version; opening an older database migrates it forward, opening a
 * newer one is refused.
 *
 * Durability rule: a finished run and all its samples are committed in one
 * transaction (store_run_finish) before any caller acts on them, so a crash
 * loses at most the run that was in flight. Such a run stays with status
 * "running" and is marked "interrupted" by the next store_open.
 *
 * Concurrency: one robot process per workdir, enforced with
 * workdir_lock_take(); readers (`robot bisect list`, `robot history`) may
 * open the store while a robot runs (WAL readers do not block the writer).
 *
 * All functions return 0 on success and -1 with rb_error() set on failure.
 */

struct store;

/* Open (creating and migrating) the store of a workdir. */
int store_open(struct store **out, const char *workdir);
/* Open read-only; fails when no store exists. */
int store_open_readonly(struct store **out, const char *workdir);
void store_close(struct store *st);
int store_schema_version(struct store *st);

int store_begin(struct store *st);
int store_commit(struct store *st);
void store_rollback(struct store *st);

/* What identifies where a measurement came from (lkp's result-root axes). */
struct run_key {
	const char *testcase;
	const char *path_params;
	const char *host;
	const char *rootfs;
	const char *kconfig;
	const char *compiler;
	const char *commit; /* 40 hex */
};

enum run_status {
	RUN_RUNNING,
	RUN_OK, /* measured: its samples count */
	RUN_FAILED, /* the payload ran and failed (no usable samples) */
	RUN_INFRA, /* could not run: transport, timeout, signal */
	RUN_INTERRUPTED, /* the robot died while it ran */
};
const char *run_status_name(enum run_status s);

/*
 * Tag the builds, boots and runs this connection records from now on with
 * a bisection (0: none), so that a bisection counts what it executed.
 */
void store_set_bisection(struct store *st, int64_t id);

/* Builds: one row per hook execution. */
struct build_rec {
	int64_t id;
	char *commit;
	char *kconfig;
	char *compiler;
	char *status; /* ok | skip | infra */
	int exit_code;
	double started, finished;
	char *artifact_dir;
	char *log;
};
void build_rec_release(struct build_rec *b);

int store_build_add(struct store *st, const char *commit, const char *kconfig,
		    const char *compiler, const char *status, int exit_code,
		    double started, double finished, const char *artifact_dir,
		    const char *log, int64_t *id);
/* The same for a build ahead of need (ahead) or on a build host (NULL:
 * this machine). */
int store_build_add_at(struct store *st, const char *commit,
		       const char *kconfig, const char *compiler,
		       const char *status, int exit_code, double started,
		       double finished, const char *artifact_dir,
		       const char *log, bool ahead, const char *build_host,
		       int64_t *id);
/* The latest build of commit+kconfig+compiler; 1 found, 0 none, -1 error. */
int store_build_latest(struct store *st, const char *commit,
		       const char *kconfig, const char *compiler,
		       struct build_rec *out);

int store_boot_add(struct store *st, int64_t build_id, const char *host,
		   const char *commit, const char *status, int exit_code,
		   double started, double finished, const char *log,
		   int64_t *id);

/*
 * Runs. store_run_start records a run as "running" (committed at once, so
 * a crash leaves a trace); store_run_finish sets its final status and
 * inserts its samples in one transaction.
 */
int store_run_start(struct store *st, const struct run_key *key, int run_no,
		    int64_t boot_id, const char *result_dir, int64_t *id);
int store_run_finish(struct store *st, int64_t run_id, enum run_status status,
		     const char *message, const struct statset *samples);
/*
 * LAVA jobs (lava-exec.c): one per batch (a boot and its runs) of a slot
 * host. A row is added ("submitting", with the unique job name sent)
 * before the submit, gets the server's id ("submitted") before the robot
 * waits on it, and ends "ok" (its boot row, whose runs take its outputs
 * in order), "skip" (the kernel did not boot), "infra" or "canceled".
 */
struct lava_job_rec {
	int64_t id;
	char *name;
	int64_t lava_id; /* 0: not known yet */
	int runs;
	char *state;
	int64_t boot_id; /* 0: none yet */
	char *message;
};
void lava_job_rec_release(struct lava_job_rec *j);
int store_lava_add(struct store *st, const char *name, const char *host,
		   const char *commit, const char *job_key, int runs,
		   int64_t *id);
int store_lava_submitted(struct store *st, int64_t id, int64_t lava_id);
int store_lava_finish(struct store *st, int64_t id, const char *state,
		      int64_t boot_id, const char *message);
/*
 * A stray: a second LAVA job of batch `of`'s name (a submit whose answer
 * never reached its robot, then another), canceled by the robot. Kept as
 * a row of its own, "canceled", named "<name> (stray job N)", with the
 * batch's host, commit and job, so that the store names every job the
 * server ran. Recording the same stray again changes nothing. 0 or -1.
 */
int store_lava_stray(struct store *st, int64_t of, int64_t lava_id,
		     const char *message);
/*
 * The submit time (seconds since the epoch) of the oldest LAVA job still
 * waited on ("submitting" or "submitted") that was submitted at or after
 * since; 0 when there is none.
 */
int store_lava_oldest_waiting(struct store *st, double since, double *out);
/* Does a row name LAVA job lava_id? 1 yes, 0 no, -1 error. */
int store_lava_known(struct store *st, int64_t lava_id);
/*
 * The newest batch of host, commit and job that is still to wait on or
 * has outputs left: 1 found, 0 none, -1 error.
 */
int store_lava_open(struct store *st, const char *host, const char *commit,
		    const char *job_key, struct lava_job_rec *out);
/* How many of a batch's outputs runs took (finished runs of the boot). */
int store_lava_taken(struct store *st, int64_t boot_id, int *out);
/* The jobs still queued or running (of a bisection; 0: all), malloc'd. */
int store_lava_waiting(struct store *st, int64_t bisection_id,
		       struct lava_job_rec **out, size_t *n);

/*
 * The directory of a run cut off with its host (the connection lost, the
 * fetch failed), left on that host: recorded until it is ended and
 * removed (store_left_behind_gone), by this robot or a later one.
 * Recording one twice changes nothing. store_left_behind() appends a
 * host's, oldest first, to out (a struct svec). 0 or -1.
 */
struct svec;
int store_left_behind_add(struct store *st, const char *host, const char *dir);
int store_left_behind(struct store *st, const char *host, struct svec *out);
int store_left_behind_gone(struct store *st, const char *host, const char *dir);

/* The first free run number (0..) for a key, like lkp's result roots. */
int store_next_run_no(struct store *st, const struct run_key *key, int *out);

/*
 * The values of one stat over the OK runs of a key, in run order. *vals is
 * malloc'd (NULL when n == 0). key->host may be NULL for "any host".
 */
int store_samples(struct store *st, const struct run_key *key, const char *stat,
		  double **vals, size_t *n);

/* Count rows of a table (for tests and summaries). */
int store_count(struct store *st, const char *table, const char *where,
		int64_t *out);

/* The raw handle for modules that add their own tables (bisection, mail). */
struct sqlite3 *store_db(struct store *st);

/* ---- bisections ------------------------------------------------------ */

/*
 * A bisection is identified by its key (what was asked: lab workdir, job,
 * metric, threshold, good and bad commits, options), so that the same
 * command finds it again and resumes it. Its steps are an append-only log
 * of what happened (endpoint measurements, verdicts, skips, confirmation);
 * its runs, builds and boots are the rows tagged with its id.
 */
struct bisection_rec {
	int64_t id;
	char *key, *job, *metric, *good, *bad, *command;
	char *status; /* running, found, not-reproduced, ... */
	char *culprit; /* NULL unless found */
	char *result; /* the result JSON once finished, else NULL */
	double created, finished;
	/* a running one whose robot stopped before its end (0: it did not
	 * say), and why */
	double stopped;
	char *stop_reason;
};
void bisection_rec_release(struct bisection_rec *b);
/*
 * The status a person is shown: the stored one, or for a "running" one
 * "interrupted" when its robot said it stopped or when no robot runs on
 * the workdir now (robot_running: workdir_in_use()), as after a kill -9.
 */
const char *bisection_rec_status(const struct bisection_rec *b,
				 bool robot_running);

/* 1 found, 0 none, -1 error. */
int store_bisection_by_key(struct store *st, const char *key,
			   struct bisection_rec *out);
int store_bisection_get(struct store *st, int64_t id,
			struct bisection_rec *out);
/* range_key (may be NULL): bisections with the same one share their runs
 * (store_bisection_samples) */
int store_bisection_create(struct store *st, const char *key,
			   const char *range_key, const char *job,
			   const char *metric, const char *good,
			   const char *bad, const char *command, int64_t *id);
/* A running bisection's robot stops before its end (a signal, an error);
 * the same command resumes it, which clears the mark. */
int store_bisection_stop(struct store *st, int64_t id, const char *reason);
int store_bisection_resume(struct store *st, int64_t id);
/* Record the final status (and the result JSON, which may be NULL). */
int store_bisection_finish(struct store *st, int64_t id, const char *status,
			   const char *culprit, const char *result);
/* Every bisection, newest first; free with bisection_recs_free. */
int store_bisection_list(struct store *st, struct bisection_rec **out,
			 size_t *n);
void bisection_recs_free(struct bisection_rec *v, size_t n);
/* Forget a bisection and its steps; its runs stay, untagged. */
int store_bisection_delete(struct store *st, int64_t id);

int store_bisection_step_add(struct store *st, int64_t id, const char *kind,
			     const char *commit, const char *host,
			     const char *verdict, const char *detail);
/* The steps in the order they were recorded. */
int store_bisection_steps(struct store *st, int64_t id,
			  struct bisection_step_rec **out, size_t *n);

/*
 * The values of stat over the OK runs of commit within bisection id and
 * the bisections of its range (range_key: a new --metric on a range
 * measured before uses its runs), in run order. Free with
 * run_samples_free.
 */
int store_bisection_samples(struct store *st, int64_t id, const char *commit,
			    const char *stat, struct run_sample **out,
			    size_t *n);
/*
 * Every stat of the OK runs of commit within bisection id, one statset per
 * run in run order, with the runs' ids and result directories (malloc'd;
 * free with run_stats_free). host NULL: any host.
 */
struct run_stats {
	int64_t run_id;
	char *host;
	char *result_dir;
	struct statset stats;
};
int store_bisection_run_stats(struct store *st, int64_t id, const char *commit,
			      const char *host, struct run_stats **out,
			      size_t *n);
void run_stats_free(struct run_stats *v, size_t n);
/* The same for the OK runs of a key, whatever bisection ran them (host
 * NULL: any host). */
int store_key_run_stats(struct store *st, const struct run_key *key,
			struct run_stats **out, size_t *n);
/*
 * The names of the stats the store holds for OK runs of a job (testcase
 * and path_params, any host, kernel or bisection), sorted, at most 10000,
 * appended to out (a struct svec). 0 or -1.
 */
int store_job_stat_names(struct store *st, const char *testcase,
			 const char *path_params, struct svec *out);
/* Runs of a commit within the bisection with a given status. */
int store_bisection_run_count(struct store *st, int64_t id, const char *commit,
			      const char *status, int64_t *out);
/* The newest run id (0 when there is none): run ids only grow. */
int64_t store_last_run_id(struct store *st);
/* What the bisection executed: payload runs, build and boot hooks. */
int store_bisection_counts(struct store *st, int64_t id, int64_t *runs,
			   int64_t *builds, int64_t *boots);
/*
 * Builds ahead of need (ahead = 1: by the look-ahead's builders, the
 * anchors' too, which a box may wait for): how many the bisection made,
 * how many of them no run and no step of it used, and the seconds its boxes waited for
 * kernels (store_bisection_add_wait).
 */
int store_bisection_build_counts(struct store *st, int64_t id, int64_t *ahead,
				 int64_t *unused, double *wait);
int store_bisection_add_wait(struct store *st, int64_t id, double seconds);
/* The commits the bisection ran anything on, in the order of their first
 * run, appended to out (a struct svec). */
int store_bisection_commits(struct store *st, int64_t id, struct svec *out);
/*
 * What a bisection did for one commit: its builds, its boots that ran a
 * hook (and of them those that failed), its runs that gave no result,
 * and the logs of its latest build (of any bisection when this one built
 * none: a kernel it reused) and latest boot (malloc'd, NULL: none).
 */
struct commit_counts {
	int64_t builds, boots, boots_failed, runs_failed;
	char *build_log, *boot_log;
};
int store_bisection_commit_counts(struct store *st, int64_t id,
				  const char *commit,
				  struct commit_counts *out);

#endif
