// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>

#include "robot.h"
#include "job.h"
#include "sbuf.h"
#include "svec.h"

static void load(struct job_list *l, const char *text)
{
	int r = job_load_string(l, "t.yaml", text, strlen(text));

	cr_assert_eq(r, 0, "load failed: %s", rb_errmsg());
}

static const char *path_of(const struct job_list *l, size_t i)
{
	cr_assert_lt(i, l->nr);
	return l->v[i]->path_params;
}

Test(job, single_document_fields)
{
	struct job_list l = JOB_LIST_INIT;
	const struct job *j;

	load(&l, "suite: stress-ng\n"
		 "testcase: stress-ng\n"
		 "category: benchmark\n"
		 "nr_threads: 100%\n"
		 "testtime: 60s\n"
		 "cpufreq_governor: performance\n"
		 "kconfig: x86_64-rhel-8.3\n"
		 "compiler: gcc-12\n"
		 "rootfs: debian-12-x86_64.cgz\n"
		 "tbox_group: box\n"
		 "commit: v6.9-rc1~3\n"
		 "stress-ng:\n"
		 "  test: mmaprandom\n");
	cr_assert_eq(l.nr, 1);
	j = l.v[0];
	cr_expect_str_eq(j->file, "t.yaml");
	cr_expect_str_eq(j->origin, "t.yaml");
	cr_expect_eq(j->doc, 1);
	cr_expect_str_eq(j->suite, "stress-ng");
	cr_expect_str_eq(j->testcase, "stress-ng");
	cr_expect_str_eq(j->category, "benchmark");
	cr_expect_str_eq(j->payload, "stress-ng");
	cr_expect_str_eq(j->test, "mmaprandom");
	cr_expect_str_eq(j->nr_threads_text, "100%");
	cr_expect_eq(j->nr_threads, -1, "not resolved before job_resolve");
	cr_expect_str_eq(j->testtime_text, "60s");
	cr_expect_eq(j->testtime, 60);
	cr_expect_str_eq(j->cpufreq_governor, "performance");
	cr_expect_str_eq(j->kconfig, "x86_64-rhel-8.3");
	cr_expect_str_eq(j->compiler, "gcc-12");
	cr_expect_str_eq(j->rootfs, "debian-12-x86_64.cgz");
	cr_expect_str_eq(j->tbox_group, "box");
	cr_expect_str_eq(j->commit, "v6.9-rc1~3");
	cr_expect_str_eq(j->path_params, "performance-100%-mmaprandom-60s");
	cr_expect_eq(j->extra->nr, 0);
	job_list_release(&l);
}

Test(job, multi_document_override)
{
	struct job_list l = JOB_LIST_INIT;

	/* the second document replaces nr_threads and the whole stress-ng
	 * section (its test list is not added to), keeps testtime */
	load(&l, "nr_threads: 100%\n"
		 "testtime: 60s\n"
		 "stress-ng:\n"
		 "  test:\n"
		 "    - mmap\n"
		 "    - mmapaddr\n"
		 "  mmap-bytes: 4M\n"
		 "---\n"
		 "nr_threads: 50%\n"
		 "need_memory: 2G\n"
		 "stress-ng:\n"
		 "  test: bigheap\n");
	cr_assert_eq(l.nr, 3);
	cr_expect_str_eq(l.v[0]->test, "mmap");
	cr_expect_str_eq(l.v[0]->nr_threads_text, "100%");
	cr_expect_str_eq(kvlist_get(&l.v[0]->opts, "mmap-bytes"), "4M");
	cr_expect_str_eq(l.v[1]->test, "mmapaddr");
	cr_expect_eq(l.v[0]->doc, 1);
	cr_expect_str_eq(l.v[2]->test, "bigheap");
	cr_expect_eq(l.v[2]->doc, 2);
	cr_expect_str_eq(l.v[2]->nr_threads_text, "50%");
	cr_expect_str_eq(l.v[2]->testtime_text, "60s");
	cr_expect_null(kvlist_get(&l.v[2]->opts, "mmap-bytes"));
	cr_expect_eq(l.v[2]->extra->nr, 1);
	cr_expect_str_eq(l.v[2]->extra->keys[0]->str, "need_memory");
	cr_expect_eq(l.v[0]->extra->nr, 0);
	cr_expect_str_eq(path_of(&l, 2), "50%-bigheap-60s");
	job_list_release(&l);
}

Test(job, first_document_without_payload_is_common_part)
{
	struct job_list l = JOB_LIST_INIT;

	load(&l, "testtime: 5m\n"
		 "---\n"
		 "stress-ng: {test: mmap}\n"
		 "---\n"
		 "stress-ng: {test: bigheap}\n"
		 "---\n");
	cr_assert_eq(l.nr, 2);
	cr_expect_str_eq(path_of(&l, 0), "mmap-5m");
	cr_expect_str_eq(path_of(&l, 1), "bigheap-5m");
	cr_expect_eq(l.v[1]->testtime, 300);
	job_list_release(&l);
}

/*
 * lkp's stress-ng-network.yaml shape: 17 tests in the first document,
 * 3 tests x 3 types in the second: 17 + 9 = 26 atomic jobs.
 */
Test(job, seventeen_plus_three_by_three_is_26)
{
	static const char *const tests[17] = {
		"dccp",		"epoll",     "icmp-flood", "netdev",
		"netlink-proc", "ping-sock", "rawdev",	   "rawsock",
		"rawudp",	"sctp",	     "sockabuse",  "sockdiag",
		"sockfd",	"sockmany",  "udp",	   "udp-flood",
		"tun",
	};
	static const char *const second[9][2] = {
		{ "sock", "dgram" },	     { "sock", "seqpacket" },
		{ "sock", "stream" },	     { "sockmany", "dgram" },
		{ "sockmany", "seqpacket" }, { "sockmany", "stream" },
		{ "sockpair", "dgram" },     { "sockpair", "seqpacket" },
		{ "sockpair", "stream" },
	};
	struct job_list l = JOB_LIST_INIT;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	sbuf_addstr(&sb, "suite: stress-ng\ntestcase: stress-ng\n"
			 "category: benchmark\n\nnr_threads: 100%\n\n"
			 "testtime:\n  - 60s\n\nstress-ng:\n  test:\n");
	for (i = 0; i < 17; i++)
		sbuf_addf(&sb, "    - %s\n", tests[i]);
	sbuf_addstr(&sb, "\n---\nstress-ng:\n  test:\n    - sock\n"
			 "    - sockmany\n    - sockpair\n  type:\n"
			 "    - dgram\n    - seqpacket\n    - stream\n");
	load(&l, sb.buf);
	cr_assert_eq(l.nr, 26);
	for (i = 0; i < 17; i++) {
		cr_expect_str_eq(l.v[i]->test, tests[i]);
		cr_expect_null(kvlist_get(&l.v[i]->opts, "type"));
		cr_expect_str_eq(l.v[i]->testtime_text, "60s");
	}
	for (i = 0; i < 9; i++) {
		const struct job *j = l.v[17 + i];

		cr_expect_str_eq(j->test, second[i][0]);
		cr_expect_str_eq(kvlist_get(&j->opts, "type"), second[i][1]);
		cr_expect_eq(j->doc, 2);
	}
	cr_expect_str_eq(path_of(&l, 0), "100%-dccp-60s");
	cr_expect_str_eq(path_of(&l, 25), "100%-sockpair-60s-stream");
	sbuf_release(&sb);
	job_list_release(&l);
}

Test(job, axes_expand_other_lists_stay)
{
	struct job_list l = JOB_LIST_INIT;
	const struct ynode *fs;

	load(&l, "kconfig: [x86_64-rhel, x86_64-min]\n"
		 "compiler: [gcc-12, clang-14]\n"
		 "commit: [v6.8, v6.9]\n"
		 "tags: [ext4, xfs]\n"
		 "need_kconfig:\n  - KASAN: n\n"
		 "stress-ng: {test: mmap, class: [vm, memory]}\n");
	cr_assert_eq(l.nr, 16);
	cr_expect_str_eq(l.v[0]->kconfig, "x86_64-rhel");
	cr_expect_str_eq(l.v[0]->compiler, "gcc-12");
	cr_expect_str_eq(l.v[0]->commit, "v6.8");
	cr_expect_str_eq(kvlist_get(&l.v[0]->opts, "class"), "vm");
	cr_expect_str_eq(kvlist_get(&l.v[1]->opts, "class"), "memory");
	cr_expect_str_eq(l.v[2]->commit, "v6.9");
	cr_expect_str_eq(l.v[15]->kconfig, "x86_64-min");
	cr_expect_str_eq(l.v[15]->compiler, "clang-14");
	/* axes are not path params */
	cr_expect_str_eq(path_of(&l, 15), "memory-mmap");
	fs = ynode_map_get(l.v[0]->extra, "tags");
	cr_assert_not_null(fs);
	cr_expect_eq(fs->kind, YNODE_SEQ);
	cr_expect_eq(fs->nr, 2);
	job_list_release(&l);
}

Test(job, nr_threads_resolution)
{
	static const struct {
		const char *text;
		long nr_cpu, want;
	} cases[] = {
		{ "100%", 2, 2 }, { "100%", 8, 8 },  { "100%", 64, 64 },
		{ "50%", 2, 1 },  { "50%", 8, 4 },   { "50%", 64, 32 },
		{ "10%", 2, 0 },  { "10%", 8, 0 },   { "10%", 64, 6 },
		{ "200%", 2, 4 }, { "12.5%", 8, 1 }, { "3", 64, 3 },
		{ "0", 8, 0 },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct job_list l = JOB_LIST_INIT;
		char *text =
			xstrfmt("nr_threads: %s\nstress-ng: {test: mmap}\n",
				cases[i].text);
		int r;

		load(&l, text);
		r = job_resolve(l.v[0], cases[i].nr_cpu);
		cr_expect_eq(l.v[0]->nr_threads, cases[i].want,
			     "%s of %ld cpus: got %ld, want %ld", cases[i].text,
			     cases[i].nr_cpu, l.v[0]->nr_threads,
			     cases[i].want);
		cr_expect_eq(r, cases[i].want ? 0 : 1);
		cr_expect_eq(l.v[0]->nr_cpu, cases[i].nr_cpu);
		free(text);
		job_list_release(&l);
	}
}

/*
 * A percentage is refused when the job is read only if no host could run
 * it: 409699.999% is 4096 instances on one CPU (read, refused for two
 * CPUs when resolved), 409700% is 4097 (errors_with_line_and_column).
 */
Test(job, nr_threads_the_most_one_cpu_runs)
{
	static const char text[] =
		"nr_threads: 409699.999%\nstress-ng: {test: mmap}\n";
	struct job_list l = JOB_LIST_INIT;

	load(&l, text);
	cr_expect_eq(job_resolve(l.v[0], 1), 0, "%s", rb_errmsg());
	cr_expect_eq(l.v[0]->nr_threads, 4096);
	cr_expect_eq(job_resolve(l.v[0], 2), -1);
	cr_expect_str_eq(rb_errmsg(),
			 "t.yaml:1:13: nr_threads '409699.999%' of 2 cpus is "
			 "8193, more than 4096, the most instances stress-ng "
			 "runs");
	job_list_release(&l);
}

Test(job, zero_threads_dropped_with_notice)
{
	struct job_list l = JOB_LIST_INIT;
	struct svec notices = SVEC_INIT;

	load(&l, "nr_threads: [100%, 10%]\nstress-ng: {test: mmap}\n");
	cr_assert_eq(l.nr, 2);
	cr_assert_eq(job_list_resolve(&l, 2, &notices), 1);
	cr_assert_eq(l.nr, 1);
	cr_expect_str_eq(l.v[0]->nr_threads_text, "100%");
	cr_expect_eq(l.v[0]->nr_threads, 2);
	cr_assert_eq(notices.nr, 1);
	cr_expect_str_eq(notices.v[0],
			 "dropping 'stress-ng/10%-mmap' from 't.yaml': "
			 "nr_threads 10% of 2 cpus is 0");
	svec_clear(&notices);
	cr_expect_eq(job_list_resolve(&l, 0, NULL), -1);
	job_list_release(&l);
}

Test(job, no_nr_threads_means_one)
{
	struct job_list l = JOB_LIST_INIT;

	load(&l, "stress-ng: {test: mmap}\n");
	cr_expect_eq(job_resolve(l.v[0], 8), 0);
	cr_expect_eq(l.v[0]->nr_threads, 1);
	cr_expect_null(l.v[0]->testtime_text);
	cr_expect_eq(l.v[0]->testtime, 60);
	job_list_release(&l);
}

Test(job, testtime_forms)
{
	static const struct {
		const char *text;
		long secs;
	} cases[] = {
		{ "60s", 60 }, { "5m", 300 },	{ "1h", 3600 },
		{ "90", 90 },  { "1d", 86400 }, { "'45'", 45 },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct job_list l = JOB_LIST_INIT;
		char *text = xstrfmt("testtime: %s\nstress-ng: {test: mmap}\n",
				     cases[i].text);

		load(&l, text);
		cr_expect_eq(l.v[0]->testtime, cases[i].secs, "%s",
			     cases[i].text);
		free(text);
		job_list_release(&l);
	}
}

Test(job, path_params)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "nr_threads: 100%\ntesttime: 60s\ncpufreq_governor: "
		  "performance\nstress-ng:\n  test: mmaprandom\n",
		  "performance-100%-mmaprandom-60s" },
		/* sorted by key whatever the order in the file */
		{ "stress-ng: {test: schedpolicy}\ntesttime: 60s\n"
		  "cpufreq_governor: performance\nnr_threads: 100%\n",
		  "performance-100%-schedpolicy-60s" },
		/* pass-through options as key=value, odd characters as _ */
		{ "stress-ng: {test: hdd, hdd-opts: wr-seq/rd-rnd, hdd-bytes: 1G}\n",
		  "hdd-bytes=1G-hdd-opts=wr-seq_rd-rnd-hdd" },
		/* values keep their first 31 characters */
		{ "stress-ng: {test: abcdefghijklmnopqrstuvwxyz0123456789}\n",
		  "abcdefghijklmnopqrstuvwxyz01234" },
		{ "stress-ng: {test: mmap, method: all}\nkconfig: k\n",
		  "all-mmap" },
		/* a flag without value */
		{ "stress-ng: {test: mmap, mmap-odirect: }\n",
		  "mmap-odirect-mmap" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct job_list l = JOB_LIST_INIT;

		load(&l, cases[i].yaml);
		cr_expect_str_eq(path_of(&l, 0), cases[i].want, "case %zu", i);
		job_list_release(&l);
	}
}

Test(job, params_in_job_order)
{
	struct job_list l = JOB_LIST_INIT;
	const struct kvlist *p;

	load(&l, "nr_threads: 100%\n"
		 "testtime: 60s\n"
		 "stress-ng:\n"
		 "  test: mmaprandom\n"
		 "  mmap-bytes: 1M\n"
		 "cpufreq_governor: performance\n");
	p = &l.v[0]->params;
	cr_assert_eq(p->nr, 5);
	cr_expect_str_eq(p->v[0].key, "nr_threads");
	cr_expect_str_eq(p->v[0].val, "100%");
	cr_expect_str_eq(p->v[1].key, "testtime");
	cr_expect_str_eq(p->v[2].key, "test");
	cr_expect_str_eq(p->v[2].val, "mmaprandom");
	cr_expect_str_eq(p->v[3].key, "mmap-bytes");
	cr_expect(!p->v[3].declared);
	cr_expect_str_eq(p->v[4].key, "cpufreq_governor");
	cr_expect_str_eq(l.v[0]->path_params,
			 "performance-mmap-bytes=1M-100%-mmaprandom-60s");
	/* the payload options, declared and pass-through, in order */
	cr_assert_eq(l.v[0]->opts.nr, 2);
	cr_expect(l.v[0]->opts.v[0].declared);
	cr_expect_str_eq(l.v[0]->opts.v[1].key, "mmap-bytes");
	job_list_release(&l);
}

static void expect_error(const char *yaml, const char *want)
{
	struct job_list l = JOB_LIST_INIT;

	rb_error_clear();
	cr_expect_eq(job_load_string(&l, "t.yaml", yaml, strlen(yaml)), -1,
		     "loaded: %s", yaml);
	cr_expect_str_eq(rb_errmsg(), want, "for: %s", yaml);
	cr_expect_eq(l.nr, 0);
	job_list_release(&l);
}

Test(job, errors_with_line_and_column)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "stress-ng:\n  test: mmap\n   bad: x\n",
		  "t.yaml:3:7: malformed yaml: mapping values are not allowed "
		  "in this context" },
		{ "stress-ng:\n  test: [mmap\n",
		  "t.yaml:3:1: malformed yaml: did not find expected ',' or "
		  "']' while parsing a flow sequence (from line 2)" },
		{ "testtime: {a: 1}\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: 'testtime' must be a scalar, not a mapping" },
		{ "stress-ng: [mmap]\n",
		  "t.yaml:1:12: 'stress-ng' must be a mapping of its options, "
		  "not a list" },
		{ "stress-ng:\n  test: Mmap\n",
		  "t.yaml:2:9: test name 'Mmap' is not [a-z0-9-]+" },
		{ "stress-ng:\n  test: 'mmap; touch /tmp/owned'\n",
		  "t.yaml:2:9: test name 'mmap; touch /tmp/owned' is not "
		  "[a-z0-9-]+" },
		{ "stress-ng:\n  test:\n    - mmap\n    - $(reboot)\n",
		  "t.yaml:4:7: test name '$(reboot)' is not [a-z0-9-]+" },
		{ "stress-ng:\n  test: [mmap, {a: b}]\n",
		  "t.yaml:2:16: 'stress-ng.test' must be a scalar, not a "
		  "mapping" },
		{ "testtime: -5s\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: testtime '-5s' is negative" },
		{ "testtime: soon\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: testtime 'soon' is not a time (60s, 5m, 1h, "
		  "1d or seconds)" },
		{ "testtime: 1.5m\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: testtime '1.5m' is not a time (60s, 5m, 1h, "
		  "1d or seconds)" },
		{ "testtime: \"1\\n2\"\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: testtime '1\\n2' is not a time (60s, 5m, 1h, "
		  "1d or seconds)" },
		{ "testtime: 0\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: testtime '0' must be at least 1s" },
		{ "nr_threads: -1\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: nr_threads '-1' is negative" },
		{ "nr_threads: lots\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: nr_threads 'lots' is not a count or a "
		  "percentage of the CPUs (4 or 100%)" },
		{ "cpufreq_governor: turbo\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:19: 'cpufreq_governor' must be one of performance, "
		  "powersave, ondemand, conservative, schedutil, userspace, '', "
		  "not 'turbo'" },
		{ "stress-ng:\n  test: mmap\n  mmap-bytes: 1M; reboot\n",
		  "t.yaml:3:15: '1M; reboot' may hold only letters, digits "
		  "and '._,+:=%/@-', not ';'" },
		{ "stress-ng:\n  test: mmap\n  Mmap-Bytes: 1M\n",
		  "t.yaml:3:3: option name 'Mmap-Bytes' of 'stress-ng' must "
		  "start with a lowercase letter or a digit" },
		{ "stress-ng:\n  test: mmap\n  method: 'a`id`'\n",
		  "t.yaml:3:11: 'a`id`' may hold only letters, digits and "
		  "'._,+:=%/@-', not '`'" },
		{ "kconfig: 'a b'\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:10: 'a b' may hold only letters, digits and "
		  "'._,+:=%/@-', not ' '" },
		{ "commit: --all\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:9: commit '--all' must not start with '-'" },
		{ "stress-ng:\n  test: mmap\n  test+: bigheap\n",
		  "t.yaml:3:3: 'test+': lkp applies 'key+:' at the top level "
		  "only; write it there as '<section>.test+:'" },
		{ "stress-ng:\n  test: mmap\n  vm.bytes: 1\n",
		  "t.yaml:3:3: 'vm.bytes': dotted keys work at the top level "
		  "only" },
		{ "testtime: 5\nstress-ng: {test: mmap}\ntesttime.x: 1\n",
		  "t.yaml:3:1: 'testtime.x': 'testtime' is a scalar, not a "
		  "mapping" },
		{ "base: &b {test: mmap}\nstress-ng:\n  <<: *b\n",
		  "t.yaml:3:3: '<<' YAML merge keys are not supported (lkp's "
		  "'<<: FILE' includes are)" },
		{ "<<: {file: t-missing.yaml}\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:5: included file 't-missing.yaml' not found "
		  "(looked in .; LKP_SRC is not set)" },
		{ "<<: {disk: 1SSD}\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:5: '<<:' needs a file: {file: FILE, ...}" },
		{ "disk: 1TB\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:7: disk '1TB' is not lkp's N and HDD, SSD, BRD, SRD "
		  "or pmem (1HDD)" },
		{ "fs: 'ext4;id'\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:5: filesystem 'ext4;id' is not a name such as ext4 "
		  "or xfs" },
		{ "stress-ng: {test: mmap, testtime: soon}\n",
		  "t.yaml:1:35: testtime 'soon' is not a time (60s, 5m, 1h, "
		  "1d or seconds)" },
		{ "testtime: 60s\n",
		  "t.yaml:1:1: no payload section (such as 'stress-ng:')" },
		{ "testtime: 60s\nstress_ng: {test: mmap}\n",
		  "t.yaml:2:1: no payload section: did you mean 'stress-ng' for "
		  "'stress_ng'?" },
		{ "stress-ng:\n",
		  "t.yaml:1:11: 'stress-ng' must be a mapping of its options, "
		  "not a scalar" },
		{ "stress-ng: {method: all}\n",
		  "t.yaml:1:1: 'stress-ng' needs a 'test' (or a 'class')" },
		{ "stress-ng: {test: mmap}\nstress-ng: {test: mmap}\n",
		  "t.yaml:2:1: duplicate key 'stress-ng'" },
		{ "- stress-ng\n", "t.yaml:1:1: a job must be a mapping, not a "
				   "list" },
		{ "", "t.yaml:1:1: no job in the file" },
		{ "testcase: fio\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: testcase 'fio' does not match the payload "
		  "'stress-ng'" },
		{ "stress-ng: {test: []}\n",
		  "t.yaml:1:13: 'test' is an empty list" },
		{ "category: bench\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: 'category' must be one of benchmark, "
		  "functional, noise-benchmark, not 'bench'" },
		{ "nr_cpu: 0\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:9: nr_cpu '0' is not a count of CPUs (1 to 65536)" },
		{ "nr_cpu: 1000000000000000\nnr_threads: 100%\n"
		  "stress-ng: {test: mmap}\n",
		  "t.yaml:1:9: nr_cpu '1000000000000000' is not a count of "
		  "CPUs (1 to 65536)" },
		{ "nr_cpu: 2\nnr_threads: 300000%\nstress-ng: {test: mmap}\n",
		  "t.yaml:2:13: nr_threads '300000%' of 2 cpus is 6000, more "
		  "than 4096, the most instances stress-ng runs" },
		/* too many on any host: refused without one */
		{ "nr_threads: 1000000%\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: nr_threads '1000000%' is 10000 instances even "
		  "on one CPU, more than 4096, the most stress-ng runs" },
		{ "nr_threads: 409700%\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: nr_threads '409700%' is 4097 instances even "
		  "on one CPU, more than 4096, the most stress-ng runs" },
		{ "nr_threads: 5000\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: nr_threads '5000' is more than 4096, the most "
		  "instances stress-ng runs" },
		{ "kconfig: /etc/passwd\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:10: '/etc/passwd' must be a name, not a path (it "
		  "becomes a directory of the results)" },
		{ "kconfig: hooks/..\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:10: 'hooks/..' must be a name, not a path (it "
		  "becomes a directory of the results)" },
		{ "tbox_group: ..\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: '..' cannot name a directory of the results" },
		{ "rootfs: .\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:9: '.' cannot name a directory of the results" },
		{ "compiler: [gcc-12, ../gcc]\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:20: '../gcc' must be a name, not a path (it "
		  "becomes a directory of the results)" },
		{ "stress-ng: {class: ..}\n",
		  "t.yaml:1:1: the job's parameters make the path '..', which "
		  "cannot name a directory of the results" },
		{ "stress-ng:\n  test: mmap\n  log-file: /tmp/x/VICTIM\n",
		  "t.yaml:3:3: option 'log-file' of 'stress-ng' names a file "
		  "or a directory on the box: the robot chooses where a run's "
		  "files go" },
		{ "stress-ng:\n  test: swap\n  temp-path: /\n",
		  "t.yaml:3:3: option 'temp-path' of 'stress-ng' names a file "
		  "or a directory on the box: the robot chooses where a run's "
		  "files go" },
		{ "stress-ng: {test: *nope}\n",
		  "t.yaml:1:19: unknown or unfinished anchor 'nope'" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++)
		expect_error(cases[i].yaml, cases[i].want);
}

Test(job, matrix_too_large_is_an_error)
{
	struct sbuf sb = SBUF_INIT;
	int i;

	sbuf_addstr(&sb, "commit: [");
	for (i = 0; i < 200; i++)
		sbuf_addf(&sb, "%sc%d", i ? ", " : "", i);
	sbuf_addstr(&sb, "]\nkconfig: [");
	for (i = 0; i < 200; i++)
		sbuf_addf(&sb, "%sk%d", i ? ", " : "", i);
	sbuf_addstr(&sb, "]\nstress-ng: {test: mmap}\n");
	expect_error(sb.buf,
		     "t.yaml:1:1: the job expands to more than 10000 atomic "
		     "jobs");
	sbuf_release(&sb);
}

/*
 * hostile-inputs.md: one unknown key holding a 150,000-item list and a
 * 10,000-job matrix made job validate copy the tree per atomic job (2 GB
 * after 2 minutes). Refused before any copy; the same list with one job,
 * or the matrix alone, loads.
 */
Test(job, large_tree_times_matrix_is_refused)
{
	struct job_list l = JOB_LIST_INIT;
	struct sbuf big = SBUF_INIT, axes = SBUF_INIT, yaml = SBUF_INIT;
	int i;

	sbuf_addstr(&big, "lkp_blob: [");
	for (i = 0; i < 150000; i++)
		sbuf_addf(&big, "%s%d", i ? "," : "", i);
	sbuf_addstr(&big, "]\n");
	sbuf_addstr(&axes, "commit: [");
	for (i = 0; i < 100; i++)
		sbuf_addf(&axes, "%sc%d", i ? ", " : "", i);
	sbuf_addstr(&axes, "]\ntesttime: [");
	for (i = 0; i < 100; i++)
		sbuf_addf(&axes, "%s%ds", i ? ", " : "", i + 1);
	sbuf_addstr(&axes, "]\n");

	sbuf_addf(&yaml, "%s%sstress-ng: {test: mmap}\n", big.buf, axes.buf);
	expect_error(yaml.buf, "t.yaml:1:1: the job is too large: 10000 "
			       "atomic jobs of 150011 YAML nodes each (at "
			       "most 1000000 nodes in all); make the matrix "
			       "or the job's lists smaller");

	sbuf_reset(&yaml);
	sbuf_addf(&yaml, "%sstress-ng: {test: mmap}\n", big.buf);
	cr_assert_eq(job_load_string(&l, "t.yaml", yaml.buf, yaml.len), 0, "%s",
		     rb_errmsg());
	cr_expect_eq(l.nr, 1);
	job_list_release(&l);

	sbuf_reset(&yaml);
	sbuf_addf(&yaml, "%sstress-ng: {test: mmap}\n", axes.buf);
	cr_assert_eq(job_load_string(&l, "t.yaml", yaml.buf, yaml.len), 0, "%s",
		     rb_errmsg());
	cr_expect_eq(l.nr, 10000);
	job_list_release(&l);
	sbuf_release(&big);
	sbuf_release(&axes);
	sbuf_release(&yaml);
}

Test(job, anchors_and_aliases)
{
	struct job_list l = JOB_LIST_INIT;

	load(&l, "tests: &t [mmap, bigheap]\nstress-ng:\n  test: *t\n");
	cr_assert_eq(l.nr, 2);
	cr_expect_str_eq(l.v[1]->test, "bigheap");
	job_list_release(&l);
}

Test(job, unknown_keys_kept_and_written)
{
	struct job_list l = JOB_LIST_INIT;
	struct sbuf out = SBUF_INIT;

	load(&l, "need_memory: 2G\n"
		 "stress-ng: {test: mmap}\n"
		 "disks: '1SSD'\n"
		 "fss: [ext4, xfs]\n"
		 "empty: ''\n");
	cr_assert_eq(l.v[0]->extra->nr, 4);
	cr_assert_eq(job_write_yaml(l.v[0], &out), 0);
	cr_expect_str_eq(out.buf, "---\n"
				  "suite: stress-ng\n"
				  "testcase: stress-ng\n"
				  "need_memory: 2G\n"
				  "stress-ng:\n"
				  "  test: mmap\n"
				  "disks: '1SSD'\n"
				  "fss:\n"
				  "- ext4\n"
				  "- xfs\n"
				  "empty: ''\n"
				  "job_origin: t.yaml\n"
				  "path_params: mmap\n");
	sbuf_release(&out);
	job_list_release(&l);
}

Test(job, write_and_read_back)
{
	struct job_list l = JOB_LIST_INIT, back = JOB_LIST_INIT;
	struct sbuf out = SBUF_INIT;
	const struct job *a, *b;
	size_t i;

	load(&l, "suite: stress-ng\n"
		 "nr_threads: 50%\n"
		 "testtime: 5m\n"
		 "cpufreq_governor: performance\n"
		 "stress-ng:\n"
		 "  test: [mmap, vm]\n"
		 "  vm-bytes: 64M\n"
		 "  mmap-odirect:\n"
		 "kconfig: x86_64-rhel\n"
		 "note: 'null'\n");
	cr_assert_eq(job_list_resolve(&l, 8, NULL), 0);
	free(l.v[1]->commit);
	l.v[1]->commit = xstrdup("0123456789abcdef0123456789abcdef01234567");
	for (i = 0; i < l.nr; i++)
		cr_assert_eq(job_write_yaml(l.v[i], &out), 0);
	cr_assert_eq(job_load_string(&back, "job.yaml", out.buf, out.len), 0,
		     "%s", rb_errmsg());
	cr_assert_eq(back.nr, 2, "%s", out.buf);
	for (i = 0; i < 2; i++) {
		a = l.v[i];
		b = back.v[i];
		cr_expect_str_eq(b->path_params, a->path_params);
		cr_expect_str_eq(b->test, a->test);
		cr_expect_str_eq(b->nr_threads_text, "50%");
		cr_expect_eq(b->nr_cpu, 8);
		cr_expect_eq(b->nr_threads, 4);
		cr_expect_eq(b->testtime, 300);
		cr_expect_str_eq(b->origin, "t.yaml");
		cr_expect_str_eq(b->file, "job.yaml");
		cr_expect_eq(b->opts.nr, a->opts.nr);
		cr_expect_str_eq(ynode_map_get(b->extra, "note")->str, "null");
		cr_expect_not(ynode_map_get(b->extra, "note")->is_null);
	}
	cr_expect_null(back.v[0]->commit);
	cr_expect_str_eq(back.v[1]->commit,
			 "0123456789abcdef0123456789abcdef01234567");
	cr_expect_str_eq(kvlist_get(&back.v[0]->opts, "mmap-odirect"), "");
	sbuf_release(&out);
	job_list_release(&l);
	job_list_release(&back);
}

/*
 * A dotted key whose last part is "<<" makes a key "<<" (as a quoted
 * "<<" in a mapping is one): the job written out says '<<', so that it
 * reads back as that key and not as lkp's "<<: FILE" include (a fuzz
 * finding: "....<<: 10000%" loaded, but its written job asked for a file
 * named 10000%).
 */
Test(job, a_dotted_key_made_of_merge_signs_reads_back)
{
	static const char yaml[] = "stress-ng: {test: mmap}\n"
				   "a..<<: x\n"
				   "foo: {\"<<\": y}\n";
	struct job_list l = JOB_LIST_INIT, back = JOB_LIST_INIT;
	struct sbuf out = SBUF_INIT, again = SBUF_INIT;

	cr_assert_eq(job_load_string(&l, "t.yaml", yaml, strlen(yaml)), 0, "%s",
		     rb_errmsg());
	cr_assert_eq(job_list_resolve(&l, 2, NULL), 0);
	cr_assert_eq(job_write_yaml(l.v[0], &out), 0);
	cr_expect(strstr(out.buf, "\n    '<<': x\n"), "%s", out.buf);
	cr_expect(strstr(out.buf, "\n  '<<': y\n"), "%s", out.buf);
	cr_assert_eq(job_load_string(&back, "job.yaml", out.buf, out.len), 0,
		     "%s", rb_errmsg());
	cr_assert_eq(job_write_yaml(back.v[0], &again), 0);
	cr_expect_str_eq(again.buf, out.buf);
	sbuf_release(&out);
	sbuf_release(&again);
	job_list_release(&l);
	job_list_release(&back);
}

/*
 * A dotted key nests one mapping a dot under the top one: the reader's
 * nesting limit (64) holds for what it makes, so a job written out
 * reads back (make fuzz found one of 100 dots that did not). 63 dots
 * and a scalar (64 mappings) load and read back; 64 dots, or 62 and a
 * mapping of a mapping, are refused at the key.
 */
Test(job, dotted_keys_keep_the_nesting_limit)
{
	static const struct {
		int dots;
		const char *value;
		bool ok;
	} t[] = {
		{ 63, "1", true },
		{ 64, "1", false },
		{ 62, "{b: 1}", true },
		{ 62, "{b: {c: 1}}", false },
	};
	size_t i;
	int k;

	for (i = 0; i < RB_ARRAY_SIZE(t); i++) {
		struct job_list l = JOB_LIST_INIT, back = JOB_LIST_INIT;
		struct sbuf yaml = SBUF_INIT, out = SBUF_INIT;
		int rc;

		sbuf_addstr(&yaml, "stress-ng: {test: mmap}\nx");
		for (k = 0; k < t[i].dots; k++)
			sbuf_addstr(&yaml, ".x");
		sbuf_addf(&yaml, ": %s\n", t[i].value);
		rb_error_clear();
		rc = job_load_string(&l, "t.yaml", yaml.buf, yaml.len);
		if (!t[i].ok) {
			cr_expect_eq(rc, -1, "%d dots loaded", t[i].dots);
			cr_expect(rb_starts_with(rb_errmsg(),
						 "t.yaml:2:1: 'x.x.x."),
				  "%s", rb_errmsg());
			cr_expect(strstr(rb_errmsg(),
					 "...': nesting deeper than "
					 "64 levels"),
				  "%s", rb_errmsg());
		} else {
			cr_assert_eq(rc, 0, "%d dots: %s", t[i].dots,
				     rb_errmsg());
			cr_assert_eq(job_list_resolve(&l, 2, NULL), 0);
			cr_assert_eq(job_write_yaml(l.v[0], &out), 0);
			cr_expect_eq(job_load_string(&back, "job.yaml", out.buf,
						     out.len),
				     0, "%d dots: %s", t[i].dots, rb_errmsg());
		}
		job_list_release(&l);
		job_list_release(&back);
		sbuf_release(&yaml);
		sbuf_release(&out);
	}
}

Test(job, select_by_filters)
{
	struct job_list l = JOB_LIST_INIT;
	const char *f1[] = { "test=mmap" };
	const char *f2[] = { "test=mmap", "nr_threads=1" };
	const char *f3[] = { "test=mmap", "nr_threads=50%" };
	const char *f4[] = { "path_params=100%-bigheap" };
	const char *bad[] = { "novalue" };
	const char *unknown[] = { "colour=red" };
	const char *none[] = { "test=vm" };

	load(&l, "nr_threads: [100%, 50%]\nnote: x\n"
		 "stress-ng: {test: [mmap, bigheap]}\n");
	cr_assert_eq(job_list_resolve(&l, 2, NULL), 0);
	cr_expect_eq(job_select(&l, f1, 1), -1);
	cr_expect_str_eq(rb_errmsg(),
			 "2 atomic jobs match 'test=mmap': 'stress-ng/100%-"
			 "mmap', 'stress-ng/50%-mmap'; add key=value filters "
			 "to pick one");
	cr_expect_eq(job_select(&l, f2, 2), 2);
	cr_expect_eq(job_select(&l, f3, 2), 2);
	cr_expect_eq(job_select(&l, f4, 1), 1);
	cr_expect_eq(job_select(&l, bad, 1), -1);
	cr_expect_str_eq(rb_errmsg(), "'novalue' is not a key=value filter");
	cr_expect_eq(job_select(&l, unknown, 1), -1);
	cr_expect_str_eq(rb_errmsg(), "no atomic job has a parameter 'colour'");
	cr_expect_eq(job_select(&l, none, 1), -1);
	cr_expect_str_eq(rb_errmsg(), "no atomic job matches 'test=vm'");
	cr_expect(job_matches(l.v[0], "note", "x"));
	cr_expect(job_matches(l.v[0], "testtime", "60"));
	cr_expect_not(job_matches(l.v[0], "testtime", "60s"));
	job_list_release(&l);
}

Test(job, copy_is_deep)
{
	struct job_list l = JOB_LIST_INIT;
	struct sbuf a = SBUF_INIT, b = SBUF_INIT;
	struct job *c;

	load(&l, "nr_threads: 50%\ntesttime: 5m\nfs: [ext4]\n"
		 "stress-ng: {test: mmap, mmap-bytes: 4M}\ncommit: v6.9\n");
	cr_assert_eq(job_resolve(l.v[0], 8), 0);
	c = job_copy(l.v[0]);
	cr_assert_eq(job_write_yaml(l.v[0], &a), 0);
	cr_assert_eq(job_write_yaml(c, &b), 0);
	cr_expect_str_eq(a.buf, b.buf);
	cr_expect_eq(c->nr_threads, 4);
	cr_expect_eq(c->testtime, 300);
	cr_expect_neq(c->commit, l.v[0]->commit);
	free(c->commit);
	c->commit = xstrdup("abc");
	cr_expect_str_eq(l.v[0]->commit, "v6.9");
	job_free(c);
	job_free(NULL);
	sbuf_release(&a);
	sbuf_release(&b);
	job_list_release(&l);
}

Test(job, select_one_job_without_filters)
{
	struct job_list l = JOB_LIST_INIT;

	load(&l, "stress-ng: {test: mmap}\n");
	cr_expect_eq(job_select(&l, NULL, 0), 0);
	job_list_release(&l);
}

/* The shipped jobs (the unit tests run from the top of the checkout). */
Test(job, shipped_jobs)
{
	static const char *const tests[] = { "mmaprandom", "mmapaddr", "mmap",
					     "mlockmany", "bigheap" };
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(tests); i++) {
		struct job_list l = JOB_LIST_INIT;
		char *path = xstrfmt("jobs/stress-ng-%s.yaml", tests[i]);
		char *want = xstrfmt("performance-100%%-%s-60s", tests[i]);

		cr_assert_eq(job_load_file(&l, path), 0, "%s", rb_errmsg());
		cr_assert_eq(l.nr, 1);
		cr_expect_str_eq(l.v[0]->path_params, want);
		cr_expect_str_eq(l.v[0]->test, tests[i]);
		free(path);
		free(want);
		job_list_release(&l);
	}
}

Test(job, missing_file)
{
	struct job_list l = JOB_LIST_INIT;

	cr_expect_eq(job_load_file(&l, "/nonexistent/job.yaml"), -1);
	cr_expect_str_eq(rb_errmsg(), "cannot open '/nonexistent/job.yaml': "
				      "No such file or directory");
	job_list_release(&l);
}
