/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_PAYLOAD_H
#define ROBOT_PAYLOAD_H

#include <stddef.h>

#include "result.h"

#include "svec.h"

struct job;
struct lab_host;
struct sbuf;

/*
 * What the box needs before the payload runs and gets back after it
 * (lkp's run scripts prepare the box too): the run script applies it.
 */
struct payload_setup {
	/*
	 * "key=value" sysctls, set in order and restored after the run; a
	 * leading '?' marks one set only where it is writable (lkp's
	 * kernel.sched_autogroup_enabled=0)
	 */
	struct svec sysctls;
	/* run the payload as this unprivileged user (NULL: as the robot) */
	char *user;
	/* the folder the payload runs in (made when missing; NULL: none) */
	char *dir;
	/* make the filesystem fs on the spare device dev and mount it on
	 * dir, mkfs_opts and mount_opts (-o) as lkp's fs setup uses them */
	char *dev;
	char *fs;
	char *mkfs_opts;
	char *mount_opts;
};

#define PAYLOAD_SETUP_INIT           \
	{                            \
		.sysctls = SVEC_INIT \
	}

void payload_setup_release(struct payload_setup *s);
/*
 * The setup as the commands lkp's reproduce.sh shows (sysctl -w, mkfs,
 * mount, cd, su), one per line, before the payload's argv.
 */
void payload_setup_describe(const struct payload_setup *s,
			    const struct svec *argv, struct sbuf *out);

/*
 * A payload, the program a job runs on the host: one row of the table in
 * payload.c (stress-ng the first), as transports are rows of theirs. The
 * runner runs its argv under the run script with the monitors (and `time
 * -v`), its stdout and stderr into <run dir>/<name>.stdout and .stderr,
 * fetches .stderr and `outputs` from a remote host, and hands their texts
 * (NULL for a missing file) to parse and error.
 */
struct payload_ops {
	const char *name; /* the job's "payload:" and the stats' prefix */
	const char *const *outputs; /* files it writes in the run dir */
	const char *help_arg; /* what asks the tool what it knows ... */
	const char *help_mark; /* ... and what its answer must contain */
	/* the program on host */
	const char *(*binary)(const struct lab_host *host);
	/*
	 * argv for the job on host (help: the tool's answer, or NULL). An
	 * option the tool does not know is an error, or with missing it is
	 * kept in argv and its name pushed onto missing.
	 */
	int (*argv)(const struct job *job, const struct lab_host *host,
		    const char *help, struct svec *argv, struct svec *missing);
	/*
	 * What the box must be given for the job (NULL: nothing); -1 with
	 * one line naming what the host lacks (a spare disk).
	 */
	int (*setup)(const struct job *job, const struct lab_host *host,
		     struct payload_setup *out);
	/* the words that send its result file into dir */
	void (*result_argv)(const char *dir, struct svec *argv);
	/* stats (unprefixed) from stderr and the outputs: rows found */
	int (*parse)(const char *err, const char *const *outputs,
		     struct statset *raw, struct svec *dropped);
	/* the line of stderr that says what went wrong (malloc'd) */
	char *(*error)(const char *err, int rc);
	/* the job's headline stat ("stress-ng.mmap.ops_per_sec") */
	char *(*headline)(const struct job *job);
	/* the stats (full names) every run of the job has, and the prefixes
	 * of those that depend on the test or the tool's version */
	void (*stat_names)(const struct job *job, struct svec *known,
			   struct svec *families);
};

extern const struct payload_ops payload_stressng;
/* The payload called name (NULL or "": stress-ng), or NULL with an error. */
const struct payload_ops *payload_find(const char *name);

/*
 * Can the job's runs carry the stat `metric` (the payload's, `time -v`'s
 * or a monitor's)? seen: the stats the store holds for earlier runs of the
 * job (may be empty). 1 yes, 0 unknown until a run shows it (a name of
 * the test's own metrics or a monitor's /proc field the store has not
 * seen), -1 no, with one line: the name is close to a known one ("did you
 * mean"), outside every family, or a metric of the test that none of the
 * job's stored runs has.
 */
int payload_metric_check(const struct job *job, const char *metric,
			 const struct svec *seen);

/*
 * stress-ng output parsing, into lkp stat names (reference/lkp-tests.md
 * §2.4). All names are relative to the program: "mmap.ops_per_sec",
 * "time.elapsed_time"; the caller prefixes "stress-ng.".
 *
 * stressng_parse_yaml  the --yaml file: one "<stressor>.ops",
 *                      ".ops_per_sec" (bogo ops/s real time) and
 *                      ".pass" per stressor, extra metrics with their key
 *                      normalised ("realloc-calls-per-sec" ->
 *                      "realloc_calls_per_sec"); "<stressor>.fail" when a
 *                      stressor did no bogo op. Also ours,
 *                      ".usr_sys_ops_per_sec": bogo ops per CPU second
 *                      (usr+sys), steadier than real time on a busy box.
 * stressng_parse_text  the metrics on stderr, both the 0.15 `metrc:` rows
 *                      (12 fields) and the older `info:` rows (10), with
 *                      the "miscellaneous metrics" lines normalised as lkp
 *                      does ("MB per sec sendto rate" -> "MB_per_sec_sendto_rate").
 * time_v_parse         GNU/busybox `time -v` output into "time.*" stats
 *                      (elapsed_time, user_time, system_time,
 *                      percent_of_cpu_this_job_got, voluntary/involuntary
 *                      context switches, minor/major page faults, ...).
 *
 * Each returns the number of stressor rows found (>= 0) or -1 with a
 * message when the input is not what stress-ng writes. A stat whose name
 * is not in lkp's set (stat_name_ok: the output can carry escape
 * sequences) or whose value is not finite (nan, inf) is left out and
 * described, one string each, in dropped (NULL: not told).
 */
int stressng_parse_yaml(const char *buf, size_t len, struct statset *out,
			struct svec *dropped);
int stressng_parse_text(const char *buf, struct statset *out,
			struct svec *dropped);
int time_v_parse(const char *buf, struct statset *out, struct svec *dropped);

/* lkp's LKP::Stats.normalize for metric unit words. */
char *stressng_normalize(const char *words);

#endif
