/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SESSION_EXEC_H
#define ROBOT_SESSION_EXEC_H

#include <stdint.h>

#include "session.h"

struct ctx;

/*
 * The real executor of a session: one worker thread per host, each with its
 * own runner, store connection (tagged with the bisection) and repository
 * handle, building (slot = host index), booting when the host runs another
 * commit, and running the payload once per task.
 */
struct session_exec_real;

int session_exec_real_start(struct session_exec_real **out, struct ctx *c,
			    int64_t bisection_id, struct session_exec *ops);
/* Stop the workers (after their current task) and free everything. */
void session_exec_real_stop(struct session_exec_real *x);

#endif
