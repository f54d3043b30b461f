// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot history --lab LAB --job JOB [--stat STAT] [--param K=V]...
 *               [--json] [--svg FILE] [--changes]
 */
#include "../robot.h"
#include "../bisect.h"
#include "../history.h"
#include "../job.h"
#include "../lab.h"
#include "../nightly-store.h"
#include "../repo.h"
#include "../sbuf.h"
#include "../stats.h"
#include "../store.h"
#include "../svec.h"
#include "cli.h"

struct history_opts {
	const char *lab, *job, *stat, *svg;
	bool json, changes;
	struct svec params;
};

#define HISTORY_OPT(f) offsetof(struct history_opts, f)
const struct rb_opt_spec history_opts[] = {
	RB_OPT_LAB(HISTORY_OPT(lab), RB_OPT_REQ),
	RB_OPT_STR("--job", "JOB", HISTORY_OPT(job),
		   "a job file, or the stored name of a job", RB_OPT_REQ),
	RB_OPT_STR("--stat", "STAT", HISTORY_OPT(stat),
		   "the stat shown (default: the job's metric)"),
	RB_OPT_PARAM(HISTORY_OPT(params)),
	RB_OPT_BOOL("--json", HISTORY_OPT(json), "the same as JSON"),
	RB_OPT_STR("--svg", "FILE", HISTORY_OPT(svg), "draw the series"),
	RB_OPT_BOOL("--changes", HISTORY_OPT(changes),
		    "list the series' change points"),
	RB_OPT_END,
};

/* A job file names its atomic job (--param selects one); else JOB is the
 * name the nightly stored ("stress-ng/1-mmapaddr-1s"). */
static char *job_key(const struct history_opts *o)
{
	struct job_list jl = JOB_LIST_INIT;
	struct sbuf name = SBUF_INIT;
	char *ret = NULL;
	long i;

	if (!rb_file_exists(o->job)) {
		if (o->params.nr) {
			rb_error("no job file '%s' to pick parameters from",
				 o->job);
			return NULL;
		}
		return xstrdup(o->job);
	}
	if (job_load_file(&jl, o->job) < 0)
		return NULL;
	i = job_select(&jl, (const char *const *)o->params.v, o->params.nr);
	if (i >= 0)
		ret = xstrdup(job_name(jl.v[i], &name));
	sbuf_release(&name);
	job_list_release(&jl);
	return ret;
}

static void subjects(struct history *h, const char *tree)
{
	struct rb_repo *repo = NULL;
	struct rb_commit_info ci;
	uint8_t oid[RB_OID_RAWSZ];
	size_t i;

	if (!tree || rb_repo_open(&repo, tree) < 0) {
		rb_error_clear();
		return;
	}
	for (i = 0; i < h->nr; i++) {
		struct history_point *p = &h->v[i];

		if (rb_oid_from_hex(oid, p->commit) == 0 &&
		    rb_repo_commit_info(repo, oid, &ci) == 0) {
			p->subject = xstrdup(ci.subject);
			rb_commit_info_release(&ci);
		}
		if (p->culprit && rb_oid_from_hex(oid, p->culprit) == 0 &&
		    rb_repo_commit_info(repo, oid, &ci) == 0) {
			p->culprit_subject = xstrdup(ci.subject);
			rb_commit_info_release(&ci);
		}
	}
	rb_error_clear();
	rb_repo_free(repo);
}

/*
 * The change points of the series (those of the job's latest host), and
 * what the nightly did about them: the bisection of the same heads.
 */
static int find_changes(struct store *st, struct history *h)
{
	struct nightly_change_rec *v = NULL;
	const char *host = h->nr ? h->v[h->nr - 1].host : NULL;
	int dir = stats_direction(h->stat);
	size_t n = 0, i, k;

	if (history_find_changes(h, host, dir ? dir : 1) < 0 ||
	    nstore_changes(st, h->job, h->stat, &v, &n) < 0)
		return -1;
	for (i = 0; i < h->changes_nr; i++) {
		struct history_change *c = &h->changes[i];

		for (k = n; k-- > 0;) {
			struct bisection_rec b = { 0 };

			if ((strcmp(v[k].good, h->v[c->good].commit) ||
			     strcmp(v[k].bad, h->v[c->bad].commit)) &&
			    strcmp(v[k].at, h->v[c->at].commit))
				continue;
			c->bisection = v[k].bisection_id;
			if (c->bisection &&
			    store_bisection_get(st, c->bisection, &b) > 0) {
				c->bisection_status = xstrdup(b.status);
				c->culprit = b.culprit ? xstrdup(b.culprit) :
							 NULL;
			}
			bisection_rec_release(&b);
			break;
		}
	}
	nightly_change_recs_free(v, n);
	return 0;
}

static void no_history(struct store *st, const char *job, const char *wd)
{
	char **names;
	size_t n, i;
	struct sbuf sb = SBUF_INIT;

	if (nstore_history_jobs(st, &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		sbuf_addf(&sb, "%s'%s'", i ? ", " : "", names[i]);
		free(names[i]);
	}
	free(names);
	if (n)
		rb_error("no nightly history of '%s' in '%s' (there is: %s)",
			 job, wd, sb.buf);
	else
		rb_error("no nightly history of '%s' in '%s': the nightly "
			 "has not run there",
			 job, wd);
	sbuf_release(&sb);
}

/*
 * A --stat the history does not hold is refused as bisect --metric is,
 * with a "did you mean": its series would be a table of empty rows. 1
 * known, 0 no history of the job at all (no_history() says so), or -1.
 */
static int check_stat(struct store *st, const char *job, const char *stat)
{
	struct svec known = SVEC_INIT;
	struct sbuf why = SBUF_INIT;
	int ret;

	if (nstore_history_stats(st, job, &known) < 0)
		ret = -1;
	else if (!known.nr)
		ret = 0;
	else if (svec_find(&known, stat) >= 0)
		ret = 1;
	else {
		sbuf_addf(&why,
			  "the nightly history of '%s' has %zu stats, not "
			  "this one",
			  job, known.nr);
		ret = rb_error_unknown("stat", stat,
				       (const char *const *)known.v, known.nr,
				       why.buf);
	}
	svec_clear(&known);
	sbuf_release(&why);
	return ret;
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = { .params = SVEC_INIT };
	struct history h = HISTORY_INIT;
	struct sbuf out = SBUF_INIT, svg = SBUF_INIT;
	struct lab lab;
	struct store *st = NULL;
	char *job = NULL;
	bool lab_up = false;
	int ret = RB_EXIT_FAIL, u, known = 1;

	u = rb_opts_parse("history", history_opts, argc - 1, argv + 1, &o,
			  NULL);
	if (u) {
		svec_clear(&o.params);
		return u;
	}
	if (lab_load(&lab, o.lab) < 0)
		goto fail;
	lab_up = true;
	job = job_key(&o);
	if (!job || store_open_readonly(&st, lab.workdir) < 0 ||
	    (o.stat && (known = check_stat(st, job, o.stat)) < 0) ||
	    nstore_history_series(st, job, o.stat, &h) < 0)
		goto fail;
	if (!h.stat || !known) {
		no_history(st, job, lab.workdir);
		goto fail;
	}
	subjects(&h, lab.tree.path);
	if (find_changes(st, &h) < 0)
		goto fail;
	if (o.json    ? history_json(&h, &out) :
	    o.changes ? history_changes_table(&h, &out) :
			history_table(&h, &out))
		goto fail;
	if (o.svg) {
		if (history_svg(&h, &svg) < 0 ||
		    rb_write_file_atomic(o.svg, svg.buf, svg.len) < 0)
			goto fail;
	}
	fputs(out.buf, stdout);
	ret = RB_EXIT_OK;
	goto out;
fail:
	rb_error_print();
out:
	history_release(&h);
	store_close(st);
	if (lab_up)
		lab_release(&lab);
	free(job);
	sbuf_release(&out);
	sbuf_release(&svg);
	svec_clear(&o.params);
	return ret;
}
