// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot run --lab LAB --job JOB --commit REV [--host NAME] [--runs N]
 *           [--param k=v]...
 */
#include <math.h>
#include <unistd.h>

#include "../robot.h"
#include "../bisect.h"
#include "../context.h"
#include "../measure.h"
#include "../repo.h"
#include "../runner.h"
#include "../sbuf.h"
#include "../store.h"
#include "../svec.h"
#include "cli.h"

struct run_opts {
	struct ctx_opts ctx;
	const char *commit;
	long runs;
	struct svec params;
};

#define RUN_OPT(f) offsetof(struct run_opts, f)
const struct rb_opt_spec run_opts[] = {
	RB_OPT_LAB(RUN_OPT(ctx.lab), RB_OPT_REQ),
	RB_OPT_JOB(RUN_OPT(ctx.job), RB_OPT_REQ),
	RB_OPT_STR("--commit", "REV", RUN_OPT(commit),
		   "the commit to build, boot and run", RB_OPT_REQ),
	RB_OPT_STR("--host", "NAME", RUN_OPT(ctx.hosts),
		   "the host to use (default: the lab's first)"),
	RB_OPT_NUM("--runs", "N", RUN_OPT(runs), 1, 1000,
		   "payload runs (default 1)"),
	RB_OPT_PARAM(RUN_OPT(params)),
	RB_OPT_END,
};

static int parse(int argc, char **argv, struct run_opts *o)
{
	int r;

	o->runs = 1;
	r = rb_opts_parse("run", run_opts, argc - 1, argv + 1, o, NULL);
	if (r)
		return r;
	if (o->ctx.hosts && strchr(o->ctx.hosts, ','))
		return rb_usage_error("run", "--host names one host");
	o->ctx.params = (const char *const *)o->params.v;
	o->ctx.nr_params = o->params.nr;
	o->ctx.need_repo = true;
	o->ctx.what = "robot run";
	return 0;
}

/* The lines worth a glance: the payload's *_per_sec stats. */
static bool headline(const char *stat, const char *payload)
{
	size_t n = strlen(payload);

	return !strncmp(stat, payload, n) && stat[n] == '.' &&
	       !rb_starts_with(stat + n + 1, "time.") &&
	       rb_ends_with(stat, "_per_sec");
}

static void summary(struct store *st, const struct run_key *key,
		    const struct statset *last, const char *payload)
{
	size_t i, j, n;
	double *v;

	for (i = 0; i < last->nr; i++) {
		double mean = 0, var = 0;

		if (!headline(last->v[i].name, payload))
			continue;
		if (store_samples(st, key, last->v[i].name, &v, &n) < 0 || !n)
			continue;
		for (j = 0; j < n; j++)
			mean += v[j];
		mean /= (double)n;
		for (j = 0; j < n; j++)
			var += (v[j] - mean) * (v[j] - mean);
		var = n > 1 ? var / (double)(n - 1) : 0;
		printf("%-50s %14.2f  ±%5.1f%%  %zu run%s\n", last->v[i].name,
		       mean, mean ? 100 * sqrt(var) / fabs(mean) : 0.0, n,
		       RB_PLURAL(n));
		free(v);
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .params = SVEC_INIT };
	struct ctx c;
	struct runner r;
	struct measure m;
	struct measure_result res;
	struct statset stats = STATSET_INIT;
	struct sbuf why = SBUF_INIT;
	struct run_key key;
	uint8_t oid[RB_OID_RAWSZ];
	char hex[RB_OID_HEXSZ + 1];
	const struct lab_host *host;
	struct job *job;
	long done;
	int ret = RB_EXIT_FAIL, u;
	bool runner_up = false;

	u = parse(argc, argv, &o);
	if (u) {
		svec_clear(&o.params);
		return u;
	}
	if (ctx_open_input(&c, &o.ctx) < 0) {
		rb_error_print();
		svec_clear(&o.params);
		return RB_EXIT_FAIL;
	}
	host = c.hosts[0];
	job = ctx_job(&c, 0);
	/* the input refused before the workdir is made */
	if (!job || rb_repo_resolve(c.repo, o.commit, oid) < 0 ||
	    ctx_open_workdir(&c, o.ctx.what) < 0 ||
	    runner_init(&r, &c.lab, c.st, c.repo, job, 0) < 0) {
		rb_error_print();
		goto out;
	}
	runner_up = true;
	r.quiet = !isatty(STDERR_FILENO);
	measure_init(&m, &r, host);
	rb_oid_hex(oid, hex);
	for (done = 0; done < o.runs; done++) {
		if (measure_retry(&m, hex, &res, &stats, &why) < 0)
			goto fail;
		if (res.outcome == MEASURE_SKIP) {
			if (res.stage == MEASURE_BUILD)
				fprintf(stderr,
					"robot: %.12s cannot be built: %s\n",
					hex, why.buf);
			else
				fprintf(stderr,
					"robot: %.12s cannot be booted on %s: "
					"%s\n",
					hex, host->name, why.buf);
			ret = RB_EXIT_INCONCLUSIVE;
			goto out;
		}
		if (res.outcome == MEASURE_FAILED) {
			rb_error("the payload failed on %s: %s", host->name,
				 why.buf);
			goto fail;
		}
	}
	runner_key(&r, host->name, hex, &key);
	summary(c.st, &key, &stats, job->payload ? job->payload : "stress-ng");
	ret = RB_EXIT_OK;
	goto out;
fail:
	rb_error_print();
out:
	if (runner_up) {
		measure_release(&m);
		runner_release(&r);
	}
	statset_release(&stats);
	sbuf_release(&why);
	ctx_close(&c);
	svec_clear(&o.params);
	return ret;
}
