// SPDX-License-Identifier: GPL-2.0-only
/*
 * The session's ops on the real things: its records in the store (the
 * steps and samples of the bisection), the culprit's parents from git, and
 * worker threads that run its tasks on the lab's hosts.
 */
#include <pthread.h>

#include "robot.h"
#include "build-gate.h"
#include "context.h"
#include "measure.h"
#include "repo.h"
#include "runner.h"
#include "sbuf.h"
#include "session-exec.h"
#include "store.h"

struct worker {
	struct session_exec_real *x;
	int idx;
	pthread_t th;
	bool started;
	struct runner r;
	bool runner_up;
	struct measure m;
	struct store *st;
	struct rb_repo *repo;
	bool has_task;
	char task[RB_OID_HEXSZ + 1];
};

/* A thread that builds what the session's look-ahead lists. */
struct builder {
	struct session_exec_real *x;
	pthread_t th;
	bool started;
	struct runner r;
	bool runner_up;
	struct store *st;
	struct rb_repo *repo;
};

struct session_exec_real {
	struct ctx *c;
	int64_t bisection_id;
	const char *metric;
	/* what steps() and samples() lend the session */
	struct bisection_step_rec *steps;
	size_t steps_nr;
	struct run_sample *samples;
	size_t samples_nr;
	int nr;
	struct worker *w;
	pthread_mutex_t mu;
	pthread_cond_t task_cv, done_cv;
	bool quit;
	struct session_result *done; /* finished tasks, FIFO */
	size_t done_nr;
	/* build slots (every runner's) and the builders ahead */
	struct build_gate gate;
	bool gate_up;
	struct builder *b;
	int nr_b;
	/* the last look-ahead (under mu): 0 open, 1 taken by a builder */
	char (*ahead)[RB_OID_HEXSZ + 1];
	uint8_t *ahead_taken;
	size_t ahead_nr;
	unsigned long ahead_gen;
};

static void result(struct worker *w, enum session_outcome o, int64_t run_id,
		   const char *why)
{
	struct session_exec_real *x = w->x;
	struct session_result *res;

	/* a run a SIGINT cut short says nothing: the process is ending */
	if (rb_stop_requested())
		return;
	pthread_mutex_lock(&x->mu);
	res = &x->done[x->done_nr++];
	memset(res, 0, sizeof(*res));
	res->host = w->idx;
	snprintf(res->commit, sizeof(res->commit), "%s", w->task);
	res->outcome = o;
	res->run_id = run_id;
	snprintf(res->why, sizeof(res->why), "%s", why ? why : "");
	w->has_task = false;
	pthread_cond_signal(&x->done_cv);
	pthread_mutex_unlock(&x->mu);
}

/*
 * A metric that only a run could check (payload_metric_check) and that the
 * run does not have: the bisection cannot go on (why: the line).
 */
static const char *no_metric(struct worker *w, const struct statset *stats,
			     struct sbuf *why)
{
	const char **names = xcalloc(stats->nr + 1, sizeof(*names));
	const char *hint;
	size_t i;

	for (i = 0; i < stats->nr; i++)
		names[i] = stats->v[i].name;
	hint = rb_suggest(w->x->metric, names, stats->nr);
	sbuf_reset(why);
	sbuf_addf(why,
		  "unknown metric '%s': the run at %.12s has %zu stats, "
		  "not this one",
		  w->x->metric, w->task, stats->nr);
	if (hint)
		sbuf_addf(why, " (did you mean '%s'?)", hint);
	free(names);
	return why->buf;
}

/* One attempt of the measure path; the session applies the policy. */
static void work(struct worker *w)
{
	static const enum session_outcome of[] = {
		[MEASURE_OK] = SESSION_RUN_OK,
		[MEASURE_SKIP] = SESSION_RUN_SKIP,
		[MEASURE_FAILED] = SESSION_RUN_FAILED,
		[MEASURE_INFRA] = SESSION_RUN_INFRA,
	};
	struct measure_result res;
	struct statset stats = STATSET_INIT;
	struct sbuf why = SBUF_INIT;

	w->r.bad_input = false;
	memset(&res, 0, sizeof(res));
	if (measure_once(&w->m, w->task, &res, &stats, &why) < 0)
		/* a host whose payload cannot run the job: no retry helps */
		result(w,
		       w->r.bad_input ? SESSION_RUN_BAD_INPUT :
					SESSION_RUN_INFRA,
		       0, rb_errmsg());
	else if (res.outcome == MEASURE_OK &&
		 !statset_get(&stats, w->x->metric))
		result(w, SESSION_RUN_BAD_INPUT, res.run_id,
		       no_metric(w, &stats, &why));
	else
		result(w, of[res.outcome], res.run_id,
		       res.outcome == MEASURE_OK ? NULL : why.buf);
	/* a box that waited a second or more for its kernel: the time
	 * building ahead is there to save */
	if (res.build_wait >= 1 &&
	    store_bisection_add_wait(w->st, w->x->bisection_id,
				     res.build_wait) < 0)
		rb_warn("%s", rb_errmsg());
	statset_release(&stats);
	sbuf_release(&why);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct session_exec_real *x = w->x;

	for (;;) {
		pthread_mutex_lock(&x->mu);
		while (!w->has_task && !x->quit)
			pthread_cond_wait(&x->task_cv, &x->mu);
		if (x->quit) {
			pthread_mutex_unlock(&x->mu);
			return NULL;
		}
		pthread_mutex_unlock(&x->mu);
		work(w);
	}
}

/*
 * Build the look-ahead's commits, the likeliest first, while a slot is
 * free. A commit that cannot start for want of a slot is tried again when
 * a slot is left; one that another thread builds (a box, or another
 * builder: it may hang there for as long as its build takes) is passed
 * over for the next; one built, failed or found complete is not tried
 * again until the next look-ahead.
 */
static void *builder_main(void *arg)
{
	struct builder *b = arg;
	struct session_exec_real *x = b->x;
	unsigned long seen = build_gate_epoch(&x->gate);
	struct sbuf why = SBUF_INIT;

	for (;;) {
		char commit[RB_OID_HEXSZ + 1];
		unsigned long gen = 0;
		enum step_outcome so;
		long rank = -1;
		size_t i;
		int r;

		pthread_mutex_lock(&x->mu);
		/* a robot asked to stop starts no build ahead */
		if (x->quit || rb_stop_requested()) {
			pthread_mutex_unlock(&x->mu);
			break;
		}
		for (i = 0; i < x->ahead_nr && rank < 0; i++)
			if (!x->ahead_taken[i]) {
				rank = (long)i;
				x->ahead_taken[i] = 1;
				memcpy(commit, x->ahead[i], sizeof(commit));
				gen = x->ahead_gen;
			}
		pthread_mutex_unlock(&x->mu);
		if (rank < 0) {
			if (!build_gate_wait(&x->gate, &seen))
				break;
			continue;
		}
		sbuf_reset(&why);
		r = runner_build_ahead(&b->r, commit, (unsigned)rank, &so,
				       &why);
		if (r < 0)
			rb_warn("building %.12s ahead: %s", commit,
				rb_errmsg());
		if (r != 1)
			continue; /* 2: taken by another thread, the next */
		pthread_mutex_lock(&x->mu);
		if (x->ahead_gen == gen)
			x->ahead_taken[rank] = 0;
		pthread_mutex_unlock(&x->mu);
		if (!build_gate_wait(&x->gate, &seen))
			break;
	}
	sbuf_release(&why);
	return NULL;
}

static void x_ahead(void *data, const char (*commits)[RB_OID_HEXSZ + 1],
		    size_t n)
{
	struct session_exec_real *x = data;

	pthread_mutex_lock(&x->mu);
	free(x->ahead);
	free(x->ahead_taken);
	x->ahead = xcalloc(n + 1, sizeof(*x->ahead));
	x->ahead_taken = xcalloc(n + 1, 1);
	memcpy(x->ahead, commits, n * sizeof(*x->ahead));
	x->ahead_nr = n;
	x->ahead_gen++;
	pthread_mutex_unlock(&x->mu);
	build_gate_poke(&x->gate);
}

static int x_start(void *data, int h, const char *commit)
{
	struct session_exec_real *x = data;
	struct worker *w = &x->w[h];

	pthread_mutex_lock(&x->mu);
	if (w->has_task) {
		pthread_mutex_unlock(&x->mu);
		RB_BUG("host %d is busy", h);
	}
	snprintf(w->task, sizeof(w->task), "%s", commit);
	w->has_task = true;
	pthread_cond_broadcast(&x->task_cv);
	pthread_mutex_unlock(&x->mu);
	return 0;
}

static int x_wait(void *data, struct session_result *res)
{
	struct session_exec_real *x = data;

	pthread_mutex_lock(&x->mu);
	while (!x->done_nr)
		pthread_cond_wait(&x->done_cv, &x->mu);
	*res = x->done[0];
	memmove(x->done, x->done + 1, (x->done_nr - 1) * sizeof(*x->done));
	x->done_nr--;
	pthread_mutex_unlock(&x->mu);
	return 0;
}

static double x_now(void *data)
{
	return rb_monotonic();
}

static void x_pause(void *data, double seconds)
{
	rb_sleep(seconds);
}

/* --- the records ------------------------------------------------------- */

static int x_steps(void *data, const struct bisection_step_rec **out, size_t *n)
{
	struct session_exec_real *x = data;

	bisection_steps_free(x->steps, x->steps_nr);
	x->steps = NULL;
	x->steps_nr = 0;
	if (store_bisection_steps(x->c->st, x->bisection_id, &x->steps,
				  &x->steps_nr) < 0)
		return -1;
	*out = x->steps;
	*n = x->steps_nr;
	return 0;
}

static int x_samples(void *data, const char *commit,
		     const struct run_sample **out, size_t *n)
{
	struct session_exec_real *x = data;

	run_samples_free(x->samples, x->samples_nr);
	x->samples = NULL;
	x->samples_nr = 0;
	if (store_bisection_samples(x->c->st, x->bisection_id, commit,
				    x->metric, &x->samples, &x->samples_nr) < 0)
		return -1;
	*out = x->samples;
	*n = x->samples_nr;
	return 0;
}

static int x_step_add(void *data, const char *kind, const char *commit,
		      const char *host, const char *verdict, const char *detail)
{
	struct session_exec_real *x = data;

	return store_bisection_step_add(x->c->st, x->bisection_id, kind, commit,
					host, verdict, detail);
}

static int64_t x_last_run_id(void *data)
{
	struct session_exec_real *x = data;

	return store_last_run_id(x->c->st);
}

static int x_parents(void *data, const uint8_t *oid,
		     uint8_t (**out)[RB_OID_RAWSZ], size_t *n)
{
	struct session_exec_real *x = data;

	return rb_repo_parents(x->c->repo, oid, out, n);
}

int session_exec_real_start(struct session_exec_real **out, struct ctx *c,
			    int64_t bisection_id, const char *metric,
			    struct session_ops *ops)
{
	struct session_exec_real *x = xcalloc(1, sizeof(*x));
	int i;

	*out = NULL;
	x->c = c;
	x->bisection_id = bisection_id;
	x->metric = metric;
	x->nr = (int)c->nr_hosts;
	x->w = xcalloc((size_t)x->nr, sizeof(*x->w));
	x->done = xcalloc((size_t)x->nr, sizeof(*x->done));
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->task_cv, NULL);
	pthread_cond_init(&x->done_cv, NULL);
	for (i = 0; i < x->nr; i++) {
		struct worker *w = &x->w[i];
		struct job *j = ctx_job(c, (size_t)i);

		w->x = x;
		w->idx = i;
		if (!j || store_open(&w->st, c->lab.workdir) < 0 ||
		    rb_repo_open(&w->repo, c->lab.tree.path) < 0 ||
		    runner_init(&w->r, &c->lab, w->st, w->repo, j, i) < 0)
			goto fail;
		w->runner_up = true;
		w->r.quiet = true;
		measure_init(&w->m, &w->r, c->hosts[i]);
		store_set_bisection(w->st, bisection_id);
	}
	if (build_gate_init(&x->gate, (int)c->lab.builds.slots,
			    &c->lab.builds.hosts) < 0)
		goto fail;
	x->gate_up = true;
	for (i = 0; i < x->nr; i++)
		x->w[i].r.gate = &x->gate;
	/* a builder per slot, its worktree after the hosts' */
	x->nr_b = c->lab.builds.ahead ? x->gate.nr : 0;
	x->b = xcalloc((size_t)x->nr_b + 1, sizeof(*x->b));
	for (i = 0; i < x->nr_b; i++) {
		struct builder *b = &x->b[i];

		b->x = x;
		if (!ctx_job(c, 0) || store_open(&b->st, c->lab.workdir) < 0 ||
		    rb_repo_open(&b->repo, c->lab.tree.path) < 0 ||
		    runner_init(&b->r, &c->lab, b->st, b->repo, ctx_job(c, 0),
				x->nr + i) < 0)
			goto fail;
		b->runner_up = true;
		b->r.quiet = true;
		b->r.gate = &x->gate;
		store_set_bisection(b->st, bisection_id);
	}
	for (i = 0; i < x->nr; i++) {
		if (pthread_create(&x->w[i].th, NULL, worker_main, &x->w[i])) {
			rb_error("cannot start a worker thread");
			goto fail;
		}
		x->w[i].started = true;
	}
	for (i = 0; i < x->nr_b; i++) {
		if (pthread_create(&x->b[i].th, NULL, builder_main, &x->b[i])) {
			rb_error("cannot start a builder thread");
			goto fail;
		}
		x->b[i].started = true;
	}
	ops->data = x;
	ops->steps = x_steps;
	ops->samples = x_samples;
	ops->step_add = x_step_add;
	ops->last_run_id = x_last_run_id;
	ops->parents = x_parents;
	ops->start = x_start;
	ops->wait = x_wait;
	ops->now = x_now;
	ops->pause = x_pause;
	ops->ahead = x->nr_b ? x_ahead : NULL;
	*out = x;
	return 0;
fail:
	session_exec_real_stop(x);
	return -1;
}

void session_exec_real_stop(struct session_exec_real *x)
{
	int i;

	if (!x)
		return;
	pthread_mutex_lock(&x->mu);
	/* a worker still running its task finishes it: runs are stored */
	while (1) {
		bool busy = false;

		for (i = 0; i < x->nr; i++)
			busy |= x->w[i].has_task;
		if (!busy)
			break;
		pthread_cond_wait(&x->done_cv, &x->mu);
	}
	x->quit = true;
	pthread_cond_broadcast(&x->task_cv);
	pthread_mutex_unlock(&x->mu);
	/* builds ahead still going are of no use to this robot: stopped
	 * (their artifacts stay incomplete, never used) */
	if (x->gate_up)
		build_gate_close(&x->gate);
	for (i = 0; i < x->nr_b; i++) {
		struct builder *b = &x->b[i];

		if (b->started)
			pthread_join(b->th, NULL);
		if (b->runner_up)
			runner_release(&b->r);
		rb_repo_free(b->repo);
		store_close(b->st);
	}
	for (i = 0; i < x->nr; i++) {
		struct worker *w = &x->w[i];

		if (w->started)
			pthread_join(w->th, NULL);
		if (w->runner_up) {
			measure_release(&w->m);
			runner_release(&w->r);
		}
		rb_repo_free(w->repo);
		store_close(w->st);
	}
	if (x->gate_up)
		build_gate_release(&x->gate);
	free(x->b);
	free(x->ahead);
	free(x->ahead_taken);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->task_cv);
	pthread_cond_destroy(&x->done_cv);
	free(x->w);
	free(x->done);
	bisection_steps_free(x->steps, x->steps_nr);
	run_samples_free(x->samples, x->samples_nr);
	free(x);
}
