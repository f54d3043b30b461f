// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lab files as every command reads them (lab_load_string, relative paths
 * joined to a folder that does not exist, so that nightly globs match
 * nothing). Promises: a refusal is one line naming the file; an accepted
 * lab has host names that can name a directory, CPU counts in range and
 * an absolute workdir.
 */
#include "robot.h"
#include "lab.h"

#include "fuzz.h"

#define SRC "fuzz-lab.yaml"

int fuzz_lab(const uint8_t *data, size_t size)
{
	struct lab lab;
	size_t i;

	if (lab_load_string(&lab, SRC, "/nonexistent-robot-fuzz",
			    (const char *)data, size) < 0) {
		const char *e = rb_errmsg();

		fuzz_check(e && !strncmp(e, SRC ":", strlen(SRC ":")),
			   "error without its file: '%s'", e ? e : "(none)");
		fuzz_check(!strchr(e, '\n'), "a multi-line error: '%s'", e);
		lab_release(&lab);
		return 0;
	}
	fuzz_check(lab.workdir && lab.workdir[0] == '/', "workdir '%s'",
		   lab.workdir ? lab.workdir : "(none)");
	for (i = 0; i < lab.nr_hosts; i++) {
		const struct lab_host *h = &lab.hosts[i];

		fuzz_check(h->name && *h->name && !strchr(h->name, '/') &&
				   strcmp(h->name, ".") &&
				   strcmp(h->name, ".."),
			   "host name '%s' cannot name a directory", h->name);
		fuzz_check(h->nr_cpu >= 0 && h->nr_cpu <= 65536,
			   "host '%s': nr_cpu %ld", h->name, h->nr_cpu);
	}
	lab_release(&lab);
	return 0;
}
