// SPDX-License-Identifier: GPL-2.0-only
/*
 * nightly.jobs into atomic jobs (nightly-jobs.c): what a nightly cycle
 * measures and what robot lab check refuses, from one reading.
 */
#include <criterion/criterion.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "nightly-jobs.h"
#include "sbuf.h"
#include "svec.h"

static char tmp[64];

static void put(const char *name, const char *text)
{
	char *p = xstrfmt("%s/%s", tmp, name);

	cr_assert_eq(rb_write_file_atomic(p, text, strlen(text)), 0, "%s",
		     rb_errmsg());
	free(p);
}

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/robot-nightly-jobs.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
	put("a.yaml", "suite: stress-ng\ntestcase: stress-ng\n"
		      "nr_threads: [1, 2]\ntesttime: 1s\n"
		      "stress-ng:\n  test: mmap\n");
	put("b.yaml", "suite: stress-ng\ntestcase: stress-ng\n"
		      "nr_threads: 1\ntesttime: 1s\n"
		      "stress-ng:\n  test: mmapaddr\n");
	put("bad.yaml", "suite: [stress-ng\n");
}

static void teardown(void)
{
	rb_remove_tree(tmp);
}

TestSuite(nightly_jobs, .init = setup, .fini = teardown);

struct seen {
	struct svec jobs; /* "LINE FILE NR_THREADS" */
	struct svec bad;
	size_t stop_at; /* return 7 from this call on (0: never) */
};

static int each(void *arg, const struct lab_nightly_job *ent, const char *file,
		const struct job *job)
{
	struct seen *s = arg;

	cr_assert(rb_starts_with(file, tmp));
	svec_pushf(&s->jobs, "%d %s %s", ent->line, file + strlen(tmp) + 1,
		   job_nr_threads_text(job));
	return s->stop_at && s->jobs.nr >= s->stop_at ? 7 : 0;
}

static void bad(void *arg, const char *msg)
{
	svec_push(&((struct seen *)arg)->bad, msg);
}

static const char lab_text[] = "nightly:\n"
			       "  jobs:\n"
			       "    - a.yaml\n"
			       "    - '*.nomatch'\n"
			       "    - job: a.yaml\n"
			       "      params: [nr_threads=2]\n"
			       "    - job: b.yaml\n"
			       "      params: [nr_threads=8]\n"
			       "    - bad.yaml\n"
			       "    - '[ab].yaml'\n"
			       "    - nosuch/*.yaml\n";

Test(nightly_jobs, files_globs_params_and_the_bad_ones)
{
	static const char *const want[] = {
		"3 a.yaml 1",  "3 a.yaml 2",  "5 a.yaml 2",
		"10 a.yaml 1", "10 a.yaml 2", "10 b.yaml 1",
	};
	struct seen s = { .jobs = SVEC_INIT, .bad = SVEC_INIT };
	struct lab lab;
	char *msg;
	size_t i;

	cr_assert_eq(lab_load_string(&lab, "lab.yaml", tmp, lab_text,
				     strlen(lab_text)),
		     0, "%s", rb_errmsg());
	cr_assert_eq(nightly_jobs_each(&lab, each, bad, &s), 0);
	cr_assert_eq(s.jobs.nr, RB_ARRAY_SIZE(want));
	for (i = 0; i < s.jobs.nr; i++)
		cr_expect_str_eq(s.jobs.v[i], want[i]);
	cr_assert_eq(s.bad.nr, 4);
	msg = xstrfmt("lab.yaml:4:7: no job file matches '%s/*.nomatch'", tmp);
	cr_expect_str_eq(s.bad.v[0], msg);
	free(msg);
	msg = xstrfmt("lab.yaml:7:7: no atomic job of '%s/b.yaml' matches "
		      "'nr_threads=8'",
		      tmp);
	cr_expect_str_eq(s.bad.v[1], msg);
	free(msg);
	/* the job file's own error, one line */
	msg = xstrfmt("%s/bad.yaml:", tmp);
	cr_expect(rb_starts_with(s.bad.v[2], msg), "%s", s.bad.v[2]);
	cr_expect_null(strchr(s.bad.v[2], '\n'), "%s", s.bad.v[2]);
	free(msg);
	/* a folder that is not there: nothing matches in it */
	msg = xstrfmt("lab.yaml:11:7: no job file matches '%s/nosuch/*.yaml'",
		      tmp);
	cr_expect_str_eq(s.bad.v[3], msg);
	free(msg);
	svec_clear(&s.jobs);
	svec_clear(&s.bad);
	lab_release(&lab);
}

/* a caller's failure (the store's) ends the walk with its return */
Test(nightly_jobs, each_stops_the_walk)
{
	struct seen s = { .jobs = SVEC_INIT, .bad = SVEC_INIT, .stop_at = 2 };
	struct lab lab;

	cr_assert_eq(lab_load_string(&lab, "lab.yaml", tmp, lab_text,
				     strlen(lab_text)),
		     0, "%s", rb_errmsg());
	cr_expect_eq(nightly_jobs_each(&lab, each, bad, &s), 7);
	cr_expect_eq(s.jobs.nr, 2);
	cr_expect_eq(s.bad.nr, 0);
	svec_clear(&s.jobs);
	svec_clear(&s.bad);
	lab_release(&lab);
}
