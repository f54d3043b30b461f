// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot bisect --lab LAB --job JOB --good REV [--good REV...] --bad REV
 *              [--metric STAT] [--threshold VALUE|-N%|+N%] [--first-parent]
 *              [--hosts NAME,...] [--param K=V]... [--json FILE]
 * robot bisect list --lab LAB
 * robot bisect log --lab LAB [ID]
 * robot bisect reset --lab LAB ID
 */
#include <jansson.h>
#include <time.h>
#include <unistd.h>

#include "../robot.h"
#include "../bisection.h"
#include "../context.h"
#include "../lava-exec.h"
#include "../repo.h"
#include "../reporting.h"
#include "../runner.h"
#include "../sbuf.h"
#include "../session-exec.h"
#include "../session.h"
#include "../stats.h"
#include "../store.h"
#include "../workdir.h"
#include "../svec.h"
#include "cli.h"

struct bisect_opts {
	struct ctx_opts ctx;
	struct svec goods;
	const char *bad;
	const char *metric;
	const char *threshold;
	const char *json;
	bool first_parent;
	struct svec params;
};

#define BISECT_OPT(f) offsetof(struct bisect_opts, f)
const struct rb_opt_spec bisect_opts[] = {
	RB_OPT_LAB(BISECT_OPT(ctx.lab), RB_OPT_REQ),
	RB_OPT_JOB(BISECT_OPT(ctx.job), RB_OPT_REQ),
	RB_OPT_ADD("--good", "REV", BISECT_OPT(goods),
		   "a good commit (repeatable)", RB_OPT_REQ),
	RB_OPT_STR("--bad", "REV", BISECT_OPT(bad), "the bad commit",
		   RB_OPT_REQ),
	RB_OPT_STR("--metric", "STAT", BISECT_OPT(metric),
		   "the stat bisected (default: the job's headline)"),
	RB_OPT_STR("--threshold", "VALUE|-N%|+N%", BISECT_OPT(threshold),
		   "the regression: a value, a drop or a rise from good"),
	RB_OPT_BOOL("--first-parent", BISECT_OPT(first_parent),
		    "follow only the first parent of merges"),
	RB_OPT_STR("--hosts", "NAME,...", BISECT_OPT(ctx.hosts),
		   "the lab hosts to use (default: all)"),
	RB_OPT_PARAM(BISECT_OPT(params)),
	RB_OPT_STR("--json", "FILE", BISECT_OPT(json), "the result as JSON"),
	RB_OPT_END,
};

static int parse(int argc, char **argv, struct bisect_opts *o)
{
	int r = rb_opts_parse("bisect", bisect_opts, argc - 1, argv + 1, o,
			      NULL);

	if (r)
		return r;
	o->ctx.params = (const char *const *)o->params.v;
	o->ctx.nr_params = o->params.nr;
	o->ctx.need_repo = true;
	o->ctx.what = "robot bisect";
	return 0;
}

static int print_stored(const char *status, const char *result,
			const char *json_path)
{
	int code = bisection_exit_code(status);

	if (result) {
		bisection_print_result(stdout, result);
		if (json_path && rb_write_file_atomic(json_path, result,
						      strlen(result)) < 0) {
			rb_error_print();
			return RB_EXIT_FAIL;
		}
	}
	return code;
}

/*
 * A found culprit gets its mail drafted (and sent when the lab says so);
 * the mail's path goes into the result JSON.
 */
static int draft_mail(struct ctx *c, int64_t id, const char *culprit,
		      char **json)
{
	char *mid = NULL, *eml = NULL, *j;
	bool existing;
	int r;

	if (report_draft(c, id, NULL, 0, &mid, &eml, &existing) < 0)
		return -1;
	j = bisection_set_mail(*json, eml);
	if (!j || store_bisection_finish(c->st, id, "found", culprit, j) < 0) {
		free(j);
		free(mid);
		free(eml);
		return -1;
	}
	free(*json);
	*json = j;
	if (existing)
		rb_notice("the mail about this culprit was drafted before: %s",
			  eml);
	if (report_auto_send(&c->lab)) {
		r = report_send(&c->lab, mid, false);
		if (r < 0)
			rb_warn("%s (the mail stays in the outbox)",
				rb_errmsg());
		else if (r == 0)
			rb_notice("mail %s sent", mid);
	}
	free(mid);
	free(eml);
	return 0;
}

/* what the signal thread needs to mark the bisection interrupted */
struct running {
	const char *workdir;
	_Atomic int64_t id;
};

static int opened(void *arg, int64_t id, bool resumed)
{
	struct running *rn = arg;

	rn->id = id;
	fprintf(stderr, "robot: %sbisection %lld\n", resumed ? "resuming " : "",
		(long long)id);
	return 0;
}

/* on the signal thread, with a store connection of its own */
static void stopped(void *arg, const char *why)
{
	struct running *rn = arg;
	struct store *st = NULL;

	if (!rn->id)
		return;
	if (store_open(&st, rn->workdir) < 0 ||
	    store_bisection_stop(st, rn->id, why) < 0)
		rb_error_print();
	store_close(st);
}

static int do_bisect(int argc, char **argv)
{
	struct bisect_opts o = { .goods = SVEC_INIT, .params = SVEC_INIT };
	struct ctx c;
	struct bisection_request req;
	struct bisection_run run = { 0 };
	static struct running rn;
	uint8_t bad[RB_OID_RAWSZ], (*goods)[RB_OID_RAWSZ] = NULL;
	char *metric = NULL;
	struct sbuf cmdline = SBUF_INIT;
	size_t i;
	int ret = RB_EXIT_FAIL, u;
	bool ctx_up = false;

	u = parse(argc, argv, &o);
	if (u)
		goto done;
	if (ctx_open_input(&c, &o.ctx) < 0)
		goto fail;
	ctx_up = true;
	/* the revisions refused before the workdir is made */
	goods = xcalloc(o.goods.nr, sizeof(*goods));
	if (rb_repo_resolve(c.repo, o.bad, bad) < 0)
		goto fail;
	for (i = 0; i < o.goods.nr; i++)
		if (rb_repo_resolve(c.repo, o.goods.v[i], goods[i]) < 0)
			goto fail;
	if (ctx_open_workdir(&c, o.ctx.what) < 0)
		goto fail;
	rn.workdir = c.lab.workdir;
	if (rb_interrupt_start(c.lab.workdir, isatty(STDERR_FILENO), stopped,
			       &rn) < 0)
		goto fail;
	metric = o.metric ? xstrdup(o.metric) : runner_headline_stat(c.job);
	memset(&req, 0, sizeof(req));
	req.ctx = &c;
	req.metric = metric;
	req.threshold = o.threshold;
	req.first_parent = o.first_parent;
	memcpy(req.bad, bad, sizeof(bad));
	req.goods = (const uint8_t(*)[RB_OID_RAWSZ])goods;
	req.nr_goods = o.goods.nr;
	for (i = 0; i < (size_t)argc; i++)
		sbuf_addf(&cmdline, "%s%s", i ? " " : "robot ", argv[i]);
	run.req = &req;
	run.command = cmdline.buf;
	run.direction = stats_direction(metric);
	run.progress = stderr;
	run.tty = isatty(STDERR_FILENO);
	run.opened = opened;
	run.arg = &rn;
	if (bisection_run(&run) < 0)
		goto fail;
	if (run.ended_before) {
		fprintf(stderr,
			"robot: bisection %lld already ended (%s); 'robot "
			"bisect reset --lab %s %lld' starts it again\n",
			(long long)run.id, run.status, o.ctx.lab,
			(long long)run.id);
		ret = print_stored(run.status, run.json, o.json);
		goto done;
	}
	/* the result is stored: a mail that cannot be drafted costs no more */
	if (run.culprit[0] &&
	    draft_mail(&c, run.id, run.culprit, &run.json) < 0)
		rb_warn("no mail: %s ('robot report --lab %s %lld' tries again)",
			rb_errmsg(), o.ctx.lab, (long long)run.id);
	bisection_print_result(stdout, run.json);
	if (o.json &&
	    rb_write_file_atomic(o.json, run.json, strlen(run.json)) < 0)
		goto fail;
	ret = bisection_exit_code(run.status);
	goto done;
fail:
	rb_error_print();
	ret = RB_EXIT_FAIL;
done:
	bisection_run_release(&run);
	if (ctx_up)
		ctx_close(&c);
	free(goods);
	free(metric);
	sbuf_release(&cmdline);
	svec_clear(&o.goods);
	svec_clear(&o.params);
	return u ? u : ret;
}

/* --- list, log, reset ------------------------------------------------ */

static int open_store(const char *lab_path, struct lab *lab, struct store **st)
{
	if (lab_load(lab, lab_path) < 0)
		return -1;
	if (store_open_readonly(st, lab->workdir) < 0) {
		lab_release(lab);
		return -1;
	}
	return 0;
}

enum id_arg { ID_NONE, ID_REQUIRED, ID_OPTIONAL };

/* --lab LAB and a bisection's ID (*id 0 when an optional one is not given) */
static int lab_and_id(int argc, char **argv, const char **lab, long *id,
		      enum id_arg want)
{
	const char *v = NULL;
	int i, r;

	*id = 0;
	for (i = 1; i < argc; i++) {
		if ((r = rb_opt_arg(argc, argv, &i, "--lab", lab))) {
			if (r < 0)
				return rb_usage_error("bisect",
						      "'--lab' needs a value");
		} else if (want != ID_NONE && !v) {
			v = argv[i];
		} else {
			return rb_usage_error("bisect", "unknown argument '%s'",
					      argv[i]);
		}
	}
	if (!*lab)
		return rb_usage_error("bisect", "--lab is required");
	if (!v && want == ID_OPTIONAL)
		return 0;
	if (v && (rb_parse_long(v, id) < 0 || *id < 1))
		return rb_usage_error("bisect",
				      "'%s' is not a bisection ID (a number "
				      "from 'robot bisect list')",
				      v);
	if (want != ID_NONE && !v)
		return rb_usage_error("bisect", "which bisection? (an ID "
						"from 'robot bisect list')");
	return 0;
}

static int do_list(int argc, char **argv)
{
	const char *labp = NULL;
	struct lab lab;
	struct store *st;
	struct bisection_rec *v;
	size_t n, i;
	long id;
	bool busy;
	int u = lab_and_id(argc, argv, &labp, &id, ID_NONE);

	if (u)
		return u;
	if (open_store(labp, &lab, &st) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	if (store_bisection_list(st, &v, &n) < 0) {
		rb_error_print();
		store_close(st);
		lab_release(&lab);
		return RB_EXIT_FAIL;
	}
	busy = workdir_in_use(lab.workdir);
	printf("%-4s %-15s %-12s %-12s %-12s %s\n", "id", "status", "good",
	       "bad", "culprit", "job / metric");
	for (i = 0; i < n; i++)
		printf("%-4lld %-15s %-12.12s %-12.12s %-12.12s %s %s\n",
		       (long long)v[i].id, bisection_rec_status(&v[i], busy),
		       v[i].good + 2, v[i].bad,
		       v[i].culprit ? v[i].culprit : "-", v[i].job,
		       v[i].metric);
	bisection_recs_free(v, n);
	store_close(st);
	lab_release(&lab);
	return RB_EXIT_OK;
}

/* The newest bisection of the store (the list is newest first). */
static int newest_bisection(struct store *st, const char *workdir, long *id)
{
	struct bisection_rec *v;
	size_t n;

	if (store_bisection_list(st, &v, &n) < 0)
		return -1;
	if (n)
		*id = (long)v[0].id;
	bisection_recs_free(v, n);
	return n ? 0 : rb_error("no bisection in '%s'", workdir);
}

static int do_log(int argc, char **argv)
{
	const char *labp = NULL;
	struct lab lab;
	struct store *st;
	struct rb_repo *repo = NULL;
	long id;
	int u = lab_and_id(argc, argv, &labp, &id, ID_OPTIONAL), ret;

	if (u)
		return u;
	if (open_store(labp, &lab, &st) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	/* as git bisect log: without an ID, the newest bisection */
	if (!id && newest_bisection(st, lab.workdir, &id) < 0) {
		rb_error_print();
		store_close(st);
		lab_release(&lab);
		return RB_EXIT_FAIL;
	}
	if (lab.tree.path)
		rb_repo_open(&repo, lab.tree.path);
	ret = bisection_print_log(stdout, st, repo, id) < 0 ? RB_EXIT_FAIL :
							      RB_EXIT_OK;
	if (ret)
		rb_error_print();
	rb_repo_free(repo);
	store_close(st);
	lab_release(&lab);
	return ret;
}

static int do_reset(int argc, char **argv)
{
	const char *labp = NULL;
	struct lab lab;
	struct store *st = NULL;
	struct workdir_lock *lk = NULL;
	struct bisection_rec rec = { 0 };
	long id;
	int u = lab_and_id(argc, argv, &labp, &id, ID_REQUIRED),
	    ret = RB_EXIT_FAIL;

	if (u)
		return u;
	if (lab_load(&lab, labp) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	if (workdir_lock_take(&lk, lab.workdir, "robot bisect reset") < 0 ||
	    store_open(&st, lab.workdir) < 0)
		goto fail;
	u = store_bisection_get(st, id, &rec);
	if (u <= 0) {
		if (!u)
			rb_error("no bisection %ld in '%s'", id, lab.workdir);
		goto fail;
	}
	/* its LAVA jobs still queued or running go first: a server that
	 * does not answer keeps the bisection for another reset */
	if (lab.lava.url) {
		size_t n;

		if (lava_cancel_waiting(&lab, st, id,
					"canceled by robot bisect reset",
					&n) < 0) {
			rb_error("bisection %ld kept: %s", id, rb_errmsg());
			goto fail;
		}
		if (n)
			printf("%zu LAVA job%s canceled\n", n, RB_PLURAL(n));
	}
	if (store_bisection_delete(st, id) < 0)
		goto fail;
	printf("bisection %ld forgotten (its runs stay in the store)\n", id);
	ret = RB_EXIT_OK;
	goto out;
fail:
	rb_error_print();
out:
	bisection_rec_release(&rec);
	store_close(st);
	workdir_lock_release(lk);
	lab_release(&lab);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "list"))
		return do_list(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "log"))
		return do_log(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "reset"))
		return do_reset(argc - 1, argv + 1);
	return do_bisect(argc, argv);
}
