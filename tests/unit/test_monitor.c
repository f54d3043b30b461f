// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "robot.h"
#include "monitor.h"

/* Two snapshots one second apart, numbers chosen to check each rule. */
static const char two_snapshots[] = "==> 100.00\n"
				    "--- /proc/stat\n"
				    "cpu  100 0 50 800 10 5 5 0 20 0\n"
				    "cpu0 100 0 50 800 10 5 5 0 20 0\n"
				    "intr 1000 1 2 3\n"
				    "ctxt 5000\n"
				    "procs_running 3\n"
				    "procs_blocked 1\n"
				    "--- /proc/vmstat\n"
				    "nr_free_pages 1000\n"
				    "pgfault 10000\n"
				    "pgpgin 100\n"
				    "pgpgout 200\n"
				    "pswpin 0\n"
				    "pswpout 0\n"
				    "--- /proc/meminfo\n"
				    "MemTotal:       2000 kB\n"
				    "MemFree:        1000 kB\n"
				    "Buffers:          10 kB\n"
				    "Cached:          100 kB\n"
				    "SReclaimable:     20 kB\n"
				    "SwapTotal:         0 kB\n"
				    "SwapFree:          0 kB\n"
				    "Inactive(file):   40 kB\n"
				    "<==\n"
				    "==> 101.00\n"
				    "--- /proc/stat\n"
				    "cpu  160 0 70 810 10 5 5 0 30 0\n"
				    "intr 1400 1 2 3\n"
				    "ctxt 5300\n"
				    "procs_running 1\n"
				    "procs_blocked 0\n"
				    "--- /proc/vmstat\n"
				    "nr_free_pages 3000\n"
				    "pgfault 10500\n"
				    "pgpgin 100\n"
				    "pgpgout 260\n"
				    "pswpin 0\n"
				    "pswpout 0\n"
				    "--- /proc/meminfo\n"
				    "MemTotal:       2000 kB\n"
				    "MemFree:         500 kB\n"
				    "Buffers:          10 kB\n"
				    "Cached:          100 kB\n"
				    "SReclaimable:     20 kB\n"
				    "SwapTotal:         0 kB\n"
				    "SwapFree:          0 kB\n"
				    "Inactive(file):   60 kB\n"
				    "<==\n"
				    "==> 102.00\n"
				    "--- /proc/stat\n"
				    "cpu  999 0 70 8\n";

static void expect(const struct statset *s, const char *name, double v)
{
	const double *got = statset_get(s, name);

	cr_assert_not_null(got, "missing %s", name);
	cr_expect_float_eq(*got, v, 1e-9, "%s: %f != %f", name, *got, v);
}

Test(monitor, reduces_like_lkp)
{
	struct mon_series s;
	struct statset out = STATSET_INIT;

	cr_assert_eq(mon_series_parse(&s, xstrdup(two_snapshots)), 0);
	/* the third snapshot was cut short by the kill: dropped */
	cr_assert_eq(s.nr, 2);
	monitors_reduce(&s, &out);
	/* gauges: means over snapshots */
	expect(&out, "meminfo.MemFree", 750);
	expect(&out, "meminfo.Inactive(file)", 50);
	expect(&out, "proc-vmstat.nr_free_pages", 2000);
	expect(&out, "vmstat.memory.free", 750);
	expect(&out, "vmstat.memory.cache", 120);
	expect(&out, "vmstat.procs.r", 1); /* (2 + 0) / 2, sampler removed */
	expect(&out, "vmstat.procs.b", 0.5);
	/* counters: last - first */
	expect(&out, "proc-vmstat.pgfault", 500);
	expect(&out, "proc-vmstat.pgpgout", 60);
	/* rates per second over the one interval */
	expect(&out, "vmstat.system.in", 400);
	expect(&out, "vmstat.system.cs", 300);
	expect(&out, "vmstat.io.bo", 60);
	/* 60 user (10 of it guest), 20 sys, 10 idle of 90 jiffies */
	expect(&out, "vmstat.cpu.us", 100.0 * 60 / 90);
	expect(&out, "vmstat.cpu.id", 100.0 * 10 / 90);
	expect(&out, "mpstat.cpu.all.usr%", 100.0 * 50 / 90);
	expect(&out, "mpstat.cpu.all.guest%", 100.0 * 10 / 90);
	expect(&out, "mpstat.cpu.all.sys%", 100.0 * 20 / 90);
	statset_release(&out);
	mon_series_release(&s);
}

Test(monitor, bad_sample_time_is_an_error)
{
	struct mon_series s;

	cr_assert_eq(mon_series_parse(&s, xstrdup("==> x\n<==\n")), -1);
	cr_assert(strstr(rb_errmsg(), "bad sample time") != NULL);
}

static int count_complete(const char *path)
{
	char *buf;
	size_t len;
	int n = 0;
	const char *p;

	if (rb_read_file(path, &buf, &len) < 0)
		return 0;
	for (p = buf; (p = strstr(p, "\n<==\n")); p++)
		n++;
	free(buf);
	return n;
}

/* The real loop under /bin/sh on this machine's /proc. */
Test(monitor, real_sampling_loop, .timeout = 60)
{
	char path[] = "/tmp/robot-monitor-XXXXXX";
	struct mon_series s;
	struct statset out = STATSET_INIT;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char *buf;
	size_t len;
	pid_t pid;
	int fd, i, status;

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", monitor_loop_script(), "monitor",
		      path, (char *)NULL);
		_exit(127);
	}
	/* wait for three complete snapshots (about two seconds) */
	for (i = 0; i < 600 && count_complete(path) < 3; i++)
		nanosleep(&ts, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert_geq(count_complete(path), 3);
	cr_assert_eq(rb_read_file(path, &buf, &len), 0);
	cr_assert_eq(mon_series_parse(&s, buf), 0);
	cr_assert_geq(s.nr, 3);
	monitors_reduce(&s, &out);
	cr_assert_gt(*statset_get(&out, "meminfo.MemTotal"), 0);
	cr_assert_gt(*statset_get(&out, "vmstat.memory.free"), 0);
	cr_assert_gt(*statset_get(&out, "vmstat.system.cs"), 0);
	cr_assert_geq(*statset_get(&out, "proc-vmstat.pgfault"), 0);
	cr_assert_geq(*statset_get(&out, "mpstat.cpu.all.idle%"), 0);
	cr_assert_leq(*statset_get(&out, "mpstat.cpu.all.idle%"), 100);
	statset_release(&out);
	mon_series_release(&s);
	unlink(path);
}
