// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot nightly --lab LAB [--once] [--interval DURATION]
 */
#include <unistd.h>

#include "../robot.h"
#include "../nightly.h"
#include "../schema.h"
#include "cli.h"

struct nightly_args {
	struct nightly_opts o;
	const char *interval;
};

#define NIGHTLY_OPT(f) offsetof(struct nightly_args, f)
const struct rb_opt_spec nightly_opts[] = {
	RB_OPT_LAB(NIGHTLY_OPT(o.lab), RB_OPT_REQ),
	RB_OPT_BOOL("--once", NIGHTLY_OPT(o.once),
		    "one cycle, then exit (for cron and systemd)"),
	RB_OPT_STR("--interval", "T", NIGHTLY_OPT(interval),
		   "between cycles (default: nightly.interval, 6h)"),
	RB_OPT_END,
};

int cmd_nightly(int argc, char **argv)
{
	struct nightly_args a;
	int r;

	memset(&a, 0, sizeof(a));
	r = rb_opts_parse("nightly", nightly_opts, argc - 1, argv + 1, &a,
			  NULL);

	if (r)
		return r;
	if (a.interval &&
	    (schema_parse_duration(a.interval, &a.o.interval) < 0 ||
	     a.o.interval < 1))
		return rb_usage_error("nightly",
				      "--interval takes a time (6h, 30m, "
				      "3600s or seconds)");
	a.o.out = stdout;
	a.o.tty = isatty(STDERR_FILENO);
	return nightly_main(&a.o);
}
