// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot compare [--all] [--more] [--json] [--axis KEY=VALUE]...
 *               DIR_OR_MATRIX_A DIR_OR_MATRIX_B [...]
 *
 * The 0-Day %stddev/%change table of lkp result data (compare.c), so that
 * lkp users can compare what they already have: matrix.json files, commit
 * directories holding one, or directories of numbered runs with a
 * stats.json each.
 *
 * robot compare --lab LAB --job JOB [--param K=V]... [--host HOST]
 *               [--all] [--more] [--json] REV_A REV_B [REV...]
 *
 * The same table from the store: the OK runs of the job's run key on one
 * host (the lab's only host, or --host) at each revision, whatever robot
 * run, bisect or nightly measured them; failed and interrupted runs are
 * left out as the store knows them. Nothing runs: a revision without
 * measured runs is an error that says what is missing.
 */
#include "../robot.h"
#include "../cmp-load.h"
#include "../compare.h"
#include "../context.h"
#include "../repo.h"
#include "../runner.h"
#include "../sbuf.h"
#include "../store.h"
#include "../svec.h"
#include "cli.h"

struct compare_opts {
	bool all, more, json;
	const char *lab, *job, *host;
	struct svec params;
	struct svec axis; /* KEY=VALUE as given */
	struct svec axis_keys, axis_values;
	struct svec metrics; /* rows always shown */
};

#define COMPARE_OPT(f) offsetof(struct compare_opts, f)
const struct rb_opt_spec compare_opts[] = {
	RB_OPT_BOOL("--all", COMPARE_OPT(all),
		    "every stat, not only those lkp would show"),
	RB_OPT_BOOL("-a", COMPARE_OPT(all), "the same"),
	RB_OPT_BOOL("--more", COMPARE_OPT(more),
		    "include the stats lkp's denylist hides"),
	RB_OPT_BOOL("-m", COMPARE_OPT(more), "the same"),
	RB_OPT_BOOL("--json", COMPARE_OPT(json),
		    "rows, changes and significance tests as JSON"),
	RB_OPT_ADD("--axis", "K=V", COMPARE_OPT(axis),
		   "a common axis for the header (repeatable)"),
	RB_OPT_STR("--lab", "LAB", COMPARE_OPT(lab),
		   "compare the runs the lab's store holds"),
	RB_OPT_STR("--job", "JOB", COMPARE_OPT(job), "of this job"),
	RB_OPT_STR("--host", "HOST", COMPARE_OPT(host),
		   "on this host (when the lab has several)"),
	RB_OPT_PARAM(COMPARE_OPT(params)),
	RB_OPT_ADD("--metric", "STAT", COMPARE_OPT(metrics),
		   "a stat always shown, changed or not (repeatable)"),
	RB_OPT_END,
};

static int parse_axis(struct compare_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		return rb_usage_error("compare",
				      "--axis wants KEY=VALUE, got "
				      "'%s'",
				      arg);
	svec_push_nodup(&o->axis_keys, xstrndup(arg, (size_t)(eq - arg)));
	svec_push(&o->axis_values, eq + 1);
	return 0;
}

/*
 * The common axes: --axis ones, then those of lkp's layout that every
 * input shares (lkp compares within a group of equal axes).
 */
static void common_axes(struct compare_opts *o, char **paths, int n,
			struct svec *keys, struct svec *values)
{
	char *k0[6], *v0[6];
	int got0, i, j;
	size_t a;

	svec_append(keys, &o->axis_keys);
	svec_append(values, &o->axis_values);
	got0 = cmp_axes_from_path(paths[0], k0, v0);
	for (j = 0; j < got0; j++) {
		bool same = svec_find(keys, k0[j]) < 0;

		for (i = 1; i < n && same; i++) {
			char *k[6], *v[6];
			int got = cmp_axes_from_path(paths[i], k, v);

			same = got == got0 && !strcmp(v[j], v0[j]);
			for (a = 0; a < (size_t)got; a++) {
				free(k[a]);
				free(v[a]);
			}
		}
		if (same) {
			svec_push(keys, k0[j]);
			svec_push(values, v0[j]);
		}
	}
	for (j = 0; j < got0; j++) {
		free(k0[j]);
		free(v0[j]);
	}
}

/*
 * m[i] for each revision from the store, *loaded of them initialised;
 * the axes of the run key go to keys/values, the job's headline stat to
 * keep (always a row: the stat a bisection of the job is about).
 */
static int load_store(const struct compare_opts *o, char **revs, int n,
		      struct cmp_matrix *m, int *loaded, struct svec *keys,
		      struct svec *values, struct svec *keep)
{
	struct ctx_opts co = { .lab = o->lab,
			       .job = o->job,
			       .params = (const char *const *)o->params.v,
			       .nr_params = o->params.nr,
			       .hosts = o->host,
			       .need_repo = true };
	struct ctx c;
	struct run_key key;
	struct sbuf name = SBUF_INIT;
	const struct job *job;
	int i, ret = -1;

	if (ctx_open(&c, &co) < 0)
		return -1;
	if (c.nr_hosts > 1) {
		rb_error("'%s' has %zu hosts: name the one to compare on "
			 "with --host",
			 c.lab.file, c.nr_hosts);
		goto out;
	}
	job = ctx_job(&c, 0);
	if (!job)
		goto out;
	svec_push_nodup(keep, runner_headline_stat(job));
	job_name(job, &name);
	for (i = 0; i < n; i++, (*loaded)++) {
		uint8_t oid[RB_OID_RAWSZ];
		char hex[RB_OID_HEXSZ + 1];
		struct rb_commit_info ci;
		struct run_stats *runs;
		size_t nr;

		cmp_matrix_init(&m[i]);
		if (rb_repo_resolve(c.repo, revs[i], oid) < 0)
			goto out;
		rb_oid_hex(oid, hex);
		runner_job_key(job, c.hosts[0]->name, hex, &key);
		if (store_key_run_stats(c.st, &key, &runs, &nr) < 0)
			goto out;
		cmp_matrix_release(&m[i]);
		cmp_matrix_from_runs(&m[i], hex, runs, nr);
		run_stats_free(runs, nr);
		if (!nr) {
			rb_error("no measured runs of %s (%.12s) for %s on %s "
				 "in %s/robot.db: measure it with robot run",
				 revs[i], hex, name.buf, c.hosts[0]->name,
				 c.lab.workdir);
			(*loaded)++;
			goto out;
		}
		if (rb_repo_commit_info(c.repo, oid, &ci) < 0) {
			(*loaded)++;
			goto out;
		}
		m[i].title = xstrfmt("%.10s (\"%s\")", hex, ci.subject);
		rb_commit_info_release(&ci);
	}
	/* lkp's result-root axes, as the result directories give them */
	{
		const char *ak[] = { "testcase", "path_params", "tbox_group",
				     "rootfs",	 "kconfig",	"compiler" };
		const char *av[] = {
			key.testcase, key.path_params, key.host,
			key.rootfs,   key.kconfig,     key.compiler
		};

		for (i = 0; i < 6; i++)
			if (svec_find(keys, ak[i]) < 0) {
				svec_push(keys, ak[i]);
				svec_push(values, av[i]);
			}
	}
	ret = 0;
out:
	sbuf_release(&name);
	ctx_close(&c);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .params = SVEC_INIT,
				  .axis = SVEC_INIT,
				  .axis_keys = SVEC_INIT,
				  .axis_values = SVEC_INIT,
				  .metrics = SVEC_INIT };
	struct svec args = SVEC_INIT;
	struct svec keys = SVEC_INIT, values = SVEC_INIT;
	struct cmp_matrix *m = NULL;
	const struct cmp_matrix **mp = NULL;
	struct cmp_axis *axes = NULL;
	struct cmp_opts co;
	struct sbuf out = SBUF_INIT;
	char **paths;
	int i, npaths, ret = RB_EXIT_FAIL, loaded = 0;
	size_t a;

	i = rb_opts_parse("compare", compare_opts, argc - 1, argv + 1, &o,
			  &args);
	if (i)
		goto usage;
	for (a = 0; a < o.axis.nr; a++)
		if (parse_axis(&o, o.axis.v[a]))
			goto usage;
	paths = args.v;
	npaths = (int)args.nr;
	if (!o.lab != !o.job) {
		rb_usage_error("compare", "--lab and --job go together");
		goto usage;
	}
	if (!o.lab && (o.host || o.params.nr)) {
		rb_usage_error("compare", "--host and --param need --lab and "
					  "--job");
		goto usage;
	}
	if (npaths < 2) {
		rb_usage_error("compare", "need at least 2 %s to compare",
			       o.lab ? "revisions" : "results");
		goto usage;
	}
	m = xcalloc((size_t)npaths, sizeof(*m));
	mp = xcalloc((size_t)npaths, sizeof(*mp));
	for (i = 0; i < npaths; i++)
		mp[i] = &m[i];
	if (o.lab) {
		svec_append(&keys, &o.axis_keys);
		svec_append(&values, &o.axis_values);
		if (load_store(&o, paths, npaths, m, &loaded, &keys, &values,
			       &o.metrics) < 0) {
			rb_error_print();
			goto done;
		}
	} else {
		for (i = 0; i < npaths; i++, loaded++) {
			if (cmp_load(&m[i], paths[i])) {
				rb_error_print();
				loaded++;
				goto done;
			}
		}
		common_axes(&o, paths, npaths, &keys, &values);
	}
	axes = xcalloc(keys.nr ? keys.nr : 1, sizeof(*axes));
	for (a = 0; a < keys.nr; a++) {
		axes[a].key = keys.v[a];
		axes[a].value = values.v[a];
	}
	cmp_opts_init(&co);
	co.all = o.all;
	co.more = o.more;
	co.axes = axes;
	co.naxes = keys.nr;
	co.keep = (const char *const *)o.metrics.v;
	co.nkeep = o.metrics.nr;
	if ((o.json ? cmp_render_json(&out, &co, mp, (size_t)npaths) :
		      cmp_render(&out, &co, mp, (size_t)npaths))) {
		rb_error_print();
		goto done;
	}
	if (!out.len && !o.json)
		fprintf(stderr, "robot: no changed stats (--all shows every "
				"stat)\n");
	fwrite(out.buf, 1, out.len, stdout);
	ret = fflush(stdout) ? RB_EXIT_FAIL : RB_EXIT_OK;
	goto done;
usage:
	ret = RB_EXIT_USAGE;
done:
	for (i = 0; i < loaded && m; i++)
		cmp_matrix_release(&m[i]);
	free(m);
	free(mp);
	free(axes);
	svec_clear(&keys);
	svec_clear(&values);
	svec_clear(&o.params);
	svec_clear(&o.axis);
	svec_clear(&o.axis_keys);
	svec_clear(&o.axis_values);
	svec_clear(&o.metrics);
	svec_clear(&args);
	sbuf_release(&out);
	return ret;
}
