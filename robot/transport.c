// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of transports and what they share.
 */
#include "robot.h"
#include "lab.h"
#include "sbuf.h"
#include "transport.h"

/* The one table: a name and its ops, in the same order. */
const char *const transport_names[] = { "ssh", "local", "lava", NULL };
static const struct transport_ops *const transports[] = {
	&transport_ssh_ops,
	&transport_local_ops,
	&transport_lava_ops,
};
_Static_assert(RB_ARRAY_SIZE(transport_names) == RB_ARRAY_SIZE(transports) + 1,
	       "a name for each transport");

const struct transport_ops *transport_find(const char *name)
{
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(transports); i++)
		if (name && !strcmp(transport_names[i], name))
			return transports[i];
	return NULL;
}

bool transport_host_is_here(const struct lab_host *host)
{
	const struct transport_ops *ops = transport_find(
		host->transport ? host->transport : transport_names[0]);

	return ops && ops->here;
}

bool transport_host_is_lava(const struct lab_host *host)
{
	const struct transport_ops *ops = transport_find(
		host->transport ? host->transport : transport_names[0]);

	return ops && ops->batch;
}

int transport_open(struct transport *t, const struct lab *lab,
		   const struct lab_host *host)
{
	const struct transport_ops *ops = transport_find(host->transport);

	memset(t, 0, sizeof(*t));
	if (!ops)
		return rb_error("host '%s': unknown transport '%s'", host->name,
				host->transport);
	t->ops = ops;
	t->host = xstrdup(host->name);
	t->connect_timeout = 10;
	if (ops->init(t, lab, host) < 0) {
		transport_close(t);
		return -1;
	}
	return 0;
}

void transport_close(struct transport *t)
{
	if (t->ops && t->ops->release)
		t->ops->release(t);
	free(t->host);
	free(t->dest);
	free(t->ssh_config);
	free(t->control_path);
	memset(t, 0, sizeof(*t));
}

void transport_proc_outputs(struct proc_opts *o,
			    const struct transport_cmd *cmd)
{
	o->stdout_path = cmd->stdout_path;
	o->stderr_path = cmd->stderr_path;
	o->out = cmd->out;
	o->err = cmd->err;
	o->timeout = cmd->timeout;
}

int transport_run(struct transport *t, const struct transport_cmd *cmd,
		  struct transport_result *res)
{
	memset(res, 0, sizeof(*res));
	return t->ops->run(t, cmd, res);
}

int transport_fetch(struct transport *t, const char *remote, const char *local,
		    double timeout, struct transport_result *res)
{
	memset(res, 0, sizeof(*res));
	return t->ops->fetch(t, remote, local, timeout, res);
}

void transport_result_release(struct transport_result *r)
{
	free(r->msg);
	memset(r, 0, sizeof(*r));
}

const char *transport_describe(const struct transport_result *r,
			       struct sbuf *buf)
{
	sbuf_reset(buf);
	if (r->infra)
		sbuf_addstr(buf, r->msg ? r->msg : "transport failure");
	else if (r->timed_out)
		sbuf_addf(buf, "timed out after %.0fs", r->elapsed);
	else if (r->exited)
		sbuf_addf(buf, "exit %d", r->code);
	else if (r->signal)
		sbuf_addf(buf, "killed by signal %d", r->signal);
	else
		sbuf_addstr(buf, "unknown status");
	if (!r->infra && r->msg)
		sbuf_addf(buf, ": %s", r->msg);
	return buf->buf;
}

static bool env_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/*
 * The line a remote POSIX shell runs:
 *   cd 'DIR' && NAME='value' 'argv0' 'arg'...; rc=$?; ...; exit $rc
 * Every word is single-quoted. ssh reserves exit status 255 for its own
 * failures, so a command's own 255 comes back as 254.
 */
void transport_shell_line(struct sbuf *sb, const struct transport_cmd *cmd)
{
	const char *const *p;

	if (cmd->cwd) {
		sbuf_addstr(sb, "cd ");
		sbuf_add_shell_quoted(sb, cmd->cwd);
		sbuf_addstr(sb, " && ");
	}
	for (p = cmd->env; p && *p; p++) {
		const char *eq = strchr(*p, '=');

		if (!eq || !env_name_ok(*p, (size_t)(eq - *p)))
			RB_BUG("bad environment entry '%s'", *p);
		sbuf_add(sb, *p, (size_t)(eq - *p) + 1);
		sbuf_add_shell_quoted(sb, eq + 1);
		sbuf_addch(sb, ' ');
	}
	for (p = cmd->argv; *p; p++) {
		if (p != cmd->argv)
			sbuf_addch(sb, ' ');
		sbuf_add_shell_quoted(sb, *p);
	}
	sbuf_addstr(sb, "; rc=$?; [ \"$rc\" -ne 255 ] || rc=254; exit \"$rc\"");
}
