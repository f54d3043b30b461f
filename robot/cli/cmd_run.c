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
#include "../repo.h"
#include "../runner.h"
#include "../sbuf.h"
#include "../store.h"
#include "../svec.h"
#include "cli.h"

/* Infrastructure failures in a row before a step gives up. */
#define MAX_INFRA 3

/* Give a box that went away time to come back: 2, 4, 8 s. */
static void backoff(long attempt)
{
	sleep(2u << (attempt > 4 ? 4 : attempt - 1));
}

struct run_opts {
	struct ctx_opts ctx;
	const char *commit;
	long runs;
	struct svec params;
};

static int parse(int argc, char **argv, struct run_opts *o)
{
	const char *v;
	int i, r;

	o->runs = 1;
	for (i = 1; i < argc; i++) {
		if ((r = rb_opt_arg(argc, argv, &i, "--lab", &o->ctx.lab)) ||
		    (r = rb_opt_arg(argc, argv, &i, "--job", &o->ctx.job)) ||
		    (r = rb_opt_arg(argc, argv, &i, "--commit", &o->commit)) ||
		    (r = rb_opt_arg(argc, argv, &i, "--host", &o->ctx.hosts))) {
			if (r < 0)
				return rb_usage_error(
					"run", "'%s' needs a value", argv[i]);
		} else if ((r = rb_opt_arg(argc, argv, &i, "--param", &v))) {
			if (r < 0)
				return rb_usage_error(
					"run", "'%s' needs a value", argv[i]);
			svec_push(&o->params, v);
		} else if ((r = rb_opt_arg(argc, argv, &i, "--runs", &v))) {
			if (r < 0 || rb_parse_long(v, &o->runs) < 0 ||
			    o->runs < 1 || o->runs > 1000)
				return rb_usage_error(
					"run", "--runs takes a count (1-1000)");
		} else {
			return rb_usage_error("run", "unknown argument '%s'",
					      argv[i]);
		}
	}
	if (!o->ctx.lab || !o->ctx.job || !o->commit)
		return rb_usage_error("run", "--lab, --job and --commit are "
					     "required");
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
		       n == 1 ? "" : "s");
		free(v);
	}
}

RB_CMD(run)
{
	struct run_opts o = { .params = SVEC_INIT };
	struct ctx c;
	struct runner r;
	struct statset stats = STATSET_INIT;
	struct sbuf why = SBUF_INIT;
	struct run_key key;
	enum step_outcome out;
	enum run_status status;
	uint8_t oid[RB_OID_RAWSZ];
	char hex[RB_OID_HEXSZ + 1];
	const struct lab_host *host;
	struct job *job;
	int64_t boot_id = 0;
	long done = 0, infra = 0;
	int ret = RB_EXIT_FAIL, u;
	bool runner_up = false, booted = false;

	u = parse(argc, argv, &o);
	if (u) {
		svec_clear(&o.params);
		return u;
	}
	if (ctx_open(&c, &o.ctx) < 0) {
		rb_error_print();
		svec_clear(&o.params);
		return RB_EXIT_FAIL;
	}
	host = c.hosts[0];
	job = ctx_job(&c, 0);
	if (!job || rb_repo_resolve(c.repo, o.commit, oid) < 0 ||
	    runner_init(&r, &c.lab, c.st, c.repo, job, 0) < 0) {
		rb_error_print();
		goto out;
	}
	runner_up = true;
	r.quiet = !isatty(STDERR_FILENO);
	rb_oid_hex(oid, hex);
	for (infra = 0; infra < MAX_INFRA; infra++) {
		sbuf_reset(&why);
		if (runner_build(&r, hex, &out, &why) < 0)
			goto fail;
		if (out != STEP_INFRA)
			break;
		rb_warn("build of %.12s failed (infrastructure): %s", hex,
			why.buf);
		if (infra + 1 < MAX_INFRA)
			backoff(infra + 1);
	}
	if (out == STEP_SKIP) {
		fprintf(stderr, "robot: %.12s cannot be built: %s\n", hex,
			why.buf);
		ret = RB_EXIT_INCONCLUSIVE;
		goto out;
	}
	if (out != STEP_OK) {
		rb_error("giving up on building %.12s: %s", hex, why.buf);
		goto fail;
	}
	for (infra = 0; done < o.runs;) {
		if (!booted) {
			sbuf_reset(&why);
			if (runner_boot(&r, host, hex, &boot_id, &out, &why) <
			    0)
				goto fail;
			if (out == STEP_SKIP) {
				fprintf(stderr,
					"robot: %.12s cannot be booted on %s: "
					"%s\n",
					hex, host->name, why.buf);
				ret = RB_EXIT_INCONCLUSIVE;
				goto out;
			}
			if (out == STEP_INFRA) {
				rb_warn("boot of %s failed (infrastructure): %s",
					host->name, why.buf);
				if (++infra >= MAX_INFRA)
					break;
				backoff(infra);
				continue;
			}
			booted = true;
		}
		sbuf_reset(&why);
		statset_release(&stats);
		if (runner_run(&r, host, hex, boot_id, &status, &stats, &why) <
		    0)
			goto fail;
		if (status == RUN_INFRA) {
			/* the box may be gone: boot it again before retrying */
			rb_warn("run on %s failed (infrastructure), retrying: %s",
				host->name, why.buf);
			booted = false;
			if (++infra >= MAX_INFRA)
				break;
			backoff(infra);
			continue;
		}
		if (status == RUN_FAILED) {
			rb_error("the payload failed on %s: %s", host->name,
				 why.buf);
			goto fail;
		}
		infra = 0;
		done++;
	}
	if (done < o.runs) {
		rb_error("giving up on %s after %d infrastructure failures in "
			 "a row: %s",
			 host->name, MAX_INFRA, why.buf);
		goto fail;
	}
	runner_key(&r, host->name, hex, &key);
	summary(c.st, &key, &stats, job->payload ? job->payload : "stress-ng");
	ret = RB_EXIT_OK;
	goto out;
fail:
	rb_error_print();
out:
	if (runner_up)
		runner_release(&r);
	statset_release(&stats);
	sbuf_release(&why);
	ctx_close(&c);
	svec_clear(&o.params);
	return ret;
}
