// SPDX-License-Identifier: GPL-2.0-only
/*
 * The local transport: the host is this machine; commands are forked
 * and executed directly.
 */
#include "robot.h"
#include "lab.h"
#include "proc.h"
#include "sbuf.h"
#include "transport.h"

static int local_init(struct transport *t, const struct lab *lab,
		      const struct lab_host *host)
{
	t->dest = xstrdup("localhost");
	return 0;
}

static int local_run(struct transport *t, const struct transport_cmd *cmd,
		     struct transport_result *res)
{
	struct proc_opts o = {
		.argv = cmd->argv,
		.env = cmd->env,
		.cwd = cmd->cwd,
	};
	struct proc_result pr;

	transport_proc_outputs(&o, cmd);
	if (proc_run(&o, &pr) < 0) {
		/* what a shell says for a missing program */
		res->exited = true;
		res->code = 127;
		res->msg = xstrdup(rb_errmsg());
		return 0;
	}
	res->exited = pr.exited;
	res->code = pr.code;
	res->signal = pr.signal;
	res->timed_out = pr.timed_out;
	res->elapsed = pr.elapsed;
	return 0;
}

static int local_fetch(struct transport *t, const char *remote,
		       const char *local, double timeout,
		       struct transport_result *res)
{
	res->exited = true;
	if (rb_copy_file(remote, local) < 0) {
		res->code = 1;
		res->msg = xstrdup(rb_errmsg());
		return -1;
	}
	res->code = 0;
	return 0;
}

const struct transport_ops transport_local_ops = {
	.here = true,
	.init = local_init,
	.run = local_run,
	.fetch = local_fetch,
};
