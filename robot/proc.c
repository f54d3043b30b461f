// SPDX-License-Identifier: GPL-2.0-only
/*
 * Child processes from an argv, with capture, files and a timeout that
 * ends the whole process group. The waiting is poll(2) on a pidfd and
 * the capture pipes.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot.h"
#include "proc.h"
#include "sbuf.h"
#include "svec.h"

extern char **environ;

/* What the child reports through the exec pipe when it cannot exec. */
struct child_err {
	int step; /* 1: chdir, 2: exec */
	int err;
};

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int open_out(const char *path, bool append)
{
	int fd = open(path,
		      O_WRONLY | O_CREAT | O_CLOEXEC |
			      (append ? O_APPEND : O_TRUNC),
		      0644);

	if (fd < 0)
		rb_error("cannot open '%s': %s", path, strerror(errno));
	return fd;
}

static void build_env(struct svec *env, const char *const *add)
{
	char **e;

	for (e = environ; e && *e; e++)
		svec_push(env, *e);
	for (; add && *add; add++) {
		const char *eq = strchr(*add, '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(*add, (size_t)(eq - *add));
		svec_setenv(env, name, eq + 1);
		free(name);
	}
}

/* In the child, after fork: only async-signal-safe calls from here on. */
RB_NORETURN static void child(const struct proc_opts *o, char **envp, int in,
			      int out, int err, int report)
{
	struct child_err ce;
	sigset_t none;

	setsid();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* robot ignores SIGPIPE; its children must not inherit that */
	signal(SIGPIPE, SIG_DFL);
	if (in >= 0)
		dup2(in, 0);
	if (out >= 0)
		dup2(out, 1);
	if (err >= 0)
		dup2(err, 2);
	if (o->cwd && chdir(o->cwd) < 0) {
		ce.step = 1;
		ce.err = errno;
		if (write(report, &ce, sizeof(ce)) < 0)
			_exit(126);
		_exit(126);
	}
	execvpe(o->argv[0], (char *const *)o->argv, envp);
	ce.step = 2;
	ce.err = errno;
	if (write(report, &ce, sizeof(ce)) < 0)
		_exit(127);
	_exit(127);
}

struct capture {
	int fd;
	struct sbuf *sb;
};

/* Read what is there; false at EOF or error. */
static bool pump(struct capture *c)
{
	char buf[65536];
	ssize_t n = read(c->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	/* the head is kept up to the cap; the rest is dropped */
	if (c->sb->max && c->sb->len + (size_t)n > c->sb->max) {
		size_t room =
			c->sb->max > c->sb->len ? c->sb->max - c->sb->len : 0;

		sbuf_add(c->sb, buf, room);
		c->sb->truncated = true;
		return true;
	}
	sbuf_add(c->sb, buf, (size_t)n);
	return true;
}

static int ms_until(double deadline, double now)
{
	double left = deadline - now;

	if (left <= 0)
		return 0;
	if (left > 86400.0)
		return 86400 * 1000;
	return (int)(left * 1000.0) + 1;
}

int proc_run(const struct proc_opts *o, struct proc_result *res)
{
	struct svec env = SVEC_INIT;
	struct capture cap[2] = { { -1, NULL }, { -1, NULL } };
	int in = -1, out = -1, err = -1, report[2] = { -1, -1 };
	int pidfd = -1, status = 0, ret = -1, i;
	double start, deadline = 0, drain_end = 0;
	double grace = o->kill_grace > 0 ? o->kill_grace : 5.0;
	double drain = o->drain > 0 ? o->drain : 2.0;
	bool leader_gone = false, reaped = false, killed = false;
	struct child_err ce;
	ssize_t n;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (!o->argv || !o->argv[0])
		return rb_error("no program to run");
	in = open(o->stdin_path ? o->stdin_path : "/dev/null",
		  O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		rb_error("cannot open '%s': %s",
			 o->stdin_path ? o->stdin_path : "/dev/null",
			 strerror(errno));
		goto out;
	}
	if (o->stdout_path) {
		out = open_out(o->stdout_path, o->append);
		if (out < 0)
			goto out;
	} else if (o->out) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			rb_error("cannot create a pipe: %s", strerror(errno));
			goto out;
		}
		cap[0].fd = p[0];
		cap[0].sb = o->out;
		out = p[1];
	}
	if (o->stderr_to_stdout) {
		if (out >= 0) {
			err = dup(out);
			fcntl(err, F_SETFD, FD_CLOEXEC);
		}
	} else if (o->stderr_path) {
		err = open_out(o->stderr_path, o->append);
		if (err < 0)
			goto out;
	} else if (o->err) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			rb_error("cannot create a pipe: %s", strerror(errno));
			goto out;
		}
		cap[1].fd = p[0];
		cap[1].sb = o->err;
		err = p[1];
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		rb_error("cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	build_env(&env, o->env);
	fflush(stdout);
	fflush(stderr);
	start = rb_monotonic();
	pid = fork();
	if (pid < 0) {
		rb_error("cannot fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		child(o, env.v, in, out, err, report[1]);
	res->pid = pid;
	close_fd(&report[1]);
	close_fd(&in);
	close_fd(&out);
	close_fd(&err);
	do {
		n = read(report[0], &ce, sizeof(ce));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(ce)) {
		waitpid(pid, &status, 0);
		if (ce.step == 1)
			rb_error("cannot change to directory '%s': %s", o->cwd,
				 strerror(ce.err));
		else
			rb_error("cannot run '%s': %s", o->argv[0],
				 strerror(ce.err));
		goto out;
	}
	pidfd = pidfd_open_(pid);
	if (pidfd < 0) {
		rb_error("pidfd_open: %s (linux 5.3 or later is needed)",
			 strerror(errno));
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		goto out;
	}
	if (o->timeout > 0)
		deadline = start + o->timeout;
	for (;;) {
		struct pollfd pfd[3];
		int nfds = 0, wait_ms = -1, r;
		double now = rb_monotonic();

		if (reaped && (cap[0].fd < 0 || now >= drain_end) &&
		    (cap[1].fd < 0 || now >= drain_end))
			break;
		if (!leader_gone && deadline > 0 && now >= deadline) {
			if (!res->timed_out) {
				res->timed_out = true;
				kill(-pid, SIGTERM);
				deadline = now + grace;
			} else {
				kill(-pid, SIGKILL);
				killed = true;
				deadline = 0;
			}
			continue;
		}
		if (!leader_gone) {
			pfd[nfds].fd = pidfd;
			pfd[nfds++].events = POLLIN;
			if (deadline > 0)
				wait_ms = ms_until(deadline, now);
		} else {
			wait_ms = ms_until(drain_end, now);
		}
		for (i = 0; i < 2; i++) {
			if (cap[i].fd < 0)
				continue;
			pfd[nfds].fd = cap[i].fd;
			pfd[nfds++].events = POLLIN;
		}
		if (!nfds)
			break;
		r = poll(pfd, (nfds_t)nfds, wait_ms);
		if (r < 0 && errno != EINTR) {
			rb_error("poll: %s", strerror(errno));
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			goto out;
		}
		if (r <= 0)
			continue;
		for (i = 0; i < nfds; i++) {
			int k;

			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == pidfd) {
				/*
				 * The child is gone. After a timeout its
				 * group follows it at once; the zombie we
				 * have not reaped yet keeps the group id
				 * from being reused meanwhile.
				 */
				if (res->timed_out && !killed)
					kill(-pid, SIGKILL);
				waitpid(pid, &status, 0);
				leader_gone = true;
				reaped = true;
				drain_end = rb_monotonic() + drain;
				continue;
			}
			for (k = 0; k < 2; k++)
				if (cap[k].fd == pfd[i].fd && !pump(&cap[k]))
					close_fd(&cap[k].fd);
		}
	}
	res->elapsed = rb_monotonic() - start;
	if (WIFEXITED(status)) {
		res->exited = true;
		res->code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
	}
	ret = 0;
out:
	close_fd(&pidfd);
	close_fd(&report[0]);
	close_fd(&report[1]);
	close_fd(&in);
	close_fd(&out);
	close_fd(&err);
	close_fd(&cap[0].fd);
	close_fd(&cap[1].fd);
	svec_clear(&env);
	return ret;
}

bool proc_ok(const struct proc_result *res)
{
	return res->exited && res->code == 0 && !res->timed_out;
}

const char *proc_describe(const struct proc_result *res, struct sbuf *buf)
{
	sbuf_reset(buf);
	if (res->timed_out)
		sbuf_addf(buf, "timed out after %.0fs (%s)", res->elapsed,
			  res->signal ? strsignal(res->signal) : "exited");
	else if (res->exited)
		sbuf_addf(buf, "exit %d", res->code);
	else if (res->signal)
		sbuf_addf(buf, "killed by signal %d (%s)", res->signal,
			  strsignal(res->signal));
	else
		sbuf_addstr(buf, "unknown status");
	return buf->buf;
}
