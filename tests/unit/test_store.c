// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot.h"
#include "bisection.h"
#include "store.h"
#include "svec.h"
#include "workdir.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/robot-store-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	rb_remove_tree(dir);
}

static const struct run_key key = {
	.testcase = "stress-ng",
	.path_params = "performance-2-mmapaddr-3s",
	.host = "box1",
	.rootfs = "debian-12",
	.kconfig = "qemu-box",
	.compiler = "gcc-12",
	.commit = "0123456789abcdef0123456789abcdef01234567",
};

TestSuite(store, .init = setup, .fini = teardown);

Test(store, migrates_and_keeps_runs_with_samples)
{
	struct store *st;
	int64_t run, n;
	double *v;
	size_t nr;
	int no;
	struct statset s = STATSET_INIT;

	statset_set(&s, "stress-ng.mmapaddr.ops_per_sec", 852.75);
	statset_set(&s, "stress-ng.mmapaddr.ops", 4272);
	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	cr_assert_geq(store_schema_version(st), 1);
	cr_assert_eq(store_next_run_no(st, &key, &no), 0);
	cr_assert_eq(no, 0);
	cr_assert_eq(store_run_start(st, &key, no, 0, "/r/0", &run), 0);
	cr_assert_eq(store_run_finish(st, run, RUN_OK, NULL, &s), 0);
	statset_release(&s);
	cr_assert_eq(store_next_run_no(st, &key, &no), 0);
	cr_assert_eq(no, 1);
	cr_assert_eq(store_samples(st, &key, "stress-ng.mmapaddr.ops_per_sec",
				   &v, &nr),
		     0);
	cr_assert_eq(nr, 1);
	cr_assert_float_eq(v[0], 852.75, 1e-9);
	free(v);
	/* a run that is cut short leaves no sample and is marked on reopen */
	cr_assert_eq(store_run_start(st, &key, 1, 0, "/r/1", &run), 0);
	store_close(st);
	cr_assert_eq(store_open(&st, dir), 0);
	cr_assert_eq(store_count(st, "runs", "status = 'interrupted'", &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(store_count(st, "samples", NULL, &n), 0);
	cr_assert_eq(n, 2);
	store_close(st);
}

Test(store, refuses_a_newer_schema)
{
	struct store *st;
	char *path = xstrfmt("%s/robot.db", dir);
	sqlite3 *db;

	cr_assert_eq(store_open(&st, dir), 0);
	store_close(st);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL,
				  NULL),
		     SQLITE_OK);
	sqlite3_close(db);
	cr_assert_eq(store_open(&st, dir), -1);
	cr_assert(strstr(rb_errmsg(), "newer than") != NULL, "%s", rb_errmsg());
	free(path);
}

Test(store, builds_latest_and_boots)
{
	struct store *st;
	struct build_rec b = { 0 };
	int64_t id, boot;

	cr_assert_eq(store_open(&st, dir), 0);
	cr_assert_eq(store_build_latest(st, key.commit, "k", "gcc", &b), 0);
	cr_assert_eq(store_build_add(st, key.commit, "k", "gcc", "infra", 1,
				     1.0, 2.0, "/a", "/l", &id),
		     0);
	cr_assert_eq(store_build_add(st, key.commit, "k", "gcc", "ok", 0, 3.0,
				     4.0, "/a", "/l", &id),
		     0);
	cr_assert_eq(store_build_latest(st, key.commit, "k", "gcc", &b), 1);
	cr_assert_str_eq(b.status, "ok");
	cr_assert_eq(b.id, id);
	build_rec_release(&b);
	cr_assert_eq(store_boot_add(st, id, "box1", key.commit, "ok", 0, 5.0,
				    6.0, "/b", &boot),
		     0);
	cr_assert_gt(boot, 0);
	store_close(st);
}

Test(store, second_robot_on_a_workdir_is_refused)
{
	struct workdir_lock *lk, *lk2;
	int status;
	pid_t pid;

	cr_assert_eq(workdir_lock_take(&lk, dir, "robot bisect"), 0);
	/* flock is per open file: a second process must be refused */
	pid = fork();
	if (pid == 0) {
		int r = workdir_lock_take(&lk2, dir, "robot run");

		_exit(r == -1 && strstr(rb_errmsg(), "robot bisect") ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	workdir_lock_release(lk);
	cr_assert_eq(workdir_lock_take(&lk, dir, "again"), 0);
	workdir_lock_release(lk);
}

/* A store that cannot be read says why, not that it is empty. */
Test(store, a_reader_is_told_why_a_store_cannot_be_read)
{
	char *path = rb_path_join(dir, "robot.db");
	struct store *st;
	int status;
	pid_t pid;

	cr_assert_eq(rb_write_file_atomic(path, "", 0), 0);
	cr_assert_eq(store_open_readonly(&st, dir), -1);
	cr_assert(strstr(rb_errmsg(), "is empty"), "%s", rb_errmsg());
	cr_assert_eq(rb_write_file_atomic(path, "garbage\n", 8), 0);
	cr_assert_eq(store_open_readonly(&st, dir), -1);
	cr_assert(strstr(rb_errmsg(), "file is not a database") &&
			  !strstr(rb_errmsg(), "empty"),
		  "%s", rb_errmsg());

	/* a WAL store read by a user who cannot write its directory */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	store_close(st);
	if (geteuid() == 0) {
		cr_assert_eq(chmod(dir, 0755), 0);
		pid = fork();
		if (pid == 0) {
			int r = setgid(65534) || setuid(65534) ?
					2 :
					store_open_readonly(&st, dir);

			_exit(r == -1 && strstr(rb_errmsg(),
						"cannot be read without write "
						"access") ?
				      0 :
				      1);
		}
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "status %d", status);
	}
	cr_assert_eq(store_open_readonly(&st, dir), 0, "%s", rb_errmsg());
	store_close(st);
	free(path);
}

Test(store, an_interrupted_bisection_says_so_and_resumes)
{
	struct store *st;
	struct workdir_lock *lk;
	struct bisection_rec rec = { 0 };
	int64_t id;

	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	cr_assert_eq(store_bisection_create(st, "k", NULL, "job", "m", "[]",
					    "b", "robot bisect", &id),
		     0);
	cr_assert_eq(store_bisection_get(st, id, &rec), 1);
	/* running, no robot on the workdir (a kill -9): interrupted */
	cr_expect_str_eq(bisection_rec_status(&rec, false), "interrupted");
	cr_expect_str_eq(bisection_rec_status(&rec, true), "running");
	bisection_rec_release(&rec);

	cr_assert_eq(store_bisection_stop(st, id, "interrupted by SIGINT"), 0);
	cr_assert_eq(store_bisection_get(st, id, &rec), 1);
	cr_expect_str_eq(rec.status, "running", "resumable");
	cr_expect_str_eq(bisection_rec_status(&rec, true), "interrupted");
	cr_expect_str_eq(rec.stop_reason, "interrupted by SIGINT");
	bisection_rec_release(&rec);

	cr_assert_eq(store_bisection_resume(st, id), 0);
	cr_assert_eq(store_bisection_get(st, id, &rec), 1);
	cr_expect_null(rec.stop_reason);
	cr_expect_str_eq(bisection_rec_status(&rec, true), "running");
	bisection_rec_release(&rec);

	/* a finished one says what it found, whoever runs */
	cr_assert_eq(store_bisection_finish(st, id, "found", "c", "{}"), 0);
	cr_assert_eq(store_bisection_stop(st, id, "late"), 0);
	cr_assert_eq(store_bisection_get(st, id, &rec), 1);
	cr_expect_str_eq(bisection_rec_status(&rec, false), "found");
	cr_expect_null(rec.stop_reason, "only a running one is stopped");
	bisection_rec_release(&rec);
	store_close(st);

	cr_expect_not(workdir_in_use(dir));
	cr_assert_eq(workdir_lock_take(&lk, dir, "robot bisect"), 0);
	cr_expect(workdir_in_use(dir));
	workdir_lock_release(lk);
	cr_expect_not(workdir_in_use(dir));
}

/*
 * LAVA batches: the row before the submit, the id before the wait, and
 * the batch to go on with: one to wait on, or one whose outputs are not
 * all taken by finished runs (an interrupted run gives its output again).
 */
Test(store, lava_batches_are_found_again)
{
	const char *c = key.commit,
		   *k = "stress-ng/p/debian-12/qemu-box/gcc-12";
	struct lava_job_rec j = { 0 }, *w = NULL;
	struct store *st;
	int64_t a, b, boot, run;
	double oldest = -1;
	size_t n;
	int taken;

	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	cr_expect_eq(store_lava_open(st, "box1", c, k, &j), 0);
	cr_assert_eq(store_lava_add(st, "robot box1 a", "box1", c, k, 2, &a),
		     0);
	/* a name is sent once */
	cr_expect_eq(store_lava_add(st, "robot box1 a", "box1", c, k, 2, &b),
		     -1);
	cr_assert_eq(store_lava_open(st, "box1", c, k, &j), 1);
	cr_expect_eq(j.id, a);
	cr_expect_str_eq(j.state, "submitting");
	cr_expect_eq(j.lava_id, 0);
	lava_job_rec_release(&j);
	/* waited on since it was written (the initrds' trim keeps its) */
	cr_assert_eq(store_lava_oldest_waiting(st, 0, &oldest), 0);
	cr_expect(fabs(oldest - rb_now()) < 3600, "%f", oldest);
	cr_assert_eq(store_lava_oldest_waiting(st, rb_now() + 3600, &oldest),
		     0);
	cr_expect_eq(oldest, 0);
	/* another slot, another job: not this batch */
	cr_expect_eq(store_lava_open(st, "box2", c, k, &j), 0);
	cr_expect_eq(store_lava_open(st, "box1", c, "other", &j), 0);
	cr_assert_eq(store_lava_submitted(st, a, 41), 0);
	cr_assert_eq(store_lava_waiting(st, 0, &w, &n), 0);
	cr_assert_eq(n, 1);
	cr_expect_eq(w[0].lava_id, 41);
	lava_job_rec_release(&w[0]);
	free(w);
	/* done: its outputs are there to take */
	cr_assert_eq(store_boot_add(st, 0, "box1", c, "ok", 0, 1, 2, "log",
				    &boot),
		     0);
	cr_assert_eq(store_lava_finish(st, a, "ok", boot, NULL), 0);
	cr_assert_eq(store_lava_waiting(st, 0, &w, &n), 0);
	cr_expect_eq(n, 0);
	free(w);
	cr_assert_eq(store_lava_oldest_waiting(st, 0, &oldest), 0);
	cr_expect_eq(oldest, 0);
	cr_assert_eq(store_lava_open(st, "box1", c, k, &j), 1);
	cr_expect_eq(j.boot_id, boot);
	cr_expect_str_eq(j.state, "ok");
	lava_job_rec_release(&j);
	/* a run that never finished takes nothing */
	cr_assert_eq(store_run_start(st, &key, 0, boot, "/r/0", &run), 0);
	cr_assert_eq(store_lava_taken(st, boot, &taken), 0);
	cr_expect_eq(taken, 0);
	cr_assert_eq(store_run_finish(st, run, RUN_OK, NULL, NULL), 0);
	cr_assert_eq(store_run_start(st, &key, 1, boot, "/r/1", &run), 0);
	cr_assert_eq(store_run_finish(st, run, RUN_FAILED, "x", NULL), 0);
	cr_assert_eq(store_lava_taken(st, boot, &taken), 0);
	cr_expect_eq(taken, 2);
	/* both outputs taken: no batch to go on with */
	cr_expect_eq(store_lava_open(st, "box1", c, k, &j), 0);
	/* an ended batch is never waited on again */
	cr_assert_eq(store_lava_add(st, "robot box1 b", "box1", c, k, 2, &b),
		     0);
	cr_assert_eq(store_lava_finish(st, b, "infra", 0, "lab trouble"), 0);
	cr_expect_eq(store_lava_open(st, "box1", c, k, &j), 0);
	store_close(st);
}

/*
 * robot bisect log: a verdict that a later step drops (a culprit that did
 * not confirm: its "drop" and "reopen" lists) is a comment, so that `git
 * bisect replay` of the log applies the verdicts that stand; the commit's
 * later verdict is a command again.
 */
Test(store, a_dropped_verdict_is_not_replayed)
{
	static const char x[] = "1111111111111111111111111111111111111111",
			  y[] = "2222222222222222222222222222222222222222",
			  z[] = "3333333333333333333333333333333333333333",
			  why[] = "{\"why\": \"w\"}",
			  conf[] = "[{\"parent\": \"2222222222222222222222"
				   "222222222222222222\", \"parent_mean\": 90, "
				   "\"culprit_mean\": 60, \"parent_runs\": 2, "
				   "\"culprit_runs\": 2, \"change_pct\": "
				   "-33.333, \"p\": 0.001}]";
	struct store *st;
	char *buf = NULL, *drop;
	size_t len = 0;
	int64_t id;
	FILE *f;

	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	cr_assert_eq(store_bisection_create(
			     st, "k", NULL, "job", "m",
			     "[\"4444444444444444444444444444444444444444\"]",
			     "5555555555555555555555555555555555555555", "cmd",
			     &id),
		     0);
	drop = xstrfmt("{\"drop\": [\"%s\"], \"after_run\": 0, \"reopen\": "
		       "[\"%s\"], \"numbers\": null}",
		       y, x);
	{
		const struct {
			const char *kind, *commit, *verdict, *detail;
		} steps[] = {
			{ "verdict", x, "good", why },
			{ "verdict", y, "bad", why },
			{ "unconfirmed", y, NULL, drop },
			{ "verdict", x, "bad", why },
			{ "verdict", z, "good", why },
			{ "confirmed", z, NULL, conf },
		};
		size_t i;

		for (i = 0; i < RB_ARRAY_SIZE(steps); i++)
			cr_assert_eq(store_bisection_step_add(
					     st, id, steps[i].kind,
					     steps[i].commit,
					     steps[i].verdict ? "h" : NULL,
					     steps[i].verdict, steps[i].detail),
				     0);
	}
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(bisection_print_log(f, st, NULL, id), 0, "%s",
		     rb_errmsg());
	fclose(f);
	cr_expect(strstr(buf, "\n# git bisect good 1111111111111111111111111111"
			      "111111111111 (dropped later)\n"),
		  "%s", buf);
	cr_expect(strstr(buf, "\n# git bisect bad 22222222222222222222222222222"
			      "22222222222 (dropped later)\n"),
		  "%s", buf);
	cr_expect(strstr(buf, "\ngit bisect bad 111111111111111111111111111111"
			      "1111111111\n"),
		  "%s", buf);
	cr_expect(strstr(buf, "\ngit bisect good 33333333333333333333333333333"
			      "33333333333\n"),
		  "%s", buf);
	cr_expect(!strstr(buf, "\ngit bisect good 1111"), "%s", buf);
	/* the confirmation's numbers in parentheses after the commit, as
	 * a verdict's: not run into its subject */
	cr_expect(strstr(buf, "\n# confirmed: [3333333333333333333333333333333"
			      "333333333] (parent 222222222222 90 (2 runs), "
			      "culprit 60 (2 runs), change -33.33%, p = "
			      "0.0010)\n"),
		  "%s", buf);
	free(buf);
	free(drop);
	store_close(st);
}

/*
 * The run directories left on a host: kept across robots (a later one
 * ends them), per host, oldest first, one row a directory, until gone.
 */
Test(store, left_behind_dirs_outlive_their_robot)
{
	struct svec a = SVEC_INIT, b = SVEC_INIT;
	struct store *st;

	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	cr_assert_eq(store_left_behind_add(st, "box1", "/tmp/robot-run.7.1"), 0,
		     "%s", rb_errmsg());
	cr_assert_eq(store_left_behind_add(st, "box2", "/tmp/robot-run.7.2"),
		     0);
	cr_assert_eq(store_left_behind_add(st, "box1", "/tmp/robot-run.7.3"),
		     0);
	/* the same one again (a second cut on one run) changes nothing */
	cr_assert_eq(store_left_behind_add(st, "box1", "/tmp/robot-run.7.1"),
		     0);
	store_close(st);

	cr_assert_eq(store_open(&st, dir), 0, "%s", rb_errmsg());
	cr_assert_eq(store_left_behind(st, "box1", &a), 0, "%s", rb_errmsg());
	cr_assert_eq(a.nr, 2);
	cr_expect_str_eq(a.v[0], "/tmp/robot-run.7.1");
	cr_expect_str_eq(a.v[1], "/tmp/robot-run.7.3");
	cr_assert_eq(store_left_behind_gone(st, "box1", "/tmp/robot-run.7.1"),
		     0);
	/* another host's is its own */
	cr_assert_eq(store_left_behind_gone(st, "box2", "/tmp/robot-run.7.3"),
		     0);
	svec_clear(&a);
	cr_assert_eq(store_left_behind(st, "box1", &a), 0);
	cr_assert_eq(a.nr, 1);
	cr_expect_str_eq(a.v[0], "/tmp/robot-run.7.3");
	cr_assert_eq(store_left_behind(st, "box2", &b), 0);
	cr_assert_eq(b.nr, 1);
	cr_expect_str_eq(b.v[0], "/tmp/robot-run.7.2");
	svec_clear(&a);
	svec_clear(&b);
	store_close(st);
}
