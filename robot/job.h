/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_JOB_H
#define ROBOT_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "schema.h"

struct sbuf;
struct svec;

/*
 * lkp-tests job specs (see README "Job files").
 *
 * A job file holds one or more YAML documents. Each later document is
 * merged onto the first as lkp's revise_hash does (its top-level keys
 * replace the first's; `key+:`, `key-:`, dotted keys, see job_revise),
 * `<<: FILE` lines include other job files (job_include_expand), and list
 * values of the expandable keys (the options lkp's stress-ng run script
 * declares: test, method, type, class, mode, sched, advise, hdd_opts,
 * nr_threads, testtime; the setup programs cpufreq_governor, disk, fs,
 * fs2, mount_option; commit, kconfig, compiler, rootfs) expand into the
 * Cartesian product of atomic jobs: one struct job each, every value a
 * scalar. Unknown keys are kept as written.
 *
 * Values that will reach a command line (the test name, payload option
 * names and values, axes) are checked at load time: no shell
 * metacharacters, so a job file can never become shell code.
 *
 * Pure: only job_load_file reads a file; nothing here prints.
 */

/*
 * The longest matrix a job file may expand to (all its documents). The
 * fuzz build makes it smaller (the same code, its limit reached with
 * cheaper inputs).
 */
#ifndef JOB_MAX_ATOMIC
#define JOB_MAX_ATOMIC 10000
#endif
/*
 * Each atomic job keeps its own copy of the tree (to write job.yaml
 * back): atomic jobs x YAML nodes of each may not exceed this, so that a
 * large unknown key times a large matrix is refused at once instead of
 * eating the memory.
 */
#define JOB_MAX_NODES 2000000
/* The largest job file read (lkp's are a few hundred bytes). */
#define JOB_FILE_MAX (4u << 20)
/* CPUs a host may have, and stress-ng's most instances of a stressor. */
#define JOB_MAX_CPU 65536
#define JOB_MAX_THREADS 4096

struct job {
	/* the file this atomic job was loaded from */
	char *file;
	/* the job file it was expanded from (job_origin:, else file) */
	char *origin;
	/* 1-based YAML document the atomic job comes from */
	int doc;

	char *suite;
	/* the test case (lkp testcase:), e.g. "stress-ng" */
	char *testcase;
	char *category;
	/* the payload section's name, e.g. "stress-ng" */
	char *payload;
	/* the payload's test, e.g. "mmaprandom" */
	char *test;

	/* as written ("100%", "4"), NULL when the job has none */
	char *nr_threads_text;
	/* resolved count; -1 until job_resolve (1 when no text) */
	long nr_threads;
	/* the CPUs nr_threads was resolved against (0: not yet) */
	long nr_cpu;
	/* as written ("60s"), NULL when the job has none */
	char *testtime_text;
	/*
	 * seconds (60 when the job has none); a testtime in the payload
	 * section wins over the top-level one, as in lkp
	 */
	long testtime;

	char *cpufreq_governor;
	char *kconfig;
	char *compiler;
	char *rootfs;
	char *tbox_group;
	char *commit;
	/* lkp's disk ("1HDD", "1SSD") and fs setup programs, as written */
	char *disk;
	char *fs;
	char *fs2;
	char *mount_option;

	/* every option of the payload section, in job order */
	struct kvlist opts;
	/* the path parameters, in job order (0-Day's "parameters:") */
	struct kvlist params;
	/* lkp's path_params, e.g. "performance-100%-mmaprandom-60s" */
	char *path_params;

	/* unknown top-level keys, in order (a YNODE_MAP) */
	struct ynode *extra;
	/* the atomic job as written (for key order when writing back) */
	struct ynode *tree;
};

struct job_list {
	struct job **v;
	size_t nr, alloc;
};

#define JOB_LIST_INIT \
	{             \
		0     \
	}

void job_free(struct job *j);
/* A deep copy (a bisection step changes its copy's commit). */
struct job *job_copy(const struct job *j);
void job_list_release(struct job_list *l);
/* Remove (and free) entry i. */
void job_list_remove(struct job_list *l, size_t i);

/*
 * Load a job file into atomic jobs (appended to out). 0, or -1 with
 * "FILE:LINE:COL: message" (nothing is appended then).
 */
int job_load_file(struct job_list *out, const char *path);
/* The same from memory; file names the text in errors. */
int job_load_string(struct job_list *out, const char *file, const char *text,
		    size_t len);

/*
 * Resolve nr_threads against a host's nr_cpu: N% is nr_cpu * N / 100,
 * truncated; a count is itself. Returns 0, 1 when nr_threads resolves to
 * 0 (the job must be dropped), or -1 (nr_cpu < 1).
 */
int job_resolve(struct job *j, long nr_cpu);
/* nr_threads as written: the payload section's, else the top-level one. */
const char *job_nr_threads_text(const struct job *j);

/*
 * Resolve every job; drop those that resolve to 0 threads, pushing one
 * notice each onto notices (may be NULL). Returns the number dropped or -1.
 */
int job_list_resolve(struct job_list *l, long nr_cpu, struct svec *notices);

/*
 * Append the atomic job as one YAML document: its keys in job order,
 * then job_origin, path_params and, once resolved, nr_cpu and
 * resolved.{nr_threads,testtime}. job_load_string reads it back to the
 * same job. 0 or -1.
 */
int job_write_yaml(const struct job *j, struct sbuf *out);

/* "stress-ng/performance-100%-mmaprandom-60s" (testcase/path_params) */
const char *job_name(const struct job *j, struct sbuf *buf);

/*
 * Whether the job's parameter key has the value val. Keys: any job key
 * (testcase, test, nr_threads, testtime, kconfig, commit, ...), payload
 * options, unknown scalar keys, path_params. nr_threads and testtime
 * also match their resolved numbers.
 */
bool job_matches(const struct job *j, const char *key, const char *val);
/* Whether any job knows the parameter key. */
bool job_has_param(const struct job *j, const char *key);

/*
 * The one atomic job that every "k=v" filter matches. With no filter the
 * list must hold one job. Returns its index, or -1 with a message (no
 * match, several matches listing them, a malformed filter).
 */
long job_select(const struct job_list *l, const char *const *filters,
		size_t nr_filters);

struct ysource;
/*
 * lkp's `<<: FILE` includes (job-include.c): 1 when text has none, 0 with
 * the assembled text in out and where each of its lines was written in
 * lines (malloc'd, nr_lines entries), or -1 with "FILE:LINE:COL: message"
 * (file not found, include cycle, a malformed `<<:` line).
 */
int job_include_expand(const char *file, const char *text, size_t len,
		       struct sbuf *out, struct ysource **lines,
		       size_t *nr_lines);

/*
 * lkp's revise_hash (job-revise.c): revise the mapping orig with rev
 * (NULL: apply orig's own `key+:`, `key-:` and dotted keys only); rev's
 * top-level keys replace orig's, accumulative keys (need_*, mail_to,
 * mail_cc, constraints) and `key+:`/`key-:` grow or shrink the value.
 * 0, or -1 with "FILE:LINE:COL: message".
 */
int job_revise(struct ynode *orig, const struct ynode *rev, const char *file);

/* The job schema (for the README and tests). */
extern const struct schema_row job_schema[];

/* Resolve "N%" or "N" against nr_cpu; -1 when text is malformed. */
long job_nr_threads(const char *text, long nr_cpu);

struct schema_ctx;
struct ynode;
/* The schema check of nr_cpu (1 to JOB_MAX_CPU), for job and lab files. */
int job_check_nr_cpu(const struct schema_ctx *ctx, const struct ynode *n,
		     const char *val);

#endif
