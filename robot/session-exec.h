/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SESSION_EXEC_H
#define ROBOT_SESSION_EXEC_H

#include <stdint.h>

#include "session.h"

struct ctx;

/*
 * The real ops of a session: bisection_id's steps and samples of metric in
 * the context's store, parents from its repository, and one worker thread
 * per host, each with its own runner, store connection (tagged with the
 * bisection) and repository handle, building (slot = host index), booting
 * when the host runs another commit, and running the payload once per
 * task. metric must outlive the ops.
 */
struct session_exec_real;

int session_exec_real_start(struct session_exec_real **out, struct ctx *c,
			    int64_t bisection_id, const char *metric,
			    struct session_ops *ops);
/* Stop the workers (after their current task) and free everything. */
void session_exec_real_stop(struct session_exec_real *x);

#endif
