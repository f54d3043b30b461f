/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_TEST_REPORT_FIXTURES_H
#define ROBOT_TEST_REPORT_FIXTURES_H

/*
 * Two whole reports, the inputs of the golden mails under
 * tests/data/report/: a regression found by a bisection of tip and an
 * improvement on linus/master (the mlockmany mail 0-Day sent in June 2025,
 * redone with our sections). Clock and message id are fixed.
 */
#include "report.h"

/* tests/data/report/NAME, found from this file's path (make runs at the
 * top) */
static inline char *report_data_path(const char *name)
{
	char *unit = rb_dirname(__FILE__);
	char *tests = rb_dirname(unit);
	char *p = xstrfmt("%s/data/report/%s", tests, name);

	free(unit);
	free(tests);
	return p;
}

static const struct rb_report_param fx_params_resched[] = {
	{ "nr_threads", "100%" },
	{ "testtime", "60s" },
	{ "test", "resched" },
	{ "cpufreq_governor", "performance" },
};

static const struct rb_report_still fx_still[] = {
	{ "linus", "master", "2a6c63d0c8a4f1a2b3c4d5e6f708192a3b4c5d6e" },
	{ "linux-next", "master", "9f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c" },
};

static const struct rb_mail_addr fx_to[] = {
	{ NULL, "perf-reports@lists.example.org" },
};

static const struct rb_mail_addr fx_cc[] = {
	{ NULL, "robot-lab@lists.example.org" },
	{ "Lab Admin", "admin@lab.example.org" },
};

static const struct rb_report_step fx_steps_resched[] = {
	{ "4f1c8a2b9d3e7f6051a2b3c4d5e6f708192a3b4c",
	  "Merge branch 'sched/core'", 7089967.0, 61234.5, 6, "bad" },
	{ "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
	  "sched/deadline: Fix dl_server accounting", 9301122.0, 48210.0, 6,
	  "good" },
	{ "fd03c5b8585562d6a1b2c3d4e5f60718293a4b5c",
	  "sched: Rework pick_next_task()", 9322814.0, 50117.9, 6, "good" },
	{ "d329605287aa77d4b9f1e8a7c6d5e4f3a2b1c0d9",
	  "sched/fair: Use sched_entity's slice for the eligibility check",
	  7051007.0, 70911.2, 6, "bad" },
};

static const struct rb_report_confirm fx_confirm_resched = {
	.parent = { "fd03c5b8585562d6a1b2c3d4e5f60718293a4b5c", 9316250.0,
		    41877.0, 10 },
	.culprit = { "d329605287aa77d4b9f1e8a7c6d5e4f3a2b1c0d9", 7080013.0,
		     52210.4, 10 },
	.rounds = 10,
	.pct = -24.0,
	.p_value = 0.00002,
	.method = "Welch's t-test",
	.ci_lo = -25.1,
	.ci_hi = -22.9,
	.ci_level = 0.95,
	.reproduced = true,
};

static const char fx_table_resched[] =
	"========================================================================================="
	"\n"
	"compiler/cpufreq_governor/kconfig/nr_threads/rootfs/tbox_group/test/testcase/testtime:\n"
	"  gcc-12/performance/x86_64-defconfig/100%/debian-12-x86_64/qemu-2cpu/resched/stress-ng/60s\n"
	"\n"
	"commit: \n"
	"  fd03c5b858 (\"sched: Rework pick_next_task()\")\n"
	"  d329605287 (\"sched/fair: Use sched_entity's slice for the eligibility check\")\n"
	"\n"
	"fd03c5b8585562d6 d329605287aa77d4b9f1e8a7c6d \n"
	"---------------- --------------------------- \n"
	"         %stddev     %change         %stddev\n"
	"             \\          |                \\  \n"
	"   9316250           -24.0%    7080013        stress-ng.resched.ops_per_sec\n"
	"      0.72            -0.1        0.57 \xc2\xb1 10%  mpstat.cpu.all.irq%\n"
	" 5.590e+08           -24.0%  4.248e+08        stress-ng.resched.ops\n"
	"    898.76 \xc2\xb1  2%     +17.2%       1053 \xc2\xb1  4%  stress-ng.time.user_time\n";

static const struct rb_report fx_regression = {
	.tree = "tip",
	.branch = "sched/core",
	.tree_url = "https://git.kernel.org/cgit/linux/kernel/git/tip/tip.git",
	.sha = "d329605287aa77d4b9f1e8a7c6d5e4f3a2b1c0d9",
	.subject = "sched/fair: Use sched_entity's slice for the eligibility "
		   "check",
	.author = { "Zoë Maintainer", "zoe@example.org" },
	.committer = { "Peter Committer", "peter@example.org" },
	.kind = RB_REPORT_REGRESSION,
	.stat = "stress-ng.resched.ops_per_sec",
	.pct = -24.0,
	.still = fx_still,
	.still_nr = RB_ARRAY_SIZE(fx_still),
	.testcase = "stress-ng",
	.config = "x86_64-defconfig",
	.compiler = "gcc-12",
	.machine = "2 threads QEMU Virtual CPU version 2.5+ with 4G memory",
	.params = fx_params_resched,
	.params_nr = RB_ARRAY_SIZE(fx_params_resched),
	.from = { "kernel test robot", "robot@lab.example.org" },
	.to = fx_to,
	.to_nr = RB_ARRAY_SIZE(fx_to),
	.cc = fx_cc,
	.cc_nr = RB_ARRAY_SIZE(fx_cc),
	.archive_url = "https://lab.example.org/archive/",
	.date = 1718030325, /* 2024-06-10 14:38:45 UTC */
	.tz_minutes = 120,
	.message_id = "<202406101638.5eed1e55-robot@lab.example.org>",
	.table = fx_table_resched,
	.spread_kind = RB_SPREAD_CI,
	.ci_level = 0.95,
	.steps = fx_steps_resched,
	.steps_nr = RB_ARRAY_SIZE(fx_steps_resched),
	.confirm = &fx_confirm_resched,
	.confidence = 0.99,
	.confidence_note =
		"10 of 10 interleaved rounds put the culprit below its parent; "
		"the bisection's steps agree with the final verdict.",
	.reproduce = "sysctl -w kernel.sched_autogroup_enabled=0\n"
		     "stress-ng --timeout 60 --times --verify --metrics "
		     "--no-rand-seed --resched 2",
};

static const struct rb_report_param fx_params_mlock[] = {
	{ "nr_threads", "100%" },
	{ "testtime", "60s" },
	{ "test", "mlockmany" },
	{ "cpufreq_governor", "performance" },
};

static const struct rb_mail_addr fx_cc_mlock[] = {
	{ NULL, "oe-lkp@lists.example.org" },
	{ "Vlastimil Babka", "vbabka@example.org" },
	{ "Paul E . McKenney", "paulmck@example.org" },
	/* the author again: not repeated */
	{ "Suren Baghdasaryan", "surenb@example.org" },
};

static const struct rb_report_step fx_steps_mlock[] = {
	{ "f35ab95ca0af7a27b1c2d3e4f5a6b7c8d9e0f1a2",
	  "mm: replace vm_lock and detached flag with a reference count",
	  4406.21, -1, 1, "good" },
	{ "6bef4c2f97221f3b595d08c8656eb5845ef80fe9",
	  "mm: move lesser used vma_area_struct members into the last "
	  "cacheline",
	  4634.02, -1, 1, "bad" },
};

static const char fx_table_mlock[] =
	"========================================================================================="
	"\n"
	"compiler/cpufreq_governor/kconfig/nr_threads/rootfs/tbox_group/test/testcase/testtime:\n"
	"  gcc-12/performance/x86_64-rhel-9.4/100%/debian-12-x86_64-20240206.cgz/lkp-icl-2sp7/mlockmany/stress-ng/60s\n"
	"\n"
	"commit: \n"
	"  f35ab95ca0 (\"mm: replace vm_lock and detached flag with a reference count\")\n"
	"  6bef4c2f97 (\"mm: move lesser used vma_area_struct members into the last cacheline\")\n"
	"\n"
	"f35ab95ca0af7a27 6bef4c2f97221f3b595d08c8656 \n"
	"---------------- --------------------------- \n"
	"         %stddev     %change         %stddev\n"
	"             \\          |                \\  \n"
	"      0.66 \xc2\xb1  5%      -0.1        0.57 \xc2\xb1  9%  mpstat.cpu.all.soft%\n"
	"     27183            +1.9%      27708        vmstat.system.cs\n"
	"    264643            +5.2%     278326        stress-ng.mlockmany.ops\n"
	"      4406            +5.2%       4634        stress-ng.mlockmany.ops_per_sec\n";

static const struct rb_report fx_improvement = {
	.tree = "linus",
	.branch = "master",
	.tree_url = "https://git.kernel.org/cgit/linux/kernel/git/torvalds/"
		    "linux.git",
	.sha = "6bef4c2f97221f3b595d08c8656eb5845ef80fe9",
	.subject = "mm: move lesser used vma_area_struct members into the "
		   "last cacheline",
	.author = { "Suren Baghdasaryan", "surenb@example.org" },
	.committer = { "Andrew Morton", "akpm@example.org" },
	.kind = RB_REPORT_IMPROVEMENT,
	.stat = "stress-ng.mlockmany.ops_per_sec",
	.pct = 5.2,
	.testcase = "stress-ng",
	.config = "x86_64-rhel-9.4",
	.compiler = "gcc-12",
	.machine = "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ "
		   "3.10GHz (Ice Lake) with 256G memory",
	.params = fx_params_mlock,
	.params_nr = RB_ARRAY_SIZE(fx_params_mlock),
	.from = { "kernel test robot", "robot@lab.example.org" },
	.cc = fx_cc_mlock,
	.cc_nr = RB_ARRAY_SIZE(fx_cc_mlock),
	.archive_url = "https://lab.example.org/archive",
	.materials_url = "https://lab.example.org/materials/20250610/"
			 "202506102254.13cda0af-robot@lab.example.org",
	.signature = "The robot lab\nhttps://lab.example.org/",
	.date = 1749566325, /* 2025-06-10 14:38:45 UTC */
	.tz_minutes = 480,
	.message_id = "<202506102254.13cda0af-robot@lab.example.org>",
	.table = fx_table_mlock,
	.spread_kind = RB_SPREAD_STDDEV,
	.steps = fx_steps_mlock,
	.steps_nr = RB_ARRAY_SIZE(fx_steps_mlock),
	.confidence = -1,
	.reproduce = "stress-ng --timeout 60 --times --verify --metrics "
		     "--no-rand-seed --mlockmany 64",
};

#endif
