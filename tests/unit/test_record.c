// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>

#include "robot.h"
#include "record.h"

/* The integers the session reads back from the details it wrote. */
Test(record, detail_int)
{
	static const struct {
		const char *detail, *key;
		int64_t want;
	} cases[] = {
		{ "{\"after_run\": 42}", "after_run", 42 },
		{ "{\"last_run\": 7, \"after_run\": 9}", "after_run", 9 },
		{ "{\"last_run\": 7, \"after_run\": 9}", "last_run", 7 },
		/* a key is a whole member name, not a suffix of one */
		{ "{\"fresh_after_run\": 5, \"after_run\": 6}", "after_run",
		  6 },
		/* a quoted name inside a string value is not a member */
		{ "{\"why\": \"x \\\"after_run\\\": 3\", \"after_run\": 4}",
		  "after_run", 4 },
		{ "{\"why\": \"x \\\"after_run\\\": 3\"}", "after_run", -1 },
		{ "{\"drop\": [\"abc\"]}", "after_run", -1 },
		{ "{}", "after_run", -1 },
		{ "", "after_run", -1 },
		{ NULL, "after_run", -1 },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++)
		cr_expect_eq(record_detail_int(cases[i].detail, cases[i].key,
					       -1),
			     cases[i].want, "case %zu: %s", i,
			     cases[i].detail ? cases[i].detail : "(null)");
	cr_expect_eq(record_detail_int(NULL, "after_run", 17), 17);
}
