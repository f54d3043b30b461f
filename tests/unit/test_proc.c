// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <signal.h>
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
	cr_expect_str_eq(t.ops->name, "local");
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
