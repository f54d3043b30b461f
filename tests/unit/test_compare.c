// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>

#include "robot.h"
#include "cmp-load.h"
#include "compare.h"
#include "sbuf.h"

/* ------------------------------------------------------------------ */
/* the value, stddev and change formats (lib/compare.rb show_perf_change) */

Test(compare, value_formats)
{
	static const struct {
		double v;
		const char *out;
	} t[] = {
		{ 7.42, "      7.42" },
		{ 898.76, "    898.76" },
		{ 0, "      0.00" },
		{ 999.994, "    999.99" },
		{ -0.004, "     -0.00" },
		{ 1000, "      1000" }, /* not < 1000: an integer */
		{ 1053.9, "      1053" }, /* truncated, not rounded */
		{ 7089967.8, "   7089967" },
		{ -1053.9, "     -1053" }, /* toward zero */
		{ 100000000, " 100000000" }, /* 1e8 itself stays %d */
		{ 100000001, "     1e+08" },
		{ 425400000, " 4.254e+08" },
		{ 3.268e8, " 3.268e+08" },
		{ -2.148e9, "-2.148e+09" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(t); i++) {
		struct sbuf sb = SBUF_INIT;

		cmp_fmt_value(&sb, t[i].v);
		cr_assert_str_eq(sb.buf, t[i].out, "%g: '%s'", t[i].v, sb.buf);
		sbuf_release(&sb);
	}
}

Test(compare, stddev_formats)
{
	static const struct {
		double avg, sd;
		const char *out;
	} t[] = {
		{ 100, 2, "      " }, /* 2% is not shown */
		{ 100, 2.0001, " \u00b1  2%" }, /* just above: truncated */
		{ 100, 2.99, " \u00b1  2%" },
		{ 100, 3, " \u00b1  3%" },
		{ 100, 44.9, " \u00b1 44%" },
		{ 100, 223.6, " \u00b1223%" },
		{ 1, 12.345, " \u00b11234%" }, /* overflows the width */
		{ 100, -1, "      " }, /* one run: lkp's -1 */
		{ -10, -1, " \u00b1 10%" }, /* lkp: -100 * -1 / 10 > 2 */
		{ -100, 5, "      " }, /* negative mean: negative pct */
		{ 0, 3, " \u00b1  3%" }, /* zero mean: the raw stddev */
		{ 0, 1, "      " },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(t); i++) {
		struct sbuf sb = SBUF_INIT;

		cmp_fmt_stddev(&sb, t[i].avg, t[i].sd);
		cr_assert_str_eq(sb.buf, t[i].out, "case %zu: '%s'", i, sb.buf);
		sbuf_release(&sb);
	}
}

Test(compare, change_formats)
{
	static const struct {
		double p;
		bool abs;
		const char *out;
	} t[] = {
		{ 50.3, false, "     +50.3% " },
		{ -100, false, "    -100.0% " },
		{ 0, false, "      +0.0% " },
		{ 20618.94, false, "  +20618.9% " },
		{ 99999.94, false, "  +99999.9% " },
		{ 100000, false, "    +1e+05% " },
		{ 2e102, false,
		  "   +2e+102% " }, /* 0 -> 2 with the 1e-100 base */
		{ 1.4e102, false, " +1.4e+102% " },
		{ -0.09, true, "      -0.1  " }, /* percentage points */
		{ 0.004, true, "      +0.0  " },
		{ -18.94, true, "     -18.9  " },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(t); i++) {
		struct sbuf sb = SBUF_INIT;

		cmp_fmt_change(&sb, t[i].p, t[i].abs);
		cr_assert_str_eq(sb.buf, t[i].out, "%g: '%s'", t[i].p, sb.buf);
		sbuf_release(&sb);
	}
}

Test(compare, absolute_and_function_stats)
{
	cr_assert(cmp_absolute_change("mpstat.cpu.all.irq%"));
	cr_assert(cmp_absolute_change("turbostat.C1%"));
	cr_assert(cmp_absolute_change("perf-profile.self.cycles-pp.foo"));
	cr_assert(!cmp_absolute_change("stress-ng.mlockmany.ops"));
	cr_assert(cmp_function_stat("dmesg.Mem-Info"));
	cr_assert(cmp_function_stat("stress-ng.sigaction.fail"));
	cr_assert(cmp_function_stat("stress-ng.udp-flood.pass"));
	cr_assert(cmp_function_stat("last_state.is_incomplete_run"));
	cr_assert(!cmp_function_stat("dmesg.timestamp:last"));
	cr_assert(!cmp_function_stat("stress-ng.mlockmany.ops_per_sec"));
	cr_assert(cmp_perf_metric("stress-ng.time.voluntary_context_switches"));
	cr_assert(cmp_perf_metric("perf-stat.i.branch-misses"));
	cr_assert(cmp_perf_metric("vmstat.system.cs"));
	cr_assert(!cmp_perf_metric("vmstat.procs.r"));
	cr_assert(!cmp_perf_metric("mpstat.cpu.all.soft%"));
	cr_assert(!cmp_perf_metric("perf-sched.sch_delay.avg.ms.x"));
}

/* ------------------------------------------------------------------ */
/* building matrices with given means and stddevs */

/*
 * n runs with mean m and population stddev m * pct / 100: n - 1 runs at
 * x and one outlier at y, away from the other commit (below when this
 * side is the lower one). Then every run of the lower side sits below the
 * higher side's middle run and vice versa, so lkp's change rule holds
 * whatever the stddevs: the rows are shown because of their numbers, the
 * format is tested with them.
 */
static void two_point(struct cmp_stat *st, double m, double pct, bool lower,
		      size_t n)
{
	double sd = m * pct / 100;
	double gap = sd * (double)n / sqrt((double)n - 1);
	double x = lower ? m + gap / (double)n : m - gap / (double)n;
	size_t i;

	for (i = 0; i + 1 < n; i++)
		cmp_stat_push(st, x, false);
	cmp_stat_push(st, lower ? x - gap : x + gap, false);
}

struct mail_row {
	const char *name;
	double m0, sd0, m1, sd1; /* means, stddevs in % */
};

/*
 * The rows of the mlockmany mail: means and stddevs chosen (by a search
 * over the rounding intervals) to lie inside every interval that the
 * mail's printed value, stddev and change imply, away from the edges.
 * Unprinted stddevs are 0.2%.
 */
static const struct mail_row mail_rows[] = {
	{ "mpstat.cpu.all.soft%", 0.6605, 5.5, 0.56915, 9.5 },
	{ "vmstat.system.cs", 27183.75, 0.2, 27708.2075, 0.2 },
	{ "stress-ng.mlockmany.ops", 264643.25, 0.2, 278326.7925, 0.2 },
	{ "stress-ng.mlockmany.ops_per_sec", 4406.35, 0.2, 4634.68, 0.2 },
	{ "stress-ng.time.voluntary_context_switches", 314509.4, 0.2,
	  329874.645, 0.2 },
	{ "proc-vmstat.nr_active_anon", 343582.15, 0.2, 330742.8675, 2.5 },
	{ "proc-vmstat.nr_anon_pages", 454064.65, 0.2, 441886.3225, 0.2 },
	{ "proc-vmstat.nr_slab_unreclaimable", 54743.5, 0.2, 52828.4825, 0.2 },
	{ "proc-vmstat.nr_zone_active_anon", 343583.15, 0.2, 330741.8725, 2.5 },
	{ "sched_debug.cfs_rq:/.h_nr_queued.stddev", 1.994, 8.5, 1.71569742,
	  12.5 },
	{ "sched_debug.cfs_rq:/.h_nr_runnable.stddev", 1.9825, 8.5, 1.707428125,
	  12.5 },
	{ "sched_debug.cpu.next_balance.stddev", 0.0005, 18.5, 0.000375975,
	  20.5 },
	{ "sched_debug.cpu.nr_running.stddev", 1.992, 8.5, 1.71758208, 12.5 },
	{ "perf-stat.i.branch-miss-rate%", 0.248, 0.2, 0.252, 0.2 },
	{ "perf-stat.i.branch-misses", 21663531.55, 0.2, 22033919.41, 0.2 },
	{ "perf-stat.i.context-switches", 27855.4, 0.2, 28352.6475, 0.2 },
	{ "perf-stat.overall.branch-miss-rate%", 0.248, 0.2, 0.252, 0.2 },
	{ "perf-stat.ps.branch-misses", 21319615.9, 0.2, 21691011.08, 0.2 },
	{ "perf-stat.ps.context-switches", 27388.9, 0.2, 27866.08, 0.2 },
	{ "perf-sched.sch_delay.avg.ms.__cond_resched.__vmalloc_area_node.__vmalloc_node_range_noprof.alloc_thread_stack_node.dup_task_struct",
	  19.6405, 7.5, 15.969225, 11.5 },
	{ "perf-sched.sch_delay.avg.ms.__cond_resched.down_read.__mm_populate.do_mlock.__x64_sys_mlock",
	  11.337, 8.5, 9.80305, 6.5 },
	{ "perf-sched.sch_delay.avg.ms.__cond_resched.mlock_pte_range.walk_pmd_range.isra.0",
	  17.108, 4.5, 15.701725, 5.5 },
	{ "perf-sched.sch_delay.avg.ms.__cond_resched.wp_page_copy.__handle_mm_fault.handle_mm_fault.do_user_addr_fault",
	  10.5125, 10.5, 14.2575, 15.5 },
	{ "perf-sched.sch_delay.max.ms.irqentry_exit_to_user_mode.asm_exc_page_fault.[unknown].[unknown]",
	  52.7575, 22.5, 36.282725, 18.5 },
	{ "perf-sched.wait_and_delay.avg.ms.__cond_resched.__vmalloc_area_node.__vmalloc_node_range_noprof.alloc_thread_stack_node.dup_task_struct",
	  50.189, 7.5, 36.68135, 45.5 },
	{ "perf-sched.wait_and_delay.avg.ms.__cond_resched.down_read.__mm_populate.do_mlock.__x64_sys_mlock",
	  23.357, 9.5, 20.033075, 6.5 },
	{ "perf-sched.wait_and_delay.avg.ms.__cond_resched.kmem_cache_alloc_noprof.prepare_creds.copy_creds.copy_process",
	  51.0485, 10.5, 33.531225, 45.5 },
	{ "perf-sched.wait_and_delay.count.__cond_resched.copy_page_range.dup_mmap.dup_mm.constprop",
	  245.6735, 6.5, 128.826225, 4.5 },
	{ "perf-sched.wait_and_delay.count.__cond_resched.down_write.anon_vma_clone.anon_vma_fork.dup_mmap",
	  286.832, 7.5, 226.66755, 5.5 },
	{ "perf-sched.wait_and_delay.count.schedule_preempt_disabled.rwsem_down_write_slowpath.down_write.anon_vma_fork",
	  120.6695, 9.5, 160.000575, 8.5 },
	{ "perf-sched.wait_and_delay.max.ms.__cond_resched.copy_page_range.dup_mmap.dup_mm.constprop",
	  225.41, 31.5, 149.440275, 7.5 },
	{ "perf-sched.wait_and_delay.max.ms.__cond_resched.uprobe_start_dup_mmap.dup_mm.constprop.0",
	  77.771, 73.5, 139.218875, 15.5 },
	{ "perf-sched.wait_time.avg.ms.__cond_resched.down_read.__mm_populate.do_mlock.__x64_sys_mlock",
	  12.02, 11.5, 10.22955, 6.5 },
	{ "perf-sched.wait_time.avg.ms.__cond_resched.kmem_cache_alloc_noprof.prepare_creds.copy_creds.copy_process",
	  31.7775, 18.5, 21.6325, 11.5 },
	{ "perf-sched.wait_time.avg.ms.__cond_resched.mlock_pte_range.walk_pmd_range.isra.0",
	  16.57, 5.5, 15.029625, 5.5 },
	{ "perf-sched.wait_time.avg.ms.__cond_resched.mutex_lock_killable.pcpu_alloc_noprof.mm_init.dup_mm",
	  25.2105, 7.5, 28.33905, 6.5 },
	{ "perf-sched.wait_time.avg.ms.__cond_resched.uprobe_start_dup_mmap.dup_mm.constprop.0",
	  24.681, 29.5, 34.309, 15.5 },
	{ "perf-sched.wait_time.max.ms.__cond_resched.copy_page_range.dup_mmap.dup_mm.constprop",
	  207.479, 35.5, 140.0213, 6.5 },
	{ "perf-sched.wait_time.max.ms.__cond_resched.uprobe_start_dup_mmap.dup_mm.constprop.0",
	  70.622, 41.5, 124.0278, 15.5 },
};

static void add_row(struct cmp_matrix *a, struct cmp_matrix *b,
		    const char *name, double m0, double sd0, double m1,
		    double sd1, size_t n)
{
	two_point(cmp_matrix_stat(a, name), m0, sd0, m0 < m1, n);
	two_point(cmp_matrix_stat(b, name), m1, sd1, m1 < m0, n);
}

static void add_const(struct cmp_matrix *m, const char *name, double v,
		      bool is_int, size_t n)
{
	struct cmp_stat *st = cmp_matrix_stat(m, name);
	size_t i;

	for (i = 0; i < n; i++)
		cmp_stat_push(st, v, is_int);
}

#define MAIL_RUNS 12

/*
 * The two commits of the mail, 12 runs each (the table does not show run
 * counts; with one outlier among 12 the middle run stays near the mean,
 * as lkp's 5% median ratio needs for perf-sched rows), plus stats lkp
 * would hide.
 */
static void mail_matrices(struct cmp_matrix *a, struct cmp_matrix *b)
{
	size_t i;

	cmp_matrix_init(a);
	cmp_matrix_init(b);
	a->label = xstrdup("f35ab95ca0af7a27");
	a->title = xstrdup("f35ab95ca0 (\"mm: replace vm_lock and detached "
			   "flag with a reference count\")");
	b->label = xstrdup("6bef4c2f97221f3b595d08c8656eb5845ef80fe9");
	b->title = xstrdup("6bef4c2f97 (\"mm: move lesser used "
			   "vma_area_struct members into the last "
			   "cacheline\")");
	a->has_sources = b->has_sources = true;
	a->sources = b->sources = MAIL_RUNS;
	/* unchanged or filtered: none of these may show */
	add_const(a, "stress-ng.mlockmany.pass", 1, true, MAIL_RUNS);
	add_const(b, "stress-ng.mlockmany.pass", 1, true, MAIL_RUNS);
	add_row(a, b, "vmstat.cpu.us", 40, 0.2, 40.01, 0.2, MAIL_RUNS);
	/* +0.5%: the change rule holds, the 1.01 ratio does not */
	add_row(a, b, "perf-stat.ps.instructions", 1e12, 0.01, 1.005e12, 0.01,
		6);
	/* +10% but 50 objects: below slabinfo's floor of 100 */
	add_row(a, b, "slabinfo.kmalloc-64.active_objs", 500, 0.1, 550, 0.1,
		MAIL_RUNS);
	/* +20% but interrupts need a max above 10000 */
	add_row(a, b, "interrupts.CPU0.LOC.Local_timer_interrupts", 5000, 0.1,
		6000, 0.1, MAIL_RUNS);
	/* +3% of a monitor that is no perf metric: needs 5% */
	add_row(a, b, "mpstat.cpu.all.sys%", 30, 0.1, 30.9, 0.1, MAIL_RUNS);
	/* on the denylist and not on the report allowlist */
	add_row(a, b, "boot-time.boot", 10, 0.1, 20, 0.1, MAIL_RUNS);
	/* a new monitor's stat, missing from the base */
	add_const(b, "stress-ng.mlockmany.new_metric", 5, false, MAIL_RUNS);
	for (i = 0; i < RB_ARRAY_SIZE(mail_rows); i++)
		add_row(a, b, mail_rows[i].name, mail_rows[i].m0,
			mail_rows[i].sd0, mail_rows[i].m1, mail_rows[i].sd1,
			MAIL_RUNS);
}

static const struct cmp_axis mail_axes[] = {
	{ "testcase", "stress-ng" },
	{ "tbox_group", "lkp-icl-2sp7" },
	{ "rootfs", "debian-12-x86_64-20240206.cgz" },
	{ "nr_threads", "100%" },
	{ "test", "mlockmany" },
	{ "testtime", "60s" },
	{ "kconfig", "x86_64-rhel-9.4" },
	{ "compiler", "gcc-12" },
	{ "cpufreq_governor", "performance" },
};

/* the mail copy lost its blanks: trim, collapse runs, drop empty lines */
static char *normalise(const char *text)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p), i;
		bool blank = true, sp = false;
		size_t start = sb.len;

		for (i = 0; i < n; i++) {
			if (p[i] == ' ' || p[i] == '\t') {
				sp = !blank;
				continue;
			}
			if (sp)
				sbuf_addch(&sb, ' ');
			sbuf_addch(&sb, p[i]);
			blank = sp = false;
		}
		if (sb.len > start)
			sbuf_addch(&sb, '\n');
		p += n + (e ? 1 : 0);
	}
	return sbuf_detach(&sb);
}

Test(compare, renders_the_mlockmany_mail)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_opts o;
	struct sbuf out = SBUF_INIT;
	char *mail, *ours, *want;
	size_t len;

	mail_matrices(&a, &b);
	cmp_opts_init(&o);
	o.axes = mail_axes;
	o.naxes = RB_ARRAY_SIZE(mail_axes);
	cr_assert_eq(cmp_render(&out, &o, m, 2), 0);
	cr_assert_eq(rb_read_file("tests/data/compare/mlockmany-mail.txt",
				  &mail, &len),
		     0, "%s", rb_errmsg());
	ours = normalise(out.buf);
	want = normalise(mail);
	cr_assert_str_eq(ours, want, "ours:\n%s", out.buf);
	/* the exact layout of the header lines */
	cr_assert(
		rb_starts_with(
			out.buf,
			"========================================================"
			"=================================\n"
			"compiler/cpufreq_governor/kconfig/nr_threads/rootfs/"
			"tbox_group/test/testcase/testtime:\n"
			"  gcc-12/performance/x86_64-rhel-9.4/100%/"
			"debian-12-x86_64-20240206.cgz/lkp-icl-2sp7/mlockmany/"
			"stress-ng/60s\n"
			"\n"
			"commit: \n"
			"  f35ab95ca0 (\"mm: replace vm_lock and detached flag with "
			"a reference count\")\n"
			"  6bef4c2f97 (\"mm: move lesser used vma_area_struct members "
			"into the last cacheline\")\n"
			"\n"
			"f35ab95ca0af7a27 6bef4c2f97221f3b595d08c8656 \n"
			"---------------- --------------------------- \n"
			"         %stddev     %change         %stddev\n"
			"             \\          |                \\  \n"
			"      0.66 \u00b1  5%      -0.1        0.57 \u00b1  9%  "
			"mpstat.cpu.all.soft%\n"
			"     27183            +1.9%      27708        "
			"vmstat.system.cs\n"),
		"%s", out.buf);
	cr_assert(rb_ends_with(out.buf, "dup_mm.constprop.0\n\n"));
	free(mail);
	free(ours);
	free(want);
	sbuf_release(&out);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

/*
 * Rows copied with their blanks from real mails (lkp-tests.md §3.1):
 * sample sets with those means and stddevs render to exactly them.
 */
Test(compare, rows_from_real_mails_byte_for_byte)
{
	static const struct {
		const char *name;
		double m0, sd0, m1, sd1;
		const char *line;
	} t[] = {
		{ "stress-ng.schedpolicy.ops_per_sec", 7089967.3, 3.4,
		  10657401.6, 6.4,
		  "   7089967 \u00b1  3%     +50.3%   10657401 \u00b1  6%  "
		  "stress-ng.schedpolicy.ops_per_sec\n" },
		{ "mpstat.cpu.all.irq%", 0.7201, 1, 0.5701, 10.5,
		  "      0.72            -0.1        0.57 \u00b1 10%  "
		  "mpstat.cpu.all.irq%\n" },
		{ "stress-ng.schedpolicy.ops", 4.2541e8, 3.4, 6.3951e8, 6.4,
		  " 4.254e+08 \u00b1  3%     +50.3%  6.395e+08 \u00b1  6%  "
		  "stress-ng.schedpolicy.ops\n" },
		{ "stress-ng.time.user_time", 898.758, 2.5, 1053.3, 4.5,
		  "    898.76 \u00b1  2%     +17.2%       1053 \u00b1  4%  "
		  "stress-ng.time.user_time\n" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(t); i++) {
		struct cmp_matrix a, b;
		const struct cmp_matrix *m[] = { &a, &b };
		struct cmp_table tab;
		struct cmp_opts o;
		struct sbuf sb = SBUF_INIT;

		cmp_matrix_init(&a);
		cmp_matrix_init(&b);
		add_row(&a, &b, t[i].name, t[i].m0, t[i].sd0, t[i].m1, t[i].sd1,
			6);
		cmp_opts_init(&o);
		o.all = true;
		cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
		cr_assert_eq(tab.nr, 1);
		cmp_fmt_perf_row(&sb, &tab.rows[0], 2);
		cr_assert_str_eq(sb.buf, t[i].line, "'%s'", sb.buf);
		sbuf_release(&sb);
		cmp_table_release(&tab);
		cmp_matrix_release(&a);
		cmp_matrix_release(&b);
	}
}

/* 0 -> 2: the base of zero is 1e-100; single runs have no stddev */
Test(compare, zero_base_row)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_table tab;
	struct cmp_opts o;
	struct sbuf sb = SBUF_INIT;

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	add_const(&a, "vmstat.procs.b", 0, true, 3);
	add_const(&b, "vmstat.procs.b", 2, true, 3);
	cmp_opts_init(&o);
	o.all = true;
	cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
	cmp_fmt_perf_row(&sb, &tab.rows[0], 2);
	cr_assert_str_eq(sb.buf, "      0.00         +2e+102%       2.00      "
				 "  vmstat.procs.b\n");
	sbuf_release(&sb);
	cmp_table_release(&tab);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

/*
 * The fail:runs section: a dmesg warning in the base's only run, gone
 * in the new one (lkp-tests.md §3.2's row).
 */
Test(compare, failure_section)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_opts o;
	struct sbuf out = SBUF_INIT;
	const char *sec;

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	a.label = xstrdup("aaaaaaaaaaaaaaaaaaaaaaaa");
	b.label = xstrdup("bbbb");
	add_const(&a, "dmesg.Mem-Info", 1, true, 1);
	add_const(&b, "stress-ng.x.ops_per_sec", 7, false, 1);
	cmp_opts_init(&o);
	cr_assert_eq(cmp_render(&out, &o, m, 2), 0);
	sec = strstr(out.buf, "       fail:runs");
	cr_assert_not_null(sec, "%s", out.buf);
	cr_assert_str_eq(sec, "       fail:runs  %reproduction    fail:runs\n"
			      "           |             |             |    \n"
			      "          1:1         -100%            :1     "
			      "dmesg.Mem-Info\n"
			      "\n");
	/* labels: 16 and 27 columns, right-aligned, cut */
	cr_assert(strstr(out.buf, "aaaaaaaaaaaaaaaa                        "
				  "bbbb \n"),
		  "%s", out.buf);
	sbuf_release(&out);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

/* pass/fail rows: a .fail shows only when the base has the .pass */
Test(compare, fail_stats_need_the_base_pass)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_table tab;
	struct cmp_opts o;

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	add_const(&a, "stress-ng.sigaction.pass", 1, true, 3);
	add_const(&b, "stress-ng.sigaction.fail", 1, true, 3);
	add_const(&b, "stress-ng.other.fail", 1, true, 3);
	cmp_opts_init(&o);
	cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
	cr_assert_eq(tab.nr, 1);
	cr_assert_str_eq(tab.rows[0].name, "stress-ng.sigaction.fail");
	cr_assert(tab.rows[0].failure);
	cr_assert_eq(tab.rows[0].fails[1], 3);
	cr_assert(fabs(tab.rows[0].changes[0] - 100) < 1e-12);
	cmp_table_release(&tab);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

/* which rows lkp shows, one rule per case */
Test(compare, row_rules)
{
	static const struct {
		const char *name;
		double m0, sd0, m1, sd1;
		size_t runs;
		bool shown;
	} t[] = {
		{ "stress-ng.x.ops_per_sec", 100, 0.1, 103, 0.1, 6, true },
		/* fewer than 3 runs on both sides */
		{ "stress-ng.x.ops_per_sec", 100, 0.1, 103, 0.1, 2, false },
		/* overlapping samples: the change rule fails */
		{ "stress-ng.x.ops_per_sec", 100, 0.1, 100.05, 0.1, 6, false },
		/* perf metric: 1% is enough, but not 0.9% */
		{ "stress-ng.x.ops_per_sec", 100, 0.01, 101.5, 0.01, 6, true },
		{ "stress-ng.x.ops_per_sec", 100, 0.01, 100.9, 0.01, 6, false },
		/* not a perf metric: more than 5% */
		{ "perf-sched.x.ms.y", 100, 0.01, 104, 0.01, 6, false },
		{ "perf-sched.x.ms.y", 100, 0.01, 106, 0.01, 6, true },
		/* vmstat.system.cs: max >= 100 and delta >= 50 */
		{ "vmstat.system.cs", 1000, 0.01, 1040, 0.01, 6, false },
		{ "vmstat.system.cs", 1000, 0.01, 1060, 0.01, 6, true },
		/* proc-vmstat needs a max above 1000 */
		{ "proc-vmstat.nr_foo", 500, 0.01, 600, 0.01, 6, false },
		{ "proc-vmstat.nr_foo", 5000, 0.01, 6000, 0.01, 6, true },
		/* perf-profile: no magnitude filter */
		{ "perf-profile.self.cycles-pp.foo", 10, 0.01, 10.05, 0.01, 6,
		  true },
		/* denylisted monitor not on the report allowlist */
		{ "uptime.idle", 100, 0.1, 200, 0.1, 6, false },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(t); i++) {
		struct cmp_matrix a, b;
		const struct cmp_matrix *m[] = { &a, &b };
		struct cmp_table tab;
		struct cmp_opts o;

		cmp_matrix_init(&a);
		cmp_matrix_init(&b);
		add_row(&a, &b, t[i].name, t[i].m0, t[i].sd0, t[i].m1, t[i].sd1,
			t[i].runs);
		cmp_opts_init(&o);
		cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
		cr_assert_eq(tab.nr, t[i].shown ? 1u : 0u, "case %zu (%s)", i,
			     t[i].name);
		cmp_table_release(&tab);
		cmp_matrix_release(&a);
		cmp_matrix_release(&b);
	}
}

/* lkp's order: groups with fewer rows first, then by name */
Test(compare, row_order)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_table tab;
	struct cmp_opts o;
	static const char *const want[] = {
		"vmstat.system.cs", "stress-ng.b.ops_per_sec",
		"stress-ng.c.ops_per_sec",
		/* perf-profile sorts on 2 name parts, then the change */
		"perf-profile.children.cycles-pp.z",
		"perf-profile.self.cycles-pp.y", /* -50 */
		"perf-profile.self.cycles-pp.x", /* +10 */
	};
	size_t i;

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	add_row(&a, &b, "stress-ng.c.ops_per_sec", 100, 0.1, 110, 0.1, 6);
	add_row(&a, &b, "perf-profile.self.cycles-pp.x", 10, 0.1, 20, 0.1, 6);
	add_row(&a, &b, "perf-profile.children.cycles-pp.z", 10, 0.1, 20, 0.1,
		6);
	add_row(&a, &b, "vmstat.system.cs", 1000, 0.1, 2000, 0.1, 6);
	add_row(&a, &b, "perf-profile.self.cycles-pp.y", 60, 0.1, 10, 0.1, 6);
	add_row(&a, &b, "stress-ng.b.ops_per_sec", 100, 0.1, 110, 0.1, 6);
	cmp_opts_init(&o);
	cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
	cr_assert_eq(tab.nr, RB_ARRAY_SIZE(want));
	for (i = 0; i < tab.nr; i++)
		cr_assert_str_eq(tab.rows[i].name, want[i], "row %zu", i);
	cmp_table_release(&tab);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

/* three commits side by side: the change columns repeat */
Test(compare, several_commits)
{
	struct cmp_matrix a, b, c;
	const struct cmp_matrix *m[] = { &a, &b, &c };
	struct cmp_opts o;
	struct sbuf out = SBUF_INIT;

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	cmp_matrix_init(&c);
	a.label = xstrdup("1111111111111111111111111111111111111111");
	b.label = xstrdup("2222222222222222222222222222222222222222");
	c.label = xstrdup("3333333333333333333333333333333333333333");
	add_const(&a, "stress-ng.x.ops_per_sec", 100, false, 3);
	add_const(&b, "stress-ng.x.ops_per_sec", 90, false, 3);
	add_const(&c, "stress-ng.x.ops_per_sec", 100, false, 3);
	cmp_opts_init(&o);
	cr_assert_eq(cmp_render(&out, &o, m, 3), 0);
	cr_assert(strstr(out.buf,
			 "1111111111111111 222222222222222222222222222 "
			 "333333333333333333333333333 \n"
			 "---------------- --------------------------- "
			 "--------------------------- \n"
			 "         %stddev     %change         %stddev     "
			 "%change         %stddev\n"
			 "             \\          |                \\         "
			 " |                \\  \n"
			 "    100.00           -10.0%      90.00            "
			 "+0.0%     100.00        stress-ng.x.ops_per_sec\n"),
		  "%s", out.buf);
	sbuf_release(&out);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
	cmp_matrix_release(&c);
}

/* incomplete runs drop out of the perf values */
Test(compare, incomplete_runs_are_left_out)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_table tab;
	struct cmp_opts o;
	struct cmp_stat *s;
	size_t i;

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	a.has_sources = b.has_sources = true;
	a.sources = b.sources = 4;
	add_const(&a, "stress-ng.x.ops_per_sec", 100, false, 4);
	s = cmp_matrix_stat(&b, "stress-ng.x.ops_per_sec");
	for (i = 0; i < 3; i++)
		cmp_stat_push(s, 90, false);
	cmp_stat_push(s, 0, true); /* the run that died */
	s = cmp_matrix_stat(&b, "last_state.is_incomplete_run");
	for (i = 0; i < 4; i++)
		cmp_stat_push(s, i == 3, true);
	cmp_opts_init(&o);
	o.all = true;
	cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
	for (i = 0; i < tab.nr; i++)
		if (!strcmp(tab.rows[i].name, "stress-ng.x.ops_per_sec")) {
			cr_assert_eq(tab.rows[i].avgs[1], 90);
			cr_assert_eq(tab.rows[i].runs[1], 3);
		}
	cmp_table_release(&tab);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

Test(compare, json_output)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_opts o;
	struct sbuf out = SBUF_INIT;
	json_t *root, *rows, *tests;
	json_error_t err;

	mail_matrices(&a, &b);
	cmp_opts_init(&o);
	o.axes = mail_axes;
	o.naxes = RB_ARRAY_SIZE(mail_axes);
	cr_assert_eq(cmp_render_json(&out, &o, m, 2), 0);
	root = json_loads(out.buf, 0, &err);
	cr_assert_not_null(root, "%s", err.text);
	rows = json_object_get(root, "rows");
	cr_assert_eq(json_array_size(rows), RB_ARRAY_SIZE(mail_rows));
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(rows, 0), "stat")),
			 "mpstat.cpu.all.soft%");
	cr_assert(json_is_true(
		json_object_get(json_array_get(rows, 0), "absolute")));
	tests = json_object_get(root, "tests");
	cr_assert_gt(json_array_size(tests), 0);
	cr_assert_str_eq(json_string_value(json_object_get(
				 json_object_get(root, "axes"), "compiler")),
			 "gcc-12");
	json_decref(root);
	sbuf_release(&out);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}

Test(compare, loads_lkp_json)
{
	struct cmp_matrix m;

	cmp_matrix_init(&m);
	cr_assert_eq(cmp_load_json(&m,
				   "{\"a.b\": [1, 2.5, 3], \"s\": [\"x\"], "
				   "\"stats_source\": [\"0\", \"1\", \"2\"]}",
				   "t.json"),
		     0);
	cr_assert_eq(m.nr, 2);
	cr_assert_eq(cmp_matrix_cols(&m), 3);
	cr_assert(m.stats[0].is_int[0]);
	cr_assert(!m.stats[0].is_int[1]);
	cr_assert(m.stats[1].has_string);
	cmp_matrix_release(&m);
	cmp_matrix_init(&m);
	cr_assert_eq(cmp_load_json(&m, "{\"a\": [1,", "bad.json"), -1);
	cr_assert(rb_starts_with(rb_errmsg(), "bad.json:1:"), "%s",
		  rb_errmsg());
	cmp_matrix_release(&m);
}

/*
 * The metric a mail reports is a row of its table even when lkp's rule
 * would hide it (a change inside the noise); in lkp's order otherwise.
 */
Test(compare, kept_metric_is_always_a_row)
{
	struct cmp_matrix a, b;
	const struct cmp_matrix *m[] = { &a, &b };
	struct cmp_table tab;
	struct cmp_opts o;
	const char *keep[] = { "stress-ng.x.usr_sys_ops_per_sec",
			       "stress-ng.x.not_measured" };

	cmp_matrix_init(&a);
	cmp_matrix_init(&b);
	add_row(&a, &b, "vmstat.system.cs", 1000, 0.1, 2000, 0.1, 6);
	add_row(&a, &b, "stress-ng.x.usr_sys_ops_per_sec", 100, 20, 99, 20, 6);
	cmp_opts_init(&o);
	cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
	cr_assert_eq(tab.nr, 1, "lkp's rule hides the noisy row");
	cmp_table_release(&tab);
	o.keep = keep;
	o.nkeep = 2;
	cr_assert_eq(cmp_table_build(&tab, &o, m, 2), 0);
	cr_assert_eq(tab.nr, 2, "the kept one, not the one never measured");
	cr_expect(!strcmp(tab.rows[0].name, keep[0]) ||
		  !strcmp(tab.rows[1].name, keep[0]));
	cmp_table_release(&tab);
	cmp_matrix_release(&a);
	cmp_matrix_release(&b);
}
