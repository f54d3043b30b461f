// SPDX-License-Identifier: GPL-2.0-only
/*
 * meminfo.*: every /proc/meminfo field (kB), averaged over the snapshots,
 * named as the file names it ("meminfo.Inactive(file)").
 */
#include "robot.h"
#include "monitor.h"

static const char *const files[] = { "/proc/meminfo", NULL };

static void reduce(const struct mon_series *s, struct statset *out)
{
	mon_average_fields(s, "/proc/meminfo", "meminfo", NULL, out);
}

const struct monitor_ops monitor_meminfo = {
	.name = "meminfo",
	.files = files,
	.reduce = reduce,
};
