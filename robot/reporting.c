// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mail of a found bisection, its reproduce materials, its delivery.
 */
#include <jansson.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "robot.h"
#include "bisection.h"
#include "cmp-load.h"
#include "compare.h"
#include "context.h"
#include "mail.h"
#include "outbox.h"
#include "payload.h"
#include "repo.h"
#include "report.h"
#include "report-page.h"
#include "reporting.h"
#include "runner.h"
#include "sbuf.h"
#include "stats.h"
#include "store.h"
#include "workdir.h"
#include "svec.h"

static struct rb_mail_addr *addrs(const struct svec *v, struct svec *own)
{
	struct rb_mail_addr *a = xcalloc(v->nr + 1, sizeof(*a));
	size_t i;

	for (i = 0; i < v->nr; i++)
		rb_mail_split_mailbox(svec_push(own, v->v[i]), &a[i]);
	return a;
}

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* mean and sample stddev of a JSON array of numbers */
static void summarize(json_t *a, double *mean, double *sd, unsigned *n)
{
	struct stats_summary s;
	double *v = xcalloc(json_array_size(a) + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < json_array_size(a); i++)
		v[i] = json_number_value(json_array_get(a, i));
	stats_summarize(&s, v, i);
	*mean = s.mean;
	*sd = i > 1 ? s.stddev : -1;
	*n = (unsigned)i;
	free(v);
}

/*
 * The matrix of a commit's runs in the bisection, lkp style: every stat a
 * column per run (0 where a run lacks it), for the table and for the
 * materials. host NULL: any host; after >= 0: only the runs after that
 * run id (the confirmation's).
 */
static int commit_matrix(struct ctx *c, int64_t id, const char *hex,
			 const char *host, int64_t after, struct cmp_matrix *m,
			 json_t **lkp)
{
	struct run_stats *all, *runs;
	struct rb_commit_info ci;
	uint8_t oid[RB_OID_RAWSZ];
	json_t *src;
	size_t nall, n, i, k;

	if (store_bisection_run_stats(c->st, id, hex, host, &all, &nall) < 0)
		return -1;
	/* in run id order: the runs after `after` are the last ones */
	for (i = 0; i < nall && all[i].run_id <= after; i++)
		;
	runs = all + i;
	n = nall - i;
	cmp_matrix_from_runs(m, hex, runs, n);
	if (rb_oid_from_hex(oid, hex) == 0 &&
	    rb_repo_commit_info(c->repo, oid, &ci) == 0) {
		m->title = xstrfmt("%.10s (\"%s\")", hex, ci.subject);
		rb_commit_info_release(&ci);
	}
	*lkp = json_object();
	for (k = 0; k < m->nr; k++) {
		const struct cmp_stat *st = &m->stats[k];
		json_t *col = json_array();

		for (i = 0; i < st->nr; i++)
			json_array_append_new(
				col,
				st->is_int[i] ?
					json_integer((json_int_t)st->v[i]) :
					json_real(st->v[i]));
		json_object_set_new(*lkp, st->name, col);
	}
	src = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(src, json_sprintf("%s/stats.json",
							runs[i].result_dir));
	json_object_set_new(*lkp, "stats_source", src);
	run_stats_free(all, nall);
	return 0;
}

static int write_json(const char *path, json_t *o)
{
	char *t = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS |
					JSON_REAL_PRECISION(15));
	int r;

	if (!t)
		return rb_error("cannot encode '%s'", path);
	r = rb_write_file_atomic(path, t, strlen(t));
	free(t);
	return r;
}

static int write_text(const char *dir, const char *name, const char *text)
{
	char *p = xstrfmt("%s/%s", dir, name);
	int r = rb_write_file_atomic(p, text, strlen(text));

	free(p);
	return r;
}

/* Copy a file that may be missing (0 then). */
static int copy_file(const char *from, const char *to)
{
	return rb_file_exists(from) ? rb_copy_file(from, to) : 0;
}

/* The stress-ng line the culprit's runs ran, from its result directory. */
static char *command_line(struct ctx *c, int64_t id, const char *culprit)
{
	struct run_stats *runs;
	char *p, *buf = NULL;
	size_t n;

	if (store_bisection_run_stats(c->st, id, culprit, NULL, &runs, &n) <
		    0 ||
	    !n)
		return NULL;
	p = xstrfmt("%s/cmdline", runs[n - 1].result_dir);
	if (rb_file_exists(p) && rb_read_file(p, &buf, NULL) == 0) {
		size_t l = strlen(buf);

		while (l && buf[l - 1] == '\n')
			buf[--l] = '\0';
	}
	free(p);
	run_stats_free(runs, n);
	return buf;
}

/*
 * reproduce.sh: the job's command line on a box booted into culprit; the
 * kernel config named only when the materials have one.
 */
static int materials_script(const char *dir, const struct job *job,
			    const char *culprit, const char *cmd,
			    bool has_config)
{
	struct sbuf sb = SBUF_INIT;
	char *p;
	int ret;

	sbuf_addf(&sb,
		  "#!/bin/sh\n"
		  "# Reproduce on a test machine booted into %s%s\n"
		  "# The box's setup and the command, as the robot's runs had\n"
		  "# them (lkp's reproduce.sh lines).\n"
		  "set -e\n",
		  culprit,
		  has_config ? "\n# (kernel config: config, next to this "
			       "script)." :
			       ".");
	if (job->cpufreq_governor && *job->cpufreq_governor)
		sbuf_addf(
			&sb,
			"for g in "
			"/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; "
			"do\n\t[ -w \"$g\" ] && echo %s >\"$g\"\ndone\n",
			job->cpufreq_governor);
	sbuf_addf(&sb, "%s\n", cmd ? cmd : "stress-ng --help");
	ret = write_text(dir, "reproduce.sh", sb.buf);
	sbuf_release(&sb);
	if (ret < 0)
		return -1;
	p = xstrfmt("%s/reproduce.sh", dir);
	chmod(p, 0755);
	free(p);
	return 0;
}

/*
 * config: the one the culprit was built with, else the job's kconfig;
 * none when there is neither (a lab without kconfig whose builds leave
 * none).
 */
static int materials_config(struct ctx *c, const struct job *job,
			    const char *dir, const char *culprit)
{
	struct runner r;
	char *art, *p;
	int ret = 0;

	if (runner_init(&r, &c->lab, c->st, c->repo, job, 0) < 0)
		return -1;
	art = runner_artifact_dir(&r, culprit);
	p = xstrfmt("%s/config", dir);
	if (rb_file_exists(art)) {
		char *a = xstrfmt("%s/.config", art);
		char *b = xstrfmt("%s/config", art);

		if (copy_file(rb_file_exists(b) ? b : a, p) < 0)
			ret = -1;
		free(a);
		free(b);
	}
	if (!rb_file_exists(p) && *r.kconfig_path &&
	    copy_file(r.kconfig_path, p) < 0)
		ret = -1;
	free(p);
	free(art);
	runner_release(&r);
	return ret;
}

/* The raw files of one confirming run into dir/confirm/<run>-<sha>. */
static int materials_run(const struct payload_ops *pl, const char *dir,
			 const struct run_stats *run, const char *who)
{
	static const char *const files[] = { "monitor", "stats.json",
					     "cmdline" };
	char *d = xstrfmt("%s/confirm/%lld-%.12s", dir, (long long)run->run_id,
			  who);
	struct svec names = SVEC_INIT;
	size_t i;

	if (rb_mkdir_p(d) < 0) {
		free(d);
		return -1;
	}
	svec_pushf(&names, "%s.stderr", pl->name);
	for (i = 0; pl->outputs[i]; i++)
		svec_push(&names, pl->outputs[i]);
	for (i = 0; i < RB_ARRAY_SIZE(files); i++)
		svec_push(&names, files[i]);
	for (i = 0; i < names.nr; i++) {
		char *a = xstrfmt("%s/%s", run->result_dir, names.v[i]);
		char *b = xstrfmt("%s/%s", d, names.v[i]);

		copy_file(a, b);
		free(a);
		free(b);
	}
	svec_clear(&names);
	free(d);
	return 0;
}

/* The raw files of the interleaved confirming runs. */
static int materials_confirm(struct ctx *c, const struct job *job, int64_t id,
			     const char *dir, const char *culprit,
			     json_t *confirm)
{
	const struct payload_ops *pl = payload_find(job->payload);
	size_t i;

	if (!pl)
		return -1;
	for (i = 0; json_is_array(confirm) && i < json_array_size(confirm);
	     i++) {
		json_t *e = json_array_get(confirm, i);
		const char *who[2] = { jstr(e, "parent"), culprit };
		json_int_t after =
			json_integer_value(json_object_get(e, "after_run"));
		int w;

		for (w = 0; w < 2; w++) {
			struct run_stats *runs;
			size_t n, k;
			int r = 0;

			if (store_bisection_run_stats(c->st, id, who[w],
						      jstr(e, "host"), &runs,
						      &n) < 0)
				return -1;
			for (k = 0; k < n && r == 0; k++)
				if (runs[k].run_id > after)
					r = materials_run(pl, dir, &runs[k],
							  who[w]);
			run_stats_free(runs, n);
			if (r < 0)
				return -1;
		}
	}
	return 0;
}

/*
 * archive/<id>/: job.yaml, the kernel config (when there is one),
 * reproduce.sh, bisect.log, the matrices, the raw files of the confirming
 * runs.
 */
static int materials(struct ctx *c, int64_t id, const char *dir,
		     const char *culprit, const char *cmd, json_t *mgood,
		     json_t *mculprit, const char *good, json_t *confirm)
{
	struct sbuf sb = SBUF_INIT;
	struct job *job = ctx_job(c, 0);
	char *p = NULL;
	FILE *f;
	int ret = -1;

	if (!job || rb_mkdir_p(dir) < 0)
		goto out;
	if (job_write_yaml(job, &sb) < 0 || write_text(dir, "job.yaml", sb.buf))
		goto out;
	if (materials_config(c, job, dir, culprit) < 0)
		goto out;
	p = xstrfmt("%s/config", dir);
	if (materials_script(dir, job, culprit, cmd, rb_file_exists(p)) < 0)
		goto out;
	free(p);
	p = xstrfmt("%s/bisect.log", dir);
	f = fopen(p, "w");
	if (!f) {
		rb_error("cannot write '%s': %s", p, strerror(errno));
		goto out;
	}
	bisection_print_log(f, c->st, c->repo, id);
	if (fclose(f) != 0) {
		rb_error("cannot write '%s'", p);
		goto out;
	}
	free(p);
	p = xstrfmt("%s/matrix-good-%.12s.json", dir, good);
	if (write_json(p, mgood) < 0)
		goto out;
	free(p);
	p = xstrfmt("%s/matrix-culprit-%.12s.json", dir, culprit);
	if (write_json(p, mculprit) < 0)
		goto out;
	ret = materials_confirm(c, job, id, dir, culprit, confirm);
out:
	free(p);
	sbuf_release(&sb);
	return ret;
}

/* The existing mail of a key in the outbox, or NULL. */
static char *find_key(struct rb_outbox *ob, const char *key)
{
	struct rb_outbox_entry *v;
	size_t n, i;
	char *id = NULL;

	if (rb_outbox_list(ob, &v, &n) < 0)
		return NULL;
	for (i = 0; i < n && !id; i++)
		if (!strcmp(v[i].key, key))
			id = xstrdup(v[i].id);
	rb_outbox_entries_free(v, n);
	return id;
}

static const char *domain_of(const char *email)
{
	const char *at = strrchr(email ? email : "", '@');

	return at && at[1] ? at + 1 : "robot.invalid";
}

/* A found bisection and its result JSON (owned), or NULL. */
static json_t *draft_load(struct ctx *c, int64_t bisection_id,
			  struct bisection_rec *rec)
{
	json_t *res;
	int g = store_bisection_get(c->st, bisection_id, rec);

	if (g <= 0) {
		if (!g)
			rb_error("no bisection %lld", (long long)bisection_id);
		return NULL;
	}
	if (strcmp(rec->status, "found") || !rec->culprit || !rec->result) {
		const char *shown = bisection_rec_status(
			rec, workdir_in_use(c->lab.workdir));

		if (!strcmp(shown, "found"))
			shown = "found, without its result";
		rb_error("bisection %lld found no culprit (%s%s%s): nothing to "
			 "report",
			 (long long)bisection_id, shown,
			 rec->stop_reason ? ": " : "",
			 rec->stop_reason ? rec->stop_reason : "");
		return NULL;
	}
	res = json_loads(rec->result, 0, NULL);
	if (!res)
		rb_error("bisection %lld: its result cannot be read",
			 (long long)bisection_id);
	return res;
}

/*
 * The materials live in the workdir (*dir); the lab's archive_url
 * publishes them, and only a published archive gives the mail a Closes:
 * link. Without one the mail names the local directory as file://, which
 * only the robot's machine can open (malloc'd, like *dir).
 */
static void draft_archive(struct ctx *c, const struct sbuf *msgid, char **dir,
			  struct rb_report *r, char **archive, char **local)
{
	char *idtext = xstrndup(msgid->buf + 1, msgid->len - 2);

	*dir = xstrfmt("%s/archive/%s", c->lab.workdir, idtext);
	free(idtext);
	*archive = *local = NULL;
	if (c->lab.mail.archive_url && *c->lab.mail.archive_url) {
		r->archive_url = *archive = xstrdup(c->lab.mail.archive_url);
		return;
	}
	r->materials_url = *local = xstrfmt("file://%s", *dir);
}

/* The culprit, where it was found, the stat and the change's kind. */
static void draft_commit(struct ctx *c, const struct bisection_rec *rec,
			 const struct rb_commit_info *ci, json_t *res,
			 struct rb_report *r)
{
	r->tree = c->lab.tree.name;
	r->branch = c->lab.tree.branch;
	r->tree_url = c->lab.tree.url;
	r->sha = rec->culprit;
	r->subject = ci->subject;
	r->author = (struct rb_mail_addr){ ci->author_name, ci->author_email };
	r->committer = (struct rb_mail_addr){ ci->committer_name,
					      ci->committer_email };
	r->stat = rec->metric;
	if (!r->confirm)
		r->pct = 0;
	/* the page's direction too: the two cannot read differently */
	r->kind = report_direction(rec->metric, res) * r->pct > 0 ?
			  RB_REPORT_IMPROVEMENT :
			  RB_REPORT_REGRESSION;
}

/* The [still regression on ...] lines of a follow-up (malloc'd). */
static struct rb_report_still *draft_still(const struct report_still *still,
					   size_t n)
{
	struct rb_report_still *v = n ? xcalloc(n, sizeof(*v)) : NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		v[i].tree = still[i].tree;
		v[i].branch = still[i].branch;
		v[i].sha = still[i].sha;
	}
	return v;
}

/* From, To (returned) and Cc of the lab, the date; strings kept in own. */
static struct rb_mail_addr *draft_people(struct ctx *c, struct svec *own,
					 struct rb_mail_addr **cc,
					 struct rb_report *r)
{
	rb_mail_split_mailbox(
		svec_push(own, c->lab.mail.from ?
				       c->lab.mail.from :
				       "kernel test robot <robot@localhost>"),
		&r->from);
	*cc = addrs(&c->lab.mail.cc, own);
	r->date = (int64_t)rb_now();
	r->tz_minutes = 0;
	return addrs(&c->lab.mail.to, own);
}

/* The random part of a Message-ID. */
static uint32_t draft_random(void)
{
	uint32_t rnd = 0;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)rb_now();
	return rnd;
}

/*
 * The workdir's outbox and the mail's key (culprit/stat/job, a follow-up's
 * with its latest head): 1 with *id when the mail was drafted before, 0.
 */
static int draft_outbox(struct ctx *c, const struct bisection_rec *rec,
			const char *still_head, struct rb_outbox *ob,
			struct sbuf *key, char **id)
{
	char *p;
	int r;

	if (rb_outbox_key(key, rec->culprit, rec->metric, rec->job) < 0)
		return -1;
	/* a follow-up is a mail of its own, one per latest head */
	if (still_head)
		sbuf_addf(key, "/still/%s", still_head);
	p = rb_path_join(c->lab.workdir, "outbox");
	r = rb_outbox_open(ob, p);
	free(p);
	if (r < 0)
		return -1;
	*id = find_key(ob, key->buf);
	return *id ? 1 : 0;
}

/*
 * What the job says in the mail's parameters block (params malloc'd); the
 * test machine the reported runs came from: the confirmation's host (the
 * subject's change and the compare table are its runs), the first host
 * without one.
 */
static struct rb_report_param *draft_job(struct ctx *c, const struct job *job,
					 struct rb_report *r)
{
	const struct lab_host *h = c->hosts[0];
	struct rb_report_param *params =
		xcalloc(job->params.nr + 1, sizeof(*params));
	size_t i;

	for (i = 0; i < job->params.nr; i++) {
		params[i].key = job->params.v[i].key;
		params[i].value = job->params.v[i].val;
	}
	r->testcase = job->testcase;
	r->config = job->kconfig ? job->kconfig : "none";
	r->compiler = job->compiler ? job->compiler : "gcc";
	if (r->confirm && r->confirm->host &&
	    lab_find_host(&c->lab, r->confirm->host))
		h = lab_find_host(&c->lab, r->confirm->host);
	r->machine = h->machine ? h->machine : h->name;
	r->params = params;
	r->params_nr = job->params.nr;
	return params;
}

/*
 * The compare table: the culprit's first parent against the culprit, as
 * 0-Day's mails have it, on the runs the subject's change is measured on:
 * the confirmation's (conf, of the first parent), on its host and after
 * its start. The steps' runs of the two were taken until the
 * evidence was strong, which overstates their difference
 * (doc/statistics.md). Without a confirmation (a root commit has none),
 * every run of the parent, or of the good anchor when the parent has none.
 * *jg and *jc the two commits' matrices (JSON, for the materials), *good
 * the base.
 */
static int draft_table(struct ctx *c, int64_t bisection_id,
		       const struct job *job, json_t *res, const char *culprit,
		       const struct rb_report_confirm *conf, struct sbuf *table,
		       json_t **jg, json_t **jc, const char **good)
{
	struct cmp_matrix mg, mc;
	const struct cmp_matrix *mats[2] = { &mg, &mc };
	struct cmp_opts co;
	struct cmp_axis axes[16];
	const char *tbox = c->hosts[0]->name, *host = NULL, *metric;
	int64_t after = -1;
	size_t i, na = 0;
	int ret;

	*good = NULL;
	if (conf && conf->host && *conf->parent.sha) {
		*good = conf->parent.sha;
		tbox = host = conf->host;
		after = conf->after_run;
	}
	if (!*good)
		*good = json_string_value(
			json_array_get(json_object_get(res, "parents"), 0));
	if (*good && !host) {
		int64_t nr;

		if (store_bisection_run_count(c->st, bisection_id, *good, "ok",
					      &nr) < 0)
			return -1;
		if (!nr)
			*good = NULL;
	}
	if (!*good)
		*good = json_string_value(
			json_array_get(json_object_get(res, "good"), 0));
	if (!*good)
		return -1;
	if (commit_matrix(c, bisection_id, *good, host, after, &mg, jg) < 0)
		return -1;
	if (commit_matrix(c, bisection_id, culprit, host, after, &mc, jc) < 0) {
		cmp_matrix_release(&mg);
		return -1;
	}
	cmp_opts_init(&co);
	axes[na++] = (struct cmp_axis){ "compiler",
					job->compiler ? job->compiler : "gcc" };
	axes[na++] = (struct cmp_axis){ "kconfig",
					job->kconfig ? job->kconfig : "none" };
	axes[na++] = (struct cmp_axis){ "rootfs",
					job->rootfs ? job->rootfs : "default" };
	axes[na++] = (struct cmp_axis){ "tbox_group", job->tbox_group ?
							      job->tbox_group :
							      tbox };
	axes[na++] = (struct cmp_axis){ "testcase", job->testcase };
	for (i = 0; i < job->params.nr && na < RB_ARRAY_SIZE(axes); i++)
		axes[na++] = (struct cmp_axis){ job->params.v[i].key,
						job->params.v[i].val };
	co.axes = axes;
	co.naxes = na;
	/* the regression the mail reports is always a row of its table */
	metric = json_string_value(json_object_get(res, "metric"));
	co.keep = &metric;
	co.nkeep = metric ? 1 : 0;
	ret = cmp_render(table, &co, mats, 2);
	cmp_matrix_release(&mg);
	cmp_matrix_release(&mc);
	return ret;
}

/*
 * How sure the result is: the confidence and why (its terms, into *note;
 * a result without them gets no note), and the share of the change the
 * culprit accounts for (result "share").
 */
static void draft_evidence(json_t *res, struct rb_report *r, struct sbuf *note)
{
	json_t *sh = json_object_get(res, "share");
	json_t *terms = json_object_get(res, "confidence_terms");

	r->confidence = json_number_value(json_object_get(res, "confidence"));
	/* results of robots before builds ahead do not say the cost */
	r->has_cost = json_object_get(res, "builds_ahead") != NULL;
	r->cost.runs =
		(unsigned)json_integer_value(json_object_get(res, "runs"));
	r->cost.boots =
		(unsigned)json_integer_value(json_object_get(res, "boots"));
	r->cost.builds =
		(unsigned)json_integer_value(json_object_get(res, "builds"));
	r->cost.builds_ahead = (unsigned)json_integer_value(
		json_object_get(res, "builds_ahead"));
	r->cost.builds_unused = (unsigned)json_integer_value(
		json_object_get(res, "builds_ahead_unused"));
	r->cost.build_wait =
		json_number_value(json_object_get(res, "build_wait_seconds"));
	if (json_is_object(terms)) {
		rb_report_confidence_note(
			note,
			(unsigned)json_integer_value(
				json_object_get(terms, "decided_steps")),
			json_number_value(json_object_get(terms, "step_alpha")),
			json_number_value(
				json_object_get(terms, "confirm_alpha")));
		r->confidence_note = note->buf;
	}
	r->has_share = json_is_object(sh);
	if (!r->has_share)
		return;
	r->share = json_number_value(json_object_get(sh, "culprit"));
	r->share_lo = json_number_value(json_object_get(sh, "lo"));
	r->share_hi = json_number_value(json_object_get(sh, "hi"));
	r->share_before = json_number_value(json_object_get(sh, "before"));
	r->share_after = json_number_value(json_object_get(sh, "after"));
	r->good_sha = json_string_value(
		json_array_get(json_object_get(res, "good"), 0));
	r->bad_sha = json_string_value(json_object_get(res, "bad"));
	r->has_share = r->good_sha && r->bad_sha;
}

/* The tested commits of the result (anchors left out), for the mail. */
static struct rb_report_step *draft_steps(struct ctx *c, json_t *res,
					  struct svec *subjects, size_t *n)
{
	json_t *a = json_object_get(res, "steps");
	size_t i, nsteps = json_array_size(a);
	struct rb_report_step *rs = xcalloc(nsteps + 1, sizeof(*rs));

	*n = 0;
	for (i = 0; i < nsteps; i++) {
		json_t *s = json_array_get(a, i);
		struct rb_report_step *r = &rs[*n];
		struct rb_commit_info si;
		uint8_t so[RB_OID_RAWSZ];

		if (json_is_true(json_object_get(s, "anchor")))
			continue;
		r->sha = jstr(s, "commit");
		r->verdict = jstr(s, "verdict");
		summarize(json_object_get(s, "samples"), &r->mean, &r->spread,
			  &r->runs);
		if (rb_oid_from_hex(so, r->sha) == 0 &&
		    rb_repo_commit_info(c->repo, so, &si) == 0) {
			r->subject = svec_push(subjects, si.subject);
			rb_commit_info_release(&si);
		} else {
			r->subject = "";
		}
		(*n)++;
	}
	return rs;
}

/*
 * The confirmation of the bisection's last "confirmed" step into *conf;
 * *confirm its JSON (owned). 1 when there is one, 0 when not, or -1.
 */
static int draft_confirm(struct ctx *c, int64_t bisection_id,
			 const char *culprit, struct rb_report_confirm *conf,
			 json_t **confirm)
{
	struct bisection_step_rec *steps = NULL;
	size_t i, nst = 0;
	json_t *e;

	memset(conf, 0, sizeof(*conf));
	*confirm = NULL;
	if (store_bisection_steps(c->st, bisection_id, &steps, &nst) < 0)
		return -1;
	for (i = nst; i-- > 0;)
		if (!strcmp(steps[i].kind, "confirmed") && steps[i].detail) {
			*confirm = json_loads(steps[i].detail, 0, NULL);
			break;
		}
	bisection_steps_free(steps, nst);
	if (!json_array_size(*confirm))
		return 0;
	e = json_array_get(*confirm, 0);
	conf->parent.sha = jstr(e, "parent");
	conf->parent.mean =
		json_number_value(json_object_get(e, "parent_mean"));
	conf->parent.spread =
		json_number_value(json_object_get(e, "parent_sd"));
	conf->parent.runs =
		(unsigned)json_integer_value(json_object_get(e, "parent_runs"));
	conf->culprit.sha = culprit;
	conf->culprit.mean =
		json_number_value(json_object_get(e, "culprit_mean"));
	conf->culprit.spread =
		json_number_value(json_object_get(e, "culprit_sd"));
	conf->culprit.runs = (unsigned)json_integer_value(
		json_object_get(e, "culprit_runs"));
	conf->rounds = RB_MIN(conf->parent.runs, conf->culprit.runs);
	conf->pct = json_number_value(json_object_get(e, "change_pct"));
	conf->p_value = json_number_value(json_object_get(e, "p"));
	conf->method = *jstr(e, "method") ? jstr(e, "method") :
					    "Yuen's trimmed-mean t-test";
	if (json_array_size(json_object_get(e, "ci_pct")) == 2) {
		json_t *ci = json_object_get(e, "ci_pct");

		conf->ci_lo = json_number_value(json_array_get(ci, 0));
		conf->ci_hi = json_number_value(json_array_get(ci, 1));
		conf->ci_level = json_number_value(json_object_get(e, "level"));
	}
	conf->reproduced = true;
	if (*jstr(e, "host")) {
		conf->host = jstr(e, "host");
		conf->after_run =
			json_integer_value(json_object_get(e, "after_run"));
	}
	return 1;
}

/*
 * What the mail and the evidence page both show, into r: the culprit's
 * subject, the compare table (*e the matrices for the materials), the
 * confirmation, the confidence, share and cost, the command to reproduce.
 */
struct evidence {
	struct rb_commit_info ci;
	struct rb_report_confirm conf;
	struct sbuf table, note;
	json_t *jg, *jc, *confirm;
	const char *good;
	char *cmd;
};

static int evidence_load(struct ctx *c, int64_t id, const struct job *job,
			 const struct bisection_rec *rec, json_t *res,
			 struct evidence *e, struct rb_report *r)
{
	uint8_t oid[RB_OID_RAWSZ];
	int g;

	if (rb_oid_from_hex(oid, rec->culprit) < 0 ||
	    rb_repo_commit_info(c->repo, oid, &e->ci) < 0)
		return -1;
	g = draft_confirm(c, id, rec->culprit, &e->conf, &e->confirm);
	if (g < 0 ||
	    draft_table(c, id, job, res, rec->culprit, g ? &e->conf : NULL,
			&e->table, &e->jg, &e->jc, &e->good) < 0)
		return -1;
	if (g) {
		r->confirm = &e->conf;
		r->pct = e->conf.pct;
	}
	r->subject = e->ci.subject;
	r->table = e->table.buf;
	draft_evidence(res, r, &e->note);
	e->cmd = command_line(c, id, rec->culprit);
	r->reproduce = e->cmd;
	return 0;
}

static void evidence_release(struct evidence *e)
{
	rb_commit_info_release(&e->ci);
	sbuf_release(&e->table);
	sbuf_release(&e->note);
	json_decref(e->jg);
	json_decref(e->jc);
	json_decref(e->confirm);
	free(e->cmd);
}

static int draft(struct ctx *c, int64_t bisection_id,
		 const struct report_still *still, size_t still_nr,
		 bool followup, char **id, char **eml, bool *existing)
{
	struct bisection_rec rec = { 0 };
	struct rb_outbox ob = RB_OUTBOX_INIT;
	struct rb_report r;
	struct evidence e = { .table = SBUF_INIT, .note = SBUF_INIT };
	struct rb_report_step *rs = NULL;
	struct rb_report_param *params = NULL;
	struct rb_report_still *st2 = NULL;
	struct rb_mail_addr *to = NULL, *cc = NULL;
	struct svec own = SVEC_INIT, subjects = SVEC_INIT;
	struct sbuf key = SBUF_INIT, mail = SBUF_INIT, msgid = SBUF_INIT;
	json_t *res = NULL;
	const struct job *job;
	char *dir = NULL, *archive = NULL, *local = NULL, *page = NULL;
	size_t n = 0;
	int ret = -1, g;

	*id = *eml = NULL;
	*existing = false;
	memset(&r, 0, sizeof(r));
	job = ctx_job(c, 0);
	if (!job)
		return -1;
	res = draft_load(c, bisection_id, &rec);
	if (!res)
		goto out;
	g = draft_outbox(c, &rec, followup ? still[still_nr - 1].sha : NULL,
			 &ob, &key, id);
	if (g < 0)
		goto out;
	if (g) {
		*existing = true;
		*eml = xstrfmt("%s/%s.eml", ob.dir, *id);
		/* a mail drafted before the robot made evidence pages gets its
		 * page among its materials (the mail itself stays as it was) */
		dir = xstrfmt("%s/archive/%s", c->lab.workdir, *id);
		page = xstrfmt("%s/%s", dir, REPORT_PAGE);
		if (rb_file_exists(dir) && !rb_file_exists(page)) {
			char *made = NULL;

			if (report_html(c, bisection_id, dir, &made) < 0)
				goto out;
			free(made);
		}
		ret = 0;
		goto out;
	}
	/* the culprit and the evidence */
	if (evidence_load(c, bisection_id, job, &rec, res, &e, &r) < 0)
		goto out;
	rs = draft_steps(c, res, &subjects, &n);
	/* the mail */
	params = draft_job(c, job, &r);
	r.still = st2 = draft_still(still, still_nr);
	r.still_nr = still_nr;
	to = draft_people(c, &own, &cc, &r);
	if (rb_report_message_id(&msgid, r.date, 0, draft_random(),
				 domain_of(r.from.email)) < 0)
		goto out;
	draft_commit(c, &rec, &e.ci, res, &r);
	r.to = to;
	r.to_nr = c->lab.mail.to.nr;
	r.cc = cc;
	r.cc_nr = c->lab.mail.cc.nr;
	draft_archive(c, &msgid, &dir, &r, &archive, &local);
	r.details = REPORT_PAGE;
	r.message_id = msgid.buf;
	r.spread_kind = RB_SPREAD_STDDEV;
	r.steps = rs;
	r.steps_nr = n;
	/* the materials first: the mail says whether they have a config */
	if (materials(c, bisection_id, dir, rec.culprit, e.cmd, e.jg, e.jc,
		      e.good, e.confirm) < 0)
		goto out;
	page = xstrfmt("%s/config", dir);
	r.no_config = !rb_file_exists(page);
	free(page);
	page = NULL;
	if (rb_report_render(&mail, &r) < 0)
		goto out;
	page = xstrfmt("%s/%s", dir, r.details);
	if (report_page_write(c, &rec, res, &r, page) < 0)
		goto out;
	if (rb_outbox_add(&ob, key.buf, mail.buf, mail.len, id, existing) < 0)
		goto out;
	*eml = xstrfmt("%s/%s.eml", ob.dir, *id);
	ret = 0;
out:
	json_decref(res);
	evidence_release(&e);
	bisection_rec_release(&rec);
	rb_outbox_release(&ob);
	free(rs);
	free(params);
	free(st2);
	free(to);
	free(cc);
	free(dir);
	free(archive);
	free(local);
	free(page);
	svec_clear(&own);
	svec_clear(&subjects);
	sbuf_release(&key);
	sbuf_release(&mail);
	sbuf_release(&msgid);
	if (ret < 0) {
		free(*id);
		free(*eml);
		*id = *eml = NULL;
	}
	return ret;
}

int report_html(struct ctx *c, int64_t bisection_id, const char *dir,
		char **path)
{
	struct bisection_rec rec = { 0 };
	struct rb_report r;
	struct evidence e = { .table = SBUF_INIT, .note = SBUF_INIT };
	json_t *res;
	const struct job *job = ctx_job(c, 0);
	int ret = -1;

	*path = NULL;
	memset(&r, 0, sizeof(r));
	if (!job)
		return -1;
	res = draft_load(c, bisection_id, &rec);
	if (!res ||
	    evidence_load(c, bisection_id, job, &rec, res, &e, &r) < 0 ||
	    rb_mkdir_p(dir) < 0)
		goto out;
	*path = xstrfmt("%s/%s", dir, REPORT_PAGE);
	ret = report_page_write(c, &rec, res, &r, *path);
out:
	json_decref(res);
	evidence_release(&e);
	bisection_rec_release(&rec);
	if (ret < 0) {
		free(*path);
		*path = NULL;
	}
	return ret;
}

int report_draft(struct ctx *c, int64_t bisection_id,
		 const struct report_still *still, size_t still_nr, char **id,
		 char **eml, bool *existing)
{
	return draft(c, bisection_id, still, still_nr, false, id, eml,
		     existing);
}

int report_draft_still(struct ctx *c, int64_t bisection_id,
		       const struct report_still *still, size_t still_nr,
		       char **id, char **eml, bool *existing)
{
	if (!still_nr) {
		*id = *eml = NULL;
		*existing = false;
		return rb_error("bisection %lld: no later head to report the "
				"culprit at",
				(long long)bisection_id);
	}
	return draft(c, bisection_id, still, still_nr, true, id, eml, existing);
}

bool report_auto_send(const struct lab *lab)
{
	return lab->mail.smtp && strcmp(lab->mail.smtp, "none") &&
	       lab->mail.auto_send;
}

struct deliver {
	const struct rb_smtp *smtp;
};

static int deliver(void *ctx, const char *msg, size_t len)
{
	const struct deliver *d = ctx;

	return rb_mail_send(d->smtp, msg, len, NULL);
}

int report_send(const struct lab *lab, const char *id, bool force)
{
	struct rb_outbox ob = RB_OUTBOX_INIT;
	struct rb_smtp smtp = { 0 };
	struct deliver d = { &smtp };
	char *dir = rb_path_join(lab->workdir, "outbox");
	char *as = NULL, *when = NULL;
	int r = -1;

	if (!lab->mail.smtp || !strcmp(lab->mail.smtp, "none")) {
		rb_error("the lab has no mail.smtp: the mail stays in '%s'",
			 dir);
		free(dir);
		return -1;
	}
	smtp.url = lab->mail.smtp;
	smtp.starttls = lab->mail.starttls;
	smtp.ca_file = lab->mail.ca_file;
	smtp.user = lab->mail.user;
	smtp.password_env = lab->mail.password_env;
	smtp.password_file = lab->mail.password_file;
	if (rb_outbox_open(&ob, dir) < 0)
		goto out;
	r = rb_outbox_send(&ob, id, deliver, &d, force ? RB_OUTBOX_FORCE : 0,
			   &as, &when);
	if (r < 0)
		rb_error_prefix("cannot send '%s'", id);
out:
	free(as);
	free(when);
	free(dir);
	rb_outbox_release(&ob);
	return r;
}
