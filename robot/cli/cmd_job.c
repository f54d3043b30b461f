// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot job expand JOB [--lab LAB] [--host NAME]
 * robot job validate JOB...
 */
#include <unistd.h>

#include "../robot.h"
#include "../job.h"
#include "../lab.h"
#include "../sbuf.h"
#include "../svec.h"
#include "cli.h"

struct expand_opts {
	const char *job;
	const char *lab;
	const char *host;
};

/* The CPUs to resolve nr_threads against, and what they come from. */
static int pick_nr_cpu(const struct expand_opts *o, long *nr_cpu,
		       struct sbuf *from)
{
	const struct lab_host *h;
	struct lab lab;
	int ret = -1;

	if (!o->lab) {
		*nr_cpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (*nr_cpu < 1)
			*nr_cpu = 1;
		sbuf_addstr(from, "this machine");
		return 0;
	}
	if (lab_load(&lab, o->lab) < 0)
		return -1;
	if (o->host) {
		h = lab_find_host(&lab, o->host);
		if (!h) {
			rb_error("no host '%s' in '%s'", o->host, o->lab);
			goto out;
		}
	} else if (lab.nr_hosts) {
		h = &lab.hosts[0];
	} else {
		rb_error("'%s' lists no hosts", o->lab);
		goto out;
	}
	if (h->nr_cpu < 1) {
		rb_error("host '%s' in '%s' has no nr_cpu", h->name, o->lab);
		goto out;
	}
	*nr_cpu = h->nr_cpu;
	sbuf_addf(from, "host %s", h->name);
	ret = 0;
out:
	lab_release(&lab);
	return ret;
}

#define JOB_OPT(f) offsetof(struct expand_opts, f)
const struct rb_opt_spec job_opts[] = {
	RB_OPT_STR("--lab", "LAB", JOB_OPT(lab),
		   "resolve nr_threads against a host of this lab"),
	RB_OPT_STR("--host", "NAME", JOB_OPT(host),
		   "that host (default: the lab's first)"),
	RB_OPT_END,
};

static int job_expand(int argc, char **argv)
{
	struct expand_opts o = { 0 };
	struct svec args = SVEC_INIT;
	struct job_list jobs = JOB_LIST_INIT;
	struct svec notices = SVEC_INIT;
	struct sbuf out = SBUF_INIT, from = SBUF_INIT;
	long nr_cpu;
	size_t i;
	int ret = RB_EXIT_FAIL, r;

	r = rb_opts_parse("job", job_opts, argc - 1, argv + 1, &o, &args);
	if (!r && args.nr > 1)
		r = rb_usage_error("job", "expand takes one JOB");
	o.job = args.nr ? args.v[0] : NULL;
	if (r) {
		svec_clear(&args);
		return r;
	}
	if (!o.job) {
		svec_clear(&args);
		return rb_usage_error("job", "expand needs a JOB file");
	}
	if (o.host && !o.lab) {
		svec_clear(&args);
		return rb_usage_error("job", "--host needs --lab");
	}
	if (job_load_file(&jobs, o.job) < 0 ||
	    pick_nr_cpu(&o, &nr_cpu, &from) < 0 ||
	    job_list_resolve(&jobs, nr_cpu, &notices) < 0) {
		rb_error_print();
		goto out;
	}
	for (i = 0; i < notices.nr; i++)
		rb_notice("%s", notices.v[i]);
	sbuf_addf(&out, "# %zu atomic job%s from %s, nr_cpu %ld (%s)\n",
		  jobs.nr, jobs.nr == 1 ? "" : "s", o.job, nr_cpu, from.buf);
	for (i = 0; i < jobs.nr; i++) {
		if (job_write_yaml(jobs.v[i], &out) < 0) {
			rb_error_print();
			goto out;
		}
	}
	fputs(out.buf, stdout);
	ret = fflush(stdout) ? RB_EXIT_FAIL : RB_EXIT_OK;
out:
	sbuf_release(&out);
	sbuf_release(&from);
	svec_clear(&notices);
	svec_clear(&args);
	job_list_release(&jobs);
	return ret;
}

static int job_validate(int argc, char **argv)
{
	int i, ret = RB_EXIT_OK;

	if (argc < 2)
		return rb_usage_error("job", "validate needs a JOB file");
	for (i = 1; i < argc; i++) {
		struct job_list jobs = JOB_LIST_INIT;

		if (job_load_file(&jobs, argv[i]) < 0) {
			rb_error_print();
			ret = RB_EXIT_FAIL;
			continue;
		}
		printf("%s: ok, %zu atomic job%s\n", argv[i], jobs.nr,
		       jobs.nr == 1 ? "" : "s");
		job_list_release(&jobs);
	}
	return ret;
}

int cmd_job(int argc, char **argv)
{
	if (argc < 2)
		return rb_usage_error("job", "missing subcommand");
	if (!strcmp(argv[1], "expand"))
		return job_expand(argc - 1, argv + 1);
	if (!strcmp(argv[1], "validate"))
		return job_validate(argc - 1, argv + 1);
	return rb_usage_error("job", "unknown subcommand '%s'", argv[1]);
}
