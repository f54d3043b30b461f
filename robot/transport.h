/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_TRANSPORT_H
#define ROBOT_TRANSPORT_H

#include <stdbool.h>

#include "proc.h"

struct lab;
struct lab_host;
struct sbuf;

/*
 * How the robot reaches a test host: a table of ops, one file each
 * (transport-local.c, transport-ssh.c), one row in transport_ops_table.
 *
 * Every command is an argv. The ssh transport quotes each word for the
 * remote shell (sbuf_add_shell_quoted), so values from job files never
 * become shell code.
 */
struct transport_cmd {
	const char *const *argv;
	/* NAME=VALUE set for the command on the host */
	const char *const *env;
	/* working directory on the host, or NULL */
	const char *cwd;
	/* local files for the output, or capped captures, or neither */
	const char *stdout_path;
	const char *stderr_path;
	struct sbuf *out;
	struct sbuf *err;
	/* seconds; 0: none */
	double timeout;
};

struct transport_result {
	/*
	 * The transport itself failed (ssh could not connect, ssh's exit
	 * 255, the connection dropped): an infrastructure failure, never
	 * the command's verdict. msg says why (ssh's own message).
	 */
	bool infra;
	char *msg;
	/* otherwise the command's outcome on the host */
	bool exited;
	int code;
	int signal;
	bool timed_out;
	double elapsed;
};

void transport_result_release(struct transport_result *r);
/* "exit 3", "timed out after 60s", "ssh: connect to host ... refused" */
const char *transport_describe(const struct transport_result *r,
			       struct sbuf *buf);

struct transport;

struct transport_ops {
	/*
	 * The host is the robot's own machine: a run writes into its result
	 * directory directly (nothing to fetch, no ssh destination).
	 */
	bool here;
	/*
	 * The host is a slot of a lab engine's pool (LAVA): it runs whole
	 * batches (boot and runs, lava-exec.c), never single commands; run
	 * and fetch are not there.
	 */
	bool batch;
	int (*init)(struct transport *t, const struct lab *lab,
		    const struct lab_host *host);
	/*
	 * Run cmd on the host. 0 when the outcome is in res (including
	 * res->infra); -1 when nothing could be started locally.
	 */
	int (*run)(struct transport *t, const struct transport_cmd *cmd,
		   struct transport_result *res);
	/*
	 * Copy the host's file remote to the local path (atomically), at
	 * most TRANSPORT_FETCH_MAX + 1 bytes of it: a runaway payload's
	 * output arrives cut, larger than readers accept, never whole.
	 */
	int (*fetch)(struct transport *t, const char *remote, const char *local,
		     double timeout, struct transport_result *res);
	void (*release)(struct transport *t);
};

#define TRANSPORT_FETCH_MAX (64u << 20)

struct transport {
	const struct transport_ops *ops;
	char *host;
	/* ssh: destination, -F file (or NULL), ControlPath */
	char *dest;
	char *ssh_config;
	char *control_path;
	/* seconds */
	long connect_timeout;
};

extern const struct transport_ops transport_local_ops;
extern const struct transport_ops transport_ssh_ops;
extern const struct transport_ops transport_lava_ops;

/*
 * The transports' names, NULL-terminated, the first one the default (the
 * lab's schema takes its allowed values from here), and the ops of a name
 * (NULL when unknown). transport.c keeps the one table.
 */
extern const char *const transport_names[];
const struct transport_ops *transport_find(const char *name);
/* Does the host's transport run on the robot's machine? */
bool transport_host_is_here(const struct lab_host *host);

/* Is the host a slot of the lab's LAVA pool? */
bool transport_host_is_lava(const struct lab_host *host);
/* Set up t for host of lab (t->ops from host->transport). 0 or -1. */
int transport_open(struct transport *t, const struct lab *lab,
		   const struct lab_host *host);
void transport_close(struct transport *t);
int transport_run(struct transport *t, const struct transport_cmd *cmd,
		  struct transport_result *res);
int transport_fetch(struct transport *t, const char *remote, const char *local,
		    double timeout, struct transport_result *res);

/*
 * The proc_run options of a command's outputs and timeout (for the
 * transports that run a local child: the command itself, or ssh).
 */
void transport_proc_outputs(struct proc_opts *o,
			    const struct transport_cmd *cmd);
/* Build the remote shell line for argv/env/cwd (for ssh; exposed to tests). */
void transport_shell_line(struct sbuf *sb, const struct transport_cmd *cmd);

#endif
