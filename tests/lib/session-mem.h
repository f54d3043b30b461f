/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TESTS_SESSION_MEM_H
#define TESTS_SESSION_MEM_H

#include <stdbool.h>
#include <stdio.h>

#include "session.h"

/*
 * The session's ops in memory, for the unit tests and the simulation
 * (tests/bench/stats-sim.c): the real session_run over a history of
 * commits c0..cN numbered in topological order (parents first), c0 the
 * good anchor and the only root, cN the bad one and every commit its
 * ancestor: a line
 *
 *   c0 - c1 - ... - cN
 *
 * (session_mem_init) or any such DAG with merges (session_mem_init_graph,
 * e.g. from session_mem_linux_like), with the bisection's steps and samples kept in arrays and a simulated
 * lab: each host runs one run at a time, a run's value, outcome and length
 * come from a model, wait() ends the run that finishes first on a
 * simulated clock (pause() moves the clock too). Run ids are given when a
 * run starts, as the store does. Commit k's oid starts with k in 8 hex
 * digits.
 */

#define SESSION_MEM_MAX_HOSTS 16

/* One run of commit k on host h, started at time t (the clock). */
struct session_mem_model {
	void *data;
	/* The outcome; for SESSION_RUN_OK *value the metric. *duration (1
	 * when left alone) the run's length. */
	enum session_outcome (*run)(void *data, int h, long k, double t,
				    double *value, double *duration);
};

/* Where the runs went, from the steps the session appended. */
enum session_mem_kind {
	MEM_ENDPOINT, /* before the endpoint verdict */
	MEM_ANCHOR, /* an anchor next to a step's candidate */
	MEM_CAND, /* a step's candidate */
	MEM_CONFIRM, /* during a confirmation */
	MEM_KINDS
};

struct session_mem_host {
	bool busy;
	long k;
	double finish;
	struct session_result res;
	double value;
	enum session_mem_kind kind;
};

/*
 * Builds on a simulated clock (all zero, the default: kernels are ready at
 * once). A host that starts a commit whose kernel is not built waits for
 * its build on a build slot (a free one; else the slot of a build ahead,
 * which is cancelled; else after the slot that frees first); a build is
 * incremental when its slot's last build is within incr_within commits
 * (by number) of it. With `ahead`, idle slots build what the session's
 * look-ahead (ops->ahead) lists, in its order. A boot costs `boot` when
 * a host starts another commit than its last.
 */
#define SESSION_MEM_MAX_SLOTS 8
struct session_mem_costs {
	double build, build_incr, boot; /* seconds */
	long incr_within;
	int slots; /* 0: builds cost nothing */
	bool ahead;
};

struct session_mem_slot {
	bool pending; /* a build whose end is not processed yet */
	bool ahead; /* it is a build ahead (no host waits for it) */
	long k, last; /* the commit; the last one started (-1: none) */
	double until;
};

struct session_mem_samples {
	struct run_sample *v;
	size_t nr, alloc;
};

/* The parents of c0..cN: par[k][0..npar[k]) (npar[0] = 0). */
struct session_mem_graph {
	long n;
	long (*par)[2];
	int *npar;
};

struct session_mem {
	struct session_ops ops;
	struct rb_range range;
	long n; /* commits c0..cN: n = N */
	struct session_mem_graph graph;
	uint64_t *anc; /* row k: the ancestors of k and k itself, bits */
	size_t anc_words;
	int nr_hosts;
	char names[SESSION_MEM_MAX_HOSTS][16];
	const char *hosts[SESSION_MEM_MAX_HOSTS];
	struct session_mem_model model;
	/* the records of the bisection */
	struct bisection_step_rec *steps;
	size_t steps_nr, steps_alloc;
	struct session_mem_samples *samples; /* per commit */
	int64_t run_id;
	/* the lab */
	struct session_mem_host host[SESSION_MEM_MAX_HOSTS];
	double clock;
	int phase;
	long runs, kind_runs[MEM_KINDS];
	/* boots: a host that starts a run of another commit than its last
	 * (booted[h]: k + 1 of that commit, 0 none), as the measure path */
	long booted[SESSION_MEM_MAX_HOSTS];
	long boots, kind_boots[MEM_KINDS];
	/* builds (costs set by the caller; the rest per bisection) */
	struct session_mem_costs cost;
	struct session_mem_slot slot[SESSION_MEM_MAX_SLOTS];
	uint8_t *art, *art_flags; /* per commit */
	double *built_at; /* per commit: when its kernel is (was) ready */
	long *ahead_k; /* the last look-ahead */
	size_t ahead_nr;
	long ahead_calls;
	long builds; /* started (ahead or for a host) */
	long builds_ahead; /* started ahead */
	long builds_cancelled; /* ahead, cancelled for a host's build */
	double build_wait; /* seconds hosts waited for kernels */
	/* the session's events and status line (NULL: none), as on a
	 * terminal when tty */
	FILE *progress;
	bool tty;
};

/* A history of n + 1 commits (n >= 1) and nr_hosts hosts "h0", "h1"... */
void session_mem_init(struct session_mem *m, long n, int nr_hosts,
		      const struct session_mem_model *model);
/*
 * The same over a DAG (copied): every k >= 1 has one or two parents < k,
 * all commits are ancestors of cN.
 */
void session_mem_init_graph(struct session_mem *m,
			    const struct session_mem_graph *g, int nr_hosts,
			    const struct session_mem_model *model);
/*
 * A linux-like history of n + 1 commits from seed: a mainline where about
 * a quarter of the commits are merges of topic branches of 1 to 8 commits
 * forked from a recent mainline commit. Release with session_mem_graph_release.
 */
void session_mem_linux_like(struct session_mem_graph *g, long n, uint64_t seed);
void session_mem_graph_release(struct session_mem_graph *g);
/* Does commit k contain commit a (a is k or an ancestor of it)? */
bool session_mem_contains(const struct session_mem *m, long k, long a);

/* Forget the bisection (records, lab, clock): the next run starts anew. */
void session_mem_reset(struct session_mem *m);
void session_mem_release(struct session_mem *m);

/* Builds started ahead that no host used (cancelled ones included). */
long session_mem_builds_wasted(const struct session_mem *m);

/* Run (or resume, when records are left) the bisection. session_run's. */
int session_mem_run(struct session_mem *m, const struct stats_policy *pol,
		    struct session_outcome_info *out);

/* Commit k's hex oid into buf (41 bytes); the k of a hex oid, or -1. */
char *session_mem_hex(long k, char *buf);
long session_mem_commit(const struct session_mem *m, const char *hex);

/* Steps of a kind so far; and of a kind whose detail holds `needle`. */
size_t session_mem_count_steps(const struct session_mem *m, const char *kind,
			       const char *needle);

#endif
