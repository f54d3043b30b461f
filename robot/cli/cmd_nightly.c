// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot nightly --lab LAB [--once] [--interval DURATION]
 */
#include <unistd.h>

#include "../robot.h"
#include "../nightly.h"
#include "../schema.h"
#include "cli.h"

int cmd_nightly(int argc, char **argv)
{
	struct nightly_opts o = { 0 };
	const char *v;
	int i, r;

	for (i = 1; i < argc; i++) {
		if ((r = rb_opt_arg(argc, argv, &i, "--lab", &o.lab))) {
			if (r < 0)
				return rb_usage_error("nightly",
						      "'--lab' needs a value");
		} else if ((r = rb_opt_arg(argc, argv, &i, "--interval", &v))) {
			if (r < 0 ||
			    schema_parse_duration(v, &o.interval) < 0 ||
			    o.interval < 1)
				return rb_usage_error(
					"nightly",
					"--interval takes a time (6h, 30m, "
					"3600s or seconds)");
		} else if (!strcmp(argv[i], "--once")) {
			o.once = true;
		} else {
			return rb_usage_error("nightly",
					      "unknown argument '%s'", argv[i]);
		}
	}
	if (!o.lab)
		return rb_usage_error("nightly", "--lab is required");
	o.out = stdout;
	o.tty = isatty(STDERR_FILENO);
	return nightly_main(&o);
}
