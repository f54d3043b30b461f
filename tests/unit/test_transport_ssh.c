// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ssh transport against a real sshd on loopback (tests/lib/sshd.sh;
 * the unit tests run from the top of the checkout).
 */
#include <criterion/criterion.h>
#include <unistd.h>

#include "robot.h"
#include "lab.h"
#include "proc.h"
#include "sbuf.h"
#include "transport.h"

static struct {
	char dir[32];
	char *config;
	char *work;
	long pid;
	long port;
} sshd;

static void shell(const char *script, const char *arg, struct sbuf *out)
{
	const char *argv[] = { "sh", "-c", script, "sh", arg, NULL };
	struct proc_opts o = { .argv = argv, .out = out, .timeout = 60 };
	struct proc_result res;

	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_assert(proc_ok(&res), "'%s' failed: %s", script,
		  out ? out->buf : "");
}

static void sshd_up(void)
{
	struct sbuf out = SBUF_INIT;
	char *sp;

	snprintf(sshd.dir, sizeof(sshd.dir), "/tmp/rbssh-XXXXXX");
	cr_assert_not_null(mkdtemp(sshd.dir));
	shell(". tests/lib/sshd.sh && sshd_start \"$1/sshd\" box1 >&2 && "
	      "echo \"$SSHD_PID $SSHD_PORT\"",
	      sshd.dir, &out);
	sp = strchr(out.buf, ' ');
	cr_assert_not_null(sp, "%s", out.buf);
	*sp = '\0';
	sbuf_rtrim(&out);
	cr_assert_eq(rb_parse_long(out.buf, &sshd.pid), 0);
	cr_assert_eq(rb_parse_long(sp + 1, &sshd.port), 0);
	sshd.config = xstrfmt("%s/sshd/ssh_config", sshd.dir);
	sshd.work = xstrfmt("%s/work", sshd.dir);
	sbuf_release(&out);
}

static void sshd_down(void)
{
	char arg[48];

	if (sshd.pid > 0) {
		/* sshd_stop returns once the port refuses */
		snprintf(arg, sizeof(arg), "%ld %ld", sshd.pid, sshd.port);
		shell(". tests/lib/sshd.sh && SSHD_PID=${1% *} && "
		      "SSHD_PORT=${1#* } && sshd_stop",
		      arg, NULL);
		sshd.pid = 0;
	}
}

static void fini(void)
{
	sshd_down();
	if (sshd.dir[0])
		rb_remove_tree(sshd.dir);
	free(sshd.config);
	free(sshd.work);
}

Test(transport_ssh, run_fetch_and_failures, .init = sshd_up, .fini = fini,
     .timeout = 120)
{
	struct lab lab = { .workdir = sshd.work, .ssh_config = sshd.config };
	struct lab_host host = { .name = (char *)"box1",
				 .transport = (char *)"ssh",
				 .ssh = (char *)"box1" };
	const char *argv1[] = { "sh", "-c",
				"echo \"$A|$(pwd)\"; echo err >&2; exit 7",
				NULL };
	const char *env[] = { "A=x y;z'$(id)", NULL };
	struct sbuf out = SBUF_INIT, err = SBUF_INIT, d = SBUF_INIT;
	struct transport_cmd cmd = {
		.argv = argv1,
		.env = env,
		.cwd = "/tmp",
		.out = &out,
		.err = &err,
		.timeout = 60,
	};
	struct transport_result res;
	struct transport t;
	char *owned = xstrfmt("%s/owned", sshd.dir);
	char *evil = xstrfmt("mmap; touch %s", owned);
	char *src = xstrfmt("%s/src", sshd.dir);
	char *dst = xstrfmt("%s/dst", sshd.dir);
	char *outfile = xstrfmt("%s/out", sshd.dir);
	const char *argv2[] = { "printf", "%s", evil, NULL };
	const char *argv3[] = { "sh", "-c", "exit 255", NULL };
	const char *argv4[] = { "sleep", "30", NULL };
	const char *argv5[] = { "true", NULL };
	char *buf;

	cr_assert_eq(transport_open(&t, &lab, &host), 0, "%s", rb_errmsg());
	cr_expect_eq(t.ops, &transport_ssh_ops);
	cr_expect_not(t.ops->here);

	/* env, cwd, stdout and stderr apart, the exit status */
	cr_assert_eq(transport_run(&t, &cmd, &res), 0, "%s", rb_errmsg());
	cr_expect_not(res.infra, "%s", res.msg);
	cr_expect(res.exited);
	cr_expect_eq(res.code, 7);
	cr_expect_str_eq(out.buf, "x y;z'$(id)|/tmp\n");
	cr_expect_str_eq(err.buf, "err\n");
	transport_result_release(&res);

	/* a value is a value on the remote side too */
	sbuf_reset(&out);
	cmd = (struct transport_cmd){ .argv = argv2, .out = &out };
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_expect_eq(res.code, 0);
	cr_expect_str_eq(out.buf, evil);
	cr_expect_not(rb_file_exists(owned));
	transport_result_release(&res);

	/* the command's 255 is not ssh's */
	cmd = (struct transport_cmd){ .argv = argv3 };
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_expect_not(res.infra);
	cr_expect_eq(res.code, 254);
	transport_result_release(&res);

	/* output to a local file */
	cmd = (struct transport_cmd){ .argv = argv2, .stdout_path = outfile };
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_assert_eq(rb_read_file(outfile, &buf, NULL), 0);
	cr_expect_str_eq(buf, evil);
	free(buf);
	transport_result_release(&res);

	/* a timeout */
	cmd = (struct transport_cmd){ .argv = argv4, .timeout = 1 };
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_expect(res.timed_out);
	cr_expect_not(res.infra);
	cr_expect(rb_starts_with(transport_describe(&res, &d), "timed out"));
	transport_result_release(&res);

	/* fetch (the "remote" host is this machine) */
	cr_assert_eq(rb_write_file_atomic(src, "line 1\nline 2\n", 14), 0);
	cr_assert_eq(transport_fetch(&t, src, dst, 30, &res), 0, "%s",
		     rb_errmsg());
	cr_assert_eq(rb_read_file(dst, &buf, NULL), 0);
	cr_expect_str_eq(buf, "line 1\nline 2\n");
	free(buf);
	transport_result_release(&res);
	cr_expect_eq(transport_fetch(&t, "/nonexistent/x", dst, 30, &res), -1);
	/* the box's own message (GNU head here; run-faults checks the cap) */
	cr_expect(strstr(rb_errmsg(), "cannot fetch '/nonexistent/x' from "
				      "'box1': head: cannot open "
				      "'/nonexistent/x' for reading: No such "
				      "file") != NULL,
		  "%s", rb_errmsg());
	cr_expect_not(res.infra);
	transport_result_release(&res);

	/* the box goes away: ssh's failure, with its message */
	sshd_down();
	cmd = (struct transport_cmd){ .argv = argv5, .timeout = 60 };
	cr_assert_eq(transport_run(&t, &cmd, &res), 0);
	cr_expect(res.infra,
		  "ssh to a stopped sshd: exited %d, code %d, signal %d, "
		  "timed out %d",
		  res.exited, res.code, res.signal, res.timed_out);
	cr_assert_not_null(res.msg);
	cr_expect_gt(strlen(res.msg), 0);
	transport_result_release(&res);

	transport_close(&t);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&d);
	free(owned);
	free(evil);
	free(src);
	free(dst);
	free(outfile);
}
