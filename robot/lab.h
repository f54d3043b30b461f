/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_LAB_H
#define ROBOT_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schema.h"
#include "svec.h"

/*
 * The lab file (`--lab FILE`): where and how jobs run. See the README
 * section "Lab files" for every key. Read through one schema table
 * (lab_schema); unknown keys are errors with FILE:LINE:COL, except the
 * `nightly:` section's jobs, which are read after the table (a job entry
 * is a scalar or a mapping).
 *
 * Relative paths (tree.path, workdir, ssh_config, hooks.*,
 * mail.password_file, mail.ca_file) are made absolute against the lab file's folder.
 */
struct lab_tree {
	/* shown in mails as [name:branch]; default: basename of path */
	char *name;
	char *path;
	char *url;
	/* default: master */
	char *branch;
	/* ssh:// URLs: the private key to offer (absolute), or NULL */
	char *ssh_key;
	/* ssh:// URLs: the known host keys (absolute); NULL: ~/.ssh's */
	char *known_hosts;
	/* https:// URLs: the CA file to trust (absolute); NULL: the system's */
	char *ca_file;
};

struct lab_hooks {
	char *build;
	char *boot;
	/* seconds; defaults 2h and 15m */
	long build_timeout;
	long boot_timeout;
};

struct lab_host {
	char *name;
	/* "ssh" (default), "local" or "lava" (a slot of the lava: pool) */
	char *transport;
	/* ssh destination (user@host or a Host alias); default: name */
	char *ssh;
	/* 0 when the lab does not say */
	long nr_cpu;
	/* the mail's "test machine:" line */
	char *machine;
	/* the stress-ng binary on the host (default: stress-ng on PATH) */
	char *stress_ng;
	/*
	 * spare block devices a job's disk: may take (lkp's hosts files:
	 * 1HDD is the first of hdd_partitions); their data is destroyed
	 */
	struct svec hdd_partitions;
	struct svec ssd_partitions;
	/* the user lkp runs exec, spawn and bad-ioctl as (default lkp) */
	char *unprivileged_user;
	/* where the entry starts, for messages */
	int line, col;
};

struct lab_mail {
	char *from;
	struct svec to;
	struct svec cc;
	/* smtp://host:port, smtps://..., or "none" (the default) */
	char *smtp;
	char *archive_url;
	bool auto_send;
	bool starttls;
	char *user;
	/* the name of an environment variable holding the password */
	char *password_env;
	/* a file holding the password (absolute) */
	char *password_file;
	/* a CA file to trust for TLS to the SMTP server (absolute) */
	char *ca_file;
};

/*
 * The nightly: section (`robot nightly`). A job entry is a file or a glob
 * (absolute once read), or a mapping with the same plus its own metric,
 * threshold, parameters and hosts.
 */
struct lab_nightly_job {
	char *job; /* a job file or a glob */
	char *metric; /* NULL: the section's, else the job's headline */
	char *threshold; /* NULL: the section's */
	struct svec params; /* k=v: only the atomic jobs that match */
	struct svec hosts; /* empty: the section's */
	int line, col;
};

struct lab_nightly {
	bool present; /* the lab has a nightly: section */
	struct lab_nightly_job *jobs;
	size_t nr_jobs;
	/* the hosts to use (names of hosts:); empty: all of them */
	struct svec hosts;
	char *metric;
	/* "5%" (default: in the metric's bad direction), "-5%", "+5%" */
	char *threshold;
	/* "previous" (the previous tested head, default) or "tag" */
	char *baseline;
	/* the tags the "tag" rule looks at (default "v*") */
	char *tag_pattern;
	/* seconds between cycles without --once (default 6h) */
	long interval;
	/* runs of a head: at least, at most (3, 10) */
	long min_runs, max_runs;
	/* bisect and mail improvements too (default true) */
	bool improvements;
	/* mail a follow-up when a reported culprit still shows (false) */
	bool still_mail;
};

/*
 * A LAVA server the lab's `transport: lava` hosts stand for slots of (one
 * host: one device of the pool at a time). The token never sits in the
 * lab file: an environment variable or an owner-only file holds it.
 */
struct lab_lava {
	/* http(s)://server[:port] (the REST API is <url>/api/v0.2/) */
	char *url;
	/* the name of an environment variable holding the token */
	char *token_env;
	/* a file holding the token, readable by its owner only (absolute) */
	char *token_file;
	/* the device type jobs ask for (LAVA's device_type) */
	char *device_type;
	/* optional: jobs need these device tags */
	struct svec tags;
	/* optional: only these devices of the type count as the pool */
	struct svec devices;
	/* where the worker finds WORKDIR/artifacts: a base URL, or file:// */
	char *artifact_url;
	/* LAVA's priority: high, medium, low or 0-100 (default medium) */
	char *priority;
	/* seconds: the whole job, and each action */
	long job_timeout;
	long action_timeout;
	/* extra job context (arch, ...), copied into every job */
	struct ynode *context;
	/* the box's initramfs (absolute): each batch appends its own part */
	char *initrd;
	/* the kernel's file name in the artifact directory (bzImage) */
	char *kernel_image;
	char *kernel_args;
	/* payload runs per LAVA job (default 3) */
	long runs_per_job;
};

/*
 * The builds: section: where kernels are built and how far ahead. Slots
 * are builds at once on this machine; each build host (an ssh
 * destination the build hook reaches through ROBOT_BUILD_HOST) is one
 * more. A box's own build never waits for a build ahead (that one is
 * cancelled).
 */
struct lab_builds {
	long slots; /* local builds at once (default 2) */
	bool ahead; /* build what the next rounds may test (default true) */
	struct svec hosts; /* ssh build hosts */
	/* their folder for worktrees, objects, artifacts (ROBOT_BUILD_HOST_DIR;
	 * default robot-build, under the login's home) */
	char *host_dir;
	char *cache; /* the artifact cache's size limit ("50G"), or NULL */
	uint64_t cache_bytes; /* cache parsed (0: no limit) */
};

struct lab {
	/* the lab file as given, and its folder (absolute) */
	char *file;
	char *dir;
	/* tree.path is NULL when the lab has no tree: section */
	struct lab_tree tree;
	/* absolute; default <lab folder>/robot-work */
	char *workdir;
	char *ssh_config;
	struct lab_hooks hooks;
	struct lab_host *hosts;
	size_t nr_hosts;
	struct lab_mail mail;
	/* the nightly: section read (present false when absent) */
	struct lab_nightly nightly;
	/* the lava: section (url NULL when absent) */
	struct lab_lava lava;
	struct lab_builds builds;
};

/* Read a lab file. 0, or -1 with "FILE:LINE:COL: message". */
int lab_load(struct lab *lab, const char *path);
/* The same from memory: relative paths are joined to dir. */
int lab_load_string(struct lab *lab, const char *file, const char *dir,
		    const char *text, size_t len);
void lab_release(struct lab *lab);

/* The host called name, or NULL. */
const struct lab_host *lab_find_host(const struct lab *lab, const char *name);

extern const struct schema_row lab_schema[];

#endif
