/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_CONTEXT_H
#define ROBOT_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "job.h"
#include "lab.h"
#include "svec.h"

struct store;
struct rb_repo;
struct workdir_lock;

/*
 * What every command that runs things starts from: the lab, the one atomic
 * job it works on (per host: nr_threads resolves against each host's CPUs),
 * the hosts it may use, the workdir lock, the store and the kernel tree.
 *
 *   ctx_open   ctx_open_input, then ctx_open_workdir
 *   ctx_open_input
 *              loads the lab and the job, selects the atomic job with the
 *              k=v filters, picks the hosts (all of them, or the named
 *              ones), opens the repository: reads only, so a command can
 *              refuse its input (a revision) before the workdir exists
 *   ctx_open_workdir
 *              takes the workdir lock (when `what` is not NULL) and opens
 *              the store, creating the workdir; on -1 the caller closes
 *   ctx_job    the job resolved for a host (nr_cpu from the lab, or read
 *              with `nproc` over the host's transport when the lab does not
 *              say); owned by the context
 */
struct ctx {
	struct lab lab;
	bool lab_loaded;
	struct job_list jobs;
	struct job *job; /* the selected atomic job (unresolved) */
	const struct lab_host **hosts;
	size_t nr_hosts;
	struct job **host_jobs; /* per host, resolved, or NULL */
	struct workdir_lock *lock;
	struct store *st;
	struct rb_repo *repo;
};

struct ctx_opts {
	const char *lab;
	const char *job;
	const char *const *params; /* k=v filters */
	size_t nr_params;
	const char *hosts; /* "a,b" or NULL: all */
	const char *what; /* for the lock note; NULL: no lock */
	bool need_repo;
};

int ctx_open(struct ctx *c, const struct ctx_opts *o);
int ctx_open_input(struct ctx *c, const struct ctx_opts *o);
int ctx_open_workdir(struct ctx *c, const char *what);
void ctx_close(struct ctx *c);

/* The job resolved for host i; NULL with an error (or when it resolves to
 * zero threads on that host: "dropped"). */
struct job *ctx_job(struct ctx *c, size_t i);

#endif
