/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_BUILD_GATE_H
#define ROBOT_BUILD_GATE_H

#include <pthread.h>
#include <stdbool.h>

struct svec;

/*
 * Build slots shared by the threads of one robot: the boxes' own builds
 * (runner_build) and builds ahead of need (runner_build_ahead). A slot is
 * this machine (the first `local` ones) or one build host each (the
 * build hook reaches it through ROBOT_BUILD_HOST).
 *
 * A box never waits for a guess: a box's build takes a free slot, or
 * cancels the build ahead of the largest rank (the least likely to be
 * needed) and takes its slot once it is left; only when every slot runs
 * a box's build does it wait. A build ahead takes a slot only when one
 * is free.
 *
 * The cancel descriptor of a ticket turns readable when its build must
 * stop (proc_opts.cancel_fd): a box wants the slot, or the gate closed.
 */
struct build_ticket {
	int slot; /* -1: none taken */
	const char *host; /* the build host, NULL: this machine */
	int cancel_fd; /* a build ahead's, else 0 */
};

struct build_gate_slot {
	bool busy;
	bool ahead;
	bool cancelling; /* its cancel descriptor was signalled */
	unsigned rank;
	int efd; /* eventfd */
};

struct build_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int nr;
	int local;
	const struct svec *hosts; /* borrowed */
	struct build_gate_slot *slot;
	unsigned long epoch; /* bumped when a slot is left or on a poke */
	bool closed;
	long cancelled; /* builds ahead cancelled for a box */
};

/* local slots (>= 1) and the build hosts (may be NULL; borrowed). 0 or -1. */
int build_gate_init(struct build_gate *g, int local, const struct svec *hosts);
void build_gate_release(struct build_gate *g);

/* A box's build: a slot, now or after a build ahead is cancelled. */
void build_gate_enter(struct build_gate *g, struct build_ticket *t);
/* A build ahead of rank (0: the likeliest): a free slot or false. */
bool build_gate_try(struct build_gate *g, unsigned rank,
		    struct build_ticket *t);
void build_gate_leave(struct build_gate *g, struct build_ticket *t);

/*
 * Wait until a slot was left (or build_gate_poke, or the gate closed)
 * since *seen (start from build_gate_epoch); *seen is updated. Returns
 * false once the gate is closed.
 */
unsigned long build_gate_epoch(struct build_gate *g);
bool build_gate_wait(struct build_gate *g, unsigned long *seen);
void build_gate_poke(struct build_gate *g);
/* No more builds ahead: those running are cancelled, waiters return. */
void build_gate_close(struct build_gate *g);

#endif
