// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress-ng parsing over output captured from stress-ng 0.15.06 on this
 * machine kind (tests/data/stress-ng/0.15.06) and the older info: format.
 */
#include <criterion/criterion.h>

#include "robot.h"
#include "job.h"
#include "payload.h"
#include "svec.h"

#define DATA "tests/data/stress-ng/"

static char *slurp(const char *path, size_t *len)
{
	char *buf;
	size_t n;

	cr_assert_eq(rb_read_file(path, &buf, &n), 0, "%s", rb_errmsg());
	if (len)
		*len = n;
	return buf;
}

static void expect(const struct statset *s, const char *name, double v)
{
	const double *got = statset_get(s, name);

	cr_assert_not_null(got, "missing stat %s", name);
	cr_expect_float_eq(*got, v, 1e-6 * (v < 0 ? -v : v) + 1e-9,
			   "%s: %f != %f", name, *got, v);
}

Test(payload_stressng, yaml_main_metrics_and_extra)
{
	struct statset s = STATSET_INIT;
	size_t len;
	char *buf = slurp(DATA "0.15.06/bigheap.yaml", &len);

	cr_assert_eq(stressng_parse_yaml(buf, len, &s, NULL), 1, "%s",
		     rb_errmsg());
	expect(&s, "bigheap.ops", 31318);
	expect(&s, "bigheap.ops_per_sec", 15236.235994);
	expect(&s, "bigheap.pass", 1);
	expect(&s, "bigheap.realloc_calls_per_sec", 456654.387578);
	expect(&s, "bigheap.usr_sys_ops_per_sec", 7634.754589);
	cr_assert_null(statset_get(&s, "bigheap.max_rss"));
	statset_release(&s);
	free(buf);
}

Test(payload_stressng, yaml_without_extra_metrics)
{
	static const struct {
		const char *file, *stressor;
		double ops;
	} cases[] = {
		{ DATA "0.15.06/mmapaddr.yaml", "mmapaddr", 0 },
		{ DATA "0.15.06/mmap.yaml", "mmap", 0 },
		{ DATA "0.15.06/mlockmany.yaml", "mlockmany", 0 },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct statset s = STATSET_INIT;
		size_t len;
		char *buf = slurp(cases[i].file, &len);
		char *ops = xstrfmt("%s.ops", cases[i].stressor);
		char *rate = xstrfmt("%s.ops_per_sec", cases[i].stressor);

		cr_assert_eq(stressng_parse_yaml(buf, len, &s, NULL), 1, "%s",
			     cases[i].file);
		cr_assert_not_null(statset_get(&s, ops), "%s", cases[i].file);
		cr_assert_gt(*statset_get(&s, rate), 0);
		cr_assert_eq(s.nr, 4, "%s has %zu stats", cases[i].file, s.nr);
		free(ops);
		free(rate);
		free(buf);
		statset_release(&s);
	}
}

Test(payload_stressng, text_metrc_rows_match_yaml_rows)
{
	struct statset s = STATSET_INIT;
	char *buf = slurp(DATA "0.15.06/bigheap.stderr", NULL);

	cr_assert_eq(stressng_parse_text(buf, &s, NULL), 1);
	expect(&s, "bigheap.ops", 31318);
	expect(&s, "bigheap.ops_per_sec", 15236.24);
	/* the text form prints the geometric mean of the instances */
	expect(&s, "bigheap.realloc_calls_per_sec", 453816.83);
	statset_release(&s);
	free(buf);
}

Test(payload_stressng, text_older_info_format)
{
	struct statset s = STATSET_INIT;
	char *buf = slurp(DATA "older/udp-flood.stderr", NULL);

	cr_assert_eq(stressng_parse_text(buf, &s, NULL), 1);
	expect(&s, "udp-flood.ops", 9904436);
	expect(&s, "udp-flood.ops_per_sec", 141291.91);
	expect(&s, "udp-flood.usr_sys_ops_per_sec", 1132.29);
	expect(&s, "udp-flood.MB_per_sec_sendto_rate", 0.04);
	expect(&s, "udp-flood.sendto_calls_per_sec", 1097.62);
	expect(&s, "udp-flood.%_sendto_calls_succeeded", 100);
	statset_release(&s);
	free(buf);
}

Test(payload_stressng, text_zero_ops_is_a_fail)
{
	struct statset s = STATSET_INIT;
	const char *log =
		"stress-ng: metrc: [1] stressor       bogo ops real time  usr "
		"time  sys time   bogo ops/s     bogo ops/s CPU used per       "
		"RSS Max\n"
		"stress-ng: metrc: [1]                           (secs)    "
		"(secs)    (secs)   (real time) (usr+sys time) instance (%)    "
		"      (KB)\n"
		"stress-ng: metrc: [1] mmap 0 5.00 0.00 0.00 0.00 0.00 0.00 "
		"100\n"
		"stress-ng: metrc: [1] mmap 0.00 foo calls per sec (geometric "
		"mean of 1 instances)\n";

	cr_assert_eq(stressng_parse_text(log, &s, NULL), 1);
	expect(&s, "mmap.fail", 1);
	expect(&s, "mmap.foo_calls_per_sec.fail", 1);
	cr_assert_null(statset_get(&s, "mmap.ops_per_sec"));
	statset_release(&s);
}

Test(payload_stressng, text_without_table_finds_nothing)
{
	struct statset s = STATSET_INIT;
	char *buf = slurp(DATA "0.15.06/unknown-test.stderr", NULL);

	cr_assert_eq(stressng_parse_text(buf, &s, NULL), 0);
	cr_assert_eq(s.nr, 0);
	free(buf);
}

Test(payload_stressng, time_v_gnu_and_busybox)
{
	struct statset s = STATSET_INIT;
	char *buf = slurp(DATA "0.15.06/mmap.stderr", NULL);

	cr_assert_geq(time_v_parse(buf, &s, NULL), 10);
	expect(&s, "time.elapsed_time", 2.02);
	expect(&s, "time.user_time", 0.59);
	expect(&s, "time.system_time", 1.31);
	expect(&s, "time.percent_of_cpu_this_job_got", 94);
	expect(&s, "time.minor_page_faults", 338672);
	expect(&s, "time.voluntary_context_switches", 13);
	expect(&s, "time.involuntary_context_switches", 553);
	statset_release(&s);
	free(buf);
	buf = xstrdup("\tElapsed (wall clock) time (h:mm:ss or m:ss): 1m "
		      "2.50s\n\tMinor (reclaiming a frame) page faults: 38\n");
	cr_assert_eq(time_v_parse(buf, &s, NULL), 2);
	expect(&s, "time.elapsed_time", 62.5);
	free(buf);
	statset_release(&s);
	buf = xstrdup("\tElapsed (wall clock) time (h:mm:ss or m:ss): "
		      "1:00:01.5\n");
	cr_assert_eq(time_v_parse(buf, &s, NULL), 1);
	expect(&s, "time.elapsed_time", 3601.5);
	free(buf);
	statset_release(&s);
}

Test(payload_stressng, normalize_like_lkp)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "realloc calls per sec ", "realloc_calls_per_sec" },
		{ " MB per sec sendto rate", "MB_per_sec_sendto_rate" },
		{ "% sendto calls succeeded", "%_sendto_calls_succeeded" },
		{ "nanosecs per page (x86)", "nanosecs_per_page_x86" },
		{ "a,  \"b\":c__d", "a_b_c_d" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char *n = stressng_normalize(cases[i].in);

		cr_expect_str_eq(n, cases[i].out);
		free(n);
	}
}

Test(payload_stressng, malformed_yaml_is_an_error)
{
	struct statset s = STATSET_INIT;
	const char *bad = "metrics:\n  - stressor: [unclosed\n";

	cr_assert_eq(stressng_parse_yaml(bad, strlen(bad), &s, NULL), -1);
	cr_assert(strstr(rb_errmsg(), "stress-ng yaml:") != NULL);
	statset_release(&s);
}

/* What robot bisect refuses before it measures (payload_metric_check). */
Test(payload_stressng, metric_names_checked_before_measuring)
{
	static const char text[] = "suite: stress-ng\n"
				   "testcase: stress-ng\n"
				   "nr_threads: 1\n"
				   "testtime: 1s\n"
				   "stress-ng:\n"
				   "  test: mmapaddr\n";
	struct job_list jobs = { 0 };
	struct svec seen = SVEC_INIT;
	const struct job *j;

	cr_assert_eq(job_load_string(&jobs, "t.yaml", text, strlen(text)), 0,
		     "%s", rb_errmsg());
	j = jobs.v[0];
	/* every run has them */
	cr_expect_eq(payload_metric_check(j, "stress-ng.mmapaddr.ops_per_sec",
					  &seen),
		     1);
	cr_expect_eq(payload_metric_check(j, "stress-ng.time.user_time", &seen),
		     1);
	/* a typo: refused with the name it is close to */
	cr_expect_eq(payload_metric_check(j, "stress-ng.mmapaddr.opz_per_sec",
					  &seen),
		     -1);
	cr_expect(strstr(rb_errmsg(), "did you mean "
				      "'stress-ng.mmapaddr.ops_per_sec'"),
		  "%s", rb_errmsg());
	/* another test's stats, and no family at all */
	cr_expect_eq(payload_metric_check(j, "stress-ng.mmap.ops_per_sec",
					  &seen),
		     -1);
	cr_expect(strstr(rb_errmsg(), "'stress-ng.mmapaddr.*'"), "%s",
		  rb_errmsg());
	cr_expect_eq(payload_metric_check(j, "nosuch.thing", &seen), -1);
	/* the test's own metrics and /proc fields: a run tells */
	cr_expect_eq(payload_metric_check(
			     j, "stress-ng.mmapaddr.pages_per_call", &seen),
		     0);
	cr_expect_eq(payload_metric_check(j, "meminfo.Active(anon)", &seen), 0);
	/* ... unless stored runs of the job never had it */
	svec_push(&seen, "stress-ng.mmapaddr.ops");
	svec_push(&seen, "stress-ng.mmapaddr.mapped_pages");
	cr_expect_eq(payload_metric_check(
			     j, "stress-ng.mmapaddr.pages_per_call", &seen),
		     -1);
	cr_expect_eq(payload_metric_check(j, "stress-ng.mmapaddr.mapped_pages",
					  &seen),
		     1);
	cr_expect_eq(payload_metric_check(j, "meminfo.Active(anon)", &seen), 0,
		     "/proc fields vary with the kernel");
	svec_clear(&seen);
	job_list_release(&jobs);
}
