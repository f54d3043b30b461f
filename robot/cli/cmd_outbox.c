// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot outbox [list|show|draft|send]: the mails the robot keeps, and
 * their delivery over SMTP.
 *
 * `--lab LAB` gives the workdir (hence the outbox) and the mail settings
 * (mail.smtp, starttls, ca_file, user, password_env, password_file); the
 * options here override them. `robot report --send` goes through the same
 * rb_outbox_send() with rb_mail_send() behind it.
 */
#include <sys/random.h>
#include <time.h>

#include "../robot.h"
#include "../lab.h"
#include "../mail.h"
#include "../outbox.h"
#include "../report-json.h"
#include "../report.h"
#include "cli.h"

struct outbox_opts {
	const char *dir;
	const char *workdir;
	const char *lab_path;
	struct lab lab;
	bool lab_loaded;
	struct rb_smtp smtp;
	struct svec bcc;
	struct svec args;
	bool all, force, print;
};

#define OUTBOX_OPT(f) offsetof(struct outbox_opts, f)
const struct rb_opt_spec outbox_opts[] = {
	RB_OPT_STR("--dir", "DIR", OUTBOX_OPT(dir), "the outbox directory"),
	RB_OPT_STR("--workdir", "DIR", OUTBOX_OPT(workdir),
		   "the outbox of a workdir (WORKDIR/outbox)"),
	RB_OPT_STR("--lab", "LAB", OUTBOX_OPT(lab_path),
		   "the outbox of a lab's workdir, sent with its mail settings"),
	RB_OPT_STR("--smtp", "URL", OUTBOX_OPT(smtp.url),
		   "smtp://HOST[:PORT][/EHLO-NAME] or smtps://HOST[:PORT]"),
	RB_OPT_BOOL("--starttls", OUTBOX_OPT(smtp.starttls),
		    "on smtp://, require STARTTLS"),
	RB_OPT_STR("--cacert", "FILE", OUTBOX_OPT(smtp.ca_file),
		   "trust this CA"),
	RB_OPT_STR("--smtp-user", "USER", OUTBOX_OPT(smtp.user),
		   "log in as USER"),
	RB_OPT_STR("--password-env", "VAR", OUTBOX_OPT(smtp.password_env),
		   "the password's variable"),
	RB_OPT_STR("--password-file", "FILE", OUTBOX_OPT(smtp.password_file),
		   "the password's file (owner-only)"),
	RB_OPT_ADD("--bcc", "ADDR", OUTBOX_OPT(bcc),
		   "also deliver to ADDR (repeatable)"),
	RB_OPT_NUM("--timeout", "SEC", OUTBOX_OPT(smtp.timeout), 1, 86400,
		   "for the whole delivery (default 120)"),
	RB_OPT_BOOL("--all", OUTBOX_OPT(all), "every drafted and failed mail"),
	RB_OPT_FORCE(OUTBOX_OPT(force)),
	RB_OPT_BOOL("--print", OUTBOX_OPT(print), "draft: print the mail too"),
	RB_OPT_END,
};

static int parse_opts(struct outbox_opts *o, int argc, char **argv,
		      const char *sub)
{
	int r = rb_opts_parse("outbox", outbox_opts, argc, argv, o, &o->args);

	(void)sub;
	if (r)
		return r;
	if (o->lab_path) {
		if (o->dir || o->workdir)
			return rb_usage_error("outbox",
					      "give --lab, --dir or "
					      "--workdir, not several");
		/* the lab's workdir, and its mail settings for sending */
		if (lab_load(&o->lab, o->lab_path) < 0) {
			rb_error_print();
			return RB_EXIT_FAIL;
		}
		o->lab_loaded = true;
		o->workdir = o->lab.workdir;
		if (!o->smtp.url && o->lab.mail.smtp &&
		    strcmp(o->lab.mail.smtp, "none")) {
			o->smtp.url = o->lab.mail.smtp;
			o->smtp.starttls |= o->lab.mail.starttls;
			if (!o->smtp.ca_file)
				o->smtp.ca_file = o->lab.mail.ca_file;
			if (!o->smtp.user)
				o->smtp.user = o->lab.mail.user;
			if (!o->smtp.password_env)
				o->smtp.password_env = o->lab.mail.password_env;
			if (!o->smtp.password_file)
				o->smtp.password_file =
					o->lab.mail.password_file;
		}
	}
	if (!o->dir && !o->workdir)
		return rb_usage_error("outbox", "which outbox? give --lab LAB, "
						"--dir DIR or --workdir DIR");
	if (o->dir && o->workdir)
		return rb_usage_error("outbox", "give --dir or --workdir, not "
						"both");
	return 0;
}

/*
 * Only a draft creates the outbox; list, show and send look at one that
 * exists (1: there is none, which list takes for an empty one).
 */
static int open_outbox(struct rb_outbox *ob, const struct outbox_opts *o,
		       bool create)
{
	char *dir = o->dir ? xstrdup(o->dir) :
			     rb_path_join(o->workdir, "outbox");
	int ret;

	if (!create && !rb_file_exists(dir)) {
		rb_error("no outbox '%s'", dir);
		free(dir);
		return 1;
	}
	ret = rb_outbox_open(ob, dir);
	free(dir);
	return ret;
}

static int do_list(struct rb_outbox *ob, const struct outbox_opts *o)
{
	struct rb_outbox_entry *v;
	size_t nr, i;

	if (o->args.nr)
		return rb_usage_error("outbox", "'outbox list' takes no "
						"arguments");
	if (rb_outbox_list(ob, &v, &nr) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		printf("%s  %-7s  %-20s  %s", v[i].id,
		       rb_outbox_state_name(v[i].state),
		       *v[i].time ? v[i].time : "-",
		       *v[i].key ? v[i].key : "-");
		if (*v[i].reason)
			printf("  (%s)", v[i].reason);
		putchar('\n');
	}
	rb_outbox_entries_free(v, nr);
	return RB_EXIT_OK;
}

static int do_show(struct rb_outbox *ob, const struct outbox_opts *o)
{
	char *msg;
	size_t len;

	if (o->args.nr != 1)
		return rb_usage_error("outbox", "'outbox show' takes one mail "
						"id");
	if (rb_outbox_read(ob, o->args.v[0], &msg, &len) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	fwrite(msg, 1, len, stdout);
	free(msg);
	return RB_EXIT_OK;
}

/* The domain of the From address: where our message ids live. */
static const char *from_domain(const struct rb_report_doc *d)
{
	const char *at = d->r.from.email ? strrchr(d->r.from.email, '@') : NULL;

	return at ? at + 1 : NULL;
}

static int do_draft(struct rb_outbox *ob, const struct outbox_opts *o)
{
	struct rb_report_doc doc;
	struct sbuf mid = SBUF_INIT, mail = SBUF_INIT;
	char *id = NULL;
	bool existing;
	int ret = RB_EXIT_FAIL;

	if (o->args.nr != 1)
		return rb_usage_error("outbox", "'outbox draft' takes one "
						"report file");
	if (rb_report_doc_load(&doc, o->args.v[0]) < 0)
		goto out;
	if (!doc.has_date) {
		doc.r.date = (int64_t)time(NULL);
		doc.r.tz_minutes = 0;
	}
	if (!doc.r.message_id) {
		uint32_t rnd;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			rb_error("cannot get random bytes: %s",
				 strerror(errno));
			goto out;
		}
		if (rb_report_message_id(
			    &mid, doc.r.date, doc.r.tz_minutes, rnd,
			    doc.domain ? doc.domain : from_domain(&doc)) < 0)
			goto out;
		doc.r.message_id = mid.buf;
	}
	if (rb_report_render(&mail, &doc.r) < 0) {
		rb_error_prefix("%s", o->args.v[0]);
		goto out;
	}
	if (rb_outbox_add(ob, doc.key, mail.buf, mail.len, &id, &existing) < 0)
		goto out;
	if (existing)
		rb_notice("a mail about '%s' is in the outbox already: '%s'",
			  doc.key, id);
	if (o->print) {
		char *msg;
		size_t len;

		if (rb_outbox_read(ob, id, &msg, &len) < 0)
			goto out;
		fwrite(msg, 1, len, stdout);
		free(msg);
	} else {
		printf("%s\n", id);
	}
	ret = RB_EXIT_OK;
out:
	if (ret)
		rb_error_print();
	rb_report_doc_release(&doc);
	sbuf_release(&mid);
	sbuf_release(&mail);
	free(id);
	return ret;
}

struct deliver_ctx {
	const struct outbox_opts *o;
};

static int deliver_smtp(void *vctx, const char *msg, size_t len)
{
	const struct deliver_ctx *c = vctx;

	return rb_mail_send(&c->o->smtp, msg, len, &c->o->bcc);
}

static int send_one(struct rb_outbox *ob, const struct outbox_opts *o,
		    const char *id)
{
	struct deliver_ctx ctx = { o };
	char *as = NULL, *when = NULL;
	int r;

	r = rb_outbox_send(ob, id, deliver_smtp, &ctx,
			   o->force ? RB_OUTBOX_FORCE : 0, &as, &when);
	if (r < 0) {
		rb_error_prefix("cannot send '%s'", id);
		rb_error_print();
	} else if (r > 0 && !strcmp(as, id)) {
		rb_notice("mail '%s' was sent at %s: not sending it again", id,
			  when);
	} else if (r > 0) {
		rb_notice("mail '%s' is about what '%s' reported at %s: not "
			  "sending it",
			  id, as, when);
	} else {
		printf("sent %s\n", id);
	}
	free(as);
	free(when);
	return r < 0 ? -1 : 0;
}

static int do_send(struct rb_outbox *ob, const struct outbox_opts *o)
{
	struct svec ids = SVEC_INIT;
	int ret = RB_EXIT_OK;
	size_t i;

	if (!o->smtp.url)
		return rb_usage_error("outbox", "'outbox send' needs --smtp "
						"URL");
	if (o->all == !!o->args.nr)
		return rb_usage_error("outbox", "'outbox send' takes mail ids "
						"or --all");
	/* settings first: no mail turns "failed" for a typo in an option */
	if (rb_mail_check(&o->smtp) < 0) {
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	if (o->smtp.user) {
		char *pw;

		if (rb_mail_password(&o->smtp, &pw) < 0) {
			rb_error_print();
			return RB_EXIT_FAIL;
		}
		rb_mail_password_free(pw);
	}
	if (o->all) {
		struct rb_outbox_entry *v;
		size_t nr;

		if (rb_outbox_list(ob, &v, &nr) < 0) {
			rb_error_print();
			return RB_EXIT_FAIL;
		}
		for (i = 0; i < nr; i++) {
			if (v[i].state == RB_OUTBOX_DRAFTED ||
			    v[i].state == RB_OUTBOX_FAILED)
				svec_push(&ids, v[i].id);
			else if (v[i].state == RB_OUTBOX_SENDING)
				rb_warn("mail '%s' was being sent at %s when "
					"that was interrupted: left alone "
					"(send it by id with --force)",
					v[i].id, v[i].time);
		}
		rb_outbox_entries_free(v, nr);
	} else {
		svec_append(&ids, &o->args);
	}
	for (i = 0; i < ids.nr; i++)
		if (send_one(ob, o, ids.v[i]) < 0)
			ret = RB_EXIT_FAIL;
	svec_clear(&ids);
	return ret;
}

int cmd_outbox(int argc, char **argv)
{
	struct outbox_opts o = { .bcc = SVEC_INIT, .args = SVEC_INIT };
	struct rb_outbox ob = RB_OUTBOX_INIT;
	const char *sub = "list";
	int first = 1, ret;

	if (argc > 1 && argv[1][0] != '-') {
		sub = argv[1];
		first = 2;
	}
	if (strcmp(sub, "list") && strcmp(sub, "show") &&
	    strcmp(sub, "draft") && strcmp(sub, "send")) {
		static const char *const subs[] = { "list", "show", "draft",
						    "send" };
		const char *hint = rb_suggest(sub, subs, RB_ARRAY_SIZE(subs));

		return rb_usage_error("outbox", "unknown subcommand '%s'%s%s%s",
				      sub, hint ? " (did you mean '" : "",
				      hint ? hint : "", hint ? "'?)" : "");
	}
	ret = parse_opts(&o, argc - first, argv + first, sub);
	if (ret)
		goto out;
	ret = open_outbox(&ob, &o, !strcmp(sub, "draft"));
	/* a workdir that has drafted nothing yet lists empty; a --dir or
	 * a workdir that is not there is a typo */
	if (ret == 1 && !strcmp(sub, "list") && !o.args.nr && !o.dir &&
	    rb_file_exists(o.workdir)) {
		ret = RB_EXIT_OK;
		goto out;
	}
	if (ret) {
		rb_error_print();
		ret = RB_EXIT_FAIL;
		goto out;
	}
	if (!strcmp(sub, "list"))
		ret = do_list(&ob, &o);
	else if (!strcmp(sub, "show"))
		ret = do_show(&ob, &o);
	else if (!strcmp(sub, "draft"))
		ret = do_draft(&ob, &o);
	else
		ret = do_send(&ob, &o);
out:
	rb_outbox_release(&ob);
	svec_clear(&o.bcc);
	svec_clear(&o.args);
	if (o.lab_loaded)
		lab_release(&o.lab);
	return ret;
}
