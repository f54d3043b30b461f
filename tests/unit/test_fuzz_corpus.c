// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzz targets' regression inputs: every file under
 * tests/data/fuzz/<target>/ (crashes the fuzzers found, hostile inputs
 * written by hand) goes through its target, whose checks abort on a
 * broken promise. The same targets run under libFuzzer with `make fuzz`.
 */
#include <criterion/criterion.h>
#include <dirent.h>

#include "robot.h"

#include "../fuzz/fuzz.h"

typedef int (*fuzz_fn)(const uint8_t *, size_t);

static size_t replay(const char *target, fuzz_fn fn)
{
	char *unit = rb_dirname(__FILE__);
	char *tests = rb_dirname(unit);
	char *dir = xstrfmt("%s/data/fuzz/%s", tests, target);
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	cr_assert(d, "no regression inputs in '%s'", dir);
	while ((de = readdir(d))) {
		char *p, *buf;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		p = xstrfmt("%s/%s", dir, de->d_name);
		cr_assert_eq(rb_read_file(p, &buf, &len), 0, "%s", rb_errmsg());
		cr_log_info("%s", p);
		fn((const uint8_t *)buf, len);
		free(buf);
		free(p);
		n++;
	}
	closedir(d);
	free(dir);
	free(tests);
	free(unit);
	return n;
}

#define REPLAY(name, what)                                      \
	Test(fuzz_corpus, name)                                 \
	{                                                       \
		cr_expect_gt(replay(#name, fuzz_##name), 0,     \
			     "no regression input for " #name); \
	}
FUZZ_TARGETS(REPLAY)
