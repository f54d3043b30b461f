// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot lab check --lab LAB
 */
#include "../robot.h"
#include "../lab.h"
#include "../sbuf.h"
#include "../svec.h"
#include "../transport.h"
#include "cli.h"

/* Seconds one probe (`true`, `nproc`) may take, connection included. */
#define PROBE_TIMEOUT 60

struct row {
	const char *host;
	const char *transport;
	bool reachable;
	long nproc;
	char *msg;
};

static bool check_hook(const char *name, const char *path)
{
	if (!path) {
		rb_warn("hooks.%s is not set", name);
		return true;
	}
	if (rb_is_executable(path))
		return true;
	rb_error("hooks.%s '%s' is %s", name, path,
		 rb_file_exists(path) ? "not executable" : "missing");
	rb_error_print();
	return false;
}

/* One line of a probe's stderr for the message column. */
static char *first_line(const struct sbuf *sb)
{
	const char *nl = strchr(sb->buf, '\n');

	return xstrndup(sb->buf, nl ? (size_t)(nl - sb->buf) : sb->len);
}

static void probe(const struct lab *lab, const struct lab_host *h,
		  struct row *r)
{
	const char *true_argv[] = { "true", NULL };
	const char *nproc_argv[] = { "nproc", NULL };
	struct sbuf out = SBUF_INIT_MAX(4096), err = SBUF_INIT_MAX(4096);
	struct sbuf desc = SBUF_INIT;
	struct transport_cmd cmd = { .argv = true_argv,
				     .err = &err,
				     .timeout = PROBE_TIMEOUT };
	struct transport_result res;
	struct transport t;
	long n;

	r->nproc = -1;
	if (transport_open(&t, lab, h) < 0) {
		r->msg = xstrdup(rb_errmsg());
		return;
	}
	if (transport_run(&t, &cmd, &res) < 0) {
		r->msg = xstrdup(rb_errmsg());
		goto out;
	}
	if (res.infra || !res.exited || res.code) {
		sbuf_rtrim(&err);
		r->msg = res.infra || !err.len ?
				 xstrdup(transport_describe(&res, &desc)) :
				 first_line(&err);
		transport_result_release(&res);
		goto out;
	}
	transport_result_release(&res);
	r->reachable = true;
	sbuf_reset(&err);
	cmd.argv = nproc_argv;
	cmd.out = &out;
	if (transport_run(&t, &cmd, &res) < 0) {
		r->msg = xstrdup(rb_errmsg());
		goto out;
	}
	sbuf_rtrim(&out);
	if (res.infra || !res.exited || res.code ||
	    rb_parse_long(out.buf, &n) < 0) {
		sbuf_rtrim(&err);
		r->msg = xstrfmt("nproc: %s%s%s",
				 transport_describe(&res, &desc),
				 err.len ? ": " : "", err.buf);
	} else {
		r->nproc = n;
		if (h->nr_cpu && h->nr_cpu != n)
			r->msg = xstrfmt("the lab says nr_cpu %ld", h->nr_cpu);
	}
	transport_result_release(&res);
out:
	transport_close(&t);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&desc);
}

static void print_row(size_t wh, size_t wt, const char *host,
		      const char *transport, const char *reachable,
		      const char *nproc, const char *msg)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%-*s  %-*s  %-9s  %5s  %s", (int)wh, host, (int)wt,
		  transport, reachable, nproc, msg);
	sbuf_rtrim(&sb);
	puts(sb.buf);
	sbuf_release(&sb);
}

const struct rb_opt_spec lab_opts[] = {
	RB_OPT_LAB(0),
	RB_OPT_END,
};

static int lab_check(int argc, char **argv)
{
	const char *file = NULL;
	struct lab lab;
	struct row *rows;
	size_t i, wh = 4, wt = 9;
	int r, ret = RB_EXIT_OK;

	r = rb_opts_parse("lab", lab_opts, argc - 1, argv + 1, &file, NULL);
	if (r)
		return r;
	if (!file)
		return rb_usage_error("lab", "check needs --lab LAB");
	if (lab_load(&lab, file) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	if (!check_hook("build", lab.hooks.build))
		ret = RB_EXIT_FAIL;
	if (!check_hook("boot", lab.hooks.boot))
		ret = RB_EXIT_FAIL;
	if (lab.ssh_config && !rb_file_exists(lab.ssh_config)) {
		rb_error("ssh_config '%s' is missing", lab.ssh_config);
		rb_error_print();
		ret = RB_EXIT_FAIL;
	}
	if (!lab.nr_hosts) {
		rb_error("'%s' lists no hosts", file);
		rb_error_print();
		lab_release(&lab);
		return RB_EXIT_FAIL;
	}
	rows = xcalloc(lab.nr_hosts, sizeof(*rows));
	for (i = 0; i < lab.nr_hosts; i++) {
		rows[i].host = lab.hosts[i].name;
		rows[i].transport = lab.hosts[i].transport;
		probe(&lab, &lab.hosts[i], &rows[i]);
		if (!rows[i].reachable)
			ret = RB_EXIT_FAIL;
		wh = RB_MAX(wh, strlen(rows[i].host));
		wt = RB_MAX(wt, strlen(rows[i].transport));
	}
	print_row(wh, wt, "host", "transport", "reachable", "nproc", "message");
	for (i = 0; i < lab.nr_hosts; i++) {
		char nproc[24] = "-";

		if (rows[i].nproc >= 0)
			snprintf(nproc, sizeof(nproc), "%ld", rows[i].nproc);
		print_row(wh, wt, rows[i].host, rows[i].transport,
			  rows[i].reachable ? "yes" : "no", nproc,
			  rows[i].msg ? rows[i].msg : "");
		free(rows[i].msg);
	}
	free(rows);
	lab_release(&lab);
	if (fflush(stdout))
		ret = RB_EXIT_FAIL;
	return ret;
}

int cmd_lab(int argc, char **argv)
{
	if (argc < 2)
		return rb_usage_error("lab", "missing subcommand");
	if (!strcmp(argv[1], "check"))
		return lab_check(argc - 1, argv + 1);
	return rb_usage_error("lab", "unknown subcommand '%s'", argv[1]);
}
