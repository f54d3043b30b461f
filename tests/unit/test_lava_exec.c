// SPDX-License-Identifier: GPL-2.0-only
/*
 * A LAVA batch's pieces (lava-exec.h): the box's script (every word of
 * the job quoted, as a real shell reads it back), the cpio appended to
 * the box's initrd (read back by a newc reader of the test's own), and
 * the console split into runs. The batch on a real LAVA server: e2e
 * kernel, step 5.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/stat.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "lava-exec.h"
#include "proc.h"
#include "runner.h"
#include "sbuf.h"
#include "store.h"
#include "svec.h"

static struct job_list jobs = JOB_LIST_INIT;

static void teardown(void)
{
	job_list_release(&jobs);
}

TestSuite(lava_exec, .fini = teardown);

static const struct job *job_of(const char *text, long nr_cpu)
{
	cr_assert_eq(job_load_string(&jobs, "t.yaml", text, strlen(text)), 0,
		     "%s", rb_errmsg());
	cr_assert_eq(jobs.nr, 1);
	cr_assert_eq(job_resolve(jobs.v[0], nr_cpu), 0);
	return jobs.v[0];
}

/* The payload line of a script: the one after "robot-run: begin". */
static char *payload_line(const char *script)
{
	const char *p = strstr(script, "robot-run: begin $i\"\n\t"), *e;

	cr_assert_not_null(p, "%s", script);
	p = strchr(p, '\t') + 1;
	e = strstr(p, " 2>&1 </dev/null\n");
	cr_assert_not_null(e, "%s", script);
	return xstrndup(p, (size_t)(e - p));
}

/* What /bin/sh makes of line's words: one per output line. */
static char *shell_words(const char *line)
{
	struct sbuf body = SBUF_INIT, out = SBUF_INIT;
	struct proc_result res;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct proc_opts o = { .argv = argv, .out = &out, .timeout = 60 };

	sbuf_addf(&body, "w() { printf '%%s\\n' \"$@\"; }; w %s", line);
	argv[2] = body.buf;
	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_assert(res.exited && res.code == 0);
	sbuf_release(&body);
	return sbuf_detach(&out);
}

Test(lava_exec, script_quotes_every_word)
{
	char name[] = "slot1";
	struct lab_host h = { .name = name, .nr_cpu = 2 };
	const struct job *j =
		job_of("testcase: stress-ng\nnr_threads: 100%\ntesttime: 5s\n"
		       "stress-ng:\n  test: mmap\n  mmap-bytes: 1M\n",
		       2);
	struct sbuf script = SBUF_INIT, cmdline = SBUF_INIT, want = SBUF_INIT;
	struct svec argv = SVEC_INIT;
	char *line, *words;
	size_t i;

	cr_assert_eq(lava_batch_script(j, &h, 3, &script, &cmdline), 0, "%s",
		     rb_errmsg());
	cr_expect(rb_starts_with(script.buf, "#!/bin/sh\n"));
	cr_expect_not_null(strstr(script.buf, "while [ $i -lt 3 ]; do\n"));
	cr_expect_not_null(strstr(script.buf, "echo \"robot-run: done\"\n"));
	cr_expect_not_null(strstr(script.buf, "robot-box: up"));
	/* the words the shell reads back are the runner's argv */
	cr_assert_eq(runner_payload_argv(j, &h, NULL, &argv, NULL), 0);
	for (i = 0; i < argv.nr; i++)
		sbuf_addf(&want, "%s\n", argv.v[i]);
	line = payload_line(script.buf);
	words = shell_words(line);
	cr_expect_str_eq(words, want.buf);
	cr_expect_not_null(strstr(want.buf, "--mmap-bytes\n1M\n"));
	/* the reproduce instructions name the same command */
	cr_expect_not_null(strstr(cmdline.buf, "--mmap 2"), "%s", cmdline.buf);
	free(line);
	free(words);
	svec_clear(&argv);
	sbuf_release(&script);
	sbuf_release(&cmdline);
	sbuf_release(&want);
}

Test(lava_exec, script_refuses_what_a_box_cannot_give)
{
	char name[] = "slot1", user[] = "lkp";
	struct lab_host h = { .name = name, .nr_cpu = 1 };
	/* lkp runs exec as an unprivileged user: the box has root only */
	const struct job *j =
		job_of("testcase: stress-ng\nnr_threads: 1\ntesttime: 5s\n"
		       "stress-ng:\n  test: exec\n",
		       1);
	struct sbuf script = SBUF_INIT, cmdline = SBUF_INIT;

	svec_init(&h.hdd_partitions);
	svec_init(&h.ssd_partitions);
	h.unprivileged_user = user;
	rb_error_clear();
	cr_expect_eq(lava_batch_script(j, &h, 3, &script, &cmdline), -1);
	cr_expect_not_null(strstr(rb_errmsg(), "host 'slot1' (a LAVA slot) "
					       "cannot set"),
			   "%s", rb_errmsg());
	cr_expect_not_null(strstr(rb_errmsg(), "no unprivileged user"), "%s",
			   rb_errmsg());
	sbuf_release(&script);
	sbuf_release(&cmdline);
}

static unsigned hex8(const char *p)
{
	char buf[9];

	memcpy(buf, p, 8);
	buf[8] = '\0';
	return (unsigned)strtoul(buf, NULL, 16);
}

Test(lava_exec, cpio_is_newc)
{
	static const char *const names[] = { "etc/rc.box", "etc/inittab",
					     "etc/profile", "TRAILER!!!" };
	static const unsigned modes[] = { 0100755, 0100644, 0100644, 0 };
	const char *script = "#!/bin/sh\necho odd length\n";
	struct sbuf a = SBUF_INIT;
	size_t off = 0, i;

	lava_batch_cpio(script, &a);
	for (i = 0; i < RB_ARRAY_SIZE(names); i++) {
		const char *h = a.buf + off;
		unsigned size, namesize;

		cr_assert_leq(off + 110, a.len);
		cr_assert_eq(memcmp(h, "070701", 6), 0, "entry %zu", i);
		cr_expect_eq(hex8(h + 14), modes[i], "mode of %s", names[i]);
		size = hex8(h + 54);
		namesize = hex8(h + 94);
		cr_expect_eq(hex8(h + 38), 1u, "nlink");
		cr_assert_eq(namesize, strlen(names[i]) + 1);
		cr_expect_str_eq(h + 110, names[i]);
		off = (off + 110 + namesize + 3) & ~(size_t)3;
		if (i == 0) {
			cr_expect_eq(size, strlen(script));
			cr_expect_eq(memcmp(a.buf + off, script, size), 0);
		}
		if (i == 2)
			cr_expect_not_null(
				strstr(a.buf + off, "PS1='robot-box# '"));
		off = (off + size + 3) & ~(size_t)3;
	}
	cr_expect_eq(off, a.len);
	sbuf_release(&a);
}

Test(lava_exec, console_runs)
{
	const char *console = "[    0.000000] Linux version 6.1\r\n"
			      "robot-box: up 6.1\r\n"
			      "robot-run: begin 0\r\n"
			      "stress-ng: metrc: [31] mmap 39 5.02\r\n"
			      "robot-run: end 0 status 0\r\n"
			      "robot-run: begin 1\n"
			      "stress-ng: error: [35] out of memory\n"
			      "robot-run: end 1 status 3\n"
			      "robot-run: begin 2\n"
			      "stress-ng: metrc: [38] mmap 38 5.01\n"
			      "robot-run: begin 3\n"
			      "robot-run: end 3 status x\n";
	struct sbuf t = SBUF_INIT;
	int rc = -1;

	cr_assert(lava_run_output(console, 0, &t, &rc));
	cr_expect_str_eq(t.buf, "stress-ng: metrc: [31] mmap 39 5.02\n");
	cr_expect_eq(rc, 0);
	cr_assert(lava_run_output(console, 1, &t, &rc));
	cr_expect_str_eq(t.buf, "stress-ng: error: [35] out of memory\n");
	cr_expect_eq(rc, 3);
	/* a run the box never ended, a status that is not one, no run */
	cr_expect(!lava_run_output(console, 2, &t, &rc));
	cr_expect(!lava_run_output(console, 3, &t, &rc));
	cr_expect(!lava_run_output(console, 4, &t, &rc));
	sbuf_release(&t);
}

static void file_at(const char *dir, const char *name, double age)
{
	char *p = xstrfmt("%s/%s", dir, name);
	struct timespec t[2];
	double when = rb_now() - age;

	cr_assert_eq(rb_write_file_atomic(p, "x", 1), 0, "%s", rb_errmsg());
	t[0].tv_sec = t[1].tv_sec = (time_t)when;
	t[0].tv_nsec = t[1].tv_nsec = 0;
	cr_assert_eq(utimensat(AT_FDCWD, p, t, 0), 0);
	free(p);
}

static bool there(const char *dir, const char *name)
{
	char *p = xstrfmt("%s/%s", dir, name);
	bool r = rb_file_exists(p);

	free(p);
	return r;
}

/*
 * Writing a batch's initrd trims the others: those last used (mtime)
 * before the cut-off go, and a killed robot's half-written ones; the one
 * just written, newer ones and anything that is not an initrd stay.
 */
Test(lava_exec, initrds_unused_since_the_cutoff_go)
{
	char dir[] = "/tmp/robot-initrds-XXXXXX", *keep, *sub;

	cr_assert_not_null(mkdtemp(dir));
	file_at(dir, "initrd-00000000000000aa.cpio", 3 * 86400);
	file_at(dir, "initrd-00000000000000bb.cpio", 600);
	file_at(dir, "initrd-00000000000000cc.cpio.tmp.4242", 3 * 86400);
	file_at(dir, "initrd-00000000000000dd.cpio", 3 * 86400);
	file_at(dir, "initrd-00000000000000ee.cpio.orig", 3 * 86400);
	file_at(dir, "notes.txt", 3 * 86400);
	sub = xstrfmt("%s/initrd-00000000000000ff.cpio", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	keep = xstrfmt("%s/initrd-00000000000000dd.cpio", dir);

	cr_expect_eq(lava_trim_initrds(dir, keep, rb_now() - 86400), 2);
	cr_expect_not(there(dir, "initrd-00000000000000aa.cpio"));
	cr_expect_not(there(dir, "initrd-00000000000000cc.cpio.tmp.4242"));
	cr_expect(there(dir, "initrd-00000000000000bb.cpio"));
	cr_expect(there(dir, "initrd-00000000000000dd.cpio"));
	cr_expect(there(dir, "initrd-00000000000000ee.cpio.orig"));
	cr_expect(there(dir, "notes.txt"));
	cr_expect(there(dir, "initrd-00000000000000ff.cpio"));
	/* an earlier cut-off (a LAVA job still waited on) keeps bb */
	cr_expect_eq(lava_trim_initrds(dir, keep, rb_now() - 3600), 0);
	cr_expect(there(dir, "initrd-00000000000000bb.cpio"));
	cr_expect_eq(lava_trim_initrds(dir, keep, rb_now()), 1);
	cr_expect_not(there(dir, "initrd-00000000000000bb.cpio"));
	/* no directory yet: nothing to trim */
	cr_assert_eq(rb_remove_tree(dir), 0);
	cr_expect_eq(lava_trim_initrds(dir, keep, rb_now()), 0);
	free(keep);
	free(sub);
}

struct initrd_racer {
	const struct lab *lab;
	struct store *st;
	pthread_barrier_t *go;
	int rounds, failed;
};

static void *initrd_race(void *arg)
{
	struct initrd_racer *t = arg;
	int i;

	for (i = 0; i < t->rounds; i++) {
		char *out = NULL;

		pthread_barrier_wait(t->go);
		if (lava_batch_initrd(t->lab, t->st, "echo race\n", &out) < 0)
			t->failed++;
		free(out);
		/* the main thread checks the file, then removes it */
		pthread_barrier_wait(t->go);
		pthread_barrier_wait(t->go);
	}
	return NULL;
}

/*
 * Two slots ask for the same batch initrd at the same moment (the
 * anchors' first batches do): both get it, and it is the lab's initrd
 * with the batch appended, whole. They once shared one .tmp file, whose
 * atomic write took the other thread's lock for a killed robot's.
 */
Test(lava_exec, two_slots_write_one_initrd_at_once)
{
	char dir[] = "/tmp/robot-initrd-race-XXXXXX";
	struct lab lab = { 0 };
	struct initrd_racer t[2];
	pthread_barrier_t go;
	pthread_t th[2];
	struct sbuf want = SBUF_INIT, cpio = SBUF_INIT;
	char *box, *path = NULL, *got, *lava;
	size_t len, i;
	int r, k;

	cr_assert_not_null(mkdtemp(dir));
	box = xstrfmt("%s/box.cpio", dir);
	/* a box initrd of 1 MiB: copies long enough for the two to meet */
	for (i = 0; i < (1u << 20) / 16; i++)
		sbuf_addstr(&want, "0123456789abcde\n");
	cr_assert_eq(rb_write_file_atomic(box, want.buf, want.len), 0);
	lava_batch_cpio("echo race\n", &cpio);
	sbuf_add(&want, cpio.buf, cpio.len);
	lab.workdir = dir;
	lab.lava.initrd = box;
	cr_assert_eq(pthread_barrier_init(&go, NULL, 3), 0);
	for (k = 0; k < 2; k++) {
		t[k] = (struct initrd_racer){ &lab, NULL, &go, 20, 0 };
		cr_assert_eq(store_open(&t[k].st, dir), 0, "%s", rb_errmsg());
		cr_assert_eq(pthread_create(&th[k], NULL, initrd_race, &t[k]),
			     0);
	}
	for (r = 0; r < 20; r++) {
		pthread_barrier_wait(&go);
		pthread_barrier_wait(&go);
		if (!path) {
			cr_assert_eq(lava_batch_initrd(&lab, t[0].st,
						       "echo race\n", &path),
				     0);
		}
		cr_assert_eq(rb_read_file(path, &got, &len), 0, "%s",
			     rb_errmsg());
		cr_expect(len == want.len && !memcmp(got, want.buf, len),
			  "round %d: %zu bytes, want %zu", r, len, want.len);
		free(got);
		cr_assert_eq(unlink(path), 0);
		pthread_barrier_wait(&go);
	}
	for (k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		cr_expect_eq(t[k].failed, 0, "thread %d failed %d times", k,
			     t[k].failed);
		store_close(t[k].st);
	}
	/* no half-written file left behind */
	lava = xstrfmt("%s/artifacts/lava", dir);
	cr_expect_eq(lava_trim_initrds(lava, "", rb_now() + 60), 0);
	free(lava);
	pthread_barrier_destroy(&go);
	rb_remove_tree(dir);
	free(box);
	free(path);
	sbuf_release(&want);
	sbuf_release(&cpio);
}
