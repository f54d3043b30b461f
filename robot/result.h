/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_RESULT_H
#define ROBOT_RESULT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The numbers of one run, by lkp stat name ("stress-ng.mmap.ops_per_sec",
 * "vmstat.system.cs", ...), and the lkp result files they are kept in:
 *
 *   <commit dir>/<run>/stats.json   {"stat": value, ...}
 *   <commit dir>/matrix.json        {"stat": [run0, run1, ...],
 *                                    "stats_source": [".../0/stats.json", ...]}
 *
 * as lkp's create_stats_matrix/unite_stats write them: a re-processed run
 * replaces its old column, a stat missing from some run is filled with 0.
 */
struct stat_entry {
	char *name;
	double value;
};

struct statset {
	struct stat_entry *v;
	size_t nr;
	size_t alloc;
};

#define STATSET_INIT \
	{            \
		0    \
	}

/*
 * Whether name can be a stat: 1 to 255 characters of lkp's set (letters,
 * digits and ._-+%/:=@#()[], as in "meminfo.Active(anon)"), not starting
 * with '.'. Names from a payload's
 * output that are not are dropped, so that no control character or
 * escape sequence reaches a terminal, the store or a mail.
 */
bool stat_name_ok(const char *name);

void statset_release(struct statset *s);
/* Set (or replace) a stat. */
void statset_set(struct statset *s, const char *name, double value);
/* Add to a stat (starting from 0). */
void statset_add(struct statset *s, const char *name, double value);
/* Pointer to the value or NULL. */
const double *statset_get(const struct statset *s, const char *name);
/* Sort by name (stable output for files and tests). */
void statset_sort(struct statset *s);
/* Copy every stat of src into dst, prefixing names with prefix. */
void statset_merge(struct statset *dst, const struct statset *src,
		   const char *prefix);

/* Write stats.json atomically. */
int statset_write_json(const struct statset *s, const char *path);
/* Read a stats.json (numbers only; other values are ignored). */
int statset_read_json(struct statset *s, const char *path);

/*
 * Put the run whose stats.json is `source` into the matrix.json of its
 * commit directory (created when missing), replacing the column of the
 * same source.
 */
int matrix_update(const char *matrix_path, const char *source,
		  const struct statset *s);

#endif
