/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_CMP_LOAD_H
#define ROBOT_CMP_LOAD_H

#include "compare.h"

/*
 * Read lkp result data into a cmp_matrix (the adapter of compare.c):
 *
 *   FILE            a matrix.json: {"stat": [run0, run1, ...], ...,
 *                   "stats_source": [...]}
 *   DIR/matrix.json a commit directory (lkp's _result_root)
 *   DIR/<n>/stats.json   numbered run directories, united as lkp's
 *                   unite_stats does (a stat missing from a run is 0)
 *
 * The label is the commit directory's name (the 40-hex sha in lkp's
 * layout), or the file's name for a lone matrix file. JSON integers are
 * kept apart from reals (lkp's perf-profile rule depends on it).
 * Returns 0, or -1 with rb_error set ("FILE: message").
 */
int cmp_load(struct cmp_matrix *m, const char *path);

struct run_stats;
/*
 * A matrix from runs the store holds (store_key_run_stats and the like):
 * one column per run, the stats in byte order of their names as the
 * runner's matrix.json has them, 0 where a run lacks a stat, integers
 * told apart as the runner writes them; one stats_source per run. The
 * label is set to label (copied); the title is left NULL.
 */
void cmp_matrix_from_runs(struct cmp_matrix *m, const char *label,
			  const struct run_stats *runs, size_t n);

/* Parse matrix JSON text (for tests and the store); source names errors. */
int cmp_load_json(struct cmp_matrix *m, const char *text, const char *source);

/*
 * Axes from lkp's result-root layout, when the commit directory's path
 * ends in testcase/path_params/tbox_group/rootfs/kconfig/compiler/<sha>:
 * keys "testcase", "path_params", "tbox_group", "rootfs", "kconfig",
 * "compiler". Returns how many were set (0 when the layout is not lkp's);
 * the strings are malloc'd into keys[]/values[] (6 slots each).
 */
int cmp_axes_from_path(const char *path, char **keys, char **values);

#endif
