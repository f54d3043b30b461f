// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "outbox.h"
#include "report-json.h"
#include "report.h"
#include "sbuf.h"
#include "report-fixtures.h"

static char *scratch(void)
{
	char tmpl[] = "/tmp/robot-outbox-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static char *read_text(const char *path)
{
	char *buf;

	cr_assert_eq(rb_read_file(path, &buf, NULL), 0, "%s", rb_errmsg());
	return buf;
}

/* The JSON twin of fx_regression renders the same golden mail. */
Test(report_json, renders_the_golden_regression)
{
	char *json = report_data_path("regression.json");
	char *eml = report_data_path("regression.eml");
	char *want = read_text(eml);
	struct rb_report_doc doc;
	struct sbuf sb = SBUF_INIT;

	cr_assert_eq(rb_report_doc_load(&doc, json), 0, "%s", rb_errmsg());
	cr_assert(doc.has_date);
	cr_assert_str_eq(doc.key, "d329605287aa77d4b9f1e8a7c6d5e4f3a2b1c0d9/"
				  "stress-ng.resched.ops_per_sec/"
				  "stress-ng-resched");
	cr_assert_eq(rb_report_render(&sb, &doc.r), 0, "%s", rb_errmsg());
	cr_assert_str_eq(sb.buf, want);
	rb_report_doc_release(&doc);
	sbuf_release(&sb);
	free(want);
	free(json);
	free(eml);
}

Test(report_json, errors_name_the_file_and_place)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
		{ "{\"tree\": \"x\",\n \"branch\": }",
		  ":2:12: unexpected token near '}'" },
		{ "[]", ":1:1: a report must be a JSON object" },
		{ "{\"tre\": \"x\"}", ": unknown name 'tre'" },
		{ "{\"change\": \"-5%\"}", ": 'change' must be a number" },
		{ "{\"kind\": \"worse\"}",
		  ": 'kind' must be 'regression' or 'improvement'" },
		{ "{\"author\": {\"name\": \"x\"}}",
		  ": 'author' has no 'email'" },
		{ "{\"steps\": [{\"sha\": \"a\"}]}",
		  ": 'steps.subject' must be a string" },
		{ "{\"parameters\": {\"a\": \"b\"}}",
		  ": 'parameters' must be a list of [name, value] pairs" },
		{ "{\"sha\": \"x\"}",
		  ": 'job' (or 'key') is needed to tell this mail from others" },
		{ "{\"tree\": \"a\", \"tree\": \"b\"}",
		  ":1:20: duplicate object key near '\"tree\"'" },
		{ "{\"confirm\": {\"parent\": {\"sha\": \"a\", \"mean\": 1, "
		  "\"spread\": 0, \"runs\": 2}, \"culprit\": {\"sha\": \"b\", "
		  "\"mean\": 1, \"spread\": 0, \"runs\": 2}, \"change\": -32.6, "
		  "\"ci\": [-57.3, 26.8, 0.95], \"reproduced\": true}}",
		  ": 'confirm.ci' holds 0 while 'confirm.reproduced' is true: "
		  "an interval that includes no change is not a confirmed "
		  "change" },
		/* out of range: at the value (columns in characters) */
		{ "{\"tree\": \"x\",\n \"confidence\": 5}",
		  ":2:16: 'confidence' must be from 0 to 1, not 5" },
		{ "{\"confidence\": -0.5}",
		  ":1:16: 'confidence' must be from 0 to 1, not -0.5" },
		{ "{\"subject\": \"\u00e9t\u00e9 \\\"confidence\\\": 3\", "
		  "\"confidence\" :\n\t1.5}",
		  ":2:2: 'confidence' must be from 0 to 1, not 1.5" },
		{ "{\"subject\": \"\u00e9t\u00e9\", \"ci_level\": 7}",
		  ":1:32: 'ci_level' must be between 0 and 1 (0.95: a 95% "
		  "interval), not 7" },
		{ "{\"ci_level\": 0}",
		  ":1:14: 'ci_level' must be between 0 and 1 (0.95: a 95% "
		  "interval), not 0" },
		{ "{\"ci_level\": 1}",
		  ":1:14: 'ci_level' must be between 0 and 1 (0.95: a 95% "
		  "interval), not 1" },
	};
	char *dir = scratch();
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char *path = xstrfmt("%s/r%zu.json", dir, i);
		char *want = xstrfmt("%s%s", path, cases[i].err);
		struct rb_report_doc doc;

		cr_assert_eq(rb_write_file_atomic(path, cases[i].text,
						  strlen(cases[i].text)),
			     0);
		cr_expect_eq(rb_report_doc_load(&doc, path), -1, "case %zu", i);
		cr_expect_str_eq(rb_errmsg(), want, "case %zu", i);
		rb_report_doc_release(&doc);
		free(want);
		free(path);
	}
	rb_remove_tree(dir);
	free(dir);
}

/* outbox draft DIR: what is wrong is the path, not JSON in it */
Test(report_json, a_directory_is_not_a_report)
{
	char *dir = scratch();
	char *want = xstrfmt("cannot read '%s': Is a directory", dir);
	struct rb_report_doc doc;

	cr_expect_eq(rb_report_doc_load(&doc, dir), -1);
	cr_expect_str_eq(rb_errmsg(), want);
	rb_report_doc_release(&doc);
	rb_remove_tree(dir);
	free(want);
	free(dir);
}

static char *mail_of(const struct rb_report *r, const char *mid)
{
	struct rb_report copy = *r;
	struct sbuf sb = SBUF_INIT;

	copy.message_id = mid;
	cr_assert_eq(rb_report_render(&sb, &copy), 0, "%s", rb_errmsg());
	return sbuf_detach(&sb);
}

Test(outbox, add_keeps_mail_and_state_dedups_by_key)
{
	struct rb_outbox ob = RB_OUTBOX_INIT;
	struct rb_outbox_entry e, *v;
	char *dir = scratch(), *m1, *m2, *id = NULL, *path, *text;
	bool existing;
	size_t nr;

	cr_assert_eq(rb_outbox_open(&ob, dir), 0);
	m1 = mail_of(&fx_regression,
		     "<202406101638.00000001-robot@lab.example.org>");
	m2 = mail_of(&fx_regression,
		     "<202406101638.00000002-robot@lab.example.org>");
	cr_assert_eq(rb_outbox_add(&ob, "c/s/j", m1, strlen(m1), &id,
				   &existing),
		     0, "%s", rb_errmsg());
	cr_assert_not(existing);
	cr_assert_str_eq(id, "202406101638.00000001-robot@lab.example.org");
	free(id);

	/* the mail as rendered, the state as documented */
	path = xstrfmt("%s/202406101638.00000001-robot@lab.example.org.eml",
		       dir);
	text = read_text(path);
	cr_assert_str_eq(text, m1);
	free(text);
	free(path);
	path = xstrfmt("%s/202406101638.00000001-robot@lab.example.org.state",
		       dir);
	text = read_text(path);
	cr_assert(rb_starts_with(text, "state: drafted\nkey: c/s/j\ntime: 20"),
		  "%s", text);
	cr_assert(rb_ends_with(text, "Z\nattempts: 0\n"), "%s", text);
	free(text);
	free(path);

	/* the same key again: nothing new, the first mail named */
	cr_assert_eq(
		rb_outbox_add(&ob, "c/s/j", m2, strlen(m2), &id, &existing), 0);
	cr_assert(existing);
	cr_assert_str_eq(id, "202406101638.00000001-robot@lab.example.org");
	free(id);
	cr_assert_eq(rb_outbox_list(&ob, &v, &nr), 0);
	cr_assert_eq(nr, 1);
	rb_outbox_entries_free(v, nr);

	/* another key, same message id: refused */
	cr_assert_eq(rb_outbox_add(&ob, "c/s/other", m1, strlen(m1), &id,
				   &existing),
		     -1);
	cr_assert(strstr(rb_errmsg(), "holds another mail with id"));

	cr_assert_eq(rb_outbox_add(&ob, "c/s/k2", m2, strlen(m2), &id,
				   &existing),
		     0);
	free(id);
	cr_assert_eq(rb_outbox_list(&ob, &v, &nr), 0);
	cr_assert_eq(nr, 2);
	cr_assert_str_eq(v[0].key, "c/s/j");
	cr_assert_str_eq(v[1].key, "c/s/k2");
	cr_assert_eq(v[1].state, RB_OUTBOX_DRAFTED);
	rb_outbox_entries_free(v, nr);

	cr_assert_eq(rb_outbox_get(&ob, "../etc/passwd", &e), -1);
	cr_assert_str_eq(rb_errmsg(), "invalid outbox id '../etc/passwd'");
	cr_assert_eq(rb_outbox_get(&ob, "nope@x", &e), -1);

	rb_outbox_release(&ob);
	rb_remove_tree(dir);
	free(m1);
	free(m2);
	free(dir);
}

Test(outbox, refuses_mail_that_cannot_be_sent)
{
	static const char no_rcpt[] = "From: r@example.org\n"
				      "Message-ID: <a@b>\n\nbody\n";
	static const char no_mid[] = "From: r@example.org\n"
				     "To: a@example.org\n\nbody\n";
	static const char bad_mid[] = "From: r@example.org\n"
				      "To: a@example.org\n"
				      "Message-ID: <../x@y>\n\nbody\n";
	struct rb_outbox ob = RB_OUTBOX_INIT;
	char *dir = scratch(), *id;
	bool existing;

	cr_assert_eq(rb_outbox_open(&ob, dir), 0);
	cr_assert_eq(rb_outbox_add(&ob, "k", no_rcpt, strlen(no_rcpt), &id,
				   &existing),
		     -1);
	cr_assert_str_eq(rb_errmsg(), "the mail has no recipient");
	cr_assert_eq(rb_outbox_add(&ob, "k", no_mid, strlen(no_mid), &id,
				   &existing),
		     -1);
	cr_assert_str_eq(rb_errmsg(), "the mail has no 'Message-ID' header");
	cr_assert_eq(rb_outbox_add(&ob, "k", bad_mid, strlen(bad_mid), &id,
				   &existing),
		     -1);
	cr_assert_str_eq(rb_errmsg(), "invalid outbox id '../x@y'");
	cr_assert_eq(rb_outbox_add(&ob, "", no_mid, strlen(no_mid), &id,
				   &existing),
		     -1);
	rb_outbox_release(&ob);
	rb_remove_tree(dir);
	free(dir);
}

Test(outbox, key_parts)
{
	struct sbuf sb = SBUF_INIT;

	cr_assert_eq(rb_outbox_key(&sb, "abc", "s.ops", "job\n1"), 0);
	cr_assert_str_eq(sb.buf, "abc/s.ops/job 1");
	cr_assert_eq(rb_outbox_key(&sb, "abc", "", "job"), -1);
	sbuf_release(&sb);
}

/*
 * Delivery into an mbox file: a real local delivery (the SMTP one is
 * exercised end to end against a real server in tests/e2e/mail-*).
 */
static int deliver_mbox(void *ctx, const char *msg, size_t len)
{
	const char *path = ctx;
	FILE *f = fopen(path, "a");

	if (!f)
		return rb_error("cannot open '%s': %s", path, strerror(errno));
	fprintf(f, "From robot Thu Jan  1 00:00:00 1970\n");
	fwrite(msg, 1, len, f);
	fputc('\n', f);
	if (fclose(f))
		return rb_error("cannot write '%s'", path);
	return 0;
}

static size_t count_mbox(const char *path)
{
	char *text;
	size_t n = 0;
	const char *p;

	if (!rb_file_exists(path))
		return 0;
	text = read_text(path);
	for (p = text; (p = strstr(p, "From robot ")); p++)
		n++;
	free(text);
	return n;
}

Test(outbox, send_states_and_never_twice)
{
	struct rb_outbox ob = RB_OUTBOX_INIT;
	struct rb_outbox_entry e;
	char *dir = scratch(), *m1, *m2, *id1, *id2, *as, *when;
	char *bad = xstrfmt("%s/missing/mbox", dir);
	char *mbox = xstrfmt("%s/mbox", dir);
	bool existing;

	cr_assert_eq(rb_outbox_open(&ob, dir), 0);
	m1 = mail_of(&fx_regression, "<1.a-robot@lab.example.org>");
	m2 = mail_of(&fx_improvement, "<2.b-robot@lab.example.org>");
	cr_assert_eq(rb_outbox_add(&ob, "k1", m1, strlen(m1), &id1, &existing),
		     0);
	cr_assert_eq(rb_outbox_add(&ob, "k2", m2, strlen(m2), &id2, &existing),
		     0);

	/* a failing delivery: failed, with the reason, attempt counted */
	cr_assert_eq(rb_outbox_send(&ob, id1, deliver_mbox, bad, 0, &as, &when),
		     -1);
	cr_assert(rb_starts_with(rb_errmsg(), "cannot open '"), "%s",
		  rb_errmsg());
	cr_assert_eq(rb_outbox_get(&ob, id1, &e), 0);
	cr_assert_eq(e.state, RB_OUTBOX_FAILED);
	cr_assert_eq(e.attempts, 1);
	cr_assert(rb_starts_with(e.reason, "cannot open '"));
	rb_outbox_entry_release(&e);

	/* then delivered, once */
	cr_assert_eq(
		rb_outbox_send(&ob, id1, deliver_mbox, mbox, 0, &as, &when), 0);
	cr_assert_null(as);
	cr_assert_eq(count_mbox(mbox), 1);
	cr_assert_eq(rb_outbox_get(&ob, id1, &e), 0);
	cr_assert_eq(e.state, RB_OUTBOX_SENT);
	cr_assert_eq(e.attempts, 2);
	cr_assert_str_eq(e.reason, "");
	rb_outbox_entry_release(&e);

	/* again: nothing done, and even forced, a sent mail stays sent */
	cr_assert_eq(
		rb_outbox_send(&ob, id1, deliver_mbox, mbox, 0, &as, &when), 1);
	cr_assert_str_eq(as, id1);
	cr_assert(rb_starts_with(when, "20"));
	free(as);
	free(when);
	cr_assert_eq(rb_outbox_send(&ob, id1, deliver_mbox, mbox,
				    RB_OUTBOX_FORCE, &as, &when),
		     1);
	free(as);
	free(when);
	cr_assert_eq(count_mbox(mbox), 1);

	cr_assert_eq(
		rb_outbox_send(&ob, id2, deliver_mbox, mbox, 0, &as, &when), 0);
	cr_assert_eq(count_mbox(mbox), 2);

	rb_outbox_release(&ob);
	rb_remove_tree(dir);
	free(m1);
	free(m2);
	free(id1);
	free(id2);
	free(bad);
	free(mbox);
	free(dir);
}

/* A state file left "sending" (the robot died mid-SMTP) needs force. */
Test(outbox, interrupted_send_is_not_repeated)
{
	static const char sending[] = "state: sending\nkey: k1\n"
				      "time: 2025-06-10T14:39:01Z\n"
				      "attempts: 1\n";
	struct rb_outbox ob = RB_OUTBOX_INIT;
	char *dir = scratch(), *m1, *id, *as, *when, *state;
	char *mbox = xstrfmt("%s/mbox", dir);
	bool existing;

	cr_assert_eq(rb_outbox_open(&ob, dir), 0);
	m1 = mail_of(&fx_regression, "<1.a-robot@lab.example.org>");
	cr_assert_eq(rb_outbox_add(&ob, "k1", m1, strlen(m1), &id, &existing),
		     0);
	state = xstrfmt("%s/%s.state", dir, id);
	cr_assert_eq(rb_write_file_atomic(state, sending, strlen(sending)), 0);
	cr_assert_eq(rb_outbox_send(&ob, id, deliver_mbox, mbox, 0, &as, &when),
		     -1);
	cr_assert_str_eq(rb_errmsg(),
			 "mail '1.a-robot@lab.example.org' may have been sent "
			 "already: an attempt was interrupted at "
			 "2025-06-10T14:39:01Z; check the recipients' mail and "
			 "force to send it again");
	cr_assert_eq(count_mbox(mbox), 0);
	cr_assert_eq(rb_outbox_send(&ob, id, deliver_mbox, mbox,
				    RB_OUTBOX_FORCE, &as, &when),
		     0);
	cr_assert_eq(count_mbox(mbox), 1);

	/* a corrupt state file is an error, not a guess */
	cr_assert_eq(rb_write_file_atomic(state, "state: maybe\n", 13), 0);
	cr_assert_eq(rb_outbox_send(&ob, id, deliver_mbox, mbox, 0, &as, &when),
		     -1);
	cr_assert(rb_ends_with(rb_errmsg(), ":1:8: unknown state 'maybe'"),
		  "%s", rb_errmsg());
	cr_assert_eq(count_mbox(mbox), 1);

	rb_outbox_release(&ob);
	rb_remove_tree(dir);
	free(m1);
	free(id);
	free(state);
	free(mbox);
	free(dir);
}
