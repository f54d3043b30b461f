/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_RUNNER_H
#define ROBOT_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "result.h"
#include "store.h"
#include "svec.h"

struct lab;
struct lab_host;
struct job;
struct sbuf;
struct rb_repo;
struct build_gate;

/*
 * Lab execution: "run this atomic job at this commit on this host", as
 * three steps that a command (robot run) or a bisection session strings
 * together:
 *
 *   runner_build  check the commit out into the slot's worktree and run
 *                 the lab's build hook (skipped when the artifact
 *                 directory is complete: its marker is written last)
 *   runner_boot   run the boot hook for a host
 *   runner_run    one payload run on the host with the monitors, its
 *                 files fetched into the lkp result tree, parsed, and
 *                 stored with its samples in one transaction
 *
 * The hook contract is in the README ("Hooks"): an argv, cwd = workdir,
 * logs to files, a timeout that kills the process group, ROBOT_*
 * environment; exit 0 done, 125 skip this commit, anything else (or a
 * signal, or the timeout) an infrastructure failure.
 *
 * Workdir layout:
 *   robot.db                 the store
 *   jobs/<name>.yaml         atomic job files (ROBOT_JOB)
 *   slots/<slot>/src/        worktrees (ROBOT_SRC), one per build slot (a
 *                            bisection's build-gate slot, else the runner's)
 *   slots/<slot>/build/<kconfig>-<compiler>/   object dirs (ROBOT_BUILD_DIR),
 *                            at the same place relative to the worktree in
 *                            every slot, so that ccache hits across slots
 *   artifacts/<commit>-<kconfig>-<compiler>/   (ROBOT_ARTIFACT_DIR), and
 *                            beside it its .lock (held by its build) and
 *                            .use (shared by the hosts using it)
 *   artifacts/lava/          LAVA batches' initrds (lava-exec.c)
 *   logs/                    hook logs
 *   results/<testcase>/<path_params>/<host>/<rootfs>/<kconfig>/<compiler>/
 *           <commit>/<run>/  one payload run; matrix.json per commit dir
 *
 * A runner is used by one thread; parallel hosts use one runner each
 * (each with its own store connection and repository handle).
 */

enum step_outcome {
	STEP_OK,
	STEP_SKIP, /* exit 125: this commit cannot be built or booted */
	STEP_INFRA, /* could not tell: retry, never a verdict */
	STEP_CANCELLED, /* a build ahead stopped: a box wanted its slot */
};
const char *step_outcome_name(enum step_outcome o);

/* What this runner executed for real (for summaries and bisection JSON). */
struct runner_counts {
	unsigned builds, boots, runs;
	unsigned builds_ahead; /* of builds: ahead of need */
	unsigned builds_cancelled; /* builds ahead stopped for a box */
};

struct runner {
	const struct lab *lab;
	struct store *st;
	struct rb_repo *repo;
	const struct job *job;
	char *job_file; /* the atomic job, written under workdir/jobs */
	char *kconfig; /* name ("none" when the job has none) */
	char *kconfig_path; /* file, or "" */
	char *compiler;
	char *rootfs;
	int slot; /* build slot: worktree and object dir */
	bool quiet; /* no progress lines */
	struct runner_counts counts;
	int64_t last_run_id; /* the store id of the last runner_run */
	/* per host: what its stress-ng --help says (lazily fetched) */
	char *help_host;
	char *help_text;
	/* the last runner_run failed on the job itself (the host's payload
	 * does not know its test or an option): no retry can help */
	bool bad_input;
	/* build slots shared with other runners (NULL: builds run at once) */
	struct build_gate *gate;
};

/*
 * Set up a runner for an atomic, resolved job. The job must outlive it.
 * Writes the atomic job file and finds the kconfig (a path, or a name
 * looked up in <lab dir>/kconfigs and the robot's own kconfigs/).
 */
int runner_init(struct runner *r, const struct lab *lab, struct store *st,
		struct rb_repo *repo, const struct job *job, int slot);
void runner_release(struct runner *r);

/* The marker an artifact directory gets last, when its build is whole:
 * an artifact without it is never used. */
#define ARTIFACT_COMPLETE ".robot-complete"

/* The artifact directory of a commit (malloc'd). */
char *runner_artifact_dir(const struct runner *r, const char *commit);

/*
 * A host's use of commit's artifact: a shared lock on
 * artifacts/<commit>-<kconfig>-<compiler>.use, taken before its build (or
 * its reuse) and held until the host is done reading the artifact (its
 * boot, or its LAVA job). The artifact cache (builds.cache) never removes
 * an artifact in use. Returns the lock's descriptor (close it to release),
 * or -1 with the error set.
 */
int runner_artifact_hold(const struct runner *r, const char *commit);

/*
 * Build commit (40 hex). *out says how it went; why gets a one-line reason
 * for SKIP and INFRA. Returns -1 only when the robot itself failed (store,
 * checkout of a commit that does not exist, out of disk for logs).
 */
int runner_build(struct runner *r, const char *commit, enum step_outcome *out,
		 struct sbuf *why);

/*
 * A build ahead of need (rank: its place in the look-ahead, 0 the
 * likeliest): 1 when it cannot start now (no free slot of r->gate), 2
 * when another runner builds the commit, else 0 with *out (OK also when the
 * artifact was there; CANCELLED when a box took the slot: no artifact,
 * no store row) or -1 when the robot failed.
 */
int runner_build_ahead(struct runner *r, const char *commit, unsigned rank,
		       enum step_outcome *out, struct sbuf *why);

/* Boot host into commit (which must have been built). */
int runner_boot(struct runner *r, const struct lab_host *host,
		const char *commit, int64_t *boot_id, enum step_outcome *out,
		struct sbuf *why);

/*
 * One payload run. *status is RUN_OK (stats filled, stored), RUN_FAILED
 * (the payload ran and failed), or RUN_INFRA (transport, timeout): only
 * RUN_OK runs carry samples. Returns -1 only when the robot failed.
 */
int runner_run(struct runner *r, const struct lab_host *host,
	       const char *commit, int64_t boot_id, enum run_status *status,
	       struct statset *stats, struct sbuf *why);

/*
 * A run whose payload ran elsewhere (a LAVA batch): output is what it
 * printed (stdout and stderr), rc its exit status (-1: the batch has no
 * output for it, an infrastructure failure), cmdline the reproduce
 * instructions. Parsed, written and stored as runner_run does it.
 */
int runner_record(struct runner *r, const struct lab_host *host,
		  const char *commit, int64_t boot_id, const char *output,
		  int rc, const char *cmdline, enum run_status *status,
		  struct statset *stats, struct sbuf *why);
/*
 * The stress-ng command line for the job on host (binary first, without
 * --yaml), for runs and for the reproduce instructions. help is the
 * host's `stress-ng --help` (NULL: unknown, no checks); an option it does
 * not know is an error, or with missing (may be NULL) kept and named there.
 */
int runner_payload_argv(const struct job *job, const struct lab_host *host,
			const char *help, struct svec *argv,
			struct svec *missing);
struct payload_setup;
struct payload_ops;
struct transport;
/*
 * Ask the host's payload what it knows (`stress-ng --help`) through t: 1
 * with the answer in *help (malloc'd), 0 when the host could not be asked
 * (the transport's trouble, said in why), -1 when the answer is not the
 * payload's (the path is wrong, the tool is something else: the error
 * names it) or the robot failed.
 */
int runner_payload_help(struct transport *t, const struct payload_ops *p,
			const struct lab_host *host, double timeout,
			char **help, struct sbuf *why);
/*
 * What the box needs for the job (payload.h); -1 with one line naming
 * what the host lacks.
 */
int runner_payload_setup(const struct job *job, const struct lab_host *host,
			 struct payload_setup *out);
/*
 * The job's command line (against help, NULL: unchecked) and its box
 * setup on host, built and dropped: -1 with the line a run would refuse
 * the job with.
 */
int runner_payload_check(const struct job *job, const struct lab_host *host,
			 const char *help);

/* The run_key of this runner's job for host and commit (borrowed strings). */
void runner_key(const struct runner *r, const char *host, const char *commit,
		struct run_key *key);

/*
 * The same without a runner: the names runner_init gives a job's runs
 * (kconfig by its file name, "none", "gcc" and "default" when the job
 * says nothing), for reading the store. Borrowed strings.
 */
void runner_job_key(const struct job *job, const char *host, const char *commit,
		    struct run_key *key);

/* The headline stat of the job: "stress-ng.<test>.ops_per_sec". */
char *runner_headline_stat(const struct job *job);

#endif
