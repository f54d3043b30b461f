// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>

#include "robot.h"
#include "report.h"
#include "report-json.h"
#include "sbuf.h"
#include "svec.h"
#include "report-fixtures.h"

static char *render(const struct rb_report *r)
{
	struct sbuf sb = SBUF_INIT;

	cr_assert_eq(rb_report_render(&sb, r), 0, "%s", rb_errmsg());
	return sbuf_detach(&sb);
}

/* Split text into lines (without the "\n"); the last empty piece dropped. */
static void split_lines(struct svec *out, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');

		if (!e) {
			svec_push(out, p);
			break;
		}
		svec_push_nodup(out, xstrndup(p, (size_t)(e - p)));
		p = e + 1;
	}
}

/* Line by line against the golden file: the first difference is named. */
static void check_golden(const char *name, const char *got)
{
	char *path = report_data_path(name), *want;
	struct svec w = SVEC_INIT, g = SVEC_INIT;
	size_t i;

	cr_assert_eq(rb_read_file(path, &want, NULL), 0, "%s", rb_errmsg());
	split_lines(&w, want);
	split_lines(&g, got);
	for (i = 0; i < w.nr && i < g.nr; i++)
		cr_assert_str_eq(g.v[i], w.v[i], "%s:%zu differs", path, i + 1);
	cr_assert_eq(g.nr, w.nr, "%s: %zu lines, rendered %zu", path, w.nr,
		     g.nr);
	cr_assert_str_eq(got, want);
	svec_clear(&w);
	svec_clear(&g);
	free(want);
	free(path);
}

Test(report, golden_regression)
{
	char *mail = render(&fx_regression);

	check_golden("regression.eml", mail);
	free(mail);
}

Test(report, golden_improvement)
{
	char *mail = render(&fx_improvement);

	check_golden("improvement.eml", mail);
	free(mail);
}

/* Index of the first line equal to s at or after from, or -1. */
static long find_line(const struct svec *l, size_t from, const char *s)
{
	size_t i;

	for (i = from; i < l->nr; i++)
		if (!strcmp(l->v[i], s))
			return (long)i;
	return -1;
}

static long find_prefix(const struct svec *l, size_t from, const char *s)
{
	size_t i;

	for (i = from; i < l->nr; i++)
		if (rb_starts_with(l->v[i], s))
			return (long)i;
	return -1;
}

static bool blank_run(const struct svec *l, long at, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (at + i < 0 || (size_t)(at + i) >= l->nr || l->v[at + i][0])
			return false;
	return true;
}

/*
 * The structure of the 0-Day layout, whatever the words: header order,
 * the one empty line after the headers, the blank lines between the
 * blocks, the trailers only for regressions, the 98-dash line.
 */
static void check_structure(const struct rb_report *r, const char *mail)
{
	static const char *const order[] = {
		"From:",	 "To:",		  "Cc:",
		"Subject:",	 "Date:",	  "Message-ID:",
		"MIME-Version:", "Content-Type:", "Content-Transfer-Encoding:",
	};
	struct svec l = SVEC_INIT;
	size_t i, h = 0, body;
	long at, commit, params, details, dash, disc, sig;

	split_lines(&l, mail);
	/* headers: fields in our order, continuation lines folded under */
	for (i = 0; i < l.nr && l.v[i][0]; i++) {
		cr_assert_leq(strlen(l.v[i]), RB_MAIL_FOLD_COLS, "line %zu: %s",
			      i, l.v[i]);
		if (l.v[i][0] == ' ')
			continue;
		cr_assert_lt(h, RB_ARRAY_SIZE(order), "extra header %s",
			     l.v[i]);
		cr_assert(rb_starts_with(l.v[i], order[h]), "%s where %s",
			  l.v[i], order[h]);
		h++;
	}
	cr_assert_eq(h, RB_ARRAY_SIZE(order));
	body = i + 1;
	cr_assert_str_eq(l.v[body], "Hello,");
	cr_assert(blank_run(&l, (long)body + 1, 1));
	cr_assert(
		rb_starts_with(l.v[body + 2], "kernel test robot noticed a "));
	cr_assert(blank_run(&l, (long)body + 3, 2));
	commit = (long)body + 5;
	cr_assert(rb_starts_with(l.v[commit], "commit: "));
	cr_assert(blank_run(&l, commit + 2, 1));
	params = find_line(&l, body, "parameters:");
	cr_assert_geq(params, 0);
	cr_assert(blank_run(&l, params + 1, 1));
	for (i = 0; i < r->params_nr; i++)
		cr_assert_eq(l.v[params + 2 + (long)i][0], '\t');
	cr_assert(blank_run(&l, params + 2 + (long)r->params_nr, 2));
	at = find_prefix(&l, body, "| Reported-by: ");
	if (r->kind == RB_REPORT_REGRESSION) {
		cr_assert_eq(at, params + 4 + (long)r->params_nr + 2);
		cr_assert(rb_starts_with(l.v[at + 1], "| Closes: "));
		cr_assert(blank_run(&l, at + 2, 2));
	} else {
		cr_assert_eq(at, -1);
		cr_assert_eq(find_prefix(&l, body, "| Closes:"), -1);
		cr_assert_eq(find_prefix(&l, body, "If you fix"), -1);
	}
	details = find_line(&l, body, "Details are as below:");
	cr_assert_geq(details, 0);
	dash = details + 1;
	cr_assert_eq(strlen(l.v[dash]), 99);
	cr_assert_eq(strspn(l.v[dash], "-"), 98);
	cr_assert_eq(l.v[dash][98], '>');
	cr_assert(blank_run(&l, dash + 1, 2));
	cr_assert(rb_starts_with(l.v[dash + 3], "The kernel config and "
						"materials to reproduce"));
	cr_assert_eq(find_prefix(&l, body, "Bisection of ") > dash, true);
	disc = find_line(&l, body, "Disclaimer:");
	cr_assert_gt(disc, dash);
	cr_assert(blank_run(&l, disc - 2, 2));
	sig = find_line(&l, body, "-- ");
	cr_assert_gt(sig, disc);
	cr_assert(blank_run(&l, sig - 2, 2));
	for (i = 0; i < l.nr; i++)
		cr_assert_leq(strlen(l.v[i]), RB_MAIL_LINE_MAX);
	cr_assert_null(strchr(mail, '\r'));
	svec_clear(&l);
}

Test(report, structure_regression)
{
	char *mail = render(&fx_regression);

	check_structure(&fx_regression, mail);
	free(mail);
}

Test(report, structure_improvement)
{
	char *mail = render(&fx_improvement);

	check_structure(&fx_improvement, mail);
	free(mail);
}

Test(report, closes_trailer_uses_own_message_id)
{
	char *mail = render(&fx_regression);

	cr_assert_not_null(strstr(mail, "| Closes: https://lab.example.org/"
					"archive/202406101638.5eed1e55-robot@"
					"lab.example.org\n"));
	free(mail);
}

Test(report, subject_lines)
{
	static const struct {
		const char *subject;
		enum rb_report_kind kind;
		double pct;
		const char *want;
	} cases[] = {
		{ "mm: move things", RB_REPORT_REGRESSION, -2.64,
		  "[linus:master] [mm] 0123456789: s.ops_per_sec 2.6% "
		  "regression" },
		{ "sched/fair: x", RB_REPORT_IMPROVEMENT, 194.5,
		  "[linus:master] [sched/fair] 0123456789: s.ops_per_sec "
		  "194.5% improvement" },
		{ "no prefix here", RB_REPORT_REGRESSION, 11.04,
		  "[linus:master] 0123456789: s.ops_per_sec 11.0% regression" },
		{ "  net : drop", RB_REPORT_REGRESSION, -0.04,
		  "[linus:master] [net] 0123456789: s.ops_per_sec 0.0% "
		  "regression" },
		{ "x\r\ny: z", RB_REPORT_REGRESSION, -1,
		  "[linus:master] [x y] 0123456789: s.ops_per_sec 1.0% "
		  "regression" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct rb_report r = fx_regression;
		struct sbuf sb = SBUF_INIT;

		r.tree = "linus";
		r.branch = "master";
		r.sha = "0123456789abcdef0123456789abcdef01234567";
		r.stat = "s.ops_per_sec";
		r.subject = cases[i].subject;
		r.kind = cases[i].kind;
		r.pct = cases[i].pct;
		cr_assert_eq(rb_report_subject(&sb, &r), 0);
		cr_expect_str_eq(sb.buf, cases[i].want, "case %zu", i);
		sbuf_release(&sb);
	}
}

Test(report, subsystem_prefix)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "mm: move lesser used members", "mm" },
		{ "sched/fair: Use the slice", "sched/fair" },
		{ "x86/mm/tlb: a: b", "x86/mm/tlb" },
		{ "Revert \"mm: foo\"", "Revert \"mm" },
		{ "no colon at all", "" },
		{ ": empty", "" },
		{ "", "" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT;

		rb_report_subsystem(&sb, cases[i].in);
		cr_expect_str_eq(sb.buf, cases[i].out, "case %zu", i);
		sbuf_release(&sb);
	}
}

Test(report, message_id_and_date)
{
	static const struct {
		int64_t when;
		int tz;
		const char *date, *mid;
	} cases[] = {
		{ 1749566325, 480, "Tue, 10 Jun 2025 22:38:45 +0800",
		  "<202506102238.13cda0af-robot@lab.example.org>" },
		{ 0, 0, "Thu, 1 Jan 1970 00:00:00 +0000",
		  "<197001010000.13cda0af-robot@lab.example.org>" },
		/* a leap day, west of UTC, across midnight */
		{ 951782400, -330, "Mon, 28 Feb 2000 18:30:00 -0530",
		  "<200002281830.13cda0af-robot@lab.example.org>" },
		{ 951868799, 0, "Tue, 29 Feb 2000 23:59:59 +0000",
		  "<200002292359.13cda0af-robot@lab.example.org>" },
		{ 4102444800, 60, "Fri, 1 Jan 2100 01:00:00 +0100",
		  "<210001010100.13cda0af-robot@lab.example.org>" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct sbuf d = SBUF_INIT, m = SBUF_INIT;

		cr_assert_eq(rb_mail_date(&d, cases[i].when, cases[i].tz), 0);
		cr_expect_str_eq(d.buf, cases[i].date, "case %zu", i);
		cr_assert_eq(rb_report_message_id(&m, cases[i].when,
						  cases[i].tz, 0x13cda0af,
						  "lab.example.org"),
			     0);
		cr_expect_str_eq(m.buf, cases[i].mid, "case %zu", i);
		sbuf_release(&d);
		sbuf_release(&m);
	}
}

Test(report, message_id_refuses_bad_input)
{
	struct sbuf sb = SBUF_INIT;
	struct rb_report r = fx_regression;

	cr_assert_eq(rb_report_message_id(&sb, 0, 0, 1, "bad domain"), -1);
	cr_assert_str_eq(rb_errmsg(), "invalid mail domain 'bad domain'");
	cr_assert_eq(rb_report_message_id(&sb, 0, 0, 1, "a..b"), -1);
	cr_assert_eq(rb_report_message_id(&sb, 0, 1440, 1, "a.b"), -1);
	cr_assert_eq(sb.len, 0);
	r.message_id = "<a/../b@x>";
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert_str_eq(rb_errmsg(), "invalid message id '<a/../b@x>'");
	r.message_id = "no-brackets@x";
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert_eq(sb.len, 0);
	sbuf_release(&sb);
}

Test(report, rfc2047_and_phrases)
{
	static const struct {
		const char *name, *email, *want;
	} cases[] = {
		{ "Suren Baghdasaryan", "s@example.org",
		  "To: Suren Baghdasaryan <s@example.org>\n" },
		{ "Paul E . McKenney", "p@example.org",
		  "To: \"Paul E . McKenney\" <p@example.org>\n" },
		{ "Liam R. \"The\" Howlett", "l@example.org",
		  "To: \"Liam R. \\\"The\\\" Howlett\" <l@example.org>\n" },
		{ "Zoë", "z@example.org",
		  "To: =?UTF-8?Q?Zo=C3=AB?= <z@example.org>\n" },
		{ "Jürgen Groß", "j@example.org",
		  "To: =?UTF-8?Q?J=C3=BCrgen_Gro=C3=9F?= <j@example.org>\n" },
		/* encoded: some readers decode it even inside quotes */
		{ "=?UTF-8?Q?x?=", "x@example.org",
		  "To: =?UTF-8?Q?=3D=3FUTF-8=3FQ=3Fx=3F=3D?= <x@example.org>\n" },
		{ NULL, "bare@example.org", "To: bare@example.org\n" },
		{ "  ", "blank@example.org", "To: blank@example.org\n" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct rb_mail_addr a = { cases[i].name, cases[i].email };
		struct sbuf sb = SBUF_INIT;

		cr_assert_eq(rb_mail_header_addrs(&sb, "To", &a, 1), 0);
		cr_expect_str_eq(sb.buf, cases[i].want, "case %zu", i);
		sbuf_release(&sb);
	}
}

Test(report, rfc2047_unstructured)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain ascii: ok", "Subject: plain ascii: ok\n" },
		{ "fix für Zoë now",
		  "Subject: fix =?UTF-8?Q?f=C3=BCr_Zo=C3=AB?= now\n" },
		{ "ä", "Subject: =?UTF-8?Q?=C3=A4?=\n" },
		/* text that a reader would decode is encoded itself */
		{ "a =?x?= b", "Subject: a =?UTF-8?Q?=3D=3Fx=3F=3D?= b\n" },
		/* invalid UTF-8 becomes U+FFFD, controls a space */
		{ "bad \xff\tbyte",
		  "Subject: bad =?UTF-8?Q?=EF=BF=BD?= byte\n" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT;

		rb_mail_header_text(&sb, "Subject", cases[i].in);
		cr_expect_str_eq(sb.buf, cases[i].want, "case %zu", i);
		sbuf_release(&sb);
	}
}

/* Undo RFC 5322 folding and RFC 2047 Q encoding (test oracle). */
static void unfold_decode(struct sbuf *out, const char *header)
{
	const char *p = strchr(header, ':') + 2;
	bool prev_ew = false;

	while (*p) {
		const char *e;
		size_t n;

		if (*p == '\n') {
			p++;
			continue;
		}
		if (*p == ' ') {
			/* white space between two encoded-words is dropped */
			const char *q = p;

			while (*q == ' ' || *q == '\n')
				q++;
			if (!(prev_ew && rb_starts_with(q, "=?UTF-8?Q?")))
				sbuf_addch(out, ' ');
			p = q;
			continue;
		}
		e = p + strcspn(p, " \n");
		n = (size_t)(e - p);
		if (rb_starts_with(p, "=?UTF-8?Q?") && n > 12 && e[-2] == '?' &&
		    e[-1] == '=') {
			const char *q;

			for (q = p + 10; q < e - 2; q++) {
				if (*q == '_') {
					sbuf_addch(out, ' ');
				} else if (*q == '=') {
					char hex[3] = { q[1], q[2], 0 };

					sbuf_addch(out,
						   (char)strtol(hex, NULL, 16));
					q += 2;
				} else {
					sbuf_addch(out, *q);
				}
			}
			prev_ew = true;
		} else {
			sbuf_add(out, p, n);
			prev_ew = false;
		}
		p = e;
	}
}

Test(report, folding_keeps_text_and_width)
{
	static const char *const cases[] = {
		"[linux-next:master] [drivers/gpu/drm/amd/display] 0123456789: "
		"stress-ng.some-long-stressor-name.ops_per_sec 12.3% regression",
		"ünïcödé wörds everywhere in a subject that is long enough to "
		"need folding, more than once, ïn fäct, twïce or thrïce at lëast "
		"and then some more ẅörds",
		"ααααααααααααααααααααααααααααααααααααααααααααααααααααααααααααααααα"
		"αααααααααααααααααααααααααααααααααα",
		"short",
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT, dec = SBUF_INIT;
		struct svec l = SVEC_INIT;
		size_t j;

		rb_mail_header_text(&sb, "Subject", cases[i]);
		split_lines(&l, sb.buf);
		for (j = 0; j < l.nr; j++) {
			cr_expect_leq(strlen(l.v[j]), RB_MAIL_FOLD_COLS,
				      "case %zu line %zu: '%s'", i, j, l.v[j]);
			if (j)
				cr_expect_eq(l.v[j][0], ' ');
		}
		unfold_decode(&dec, sb.buf);
		cr_expect_str_eq(dec.buf, cases[i], "case %zu", i);
		svec_clear(&l);
		sbuf_release(&sb);
		sbuf_release(&dec);
	}
}

Test(report, address_lists_fold_between_addresses)
{
	struct rb_mail_addr a[12];
	struct sbuf sb = SBUF_INIT;
	struct svec l = SVEC_INIT, parsed = SVEC_INIT;
	char *names[12], *emails[12], *value;
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(a); i++) {
		names[i] = xstrfmt("Developer Number%zu", i);
		emails[i] = xstrfmt("dev%zu@example.org", i);
		a[i].name = names[i];
		a[i].email = emails[i];
	}
	cr_assert_eq(rb_mail_header_addrs(&sb, "Cc", a, RB_ARRAY_SIZE(a)), 0);
	split_lines(&l, sb.buf);
	cr_assert_gt(l.nr, 3);
	for (i = 0; i < l.nr; i++) {
		cr_expect_leq(strlen(l.v[i]), RB_MAIL_FOLD_COLS);
		/* each line ends at an address, never inside a name */
		cr_expect(rb_ends_with(l.v[i], ">,") ||
				  rb_ends_with(l.v[i], ">"),
			  "%s", l.v[i]);
	}
	value = rb_mail_header_get(sb.buf, sb.len, "cc");
	cr_assert_not_null(value);
	cr_assert_eq(rb_mail_parse_addresses(&parsed, value), 0);
	cr_assert_eq(parsed.nr, RB_ARRAY_SIZE(a));
	for (i = 0; i < RB_ARRAY_SIZE(a); i++) {
		cr_expect_str_eq(parsed.v[i], emails[i]);
		free(names[i]);
		free(emails[i]);
	}
	free(value);
	svec_clear(&parsed);
	svec_clear(&l);
	sbuf_release(&sb);
}

Test(report, addresses_checked)
{
	static const struct {
		const char *email;
		int ok;
	} cases[] = {
		{ "dev@example.org", 1 },
		{ "first.last+tag@sub.example.org", 1 },
		{ "robot@localhost", 1 },
		{ "x@[127.0.0.1]", 1 },
		{ "", 0 },
		{ "no-at-sign", 0 },
		{ "@example.org", 0 },
		{ "dev@", 0 },
		{ "a..b@example.org", 0 },
		{ ".a@example.org", 0 },
		{ "a b@example.org", 0 },
		{ "a@example.org\r\nBcc: victim@example.org", 0 },
		{ "a@exa_mple.org", 0 },
		{ "a@-example.org", 0 },
		{ "zoë@example.org", 0 },
		{ "<a@example.org>", 0 },
		{ "a@example.org,b@example.org", 0 },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++)
		cr_expect_eq(rb_mail_check_address(cases[i].email) == 0,
			     cases[i].ok, "case %zu: %s", i, cases[i].email);
}

static bool has_header_line(const char *mail, const char *prefix)
{
	const char *p = mail;

	for (;;) {
		if (!strncasecmp(p, prefix, strlen(prefix)))
			return true;
		p = strchr(p, '\n');
		if (!p || p[1] == '\n')
			return false;
		p++;
	}
}

/* A subject that tries to add a header must stay inside its own. */
Test(report, crlf_injection_adds_no_header)
{
	struct rb_report r = fx_regression;
	struct rb_envelope env = RB_ENVELOPE_INIT;
	struct rb_mail_addr author = { "Eve\r\nBcc: victim2@example.org",
				       "eve@example.org" };
	struct rb_report_param params[] = {
		{ "test", "x\nBcc: victim3@example.org" },
	};
	char *mail, *subject;
	size_t i;

	r.subject = "mm: fix\r\nBcc: victim@example.org";
	r.author = author;
	r.params = params;
	r.params_nr = 1;
	r.stat = "s\nBcc: victim4@example.org";
	r.tree = "tip\r\n";
	mail = render(&r);
	cr_assert_not(has_header_line(mail, "Bcc:"));
	cr_assert_null(strchr(mail, '\r'));
	for (i = 0; mail[i]; i++)
		if (mail[i] == '\n' && mail[i + 1] == 'B')
			cr_assert_neq(strncmp(mail + i + 1, "Bcc", 3), 0);
	subject = rb_mail_header_get(mail, strlen(mail), "Subject");
	cr_assert_not_null(strstr(subject, "[mm] d329605287"));
	cr_assert_eq(rb_mail_envelope(&env, mail, strlen(mail)), 0);
	for (i = 0; i < env.rcpt.nr; i++)
		cr_assert_null(strstr(env.rcpt.v[i], "victim"), "%s",
			       env.rcpt.v[i]);
	cr_assert_eq(env.rcpt.nr, 5);
	cr_assert_not_null(strstr(mail, "commit: d329605287aa77d4b9f1e8a7c6d"
					"5e4f3a2b1c0d9 (\"mm: fix Bcc: "
					"victim@example.org\")\n"));
	rb_envelope_release(&env);
	free(subject);
	free(mail);
}

Test(report, invalid_input_is_an_error)
{
	struct rb_report r = fx_regression;
	struct rb_mail_addr bad = { "X", "x@example.org\nBcc: v@example.org" };
	struct sbuf sb = SBUF_INIT;

	r.author = bad;
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert(rb_starts_with(rb_errmsg(), "invalid mail address 'x@"));
	r = fx_regression;
	r.sha = "d329605287";
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert_str_eq(rb_errmsg(), "invalid culprit sha 'd329605287'");
	r = fx_regression;
	r.stat = "\n";
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert_str_eq(rb_errmsg(), "the report has no stat name");
	r = fx_regression;
	r.author.email = NULL;
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert_eq(sb.len, 0);
	sbuf_release(&sb);
}

Test(report, long_lines_wrapped_table_never_broken)
{
	struct rb_report r = fx_improvement;
	struct sbuf subject = SBUF_INIT, table = SBUF_INIT, sb = SBUF_INIT;
	struct svec l = SVEC_INIT;
	char *mail;
	size_t i, total = 0;

	sbuf_addstr(&subject, "mm:");
	for (i = 0; i < 400; i++)
		sbuf_addstr(&subject, " word");
	r.subject = subject.buf;
	mail = render(&r);
	split_lines(&l, mail);
	for (i = 0; i < l.nr; i++) {
		cr_assert_leq(strlen(l.v[i]), RB_MAIL_LINE_MAX);
		if (rb_starts_with(l.v[i], "commit: 6bef") ||
		    rb_starts_with(l.v[i], "word"))
			total += strlen(l.v[i]) + 1;
	}
	/* nothing lost: the pieces add up to the whole line */
	cr_assert_eq(total, strlen("commit: ") + 40 + strlen(" (\"\")") +
				    subject.len + 1);
	free(mail);
	svec_clear(&l);

	/* a table line is the table's: over the limit, it is an error */
	sbuf_addstr(&table, "header\n");
	for (i = 0; i < 1000; i++)
		sbuf_addch(&table, 'x');
	sbuf_addch(&table, '\n');
	r.table = table.buf;
	cr_assert_eq(rb_report_render(&sb, &r), -1);
	cr_assert_str_eq(rb_errmsg(), "line 2 of the compare table is 1000 "
				      "octets long (more than 998)");
	sbuf_release(&subject);
	sbuf_release(&table);
	sbuf_release(&sb);
}

Test(report, envelope_from_headers)
{
	static const char msg[] =
		"From: Robot <robot@lab.example.org>\n"
		"To: \"Dev, One\" <one@example.org>, two@example.org\n"
		"Cc: list: three@example.org, One@Example.org;,\n"
		" (a comment, with a comma) four@example.org\n"
		"Bcc: secret@example.org\n"
		"Subject: hi\n"
		"\n"
		"body\n"
		".leading dot\n";
	struct rb_envelope env = RB_ENVELOPE_INIT;
	static const char *const want[] = {
		"one@example.org",  "two@example.org",	  "three@example.org",
		"four@example.org", "secret@example.org",
	};
	size_t i;

	cr_assert_eq(rb_mail_envelope(&env, msg, sizeof(msg) - 1), 0, "%s",
		     rb_errmsg());
	cr_assert_str_eq(env.from, "robot@lab.example.org");
	cr_assert_eq(env.rcpt.nr, RB_ARRAY_SIZE(want));
	for (i = 0; i < RB_ARRAY_SIZE(want); i++)
		cr_expect_str_eq(env.rcpt.v[i], want[i]);
	cr_assert_str_eq(
		env.data.buf,
		"From: Robot <robot@lab.example.org>\r\n"
		"To: \"Dev, One\" <one@example.org>, two@example.org\r\n"
		"Cc: list: three@example.org, One@Example.org;,\r\n"
		" (a comment, with a comma) four@example.org\r\n"
		"Subject: hi\r\n"
		"\r\n"
		"body\r\n"
		".leading dot\r\n");
	rb_envelope_release(&env);
}

Test(report, envelope_refuses_bad_mail)
{
	static const struct {
		const char *msg, *err;
	} cases[] = {
		{ "To: a@example.org\n\nx\n",
		  "the mail has no 'From' address" },
		{ "From: r@example.org\nSubject: x\n\nx\n",
		  "the mail has no recipient" },
		{ "From: r@example.org\nTo: a@example.org\nbroken line\n\nx\n",
		  "line 3 of the mail is not a header field" },
		{ "From: r@example.org\nTo: a@example.org\n\nx\ry\n",
		  "line 4 of the mail has a bare CR" },
		{ "From: r@example.org\nTo: <a@example.org\n\nx\n",
		  "header 'To': unterminated address list '<a@example.org'" },
		{ "From: r@example.org\nTo: a@b@c\n\nx\n",
		  "header 'To': invalid mail address 'a@b@c'" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct rb_envelope env = RB_ENVELOPE_INIT;

		cr_expect_eq(rb_mail_envelope(&env, cases[i].msg,
					      strlen(cases[i].msg)),
			     -1, "case %zu", i);
		cr_expect_str_eq(rb_errmsg(), cases[i].err, "case %zu", i);
		rb_envelope_release(&env);
	}
}

Test(report, envelope_refuses_long_line_and_nul)
{
	struct sbuf sb = SBUF_INIT;
	struct rb_envelope env = RB_ENVELOPE_INIT;
	size_t i;

	sbuf_addstr(&sb, "From: r@example.org\nTo: a@example.org\n\n");
	for (i = 0; i < 999; i++)
		sbuf_addch(&sb, 'x');
	cr_assert_eq(rb_mail_envelope(&env, sb.buf, sb.len), -1);
	cr_assert_str_eq(rb_errmsg(), "line 4 of the mail is 999 octets long "
				      "(more than 998)");
	cr_assert_eq(rb_mail_envelope(&env, "From: a\0", 8), -1);
	cr_assert_str_eq(rb_errmsg(), "the mail holds a NUL byte");
	rb_envelope_release(&env);
	sbuf_release(&sb);
}

Test(report, header_get_unfolds)
{
	static const char msg[] = "Subject: one\n two\n\tthree\n"
				  "Message-ID: <x@y>\n\nSubject: body\n";
	char *v = rb_mail_header_get(msg, sizeof(msg) - 1, "subject");

	cr_assert_str_eq(v, "one two\tthree");
	free(v);
	v = rb_mail_header_get(msg, sizeof(msg) - 1, "Message-Id");
	cr_assert_str_eq(v, "<x@y>");
	free(v);
	cr_assert_null(rb_mail_header_get(msg, sizeof(msg) - 1, "To"));
}

/*
 * A multi-step change: the culprit's share and where the rest happened.
 * What is called "the rest" is all of it: a part under 5% beside a named
 * one is named as the remainder (the mail said "the rest happened between
 * C and Y (6%)" for a rest of 10%, 4% of it before the parent).
 */
Test(report, share_of_a_multi_step_change)
{
	/* good 1111.., parent fd03c5b85855, culprit d329605287aa, bad 9999.. */
	static const struct {
		double share, before, after;
		bool parent;
		const char *want;
	} cases[] = {
		{ 0.64, 0.33, 0.03, true,
		  "of the change from 111111111111 to 999999999999; 33% "
		  "happened between 111111111111 and fd03c5b85855, the "
		  "remaining 3% between d329605287aa and 999999999999." },
		{ 0.90, 0.0386, 0.0614, true,
		  "of the change from 111111111111 to 999999999999; 6% "
		  "happened between d329605287aa and 999999999999, the "
		  "remaining 4% between 111111111111 and fd03c5b85855." },
		{ 0.60, 0.25, 0.15, true,
		  "of the change from 111111111111 to 999999999999; the rest "
		  "happened between 111111111111 and fd03c5b85855 (25%) and "
		  "between d329605287aa and 999999999999 (15%)." },
		{ 0.97, 0.02, 0.01, true,
		  "of the change from 111111111111 to 999999999999." },
		{ 0.70, 0.30, 0.00, false,
		  "of the change from 111111111111 to 999999999999; 30% "
		  "happened before this commit, the remaining 0% between "
		  "d329605287aa and 999999999999." },
	};
	struct rb_report r = fx_regression;
	char *mail, *flat, *p;
	size_t i;

	r.has_share = true;
	r.share_lo = 0.52;
	r.share_hi = 0.77;
	r.good_sha = "1111111111112222222222333333333344444444";
	r.bad_sha = "9999999999998888888888777777777766666666";
	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		r.share = cases[i].share;
		r.share_before = cases[i].before;
		r.share_after = cases[i].after;
		r.confirm = cases[i].parent ? fx_regression.confirm : NULL;
		mail = render(&r);
		/* unwrap the paragraph */
		flat = xstrdup(mail);
		for (p = flat; *p; p++)
			if (*p == '\n')
				*p = ' ';
		cr_assert(strstr(flat, "This commit accounts for ") != NULL,
			  "%s", mail);
		cr_assert(strstr(flat, cases[i].want) != NULL,
			  "case %zu: no '%s' in:\n%s", i, cases[i].want, mail);
		free(flat);
		free(mail);
	}
	/* not stated: no line */
	r.has_share = false;
	mail = render(&r);
	cr_assert(strstr(mail, "accounts for") == NULL, "%s", mail);
	free(mail);
}

/* The lab time a bisection took: a line after the bisection table. */
Test(report, lab_time_line)
{
	static const char doc_ok[] =
		"{\"key\": \"k\", \"cost\": {\"runs\": 33, \"boots\": 25, \"builds\": 8, "
		"\"builds_ahead\": 3, \"builds_unused\": 1, "
		"\"build_wait\": 250.4}}";
	static const char *const doc_bad[] = {
		"{\"key\": \"k\", \"cost\": {\"runs\": 1, \"boots\": 1, \"builds\": 2, "
		"\"builds_ahead\": 3}}",
		"{\"key\": \"k\", \"cost\": {\"runs\": 1, \"boots\": 1, \"builds\": 2, "
		"\"build_wait\": -1}}",
		"{\"key\": \"k\", \"cost\": {\"runs\": 1, \"boots\": 1, \"builds\": 2, "
		"\"walls\": 1}}",
		"{\"key\": \"k\", \"cost\": {\"runs\": 1, \"builds\": 2}}",
	};
	struct rb_report r = fx_regression;
	struct rb_report_doc doc;
	char *mail;
	size_t i;

	r.has_cost = true;
	r.cost = (struct rb_report_cost){ .runs = 33,
					  .boots = 25,
					  .builds = 8,
					  .builds_ahead = 3,
					  .builds_unused = 1,
					  .build_wait = 250.4 };
	mail = render(&r);
	cr_assert(strstr(mail,
			 "Lab time: 33 runs, 25 boots, 8 builds (3 of "
			 "them started by the look-ahead builders rather "
			 "than the box, 1 of those never used); ") != NULL,
		  "%s", mail);
	/* the look-ahead builds the anchors too, before anything is
	 * measured, and the box waits for them */
	cr_assert(strstr(mail, "while the box measured") == NULL, "%s", mail);
	cr_assert(strstr(mail, "ahead of need") == NULL, "%s", mail);
	cr_assert(strstr(mail, "waited 4m 10s for kernels.") != NULL, "%s",
		  mail);
	free(mail);
	r.cost.builds_ahead = 0;
	r.cost.build_wait = 7;
	mail = render(&r);
	cr_assert(strstr(mail, "8 builds; the box waited 7s for kernels.") !=
			  NULL,
		  "%s", mail);
	free(mail);
	/* one of each, as a mail to a developer says it */
	r.cost.runs = r.cost.boots = r.cost.builds = 1;
	mail = render(&r);
	cr_assert(strstr(mail, "Lab time: 1 run, 1 boot, 1 build; ") != NULL,
		  "%s", mail);
	free(mail);
	r.has_cost = false;
	mail = render(&r);
	cr_assert(strstr(mail, "Lab time") == NULL, "%s", mail);
	free(mail);

	/* the report JSON's cost */
	cr_assert_eq(rb_report_doc_parse(&doc, "r.json", doc_ok,
					 strlen(doc_ok)),
		     0, "%s", rb_errmsg());
	cr_assert(doc.r.has_cost);
	cr_assert_eq(doc.r.cost.builds_unused, 1);
	cr_assert_float_eq(doc.r.cost.build_wait, 250.4, 1e-9);
	rb_report_doc_release(&doc);
	for (i = 0; i < RB_ARRAY_SIZE(doc_bad); i++) {
		cr_assert_eq(rb_report_doc_parse(&doc, "r.json", doc_bad[i],
						 strlen(doc_bad[i])),
			     -1, "parsed: %s", doc_bad[i]);
		cr_assert(strstr(rb_errmsg(), "cost") != NULL, "%s",
			  rb_errmsg());
		rb_report_doc_release(&doc);
	}
}

/*
 * The robot's confidence note states the terms of its confidence, 1 -
 * decided x step alpha x confirm alpha, with their values (the retired
 * "at most a 1% chance, split over its steps" was neither).
 */
Test(report, confidence_note_states_its_terms)
{
	static const struct {
		unsigned decided;
		double step_alpha, confirm_alpha;
		const char *want[3];
	} cases[] = {
		{ 6,
		  0.025,
		  0.02,
		  { "each of the 6 decided steps errs at most 2.5% of the "
		    "time",
		    "the confirmation repeats such an error at most 2% of the time",
		    "at most 6 x 2.5% x 2% = 0.3%." } },
		{ 1,
		  0.2 / 11,
		  0.02 / 3,
		  { "the one decided step errs at most 1.8%", "at most 0.67%",
		    "1 x 1.8% x 0.67% = 0.012%." } },
		{ 0,
		  0.025,
		  0.02,
		  { "No step was decided",
		    "this culprit. The culprit was measured again", NULL } },
		{ 40,
		  0.5,
		  0.5,
		  { "40 x 50% x 50%, 100% or more: no bound.", NULL } },
	};
	struct rb_report r = fx_regression;
	struct sbuf note = SBUF_INIT;
	char *mail, *flat, *p;
	size_t i, k;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		sbuf_reset(&note);
		rb_report_confidence_note(&note, cases[i].decided,
					  cases[i].step_alpha,
					  cases[i].confirm_alpha);
		for (k = 0; k < 3 && cases[i].want[k]; k++)
			cr_assert(strstr(note.buf, cases[i].want[k]) != NULL,
				  "case %zu: no '%s' in '%s'", i,
				  cases[i].want[k], note.buf);
		cr_assert(strstr(note.buf, "1% chance") == NULL, "%s",
			  note.buf);
		cr_assert(strstr(note.buf, "against its parent") != NULL, "%s",
			  note.buf);
	}
	/* in the mail, under the confidence it explains */
	sbuf_reset(&note);
	rb_report_confidence_note(&note, 6, 0.025, 0.02);
	r.confidence = 1 - 6 * 0.025 * 0.02;
	r.confidence_note = note.buf;
	mail = render(&r);
	flat = xstrdup(mail);
	for (p = flat; *p; p++)
		if (*p == '\n')
			*p = ' ';
	cr_assert(strstr(mail, "\nConfidence: 99.70%\n  A wrong culprit needs "
			       "a wrong step") != NULL,
		  "%s", mail);
	cr_assert(strstr(flat, "6 x 2.5% x 2% = 0.3%.") != NULL, "%s", mail);
	free(flat);
	free(mail);
	sbuf_release(&note);
}

/*
 * The mail's own ± is the sample stddev and says so: the compare table
 * above it shows lkp's population %stddev of the same runs (the
 * confirmation's), which differs.
 */
Test(report, spread_names_the_sample_stddev)
{
	struct rb_report r = fx_regression;
	char *mail;

	r.spread_kind = RB_SPREAD_STDDEV;
	mail = render(&r);
	cr_assert(strstr(mail, "(mean ± sample stddev; ") != NULL, "%s", mail);
	cr_assert(strstr(mail, "interleaved rounds (mean ± sample stddev):") !=
			  NULL,
		  "%s", mail);
	free(mail);
}

/*
 * The materials of a lab without kconfig hold no kernel config: the mail
 * names only what is there.
 */
Test(report, materials_line_names_a_config_only_when_there_is_one)
{
	struct rb_report r = fx_regression;
	char *mail;

	mail = render(&r);
	cr_assert(strstr(mail, "\nThe kernel config and materials to "
			       "reproduce are available at:\n") != NULL,
		  "%s", mail);
	free(mail);
	r.no_config = true;
	mail = render(&r);
	cr_assert(strstr(mail, "\nThe materials to reproduce are available "
			       "at:\n") != NULL,
		  "%s", mail);
	cr_assert(strstr(mail, "kernel config") == NULL, "%s", mail);
	free(mail);
}
