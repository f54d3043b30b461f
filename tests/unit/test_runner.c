// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stress-ng command line the robot runs, checked against the --help of
 * stress-ng 0.15.06 captured on this machine.
 */
#include <criterion/criterion.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "payload.h"
#include "runner.h"
#include "sbuf.h"
#include "svec.h"

static char *help;

static void setup(void)
{
	cr_assert_eq(rb_read_file("tests/data/stress-ng/0.15.06/help.txt",
				  &help, NULL),
		     0);
}

static void teardown(void)
{
	free(help);
}

TestSuite(runner, .init = setup, .fini = teardown);

/* The argv of the one atomic job of text, resolved on 4 CPUs. */
static char *argv_of(const char *text, const struct lab_host *h, int *rc)
{
	struct job_list l = JOB_LIST_INIT;
	struct svec argv = SVEC_INIT;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	cr_assert_eq(job_load_string(&l, "t.yaml", text, strlen(text)), 0, "%s",
		     rb_errmsg());
	cr_assert_eq(l.nr, 1);
	cr_assert_eq(job_resolve(l.v[0], 4), 0);
	*rc = runner_payload_argv(l.v[0], h, help, &argv, NULL);
	for (i = 0; i < argv.nr; i++)
		sbuf_addf(&sb, "%s%s", i ? " " : "", argv.v[i]);
	svec_clear(&argv);
	job_list_release(&l);
	return sbuf_detach(&sb);
}

Test(runner, lkp_command_line)
{
	static const struct {
		const char *job, *argv;
	} cases[] = {
		/* facts from lkp's programs/stress-ng/run on 0.15.06's help */
		{ "testcase: stress-ng\nnr_threads: 100%\ntesttime: 60s\n"
		  "stress-ng:\n  test: mmapaddr\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --mmapaddr 4" },
		/* lkp asks for "all" only where --help lists it in brackets
		 * or before a comma: not for 0.15.06's vm ("default is all") */
		{ "testcase: stress-ng\nnr_threads: 50%\ntesttime: 5\n"
		  "stress-ng:\n  test: vm\n",
		  "stress-ng --timeout 5 --times --verify --metrics "
		  "--no-rand-seed --vm 2" },
		{ "nr_threads: 1\nstress-ng:\n  test: exec\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --exec-method all --exec 1" },
		/* a declared method, and a pass-through stressor option */
		{ "testcase: stress-ng\nnr_threads: 1\ntesttime: 3s\n"
		  "stress-ng:\n  test: vm\n  method: flip\n"
		  "  mmap-bytes: 1M\n",
		  "stress-ng --timeout 3 --times --verify --metrics "
		  "--no-rand-seed --vm-method flip --mmap-bytes 1M --vm 1" },
		/* lkp's class rules: --minimize and --exclude for memory */
		{ "testcase: stress-ng\nnr_threads: 2\ntesttime: 30s\n"
		  "stress-ng:\n  class: memory\n",
		  "stress-ng --timeout 30 --times --verify --metrics "
		  "--no-rand-seed --sequential 2 --class memory --minimize "
		  "--exclude spawn,exec,stack" },
		{ "nr_threads: 2\nstress-ng:\n  class: cpu\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --sequential 2 --class cpu --exclude "
		  "spawn,exec" },
		/* only lkp's pathological stressors get --pathological */
		{ "nr_threads: 1\nstress-ng:\n  test: mlockmany\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --pathological --mlockmany 1" },
		/* --oom-avoid, then the method probe */
		{ "nr_threads: 100%\nstress-ng:\n  test: bigheap\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --oom-avoid --bigheap 4" },
		/* swap's temp path, a type and a testtime of the section */
		{ "testtime: 60s\nstress-ng:\n  test: swap\n  testtime: 9s\n",
		  "stress-ng --timeout 9 --times --verify --metrics "
		  "--no-rand-seed --temp-path /mnt/stress-ng --swap 1" },
		{ "nr_threads: 1\nstress-ng:\n  test: sock\n  type: dgram\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --sock-type dgram --sock 1" },
		{ "nr_threads: 1\nstress-ng:\n  test: hdd\n  hdd_opts: sync\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --hdd-opts sync --hdd 1" },
		/* sockpair: --oom-avoid; the section's nr_threads wins */
		{ "nr_threads: 100%\nstress-ng:\n  test: sockpair\n"
		  "  nr_threads: 50%\n",
		  "stress-ng --timeout 60 --times --verify --metrics "
		  "--no-rand-seed --oom-avoid --sockpair 2" },
	};
	struct lab_host h = { .name = (char *)"box1" };
	size_t i;
	int rc;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char *got = argv_of(cases[i].job, &h, &rc);

		cr_expect_eq(rc, 0, "case %zu: %s", i, rb_errmsg());
		cr_expect_str_eq(got, cases[i].argv, "case %zu", i);
		free(got);
	}
}

static char *join(const struct svec *v)
{
	struct sbuf sb = SBUF_INIT;
	size_t i;

	for (i = 0; i < v->nr; i++)
		sbuf_addf(&sb, "%s%s", i ? " " : "", v->v[i]);
	return sbuf_detach(&sb);
}

/* lkp's options this stress-ng does not know: refused, or listed. */
Test(runner, options_the_host_lacks)
{
	static const struct {
		const char *job, *argv, *missing;
	} cases[] = {
		{ "nr_threads: 1\nstress-ng:\n  test: madvise\n  advise: cold\n",
		  "--madvise-advise cold --madvise 1", "madvise-advise" },
		/* no --pipe-sched: lkp falls back to --workload-sched */
		{ "nr_threads: 1\nstress-ng:\n  test: pipe\n  sched: fifo\n",
		  "--workload-sched fifo --pipe 1", "workload-sched" },
		{ "nr_threads: 1\nstress-ng:\n  test: fallocate\n"
		  "  mode: keep-size\n",
		  "--fallocate-mode keep-size --fallocate 1",
		  "fallocate-mode" },
	};
	struct lab_host h = { .name = (char *)"box1" };
	size_t i;
	int rc;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct job_list l = JOB_LIST_INIT;
		struct svec argv = SVEC_INIT, missing = SVEC_INIT;
		char *got;

		cr_assert_eq(job_load_string(&l, "t.yaml", cases[i].job,
					     strlen(cases[i].job)),
			     0);
		cr_assert_eq(job_list_resolve(&l, 4, NULL), 0);
		/* a run refuses it, naming the option */
		got = argv_of(cases[i].job, &h, &rc);
		cr_expect_eq(rc, -1, "case %zu", i);
		cr_expect(strstr(rb_errmsg(), cases[i].missing) != NULL, "%s",
			  rb_errmsg());
		free(got);
		/* job expand --lkp-argv shows what lkp would run */
		cr_assert_eq(runner_payload_argv(l.v[0], &h, help, &argv,
						 &missing),
			     0);
		got = join(&argv);
		cr_expect(strstr(got, cases[i].argv) != NULL, "%s", got);
		cr_assert_eq(missing.nr, 1);
		cr_expect_str_eq(missing.v[0], cases[i].missing);
		free(got);
		svec_clear(&argv);
		svec_clear(&missing);
		job_list_release(&l);
	}
}

Test(runner, host_binary_and_unknown_names)
{
	struct lab_host h = { .name = (char *)"box1",
			      .stress_ng = (char *)"/opt/sng/bin/stress-ng" };
	char *got;
	int rc;

	got = argv_of("testcase: stress-ng\nnr_threads: 1\ntesttime: 1\n"
		      "stress-ng:\n  test: mmap\n",
		      &h, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(rb_starts_with(got, "/opt/sng/bin/stress-ng --timeout 1 "));
	free(got);
	/* 0.15.06 has no mmaprandom: refused before anything runs */
	got = argv_of("testcase: stress-ng\nstress-ng:\n  test: mmaprandom\n",
		      &h, &rc);
	cr_assert_eq(rc, -1);
	cr_assert_str_eq(rb_errmsg(), "stress-ng on 'box1' does not know the "
				      "test 'mmaprandom'");
	free(got);
	got = argv_of("testcase: stress-ng\nstress-ng:\n  test: mmap\n"
		      "  mmap-frobs: 3\n",
		      &h, &rc);
	cr_assert_eq(rc, -1);
	cr_assert(strstr(rb_errmsg(), "does not know the option "
				      "'--mmap-frobs'") != NULL,
		  "%s", rb_errmsg());
	free(got);
}

Test(runner, headline_stat)
{
	struct job_list l = JOB_LIST_INIT;
	const char *t = "testcase: stress-ng\nstress-ng:\n  test: bigheap\n";
	char *s;

	cr_assert_eq(job_load_string(&l, "t.yaml", t, strlen(t)), 0);
	s = runner_headline_stat(l.v[0]);
	cr_assert_str_eq(s, "stress-ng.bigheap.ops_per_sec");
	free(s);
	job_list_release(&l);
}

/*
 * The box's setup, as lkp's run script gives it (setup_sysctl,
 * setup_test, mount_dev), described as its reproduce.sh lines; what a
 * host cannot give is one line naming it.
 */
static char *setup_of(const char *text, const struct lab_host *h, int *rc)
{
	struct job_list l = JOB_LIST_INIT;
	struct payload_setup s = PAYLOAD_SETUP_INIT;
	struct svec argv = SVEC_INIT;
	struct sbuf sb = SBUF_INIT;

	cr_assert_eq(job_load_string(&l, "t.yaml", text, strlen(text)), 0, "%s",
		     rb_errmsg());
	cr_assert_eq(job_resolve(l.v[0], 4), 0);
	*rc = runner_payload_setup(l.v[0], h, &s);
	if (*rc == 0) {
		svec_push(&argv, "stress-ng");
		payload_setup_describe(&s, &argv, &sb);
	}
	payload_setup_release(&s);
	svec_clear(&argv);
	job_list_release(&l);
	return sbuf_detach(&sb);
}

Test(runner, box_setup)
{
	static const struct {
		const char *job, *want;
	} cases[] = {
		{ "stress-ng: {test: mmap}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\nstress-ng\n" },
		{ "nr_threads: 100%\nstress-ng: {test: ping-sock}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "sysctl -w 'net.ipv4.ping_group_range=0 4'\nstress-ng\n" },
		{ "stress-ng: {test: mq}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "sysctl -w fs.mqueue.queues_max=2048\n"
		  "sysctl -w fs.mqueue.msg_max=2048\nstress-ng\n" },
		{ "stress-ng: {test: dnotify}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "sysctl -w fs.inotify.max_user_instances=8192\n"
		  "sysctl -w fs.inotify.max_user_watches=524288\nstress-ng\n" },
		{ "stress-ng: {test: udp-flood}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "sysctl -w net.core.somaxconn=4096\nstress-ng\n" },
		{ "stress-ng: {test: swap}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "mkdir -p /mnt/stress-ng\nstress-ng\n" },
		{ "stress-ng: {test: spawn}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "su -s /bin/sh -c 'exec \"$0\" \"$@\"' - tester -- "
		  "stress-ng\n" },
		{ "disk: 1HDD\nfs: ext4\nmount_option: noatime\n"
		  "stress-ng: {test: aio}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "mkfs -t ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "
		  "-F /dev/vdb\n"
		  "mkdir -p /mnt/stress-ng\n"
		  "mount -t ext4 -o noatime /dev/vdb /mnt/stress-ng\n"
		  "cd /mnt/stress-ng\n"
		  "sysctl -w fs.aio-max-nr=1048576\nstress-ng\n" },
		{ "disk: 1HDD\nfs: xfs\nstress-ng: {class: filesystem}\n",
		  "sysctl -w kernel.sched_autogroup_enabled=0\n"
		  "mkfs -t xfs -f -mreflink=0 /dev/vdb\n"
		  "mkdir -p /mnt/stress-ng\n"
		  "mount -t xfs -o inode64 /dev/vdb /mnt/stress-ng\n"
		  "cd /mnt/stress-ng\nstress-ng\n" },
	};
	static const struct {
		const char *job, *err;
	} refused[] = {
		{ "disk: 1SSD\nfs: ext4\nstress-ng: {test: dir}\n",
		  "host 'box1' has 0 SSD partitions, job 't.yaml' needs 1 (disk: "
		  "1SSD); list spare devices under the host's ssd_partitions" },
		{ "disk: 2HDD\nfs: ext4\nstress-ng: {test: dir}\n",
		  "host 'box1' has 1 HDD partition, job 't.yaml' needs 2 (disk: "
		  "2HDD); list spare devices under the host's hdd_partitions" },
		{ "disk: 1BRD\nfs: ext4\nstress-ng: {test: dir}\n",
		  "job 't.yaml' asks for disk: 1BRD; the robot gives jobs HDD and "
		  "SSD partitions only" },
		{ "fs: ext4\nstress-ng: {test: dir}\n",
		  "job 't.yaml' has fs: ext4 but no disk: to make it on (lkp: "
		  "nr_partitions is less than 1)" },
		{ "disk: 1HDD\nstress-ng: {test: dir}\n",
		  "job 't.yaml' has disk: 1HDD but no fs: (lkp mounts the disk "
		  "for the test)" },
		{ "disk: 1HDD\nfs: nfsv4\nstress-ng: {test: dir}\n",
		  "job 't.yaml' has fs: nfsv4; the robot makes xfs, ext2, ext3, "
		  "ext4, btrfs and f2fs" },
		{ "stress-ng: {class: io}\n",
		  "lkp runs the class 'io' on a mounted disk: job 't.yaml' needs "
		  "disk: and fs:" },
		{ "fs2: nfsv4\nstress-ng: {test: dir}\n",
		  "job 't.yaml' has fs2: nfsv4 (lkp's NFS/CIFS export), which "
		  "the robot does not set up" },
	};
	struct lab_host h = { .name = (char *)"box1",
			      .unprivileged_user = (char *)"tester" };
	size_t i;
	int rc;

	svec_init(&h.hdd_partitions);
	svec_init(&h.ssd_partitions);
	svec_push(&h.hdd_partitions, "/dev/vdb");
	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char *got = setup_of(cases[i].job, &h, &rc);

		cr_expect_eq(rc, 0, "case %zu: %s", i, rb_errmsg());
		cr_expect_str_eq(got, cases[i].want, "case %zu", i);
		free(got);
	}
	for (i = 0; i < RB_ARRAY_SIZE(refused); i++) {
		char *got = setup_of(refused[i].job, &h, &rc);

		cr_expect_eq(rc, -1, "refused %zu", i);
		cr_expect_str_eq(rb_errmsg(), refused[i].err, "refused %zu", i);
		free(got);
	}
	svec_clear(&h.hdd_partitions);
	svec_clear(&h.ssd_partitions);
}
