// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bisection loop driven by a fake executor (deterministic numbers from
 * a model of the history) over a real git repository and a real store.
 *
 * History (linear, built by the test with git):
 *
 *   c0 - c1 - c2 - ... - c19        c0 good, c19 bad
 *
 * The model: commits from the culprit on measure `slow`, the others
 * `fast`, plus seeded noise; listed commits cannot be built (skip).
 */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot.h"
#include "repo.h"
#include "session.h"
#include "store.h"

#define NC 20

static char dir[64];
static char shas[NC][RB_OID_HEXSZ + 1];

struct fake {
	struct store *st;
	int64_t bisection_id;
	int culprit; /* index, or -1: no change */
	bool skip[NC];
	double fast, slow, noise;
	uint64_t rng;
	/* FIFO of started runs */
	struct session_result q[8];
	int nq;
	double clock;
	int runs;
	int flaky_parent; /* this many first runs of culprit-1 read slow */
};

static int index_of(const char *hex)
{
	int i;

	for (i = 0; i < NC; i++)
		if (!strcmp(shas[i], hex))
			return i;
	return -1;
}

static double uniform(struct fake *f)
{
	f->rng = f->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(f->rng >> 11) / 9007199254740992.0;
}

static int f_start(void *data, int h, const char *commit)
{
	struct fake *f = data;
	struct session_result *r = &f->q[f->nq++];
	struct run_key key = {
		"stress-ng", "t", "box", "r", "k", "gcc", commit
	};
	struct statset s = STATSET_INIT;
	int i = index_of(commit), no;
	double v;

	memset(r, 0, sizeof(*r));
	r->host = h;
	snprintf(r->commit, sizeof(r->commit), "%s", commit);
	if (i >= 0 && f->skip[i]) {
		r->outcome = SESSION_RUN_SKIP;
		snprintf(r->why, sizeof(r->why), "does not build");
		return 0;
	}
	v = f->culprit >= 0 && i >= f->culprit ? f->slow : f->fast;
	if (f->flaky_parent > 0 && i == f->culprit - 1) {
		f->flaky_parent--;
		v = f->slow;
	}
	v += f->noise * (uniform(f) + uniform(f) + uniform(f) - 1.5);
	statset_set(&s, "stress-ng.x.ops_per_sec", v);
	cr_assert_eq(store_next_run_no(f->st, &key, &no), 0);
	cr_assert_eq(store_run_start(f->st, &key, no, 0, "/r", &r->run_id), 0);
	cr_assert_eq(store_run_finish(f->st, r->run_id, RUN_OK, NULL, &s), 0);
	statset_release(&s);
	r->outcome = SESSION_RUN_OK;
	f->runs++;
	return 0;
}

static int f_wait(void *data, struct session_result *res)
{
	struct fake *f = data;

	cr_assert_gt(f->nq, 0, "wait with nothing started");
	*res = f->q[0];
	memmove(f->q, f->q + 1, (size_t)(f->nq - 1) * sizeof(*f->q));
	f->nq--;
	return 0;
}

static double f_now(void *data)
{
	struct fake *f = data;

	return f->clock += 1;
}

static void git(const char *const *argv)
{
	pid_t pid = fork();
	int status;

	if (!pid) {
		if (chdir(dir) < 0)
			_exit(127);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status), "%s", argv[1]);
}

static void setup(void)
{
	struct rb_repo *r;
	uint8_t oid[RB_OID_RAWSZ];
	char msg[32], date[64];
	int i;

	snprintf(dir, sizeof(dir), "/tmp/robot-session-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	git((const char *const[]){ "git", "init", "-q", "-b", "master", ".",
				   NULL });
	for (i = 0; i < NC; i++) {
		snprintf(msg, sizeof(msg), "c%d", i);
		snprintf(date, sizeof(date),
			 "GIT_COMMITTER_DATE=2026-01-01T00:00:%02dZ", i);
		putenv(date);
		git((const char *const[]){ "git", "-c", "user.name=T", "-c",
					   "user.email=t@example.org", "commit",
					   "-q", "--allow-empty", "-m", msg,
					   NULL });
	}
	unsetenv("GIT_COMMITTER_DATE");
	cr_assert_eq(rb_repo_open(&r, dir), 0);
	for (i = 0; i < NC; i++) {
		char rev[16];

		snprintf(rev, sizeof(rev), "HEAD~%d", NC - 1 - i);
		cr_assert_eq(rb_repo_resolve(r, rev, oid), 0);
		rb_oid_hex(oid, shas[i]);
	}
	rb_repo_free(r);
}

static void teardown(void)
{
	rb_remove_tree(dir);
}

TestSuite(session, .init = setup, .fini = teardown);

/* One bisection over the model: its outcome (and the fake's run count). */
static int bisect(struct fake *f, struct session_outcome_info *out,
		  const char *threshold, int64_t *id_out)
{
	struct session_exec ops = {
		.data = f, .start = f_start, .wait = f_wait, .now = f_now
	};
	struct session_config cfg = { 0 };
	const char *hosts[] = { "box" };
	uint8_t goods[1][RB_OID_RAWSZ];
	struct rb_repo *repo;
	char *work = xstrfmt("%s/.work", dir);
	int64_t id;
	int r;

	if (!f->st)
		cr_assert_eq(store_open(&f->st, work), 0, "%s", rb_errmsg());
	cr_assert_eq(rb_repo_open(&repo, dir), 0);
	if (!f->bisection_id)
		cr_assert_eq(store_bisection_create(f->st, "k", "j",
						    "stress-ng.x.ops_per_sec",
						    "[]", shas[NC - 1], "cmd",
						    &f->bisection_id),
			     0);
	id = f->bisection_id;
	store_set_bisection(f->st, id);
	cfg.st = f->st;
	cfg.repo = repo;
	cfg.exec = &ops;
	cfg.bisection_id = id;
	cfg.hosts = hosts;
	cfg.nr_hosts = 1;
	cfg.metric = "stress-ng.x.ops_per_sec";
	cr_assert_eq(rb_oid_from_hex(cfg.bad, shas[NC - 1]), 0);
	cr_assert_eq(rb_oid_from_hex(goods[0], shas[0]), 0);
	cfg.goods = (const uint8_t(*)[RB_OID_RAWSZ])goods;
	cfg.nr_goods = 1;
	stats_policy_init(&cfg.policy);
	cfg.policy.direction = 1;
	cr_assert_eq(session_parse_threshold(&cfg.policy, threshold), 0);
	r = session_run(&cfg, out);
	rb_repo_free(repo);
	free(work);
	if (id_out)
		*id_out = id;
	return r;
}

Test(session, finds_and_confirms_the_culprit)
{
	struct fake f = {
		.culprit = 11, .fast = 100, .slow = 70, .noise = 6, .rng = 1
	};
	struct session_outcome_info out;

	cr_assert_eq(bisect(&f, &out, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_FOUND, "%s", out.message);
	cr_assert_str_eq(out.culprit, shas[11]);
	cr_assert_eq(out.parents_nr, 1);
	cr_assert_str_eq(out.parents[0], shas[10]);
	cr_assert_gt(out.confidence, 0.98);
	cr_assert_float_eq(out.threshold, 85, 5);
	session_outcome_release(&out);
	store_close(f.st);
}

Test(session, null_history_is_not_reproduced)
{
	struct fake f = { .culprit = -1, .fast = 100, .noise = 6, .rng = 2 };
	struct session_outcome_info out;

	cr_assert_eq(bisect(&f, &out, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_NOT_REPRODUCED);
	cr_assert(strstr(out.message, "not reproduced") != NULL, "%s",
		  out.message);
	session_outcome_release(&out);
	store_close(f.st);
}

/* A drop too small for the threshold asked: not reproduced. */
Test(session, threshold_beyond_the_change)
{
	struct fake f = {
		.culprit = 5, .fast = 100, .slow = 97, .noise = 0.5, .rng = 3
	};
	struct session_outcome_info out;

	cr_assert_eq(bisect(&f, &out, "-20%", NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_NOT_REPRODUCED, "%s", out.message);
	session_outcome_release(&out);
	store_close(f.st);
}

/* Zero-variance data (QEMU under icount) decide at the minimum runs. */
Test(session, zero_variance)
{
	struct fake f = { .culprit = 7, .fast = 47, .slow = 42, .rng = 4 };
	struct session_outcome_info out;

	cr_assert_eq(bisect(&f, &out, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_FOUND, "%s", out.message);
	cr_assert_str_eq(out.culprit, shas[7]);
	cr_assert_lt(f.runs, 40, "%d runs for deterministic numbers", f.runs);
	session_outcome_release(&out);
	store_close(f.st);
}

/* The culprit's neighbours cannot be built: git's only-skipped list. */
Test(session, only_skipped_left)
{
	struct fake f = {
		.culprit = 9, .fast = 100, .slow = 50, .noise = 2, .rng = 5
	};
	struct session_outcome_info out;
	size_t i;
	bool has9 = false;

	f.skip[8] = f.skip[9] = true;
	cr_assert_eq(bisect(&f, &out, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_ONLY_SKIPPED, "%s",
		     session_status_name(out.status));
	for (i = 0; i < out.list_nr; i++)
		has9 |= !strcmp(out.list[i], shas[9]);
	cr_assert(has9, "the culprit is not in the list");
	session_outcome_release(&out);
	store_close(f.st);
}

/*
 * The parent reads slow in its bisection runs but not in the
 * confirmation: the first culprit (c10) does not confirm, the bisection
 * goes back into the range and ends at the real one. With this little
 * noise a step decides on min_runs (2) runs, so the parent's first 2 runs
 * read slow (the step is checked below to have used exactly those).
 */
Test(session, unconfirmed_culprit_goes_back_into_the_range)
{
	struct fake f = { .culprit = 11,
			  .fast = 100,
			  .slow = 60,
			  .noise = 0.5,
			  .rng = 6,
			  .flaky_parent = 2 };
	struct session_outcome_info out;
	struct bisection_step_rec *st;
	size_t n, i, unconfirmed = 0;

	cr_assert_eq(bisect(&f, &out, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_FOUND, "%s", out.message);
	cr_assert_str_eq(out.culprit, shas[11]);
	cr_assert_eq(store_bisection_steps(f.st, f.bisection_id, &st, &n), 0);
	for (i = 0; i < n; i++) {
		unconfirmed += !strcmp(st[i].kind, "unconfirmed");
		if (!strcmp(st[i].kind, "verdict") &&
		    !strcmp(st[i].commit, shas[10]) && unconfirmed == 0)
			cr_assert(strstr(st[i].detail, "\"runs\": 2,") &&
					  !strcmp(st[i].verdict, "bad"),
				  "the transient should fool c10's step: %s",
				  st[i].detail);
	}
	bisection_steps_free(st, n);
	cr_assert_eq(unconfirmed, 1);
	session_outcome_release(&out);
	store_close(f.st);
}

/* Resuming a finished (or half-done) bisection measures nothing again. */
Test(session, resume_replays_without_measuring)
{
	struct fake f = {
		.culprit = 13, .fast = 100, .slow = 70, .noise = 4, .rng = 7
	};
	struct session_outcome_info out, again;
	int runs;

	cr_assert_eq(bisect(&f, &out, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(out.status, SESSION_FOUND);
	runs = f.runs;
	cr_assert_eq(bisect(&f, &again, NULL, NULL), 0, "%s", rb_errmsg());
	cr_assert_eq(again.status, SESSION_FOUND);
	cr_assert_str_eq(again.culprit, out.culprit);
	cr_assert_eq(f.runs, runs, "%d runs again", f.runs - runs);
	session_outcome_release(&out);
	session_outcome_release(&again);
	store_close(f.st);
}
