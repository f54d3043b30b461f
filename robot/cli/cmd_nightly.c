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
	{ "--lab", "LAB", RB_OPT_STRING, NIGHTLY_OPT(o.lab), 0, 0,
	  "the lab file" },
	{ "--once", NULL, RB_OPT_FLAG, NIGHTLY_OPT(o.once), 0, 0,
	  "one cycle, then exit (for cron and systemd)" },
	{ "--interval", "T", RB_OPT_STRING, NIGHTLY_OPT(interval), 0, 0,
	  "between cycles (default: nightly.interval, 6h)" },
	{ NULL },
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
	if (!a.o.lab)
		return rb_usage_error("nightly", "--lab is required");
	a.o.out = stdout;
	a.o.tty = isatty(STDERR_FILENO);
	return nightly_main(&a.o);
}
