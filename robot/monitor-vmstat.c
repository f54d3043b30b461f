// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmstat.*: what `vmstat 1` prints, computed from /proc (busybox has no
 * vmstat): gauges averaged over the snapshots, rates and CPU shares per
 * interval and then averaged, as lkp averages vmstat's rows.
 */
#include "robot.h"
#include "monitor.h"

static const char *const files[] = { "/proc/stat", "/proc/vmstat",
				     "/proc/meminfo", NULL };

static double stat_field(const char *stat, const char *key)
{
	/* "intr N ..." and "ctxt N": the first number after the key */
	return mon_field(stat, key);
}

static void reduce(const struct mon_series *s, struct statset *out)
{
	static const char *const gauges[] = {
		"vmstat.procs.r",     "vmstat.procs.b",
		"vmstat.memory.swpd", "vmstat.memory.free",
		"vmstat.memory.buff", "vmstat.memory.cache",
	};
	static const char *const rates[] = {
		"vmstat.swap.si", "vmstat.swap.so",   "vmstat.io.bi",
		"vmstat.io.bo",	  "vmstat.system.in", "vmstat.system.cs",
		"vmstat.cpu.us",  "vmstat.cpu.sy",    "vmstat.cpu.id",
		"vmstat.cpu.wa",  "vmstat.cpu.st",
	};
	double g[RB_ARRAY_SIZE(gauges)] = { 0 };
	double r[RB_ARRAY_SIZE(rates)] = { 0 };
	size_t i, k, ng = 0, nr = 0;

	for (i = 0; i < s->nr; i++) {
		const struct mon_snapshot *c = &s->snap[i];
		const char *st = mon_file_text(c, "/proc/stat");
		const char *vm = mon_file_text(c, "/proc/vmstat");
		const char *mi = mon_file_text(c, "/proc/meminfo");
		double running;

		if (!st || !vm || !mi)
			continue;
		/* the sampler's own `cat` is one of the running tasks */
		running = stat_field(st, "procs_running") - 1;
		g[0] += running > 0 ? running : 0;
		g[1] += stat_field(st, "procs_blocked");
		g[2] += mon_field(mi, "SwapTotal") - mon_field(mi, "SwapFree");
		g[3] += mon_field(mi, "MemFree");
		g[4] += mon_field(mi, "Buffers");
		g[5] += mon_field(mi, "Cached") +
			RB_MAX(mon_field(mi, "SReclaimable"), 0);
		ng++;
	}
	for (i = 1; i < s->nr; i++) {
		const struct mon_snapshot *a = &s->snap[i - 1],
					  *b = &s->snap[i];
		const char *sa = mon_file_text(a, "/proc/stat");
		const char *sb = mon_file_text(b, "/proc/stat");
		const char *va = mon_file_text(a, "/proc/vmstat");
		const char *vb = mon_file_text(b, "/proc/vmstat");
		double dt = b->uptime - a->uptime, ca[CPU_NR], cb[CPU_NR];
		double d[CPU_NR], tot = 0;
		double kb_per_page = 4; /* pswp* count pages; 4 KiB on x86 */

		if (dt <= 0 || !va || !vb || mon_cpu_jiffies(sa, ca) < 0 ||
		    mon_cpu_jiffies(sb, cb) < 0)
			continue;
		for (k = 0; k < CPU_STEAL + 1; k++) {
			d[k] = cb[k] - ca[k];
			tot += d[k];
		}
		r[0] += (mon_field(vb, "pswpin") - mon_field(va, "pswpin")) *
			kb_per_page / dt;
		r[1] += (mon_field(vb, "pswpout") - mon_field(va, "pswpout")) *
			kb_per_page / dt;
		r[2] += (mon_field(vb, "pgpgin") - mon_field(va, "pgpgin")) /
			dt;
		r[3] += (mon_field(vb, "pgpgout") - mon_field(va, "pgpgout")) /
			dt;
		r[4] += (stat_field(sb, "intr") - stat_field(sa, "intr")) / dt;
		r[5] += (stat_field(sb, "ctxt") - stat_field(sa, "ctxt")) / dt;
		if (tot > 0) {
			r[6] += 100 * (d[0] + d[1]) / tot;
			r[7] += 100 * (d[2] + d[5] + d[6]) / tot;
			r[8] += 100 * d[3] / tot;
			r[9] += 100 * d[4] / tot;
			r[10] += 100 * d[7] / tot;
		}
		nr++;
	}
	if (ng)
		for (k = 0; k < RB_ARRAY_SIZE(gauges); k++)
			statset_set(out, gauges[k], g[k] / (double)ng);
	if (nr)
		for (k = 0; k < RB_ARRAY_SIZE(rates); k++)
			statset_set(out, rates[k], r[k] / (double)nr);
}

const struct monitor_ops monitor_vmstat = {
	.name = "vmstat",
	.files = files,
	.reduce = reduce,
};
