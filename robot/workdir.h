/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_WORKDIR_H
#define ROBOT_WORKDIR_H

#include <stdbool.h>

/*
 * An advisory lock on `<workdir>/lock` (flock), held until
 * workdir_lock_release or process exit. A second robot on the same
 * workdir gets -1 and a message naming the holder's pid and command
 * (what). Once held, the hooks and payloads a killed robot left running on
 * the workdir are stopped first (proc_reap_workdir), with a notice.
 */
struct workdir_lock;
int workdir_lock_take(struct workdir_lock **out, const char *workdir,
		      const char *what);
void workdir_lock_release(struct workdir_lock *lk);
/* Whether a robot holds the workdir's lock now (without taking it). */
bool workdir_in_use(const char *workdir);

#endif
