// SPDX-License-Identifier: GPL-2.0-only
/*
 * Child processes from an argv, with capture, files and a timeout that
 * ends the whole process group. The waiting is poll(2) on a pidfd and
 * the capture pipes.
 */
#include <dirent.h>
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

static int pidfd_kill(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
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

/* --- children of a workdir ------------------------------------------ */

#define WORKDIR_ENV "ROBOT_WORKDIR="

/* This boot's id (the kernel's random boot_id), into buf. */
static void boot_id(char *buf, size_t n)
{
	char *t = NULL;
	size_t len;

	snprintf(buf, n, "unknown");
	if (rb_read_file("/proc/sys/kernel/random/boot_id", &t, &len) == 0) {
		snprintf(buf, n, "%.*s", (int)strcspn(t, "\n"), t);
		free(t);
	}
}

/* The workdir a child belongs to (its ROBOT_WORKDIR), or NULL. */
static const char *env_workdir(const char *const *env)
{
	for (; env && *env; env++)
		if (rb_starts_with(*env, WORKDIR_ENV) &&
		    (*env)[strlen(WORKDIR_ENV)])
			return *env + strlen(WORKDIR_ENV);
	return NULL;
}

/*
 * What the child needs to track itself: the directory <workdir>/procs
 * (created) and the boot id, prepared before the fork; NULL when the
 * directory cannot be made (the child runs untracked then).
 */
struct track {
	char *dir;
	char id[64];
};

static struct track *track_prepare(const char *workdir)
{
	struct track *t = xcalloc(1, sizeof(*t));

	t->dir = rb_path_join(workdir, "procs");
	if (rb_mkdir_p(t->dir) < 0) {
		rb_error_clear();
		free(t->dir);
		free(t);
		return NULL;
	}
	boot_id(t->id, sizeof(t->id));
	return t;
}

/*
 * In the child, before it execs (async-signal-safe): <dir>/<pid> with the
 * boot id, so that the entry exists before the hook does anything.
 */
static void track_self(const struct track *t)
{
	char path[4096], digits[24];
	size_t n = strlen(t->dir), k = 0;
	unsigned long pid = (unsigned long)getpid();
	int fd;

	if (n + sizeof(digits) + 2 > sizeof(path))
		return;
	do {
		digits[k++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid);
	memcpy(path, t->dir, n);
	path[n++] = '/';
	while (k)
		path[n++] = digits[--k];
	path[n] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, t->id, strlen(t->id)) < 0) {
		/* an entry that does not match the boot id is ignored */
	}
	close(fd);
}

static void track_end(struct track *t, pid_t pid)
{
	char *path;

	if (!t)
		return;
	if (pid > 0) {
		path = xstrfmt("%s/%ld", t->dir, (long)pid);
		unlink(path);
		free(path);
	}
	free(t->dir);
	free(t);
}

/* The session of pid (/proc/<pid>/stat), or -1. */
static long session_of(long pid)
{
	char path[64], buf[1024], st;
	const char *p;
	long ppid, pgrp, sid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp session ...": comm may hold ')' */
	p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 1, " %c %ld %ld %ld", &st, &ppid, &pgrp, &sid) != 4)
		return -1;
	return sid;
}

/* Does pid's environment hold exactly entry? */
static bool env_has(long pid, const char *entry)
{
	char path[64], *t;
	size_t len, i;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	if (rb_read_file(path, &t, &len) < 0) {
		rb_error_clear();
		return false;
	}
	for (i = 0; i < len && !found; i += strlen(t + i) + 1)
		found = !strcmp(t + i, entry);
	free(t);
	return found;
}

static bool in_list(const long *v, size_t n, long x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/*
 * SIGKILL every process of the sessions sids that carries entry in its
 * environment; wait (up to 10 s) until they are gone. Returns how many.
 */
static unsigned kill_sessions(const long *sids, size_t nsid, const char *entry)
{
	struct pollfd *pfd = NULL;
	size_t n = 0, alloc = 0, i;
	struct dirent *de;
	DIR *d = opendir("/proc");
	double end;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid;
		int fd;

		if (rb_parse_long(de->d_name, &pid) < 0 || pid <= 1 ||
		    pid == (long)getpid() ||
		    !in_list(sids, nsid, session_of(pid)))
			continue;
		/* the pidfd pins the process: check again, then kill */
		fd = pidfd_open_((pid_t)pid);
		if (fd < 0)
			continue;
		if (!in_list(sids, nsid, session_of(pid)) ||
		    !env_has(pid, entry) || pidfd_kill(fd, SIGKILL) < 0) {
			close(fd);
			continue;
		}
		RB_ALLOC_GROW(pfd, n + 1, alloc);
		pfd[n].fd = fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	closedir(d);
	end = rb_monotonic() + 10;
	for (i = 0; i < n;) {
		int r = poll(&pfd[i], 1, ms_until(end, rb_monotonic()));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rb_warn("a process left by an interrupted robot "
				"does not end after SIGKILL");
			break;
		}
		i++;
	}
	for (i = 0; i < n; i++)
		close(pfd[i].fd);
	free(pfd);
	return (unsigned)n;
}

int proc_reap_workdir(const char *workdir, unsigned *stopped)
{
	char *dir = rb_path_join(workdir, "procs"), *entry, id[64];
	long *sids = NULL;
	size_t nsid = 0, alloc = 0;
	struct dirent *de;
	unsigned got;
	int round;
	DIR *d;

	*stopped = 0;
	d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	boot_id(id, sizeof(id));
	while ((de = readdir(d))) {
		char *path, *t;
		long pid;

		if (rb_parse_long(de->d_name, &pid) < 0 || pid <= 1)
			continue;
		path = xstrfmt("%s/%s", dir, de->d_name);
		if (rb_read_file(path, &t, NULL) == 0) {
			/* after a reboot, nothing of it is left */
			if (!strcmp(t, id)) {
				RB_ALLOC_GROW(sids, nsid + 1, alloc);
				sids[nsid++] = pid;
			}
			free(t);
		} else {
			rb_error_clear();
		}
		/* the workdir is ours: no entry belongs to a live robot */
		unlink(path);
		free(path);
	}
	closedir(d);
	entry = xstrfmt(WORKDIR_ENV "%s", workdir);
	/* again while any were found: a child may fork while we kill */
	for (round = 0; nsid && round < 5; round++) {
		got = kill_sessions(sids, nsid, entry);
		*stopped += got;
		if (!got)
			break;
	}
	free(entry);
	free(sids);
	free(dir);
	return 0;
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
			      int out, int err, int report,
			      const struct track *track)
{
	struct child_err ce;
	sigset_t none;

	setsid();
	if (track)
		track_self(track);
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

/* A pipe whose read end captures into sb; *wfd its write end. */
static int capture_pipe(struct capture *c, struct sbuf *sb, int *wfd)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return rb_error("cannot create a pipe: %s", strerror(errno));
	c->fd = p[0];
	c->sb = sb;
	*wfd = p[1];
	return 0;
}

/* The child's stdin, stdout and stderr: files, captures or /dev/null. */
static int open_stdio(const struct proc_opts *o, int *in, int *out, int *err,
		      struct capture cap[2])
{
	const char *ip = o->stdin_path ? o->stdin_path : "/dev/null";

	*in = open(ip, O_RDONLY | O_CLOEXEC);
	if (*in < 0)
		return rb_error("cannot open '%s': %s", ip, strerror(errno));
	if (o->stdout_path) {
		*out = open_out(o->stdout_path, o->append);
		if (*out < 0)
			return -1;
	} else if (o->out && capture_pipe(&cap[0], o->out, out) < 0) {
		return -1;
	}
	if (o->stderr_to_stdout) {
		if (*out >= 0) {
			*err = dup(*out);
			fcntl(*err, F_SETFD, FD_CLOEXEC);
		}
	} else if (o->stderr_path) {
		*err = open_out(o->stderr_path, o->append);
		if (*err < 0)
			return -1;
	} else if (o->err && capture_pipe(&cap[1], o->err, err) < 0) {
		return -1;
	}
	return 0;
}

/*
 * Wait for the child (pidfd) while pumping its captures: at the timeout
 * its group gets SIGTERM, kill_grace later SIGKILL; once it is reaped the
 * captures drain for o->drain seconds. *status its wait status.
 */
static int supervise(const struct proc_opts *o, pid_t pid, int pidfd,
		     struct capture cap[2], double start,
		     struct proc_result *res, int *status)
{
	double grace = o->kill_grace > 0 ? o->kill_grace : 5.0;
	double drain = o->drain > 0 ? o->drain : 2.0;
	double deadline = o->timeout > 0 ? start + o->timeout : 0;
	double drain_end = 0;
	bool leader_gone = false, killed = false, termed = false;
	int i;

	for (;;) {
		struct pollfd pfd[4];
		int nfds = 0, wait_ms = -1, r;
		double now = rb_monotonic();

		if (leader_gone && (cap[0].fd < 0 || now >= drain_end) &&
		    (cap[1].fd < 0 || now >= drain_end))
			return 0;
		if (!leader_gone && deadline > 0 && now >= deadline) {
			if (!termed) {
				res->timed_out = true;
				termed = true;
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
			if (o->cancel_fd > 0 && !termed) {
				pfd[nfds].fd = o->cancel_fd;
				pfd[nfds++].events = POLLIN;
			}
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
			return 0;
		r = poll(pfd, (nfds_t)nfds, wait_ms);
		if (r < 0 && errno != EINTR) {
			rb_error("poll: %s", strerror(errno));
			kill(-pid, SIGKILL);
			waitpid(pid, status, 0);
			return -1;
		}
		for (i = 0; r > 0 && i < nfds; i++) {
			int k;

			if (!pfd[i].revents)
				continue;
			if (o->cancel_fd > 0 && pfd[i].fd == o->cancel_fd &&
			    !leader_gone) {
				if (!termed) {
					res->cancelled = true;
					termed = true;
					kill(-pid, SIGTERM);
					deadline = rb_monotonic() + grace;
				}
				continue;
			}
			if (pfd[i].fd == pidfd) {
				/*
				 * The child is gone. After a timeout its
				 * group follows it at once; the zombie we
				 * have not reaped yet keeps the group id
				 * from being reused meanwhile.
				 */
				if (termed && !killed)
					kill(-pid, SIGKILL);
				waitpid(pid, status, 0);
				leader_gone = true;
				drain_end = rb_monotonic() + drain;
				continue;
			}
			for (k = 0; k < 2; k++)
				if (cap[k].fd == pfd[i].fd && !pump(&cap[k]))
					close_fd(&cap[k].fd);
		}
	}
}

/* Did the child fail before exec (its report pipe says so)? */
static bool exec_failed(const struct proc_opts *o, int report, pid_t pid)
{
	struct child_err ce;
	int status;
	ssize_t n;

	do {
		n = read(report, &ce, sizeof(ce));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(ce))
		return false;
	waitpid(pid, &status, 0);
	if (ce.step == 1)
		rb_error("cannot change to directory '%s': %s", o->cwd,
			 strerror(ce.err));
	else
		rb_error("cannot run '%s': %s", o->argv[0], strerror(ce.err));
	return true;
}

int proc_run(const struct proc_opts *o, struct proc_result *res)
{
	struct svec env = SVEC_INIT;
	struct capture cap[2] = { { -1, NULL }, { -1, NULL } };
	int in = -1, out = -1, err = -1, report[2] = { -1, -1 };
	int pidfd = -1, status = 0, ret = -1;
	const char *wd = env_workdir(o->env);
	struct track *track = NULL;
	double start;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (!o->argv || !o->argv[0])
		return rb_error("no program to run");
	if (open_stdio(o, &in, &out, &err, cap) < 0)
		goto out;
	if (pipe2(report, O_CLOEXEC) < 0) {
		rb_error("cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	build_env(&env, o->env);
	if (wd)
		track = track_prepare(wd);
	fflush(stdout);
	fflush(stderr);
	start = rb_monotonic();
	pid = fork();
	if (pid < 0) {
		rb_error("cannot fork: %s", strerror(errno));
		goto out;
	}
	if (!pid)
		child(o, env.v, in, out, err, report[1], track);
	res->pid = pid;
	close_fd(&report[1]);
	close_fd(&in);
	close_fd(&out);
	close_fd(&err);
	if (exec_failed(o, report[0], pid))
		goto out;
	pidfd = pidfd_open_(pid);
	if (pidfd < 0) {
		rb_error("pidfd_open: %s (linux 5.3 or later is needed)",
			 strerror(errno));
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		goto out;
	}
	if (supervise(o, pid, pidfd, cap, start, res, &status) < 0)
		goto out;
	res->elapsed = rb_monotonic() - start;
	if (WIFEXITED(status)) {
		res->exited = true;
		res->code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
	}
	ret = 0;
out:
	track_end(track, res->pid);
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
	return res->exited && res->code == 0 && !res->timed_out &&
	       !res->cancelled;
}

const char *proc_describe(const struct proc_result *res, struct sbuf *buf)
{
	sbuf_reset(buf);
	if (res->cancelled)
		sbuf_addf(buf, "cancelled after %.0fs (%s)", res->elapsed,
			  res->signal ? strsignal(res->signal) : "exited");
	else if (res->timed_out)
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
