// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <jansson.h>
#include <unistd.h>

#include "robot.h"
#include "result.h"
#include "bisection.h"

Test(result, stats_json_round_trip)
{
	char dir[] = "/tmp/robot-result-XXXXXX";
	struct statset s = STATSET_INIT, back = STATSET_INIT;
	char *path;

	cr_assert_not_null(mkdtemp(dir));
	path = xstrfmt("%s/stats.json", dir);
	statset_set(&s, "stress-ng.mmap.ops", 688);
	statset_set(&s, "stress-ng.mmap.ops_per_sec", 343.17);
	statset_add(&s, "stress-ng.mmap.ops", 2);
	cr_assert_eq(statset_write_json(&s, path), 0);
	cr_assert_eq(statset_read_json(&back, path), 0);
	cr_assert_eq(back.nr, 2);
	cr_assert_float_eq(*statset_get(&back, "stress-ng.mmap.ops"), 690, 0);
	cr_assert_float_eq(*statset_get(&back, "stress-ng.mmap.ops_per_sec"),
			   343.17, 1e-12);
	statset_release(&s);
	statset_release(&back);
	free(path);
	rb_remove_tree(dir);
}

/* lkp's unite_stats: one column per run, 0 for a stat a run lacks, a
 * re-processed run replaces its own column. */
Test(result, matrix_columns)
{
	char dir[] = "/tmp/robot-result-XXXXXX";
	struct statset a = STATSET_INIT, b = STATSET_INIT;
	json_t *m;
	char *path;

	cr_assert_not_null(mkdtemp(dir));
	path = xstrfmt("%s/matrix.json", dir);
	statset_set(&a, "x", 1);
	statset_set(&a, "y", 10);
	statset_set(&b, "x", 2);
	statset_set(&b, "z", 5.5);
	cr_assert_eq(matrix_update(path, "/r/0/stats.json", &a), 0);
	cr_assert_eq(matrix_update(path, "/r/1/stats.json", &b), 0);
	statset_set(&a, "x", 3);
	cr_assert_eq(matrix_update(path, "/r/0/stats.json", &a), 0);
	m = json_load_file(path, 0, NULL);
	cr_assert_not_null(m);
	cr_assert_eq(json_array_size(json_object_get(m, "stats_source")), 2);
	cr_assert_eq(
		json_integer_value(json_array_get(json_object_get(m, "x"), 0)),
		3);
	cr_assert_eq(
		json_integer_value(json_array_get(json_object_get(m, "x"), 1)),
		2);
	cr_assert_eq(
		json_integer_value(json_array_get(json_object_get(m, "y"), 1)),
		0);
	cr_assert_float_eq(
		json_number_value(json_array_get(json_object_get(m, "z"), 1)),
		5.5, 0);
	cr_assert_eq(
		json_integer_value(json_array_get(json_object_get(m, "z"), 0)),
		0);
	json_decref(m);
	statset_release(&a);
	statset_release(&b);
	free(path);
	rb_remove_tree(dir);
}

/* the terminal's summary of a found culprit counts like the mail does:
 * "1 run", "1 build", never "1 builds" */
Test(result, printed_summary_counts_in_words)
{
#define SUMMARY_JSON                                           \
	"{\"status\": \"found\", \"culprit\": \"abc\", "       \
	"\"metric\": \"m\", \"message\": \"-9%%\", "           \
	"\"confidence\": 0.99, \"runs\": %d, \"builds\": %d, " \
	"\"boots\": %d, \"builds_ahead\": %d, "                \
	"\"builds_ahead_unused\": 0, \"build_wait_seconds\": 70}"
	char in[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(in, sizeof(in), SUMMARY_JSON, 1, 1, 1, 0);
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	bisection_print_result(f, in);
	fclose(f);
	cr_expect(strstr(buf, ", 1 run, 1 build, 1 boot\n"), "%s", buf);
	cr_expect(strstr(buf, "\n1 build, 0 of them by the look-ahead builders "
			      "(0 unused); the boxes waited 1m 10s for "
			      "kernels\n"),
		  "%s", buf);
	free(buf);

	snprintf(in, sizeof(in), SUMMARY_JSON, 12, 7, 5, 3);
	buf = NULL;
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	bisection_print_result(f, in);
	fclose(f);
	cr_expect(strstr(buf, ", 12 runs, 7 builds, 5 boots\n"), "%s", buf);
	cr_expect(strstr(buf,
			 "\n7 builds, 3 of them by the look-ahead builders "
			 "(0 unused)"),
		  "%s", buf);
	/* the look-ahead builds the anchors too, which the box waits for:
	 * its builds are not said to be ahead of need */
	cr_expect(!strstr(buf, "ahead of need"), "%s", buf);
	free(buf);
#undef SUMMARY_JSON
}

/*
 * The first bad commit's block as git prints it: "Date:   Tue Jan 2 ..."
 * (git does not pad the day; strftime's %e did: "Tue Jan  2"), with the
 * author's offset.
 */
Test(result, first_bad_commit_date_as_git_prints_it)
{
	static const struct {
		long long t;
		int offset;
		const char *want;
	} cases[] = {
		{ 1704173573, 0, "\nDate:   Tue Jan 2 05:32:53 2024 +0000\n" },
		{ 1705050000, 0, "\nDate:   Fri Jan 12 09:00:00 2024 +0000\n" },
		{ 1705050000, -300,
		  "\nDate:   Fri Jan 12 04:00:00 2024 -0500\n" },
		{ 1704153600, 330,
		  "\nDate:   Tue Jan 2 05:30:00 2024 +0530\n" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char in[1024], *buf = NULL;
		size_t len = 0;
		FILE *f;

		snprintf(in, sizeof(in),
			 "{\"status\": \"found\", \"culprit\": \"abc\", "
			 "\"metric\": \"m\", \"message\": \"-9%%\", "
			 "\"confidence\": 0.99, \"runs\": 1, \"builds\": 1, "
			 "\"boots\": 1, \"culprit_info\": {\"subject\": \"s\", "
			 "\"author_name\": \"A\", \"author_email\": \"a@x\", "
			 "\"author_time\": %lld, \"author_offset\": %d}}",
			 cases[i].t, cases[i].offset);
		f = open_memstream(&buf, &len);
		cr_assert_not_null(f);
		bisection_print_result(f, in);
		fclose(f);
		cr_expect(strstr(buf, cases[i].want), "case %zu: %s", i, buf);
		free(buf);
	}
}
