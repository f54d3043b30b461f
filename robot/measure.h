/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_MEASURE_H
#define ROBOT_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "oid.h"
#include "result.h"

struct runner;
struct lab_host;
struct sbuf;

/*
 * The one measure path: one payload run of a commit on a host, as robot
 * run, the nightly and the bisection workers do it:
 *
 *   build   runner_build (the artifact is reused when complete; the last
 *           two commits built are not even checked again, unless there
 *           is a cache limit; nothing when the host runs the commit
 *           already). With a cache limit the artifact is held
 *           (runner_artifact_hold) until the boot is over
 *   boot    runner_boot, only when the host runs another commit (or a run
 *           failed for the infrastructure: the box may be gone)
 *   run     runner_run with the monitors, stored with its samples
 *
 * measure_once is one attempt; measure_retry applies the infrastructure
 * policy of infra.h (the bisection's session applies it itself, per host,
 * around measure_once). One struct measure per host and thread.
 */
struct measure {
	struct runner *r;
	const struct lab_host *host;
	char booted[RB_OID_HEXSZ + 1]; /* the commit the host runs, or "" */
	int64_t boot_id;
	char built[2][RB_OID_HEXSZ + 1];
	/* measure_retry: each infrastructure failure, one line (NULL: a
	 * warning on stderr) */
	void (*note)(void *arg, const char *line);
	void *arg;
	/* a LAVA slot's client (lava-exec.c), made at its first batch */
	struct lava_slot *lava;
};

enum measure_outcome {
	MEASURE_OK, /* the run and its samples are stored */
	MEASURE_SKIP, /* build or boot hook exit 125: cannot be tested */
	MEASURE_FAILED, /* the payload ran and failed on this kernel */
	MEASURE_INFRA, /* could not tell (measure_once only) */
};

enum measure_stage { MEASURE_BUILD, MEASURE_BOOT, MEASURE_RUN };

struct measure_result {
	enum measure_outcome outcome;
	enum measure_stage stage; /* where it ended */
	int64_t run_id; /* MEASURE_OK: the stored run */
	double build_wait; /* seconds in the build stage (a build, or
			    * waiting for another thread's) */
};

void measure_init(struct measure *m, struct runner *r,
		  const struct lab_host *host);
void measure_release(struct measure *m);

/*
 * One attempt. stats (may be NULL) gets the run's stats, why the reason
 * for anything but OK. -1 only when the robot itself failed.
 */
int measure_once(struct measure *m, const char *commit,
		 struct measure_result *res, struct statset *stats,
		 struct sbuf *why);

/*
 * Attempts until one is not an infrastructure failure, pausing between
 * them; -1 with "giving up ..." after INFRA_MAX_FAILURES in a row (or when
 * the robot failed).
 */
int measure_retry(struct measure *m, const char *commit,
		  struct measure_result *res, struct statset *stats,
		  struct sbuf *why);

#endif
