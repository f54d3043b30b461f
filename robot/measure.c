// SPDX-License-Identifier: GPL-2.0-only
/* The one measure path (measure.h). */

#include <unistd.h>

#include "robot.h"
#include "infra.h"
#include "lab.h"
#include "lava-exec.h"
#include "measure.h"
#include "runner.h"
#include "sbuf.h"
#include "transport.h"

void measure_init(struct measure *m, struct runner *r,
		  const struct lab_host *host)
{
	memset(m, 0, sizeof(*m));
	m->r = r;
	m->host = host;
}

void measure_release(struct measure *m)
{
	lava_slot_free(m->lava);
	m->lava = NULL;
}

/*
 * Built by this host lately: no need to look. Not with a cache limit: the
 * kernel may have gone, or been built again ahead since, and
 * runner_build's look (under the artifact's lock) marks this use of it,
 * which the cache's rules go by.
 */
static bool was_built(const struct measure *m, const char *commit)
{
	if (m->r->lab->builds.cache_bytes)
		return false;
	return !strcmp(m->built[0], commit) || !strcmp(m->built[1], commit);
}

static enum measure_outcome of_step(enum step_outcome o)
{
	return o == STEP_SKIP ? MEASURE_SKIP :
	       o == STEP_OK   ? MEASURE_OK :
				MEASURE_INFRA;
}

int measure_once(struct measure *m, const char *commit,
		 struct measure_result *res, struct statset *stats,
		 struct sbuf *why)
{
	struct statset own = STATSET_INIT;
	enum step_outcome so;
	enum run_status rs;
	int ret = -1, use = -1;
	bool runs_it = !strcmp(m->booted, commit);

	memset(res, 0, sizeof(*res));
	sbuf_reset(why);
	res->stage = MEASURE_BUILD;
	/*
	 * A host that runs the commit already needs no artifact. Else,
	 * with a cache limit, the artifact is held from its build (or the
	 * check that it is still there) to the end of the boot.
	 */
	if (!runs_it && m->r->lab->builds.cache_bytes &&
	    (use = runner_artifact_hold(m->r, commit)) < 0)
		return -1;
	if (!runs_it && !was_built(m, commit)) {
		double t0 = rb_monotonic();

		if (runner_build(m->r, commit, &so, why) < 0)
			goto out;
		res->build_wait = rb_monotonic() - t0;
		res->outcome = of_step(so);
		if (so != STEP_OK) {
			ret = 0;
			goto out;
		}
		memcpy(m->built[1], m->built[0], sizeof(m->built[0]));
		snprintf(m->built[0], sizeof(m->built[0]), "%s", commit);
	}
	if (transport_host_is_lava(m->host)) {
		/* LAVA boots and runs in one job */
		ret = lava_measure(m, commit, res, stats ? stats : &own, why);
		goto out;
	}
	res->stage = MEASURE_BOOT;
	if (!runs_it) {
		m->booted[0] = '\0';
		if (runner_boot(m->r, m->host, commit, &m->boot_id, &so, why) <
		    0)
			goto out;
		res->outcome = of_step(so);
		if (so != STEP_OK) {
			ret = 0;
			goto out;
		}
		snprintf(m->booted, sizeof(m->booted), "%s", commit);
	}
	if (use >= 0) {
		close(use);
		use = -1;
	}
	res->stage = MEASURE_RUN;
	if (runner_run(m->r, m->host, commit, m->boot_id, &rs,
		       stats ? stats : &own, why) < 0)
		goto out;
	switch (rs) {
	case RUN_OK:
		res->outcome = MEASURE_OK;
		res->run_id = m->r->last_run_id;
		break;
	case RUN_FAILED:
		res->outcome = MEASURE_FAILED;
		break;
	default:
		/* the box may be gone: boot it again before the next run */
		m->booted[0] = '\0';
		res->outcome = MEASURE_INFRA;
		break;
	}
	ret = 0;
out:
	if (use >= 0)
		close(use);
	statset_release(&own);
	return ret;
}

static void note(struct measure *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct measure *m, const char *fmt, ...)
{
	struct sbuf line = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (m->note)
		m->note(m->arg, line.buf);
	else
		rb_warn("%s", line.buf);
	sbuf_release(&line);
}

int measure_retry(struct measure *m, const char *commit,
		  struct measure_result *res, struct statset *stats,
		  struct sbuf *why)
{
	int failures = 0;

	for (;;) {
		const char *again;

		if (stats)
			statset_release(stats);
		if (measure_once(m, commit, res, stats, why) < 0)
			return -1;
		if (res->outcome != MEASURE_INFRA)
			return 0;
		failures++;
		again = failures < INFRA_MAX_FAILURES ? ", retrying" : "";
		if (res->stage == MEASURE_BUILD)
			note(m, "build of %.12s failed (infrastructure)%s: %s",
			     commit, again, why->buf);
		else if (res->stage == MEASURE_BOOT)
			note(m,
			     "boot of %s into %.12s failed "
			     "(infrastructure)%s: %s",
			     m->host->name, commit, again, why->buf);
		else
			note(m, "run on %s failed (infrastructure)%s: %s",
			     m->host->name, again, why->buf);
		if (failures >= INFRA_MAX_FAILURES)
			break;
		rb_sleep(infra_pause(failures));
	}
	if (res->stage == MEASURE_BUILD)
		return rb_error("giving up on building %.12s after %d "
				"infrastructure failures in a row: %s",
				commit, failures, why->buf);
	return rb_error("giving up on %s after %d infrastructure failures in "
			"a row: %s",
			m->host->name, failures, why->buf);
}
