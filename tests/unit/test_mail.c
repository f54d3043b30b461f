// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parts of the SMTP adapter that need no server: where the password
 * comes from, and which settings are refused before connecting. Delivery
 * itself runs against a real server in tests/e2e/mail-*.
 */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "mail.h"

static char *write_secret(const char *dir, const char *name, const char *text,
			  mode_t mode)
{
	char *path = xstrfmt("%s/%s", dir, name);

	cr_assert_eq(rb_write_file_atomic(path, text, strlen(text)), 0);
	cr_assert_eq(chmod(path, mode), 0);
	return path;
}

Test(mail, password_from_file_or_environment)
{
	char tmpl[] = "/tmp/robot-mail-XXXXXX";
	struct rb_smtp s = { .url = "smtps://127.0.0.1:465", .user = "robot" };
	char *dir, *good, *crlf, *open_, *group, *empty, *two, *pw, *link;

	dir = mkdtemp(tmpl);
	cr_assert_not_null(dir);
	good = write_secret(dir, "good", "s3cret with spaces\n", 0600);
	crlf = write_secret(dir, "crlf", "abc\r\n", 0400);
	open_ = write_secret(dir, "open", "abc\n", 0644);
	group = write_secret(dir, "group", "abc\n", 0640);
	empty = write_secret(dir, "empty", "\n", 0600);
	two = write_secret(dir, "two", "a\nb\n", 0600);
	link = xstrfmt("%s/link", dir);
	cr_assert_eq(symlink(good, link), 0);

	s.password_file = good;
	cr_assert_eq(rb_mail_password(&s, &pw), 0, "%s", rb_errmsg());
	cr_assert_str_eq(pw, "s3cret with spaces");
	rb_mail_password_free(pw);
	s.password_file = crlf;
	cr_assert_eq(rb_mail_password(&s, &pw), 0);
	cr_assert_str_eq(pw, "abc");
	rb_mail_password_free(pw);

	s.password_file = open_;
	cr_assert_eq(rb_mail_password(&s, &pw), -1);
	cr_assert_null(pw);
	cr_assert(rb_ends_with(rb_errmsg(), "/open' is readable by group or "
					    "others (mode 0644): chmod 600 it"),
		  "%s", rb_errmsg());
	s.password_file = group;
	cr_assert_eq(rb_mail_password(&s, &pw), -1);
	cr_assert(strstr(rb_errmsg(), "(mode 0640)"));
	s.password_file = empty;
	cr_assert_eq(rb_mail_password(&s, &pw), -1);
	cr_assert(rb_ends_with(rb_errmsg(), "does not hold one password line"));
	s.password_file = two;
	cr_assert_eq(rb_mail_password(&s, &pw), -1);
	/* a symlink could point anywhere: not followed */
	s.password_file = link;
	cr_assert_eq(rb_mail_password(&s, &pw), -1);
	cr_assert(rb_starts_with(rb_errmsg(), "cannot open password file"));

	s.password_file = NULL;
	s.password_env = "ROBOT_TEST_SMTP_PW";
	unsetenv("ROBOT_TEST_SMTP_PW");
	cr_assert_eq(rb_mail_password(&s, &pw), -1);
	cr_assert_str_eq(rb_errmsg(), "environment variable "
				      "'ROBOT_TEST_SMTP_PW' (the smtp "
				      "password) is not set");
	setenv("ROBOT_TEST_SMTP_PW", "from-env", 1);
	cr_assert_eq(rb_mail_password(&s, &pw), 0);
	cr_assert_str_eq(pw, "from-env");
	rb_mail_password_free(pw);
	unsetenv("ROBOT_TEST_SMTP_PW");

	rb_remove_tree(dir);
	free(good);
	free(crlf);
	free(open_);
	free(group);
	free(empty);
	free(two);
	free(link);
}

Test(mail, settings_refused_before_connecting)
{
	static const struct {
		struct rb_smtp s;
		const char *err; /* NULL: accepted */
	} cases[] = {
		{ { .url = "smtp://127.0.0.1:25" }, NULL },
		{ { .url = "smtps://mail.example.org" }, NULL },
		{ { .url = "smtp://127.0.0.1:587",
		    .starttls = true,
		    .user = "u",
		    .password_env = "X" },
		  NULL },
		{ { .url = NULL }, "no smtp server given" },
		{ { .url = "http://127.0.0.1" },
		  "smtp url 'http://127.0.0.1' must start with smtp:// or "
		  "smtps://" },
		{ { .url = "smtp://u:hunter2@127.0.0.1" },
		  "the smtp url must not hold a password: use a password file "
		  "or an environment variable" },
		{ { .url = "smtp://127.0.0.1",
		    .user = "u",
		    .password_env = "X" },
		  "refusing to send the smtp password without tls: use "
		  "smtps:// or require starttls" },
		{ { .url = "smtps://127.0.0.1", .password_file = "/x" },
		  "an smtp password is given but no smtp user" },
		{ { .url = "smtps://127.0.0.1", .ca_file = "/nonexistent/ca" },
		  "cannot read ca file '/nonexistent/ca': No such file or "
		  "directory" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		int r = rb_mail_check(&cases[i].s);

		if (!cases[i].err) {
			cr_expect_eq(r, 0, "case %zu: %s", i, rb_errmsg());
			continue;
		}
		cr_expect_eq(r, -1, "case %zu", i);
		cr_expect_str_eq(rb_errmsg(), cases[i].err, "case %zu", i);
		cr_expect_null(strstr(rb_errmsg(), "hunter2"));
	}
}
