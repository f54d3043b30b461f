// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc-vmstat.*: /proc/vmstat. The nr_* fields are gauges (averaged); the
 * others are event counters (pgfault, pgalloc_normal, numa_hit, thp_*),
 * reported as last - first over the run, as lkp's event-counter rule does.
 */
#include "robot.h"
#include "monitor.h"

static const char *const files[] = { "/proc/vmstat", NULL };

static bool is_gauge(const char *key)
{
	return rb_starts_with(key, "nr_");
}

static void reduce(const struct mon_series *s, struct statset *out)
{
	const char *first, *last, *p;

	mon_average_fields(s, "/proc/vmstat", "proc-vmstat", is_gauge, out);
	if (s->nr < 2)
		return;
	first = mon_file_text(&s->snap[0], "/proc/vmstat");
	last = mon_file_text(&s->snap[s->nr - 1], "/proc/vmstat");
	for (p = last; p && *p;) {
		size_t n = strcspn(p, " \n");
		char *key = xstrndup(p, n);

		if (p[n] == ' ' && !is_gauge(key)) {
			double a = mon_field(first, key);
			double b = strtod(p + n + 1, NULL);

			if (a >= 0) {
				char *name = xstrfmt("proc-vmstat.%s", key);

				statset_set(out, name, b - a);
				free(name);
			}
		}
		free(key);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

const struct monitor_ops monitor_proc_vmstat = {
	.name = "proc-vmstat",
	.files = files,
	.reduce = reduce,
};
