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
 * NEEDSWORK: the store-backed form `robot compare --lab LAB --job JOB
 * REV_A REV_B [REV...]` is not written yet. Its parts exist on main now:
 * ctx_open (lab, job, repository), rb_repo_resolve and the commits'
 * subjects for the titles, runner_key's naming of a run key, and the
 * runner's lkp result tree (results/<testcase>/<path_params>/<host>/
 * <rootfs>/<kconfig>/<compiler>/<commit>/, whose commit directories this
 * command already reads). What is missing: a store query for the whole
 * matrix of a run key over its OK runs (store_samples reads one stat),
 * so that failed and interrupted runs are left out as the store knows
 * them, and a way to get the kconfig/rootfs names without a runner.
 * Until then it fails with a clear message instead of guessing.
 */
#include "../robot.h"
#include "../cmp-load.h"
#include "../compare.h"
#include "../sbuf.h"
#include "../svec.h"
#include "cli.h"

struct compare_opts {
	bool all, more, json;
	const char *lab, *job;
	struct svec axis_keys, axis_values;
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

RB_CMD(compare)
{
	struct compare_opts o = { .axis_keys = SVEC_INIT,
				  .axis_values = SVEC_INIT };
	struct svec keys = SVEC_INIT, values = SVEC_INIT;
	struct cmp_matrix *m = NULL;
	const struct cmp_matrix **mp = NULL;
	struct cmp_axis *axes = NULL;
	struct cmp_opts co;
	struct sbuf out = SBUF_INIT;
	char **paths;
	int i, npaths, ret = RB_EXIT_FAIL, loaded = 0;
	size_t a;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--")) {
			i++;
			break;
		} else if (!strcmp(arg, "--all") || !strcmp(arg, "-a")) {
			o.all = true;
		} else if (!strcmp(arg, "--more") || !strcmp(arg, "-m")) {
			o.more = true;
		} else if (!strcmp(arg, "--json")) {
			o.json = true;
		} else if (!strcmp(arg, "--axis") && i + 1 < argc) {
			if (parse_axis(&o, argv[++i]))
				goto usage;
		} else if (rb_starts_with(arg, "--axis=")) {
			if (parse_axis(&o, arg + 7))
				goto usage;
		} else if (!strcmp(arg, "--lab") && i + 1 < argc) {
			o.lab = argv[++i];
		} else if (!strcmp(arg, "--job") && i + 1 < argc) {
			o.job = argv[++i];
		} else {
			rb_usage_error("compare", "unknown option '%s'", arg);
			goto usage;
		}
	}
	paths = argv + i;
	npaths = argc - i;
	if (o.lab || o.job) {
		/* NEEDSWORK: see the top of this file */
		fprintf(stderr,
			"robot: compare from the store (--lab/--job) is not "
			"available yet; compare matrix.json files or result "
			"directories instead\n");
		ret = RB_EXIT_FAIL;
		goto done;
	}
	if (npaths < 2) {
		rb_usage_error("compare", "need at least 2 results to compare");
		goto usage;
	}
	m = xcalloc((size_t)npaths, sizeof(*m));
	mp = xcalloc((size_t)npaths, sizeof(*mp));
	for (i = 0; i < npaths; i++, loaded++) {
		if (cmp_load(&m[i], paths[i])) {
			rb_error_print();
			loaded++;
			goto done;
		}
		mp[i] = &m[i];
	}
	common_axes(&o, paths, npaths, &keys, &values);
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
	svec_clear(&o.axis_keys);
	svec_clear(&o.axis_values);
	sbuf_release(&out);
	return ret;
}
