// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stress-ng command line the robot runs, checked against the --help of
 * stress-ng 0.15.06 captured on this machine.
 */
#include <criterion/criterion.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "runner.h"
#include "sbuf.h"
#include "svec.h"

static char *help;

static void setup(void)
{
	cr_assert_eq(rb_read_file("tests/data/stress-ng/0.15.06/help.txt",
				  &help, NULL),
		     0);
}

static void teardown(void)
{
	free(help);
}

TestSuite(runner, .init = setup, .fini = teardown);

/* The argv of the one atomic job of text, resolved on 4 CPUs. */
static char *argv_of(const char *text, const struct lab_host *h, int *rc)
{
	struct job_list l = JOB_LIST_INIT;
	struct svec argv = SVEC_INIT;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	cr_assert_eq(job_load_string(&l, "t.yaml", text, strlen(text)), 0, "%s",
		     rb_errmsg());
	cr_assert_eq(l.nr, 1);
	cr_assert_eq(job_resolve(l.v[0], 4), 0);
	*rc = runner_payload_argv(l.v[0], h, help, &argv);
	for (i = 0; i < argv.nr; i++)
		sbuf_addf(&sb, "%s%s", i ? " " : "", argv.v[i]);
	svec_clear(&argv);
	job_list_release(&l);
	return sbuf_detach(&sb);
}

Test(runner, lkp_command_line)
{
	static const struct {
		const char *job, *argv;
	} cases[] = {
		{ "testcase: stress-ng\nnr_threads: 100%\ntesttime: 60s\n"
		  "stress-ng:\n  test: mmapaddr\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --pathological --mmapaddr 4" },
		/* an "all" method is asked for, as lkp does */
		{ "testcase: stress-ng\nnr_threads: 50%\ntesttime: 5\n"
		  "stress-ng:\n  test: vm\n",
		  "stress-ng --timeout 5 --times --verify --metrics "
		  "--no-rand-seed --vm-method all --pathological --vm 2" },
		/* a declared method, and a pass-through stressor option */
		{ "testcase: stress-ng\nnr_threads: 1\ntesttime: 3s\n"
		  "stress-ng:\n  test: vm\n  method: flip\n"
		  "  mmap-bytes: 1M\n",
		  "stress-ng --timeout 3 --times --verify --metrics "
		  "--no-rand-seed --vm-method flip --pathological --vm 1 "
		  "--mmap-bytes 1M" },
		{ "testcase: stress-ng\nnr_threads: 2\ntesttime: 30s\n"
		  "stress-ng:\n  class: memory\n",
		  "stress-ng --timeout 30 --times --verify --metrics "
		  "--no-rand-seed --class memory --sequential 2" },
	};
	struct lab_host h = { .name = (char *)"box1" };
	size_t i;
	int rc;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char *got = argv_of(cases[i].job, &h, &rc);

		cr_expect_eq(rc, 0, "case %zu: %s", i, rb_errmsg());
		cr_expect_str_eq(got, cases[i].argv, "case %zu", i);
		free(got);
	}
}

Test(runner, host_binary_and_unknown_names)
{
	struct lab_host h = { .name = (char *)"box1",
			      .stress_ng = (char *)"/opt/sng/bin/stress-ng" };
	char *got;
	int rc;

	got = argv_of("testcase: stress-ng\nnr_threads: 1\ntesttime: 1\n"
		      "stress-ng:\n  test: mmap\n",
		      &h, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(rb_starts_with(got, "/opt/sng/bin/stress-ng --timeout 1 "));
	free(got);
	/* 0.15.06 has no mmaprandom: refused before anything runs */
	got = argv_of("testcase: stress-ng\nstress-ng:\n  test: mmaprandom\n",
		      &h, &rc);
	cr_assert_eq(rc, -1);
	cr_assert_str_eq(rb_errmsg(), "stress-ng on 'box1' does not know the "
				      "test 'mmaprandom'");
	free(got);
	got = argv_of("testcase: stress-ng\nstress-ng:\n  test: mmap\n"
		      "  mmap-frobs: 3\n",
		      &h, &rc);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(rb_errmsg(), "does not know the option "
				      "'--mmap-frobs'") != NULL,
		  "%s", rb_errmsg());
	free(got);
}

Test(runner, headline_stat)
{
	struct job_list l = JOB_LIST_INIT;
	const char *t = "testcase: stress-ng\nstress-ng:\n  test: bigheap\n";
	char *s;

	cr_assert_eq(job_load_string(&l, "t.yaml", t, strlen(t)), 0);
	s = runner_headline_stat(l.v[0]);
	cr_assert_str_eq(s, "stress-ng.bigheap.ops_per_sec");
	free(s);
	job_list_release(&l);
}
