// SPDX-License-Identifier: GPL-2.0-only
/*
 * nightly.jobs into atomic jobs (see nightly-jobs.h).
 */
#include <glob.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "nightly-jobs.h"
#include "runner.h"
#include "sbuf.h"
#include "stats.h"

static bool filters_match(const struct job *job, const struct svec *params)
{
	size_t i;

	for (i = 0; i < params->nr; i++) {
		const char *eq = strchr(params->v[i], '=');
		char *k = xstrndup(params->v[i], (size_t)(eq - params->v[i]));
		bool ok = job_matches(job, k, eq + 1);

		free(k);
		if (!ok)
			return false;
	}
	return true;
}

static void bad_at(const struct lab *lab, const struct lab_nightly_job *ent,
		   nightly_bad_fn bad, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void bad_at(const struct lab *lab, const struct lab_nightly_job *ent,
		   nightly_bad_fn bad, void *arg, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	sbuf_addf(&sb, "%s:%d:%d: ", lab->file, ent->line, ent->col);
	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	bad(arg, sb.buf);
	sbuf_release(&sb);
}

int nightly_job_direction(const char *metric, const char *threshold,
			  double *pct, int *direction)
{
	int sign;

	if (stats_parse_pct(threshold, pct, &sign) < 0)
		return -1;
	/* "-5%": a drop is bad, so higher is better */
	*direction = sign ? -sign : stats_direction(metric);
	if (!*direction)
		return rb_error("the direction of '%s' is unknown: give its "
				"threshold a sign (-5%%: a drop is the "
				"regression, +5%%: a rise is)",
				metric);
	return 0;
}

char *nightly_job_metric(const struct lab *lab,
			 const struct lab_nightly_job *ent,
			 const struct job *job)
{
	return ent->metric	   ? xstrdup(ent->metric) :
	       lab->nightly.metric ? xstrdup(lab->nightly.metric) :
				     runner_headline_stat(job);
}

/* Whether the job's metric has a direction the threshold can use. */
static bool direction_known(const struct lab *lab,
			    const struct lab_nightly_job *ent,
			    const struct job *job)
{
	char *metric = nightly_job_metric(lab, ent, job);
	double pct;
	int dir;
	bool ok = !nightly_job_direction(
		metric,
		ent->threshold ? ent->threshold : lab->nightly.threshold, &pct,
		&dir);

	free(metric);
	return ok;
}

/* One file of an entry: its atomic jobs that the entry's params match. */
static int each_of_file(const struct lab *lab,
			const struct lab_nightly_job *ent, const char *file,
			nightly_job_fn each, nightly_bad_fn bad, void *arg)
{
	struct job_list jl = JOB_LIST_INIT;
	unsigned matched = 0;
	size_t a;
	int r = 0;

	if (job_load_file(&jl, file) < 0) {
		/* bad may store an error of its own */
		char *msg = xstrdup(rb_errmsg());

		bad(arg, msg);
		free(msg);
		return 0;
	}
	for (a = 0; a < jl.nr && !r; a++) {
		if (!filters_match(jl.v[a], &ent->params))
			continue;
		matched++;
		if (!direction_known(lab, ent, jl.v[a])) {
			char *msg = xstrdup(rb_errmsg());

			bad_at(lab, ent, bad, arg, "%s", msg);
			free(msg);
			continue;
		}
		r = each(arg, ent, file, jl.v[a]);
	}
	if (!r && !matched) {
		struct sbuf params = SBUF_INIT;

		for (a = 0; a < ent->params.nr; a++)
			sbuf_addf(&params, "%s%s", a ? " " : "",
				  ent->params.v[a]);
		bad_at(lab, ent, bad, arg, "no atomic job of '%s' matches '%s'",
		       file, params.buf);
		sbuf_release(&params);
	}
	job_list_release(&jl);
	return r;
}

/*
 * glob(3)'s error callback takes no argument of ours: the folder it could
 * not read, and why. A folder of the pattern that does not exist is no
 * error: nothing matches there.
 */
static char *glob_failed;
static int glob_errno;

static int glob_error(const char *path, int err)
{
	if (err == ENOENT || err == ENOTDIR)
		return 0;
	if (!glob_failed) {
		glob_failed = xstrdup(path);
		glob_errno = err;
	}
	return 1;
}

int nightly_jobs_each(const struct lab *lab, nightly_job_fn each,
		      nightly_bad_fn bad, void *arg)
{
	const struct lab_nightly *cfg = &lab->nightly;
	size_t e, f;
	int r = 0;

	for (e = 0; e < cfg->nr_jobs && !r; e++) {
		const struct lab_nightly_job *ent = &cfg->jobs[e];
		glob_t g;
		int gr = glob(ent->job, 0, glob_error, &g);

		if (gr == GLOB_NOMATCH) {
			bad_at(lab, ent, bad, arg, "no job file matches '%s'",
			       ent->job);
		} else if (gr) {
			bad_at(lab, ent, bad, arg, "cannot read '%s': %s",
			       glob_failed ? glob_failed : ent->job,
			       glob_failed ? strerror(glob_errno) :
					     "glob failed");
		}
		free(glob_failed);
		glob_failed = NULL;
		if (gr) {
			globfree(&g);
			continue;
		}
		for (f = 0; f < g.gl_pathc && !r; f++)
			r = each_of_file(lab, ent, g.gl_pathv[f], each, bad,
					 arg);
		globfree(&g);
	}
	return r;
}
