// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ssh transport: the OpenSSH client, one multiplexed connection per
 * host (ControlMaster=auto, ControlPersist), BatchMode so that nothing
 * ever waits for a password. Each remote word is shell-quoted.
 *
 * ssh's own failures (exit 255) are told apart from the command's
 * status: the remote line maps a command's 255 to 254 (see
 * transport_shell_line), and ssh's messages go to a log file of their
 * own (-E), not into the command's stderr.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "lab.h"
#include "proc.h"
#include "sbuf.h"
#include "svec.h"
#include "transport.h"

/* How long an idle master connection stays up. */
#define SSH_CONTROL_PERSIST "60"

/*
 * sun_path holds 108 bytes; ssh expands %C to 40 hex digits and adds a
 * 17-byte suffix while it creates the socket.
 */
#define SSH_SOCKET_DIR_MAX 48

static char *control_dir(const struct lab *lab)
{
	char *dir = NULL;

	if (lab && lab->workdir) {
		dir = xstrfmt("%s/ssh", lab->workdir);
		if (strlen(dir) <= SSH_SOCKET_DIR_MAX)
			return dir;
		free(dir);
	}
	return xstrfmt("/tmp/robot-ssh-%u", (unsigned)getuid());
}

static int ssh_init(struct transport *t, const struct lab *lab,
		    const struct lab_host *host)
{
	char *dir = control_dir(lab);
	struct stat st;

	t->dest = xstrdup(host->ssh ? host->ssh : host->name);
	if (lab && lab->ssh_config)
		t->ssh_config = xstrdup(lab->ssh_config);
	if (rb_mkdir_p(dir) < 0) {
		free(dir);
		return -1;
	}
	/* a shared /tmp: the sockets' folder must be ours alone */
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != getuid() || chmod(dir, 0700) < 0) {
		rb_error("unsafe ssh control folder '%s'", dir);
		free(dir);
		return -1;
	}
	t->control_path = xstrfmt("%s/%%C", dir);
	free(dir);
	return 0;
}

static void ssh_argv(const struct transport *t, struct svec *argv,
		     const char *log)
{
	svec_push(argv, "ssh");
	if (t->ssh_config) {
		svec_push(argv, "-F");
		svec_push(argv, t->ssh_config);
	}
	svec_pushv(argv,
		   (const char *const[]){
			   "-o", "BatchMode=yes", "-o", "ControlMaster=auto",
			   "-o", "ControlPersist=" SSH_CONTROL_PERSIST, "-o",
			   "ServerAliveInterval=15", "-o",
			   "ServerAliveCountMax=4", "-T", NULL });
	svec_push(argv, "-o");
	svec_pushf(argv, "ConnectTimeout=%ld", t->connect_timeout);
	svec_push(argv, "-o");
	svec_pushf(argv, "ControlPath=%s", t->control_path);
	svec_push(argv, "-E");
	svec_push(argv, log);
	svec_push(argv, "--");
	svec_push(argv, t->dest);
}

/* The last non-empty line of ssh's log: its reason for failing. */
static char *last_log_line(const char *log)
{
	char *buf, *end, *start, *msg = NULL;
	size_t len;

	if (rb_read_file(log, &buf, &len) < 0)
		return NULL;
	end = buf + len;
	while (end > buf &&
	       (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	*end = '\0';
	start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	if (*start)
		msg = xstrdup(start);
	free(buf);
	return msg;
}

static char *make_log(const struct transport *t)
{
	char *dir = rb_dirname(t->control_path);
	char *log = xstrfmt("%s/log-XXXXXX", dir);
	int fd = mkostemp(log, O_CLOEXEC);

	free(dir);
	if (fd < 0) {
		rb_error("cannot create '%s': %s", log, strerror(errno));
		free(log);
		return NULL;
	}
	close(fd);
	return log;
}

static int ssh_run(struct transport *t, const struct transport_cmd *cmd,
		   struct transport_result *res)
{
	struct svec argv = SVEC_INIT;
	struct sbuf line = SBUF_INIT;
	struct proc_result pr;
	struct proc_opts o = { 0 };
	char *log = make_log(t);
	int ret = -1;

	if (!log)
		return -1;
	transport_proc_outputs(&o, cmd);
	ssh_argv(t, &argv, log);
	transport_shell_line(&line, cmd);
	svec_push(&argv, line.buf);
	o.argv = (const char *const *)argv.v;
	if (proc_run(&o, &pr) < 0)
		goto out;
	res->elapsed = pr.elapsed;
	res->timed_out = pr.timed_out;
	if (pr.timed_out) {
		/* the command's time ran out (ssh dies of our SIGTERM) */
		res->signal = pr.signal;
	} else if (pr.exited && pr.code == 255) {
		res->infra = true;
		res->msg = last_log_line(log);
		if (!res->msg)
			res->msg = xstrfmt("ssh to '%s' failed (exit 255)",
					   t->dest);
	} else {
		res->exited = pr.exited;
		res->code = pr.code;
		res->signal = pr.signal;
	}
	ret = 0;
out:
	unlink(log);
	free(log);
	sbuf_release(&line);
	svec_clear(&argv);
	return ret;
}

static int ssh_fetch(struct transport *t, const char *remote, const char *local,
		     double timeout, struct transport_result *res)
{
	char *count = xstrfmt("%u", TRANSPORT_FETCH_MAX + 1);
	const char *argv[] = { "head", "-c", count, "--", remote, NULL };
	struct sbuf err = SBUF_INIT_MAX(4096);
	struct transport_cmd cmd = {
		.argv = argv,
		.err = &err,
		.timeout = timeout,
	};
	char *tmp = xstrfmt("%s.part", local);
	int ret = -1;

	cmd.stdout_path = tmp;
	if (ssh_run(t, &cmd, res) < 0)
		goto out;
	if (res->infra) {
		rb_error("cannot fetch '%s' from '%s': %s", remote, t->host,
			 res->msg);
		goto out;
	}
	if (res->timed_out || !res->exited || res->code) {
		sbuf_rtrim(&err);
		rb_error("cannot fetch '%s' from '%s': %s", remote, t->host,
			 err.len	? err.buf :
			 res->timed_out ? "timed out" :
					  "head failed");
		goto out;
	}
	if (rename(tmp, local) < 0) {
		rb_error("cannot rename '%s' to '%s': %s", tmp, local,
			 strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	free(count);
	sbuf_release(&err);
	return ret;
}

const struct transport_ops transport_ssh_ops = {
	.init = ssh_init,
	.run = ssh_run,
	.fetch = ssh_fetch,
};
