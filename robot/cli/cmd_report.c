// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot report --lab LAB ID [--still] [--send] [--force]
 * robot report --lab LAB --html DIR ID
 */
#include "../robot.h"
#include "../context.h"
#include "../nightly-store.h"
#include "../outbox.h"
#include "../reporting.h"
#include "../sbuf.h"
#include "../store.h"
#include "../svec.h"
#include "cli.h"

/* The atomic job file a bisection ran (runner_init wrote it there). */
static char *job_file(const struct lab *lab, const char *job)
{
	char *name = xstrdup(job), *p, *path;

	for (p = name; *p; p++)
		if (*p == '/')
			*p = '-';
	path = xstrfmt("%s/jobs/%s.yaml", lab->workdir, name);
	free(name);
	return path;
}

/*
 * The follow-up of a nightly report whose culprit still showed at later
 * heads: every [still regression on ...] line the nightly recorded.
 */
static int draft_still(struct ctx *c, long id, char **mid, char **eml)
{
	struct nightly_report_rec rep;
	struct nightly_still_rec *v = NULL;
	struct report_still *rs = NULL;
	size_t n = 0, k;
	bool existing;
	int r, ret = -1;

	r = nstore_report_of_bisection(c->st, id, &rep);
	if (r <= 0) {
		if (!r)
			rb_error("bisection %ld is not a nightly report: no "
				 "later head is known",
				 id);
		return -1;
	}
	if (nstore_still_list(c->st, rep.id, &v, &n) < 0)
		goto out;
	if (!n) {
		rb_error("the culprit of bisection %ld was not seen at a later "
			 "head yet",
			 id);
		goto out;
	}
	rs = xcalloc(n, sizeof(*rs));
	for (k = 0; k < n; k++) {
		rs[k].tree = v[k].tree;
		rs[k].branch = v[k].branch;
		rs[k].sha = v[k].head;
	}
	if (report_draft_still(c, id, rs, n, mid, eml, &existing) < 0 ||
	    nstore_still_set_mail(c->st, rep.id, v[n - 1].head, *mid) < 0)
		goto out;
	ret = 0;
out:
	nightly_report_rec_release(&rep);
	nightly_still_recs_free(v, n);
	free(rs);
	return ret;
}

struct report_args {
	const char *lab, *html;
	bool send, force, still;
};

#define REPORT_OPT(f) offsetof(struct report_args, f)
const struct rb_opt_spec report_opts[] = {
	RB_OPT_LAB(REPORT_OPT(lab)),
	RB_OPT_BOOL("--send", REPORT_OPT(send),
		    "deliver it with the lab's mail settings"),
	RB_OPT_FORCE(REPORT_OPT(force)),
	RB_OPT_BOOL("--still", REPORT_OPT(still),
		    "the follow-up of a still regression"),
	RB_OPT_STR("--html", "DIR", REPORT_OPT(html),
		   "write the evidence page DIR/report.html instead"),
	RB_OPT_END,
};

int cmd_report(int argc, char **argv)
{
	struct report_args ra = { 0 };
	struct svec args = SVEC_INIT;
	const char *v;
	bool existing, lab_up = false;
	struct lab lab;
	struct store *st = NULL;
	struct bisection_rec rec = { 0 };
	struct ctx c;
	struct ctx_opts co = { 0 };
	char *jf = NULL, *mid = NULL, *eml = NULL, *msg = NULL;
	long id = 0;
	int r, ret = RB_EXIT_FAIL;
	bool ctx_up = false;

	r = rb_opts_parse("report", report_opts, argc - 1, argv + 1, &ra,
			  &args);
	if (r) {
		svec_clear(&args);
		return r;
	}
	if (args.nr > 1) {
		r = rb_usage_error("report", "unknown argument '%s'",
				   args.v[1]);
		svec_clear(&args);
		return r;
	}
	v = args.nr ? args.v[0] : NULL;
	if (v && (rb_parse_long(v, &id) < 0 || id < 1)) {
		r = rb_usage_error("report",
				   "'%s' is not a bisection ID (a number from "
				   "'robot bisect list')",
				   v);
		svec_clear(&args);
		return r;
	}
	if (!ra.lab || !v) {
		svec_clear(&args);
		return rb_usage_error("report", "--lab and a bisection ID are "
						"required");
	}
	if (ra.html && (ra.send || ra.still || ra.force)) {
		svec_clear(&args);
		return rb_usage_error("report",
				      "--html writes a page: not "
				      "with --send, --still or --force");
	}
	if (lab_load(&lab, ra.lab) < 0)
		goto fail;
	lab_up = true;
	/* --send that cannot send says so before it drafts or prints */
	if (ra.send && (!lab.mail.smtp || !strcmp(lab.mail.smtp, "none"))) {
		rb_error("'%s' has no mail.smtp: nothing can be sent ('robot "
			 "report' without --send drafts the mail)",
			 lab.file);
		goto fail;
	}
	if (store_open(&st, lab.workdir) < 0)
		goto fail;
	r = store_bisection_get(st, id, &rec);
	if (r <= 0) {
		if (!r)
			rb_error("no bisection %ld in '%s'", id, lab.workdir);
		goto fail;
	}
	jf = job_file(&lab, rec.job);
	store_close(st);
	st = NULL;
	co.lab = ra.lab;
	co.job = jf;
	co.need_repo = true;
	if (ctx_open(&c, &co) < 0)
		goto fail;
	ctx_up = true;
	if (ra.html) {
		if (report_html(&c, id, ra.html, &eml) < 0)
			goto fail;
		printf("%s\n", eml);
		ret = RB_EXIT_OK;
		goto out;
	}
	if (ra.still) {
		if (draft_still(&c, id, &mid, &eml) < 0)
			goto fail;
	} else if (report_draft(&c, id, NULL, 0, &mid, &eml, &existing) < 0) {
		goto fail;
	}
	if (rb_read_file(eml, &msg, NULL) < 0)
		goto fail;
	fputs(msg, stdout);
	fflush(stdout);
	if (ra.send) {
		r = report_send(&c.lab, mid, ra.force);
		if (r < 0)
			goto fail;
		if (r > 0)
			rb_notice("mail %s was sent before: not sending it "
				  "again",
				  mid);
		else
			rb_notice("mail %s sent", mid);
	}
	ret = RB_EXIT_OK;
	goto out;
fail:
	rb_error_print();
out:
	if (ctx_up)
		ctx_close(&c);
	store_close(st);
	bisection_rec_release(&rec);
	if (lab_up)
		lab_release(&lab);
	free(jf);
	free(mid);
	free(eml);
	free(msg);
	svec_clear(&args);
	return ret;
}
