// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpstat.cpu.all.*%: the all-CPU line of `mpstat 1`, from the "cpu" line of
 * /proc/stat: per interval, each field's share of the elapsed jiffies, then
 * averaged. As mpstat does, guest time is taken out of usr (and guest_nice
 * out of nice), since the kernel counts it in both.
 */
#include "robot.h"
#include "monitor.h"

static const char *const files[] = { "/proc/stat", NULL };

static void reduce(const struct mon_series *s, struct statset *out)
{
	static const char *const names[CPU_NR] = {
		"mpstat.cpu.all.usr%",	  "mpstat.cpu.all.nice%",
		"mpstat.cpu.all.sys%",	  "mpstat.cpu.all.idle%",
		"mpstat.cpu.all.iowait%", "mpstat.cpu.all.irq%",
		"mpstat.cpu.all.soft%",	  "mpstat.cpu.all.steal%",
		"mpstat.cpu.all.guest%",  "mpstat.cpu.all.gnice%",
	};
	double sum[CPU_NR] = { 0 };
	size_t i, n = 0;
	int k;

	for (i = 1; i < s->nr; i++) {
		double a[CPU_NR], b[CPU_NR], d[CPU_NR], tot = 0;

		if (mon_cpu_jiffies(
			    mon_file_text(&s->snap[i - 1], "/proc/stat"), a) <
			    0 ||
		    mon_cpu_jiffies(mon_file_text(&s->snap[i], "/proc/stat"),
				    b) < 0)
			continue;
		for (k = 0; k < CPU_NR; k++)
			d[k] = b[k] - a[k];
		d[CPU_USER] -= d[CPU_GUEST];
		d[CPU_NICE] -= d[CPU_GNICE];
		for (k = 0; k < CPU_NR; k++)
			tot += d[k];
		if (tot <= 0)
			continue;
		for (k = 0; k < CPU_NR; k++)
			sum[k] += 100 * d[k] / tot;
		n++;
	}
	if (!n)
		return;
	for (k = 0; k < CPU_NR; k++)
		statset_set(out, names[k], sum[k] / (double)n);
}

const struct monitor_ops monitor_mpstat = {
	.name = "mpstat",
	.files = files,
	.reduce = reduce,
};
