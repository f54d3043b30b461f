// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot job expand JOB [--lab LAB] [--host NAME] [--lkp-argv
 *	[--stress-ng-help FILE]]
 * robot job validate JOB...
 */
#include <unistd.h>

#include "../robot.h"
#include "../job.h"
#include "../lab.h"
#include "../payload.h"
#include "../proc.h"
#include "../runner.h"
#include "../sbuf.h"
#include "../svec.h"
#include "cli.h"

/* The largest `stress-ng --help` read. */
#define HELP_MAX (1 << 20)

struct expand_opts {
	const char *job;
	const char *lab;
	const char *host;
	const char *help_file;
	int lkp_argv;
};

/*
 * The host the jobs are expanded for: a host of the lab, else this
 * machine (its CPUs, stress-ng on PATH, no spare disks). lab is loaded
 * (and must be released) when o->lab is set.
 */
static int pick_host(const struct expand_opts *o, struct lab *lab,
		     struct lab_host *here, const struct lab_host **host,
		     long *nr_cpu, struct sbuf *from)
{
	static char this_machine[] = "this machine";
	const struct lab_host *h;

	if (!o->lab) {
		memset(here, 0, sizeof(*here));
		here->name = this_machine;
		svec_init(&here->hdd_partitions);
		svec_init(&here->ssd_partitions);
		*nr_cpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (*nr_cpu < 1)
			*nr_cpu = 1;
		here->nr_cpu = *nr_cpu;
		*host = here;
		sbuf_addstr(from, "this machine");
		return 0;
	}
	if (lab_load(lab, o->lab) < 0)
		return -1;
	if (o->host) {
		h = lab_find_host(lab, o->host);
		if (!h)
			return rb_error("no host '%s' in '%s'", o->host,
					o->lab);
	} else if (lab->nr_hosts) {
		h = &lab->hosts[0];
	} else {
		return rb_error("'%s' lists no hosts", o->lab);
	}
	if (h->nr_cpu < 1)
		return rb_error("host '%s' in '%s' has no nr_cpu", h->name,
				o->lab);
	*nr_cpu = h->nr_cpu;
	*host = h;
	sbuf_addf(from, "host %s", h->name);
	return 0;
}

/*
 * What stress-ng says it knows, for lkp's feature probes: the file given,
 * else this machine's `stress-ng --help` (NULL when there is none).
 */
static char *stressng_help(const struct expand_opts *o,
			   const struct lab_host *h)
{
	const char *argv[] = { h->stress_ng ? h->stress_ng : "stress-ng",
			       "--help", NULL };
	struct sbuf out = SBUF_INIT_MAX(HELP_MAX);
	struct proc_opts po = { .argv = argv,
				.out = &out,
				.stderr_to_stdout = true,
				.timeout = 60 };
	struct proc_result res;
	char *text = NULL;

	if (o->help_file) {
		if (rb_read_file_max(o->help_file, HELP_MAX, &text, NULL) < 0)
			return NULL;
		return text;
	}
	if (proc_run(&po, &res) == 0 && strstr(out.buf, "--timeout"))
		text = sbuf_detach(&out);
	sbuf_release(&out);
	return text;
}

/*
 * lkp's reproduce.sh lines of each atomic job: the box's setup and the
 * stress-ng command, with what the robot would refuse as comments.
 */
static int lkp_argv(const struct job_list *jobs, const struct lab_host *h,
		    const char *help, struct sbuf *out)
{
	struct sbuf name = SBUF_INIT;
	size_t i, k;

	for (i = 0; i < jobs->nr; i++) {
		struct payload_setup setup = PAYLOAD_SETUP_INIT;
		struct svec argv = SVEC_INIT, missing = SVEC_INIT;
		int set_r, argv_r;

		sbuf_addf(out, "# %s\n", job_name(jobs->v[i], &name));
		set_r = runner_payload_setup(jobs->v[i], h, &setup);
		if (set_r < 0)
			sbuf_addf(out, "# refused on %s: %s\n", h->name,
				  rb_errmsg());
		argv_r = runner_payload_argv(jobs->v[i], h, help, &argv,
					     &missing);
		if (argv_r < 0) {
			sbuf_addf(out, "# refused on %s: %s\n", h->name,
				  rb_errmsg());
		} else {
			for (k = 0; k < missing.nr; k++)
				sbuf_addf(out,
					  "# refused: this stress-ng does not "
					  "know --%s\n",
					  missing.v[k]);
			payload_setup_describe(&setup, &argv, out);
		}
		payload_setup_release(&setup);
		svec_clear(&argv);
		svec_clear(&missing);
	}
	sbuf_release(&name);
	return 0;
}

#define JOB_OPT(f) offsetof(struct expand_opts, f)
const struct rb_opt_spec job_opts[] = {
	RB_OPT_STR("--lab", "LAB", JOB_OPT(lab),
		   "resolve nr_threads against a host of this lab"),
	RB_OPT_STR("--host", "NAME", JOB_OPT(host),
		   "that host (default: the lab's first)"),
	RB_OPT_BOOL("--lkp-argv", JOB_OPT(lkp_argv),
		    "print each job's box setup and stress-ng command "
		    "instead, as lkp's reproduce.sh has them"),
	RB_OPT_STR("--stress-ng-help", "FILE", JOB_OPT(help_file),
		   "stress-ng --help text for lkp's probes (default: ask "
		   "this machine's stress-ng)"),
	RB_OPT_END,
};

static int job_expand(int argc, char **argv)
{
	struct expand_opts o = { 0 };
	struct svec args = SVEC_INIT;
	struct job_list jobs = JOB_LIST_INIT;
	struct svec notices = SVEC_INIT;
	struct sbuf out = SBUF_INIT, from = SBUF_INIT;
	struct lab lab = { 0 };
	struct lab_host here;
	const struct lab_host *h = NULL;
	char *help = NULL;
	long nr_cpu = 0;
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
	if (o.help_file && !o.lkp_argv) {
		svec_clear(&args);
		return rb_usage_error("job",
				      "--stress-ng-help needs --lkp-argv");
	}
	if (job_load_file(&jobs, o.job) < 0 ||
	    pick_host(&o, &lab, &here, &h, &nr_cpu, &from) < 0 ||
	    job_list_resolve(&jobs, nr_cpu, &notices) < 0) {
		rb_error_print();
		goto out;
	}
	for (i = 0; i < notices.nr; i++)
		rb_notice("%s", notices.v[i]);
	sbuf_addf(&out, "# %zu atomic job%s from %s, nr_cpu %ld (%s)\n",
		  jobs.nr, RB_PLURAL(jobs.nr), o.job, nr_cpu, from.buf);
	if (o.lkp_argv) {
		help = stressng_help(&o, h);
		if (!help && o.help_file) {
			rb_error_print();
			goto out;
		}
		if (!help)
			sbuf_addstr(&out, "# no stress-ng --help here: lkp's "
					  "probes (--<test>-method all, "
					  "--<test>-sched) not made\n");
		lkp_argv(&jobs, h, help, &out);
	}
	for (i = 0; !o.lkp_argv && i < jobs.nr; i++) {
		if (job_write_yaml(jobs.v[i], &out) < 0) {
			rb_error_print();
			goto out;
		}
	}
	fputs(out.buf, stdout);
	ret = fflush(stdout) ? RB_EXIT_FAIL : RB_EXIT_OK;
out:
	if (lab.file)
		lab_release(&lab);
	free(help);
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
		       RB_PLURAL(jobs.nr));
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
