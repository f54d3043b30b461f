// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot.h"
#include "lab.h"
#include "proc.h"
#include "sbuf.h"
#include "transport.h"

static char *scratch(void)
{
	char *dir = xstrdup("/tmp/robot-proc-XXXXXX");

	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

Test(proc, capture_and_exit_code)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
			       NULL };
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	struct proc_opts o = { .argv = argv, .out = &out, .err = &err };
	struct proc_result res;
	struct sbuf d = SBUF_INIT;

	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_expect(res.exited);
	cr_expect_eq(res.code, 3);
	cr_expect_not(res.timed_out);
	cr_expect_not(proc_ok(&res));
	cr_expect_str_eq(out.buf, "out\n");
	cr_expect_str_eq(err.buf, "err\n");
	cr_expect_str_eq(proc_describe(&res, &d), "exit 3");
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&d);
}

Test(proc, env_cwd_and_merged_stderr)
{
	const char *argv[] = { "sh", "-c", "echo \"$ROBOT_X:$(pwd)\"; ls nope",
			       NULL };
	const char *env[] = { "ROBOT_X=a b;c", NULL };
	struct sbuf out = SBUF_INIT;
	struct proc_opts o = { .argv = argv,
			       .env = env,
			       .cwd = "/",
			       .out = &out,
			       .stderr_to_stdout = true };
	struct proc_result res;

	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_expect(rb_starts_with(out.buf, "a b;c:/\n"), "%s", out.buf);
	cr_expect(strstr(out.buf, "nope") != NULL, "%s", out.buf);
	cr_expect_neq(res.code, 0);
	sbuf_release(&out);
}

Test(proc, output_to_files)
{
	char *dir = scratch();
	char *o1 = xstrfmt("%s/out", dir), *e1 = xstrfmt("%s/err", dir);
	const char *argv[] = { "sh", "-c", "echo one; echo two >&2", NULL };
	struct proc_opts o = { .argv = argv,
			       .stdout_path = o1,
			       .stderr_path = e1 };
	struct proc_result res;
	char *buf;

	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_expect(proc_ok(&res));
	cr_assert_eq(rb_read_file(o1, &buf, NULL), 0);
	cr_expect_str_eq(buf, "one\n");
	free(buf);
	o.append = true;
	cr_assert_eq(proc_run(&o, &res), 0);
	cr_assert_eq(rb_read_file(e1, &buf, NULL), 0);
	cr_expect_str_eq(buf, "two\ntwo\n");
	free(buf);
	rb_remove_tree(dir);
	free(o1);
	free(e1);
	free(dir);
}

Test(proc, capture_is_capped)
{
	const char *argv[] = { "sh", "-c", "yes 0123456789 | head -c 200000",
			       NULL };
	struct sbuf out = SBUF_INIT_MAX(1000);
	struct proc_opts o = { .argv = argv, .out = &out };
	struct proc_result res;

	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect(proc_ok(&res), "the child must not block on a full pipe");
	cr_expect(out.truncated);
	cr_expect_leq(out.len, 1000);
	cr_expect(rb_starts_with(out.buf, "0123456789\n"));
	sbuf_release(&out);
}

Test(proc, cannot_start)
{
	const char *argv[] = { "robot-no-such-program", NULL };
	const char *argv2[] = { "true", NULL };
	struct proc_opts o = { .argv = argv };
	struct proc_result res;

	cr_expect_eq(proc_run(&o, &res), -1);
	cr_expect_str_eq(rb_errmsg(), "cannot run 'robot-no-such-program': "
				      "No such file or directory");
	o.argv = argv2;
	o.cwd = "/nonexistent";
	cr_expect_eq(proc_run(&o, &res), -1);
	cr_expect_str_eq(rb_errmsg(), "cannot change to directory "
				      "'/nonexistent': No such file or "
				      "directory");
	o.cwd = NULL;
	o.stdout_path = "/nonexistent/out";
	cr_expect_eq(proc_run(&o, &res), -1);
}

Test(proc, killed_by_signal)
{
	const char *argv[] = { "sh", "-c", "kill -KILL $$", NULL };
	struct proc_opts o = { .argv = argv };
	struct proc_result res;

	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect_not(res.exited);
	cr_expect_eq(res.signal, SIGKILL);
	cr_expect_not(res.timed_out);
}

Test(proc, sigpipe_is_default_in_the_child)
{
	/* yes(1) dies of SIGPIPE (141) unless SIGPIPE is ignored (1) */
	const char *argv[] = { "sh", "-c",
			       "(yes; echo $? >&2) | head -c 1 >/dev/null",
			       NULL };
	struct sbuf err = SBUF_INIT;
	struct proc_opts o = { .argv = argv, .err = &err };
	struct proc_result res;

	/* robot ignores SIGPIPE itself (cli/main.c) */
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect(proc_ok(&res));
	cr_expect_str_eq(err.buf, "141\n");
	sbuf_release(&err);
}

Test(proc, timeout_terminates_politely)
{
	const char *argv[] = { "sleep", "100", NULL };
	struct proc_opts o = { .argv = argv, .timeout = 0.3 };
	struct proc_result res;
	struct sbuf d = SBUF_INIT;

	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect(res.timed_out);
	cr_expect_eq(res.signal, SIGTERM);
	cr_expect_lt(res.elapsed, 30.0);
	cr_expect(rb_starts_with(proc_describe(&res, &d), "timed out after"));
	sbuf_release(&d);
}

/*
 * A child that ignores SIGTERM starts a grandchild that ignores it too
 * (an ignored signal stays ignored across fork and exec), then waits.
 * The timeout must kill both: SIGTERM to the group, SIGKILL after the
 * grace period. This test process is a subreaper, so the grandchild,
 * orphaned, becomes our child and we can wait for it.
 */
Test(proc, timeout_kills_the_process_group, .timeout = 60)
{
	char *dir = scratch();
	char *pidfile = xstrfmt("%s/grandchild.pid", dir);
	char *script = xstrfmt("trap '' TERM; sleep 1000 & echo $! > %s; "
			       "wait; wait",
			       pidfile);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct proc_opts o = { .argv = argv,
			       .timeout = 0.5,
			       .kill_grace = 0.5 };
	struct proc_result res;
	long gpid;
	char *buf;
	int status;

	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_expect(res.timed_out);
	cr_expect_eq(res.signal, SIGKILL, "the child ignored SIGTERM");
	cr_assert_eq(rb_read_file(pidfile, &buf, NULL), 0);
	buf[strcspn(buf, "\n")] = '\0';
	cr_assert_eq(rb_parse_long(buf, &gpid), 0);
	free(buf);
	/* blocks forever (test timeout) if the grandchild survived */
	cr_assert_eq(waitpid((pid_t)gpid, &status, 0), (pid_t)gpid);
	cr_expect(WIFSIGNALED(status));
	cr_expect_eq(WTERMSIG(status), SIGKILL);
	rb_remove_tree(dir);
	free(pidfile);
	free(script);
	free(dir);
}

/*
 * A cancel descriptor that turns readable stops the child's group as a
 * timeout does, and says "cancelled", not "timed out": a build ahead that
 * a box's own build needed the slot of.
 */
Test(proc, cancel_fd_stops_the_group, .timeout = 60)
{
	const char *argv[] = { "sh", "-c", "sleep 1000", NULL };
	struct proc_opts o = { .argv = argv, .kill_grace = 0.3 };
	struct proc_result res;
	struct sbuf d = SBUF_INIT;
	int fds[2];

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	o.cancel_fd = fds[0];
	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_expect(res.cancelled);
	cr_expect(!res.timed_out);
	cr_expect_eq(res.signal, SIGTERM);
	cr_expect(!proc_ok(&res));
	cr_expect(rb_starts_with(proc_describe(&res, &d), "cancelled after"));
	/* not readable: the child runs to its end */
	argv[2] = "exit 3";
	close(fds[0]);
	close(fds[1]);
	cr_assert_eq(pipe(fds), 0);
	o.cancel_fd = fds[0];
	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect(!res.cancelled);
	cr_expect(res.exited && res.code == 3);
	close(fds[0]);
	close(fds[1]);
	sbuf_release(&d);
}

/* Stray descendants holding the capture pipe do not hang the caller. */
Test(proc, stray_descendant_does_not_block, .timeout = 60)
{
	const char *argv[] = { "sh", "-c", "sleep 30 & echo started", NULL };
	struct sbuf out = SBUF_INIT;
	struct proc_opts o = { .argv = argv, .out = &out, .drain = 0.2 };
	struct proc_result res;

	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect(proc_ok(&res));
	cr_expect_str_eq(out.buf, "started\n");
	cr_expect_lt(res.elapsed, 20.0);
	sbuf_release(&out);
}

Test(transport, shell_line_quotes_every_word)
{
	const char *argv[] = { "stress-ng", "--mmap", "mmap; touch /tmp/owned",
			       "it's", NULL };
	const char *env[] = { "LKP_X=$(id)", NULL };
	struct transport_cmd cmd = { .argv = argv, .env = env, .cwd = "/a b" };
	struct sbuf sb = SBUF_INIT;

	transport_shell_line(&sb, &cmd);
	cr_expect_str_eq(sb.buf,
			 "cd '/a b' && LKP_X='$(id)' 'stress-ng' '--mmap' "
			 "'mmap; touch /tmp/owned' 'it'\\''s'; rc=$?; "
			 "[ \"$rc\" -ne 255 ] || rc=254; exit \"$rc\"");
	sbuf_release(&sb);
}

/* What the remote shell does with the line: values stay values. */
Test(transport, shell_line_runs_no_injected_code)
{
	char *dir = scratch();
	char *owned = xstrfmt("%s/owned", dir);
	char *evil = xstrfmt("x; touch %s; $(touch %s) `touch %s`", owned,
			     owned, owned);
	const char *argv[] = { "printf", "%s|%s|%s", evil, "$HOME", NULL };
	const char *env[] = { "V=';touch x'", NULL };
	struct transport_cmd cmd = { .argv = argv, .env = env, .cwd = dir };
	struct sbuf line = SBUF_INIT, out = SBUF_INIT;
	const char *sh[] = { "sh", "-c", NULL, NULL };
	struct proc_opts o = { .argv = sh, .out = &out };
	struct proc_result res;

	transport_shell_line(&line, &cmd);
	sh[2] = line.buf;
	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect(proc_ok(&res));
	cr_expect_not(rb_file_exists(owned));
	cr_expect(rb_starts_with(out.buf, evil), "%s", out.buf);
	cr_expect(strstr(out.buf, "|$HOME|") != NULL);
	rb_remove_tree(dir);
	sbuf_release(&line);
	sbuf_release(&out);
	free(owned);
	free(evil);
	free(dir);
}

Test(transport, remote_255_is_not_ssh_failure)
{
	const char *argv[] = { "sh", "-c", "exit 255", NULL };
	struct transport_cmd cmd = { .argv = argv };
	struct sbuf line = SBUF_INIT;
	const char *sh[] = { "sh", "-c", NULL, NULL };
	struct proc_opts o = { .argv = sh };
	struct proc_result res;

	transport_shell_line(&line, &cmd);
	sh[2] = line.buf;
	cr_assert_eq(proc_run(&o, &res), 0);
	cr_expect_eq(res.code, 254);
	sbuf_release(&line);
}

Test(transport, local_run_and_fetch)
{
	struct lab_host host = { .name = (char *)"here",
				 .transport = (char *)"local" };
	const char *argv[] = { "sh", "-c", "echo $A; exit 7", NULL };
	const char *env[] = { "A=1", NULL };
	const char *missing[] = { "robot-no-such-program", NULL };
	struct sbuf out = SBUF_INIT, d = SBUF_INIT;
	struct transport_cmd cmd = { .argv = argv, .env = env, .out = &out };
	struct transport_result res;
	struct transport t;
	char *dir = scratch();
	char *src = xstrfmt("%s/src", dir), *dst = xstrfmt("%s/dst", dir);
	char *buf;

	cr_assert_eq(transport_open(&t, NULL, &host), 0, "%s", rb_errmsg());
	cr_expect_eq(t.ops, &transport_local_ops);
	cr_expect(t.ops->here);
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_expect_not(res.infra);
	cr_expect(res.exited);
	cr_expect_eq(res.code, 7);
	cr_expect_str_eq(out.buf, "1\n");
	cr_expect_str_eq(transport_describe(&res, &d), "exit 7");
	transport_result_release(&res);
	cmd.argv = missing;
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_expect_eq(res.code, 127);
	cr_expect_not(res.infra);
	transport_result_release(&res);
	cr_assert_eq(rb_write_file_atomic(src, "data\n", 5), 0);
	cr_assert_eq(transport_fetch(&t, src, dst, 10, &res), 0);
	transport_result_release(&res);
	cr_assert_eq(rb_read_file(dst, &buf, NULL), 0);
	cr_expect_str_eq(buf, "data\n");
	free(buf);
	cr_expect_eq(transport_fetch(&t, "/nonexistent", dst, 10, &res), -1);
	transport_result_release(&res);
	transport_close(&t);
	rb_remove_tree(dir);
	sbuf_release(&out);
	sbuf_release(&d);
	free(src);
	free(dst);
	free(dir);
}

Test(transport, table)
{
	cr_expect_eq(transport_find("ssh"), &transport_ssh_ops);
	cr_expect_eq(transport_find("local"), &transport_local_ops);
	cr_expect_null(transport_find("telnet"));
}

/* Is pid gone (no such process, or a zombie nobody reaped yet)? */
static bool gone(long pid)
{
	char path[64], *t;
	bool dead;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (rb_read_file(path, &t, NULL) < 0) {
		rb_error_clear();
		return true;
	}
	dead = strstr(t, ") Z ") != NULL;
	free(t);
	return dead;
}

static long read_pid(const char *dir, const char *name)
{
	char *path = xstrfmt("%s/%s", dir, name), *t;
	long pid;

	cr_assert_eq(rb_read_file(path, &t, NULL), 0, "%s", rb_errmsg());
	t[strcspn(t, "\n")] = '\0';
	cr_assert_eq(rb_parse_long(t, &pid), 0, "%s: '%s'", path, t);
	free(t);
	free(path);
	return pid;
}

/*
 * A robot killed while its hook runs leaves the hook and what it started;
 * the next robot on the workdir stops them, but not a daemon that left
 * the hook's session (the QEMU box).
 */
Test(proc, reap_what_a_killed_robot_left, .timeout = 60)
{
	char *dir = scratch(), *fifo = xstrfmt("%s/ready", dir);
	char *hook = xstrfmt("%s/hook", dir),
	     *wd = xstrfmt("ROBOT_WORKDIR=%s", dir);
	char *procs = xstrfmt("%s/procs", dir), *d = xstrfmt("D=%s", dir);
	const char *script =
		"#!/bin/sh\n"
		"sleep 1000 &\n"
		"echo $! >\"$D/child\"\n"
		"setsid sh -c 'echo $$ >\"$1/daemon\"; echo x >\"$1/ready\"; "
		"exec sleep 1000' sh \"$D\" &\n"
		"exec sleep 1000\n";
	long child, daemon, hook_pid = 0;
	unsigned stopped;
	char buf[4];
	pid_t robot;
	int fd, n = 0, status;
	DIR *dd;

	/* orphans come to us (not to init), so that we reap them */
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	cr_assert_eq(rb_write_file_atomic(hook, script, strlen(script)), 0);
	cr_assert_eq(chmod(hook, 0755), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	robot = fork();
	cr_assert_geq(robot, 0);
	if (!robot) {
		const char *argv[] = { hook, NULL };
		const char *env[] = { wd, d, NULL };
		struct proc_opts o = { .argv = argv, .env = env };
		struct proc_result res;

		proc_run(&o, &res);
		_exit(0);
	}
	fd = open(fifo, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, buf, 2), 2);
	close(fd);
	child = read_pid(dir, "child");
	daemon = read_pid(dir, "daemon");
	/* the robot dies; its hook, the hook's child and the daemon live */
	cr_assert_eq(kill(robot, SIGKILL), 0);
	cr_assert_eq(waitpid(robot, &status, 0), robot);
	cr_assert_not(gone(child));
	dd = opendir(procs);
	cr_assert_not_null(dd, "no %s while the hook ran", procs);
	for (struct dirent *de; (de = readdir(dd));)
		if (de->d_name[0] != '.') {
			n++;
			rb_parse_long(de->d_name, &hook_pid);
		}
	closedir(dd);
	cr_assert_eq(n, 1, "%d entries in %s", n, procs);

	cr_assert_eq(proc_reap_workdir(dir, &stopped), 0, "%s", rb_errmsg());
	cr_expect_eq(stopped, 2, "stopped %u (the hook and its child)",
		     stopped);
	cr_expect(gone(child), "the hook's child %ld still runs", child);
	cr_expect_not(gone(daemon), "the daemon %ld was killed", daemon);
	n = 0;
	dd = opendir(procs);
	for (struct dirent *de; dd && (de = readdir(dd));)
		n += de->d_name[0] != '.';
	if (dd)
		closedir(dd);
	cr_expect_eq(n, 0, "%d entries left in %s", n, procs);
	/* a second robot finds nothing to stop */
	cr_assert_eq(proc_reap_workdir(dir, &stopped), 0);
	cr_expect_eq(stopped, 0);

	/* whatever is left (when the expectations above failed) */
	kill((pid_t)daemon, SIGKILL);
	kill((pid_t)child, SIGKILL);
	if (hook_pid > 0)
		kill((pid_t)hook_pid, SIGKILL);
	while (waitpid(-1, &status, 0) > 0)
		;
	rb_remove_tree(dir);
	free(dir);
	free(fifo);
	free(hook);
	free(wd);
	free(procs);
	free(d);
}
