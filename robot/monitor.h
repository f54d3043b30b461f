/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_MONITOR_H
#define ROBOT_MONITOR_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

/*
 * Monitors sample /proc files on the test host once a second while the
 * payload runs, and reduce the series into lkp's stat names the way lkp
 * does (gauges averaged, event counters as last - first, rates per second).
 *
 * Sampling is one shell loop on the host (monitor_loop_script), the same on
 * a real box, the QEMU box (busybox) and the local machine: it needs only
 * a POSIX sh, cat and sleep. Its output is a series of snapshots:
 *
 *   ==> <seconds from /proc/uptime>
 *   --- /proc/stat
 *   <the file>
 *   --- /proc/vmstat
 *   ...
 *   <==
 *
 * Each monitor is one file (monitor-<name>.c) and one row of
 * monitor_table[]: the /proc files it reads and its reduce function.
 */
struct mon_file {
	const char *path; /* "/proc/stat" */
	char *text; /* the file's content in this snapshot */
};

struct mon_snapshot {
	double uptime;
	struct mon_file files[4];
	size_t nr_files;
};

struct mon_series {
	struct mon_snapshot *snap;
	size_t nr;
	size_t alloc;
	char *buf; /* owns every text pointer */
};

struct monitor_ops {
	const char *name; /* the stat prefix: "vmstat", "mpstat" */
	const char *const *files; /* NULL-terminated /proc paths it reads */
	/* add this monitor's stats (already named "<name>.<...>") */
	void (*reduce)(const struct mon_series *s, struct statset *out);
};

extern const struct monitor_ops monitor_vmstat, monitor_meminfo,
	monitor_proc_vmstat, monitor_mpstat;
extern const struct monitor_ops *const monitor_table[];
extern const size_t monitor_table_nr;

/*
 * The sampling loop as sh code: `sh -c "$script" monitor OUTFILE` samples
 * every file any monitor needs until killed. The text is ours alone; no
 * job value is ever part of it.
 */
const char *monitor_loop_script(void);

/* Parse sampled output; takes ownership of buf. 0 or -1. */
int mon_series_parse(struct mon_series *s, char *buf);
void mon_series_release(struct mon_series *s);
/* The text of a file in a snapshot, or NULL. */
const char *mon_file_text(const struct mon_snapshot *snap, const char *path);

/*
 * "key value" or "Key:   value kB" lines: the value of key, or -1 when
 * absent (all /proc values we read are non-negative).
 */
double mon_field(const char *text, const char *key);

/*
 * Gauges of "Key: value [kB]" or "key value" files: "<prefix>.<key>" is the
 * mean over the snapshots that have the key; want (may be NULL) filters keys.
 */
void mon_average_fields(const struct mon_series *s, const char *path,
			const char *prefix, bool (*want)(const char *key),
			struct statset *out);

/*
 * The jiffies of the all-CPU "cpu" line of a /proc/stat text: user nice
 * system idle iowait irq softirq steal guest guest_nice (missing ones 0).
 */
enum {
	CPU_USER,
	CPU_NICE,
	CPU_SYS,
	CPU_IDLE,
	CPU_IOWAIT,
	CPU_IRQ,
	CPU_SOFT,
	CPU_STEAL,
	CPU_GUEST,
	CPU_GNICE,
	CPU_NR
};
int mon_cpu_jiffies(const char *stat, double v[CPU_NR]);

/* Run every monitor over the series into out. */
void monitors_reduce(const struct mon_series *s, struct statset *out);

#endif
