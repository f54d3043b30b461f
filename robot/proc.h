/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_PROC_H
#define ROBOT_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct sbuf;

/*
 * Child processes: always from an argv, never a shell string.
 *
 * The child runs in a session (and process group) of its own, so a
 * timeout can end it and everything it started: SIGTERM to the group,
 * then, kill_grace seconds later, SIGKILL. Waiting uses a pidfd and
 * poll(2): no sleeping, no SIGCHLD handler.
 *
 * stdout and stderr each go to a file (truncated, or appended), into a
 * capped sbuf (the sbuf's max; output past it is read and dropped, and
 * the sbuf is marked truncated), or are inherited. stdin is /dev/null
 * unless stdin_path says otherwise.
 */
struct proc_opts {
	/* argv[0] is looked up in PATH */
	const char *const *argv;
	/* NAME=VALUE entries added to (or replacing in) our environment */
	const char *const *env;
	/* working directory of the child, or NULL */
	const char *cwd;
	const char *stdin_path;
	const char *stdout_path;
	const char *stderr_path;
	bool append;
	struct sbuf *out;
	struct sbuf *err;
	/* stderr goes wherever stdout goes */
	bool stderr_to_stdout;
	/* seconds; 0: no timeout */
	double timeout;
	/* seconds between SIGTERM and SIGKILL (default 5) */
	double kill_grace;
	/*
	 * After the child exits, its stray descendants may hold the capture
	 * pipes open: stop reading them after this many seconds (default 2).
	 */
	double drain;
	/*
	 * A descriptor (an eventfd, a pipe's read end) that turns readable
	 * to cancel the child: its group is stopped as at a timeout
	 * (SIGTERM, kill_grace, SIGKILL) and res.cancelled says so. 0: none
	 * (a cancel descriptor is never stdin).
	 */
	int cancel_fd;
};

struct proc_result {
	pid_t pid;
	/* exited normally with code */
	bool exited;
	int code;
	/* killed by this signal (0: none) */
	int signal;
	/* the timeout fired (then signal says how it died) */
	bool timed_out;
	/* cancel_fd turned readable and the child was stopped */
	bool cancelled;
	double elapsed;
};

/*
 * Run the child to its end. Returns 0 when it ran (whatever its status:
 * see res), -1 with an error when it could not be started (no such
 * program, cwd or file missing, fork failure).
 */
int proc_run(const struct proc_opts *o, struct proc_result *res);

/*
 * A child whose environment names a workdir (ROBOT_WORKDIR=..., as hooks
 * and local payloads have it) is tracked while it runs: a file
 * <workdir>/procs/<pid> holds the boot id; the child leads a session of
 * its own. When the robot is killed, the child and what it started live
 * on (a build still writing the artifacts, a payload loading the CPUs).
 * proc_reap_workdir, called by the next robot once it holds the
 * workdir's lock, SIGKILLs every process of those sessions that still
 * carries that ROBOT_WORKDIR (daemons that left the session, such as the
 * QEMU box, are not touched), waits for them to end, and clears the
 * entries. *stopped: how many processes it killed.
 */
int proc_reap_workdir(const char *workdir, unsigned *stopped);

/* "exit 3", "killed by SIGKILL", "timed out after 10s (SIGTERM)" */
const char *proc_describe(const struct proc_result *res, struct sbuf *buf);

/* exited with code 0 */
bool proc_ok(const struct proc_result *res);

#endif
