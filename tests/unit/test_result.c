// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <jansson.h>
#include <unistd.h>

#include "robot.h"
#include "result.h"

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
