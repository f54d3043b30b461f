// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <math.h>
#include <unistd.h>

#include "robot.h"
#include "sbuf.h"
#include "svec.h"

Test(sbuf, append_and_format)
{
	struct sbuf sb = SBUF_INIT;

	cr_assert_str_eq(sb.buf, "");
	sbuf_addstr(&sb, "abc");
	sbuf_addch(&sb, '-');
	sbuf_addf(&sb, "%d/%s", 42, "x");
	cr_assert_str_eq(sb.buf, "abc-42/x");
	cr_assert_eq(sb.len, 8);
	sbuf_release(&sb);
	cr_assert_str_eq(sb.buf, "");
}

Test(sbuf, long_format_grows)
{
	struct sbuf sb = SBUF_INIT;
	char big[1000];

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sbuf_addf(&sb, "<%s>", big);
	cr_assert_eq(sb.len, 1001);
	cr_assert_eq(sb.buf[0], '<');
	cr_assert_eq(sb.buf[1000], '>');
	sbuf_release(&sb);
}

Test(sbuf, cap_refuses_and_marks_truncated)
{
	struct sbuf sb = SBUF_INIT_MAX(5);

	cr_assert_eq(sbuf_addstr(&sb, "abcd"), 0);
	cr_assert_eq(sbuf_addstr(&sb, "ef"), -1);
	cr_assert(sb.truncated);
	cr_assert_str_eq(sb.buf, "abcd");
	sbuf_release(&sb);
}

Test(sbuf, shell_quoting)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "'plain'" },
		{ "", "''" },
		{ "mmap; touch /tmp/owned", "'mmap; touch /tmp/owned'" },
		{ "it's", "'it'\\''s'" },
		{ "$(id)`id`", "'$(id)`id`'" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT;

		sbuf_add_shell_quoted(&sb, cases[i].in);
		cr_expect_str_eq(sb.buf, cases[i].out, "case %zu", i);
		sbuf_release(&sb);
	}
}

Test(svec, push_find_setenv)
{
	struct svec sv = SVEC_INIT;

	cr_assert_null(sv.v[0]);
	svec_push(&sv, "a");
	svec_pushf(&sv, "b%d", 2);
	cr_assert_eq(sv.nr, 2);
	cr_assert_null(sv.v[2]);
	cr_assert_eq(svec_find(&sv, "b2"), 1);
	cr_assert_eq(svec_find(&sv, "c"), -1);
	svec_setenv(&sv, "X", "1");
	svec_setenv(&sv, "X", "2");
	cr_assert_eq(sv.nr, 3);
	cr_assert_str_eq(sv.v[2], "X=2");
	svec_clear(&sv);
	cr_assert_eq(sv.nr, 0);
}

Test(util, parse_numbers)
{
	long l;
	double d;

	cr_assert_eq(rb_parse_long("42", &l), 0);
	cr_assert_eq(l, 42);
	cr_assert_eq(rb_parse_long("4x", &l), -1);
	cr_assert_eq(rb_parse_long("", &l), -1);
	cr_assert_eq(rb_parse_double("1.5e3", &d), 0);
	cr_assert_float_eq(d, 1500.0, 1e-9);
	cr_assert_eq(rb_parse_double("nan?", &d), -1);
	{
		uint64_t z;

		cr_assert_eq(rb_parse_size("4096", &z), 0);
		cr_assert_eq(z, 4096);
		cr_assert_eq(rb_parse_size("512MiB", &z), 0);
		cr_assert_eq(z, 512ULL << 20);
		cr_assert_eq(rb_parse_size("20G", &z), 0);
		cr_assert_eq(z, 20ULL << 30);
		cr_assert_eq(rb_parse_size("1TB", &z), 0);
		cr_assert_eq(z, 1ULL << 40);
		cr_assert_eq(rb_parse_size("-1G", &z), -1);
		cr_assert_eq(rb_parse_size("2X", &z), -1);
		cr_assert_eq(rb_parse_size("G", &z), -1);
		cr_assert_eq(rb_parse_size("99999999999T", &z), -1);
	}
	cr_assert(rb_is_sha1_hex("0123456789abcdef0123456789abcdef01234567"));
	cr_assert_not(
		rb_is_sha1_hex("0123456789abcdef0123456789abcdef0123456"));
	cr_assert_not(
		rb_is_sha1_hex("0123456789ABCDEF0123456789abcdef01234567"));
}

Test(util, error_slot_and_prefix)
{
	cr_assert_eq(rb_error("cannot open '%s'", "x"), -1);
	cr_assert_str_eq(rb_errmsg(), "cannot open 'x'");
	rb_error_prefix("lab %s", "y");
	cr_assert_str_eq(rb_errmsg(), "lab y: cannot open 'x'");
	rb_error_clear();
	cr_assert_str_eq(rb_errmsg(), "unknown error");
}

Test(util, atomic_write_and_read_back)
{
	char dir[] = "/tmp/robot-util-XXXXXX";
	char *path, *sub, *buf, *lock, *copy;
	size_t len;

	cr_assert_not_null(mkdtemp(dir));
	sub = xstrfmt("%s/a/b/c", dir);
	cr_assert_eq(rb_mkdir_p(sub), 0);
	path = xstrfmt("%s/file", sub);
	cr_assert_eq(rb_write_file_atomic(path, "hello\n", 6), 0);
	cr_assert_eq(rb_read_file(path, &buf, &len), 0);
	cr_assert_eq(len, 6);
	cr_assert_str_eq(buf, "hello\n");
	free(buf);
	lock = xstrfmt("%s.lock", path);
	cr_assert_not(rb_file_exists(lock));
	free(lock);
	/* a copy, also of bytes after a NUL; a missing source is an error */
	cr_assert_eq(rb_write_file_atomic(path, "a\0b", 3), 0);
	copy = xstrfmt("%s/copy", dir);
	cr_assert_eq(rb_copy_file(path, copy), 0);
	cr_assert_eq(rb_read_file(copy, &buf, &len), 0);
	cr_assert_eq(len, 3);
	cr_assert_eq(memcmp(buf, "a\0b", 3), 0);
	free(buf);
	cr_assert_eq(rb_copy_file(sub, copy), -1);
	cr_assert_eq(rb_copy_file("/nonexistent/x", copy), -1);
	cr_assert(strstr(rb_errmsg(), "cannot open '/nonexistent/x'"));
	free(copy);
	cr_assert_eq(rb_remove_tree(dir), 0);
	cr_assert_not(rb_file_exists(dir));
	cr_assert_eq(rb_remove_tree("/"), -1);
	free(path);
	free(sub);
}

/* Each line once, its "\n" left out; a last line without one counts. */
Test(util, next_line)
{
	static const struct {
		const char *text;
		const char *lines; /* the lines seen, each followed by '|' */
	} cases[] = {
		{ "", "" },	     { "a", "a|" },
		{ "a\n", "a|" },     { "a\nbc\n", "a|bc|" },
		{ "\n\nx", "||x|" }, { "a\r\nb", "a\r|b|" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		const char *p = cases[i].text, *l;
		struct sbuf seen = SBUF_INIT;
		size_t n;

		while (rb_next_line(&p, &l, &n)) {
			sbuf_add(&seen, l, n);
			sbuf_addch(&seen, '|');
		}
		cr_assert_str_eq(seen.buf ? seen.buf : "", cases[i].lines,
				 "case %zu", i);
		cr_assert_eq(*p, '\0');
		sbuf_release(&seen);
	}
}

Test(util, paths)
{
	char *d = rb_dirname("/a/b/c.yaml");

	cr_assert_str_eq(d, "/a/b");
	free(d);
	d = rb_dirname("c.yaml");
	cr_assert_str_eq(d, ".");
	free(d);
	d = rb_path_join("/lab", "hooks/x");
	cr_assert_str_eq(d, "/lab/hooks/x");
	free(d);
	d = rb_path_join("/lab", "/abs");
	cr_assert_str_eq(d, "/abs");
	free(d);
}

Test(util, edit_distance_and_did_you_mean)
{
	static const char *const cmds[] = { "bisect", "compare", "history",
					    "report", "run" };

	cr_expect_eq(rb_edit_distance("bisct", "bisect"), 1);
	cr_expect_eq(rb_edit_distance("", "abc"), 3);
	cr_expect_eq(rb_edit_distance("opz_per_sec", "ops_per_sec"), 1);
	cr_expect_str_eq(rb_suggest("bisct", cmds, 5), "bisect");
	cr_expect_str_eq(rb_suggest("reprot", cmds, 5), "report");
	cr_expect_str_eq(rb_suggest("rnu", cmds, 5), "run");
	cr_expect_null(rb_suggest("x", cmds, 5), "too far for so short");
	cr_expect_null(rb_suggest("nightly", cmds, 5));

	/* the refusal bisect --metric and history --stat share */
	cr_expect_eq(rb_error_unknown("command", "bisct", cmds, 5, "why"), -1);
	cr_expect_str_eq(rb_errmsg(),
			 "unknown command 'bisct' (did you mean 'bisect'?)");
	cr_expect_eq(rb_error_unknown("stat", "nosuch", cmds, 5,
				      "the history has 5 stats"),
		     -1);
	cr_expect_str_eq(rb_errmsg(),
			 "unknown stat 'nosuch': the history has 5 stats");
	cr_expect_eq(rb_error_unknown("stat", "", cmds, 5, NULL), -1);
	cr_expect_str_eq(rb_errmsg(), "unknown stat ''");
}

Test(util, confidence_is_never_rounded_up)
{
	char b[32];

	rb_fmt_confidence(b, sizeof(b), 0.99976);
	cr_expect_str_eq(b, "99.97%");
	rb_fmt_confidence(b, sizeof(b), 0.99999);
	cr_expect_str_eq(b, "99.99%", "not 100.00%");
	rb_fmt_confidence(b, sizeof(b), 1.0);
	cr_expect_str_eq(b, "100.00%");
	rb_fmt_confidence(b, sizeof(b), 0.99);
	cr_expect_str_eq(b, "99.00%");
	rb_fmt_confidence(b, sizeof(b), NAN);
	cr_expect_str_eq(b, "-");
}
