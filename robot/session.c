// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bisection loop: endpoints, rounds of picks, confirmation. See
 * session.h for the contract; the steps it appends to the store are
 *
 *   endpoint      verdict reproduced|not-reproduced, detail: the numbers
 *   round         the picks of a round (detail: their shas)
 *   verdict       commit, host, verdict good|bad|skip|weak, detail (a
 *                 confirmation's: "confirmation": true, "after_run": the
 *                 run id after which its fresh runs are the commit's)
 *   confirm-start commit (the culprit), host, detail: the run id after
 *                 which the interleaved runs start
 *   confirmed     commit, detail: the numbers
 *   unconfirmed   commit, detail: the commits whose verdicts are dropped
 *                 and the run id from which their runs count again,
 *                 "reopen": those dropped with their runs kept
 *   contradiction the same for the last round's verdicts, when they
 *                 contradict one first bad commit, or for none ("drop":
 *                 [], with "reopen") when only skipped commits are left
 *   finish        verdict: the final status
 */
#include <math.h>

#include "robot.h"
#include "infra.h"
#include "sbuf.h"
#include "session.h"
#include "svec.h"

/*
 * Times a culprit may fail to confirm before the bisection gives up (one
 * more after cheap steps). A failure costs a confirmation and a retry,
 * giving up costs the answer: under a change in several steps at 2 noise
 * sd the commits between the levels sit next to the threshold, and the
 * confirmation refutes a right culprit, or a retry lands on a wrong one,
 * several times before one confirms (simulated, 1,000 histories: 92.9%
 * right with 2 attempts, 96.7% with 4, 98.3% with 6, 99.0% with 8, for 5%
 * more runs; no other row loses). A culprit whose parent cannot be
 * measured is given up on the second time instead (failed_before).
 */
#define CONFIRM_ATTEMPTS 8
/*
 * Rounds whose verdicts contradict one first bad commit that are decided
 * again (one more after cheap steps), counting the failed confirmations:
 * a regression that comes and goes is not worth more.
 */
#define CONTRADICTION_ATTEMPTS 2u
/* Hosts the statistics can tell apart. */
#define MAX_STAT_HOSTS 16
/* Look-ahead: rounds deep, commits listed, picks of a round looked at. */
#define AHEAD_ROUNDS 3
#define AHEAD_MAX 16
#define AHEAD_PICKS 4
/*
 * Commits less likely to be tested than this are not listed: on the
 * simulation (tests/bench/stats-sim.c, two build slots) listing all the
 * look-ahead built 2.2 times the builds of a robot that does not build
 * ahead for the same wall time; from 0.35 on, 1.7 times.
 */
#define AHEAD_MIN_PROB 0.35

enum role { ROLE_NONE, ROLE_GOOD, ROLE_BAD, ROLE_CAND };

struct host_state {
	bool busy;
	int probe; /* index into probes, or -1 */
	enum role role;
	char commit[RB_OID_HEXSZ + 1];
	int infra; /* infrastructure failures in a row */
	bool next_good; /* the next anchor run here is the good one */
};

struct probe {
	uint32_t node;
	char hex[RB_OID_HEXSZ + 1];
	int host;
	bool done;
	enum rb_verdict verdict;
	char verdict_name[8];
	struct stats_step step;
	unsigned anchor_due; /* anchor runs still wanted before the next */
	unsigned anchor_good; /* how many of them are of the good anchor */
	unsigned order; /* when it was decided in its round (1, 2, ...) */
};

struct sess {
	const struct session_config *cfg;
	const struct session_ops *ops;
	struct stats_policy pol;
	const struct rb_graph *g;
	struct rb_bisect b;
	bool b_ready;
	char good_hex[RB_OID_HEXSZ + 1], bad_hex[RB_OID_HEXSZ + 1];
	struct host_state *hosts;
	struct probe *probes;
	size_t nr_probes;
	/* host names seen in stored runs beyond cfg->hosts (resumes with
	 * other hosts): their stats ids follow the configured ones */
	struct svec extra_hosts;
	/*
	 * Commits whose verdicts were dropped (an unconfirmed culprit, a
	 * contradiction): the runs after fresh_after[i] are theirs, the ones
	 * that made the dropped verdict are not used again
	 */
	struct svec fresh_hex;
	int64_t *fresh_after;
	size_t fresh_alloc;
	unsigned decided; /* steps decided good or bad */
	unsigned round_decided; /* verdicts in so far in this round */
	unsigned rounds;
	unsigned attempts; /* unconfirmed culprits so far */
	size_t anchor_runs_checked; /* the anchors' runs endpoint_again saw */
	double t0, run_time;
	unsigned runs_seen;
	struct sbuf line;
	/* the phase the status line and the heartbeat name ("measuring the
	 * endpoints"), NULL in the steps; when the last event was printed */
	const char *phase;
	double last_event;
	/* the look-ahead last handed to ops->ahead, and what it came from */
	char (*ahead)[RB_OID_HEXSZ + 1];
	size_t ahead_nr;
	uint64_t ahead_key[AHEAD_PICKS + 1];
};

const char *session_status_name(enum session_status s)
{
	switch (s) {
	case SESSION_FOUND:
		return "found";
	case SESSION_NOT_REPRODUCED:
		return "not-reproduced";
	case SESSION_ONLY_SKIPPED:
		return "only-skipped";
	case SESSION_INCONCLUSIVE:
		return "inconclusive";
	}
	return "unknown";
}

void session_outcome_release(struct session_outcome_info *o)
{
	free(o->list);
	free(o->parents);
	o->list = NULL;
	o->parents = NULL;
	o->list_nr = o->parents_nr = 0;
}

int session_parse_threshold(struct stats_policy *p, const char *text)
{
	double v;
	size_t n;

	p->threshold_kind = STATS_THRESHOLD_MIDPOINT;
	if (!text || !*text)
		return 0;
	n = strlen(text);
	if (text[n - 1] == '%') {
		int sign;

		if (stats_parse_pct(text, &v, &sign) < 0)
			return -1;
		if (!sign)
			return rb_error("threshold '%s': a percentage needs a "
					"sign (-5%%: a drop is the regression, "
					"+5%%: a rise is)",
					text);
		p->threshold_kind = STATS_THRESHOLD_PCT;
		p->threshold = v;
		p->direction = -sign;
		return 0;
	}
	if (rb_parse_double(text, &v) < 0 || !isfinite(v))
		return rb_error("threshold '%s' is not a number or a "
				"percentage",
				text);
	p->threshold_kind = STATS_THRESHOLD_VALUE;
	p->threshold = v;
	return 0;
}

/* --- progress --------------------------------------------------------- */

static double now(const struct sess *s)
{
	return s->ops->now(s->ops->data);
}

static void status_line(struct sess *s);

static void event(struct sess *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void event(struct sess *s, const char *fmt, ...)
{
	FILE *f = s->cfg->progress;
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	rb_vnotice_to(f, s->cfg->tty, fmt, ap);
	va_end(ap);
	s->last_event = now(s);
	status_line(s);
	fflush(f);
}

/*
 * A long phase (the endpoint check of a noisy metric, a step at its cap)
 * says at least once a minute, as runs end, that it goes on and how far.
 */
#define HEARTBEAT_SECONDS 60.0

static void heartbeat(struct sess *s, const struct session_result *res)
{
	if (!s->cfg->progress || now(s) - s->last_event < HEARTBEAT_SECONDS)
		return;
	if (s->phase)
		event(s, "%s: %u run%s so far, the last %.12s on %s", s->phase,
		      s->runs_seen, RB_PLURAL(s->runs_seen), res->commit,
		      s->cfg->hosts[res->host]);
	else
		event(s, "step %u: %u run%s so far, the last %.12s on %s",
		      s->rounds, s->runs_seen, RB_PLURAL(s->runs_seen),
		      res->commit, s->cfg->hosts[res->host]);
}

/*
 * On a terminal: one line kept at the bottom, "step i of about n, c
 * candidates, <commit>@<host>..., ~T left".
 */
static void status_line(struct sess *s)
{
	FILE *f = s->cfg->progress;
	int steps_left = 0;
	double per_run, eta;
	size_t i;

	if (!f || !s->cfg->tty)
		return;
	sbuf_reset(&s->line);
	if (s->phase) {
		sbuf_addstr(&s->line, s->phase);
	} else if (s->b_ready) {
		steps_left =
			rb_bisect_estimate_steps(rb_bisect_candidates(&s->b));
		/* between the endpoint check and the first round: step 1 */
		sbuf_addf(&s->line, "step %u of about %u, %u candidates",
			  RB_MAX(s->rounds, 1u),
			  RB_MAX(s->rounds, 1u) + (unsigned)steps_left,
			  rb_bisect_candidates(&s->b));
	} else {
		sbuf_addstr(&s->line, "measuring the endpoints");
	}
	for (i = 0; i < (size_t)s->cfg->nr_hosts; i++)
		if (s->hosts[i].busy)
			sbuf_addf(&s->line, ", %.10s@%s", s->hosts[i].commit,
				  s->cfg->hosts[i]);
	per_run = s->runs_seen ? s->run_time / s->runs_seen : 0;
	eta = per_run * s->pol.max_runs / 4.0 * (steps_left + 1) /
	      RB_MAX(1, s->cfg->nr_hosts);
	if (per_run > 0 && !s->phase)
		sbuf_addf(&s->line, ", ~%.0f min left", ceil(eta / 60));
	sbuf_addf(&s->line, ", %u runs", s->runs_seen);
	/* erased and drawn again in place: never glued to what was there */
	fprintf(f, "\r\033[K%s", s->line.buf);
	fflush(f);
}

/* --- samples ---------------------------------------------------------- */

static int host_id(struct sess *s, const char *name)
{
	long i;

	for (i = 0; i < s->cfg->nr_hosts; i++)
		if (!strcmp(s->cfg->hosts[i], name))
			return (int)i;
	i = svec_find(&s->extra_hosts, name);
	if (i < 0) {
		svec_push(&s->extra_hosts, name);
		i = (long)s->extra_hosts.nr - 1;
	}
	return RB_MIN(s->cfg->nr_hosts + (int)i, MAX_STAT_HOSTS - 1);
}

/*
 * The stored runs of commit in this bisection: value, host id, and the run
 * id as the time axis. With after >= 0 only the runs after that run id on
 * host `only` (the confirmation's interleaved runs), or on any host when
 * only < 0.
 */
static int load_set_upto(struct sess *s, const char *commit,
			 struct stats_set *out, int64_t after, int only,
			 int64_t upto)
{
	const struct run_sample *v;
	size_t n, i;

	stats_set_release(out);
	if (s->ops->samples(s->ops->data, commit, &v, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		int h = host_id(s, v[i].host);

		if (after >= 0 &&
		    (v[i].run_id <= after || (only >= 0 && h != only)))
			continue;
		if (upto >= 0 && v[i].run_id > upto)
			continue;
		stats_set_add_run(out, v[i].value, h, (double)v[i].run_id);
	}
	return 0;
}

static int load_set(struct sess *s, const char *commit, struct stats_set *out,
		    int64_t after, int only)
{
	return load_set_upto(s, commit, out, after, only, -1);
}

static int64_t fresh_after(const struct sess *s, const char *hex);

/*
 * The runs that stand for an anchor in a step: the anchor's own, and the
 * runs of every commit the bisection has decided the same (good: v
 * RB_GOOD, with the good anchor) since their verdict (their runs after a
 * drop only) whose level is the anchor's (stats_same_level). Under the
 * one-step model the verdicts rest on, those commits measure what their
 * anchor measures: the threshold is then carried by every run on either
 * side, not by re-measuring the anchors. A commit of a change in several
 * steps that sits between the anchors is left out, so that it cannot
 * drag the threshold toward itself; the confirmation uses the anchors'
 * own runs only, which no such drift reaches.
 */
static int load_side(struct sess *s, const char *anchor, enum rb_verdict v,
		     struct stats_set *out)
{
	struct stats_set own = STATS_SET_INIT, c = STATS_SET_INIT;
	uint32_t i;
	size_t k;
	int ret = 0;

	if (load_set(s, anchor, out, -1, 0) < 0)
		return -1;
	if (!s->b_ready || !s->pol.pool_decided)
		return 0;
	stats_set_copy(&own, out);
	for (i = 0; i < s->g->nr && !ret; i++) {
		char hex[RB_OID_HEXSZ + 1];

		if (!(s->b.mark[i] & v) || (s->b.mark[i] & RB_SKIP))
			continue;
		rb_oid_hex(s->g->oid[i], hex);
		if (!strcmp(hex, anchor))
			continue;
		ret = load_set(s, hex, &c, fresh_after(s, hex), -1);
		if (ret || !stats_same_level(&own, &c, 2))
			continue;
		for (k = 0; k < c.nr; k++)
			stats_set_add_run(out, c.v[k], c.host[k], c.when[k]);
	}
	stats_set_release(&own);
	stats_set_release(&c);
	return ret;
}

/* The run id after which commit's runs count (-1: all of them). */
static int64_t fresh_after(const struct sess *s, const char *hex)
{
	long i = svec_find(&s->fresh_hex, hex);

	return i < 0 ? -1 : s->fresh_after[i];
}

/* The runs of commit hex count from after on (after run id `after`). */
static void set_fresh(struct sess *s, const char *hex, int64_t after)
{
	long i = svec_find(&s->fresh_hex, hex);

	if (i < 0) {
		svec_push(&s->fresh_hex, hex);
		i = (long)s->fresh_hex.nr - 1;
		RB_ALLOC_GROW(s->fresh_after, s->fresh_hex.nr, s->fresh_alloc);
	}
	s->fresh_after[i] = after;
}

/*
 * A drop step's detail, {"drop": ["sha", ...], "after_run": N, ...}: the
 * runs of those commits count from N on (older stores have no after_run:
 * all their runs count).
 */
static void fresh_from(struct sess *s, const char *detail)
{
	const char *d = detail ? strstr(detail, "\"drop\": [") : NULL;
	int64_t after = record_detail_int(detail, "after_run", -1);

	if (after < 0 || !d)
		return;
	for (d += 9; *d && *d != ']'; d++) {
		char hex[RB_OID_HEXSZ + 1];

		if (*d != '"' || strlen(d + 1) < RB_OID_HEXSZ + 1 ||
		    d[1 + RB_OID_HEXSZ] != '"')
			continue;
		memcpy(hex, d + 1, RB_OID_HEXSZ);
		hex[RB_OID_HEXSZ] = '\0';
		set_fresh(s, hex, after);
		d += 1 + RB_OID_HEXSZ;
	}
}

/* --- running ---------------------------------------------------------- */

static int start(struct sess *s, int h, const char *commit, enum role role,
		 int probe)
{
	struct host_state *hs = &s->hosts[h];

	if (s->ops->start(s->ops->data, h, commit) < 0)
		return -1;
	hs->busy = true;
	hs->role = role;
	hs->probe = probe;
	snprintf(hs->commit, sizeof(hs->commit), "%s", commit);
	status_line(s);
	return 0;
}

/*
 * Wait for one run. Infrastructure failures are counted per host and
 * paused on (infra.h); after INFRA_MAX_FAILURES in a row the robot gives
 * up (-1), the
 * bisection stays resumable.
 */
static int wait_one(struct sess *s, struct session_result *res)
{
	struct host_state *hs;
	double t = now(s);

	if (s->ops->wait(s->ops->data, res) < 0)
		return -1;
	hs = &s->hosts[res->host];
	hs->busy = false;
	if (res->outcome == SESSION_RUN_BAD_INPUT)
		return rb_error("%s", res->why);
	if (res->outcome == SESSION_RUN_INFRA) {
		hs->infra++;
		event(s, "%s: infrastructure failure at %.12s (%d of %d): %s",
		      s->cfg->hosts[res->host], res->commit, hs->infra,
		      INFRA_MAX_FAILURES, res->why);
		if (hs->infra >= INFRA_MAX_FAILURES)
			return rb_error("giving up on host '%s' after %d "
					"infrastructure failures in a row: %s",
					s->cfg->hosts[res->host], hs->infra,
					res->why);
		if (s->ops->pause)
			s->ops->pause(s->ops->data, infra_pause(hs->infra));
		return 0;
	}
	hs->infra = 0;
	if (res->outcome == SESSION_RUN_OK) {
		double took = now(s) - t; /* once: RB_MAX reads it twice */

		s->runs_seen++;
		s->run_time += RB_MAX(0, took);
		heartbeat(s, res);
	}
	return 0;
}

/* The run says nothing of the metric: no kernel, or no payload result. */
static bool unmeasured(const struct session_result *res)
{
	return res->outcome == SESSION_RUN_SKIP ||
	       res->outcome == SESSION_RUN_FAILED;
}

static int step(struct sess *s, const char *kind, const char *commit,
		const char *host, const char *verdict, const char *detail)
{
	return s->ops->step_add(s->ops->data, kind, commit, host, verdict,
				detail);
}

/* --- building ahead -------------------------------------------------- */

/*
 * How likely probe p is to end bad, in five levels (0: good, 4: bad, 2:
 * even): a priority for building ahead, not a probability the statistics
 * stand behind. The evidence's share of its bound sets the level.
 */
static int lean_level(const struct probe *p)
{
	double x;

	if (p->done)
		return p->verdict == RB_BAD ? 4 : p->verdict == RB_GOOD ? 0 : 2;
	if (!p->step.runs || p->step.bound <= 0)
		return 2;
	x = fabs(p->step.llr) / p->step.bound;
	if (x < 1.0 / 3)
		return 2;
	return p->step.lean == STATS_BAD ? 3 : 1;
}

/*
 * Tell the ops what may be started next (ops->ahead): the anchors first
 * while they are measured, then rb_bisect_ahead over the round's probes.
 * Skipped when nothing it depends on changed since the last call.
 */
static void look_ahead(struct sess *s, bool anchors)
{
	static const double p_of[] = { 0.0, 0.2, 0.5, 0.8, 1.0 };
	struct rb_ahead a[AHEAD_MAX];
	uint32_t picks[AHEAD_PICKS];
	double p_bad[AHEAD_PICKS];
	uint64_t key[AHEAD_PICKS + 1];
	size_t nr, i, n = 0;

	if (!s->ops->ahead)
		return;
	memset(key, 0, sizeof(key));
	key[0] = (uint64_t)s->rounds << 1 | anchors;
	for (i = 0; i < s->nr_probes && i < AHEAD_PICKS && !anchors; i++) {
		int l = lean_level(&s->probes[i]);

		picks[i] = s->probes[i].node;
		p_bad[i] = p_of[l];
		key[i + 1] = (uint64_t)picks[i] << 3 | (uint64_t)(l + 1);
	}
	n = anchors ? 0 : i;
	if (s->ahead && !memcmp(key, s->ahead_key, sizeof(key)))
		return;
	memcpy(s->ahead_key, key, sizeof(key));
	nr = rb_bisect_ahead(&s->b, picks, p_bad, (uint32_t)n,
			     (uint32_t)s->cfg->nr_hosts, AHEAD_ROUNDS, a,
			     AHEAD_MAX);
	free(s->ahead);
	s->ahead = xcalloc(nr + 2, sizeof(*s->ahead));
	s->ahead_nr = 0;
	if (anchors) {
		snprintf(s->ahead[s->ahead_nr++], RB_OID_HEXSZ + 1, "%s",
			 s->good_hex);
		snprintf(s->ahead[s->ahead_nr++], RB_OID_HEXSZ + 1, "%s",
			 s->bad_hex);
	}
	for (i = 0; i < nr; i++) {
		char hex[RB_OID_HEXSZ + 1];

		if (a[i].prob < AHEAD_MIN_PROB)
			break;
		rb_oid_hex(s->g->oid[a[i].node], hex);
		if (!strcmp(hex, s->good_hex) || !strcmp(hex, s->bad_hex))
			continue;
		memcpy(s->ahead[s->ahead_nr++], hex, sizeof(hex));
	}
	s->ops->ahead(s->ops->data, (const char(*)[RB_OID_HEXSZ + 1]) s->ahead,
		      s->ahead_nr);
}

/* --- endpoints -------------------------------------------------------- */

/* The endpoint step's detail (JSON); `again` for the check asked again. */
static void endpoint_detail(struct sbuf *detail, const struct stats_power *pw,
			    const struct stats_set *good,
			    const struct stats_set *bad, bool again)
{
	sbuf_addf(detail,
		  "{\"good_mean\": %.17g, \"bad_mean\": %.17g, "
		  "\"change_pct\": %.6g, \"p\": %.6g, \"good_runs\": %zu, "
		  "\"bad_runs\": %zu, \"direction\": %d, "
		  "\"runs_per_step\": %.3g%s}",
		  pw->good_mean, pw->bad_mean, pw->change_pct, pw->p, good->nr,
		  bad->nr, pw->direction, pw->runs_per_step,
		  again ? ", \"again\": true" : "");
}

/*
 * Measure the anchors until the power check decides. Every idle host runs
 * the anchor it has fewer runs of (good first), so each host gets both.
 */
static int endpoints(struct sess *s, bool *reproduced, struct sbuf *why)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT;
	struct stats_power pw;
	struct session_result res;
	struct sbuf detail = SBUF_INIT;
	int h, ret = -1;

	s->phase = "measuring the endpoints";
	look_ahead(s, true);
	for (;;) {
		bool busy = false;

		if (load_set(s, s->good_hex, &good, -1, 0) < 0 ||
		    load_set(s, s->bad_hex, &bad, -1, 0) < 0)
			goto out;
		sbuf_reset(why);
		if (good.nr >= 2 && bad.nr >= 2) {
			if (stats_power_check(&s->pol, &good, &bad, &pw, why) <
			    0)
				goto out;
			if (pw.verdict != STATS_ENDPOINT_NEED_MORE)
				break;
		}
		for (h = 0; h < s->cfg->nr_hosts; h++) {
			struct host_state *hs = &s->hosts[h];
			size_t ng = stats_set_count_on(&good, h),
			       nb = stats_set_count_on(&bad, h);
			bool g;

			if (hs->busy) {
				busy = true;
				continue;
			}
			/* pairs (g b b g g b b ...): alternation against
			 * drift, half the boots of g b g b */
			if (hs->role == ROLE_GOOD && ng < nb + 1)
				g = true;
			else if (hs->role == ROLE_BAD && nb < ng + 1)
				g = false;
			else
				g = ng <= nb;
			if (start(s, h, g ? s->good_hex : s->bad_hex,
				  g ? ROLE_GOOD : ROLE_BAD, -1) < 0)
				goto out;
			busy = true;
		}
		if (!busy)
			break;
		if (wait_one(s, &res) < 0)
			goto out;
		if (unmeasured(&res)) {
			rb_error("the %s commit %.12s cannot be measured: %s",
				 strcmp(res.commit, s->good_hex) ? "bad" :
								   "good",
				 res.commit, res.why);
			goto out;
		}
	}
	/* let the runs still going end; they count on resume anyway */
	for (h = 0; h < s->cfg->nr_hosts; h++)
		while (s->hosts[h].busy)
			if (wait_one(s, &res) < 0)
				goto out;
	*reproduced = pw.verdict == STATS_REPRODUCED;
	if (s->pol.direction == 0)
		s->pol.direction = pw.direction;
	endpoint_detail(&detail, &pw, &good, &bad, false);
	if (step(s, "endpoint", NULL, NULL,
		 *reproduced ? "reproduced" : "not-reproduced", detail.buf) < 0)
		goto out;
	s->phase = NULL;
	event(s, "%s: %s", s->cfg->metric, why->buf);
	ret = 0;
out:
	stats_set_release(&good);
	stats_set_release(&bad);
	sbuf_release(&detail);
	return ret;
}

/* --- rounds ----------------------------------------------------------- */

static const char *vname(enum stats_verdict v)
{
	return stats_verdict_name(v);
}

/* text into a JSON string (without the quotes) */
static void json_escape(struct sbuf *sb, const char *text)
{
	const char *c;

	for (c = text; *c; c++)
		if (*c == '"' || *c == '\\')
			sbuf_addf(sb, "\\%c", *c);
		else if ((unsigned char)*c >= 0x20)
			sbuf_addch(sb, *c);
}

/*
 * A verdict step's detail (JSON): the numbers of the test that gave it, up
 * to run id last_run ("mean" the runs' as measured, "test_level" the one
 * the test held against the threshold, after the drift and the hosts'
 * offsets). after_run >= 0: a verdict of the confirmation, on the
 * commit's runs after that run id (its fresh runs).
 */
static void verdict_detail(struct sbuf *detail, const struct stats_step *v,
			   double last_run, const char *why, int64_t after_run)
{
	sbuf_addf(detail,
		  "{\"last_run\": %.0f, \"mean\": %.17g, "
		  "\"test_level\": %.17g, \"runs\": %zu, \"threshold\": %.17g, "
		  "\"llr\": %.6g, \"bound\": %.6g, \"noise_sd\": %.6g, "
		  "\"lean\": \"%s\", \"weak\": %s, \"sure\": %s, ",
		  last_run, v->runs_mean, v->cand_mean, v->runs, v->threshold,
		  v->llr, v->bound, v->noise_sd, vname(v->lean),
		  v->verdict == STATS_WEAK ? "true" : "false",
		  v->sure ? "true" : "false");
	if (after_run >= 0)
		sbuf_addf(detail,
			  "\"confirmation\": true, \"after_run\": %lld, ",
			  (long long)after_run);
	sbuf_addstr(detail, "\"why\": \"");
	json_escape(detail, why);
	sbuf_addstr(detail, "\"}");
}

/*
 * Decide what probe p needs next; sets p->done when its verdict is in. A
 * decided verdict is appended to the steps here, before anyone acts on it.
 */
static int evaluate(struct sess *s, struct probe *p)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT,
			 cand = STATS_SET_INIT;
	struct sbuf why = SBUF_INIT, detail = SBUF_INIT;
	int ret = -1;

	if (load_side(s, s->good_hex, RB_GOOD, &good) < 0 ||
	    load_side(s, s->bad_hex, RB_BAD, &bad) < 0 ||
	    load_set(s, p->hex, &cand, fresh_after(s, p->hex), -1) < 0)
		goto out;
	if (stats_step_verdict(&s->pol, &good, &bad, &cand, &p->step, &why) < 0)
		goto out;
	switch (p->step.verdict) {
	case STATS_NEED_MORE:
		p->anchor_due = p->step.more_anchor_runs * 2;
		p->anchor_good = p->step.more_anchor_runs;
		ret = 0;
		goto out;
	case STATS_GOOD:
		p->verdict = RB_GOOD;
		break;
	case STATS_BAD:
		p->verdict = RB_BAD;
		break;
	case STATS_WEAK:
		/*
		 * Undecided at the cap: the truncated test goes by its lean
		 * (a skip could leave the culprit among skipped commits).
		 * A wrong lean cannot make a wrong culprit: the confirmation
		 * decides the culprit and its parent again.
		 */
		p->verdict = p->step.lean == STATS_BAD ? RB_BAD : RB_GOOD;
		break;
	}
	snprintf(p->verdict_name, sizeof(p->verdict_name), "%s",
		 p->verdict == RB_BAD ? "bad" : "good");
	/* later steps weigh their evidence with the noise of this one
	 * (when its runs do not join an anchor's) */
	if (!s->pol.pool_decided)
		stats_noise_add(&s->pol.noise, &cand);
	stats_noise_add(&s->pol.contam, &cand);
	verdict_detail(&detail, &p->step, cand.nr ? cand.when[cand.nr - 1] : 0,
		       why.buf, -1);
	if (step(s, "verdict", p->hex, s->cfg->hosts[p->host], p->verdict_name,
		 detail.buf) < 0)
		goto out;
	s->decided++;
	p->done = true;
	p->order = ++s->round_decided;
	event(s, "%.12s is %s (%s)", p->hex, p->verdict_name, why.buf);
	ret = 0;
out:
	stats_set_release(&good);
	stats_set_release(&bad);
	stats_set_release(&cand);
	sbuf_release(&why);
	sbuf_release(&detail);
	return ret;
}

/*
 * Give probe p's host its next run. Anchor runs come in two batches, good
 * then bad, and the candidate's runs in one: a host boots only when the
 * commit changes, and on real boxes a boot costs more than a run.
 */
static int dispatch(struct sess *s, struct probe *p)
{
	if (p->anchor_due) {
		bool g = p->anchor_good > 0;

		if (g)
			p->anchor_good--;
		p->anchor_due--;
		return start(s, p->host, g ? s->good_hex : s->bad_hex,
			     g ? ROLE_GOOD : ROLE_BAD, (int)(p - s->probes));
	}
	return start(s, p->host, p->hex, ROLE_CAND, (int)(p - s->probes));
}

/*
 * Apply a verdict. One that contradicts the verdicts applied before it (a
 * good commit above a bad one: a wrong verdict among them, possible when
 * several hosts test at once) is left out, in the replay as here: the
 * confirmation decides the culprit and its parent again anyway.
 */
static int mark(struct sess *s, const char *hex, enum rb_verdict v)
{
	uint8_t oid[RB_OID_RAWSZ];
	uint32_t node;

	if (rb_oid_from_hex(oid, hex) < 0)
		return rb_error("bad sha '%s' in the bisection's steps", hex);
	node = rb_graph_find(s->g, oid);
	if (node == RB_NODE_NONE)
		return 0; /* not in this graph (a parent outside the range) */
	if (rb_bisect_mark(&s->b, node, v) < 0)
		event(s, "%.12s: verdict left out: %s", hex, rb_errmsg());
	return 0;
}

/* Test the picks of one round, one host each, and apply the verdicts. */
static int run_round(struct sess *s, const uint32_t *picks, uint32_t n)
{
	struct session_result res;
	struct sbuf detail = SBUF_INIT;
	uint32_t i, k;
	int ret = -1;

	s->nr_probes = n;
	s->round_decided = 0;
	sbuf_addch(&detail, '[');
	for (i = 0; i < n; i++) {
		struct probe *p = &s->probes[i];

		memset(p, 0, sizeof(*p));
		p->node = picks[i];
		p->host = (int)i;
		rb_oid_hex(s->g->oid[picks[i]], p->hex);
		sbuf_addf(&detail, "%s\"%s\"", i ? ", " : "", p->hex);
	}
	sbuf_addch(&detail, ']');
	s->rounds++;
	if (step(s, "round", NULL, NULL, NULL, detail.buf) < 0)
		goto out;
	for (;;) {
		bool busy = false;

		for (i = 0; i < n; i++) {
			struct probe *p = &s->probes[i];

			if (p->done || s->hosts[p->host].busy)
				continue;
			if (!p->anchor_due && evaluate(s, p) < 0)
				goto out;
			look_ahead(s, false);
			if (p->done)
				continue;
			if (dispatch(s, p) < 0)
				goto out;
		}
		for (i = 0; i < (uint32_t)s->cfg->nr_hosts; i++)
			busy |= s->hosts[i].busy;
		if (!busy)
			break;
		if (wait_one(s, &res) < 0)
			goto out;
		if (unmeasured(&res)) {
			struct probe *p = &s->probes[s->hosts[res.host].probe];
			char *d;

			if (s->hosts[res.host].role != ROLE_CAND) {
				rb_error("the %s anchor %.12s cannot be "
					 "measured any more: %s",
					 s->hosts[res.host].role == ROLE_GOOD ?
						 "good" :
						 "bad",
					 res.commit, res.why);
				goto out;
			}
			p->done = true;
			p->order = ++s->round_decided;
			p->verdict = RB_SKIP;
			snprintf(p->verdict_name, sizeof(p->verdict_name),
				 "skip");
			d = xstrfmt("{\"why\": \"%s\"}",
				    res.outcome == SESSION_RUN_SKIP ?
					    "cannot be built or booted" :
					    "the payload fails on it");
			if (step(s, "verdict", p->hex, s->cfg->hosts[res.host],
				 "skip", d) < 0) {
				free(d);
				goto out;
			}
			free(d);
			event(s, "%.12s is skipped: %s", p->hex, res.why);
		}
	}
	/* in the order decided, as the replay applies them */
	for (k = 1; k <= n; k++)
		for (i = 0; i < n; i++)
			if (s->probes[i].order == k &&
			    mark(s, s->probes[i].hex, s->probes[i].verdict) < 0)
				goto out;
	ret = 0;
out:
	sbuf_release(&detail);
	return ret;
}

/* --- replay ----------------------------------------------------------- */

static int load_graph(struct sess *s)
{
	/* rb_range_start cannot fail: b is ready again at once */
	if (s->b_ready)
		rb_bisect_release(&s->b);
	rb_range_start(s->cfg->range, &s->b);
	s->b_ready = true;
	return 0;
}

static enum rb_verdict parse_verdict(const char *v)
{
	if (!strcmp(v, "good"))
		return RB_GOOD;
	if (!strcmp(v, "bad"))
		return RB_BAD;
	return RB_SKIP;
}

/* Is commit named in the "drop" list of an unconfirmed step? */
static bool dropped_by(const struct bisection_step_rec *u, const char *hex)
{
	return (!strcmp(u->kind, "unconfirmed") ||
		!strcmp(u->kind, "contradiction")) &&
	       u->detail && strstr(u->detail, hex);
}

/*
 * Rebuild the state from the recorded steps: the endpoint verdict, every
 * verdict not dropped by a later unconfirmed culprit, the rounds and the
 * attempts. Returns 1 when the endpoint check was recorded.
 */
static int replay(struct sess *s, bool *reproduced)
{
	const struct bisection_step_rec *st;
	size_t n, i, j;
	int have_endpoint = 0;

	if (s->ops->steps(s->ops->data, &st, &n) < 0)
		return -1;
	svec_clear(&s->fresh_hex);
	for (i = 0; i < n; i++) {
		if (!strcmp(st[i].kind, "endpoint")) {
			have_endpoint = 1;
			*reproduced = st[i].verdict &&
				      !strcmp(st[i].verdict, "reproduced");
			if (st[i].detail) {
				const char *d =
					strstr(st[i].detail, "\"direction\": ");

				if (d && s->pol.direction == 0)
					s->pol.direction =
						(int)strtol(d + 13, NULL, 10);
			}
		} else if (!strcmp(st[i].kind, "round")) {
			s->rounds++;
		} else if (!strcmp(st[i].kind, "unconfirmed") ||
			   !strcmp(st[i].kind, "contradiction")) {
			s->attempts++;
			fresh_from(s, st[i].detail);
		} else if (!strcmp(st[i].kind, "verdict") && st[i].commit) {
			bool drop = false;
			enum rb_verdict v = parse_verdict(st[i].verdict);
			int64_t a = record_detail_int(st[i].detail, "after_run",
						      -1);

			/* a confirmation's verdict: on its fresh runs */
			if (a >= 0)
				set_fresh(s, st[i].commit, a);
			for (j = i + 1; j < n && !drop; j++)
				drop = dropped_by(&st[j], st[i].commit);
			if (drop)
				continue;
			if (mark(s, st[i].commit, v) < 0)
				return -1;
			if (v != RB_SKIP) {
				struct stats_set c = STATS_SET_INIT;
				int64_t upto = record_detail_int(
					st[i].detail, "last_run", -1);

				s->decided++;
				if (load_set_upto(s, st[i].commit, &c,
						  fresh_after(s, st[i].commit),
						  -1, upto) < 0)
					return -1;
				if (!s->pol.pool_decided)
					stats_noise_add(&s->pol.noise, &c);
				stats_noise_add(&s->pol.contam, &c);
				stats_set_release(&c);
			}
		}
	}
	return have_endpoint;
}

/* --- confirmation ----------------------------------------------------- */

/* A commit the confirmation decides again on its fresh runs. */
struct member {
	const char *hex;
	enum stats_verdict expect, got;
	bool done;
	unsigned anchor_due, anchor_good;
	struct stats_step step; /* the verdict's numbers, once done */
	double last_run; /* the newest fresh run it was given on */
};

/*
 * A member the confirmation decided the other way on its fresh runs (a
 * parent bad, the culprit good) at the strict bound (the refute alpha): a
 * verdict as good as a step's, which tells the bisection where it went
 * wrong. m.hex points into flip's own copy. unmeasurable: a member
 * could not be measured (no flip then).
 */
struct flip {
	bool set, unmeasurable;
	struct member m;
	char hex[RB_OID_HEXSZ + 1];
	struct sbuf why;
};

static enum rb_verdict flip_verdict(const struct flip *f)
{
	return f->m.got == STATS_BAD ? RB_BAD : RB_GOOD;
}

/*
 * The run id after which the confirmation's fresh runs count: recorded
 * once in a confirm-start step (found again on resume, unless a drop came
 * after it), else now.
 */
static int confirm_start(struct sess *s, const char *culprit, int host,
			 int64_t *after)
{
	const struct bisection_step_rec *st;
	size_t n, i;
	char *det;
	int r;

	*after = -1;
	if (s->ops->steps(s->ops->data, &st, &n) < 0)
		return -1;
	for (i = n; i-- > 0;) {
		if (!strcmp(st[i].kind, "unconfirmed") ||
		    !strcmp(st[i].kind, "contradiction"))
			break;
		if (!strcmp(st[i].kind, "confirm-start") && st[i].commit &&
		    !strcmp(st[i].commit, culprit))
			*after = record_detail_int(st[i].detail, "after_run",
						   *after);
	}
	if (*after >= 0)
		return 0;
	/* run ids only grow: every run from here on is newer */
	*after = s->ops->last_run_id(s->ops->data);
	det = xstrfmt("{\"after_run\": %lld}", (long long)*after);
	r = step(s, "confirm-start", culprit, s->cfg->hosts[host], NULL, det);
	free(det);
	return r;
}

/*
 * One run of commit for the confirmation on host. An anchor must measure
 * (why NULL: an error otherwise). A member that cannot (its kernel does
 * not build or boot, the payload fails on it) returns 1 with the reason
 * in why: the culprit cannot be confirmed against it. That happens when
 * the parent was never tested (good because a good commit contains it)
 * and does not build, or after a wrong step.
 */
static int confirm_run(struct sess *s, int host, const char *commit,
		       struct sbuf *why)
{
	struct session_result res;

	if (start(s, host, commit, ROLE_CAND, -1) < 0 || wait_one(s, &res) < 0)
		return -1;
	if (!unmeasured(&res))
		return 0;
	if (!why)
		return rb_error("%.12s cannot be measured for the "
				"confirmation: %s",
				res.commit, res.why);
	sbuf_reset(why);
	sbuf_addf(why, "%.12s cannot be measured: %s", commit, res.why);
	event(s, "%s", why->buf);
	return 1;
}

/*
 * Decide each member again on its fresh runs on host (after run id
 * `after`), interleaved in ABBA order (parent, culprit, culprit, parent,
 * ...: balanced against a linear drift, and a boot for every two runs
 * instead of every run), asking for anchor runs when the verdict does;
 * *refuted as soon as one comes out other than expected, or cannot be
 * measured (*unmeasurable too). verdicts gets "sha verdict, ...", why the
 * last verdict's reason.
 */
static int confirm_members(struct sess *s, struct member *m, size_t nm,
			   int host, int64_t after, bool *refuted,
			   bool *unmeasurable, struct sbuf *verdicts,
			   struct sbuf *why)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT,
			 fresh = STATS_SET_INIT;
	size_t i, left = 1;
	unsigned pass;
	bool ran_anchors = false, bad_first;
	int ret = -1, r;

	*refuted = *unmeasurable = false;
	for (pass = 0; !*refuted && left; pass++) {
		left = 0;
		for (i = 0; i < nm && !*refuted; i++) {
			struct member *c = &m[pass & 1 ? nm - 1 - i : i];

			if (c->done)
				continue;
			if (!c->anchor_due) {
				struct stats_step v;

				sbuf_reset(why);
				if (load_set(s, s->good_hex, &good, -1, 0) <
					    0 ||
				    load_set(s, s->bad_hex, &bad, -1, 0) < 0 ||
				    load_set(s, c->hex, &fresh, after, host) <
					    0 ||
				    stats_confirm_verdict(&s->pol, &good, &bad,
							  &fresh, c->expect, &v,
							  why) < 0)
					goto out;
				if (v.verdict == STATS_NEED_MORE) {
					c->anchor_due = v.more_anchor_runs * 2;
					c->anchor_good = v.more_anchor_runs;
				} else {
					c->done = true;
					c->got = v.verdict;
					c->step = v;
					c->last_run =
						fresh.nr ?
							fresh.when[fresh.nr - 1] :
							0;
					sbuf_addf(verdicts, "%s%.12s %s",
						  verdicts->len ? ", " : "",
						  c->hex, vname(v.verdict));
					*refuted = c->got != c->expect;
					if (*refuted)
						event(s,
						      "%.12s is not %s again: %s",
						      c->hex, vname(c->expect),
						      why->buf);
					continue;
				}
			}
			left++;
			/*
			 * The anchor runs a verdict asks for, in one block,
			 * starting with the anchor the host runs now (good
			 * ones then bad ones, or the other way): a boot for
			 * each anchor at most, not one a run.
			 */
			bad_first = !strcmp(s->hosts[host].commit, s->bad_hex);
			while (c->anchor_due) {
				bool g = bad_first ? c->anchor_due <=
							     c->anchor_good :
						     c->anchor_good > 0;

				if (g)
					c->anchor_good--;
				c->anchor_due--;
				if (confirm_run(s, host,
						g ? s->good_hex : s->bad_hex,
						NULL) < 0)
					goto out;
				ran_anchors = true;
			}
			if (ran_anchors) {
				/* decided again on the new anchors first */
				ran_anchors = false;
				continue;
			}
			r = confirm_run(s, host, c->hex, why);
			if (r < 0)
				goto out;
			if (r > 0) {
				*refuted = true;
				*unmeasurable = true;
				sbuf_addf(verdicts, "%s%s",
					  verdicts->len ? ", " : "", why->buf);
			}
		}
	}
	ret = 0;
out:
	stats_set_release(&good);
	stats_set_release(&bad);
	stats_set_release(&fresh);
	return ret;
}

/* One parent's change as the confirmation shows it (method NULL: none). */
struct change_line {
	/* the runs' means and standard deviations */
	double parent, culprit, parent_sd, culprit_sd;
	size_t parent_runs, culprit_runs;
	double pct, lo, hi, level, p;
	bool bounded;
	const char *method;
	/*
	 * The test's own levels of the two, whose change pct is, when the
	 * means' change reads otherwise (to a twentieth of a point)
	 */
	bool levels;
	double parent_level, culprit_level;
};

/*
 * The change test's own numbers (its fresh runs, their robust locations,
 * the pooled noise) with its 95% interval, so that the interval and the
 * verdict cannot disagree. A confirmed change has evidence llr >= A, A >=
 * ln(1 / change_alpha), with llr = (delta D / sigma - delta^2 / 2) / q, q
 * = 1/np + 1/nc: then D / sigma >= delta / 2 + A q / delta >= sqrt(2 A q)
 * (the mean of two terms is at least their geometric mean), that is D >=
 * sqrt(2 A) se with se = sigma sqrt(q): 3.26 se at change_alpha 0.5%, so
 * the 95% interval D +- 1.96 se never holds 0.
 */
static void change_line_test(struct change_line *l, const struct stats_step *v,
			     const struct stats_set *ps,
			     const struct stats_set *cs)
{
	struct stats_summary a, b;
	/* stats_change_verdict: threshold the parent's, cand_mean the
	 * culprit's location */
	double d = v->cand_mean - v->threshold, base = fabs(v->threshold);
	double se =
		v->noise_sd * sqrt(1.0 / (double)ps->nr + 1.0 / (double)cs->nr);
	double z = stats_norm_quantile(0.975);

	stats_summarize(&a, ps->v, ps->nr);
	stats_summarize(&b, cs->v, cs->nr);
	memset(l, 0, sizeof(*l));
	l->parent = a.mean;
	l->culprit = b.mean;
	l->parent_level = v->threshold;
	l->culprit_level = v->cand_mean;
	l->parent_sd = a.stddev;
	l->culprit_sd = b.stddev;
	l->parent_runs = ps->nr;
	l->culprit_runs = cs->nr;
	l->level = 0.95;
	l->method = "sequential change test, pooled noise";
	l->p = se > 0 ? 2 * stats_norm_sf(fabs(d) / se) : 0;
	if (base > 0) {
		l->pct = 100 * d / base;
		l->lo = 100 * (d - z * se) / base;
		l->hi = 100 * (d + z * se) / base;
		l->bounded = true;
		l->levels = a.mean != 0 &&
			    fabs(100 * (b.mean - a.mean) / fabs(a.mean) -
				 l->pct) >= 0.05;
	}
}

/*
 * Does the culprit hold a change (stats_change_verdict)? Its fresh runs
 * and its first parent's on host, one more of each until the test
 * decides; *refuted when it says no change, or cannot show one by the
 * cap. *line gets the test's numbers.
 */
static int confirm_change(struct sess *s, const char *parent,
			  const char *culprit, int host, int64_t after,
			  bool *refuted, struct change_line *line,
			  struct sbuf *why)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT,
			 ps = STATS_SET_INIT, cs = STATS_SET_INIT;
	struct stats_step v;
	unsigned abba = 1; /* pairs culprit-parent, parent-culprit, ... */
	int ret = -1, r;

	for (;;) {
		sbuf_reset(why);
		if (load_set(s, s->good_hex, &good, -1, 0) < 0 ||
		    load_set(s, s->bad_hex, &bad, -1, 0) < 0 ||
		    load_set(s, parent, &ps, after, host) < 0 ||
		    load_set(s, culprit, &cs, after, host) < 0 ||
		    stats_change_verdict(&s->pol, &good, &bad, &ps, &cs, &v,
					 why) < 0)
			goto out;
		if (v.verdict != STATS_NEED_MORE)
			break;
		/* ABBA, as the members' runs */
		r = confirm_run(s, host, abba & 1 ? culprit : parent, why);
		if (!r)
			r = confirm_run(s, host, abba & 1 ? parent : culprit,
					why);
		if (r < 0)
			goto out;
		if (r > 0) {
			*refuted = true;
			ret = 0;
			goto out;
		}
		abba++;
	}
	*refuted = v.verdict != STATS_BAD;
	if (*refuted)
		event(s, "%.12s holds no change: %s", culprit, why->buf);
	change_line_test(line, &v, &ps, &cs);
	ret = 0;
out:
	stats_set_release(&good);
	stats_set_release(&bad);
	stats_set_release(&ps);
	stats_set_release(&cs);
	return ret;
}

static void change_line_detect(struct change_line *l,
			       const struct stats_detection *d,
			       const struct stats_summary *sp,
			       const struct stats_summary *sc, size_t np,
			       size_t nc, double level)
{
	memset(l, 0, sizeof(*l));
	l->parent = d->base_mean;
	l->culprit = d->new_mean;
	l->parent_sd = sp->stddev;
	l->culprit_sd = sc->stddev;
	l->parent_runs = np;
	l->culprit_runs = nc;
	l->pct = d->change_pct;
	l->p = d->p;
	l->level = level;
	l->method = "Yuen's trimmed-mean t-test";
	l->bounded = d->ci_pct.bounded;
	l->lo = d->ci_pct.lo;
	l->hi = d->ci_pct.hi;
}

/* The method as the mail names it: with the test's levels when shown. */
static const char *method_words(const struct change_line *l, char *buf,
				size_t size)
{
	if (!l->levels)
		return l->method;
	snprintf(buf, size, "%s; its levels %.6g -> %.6g", l->method,
		 l->parent_level, l->culprit_level);
	return buf;
}

/*
 * The change parent -> culprit: JSON into detail (one object a parent),
 * the first parent's in words into why (after the verdicts). The first
 * parent's numbers are the change test's (tested, when it ran: see
 * change_line_test); otherwise, and for the other parents of a merge,
 * regression detection on all their runs (stats_detect, Yuen's test).
 */
static int confirm_numbers(struct sess *s, const char *culprit,
			   char (*parents)[RB_OID_HEXSZ + 1], size_t np,
			   int host, int64_t after, const char *verdicts,
			   const struct change_line *tested,
			   struct sbuf *detail, struct sbuf *why)
{
	struct stats_set cs = STATS_SET_INIT, ps = STATS_SET_INIT;
	struct stats_detect_opts o;
	struct stats_detection d;
	struct stats_summary ssp, ssc;
	char mw[128];
	size_t k, shown = 0;
	int ret = -1;

	stats_detect_opts_init(&o);
	o.direction = s->pol.direction;
	o.alpha = stats_policy_step_alpha(&s->pol);
	sbuf_reset(why);
	sbuf_reset(detail);
	sbuf_addch(detail, '[');
	if (load_set(s, culprit, &cs, -1, 0) < 0)
		goto out;
	for (k = 0; k < np; k++) {
		struct change_line l;
		char pv[32];

		if (!k && tested->method) {
			l = *tested;
		} else {
			if (load_set(s, parents[k], &ps, -1, 0) < 0)
				goto out;
			if (ps.nr < 2 || cs.nr < 2)
				continue;
			if (stats_detect(&o, ps.v, ps.nr, cs.v, cs.nr, &d,
					 NULL) < 0)
				goto out;
			stats_summarize(&ssp, ps.v, ps.nr);
			stats_summarize(&ssc, cs.v, cs.nr);
			change_line_detect(&l, &d, &ssp, &ssc, ps.nr, cs.nr,
					   o.level);
		}
		if (!shown) {
			sbuf_addf(why, "%s; change %+.2f%%", verdicts, l.pct);
			if (l.bounded)
				sbuf_addf(why,
					  " [%+.2f%%, %+.2f%%] (%.0f%% ci)",
					  l.lo, l.hi, 100 * l.level);
			rb_fmt_p(pv, sizeof(pv), l.p);
			sbuf_addf(why, ", %s, %.6g -> %.6g, %zu vs %zu runs",
				  pv, l.parent, l.culprit, l.parent_runs,
				  l.culprit_runs);
			if (l.levels)
				sbuf_addf(why,
					  " (the test's levels %.6g -> %.6g)",
					  l.parent_level, l.culprit_level);
		}
		sbuf_addf(detail,
			  "%s{\"parent\": \"%s\", \"parent_mean\": %.17g, "
			  "\"culprit_mean\": %.17g, \"parent_sd\": %.17g, "
			  "\"culprit_sd\": %.17g, \"change_pct\": %.6g, "
			  "\"p\": %.6g, \"parent_runs\": %zu, "
			  "\"culprit_runs\": %zu, \"after_run\": %lld, "
			  "\"host\": \"%s\", \"method\": \"%s\"",
			  shown++ ? ", " : "", parents[k], l.parent, l.culprit,
			  l.parent_sd, l.culprit_sd, l.pct, l.p, l.parent_runs,
			  l.culprit_runs, (long long)after, s->cfg->hosts[host],
			  method_words(&l, mw, sizeof(mw)));
		if (l.levels)
			sbuf_addf(detail,
				  ", \"parent_level\": %.17g, "
				  "\"culprit_level\": %.17g",
				  l.parent_level, l.culprit_level);
		if (l.bounded)
			sbuf_addf(detail,
				  ", \"ci_pct\": [%.6g, %.6g], \"level\": %.3g",
				  l.lo, l.hi, l.level);
		sbuf_addch(detail, '}');
	}
	sbuf_addch(detail, ']');
	if (!why->len)
		sbuf_addstr(why, verdicts);
	ret = 0;
out:
	stats_set_release(&cs);
	stats_set_release(&ps);
	return ret;
}

/*
 * Decide the parents (expected good) and the culprit (expected bad) again,
 * each on fresh runs: its runs on host 0 after the confirmation started,
 * interleaved (parent, culprit, parent, ...), held against the anchors by
 * stats_confirm_verdict (which may ask for anchor runs on host 0 first). A
 * wrong culprit needs a wrong step, and then a fresh re-decision that
 * repeats it: at most confirm_alpha. Confirmed when every one comes out as
 * expected; refuted as soon as one does not (or stays weak at the cap). An
 * anchor among them is decided on its fresh runs too: the endpoint check
 * alone (a few runs, some of them maybe outliers) would otherwise carry a
 * culprit at either end of the range, which is where the bisection of a
 * history without a change ends when that check was wrong. The change
 * parent -> culprit (regression detection on all their runs) goes to
 * detail (JSON) and why; *after gets the run id after which the runs are
 * the confirmation's.
 */
static int confirm(struct sess *s, const char *culprit,
		   char (*parents)[RB_OID_HEXSZ + 1], size_t np,
		   bool *confirmed, int64_t *after, struct flip *flip,
		   struct sbuf *detail, struct sbuf *why)
{
	struct member *m = xcalloc(np + 1, sizeof(*m));
	struct sbuf verdicts = SBUF_INIT;
	struct change_line tested = { 0 };
	int host = 0, ret = -1;
	bool refuted;
	size_t k;

	*confirmed = false;
	if (confirm_start(s, culprit, host, after) < 0)
		goto out;
	for (k = 0; k < np; k++) {
		m[k].hex = parents[k];
		m[k].expect = STATS_GOOD;
	}
	m[np].hex = culprit;
	m[np].expect = STATS_BAD;
	s->phase = "confirming the culprit";
	event(s, "confirming %.12s against its parent%s on %s", culprit,
	      np > 1 ? "s" : "", s->cfg->hosts[host]);
	if (confirm_members(s, m, np + 1, host, *after, &refuted,
			    &flip->unmeasurable, &verdicts, why) < 0)
		goto out;
	for (k = 0; k <= np && refuted && !flip->set; k++) {
		const struct member *c = &m[k];

		if (!c->done || c->got == c->expect ||
		    (c->got != STATS_GOOD && c->got != STATS_BAD))
			continue;
		flip->set = true;
		flip->m = *c;
		snprintf(flip->hex, sizeof(flip->hex), "%s", c->hex);
		flip->m.hex = flip->hex;
		sbuf_reset(&flip->why);
		sbuf_addstr(&flip->why, why->buf);
	}
	/*
	 * The change from every parent: a merge named the culprit whose
	 * second parent holds the change (decided good in its step and
	 * again here) shows none from that parent. The first parent's test
	 * gives the numbers reported.
	 */
	for (k = 0; k < np && !refuted; k++) {
		struct change_line other;

		if (confirm_change(s, parents[k], culprit, host, *after,
				   &refuted, k ? &other : &tested, why) < 0)
			goto out;
	}
	*confirmed = !refuted;
	ret = confirm_numbers(s, culprit, parents, np, host, *after,
			      verdicts.buf, &tested, detail, why);
out:
	s->phase = NULL;
	free(m);
	sbuf_release(&verdicts);
	return ret;
}

/* --- the session ------------------------------------------------------ */

/* The metric value the steps were held to, for the result. */
static void final_threshold(struct sess *s, struct session_outcome_info *out)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT;
	struct stats_power pw;

	out->threshold = s->pol.threshold;
	if (s->pol.threshold_kind == STATS_THRESHOLD_VALUE ||
	    load_set(s, s->good_hex, &good, -1, 0) < 0 ||
	    load_set(s, s->bad_hex, &bad, -1, 0) < 0 || good.nr < 2 ||
	    bad.nr < 2 ||
	    stats_power_check(&s->pol, &good, &bad, &pw, NULL) < 0)
		goto out;
	if (s->pol.threshold_kind == STATS_THRESHOLD_MIDPOINT)
		out->threshold = (pw.good_mean + pw.bad_mean) / 2;
	else
		out->threshold =
			pw.good_mean *
			(1 - s->pol.direction * s->pol.threshold / 100);
out:
	stats_set_release(&good);
	stats_set_release(&bad);
}

static void set_list(char (**out)[RB_OID_HEXSZ + 1], size_t *n,
		     const struct rb_graph *g, const uint32_t *nodes,
		     uint32_t nr)
{
	uint32_t i;

	*out = xcalloc(nr ? nr : 1, sizeof(**out));
	for (i = 0; i < nr; i++)
		rb_oid_hex(g->oid[nodes[i]], (*out)[i]);
	*n = nr;
}

static int finish(struct sess *s, struct session_outcome_info *out,
		  enum session_status st)
{
	out->status = st;
	out->direction = s->pol.direction;
	return step(s, "finish", NULL, NULL, session_status_name(st), NULL);
}

/* The session's state for cfg, before anything is read. */
static void sess_init(struct sess *s, const struct session_config *cfg)
{
	int k;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->ops = cfg->ops;
	s->g = &cfg->range->g;
	s->pol = cfg->policy;
	svec_init(&s->extra_hosts);
	svec_init(&s->fresh_hex);
	sbuf_init(&s->line, 0);
	s->hosts = xcalloc((size_t)cfg->nr_hosts, sizeof(*s->hosts));
	for (k = 0; k < cfg->nr_hosts; k++) {
		s->hosts[k].probe = -1;
		s->hosts[k].next_good = true;
	}
	s->probes = xcalloc((size_t)cfg->nr_hosts, sizeof(*s->probes));
	s->t0 = s->last_event = now(s);
	rb_oid_hex(cfg->range->bad, s->bad_hex);
	rb_oid_hex(cfg->range->goods[0], s->good_hex);
}

static void sess_release(struct sess *s)
{
	if (s->b_ready)
		rb_bisect_release(&s->b);
	free(s->hosts);
	free(s->probes);
	svec_clear(&s->extra_hosts);
	svec_clear(&s->fresh_hex);
	free(s->fresh_after);
	free(s->ahead);
	sbuf_release(&s->line);
}

/* Back into the range without the dropped verdicts: replay the rest. */
static int restart(struct sess *s)
{
	bool reproduced;

	s->decided = 0;
	s->rounds = 0;
	s->attempts = 0;
	s->pol.noise = s->cfg->policy.noise;
	s->pol.contam = s->cfg->policy.contam;
	s->nr_probes = 0;
	return load_graph(s) < 0 || replay(s, &reproduced) < 0 ? -1 : 0;
}

/*
 * The share of the change the culprit accounts for: on all the runs of
 * the anchors, and on the confirmation's fresh runs of its first parent
 * and itself (the runs of their steps were taken until the evidence was
 * strong, which overstates their difference); all their runs when fresh
 * ones are too few. None when a set has fewer than 2 runs.
 */
static int culprit_share(struct sess *s, int64_t after,
			 struct session_outcome_info *out)
{
	struct stats_set g = STATS_SET_INIT, p = STATS_SET_INIT,
			 c = STATS_SET_INIT, b = STATS_SET_INIT;
	const struct stats_set *ps, *cs;
	int ret = -1;

	out->has_share = false;
	if (!out->parents_nr)
		return 0;
	if (load_set(s, s->good_hex, &g, -1, 0) < 0 ||
	    load_set(s, s->bad_hex, &b, -1, 0) < 0 ||
	    load_set(s, out->parents[0], &p, after, -1) < 0 ||
	    load_set(s, out->culprit, &c, after, -1) < 0)
		goto out;
	if ((p.nr < 2 || c.nr < 2) &&
	    (load_set(s, out->parents[0], &p, -1, 0) < 0 ||
	     load_set(s, out->culprit, &c, -1, 0) < 0))
		goto out;
	ps = !strcmp(out->parents[0], s->good_hex) ? &g : &p;
	cs = !strcmp(out->culprit, s->bad_hex) ? &b : &c;
	out->has_share = stats_share(&g, ps, cs, &b, 0.95, &out->share) == 0;
	if (!out->has_share)
		rb_error_clear();
	ret = 0;
out:
	stats_set_release(&g);
	stats_set_release(&p);
	stats_set_release(&c);
	stats_set_release(&b);
	return ret;
}

/* The parents of the culprit pick (one with first-parent) into out. */
static int culprit_parents(struct sess *s, uint32_t pick,
			   struct session_outcome_info *out)
{
	uint8_t(*poids)[RB_OID_RAWSZ] = NULL;
	size_t np = 0, i;

	rb_oid_hex(s->g->oid[pick], out->culprit);
	if (s->ops->parents(s->ops->data, s->g->oid[pick], &poids, &np) < 0)
		return -1;
	if ((s->cfg->range->flags & RB_FIND_FIRST_PARENT) && np > 1)
		np = 1;
	out->parents = xcalloc(np ? np : 1, sizeof(*out->parents));
	for (i = 0; i < np; i++)
		rb_oid_hex(poids[i], out->parents[i]);
	free(poids);
	out->parents_nr = np;
	return 0;
}

/*
 * An unconfirmed culprit: besides it and its parents, the verdicts of the
 * decided commits whose runs are at neither anchor's level go to the drop
 * list (", \"sha\"" each), to be decided again on fresh runs. Under a
 * change in several steps those commits sit between the anchors, some
 * close to the threshold, where a step errs most; a wrong "bad" among
 * them would otherwise hold the bisection below it, and every culprit it
 * finds there fails to confirm in turn.
 */
static int drop_between(struct sess *s, const struct session_outcome_info *out,
			struct sbuf *drop)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT,
			 c = STATS_SET_INIT;
	uint32_t i;
	size_t k;
	int ret = -1;

	if (load_set(s, s->good_hex, &good, -1, 0) < 0 ||
	    load_set(s, s->bad_hex, &bad, -1, 0) < 0)
		goto out;
	for (i = 0; i < s->g->nr; i++) {
		char hex[RB_OID_HEXSZ + 1];
		bool listed = false;

		if (!(s->b.mark[i] & (RB_GOOD | RB_BAD)) ||
		    (s->b.mark[i] & RB_SKIP))
			continue;
		rb_oid_hex(s->g->oid[i], hex);
		listed = !strcmp(hex, s->good_hex) ||
			 !strcmp(hex, s->bad_hex) || !strcmp(hex, out->culprit);
		for (k = 0; k < out->parents_nr && !listed; k++)
			listed = !strcmp(hex, out->parents[k]);
		if (listed)
			continue;
		if (load_set(s, hex, &c, fresh_after(s, hex), -1) < 0)
			goto out;
		if (c.nr < 2 || stats_same_level(&good, &c, 2) ||
		    stats_same_level(&bad, &c, 2))
			continue;
		sbuf_addf(drop, ", \"%s\"", hex);
	}
	ret = 0;
out:
	stats_set_release(&good);
	stats_set_release(&bad);
	stats_set_release(&c);
	return ret;
}

/*
 * A member decided the other way (flip) contradicts verdicts: a bad parent
 * every good verdict on it or on a commit that contains it (a good
 * commit's ancestors are good), a good culprit every bad verdict on it or
 * on its ancestors (a bad commit's descendants are bad). One of those is
 * the wrong step the bisection took; they go to the drop list ("sha", ...)
 * and are decided again, with the flip as a verdict of its own. False
 * (nothing listed) when the flip cannot be a verdict: an anchor, or a
 * commit outside the candidates.
 */
static bool flip_drops(struct sess *s, const struct flip *f, struct sbuf *drop)
{
	uint8_t oid[RB_OID_RAWSZ];
	uint32_t node, i;
	size_t k = 0;

	if (!strcmp(f->hex, s->good_hex) || !strcmp(f->hex, s->bad_hex) ||
	    rb_oid_from_hex(oid, f->hex) < 0)
		return false;
	node = rb_graph_find(s->g, oid);
	if (node == RB_NODE_NONE || !(s->g->flags[node] & RB_NODE_CAND))
		return false;
	for (i = 0; i < s->g->nr; i++) {
		char hex[RB_OID_HEXSZ + 1];
		uint8_t m = s->b.mark[i];
		bool hit;

		if ((m & RB_SKIP) || i == node)
			continue;
		if (flip_verdict(f) == RB_BAD)
			hit = (m & RB_GOOD) &&
			      rb_bisect_reaches(&s->b, i, node);
		else
			hit = (m & RB_BAD) && rb_bisect_reaches(&s->b, node, i);
		if (!hit)
			continue;
		rb_oid_hex(s->g->oid[i], hex);
		if (!strcmp(hex, s->good_hex) || !strcmp(hex, s->bad_hex))
			continue;
		sbuf_addf(drop, "%s\"%s\"", k++ ? ", " : "", hex);
	}
	/* the flip itself: its verdict comes from the confirmation */
	sbuf_addf(drop, "%s\"%s\"", k ? ", " : "", f->hex);
	return true;
}

/* Does the policy start with cheap steps (a step budget of their own)? */
static bool starts_cheap(const struct sess *s)
{
	return s->cfg->policy.step_budget > s->cfg->policy.budget;
}

/* Are the steps still the cheap ones (no culprit failed to confirm)? */
static bool cheap(const struct sess *s)
{
	return s->attempts == 0 && starts_cheap(s);
}

/*
 * Culprits that may fail to confirm before the bisection gives up: one
 * more when the steps started cheap (that failure is their price).
 */
static unsigned attempts_max(const struct sess *s)
{
	return CONFIRM_ATTEMPTS + starts_cheap(s);
}

/*
 * Did culprit fail to confirm before (*named), and because a member could
 * not be measured (*unmeasurable: then it will again, no retry can
 * confirm it)?
 */
static int failed_before(struct sess *s, const char *culprit, bool *named,
			 bool *unmeasurable)
{
	const struct bisection_step_rec *st;
	size_t n, i;

	*named = *unmeasurable = false;
	if (s->ops->steps(s->ops->data, &st, &n) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (strcmp(st[i].kind, "unconfirmed") || !st[i].commit ||
		    strcmp(st[i].commit, culprit))
			continue;
		*named = true;
		*unmeasurable |= st[i].detail &&
				 strstr(st[i].detail, "\"unmeasurable\": true");
	}
	return 0;
}

/*
 * The first culprit that fails to confirm says the range is not as simple
 * as the cheap steps bet (the step budget): it may hold commits between
 * the anchors' levels, where those steps err most. Every verdict they gave
 * that is not sure is opened again ("reopen": ["sha", ...]: dropped, its
 * runs kept), so that the steps that take it up again hold it to the
 * strict bound, with more runs where its evidence falls short. keep: a
 * commit whose verdict is set anew (the flip), or NULL.
 */
static int reopen(struct sess *s, const char *keep, struct sbuf *detail)
{
	const struct bisection_step_rec *st;
	struct svec seen = SVEC_INIT;
	size_t n, i, k = 0;

	if (s->ops->steps(s->ops->data, &st, &n) < 0)
		return -1;
	sbuf_addstr(detail, "\"reopen\": [");
	/* the newest verdict of each commit is the one that stands */
	for (i = n; i-- > 0;) {
		uint8_t oid[RB_OID_RAWSZ];
		uint32_t node;

		if (strcmp(st[i].kind, "verdict") || !st[i].commit ||
		    svec_find(&seen, st[i].commit) >= 0)
			continue;
		svec_push(&seen, st[i].commit);
		if (!st[i].verdict || parse_verdict(st[i].verdict) == RB_SKIP ||
		    (st[i].detail && strstr(st[i].detail, "\"sure\": true")) ||
		    (keep && !strcmp(st[i].commit, keep)) ||
		    strstr(detail->buf, st[i].commit) ||
		    rb_oid_from_hex(oid, st[i].commit) < 0)
			continue;
		node = rb_graph_find(s->g, oid);
		if (node == RB_NODE_NONE ||
		    !(s->b.mark[node] & (RB_GOOD | RB_BAD)))
			continue;
		sbuf_addf(detail, "%s\"%s\"", k++ ? ", " : "", st[i].commit);
	}
	sbuf_addstr(detail, "], ");
	svec_clear(&seen);
	return 0;
}

/*
 * The bisection found pick: confirm it. *done when the session ended
 * (found, or inconclusive after too many attempts); otherwise its verdicts
 * and its parents' are dropped and the session goes back into the range.
 */
static int found(struct sess *s, uint32_t pick,
		 struct session_outcome_info *out, bool *done)
{
	struct sbuf why = SBUF_INIT, detail = SBUF_INIT, drop = SBUF_INIT;
	struct flip flip = { .why = SBUF_INIT };
	size_t i, np;
	bool ok = true, flipped, first_cheap, named = false, again = false;
	int64_t after = -1;
	int ret = -1;
	double confirm_alpha = s->pol.confirm_alpha;
	double change_alpha = s->pol.change_alpha;

	*done = false;
	if (culprit_parents(s, pick, out) < 0)
		goto out;
	np = out->parents_nr;
	/*
	 * Each culprit that failed to confirm says the range holds commits
	 * near the threshold (a change in several steps), where a step and
	 * its repetition err most: the next confirmation asks for more (its
	 * alpha over the attempts so far plus one: 2%, 1%, 0.67%).
	 */
	s->pol.confirm_alpha = confirm_alpha / (1 + s->attempts);
	s->pol.change_alpha = change_alpha / (1 + s->attempts);
	/* a root commit has nothing to compare with */
	if (np && confirm(s, out->culprit, out->parents, np, &ok, &after, &flip,
			  &detail, &why) < 0)
		goto out;
	if (ok) {
		if (step(s, "confirmed", out->culprit, NULL, NULL, detail.buf) <
		    0)
			goto out;
		/* a wrong culprit: a wrong step and a confirmation repeating
		 * it */
		out->decided = s->decided;
		out->step_alpha = stats_policy_step_alpha(&s->pol);
		out->confirm_alpha = s->pol.confirm_alpha;
		out->confidence = 1 - RB_MIN(1, out->decided * out->step_alpha *
							out->confirm_alpha);
		if (culprit_share(s, after, out) < 0)
			goto out;
		snprintf(out->message, sizeof(out->message), "confirmed: %s",
			 why.buf);
		event(s, "%.12s confirmed: %s", out->culprit, why.buf);
		*done = true;
		ret = finish(s, out, SESSION_FOUND);
		goto out;
	}
	event(s, "%.12s did not confirm: %s", out->culprit, why.buf);
	if (failed_before(s, out->culprit, &named, &again) < 0)
		goto out;
	again &= flip.unmeasurable;
	first_cheap = cheap(s);
	s->attempts++;
	sbuf_addstr(&drop, "{\"drop\": [");
	/*
	 * After cheap steps a culprit that fails to confirm is most often
	 * one wrong step, which the member decided the other way points at;
	 * later failures say the range is harder (a change in several
	 * steps), and a member's verdict near the threshold can be wrong
	 * too: the culprit and its parents are decided again
	 */
	flipped = first_cheap && flip.set && flip_drops(s, &flip, &drop);
	if (!flipped) {
		sbuf_addf(&drop, "\"%s\"", out->culprit);
		for (i = 0; i < np; i++)
			sbuf_addf(&drop, ", \"%s\"", out->parents[i]);
	}
	if (drop_between(s, out, &drop) < 0)
		goto out;
	sbuf_addf(&drop, "], \"after_run\": %lld, ",
		  (long long)s->ops->last_run_id(s->ops->data));
	/*
	 * The cheap verdicts are opened again after the first failure, and
	 * for a culprit named again after it failed to confirm: the wrong
	 * verdict that leads back to it is not its own or its parents'
	 */
	if ((first_cheap || named) &&
	    reopen(s, flip.set ? flip.hex : NULL, &drop) < 0)
		goto out;
	if (flip.unmeasurable)
		sbuf_addstr(&drop, "\"unmeasurable\": true, ");
	sbuf_addf(&drop, "\"numbers\": %s}", detail.len ? detail.buf : "null");
	if (step(s, "unconfirmed", out->culprit, NULL, NULL, drop.buf) < 0)
		goto out;
	if (flipped) {
		/* the confirmation's verdict, on its fresh runs */
		const char *v = flip_verdict(&flip) == RB_BAD ? "bad" : "good";

		sbuf_reset(&detail);
		verdict_detail(&detail, &flip.m.step, flip.m.last_run,
			       flip.why.buf, after);
		if (step(s, "verdict", flip.hex, s->cfg->hosts[0], v,
			 detail.buf) < 0)
			goto out;
		event(s,
		      "%.12s is %s on the confirmation's runs: the verdicts "
		      "it contradicts are decided again",
		      flip.hex, v);
	}
	session_outcome_release(out);
	if (s->attempts > attempts_max(s) || again) {
		snprintf(out->message, sizeof(out->message),
			 "%.12s looked like the first bad commit %u times but "
			 "did not confirm against its parent: %s",
			 out->culprit, s->attempts, why.buf);
		*done = true;
		ret = finish(s, out, SESSION_INCONCLUSIVE);
		goto out;
	}
	ret = restart(s);
out:
	s->pol.confirm_alpha = confirm_alpha;
	s->pol.change_alpha = change_alpha;
	sbuf_release(&why);
	sbuf_release(&detail);
	sbuf_release(&drop);
	sbuf_release(&flip.why);
	return ret;
}

/*
 * A "contradiction" step: the verdicts of the last round (round: the
 * verdicts contradict one first bad commit) or none (only skipped commits
 * are left) are dropped, with the run id from which their runs count
 * again; after cheap steps every verdict that is not sure is opened again
 * too (the wrong one may be older, or may have left only skipped
 * commits). restart() then replays the state without them. commit: the
 * step's commit.
 */
static int contradiction(struct sess *s, bool round, const char *commit)
{
	struct sbuf d = SBUF_INIT;
	size_t i, k = 0;
	int ret = -1;

	sbuf_addstr(&d, "{\"drop\": [");
	for (i = 0; round && i < s->nr_probes; i++)
		if (s->probes[i].verdict == RB_GOOD ||
		    s->probes[i].verdict == RB_BAD)
			sbuf_addf(&d, "%s\"%s\"", k++ ? ", " : "",
				  s->probes[i].hex);
	sbuf_addf(&d, "], \"after_run\": %lld, ",
		  (long long)s->ops->last_run_id(s->ops->data));
	if (cheap(s) && reopen(s, NULL, &d) < 0)
		goto out;
	sbuf_addf(&d, "\"why\": \"%s\"}",
		  round ? "the verdicts contradict one first bad commit" :
			  "only skipped commits are left");
	if (round)
		event(s, "the verdicts contradict one first bad commit: the "
			 "last round's commits are decided again on fresh "
			 "runs");
	else
		event(s, "only skipped commits are left: the verdicts are "
			 "decided again at the strict bound");
	ret = step(s, "contradiction", commit, NULL, NULL, d.buf);
out:
	sbuf_release(&d);
	return ret;
}

/*
 * A conclusion of git's other than a culprit: the session ends (*done),
 * except for verdicts that leave no candidate, which drop the last round
 * (twice at most) and go back into the range.
 */
static int concluded(struct sess *s, const struct rb_bisect_step *bs,
		     struct session_outcome_info *out, bool *done)
{
	*done = true;
	switch (bs->status) {
	case RB_BISECT_ONLY_SKIPPED:
		/*
		 * Not confirmed by anything: after cheap steps, their
		 * verdicts are taken up again at the strict bound first (a
		 * wrong one can leave only skipped commits)
		 */
		if (cheap(s) && bs->list_nr) {
			char hex[RB_OID_HEXSZ + 1];

			*done = false;
			rb_oid_hex(s->g->oid[bs->list[0]], hex);
			return contradiction(s, false, hex) < 0 ||
					       restart(s) < 0 ?
				       -1 :
				       0;
		}
		set_list(&out->list, &out->list_nr, s->g, bs->list,
			 bs->list_nr);
		snprintf(out->message, sizeof(out->message),
			 "There are only 'skip'ped commits left to test.");
		return finish(s, out, SESSION_ONLY_SKIPPED);
	case RB_BISECT_MERGE_BASE_BAD:
		rb_oid_hex(s->g->oid[bs->pick], out->culprit);
		snprintf(out->message, sizeof(out->message),
			 "The merge base %s is bad. This means the regression "
			 "was fixed between %s and the good commit(s), or "
			 "good and bad are swapped.",
			 out->culprit, out->culprit);
		out->culprit[0] = '\0';
		return finish(s, out, SESSION_INCONCLUSIVE);
	case RB_BISECT_SWAPPED:
		snprintf(out->message, sizeof(out->message),
			 "Some good commits are not ancestors of the bad one, "
			 "and the bad one is an ancestor of a good one: good "
			 "and bad are probably swapped.");
		return finish(s, out, SESSION_INCONCLUSIVE);
	default:
		break;
	}
	/*
	 * RB_BISECT_EMPTY: the verdicts contradict one first bad commit: one
	 * of the last round's is wrong (a noisy step, or a regression that
	 * comes and goes). Those commits are decided again on fresh runs,
	 * twice at most.
	 */
	if (s->nr_probes &&
	    s->attempts < CONTRADICTION_ATTEMPTS + starts_cheap(s)) {
		*done = false;
		return contradiction(s, true, s->probes[0].hex) < 0 ||
				       restart(s) < 0 ?
			       -1 :
			       0;
	}
	snprintf(out->message, sizeof(out->message),
		 "No candidate is left: the verdicts contradict one first bad "
		 "commit (the regression may come and go).");
	return finish(s, out, SESSION_INCONCLUSIVE);
}

/*
 * The endpoint check asked again on the anchors' runs so far (when the
 * steps added some since the last time): a change ruled out ends the
 * bisection, not reproduced (*done). See stats_power_recheck.
 */
static int endpoint_again(struct sess *s, struct session_outcome_info *out,
			  bool *done)
{
	struct stats_set good = STATS_SET_INIT, bad = STATS_SET_INIT;
	struct stats_power pw;
	struct sbuf why = SBUF_INIT, detail = SBUF_INIT;
	int ret = -1;

	if (load_set(s, s->good_hex, &good, -1, 0) < 0 ||
	    load_set(s, s->bad_hex, &bad, -1, 0) < 0)
		goto out;
	ret = 0;
	if (good.nr < 2 || bad.nr < 2 ||
	    good.nr + bad.nr == s->anchor_runs_checked)
		goto out;
	s->anchor_runs_checked = good.nr + bad.nr;
	ret = -1;
	if (stats_power_recheck(&s->pol, &good, &bad, &pw, &why) < 0)
		goto out;
	ret = 0;
	if (pw.verdict != STATS_NOT_REPRODUCED)
		goto out;
	endpoint_detail(&detail, &pw, &good, &bad, true);
	if (step(s, "endpoint", NULL, NULL, "not-reproduced", detail.buf) < 0) {
		ret = -1;
		goto out;
	}
	event(s, "%s: %s", s->cfg->metric, why.buf);
	snprintf(out->message, sizeof(out->message), "not reproduced: %s %s",
		 s->cfg->metric, why.buf);
	*done = true;
	ret = finish(s, out, SESSION_NOT_REPRODUCED);
out:
	stats_set_release(&good);
	stats_set_release(&bad);
	sbuf_release(&why);
	sbuf_release(&detail);
	return ret;
}

/* The commits of the next round: one per host (k-way), or the pick. */
static uint32_t round_picks(struct sess *s, const struct rb_bisect_step *bs,
			    uint32_t *picks)
{
	uint32_t n = 0;

	if (!bs->is_merge_base && s->cfg->nr_hosts > 1)
		n = rb_bisect_picks(&s->b, (uint32_t)s->cfg->nr_hosts, picks);
	if (!n) {
		picks[0] = bs->pick;
		n = 1;
	}
	return n;
}

/* Rounds until the bisection concludes (and the conclusion confirms). */
static int bisect_rounds(struct sess *s, struct session_outcome_info *out)
{
	struct rb_bisect_step bs = RB_BISECT_STEP_INIT;
	uint32_t *picks = xcalloc((size_t)s->cfg->nr_hosts, sizeof(*picks));
	bool done = false;
	int ret = 0;

	while (!done && ret == 0) {
		uint32_t n;

		/*
		 * A culprit that failed to confirm says the range may hold
		 * commits between the anchors' levels (a change in several
		 * steps), where cheap steps err most: the steps after it
		 * spend the budget of a wrong culprit, not the steps'.
		 */
		s->pol.step_budget = s->attempts ? s->cfg->policy.budget :
						   s->cfg->policy.step_budget;
		if (endpoint_again(s, out, &done) < 0) {
			ret = -1;
			break;
		}
		if (done)
			break;
		rb_bisect_step_release(&bs);
		rb_bisect_next(&s->b, &bs);
		if (bs.status == RB_BISECT_FOUND) {
			ret = found(s, bs.pick, out, &done);
			continue;
		}
		if (bs.status != RB_BISECT_CONTINUE) {
			ret = concluded(s, &bs, out, &done);
			continue;
		}
		n = round_picks(s, &bs, picks);
		event(s,
		      "round %u: %u candidates, about %d step%s left; "
		      "testing %u commit%s%s",
		      s->rounds + 1, bs.nr, bs.steps, RB_PLURAL(bs.steps), n,
		      RB_PLURAL(n), bs.is_merge_base ? " (a merge base)" : "");
		ret = run_round(s, picks, n);
	}
	rb_bisect_step_release(&bs);
	free(picks);
	return ret;
}

int session_run(const struct session_config *cfg,
		struct session_outcome_info *out)
{
	struct sess s;
	struct sbuf why = SBUF_INIT;
	bool reproduced = false;
	int r, ret = -1;

	memset(out, 0, sizeof(*out));
	sess_init(&s, cfg);
	if (load_graph(&s) < 0)
		goto out;
	/* the error budget is split over the steps this range needs */
	s.pol.expected_steps =
		(unsigned)rb_bisect_estimate_steps(rb_bisect_candidates(&s.b)) +
		2;
	/* anchors older than about a dozen runs on a host are measured
	 * again next to the candidate (run ids count every host's runs) */
	if (s.pol.anchor_refresh == 0)
		s.pol.anchor_refresh = 12.0 * cfg->nr_hosts;
	r = replay(&s, &reproduced);
	if (r < 0 || (!r && endpoints(&s, &reproduced, &why) < 0))
		goto out;
	if (!reproduced) {
		snprintf(out->message, sizeof(out->message),
			 "not reproduced: %s %s", cfg->metric,
			 why.len ? why.buf : "(see the endpoint step)");
		ret = finish(&s, out, SESSION_NOT_REPRODUCED);
		goto out;
	}
	ret = bisect_rounds(&s, out);
out:
	if (s.cfg->progress && s.cfg->tty) {
		fputs("\r\033[K", s.cfg->progress);
		fflush(s.cfg->progress);
	}
	if (ret == 0)
		final_threshold(&s, out);
	sess_release(&s);
	sbuf_release(&why);
	if (ret < 0)
		session_outcome_release(out);
	return ret;
}
