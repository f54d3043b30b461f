// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LAVA client's own rules (the server's answers are checked against a
 * real server by e2e lava-lab-check): where the token comes from, and a
 * server that does not answer.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "robot.h"
#include "lab.h"
#include "lava.h"

static char dir[] = "/tmp/robot-lava-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	rb_remove_tree(dir);
	unsetenv("ROBOT_TEST_LAVA_TOKEN");
}

TestSuite(lava, .init = setup, .fini = teardown);

static char *token_file(const char *text, mode_t mode)
{
	char *p = xstrfmt("%s/token", dir);

	cr_assert_eq(rb_write_file_atomic(p, text, strlen(text)), 0);
	cr_assert_eq(chmod(p, mode), 0);
	return p;
}

Test(lava, token_sources)
{
	struct lab_lava cfg = { .url = (char *)"http://127.0.0.1:1/",
				.device_type = (char *)"qemu" };
	struct lava_client c;

	cr_expect_eq(lava_open(&c, &cfg), -1);
	cr_expect_str_eq(rb_errmsg(), "lava: no token_env or token_file (the "
				      "token never goes into the lab file)");
	cfg.token_env = (char *)"ROBOT_TEST_LAVA_TOKEN";
	cr_expect_eq(lava_open(&c, &cfg), -1);
	cr_expect_str_eq(rb_errmsg(), "lava: the environment variable "
				      "ROBOT_TEST_LAVA_TOKEN (token_env) is "
				      "not set");
	setenv("ROBOT_TEST_LAVA_TOKEN", "t0k", 1);
	cr_assert_eq(lava_open(&c, &cfg), 0, "%s", rb_errmsg());
	cr_expect_str_eq(c.token, "t0k");
	/* the URL without its trailing slash */
	cr_expect_str_eq(c.url, "http://127.0.0.1:1");
	lava_close(&c);
	cfg.token_file = token_file("abc\n", 0600);
	cr_expect_eq(lava_open(&c, &cfg), -1);
	cr_expect_str_eq(rb_errmsg(),
			 "lava: give token_env or token_file, not both");
	cfg.token_env = NULL;
	cr_assert_eq(lava_open(&c, &cfg), 0, "%s", rb_errmsg());
	cr_expect_str_eq(c.token, "abc");
	lava_close(&c);
	free(cfg.token_file);
	cfg.token_file = token_file("abc\n", 0644);
	cr_expect_eq(lava_open(&c, &cfg), -1);
	cr_expect(strstr(rb_errmsg(), "is readable by group or others "
				      "(mode 0644): chmod 600 it") != NULL,
		  "%s", rb_errmsg());
	free(cfg.token_file);
	cfg.token_file = token_file("a\nb\n", 0600);
	cr_expect_eq(lava_open(&c, &cfg), -1);
	cr_expect(strstr(rb_errmsg(), "lava token file '") != NULL &&
			  strstr(rb_errmsg(),
				 "does not hold one lava token line"),
		  "%s", rb_errmsg());
	free(cfg.token_file);
}

/* nothing listens on port 1: the lab's trouble, not the request's */
Test(lava, server_that_does_not_answer)
{
	struct lab_lava cfg = { .url = (char *)"http://127.0.0.1:1",
				.token_env = (char *)"ROBOT_TEST_LAVA_TOKEN",
				.device_type = (char *)"qemu" };
	struct lava_client c;
	struct lava_pool pool;

	svec_init(&cfg.devices);
	setenv("ROBOT_TEST_LAVA_TOKEN", "t0k", 1);
	cr_assert_eq(lava_open(&c, &cfg), 0);
	cr_expect_eq(lava_check(&c, &cfg, &pool), -1);
	cr_expect(c.infra);
	cr_expect(rb_starts_with(rb_errmsg(), "LAVA server http://127.0.0.1:1 "
					      "does not answer: "),
		  "%s", rb_errmsg());
	lava_close(&c);
}
