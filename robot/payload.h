/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_PAYLOAD_H
#define ROBOT_PAYLOAD_H

#include <stddef.h>

#include "result.h"

struct svec;

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
