// SPDX-License-Identifier: GPL-2.0-only
/*
 * The artifact cache (lab builds.cache) through runner_build: a real git
 * repository, a real build hook that writes a 10K "kernel", a real store.
 * An artifact a host holds (runner_artifact_hold: from its build to the
 * end of its boot) is never removed; the four kernels boxes used last
 * stay; a build ahead that finds a kernel there does not count as a use;
 * artifacts/lava/ is not the cache's.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "proc.h"
#include "repo.h"
#include "runner.h"
#include "sbuf.h"
#include "store.h"

#define NR_COMMITS 7

static char tmp[64];
static char commit[NR_COMMITS][RB_OID_HEXSZ + 1];
static struct lab lab;
static struct store *st;
static struct rb_repo *repo;
static struct job_list jobs = JOB_LIST_INIT;
static struct runner r;

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	struct sbuf cmd = SBUF_INIT, err = SBUF_INIT;
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct proc_opts o = { .argv = argv, .err = &err, .timeout = 120 };
	struct proc_result res;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	argv[2] = cmd.buf;
	cr_assert_eq(proc_run(&o, &res), 0, "%s", rb_errmsg());
	cr_assert(res.exited && res.code == 0, "%s: %s", cmd.buf, err.buf);
	sbuf_release(&cmd);
	sbuf_release(&err);
}

static void setup(void)
{
	static const char job[] = "testtime: 1\nstress-ng: {test: cpu}\n";
	struct sbuf text = SBUF_INIT;
	char *list, *p;
	int i;

	snprintf(tmp, sizeof(tmp), "/tmp/robot-cache.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
	sh("cd %s && git init -q -b master tree && cd tree && "
	   "for i in 1 2 3 4 5 6 7; do echo $i >f && git add f && "
	   "git -c user.name=t -c user.email=t@example.org commit -q "
	   "-m c$i || exit 1; done && git rev-list --reverse HEAD >../list",
	   tmp);
	sh("printf '#!/bin/sh\\nhead -c 10240 /dev/zero >\"$ROBOT_ARTIFACT_DIR/"
	   "kernel\"\\n' >%s/build && chmod +x %s/build",
	   tmp, tmp);
	p = xstrfmt("%s/list", tmp);
	cr_assert_eq(rb_read_file(p, &list, NULL), 0);
	free(p);
	for (i = 0, p = list; i < NR_COMMITS; i++, p += RB_OID_HEXSZ + 1)
		memcpy(commit[i], p, RB_OID_HEXSZ);
	free(list);

	sbuf_addf(&text,
		  "tree: {name: t, path: %s/tree, branch: master}\n"
		  "workdir: %s/w\n"
		  "hooks: {build: %s/build}\n"
		  "hosts:\n"
		  "  - {name: box1, transport: local, nr_cpu: 1}\n"
		  "builds: {cache: 30K}\n",
		  tmp, tmp, tmp);
	cr_assert_eq(lab_load_string(&lab, "lab.yaml", tmp, text.buf, text.len),
		     0, "%s", rb_errmsg());
	sbuf_release(&text);
	cr_assert_eq(job_load_string(&jobs, "t.yaml", job, strlen(job)), 0,
		     "%s", rb_errmsg());
	cr_assert_eq(job_resolve(jobs.v[0], 1), 0);
	cr_assert_eq(store_open(&st, lab.workdir), 0, "%s", rb_errmsg());
	cr_assert_eq(rb_repo_open(&repo, lab.tree.path), 0);
	cr_assert_eq(runner_init(&r, &lab, st, repo, jobs.v[0], 0), 0, "%s",
		     rb_errmsg());
	r.quiet = true;
}

static void teardown(void)
{
	runner_release(&r);
	rb_repo_free(repo);
	store_close(st);
	job_list_release(&jobs);
	lab_release(&lab);
	rb_remove_tree(tmp);
}

TestSuite(artifact_cache, .init = setup, .fini = teardown);

static void build(int i, bool ahead)
{
	struct sbuf why = SBUF_INIT;
	enum step_outcome out;
	int rc = ahead ? runner_build_ahead(&r, commit[i], 0, &out, &why) :
			 runner_build(&r, commit[i], &out, &why);

	cr_assert_eq(rc, 0, "%s", rb_errmsg());
	cr_assert_eq(out, STEP_OK, "%s", why.buf);
	sbuf_release(&why);
}

/* commit i's completion marker (malloc'd) */
static char *marker_of(int i)
{
	char *dir = runner_artifact_dir(&r, commit[i]);
	char *marker = xstrfmt("%s/" ARTIFACT_COMPLETE, dir);

	free(dir);
	return marker;
}

static bool there(int i)
{
	char *marker = marker_of(i);
	bool yes = rb_file_exists(marker);

	free(marker);
	return yes;
}

static struct timespec used(int i)
{
	char *marker = marker_of(i);
	struct stat s;

	cr_assert_eq(stat(marker, &s), 0);
	free(marker);
	return s.st_mtim;
}

Test(artifact_cache, held_kernels_stay)
{
	char *lava = xstrfmt("%s/artifacts/lava/initrd-1.cpio", lab.workdir);
	int use, i;

	cr_assert_eq(rb_mkdir_p(lab.workdir), 0);
	sh("mkdir -p %s/artifacts/lava && head -c 40960 /dev/zero >%s",
	   lab.workdir, lava);
	/* a host holds commit 0 from its build on (a slow boot) */
	use = runner_artifact_hold(&r, commit[0]);
	cr_assert_geq(use, 0, "%s", rb_errmsg());
	for (i = 0; i < 6; i++)
		build(i, false);
	/* six 10K kernels and a limit of 30K: the four used last stay
	 * (5, 4, 3, 2), 0 is held, 1 goes */
	cr_expect(there(0), "a kernel in use was removed");
	cr_expect(!there(1), "the least recently used kernel stayed");
	for (i = 2; i < 6; i++)
		cr_expect(there(i), "kernel %d of the four used last went", i);
	/* the boot is over: the next build removes it */
	close(use);
	build(6, false);
	cr_expect(!there(0), "a kernel no longer in use stayed");
	cr_expect(!there(2), "kernel 2 is no longer among the four");
	for (i = 3; i < 7; i++)
		cr_expect(there(i), "kernel %d of the four used last went", i);
	cr_expect(rb_file_exists(lava), "the cache removed LAVA's initrds");
	free(lava);
}

Test(artifact_cache, build_ahead_is_no_use)
{
	struct timespec past = { .tv_sec = 1000000000 },
			now[2] = { { .tv_nsec = UTIME_OMIT }, past };
	char *marker;
	struct timespec t;

	build(0, false);
	marker = marker_of(0);
	cr_assert_eq(utimensat(AT_FDCWD, marker, now, 0), 0);
	build(0, true);
	t = used(0);
	cr_expect_eq(t.tv_sec, past.tv_sec, "a build ahead counted as a use");
	build(0, false);
	t = used(0);
	cr_expect_gt(t.tv_sec, past.tv_sec, "a box's reuse did not count");
	free(marker);
}
