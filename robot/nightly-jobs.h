/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_NIGHTLY_JOBS_H
#define ROBOT_NIGHTLY_JOBS_H

struct job;
struct lab;
struct lab_nightly_job;

/*
 * The atomic jobs of the lab's nightly.jobs, as a nightly cycle takes
 * them and as `robot lab check` checks them: one reading, so the two
 * cannot disagree. Each entry is a glob (a plain file is a glob that
 * matches itself): its matches in glob(3)'s sorted order, each file's
 * atomic jobs in file order, those every k=v of the entry's params
 * matches.
 *
 * each(arg, entry, file, job) is called for every such job (the job
 * belongs to the caller only for the call); a nonzero return stops the
 * walk and is returned. bad(arg, msg) is called once for every entry or
 * file that gives no job, with one line:
 *
 *   LAB:LINE:COL: no job file matches 'GLOB'   (a missing folder too)
 *   LAB:LINE:COL: cannot read 'FOLDER': REASON
 *   JOB:LINE:COL: ...     (the job file's own error, job_load_file)
 *   LAB:LINE:COL: no atomic job of 'FILE' matches 'k=v ...'
 *   LAB:LINE:COL: the direction of 'METRIC' is unknown: ... (a job's
 *                 metric without a direction, its threshold without a
 *                 sign: that job is not given)
 *
 * and the walk goes on with the next. Returns 0, or each's nonzero return.
 */
typedef int (*nightly_job_fn)(void *arg, const struct lab_nightly_job *ent,
			      const char *file, const struct job *job);
typedef void (*nightly_bad_fn)(void *arg, const char *msg);

int nightly_jobs_each(const struct lab *lab, nightly_job_fn each,
		      nightly_bad_fn bad, void *arg);

/* The metric a nightly job is judged on (malloc'd): the entry's, the
 * section's, or the job's headline stat. */
char *nightly_job_metric(const struct lab *lab,
			 const struct lab_nightly_job *ent,
			 const struct job *job);
/* The threshold's percentage and the metric's direction (+1 higher is
 * better); -1 with one line when the direction is unknown. */
int nightly_job_direction(const char *metric, const char *threshold,
			  double *pct, int *direction);

#endif
