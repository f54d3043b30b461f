// SPDX-License-Identifier: GPL-2.0-only
/* The session's ops in memory (session-mem.h). */
#include "robot.h"
#include "session-mem.h"

enum { PHASE_ENDPOINTS, PHASE_ROUNDS, PHASE_CONFIRM };

static void oid_of(long k, uint8_t *oid)
{
	int i;

	/* k in the first 4 bytes, a fixed tail: the hex reads back */
	oid[0] = (uint8_t)(k >> 24);
	oid[1] = (uint8_t)(k >> 16);
	oid[2] = (uint8_t)(k >> 8);
	oid[3] = (uint8_t)k;
	for (i = 4; i < RB_OID_RAWSZ; i++)
		oid[i] = (uint8_t)(0x5a + i);
}

char *session_mem_hex(long k, char *buf)
{
	uint8_t oid[RB_OID_RAWSZ];

	oid_of(k, oid);
	return rb_oid_hex(oid, buf);
}

long session_mem_commit(const struct session_mem *m, const char *hex)
{
	uint8_t oid[RB_OID_RAWSZ], want[RB_OID_RAWSZ];
	long k;

	if (rb_oid_from_hex(oid, hex) < 0)
		return -1;
	k = (long)((uint32_t)oid[0] << 24 | (uint32_t)oid[1] << 16 |
		   (uint32_t)oid[2] << 8 | oid[3]);
	oid_of(k, want);
	if (k > m->n || memcmp(oid, want, RB_OID_RAWSZ))
		return -1;
	return k;
}

/* --- records ------------------------------------------------------------ */

static int m_steps(void *data, const struct bisection_step_rec **out, size_t *n)
{
	struct session_mem *m = data;

	*out = m->steps;
	*n = m->steps_nr;
	return 0;
}

static int m_samples(void *data, const char *commit,
		     const struct run_sample **out, size_t *n)
{
	struct session_mem *m = data;
	long k = session_mem_commit(m, commit);

	*out = NULL;
	*n = 0;
	if (k < 0)
		return 0;
	*out = m->samples[k].v;
	*n = m->samples[k].nr;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int m_step_add(void *data, const char *kind, const char *commit,
		      const char *host, const char *verdict, const char *detail)
{
	struct session_mem *m = data;
	struct bisection_step_rec *r;

	RB_ALLOC_GROW(m->steps, m->steps_nr + 1, m->steps_alloc);
	r = &m->steps[m->steps_nr];
	memset(r, 0, sizeof(*r));
	r->id = (int64_t)++m->steps_nr;
	r->kind = xstrdup(kind);
	r->commit = dup_or_null(commit);
	r->host = dup_or_null(host);
	r->verdict = dup_or_null(verdict);
	r->detail = dup_or_null(detail);
	r->time = m->clock;
	if (!strcmp(kind, "confirm-start"))
		m->phase = PHASE_CONFIRM;
	else
		m->phase = PHASE_ROUNDS;
	return 0;
}

static int64_t m_last_run_id(void *data)
{
	struct session_mem *m = data;

	return m->run_id;
}

static int m_parents(void *data, const uint8_t *oid,
		     uint8_t (**out)[RB_OID_RAWSZ], size_t *n)
{
	struct session_mem *m = data;
	char hex[RB_OID_HEXSZ + 1];
	long k = session_mem_commit(m, rb_oid_hex(oid, hex));
	int i;

	if (k < 0)
		return rb_error("no commit %s in the history", hex);
	*out = xcalloc(2, sizeof(**out));
	*n = (size_t)m->graph.npar[k];
	for (i = 0; i < m->graph.npar[k]; i++)
		oid_of(m->graph.par[k][i], (*out)[i]);
	return 0;
}

/* --- the lab ------------------------------------------------------------ */

/* --- builds ------------------------------------------------------------- */

enum { ART_NONE, ART_AHEAD, ART_READY };
enum { ART_BUILT_AHEAD = 1, ART_USED = 2 };

/* commit k's build on slot sl: incremental near the slot's last build */
static double build_cost(const struct session_mem *m,
			 const struct session_mem_slot *sl, long k)
{
	return sl->last >= 0 && labs(k - sl->last) <= m->cost.incr_within ?
		       m->cost.build_incr :
		       m->cost.build;
}

/* build slot i is free from time t on: give it the likeliest commit */
static void fill_slot(struct session_mem *m, int i, double t)
{
	struct session_mem_slot *sl = &m->slot[i];
	size_t j;

	for (j = 0; j < m->ahead_nr; j++) {
		long k = m->ahead_k[j];

		if (m->art[k] != ART_NONE)
			continue;
		m->art[k] = ART_AHEAD;
		sl->pending = true;
		sl->ahead = true;
		sl->k = k;
		sl->until = t + build_cost(m, sl, k);
		sl->last = k;
		m->builds++;
		m->builds_ahead++;
		return;
	}
}

/* the builds that end by `until`, in time order, each slot refilled */
static void advance_builds(struct session_mem *m, double until)
{
	for (;;) {
		int i, best = -1;

		for (i = 0; i < m->cost.slots; i++)
			if (m->slot[i].pending && m->slot[i].until <= until &&
			    (best < 0 ||
			     m->slot[i].until < m->slot[best].until))
				best = i;
		if (best < 0)
			return;
		m->slot[best].pending = false;
		if (m->slot[best].ahead) {
			long k = m->slot[best].k;

			m->art[k] = ART_READY;
			m->built_at[k] = m->slot[best].until;
			m->art_flags[k] |= ART_BUILT_AHEAD;
		}
		if (m->cost.ahead)
			fill_slot(m, best, m->slot[best].until);
	}
}

/*
 * When commit k's kernel is ready for a host that wants it at t: built,
 * being built ahead (now wanted: never cancelled), or built now on a free
 * slot, on the slot of a build ahead (cancelled: a box never waits for a
 * guess) or after the slot that frees first.
 */
static double build_ready(struct session_mem *m, long k, double t)
{
	struct session_mem_slot *sl = NULL;
	double start = t;
	int i;

	if (m->cost.slots <= 0)
		return t;
	advance_builds(m, t);
	m->art_flags[k] |= ART_USED;
	if (m->art[k] == ART_READY)
		return RB_MAX(t, m->built_at[k]);
	for (i = 0; i < m->cost.slots; i++)
		if (m->slot[i].pending && m->slot[i].k == k) {
			m->slot[i].ahead = false;
			m->art[k] = ART_READY;
			m->built_at[k] = m->slot[i].until;
			return RB_MAX(t, m->built_at[k]);
		}
	for (i = 0; i < m->cost.slots && !sl; i++)
		if (!m->slot[i].pending)
			sl = &m->slot[i];
	for (i = 0; i < m->cost.slots && !sl; i++)
		if (m->slot[i].ahead) {
			sl = &m->slot[i];
			m->art[sl->k] = ART_NONE;
			m->builds_cancelled++;
		}
	if (!sl) {
		sl = &m->slot[0];
		for (i = 1; i < m->cost.slots; i++)
			if (m->slot[i].until < sl->until)
				sl = &m->slot[i];
	}
	if (sl->pending && !sl->ahead)
		start = RB_MAX(t, sl->until);
	sl->pending = true;
	sl->ahead = false;
	sl->k = k;
	sl->until = start + build_cost(m, sl, k);
	sl->last = k;
	m->builds++;
	m->art[k] = ART_READY;
	m->built_at[k] = sl->until;
	return sl->until;
}

static void m_ahead(void *data, const char (*commits)[RB_OID_HEXSZ + 1],
		    size_t n)
{
	struct session_mem *m = data;
	size_t i;
	int s;

	m->ahead_calls++;
	m->ahead_nr = 0;
	for (i = 0; i < n; i++) {
		long k = session_mem_commit(m, commits[i]);

		if (k >= 0)
			m->ahead_k[m->ahead_nr++] = k;
	}
	if (!m->cost.ahead || m->cost.slots <= 0)
		return;
	advance_builds(m, m->clock);
	for (s = 0; s < m->cost.slots; s++)
		if (!m->slot[s].pending)
			fill_slot(m, s, m->clock);
}

long session_mem_builds_wasted(const struct session_mem *m)
{
	long k, n = 0;

	for (k = 0; k <= m->n; k++)
		n += (m->art_flags[k] & (ART_BUILT_AHEAD | ART_USED)) ==
		     ART_BUILT_AHEAD;
	return n + m->builds_cancelled;
}

/* --- the lab ------------------------------------------------------------ */

static int m_start(void *data, int h, const char *commit)
{
	struct session_mem *m = data;
	struct session_mem_host *hs = &m->host[h];
	double duration = 1, begin;
	long k = session_mem_commit(m, commit);

	if (k < 0)
		return rb_error("no commit %s in the history", commit);
	if (hs->busy)
		RB_BUG("host %d is busy", h);
	memset(hs, 0, sizeof(*hs));
	hs->busy = true;
	hs->k = k;
	hs->res.host = h;
	snprintf(hs->res.commit, sizeof(hs->res.commit), "%s", commit);
	begin = build_ready(m, k, m->clock);
	m->build_wait += begin - m->clock;
	if (m->booted[h] != k + 1)
		begin += m->cost.boot;
	hs->res.outcome =
		m->model.run(m->model.data, h, k, begin, &hs->value, &duration);
	hs->finish = begin + duration;
	if (hs->res.outcome == SESSION_RUN_OK)
		hs->res.run_id = ++m->run_id;
	else
		snprintf(hs->res.why, sizeof(hs->res.why), "%s",
			 hs->res.outcome == SESSION_RUN_SKIP ?
				 "does not build" :
			 hs->res.outcome == SESSION_RUN_FAILED ?
				 "the payload fails" :
				 "the box did not answer");
	if (m->phase == PHASE_ENDPOINTS)
		hs->kind = MEM_ENDPOINT;
	else if (m->phase == PHASE_CONFIRM)
		hs->kind = MEM_CONFIRM;
	else
		hs->kind = k == 0 || k == m->n ? MEM_ANCHOR : MEM_CAND;
	if (m->booted[h] != k + 1) {
		m->booted[h] = k + 1;
		m->boots++;
		m->kind_boots[hs->kind]++;
	}
	return 0;
}

/* commit k's sample, in run id order (hosts end out of order) */
static void add_sample(struct session_mem *m, const struct session_mem_host *hs)
{
	struct session_mem_samples *s = &m->samples[hs->k];
	size_t i;

	RB_ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	for (i = s->nr; i > 0 && s->v[i - 1].run_id > hs->res.run_id; i--)
		s->v[i] = s->v[i - 1];
	s->v[i].run_id = hs->res.run_id;
	s->v[i].host = (char *)m->names[hs->res.host];
	s->v[i].value = hs->value;
	s->nr++;
}

static int m_wait(void *data, struct session_result *res)
{
	struct session_mem *m = data;
	struct session_mem_host *hs;
	int h, best = -1;

	for (h = 0; h < m->nr_hosts; h++)
		if (m->host[h].busy &&
		    (best < 0 || m->host[h].finish < m->host[best].finish))
			best = h;
	if (best < 0)
		RB_BUG("wait with no run going");
	hs = &m->host[best];
	if (m->cost.slots > 0)
		advance_builds(m, hs->finish);
	hs->busy = false;
	m->clock = RB_MAX(m->clock, hs->finish);
	if (hs->res.outcome == SESSION_RUN_OK) {
		add_sample(m, hs);
		m->runs++;
		m->kind_runs[hs->kind]++;
	}
	*res = hs->res;
	return 0;
}

static double m_now(void *data)
{
	struct session_mem *m = data;

	return m->clock;
}

static void m_pause(void *data, double seconds)
{
	struct session_mem *m = data;

	m->clock += seconds;
}

/* --- setup -------------------------------------------------------------- */

static void graph_copy(struct session_mem_graph *dst,
		       const struct session_mem_graph *src)
{
	dst->n = src->n;
	dst->par = xmalloc(sizeof(*dst->par) * (size_t)(src->n + 1));
	dst->npar = xmalloc(sizeof(*dst->npar) * (size_t)(src->n + 1));
	memcpy(dst->par, src->par, sizeof(*dst->par) * (size_t)(src->n + 1));
	memcpy(dst->npar, src->npar, sizeof(*dst->npar) * (size_t)(src->n + 1));
}

void session_mem_graph_release(struct session_mem_graph *g)
{
	free(g->par);
	free(g->npar);
	memset(g, 0, sizeof(*g));
}

/* the ancestor bitsets, parents first (the numbering is topological) */
static void ancestry(struct session_mem *m)
{
	size_t W = (size_t)(m->n + 1 + 63) / 64, w;
	long k;
	int i;

	m->anc_words = W;
	m->anc = xcalloc((size_t)(m->n + 1) * W, sizeof(*m->anc));
	for (k = 0; k <= m->n; k++) {
		uint64_t *row = m->anc + (size_t)k * W;

		for (i = 0; i < m->graph.npar[k]; i++) {
			const uint64_t *p =
				m->anc + (size_t)m->graph.par[k][i] * W;

			if (m->graph.par[k][i] >= k)
				RB_BUG("parent %ld of %ld is not older",
				       m->graph.par[k][i], k);
			for (w = 0; w < W; w++)
				row[w] |= p[w];
		}
		row[k / 64] |= 1ULL << (k % 64);
	}
	for (k = 0; k < m->n; k++)
		if (!session_mem_contains(m, m->n, k) ||
		    !session_mem_contains(m, k, 0))
			RB_BUG("commit %ld is not between c0 and c%ld", k,
			       m->n);
}

bool session_mem_contains(const struct session_mem *m, long k, long a)
{
	return m->anc[(size_t)k * m->anc_words + (size_t)a / 64] >> (a % 64) &
	       1;
}

void session_mem_init_graph(struct session_mem *m,
			    const struct session_mem_graph *g, int nr_hosts,
			    const struct session_mem_model *model)
{
	uint8_t bad[RB_OID_RAWSZ], good[1][RB_OID_RAWSZ];
	long k, n = g->n;
	int h, i;

	if (n < 1 || nr_hosts < 1 || nr_hosts > SESSION_MEM_MAX_HOSTS)
		RB_BUG("session_mem_init(%ld, %d)", n, nr_hosts);
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->nr_hosts = nr_hosts;
	m->model = *model;
	graph_copy(&m->graph, g);
	ancestry(m);
	for (h = 0; h < nr_hosts; h++) {
		snprintf(m->names[h], sizeof(m->names[h]), "h%d", h);
		m->hosts[h] = m->names[h];
	}
	oid_of(n, bad);
	oid_of(0, good[0]);
	rb_range_init(&m->range, bad, (const uint8_t(*)[RB_OID_RAWSZ])good, 1,
		      0);
	/* the walk bad --not good, newest first: cN .. c1 */
	m->range.list = xmalloc(sizeof(*m->range.list) * (size_t)n);
	for (k = n; k >= 1; k--) {
		uint8_t oid[RB_OID_RAWSZ], par[2][RB_OID_RAWSZ];

		oid_of(k, oid);
		for (i = 0; i < g->npar[k]; i++)
			oid_of(g->par[k][i], par[i]);
		m->range.list[n - k] = rb_graph_add(
			&m->range.g, oid, k, RB_NODE_CAND, (size_t)g->npar[k],
			(const uint8_t(*)[RB_OID_RAWSZ])par);
	}
	m->range.nr = (uint32_t)n;
	rb_graph_resolve(&m->range.g);
	m->samples = xcalloc((size_t)n + 1, sizeof(*m->samples));
	m->art = xcalloc((size_t)n + 1, sizeof(*m->art));
	m->art_flags = xcalloc((size_t)n + 1, sizeof(*m->art_flags));
	m->built_at = xcalloc((size_t)n + 1, sizeof(*m->built_at));
	m->ahead_k = xcalloc((size_t)n + 1, sizeof(*m->ahead_k));
	for (h = 0; h < SESSION_MEM_MAX_SLOTS; h++)
		m->slot[h].last = -1;
	m->ops = (struct session_ops){ .data = m,
				       .steps = m_steps,
				       .samples = m_samples,
				       .step_add = m_step_add,
				       .last_run_id = m_last_run_id,
				       .parents = m_parents,
				       .start = m_start,
				       .wait = m_wait,
				       .now = m_now,
				       .pause = m_pause,
				       .ahead = m_ahead };
}

void session_mem_init(struct session_mem *m, long n, int nr_hosts,
		      const struct session_mem_model *model)
{
	struct session_mem_graph g;
	long k;

	if (n < 1)
		RB_BUG("session_mem_init(%ld, %d)", n, nr_hosts);
	g.n = n;
	g.par = xcalloc((size_t)n + 1, sizeof(*g.par));
	g.npar = xcalloc((size_t)n + 1, sizeof(*g.npar));
	for (k = 1; k <= n; k++) {
		g.par[k][0] = k - 1;
		g.npar[k] = 1;
	}
	session_mem_init_graph(m, &g, nr_hosts, model);
	session_mem_graph_release(&g);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void session_mem_linux_like(struct session_mem_graph *g, long n, uint64_t seed)
{
	long *main = xmalloc(sizeof(*main) * (size_t)(n + 1));
	long nmain = 1, k = 1;

	if (n < 1)
		RB_BUG("session_mem_linux_like(%ld)", n);
	g->n = n;
	g->par = xcalloc((size_t)n + 1, sizeof(*g->par));
	g->npar = xcalloc((size_t)n + 1, sizeof(*g->npar));
	main[0] = 0;
	while (k <= n) {
		uint64_t r = splitmix(&seed);
		long len = 1 + (long)(r >> 40) % 8, left = n - k, i;

		/* a topic branch and its merge, when both fit (the merge
		 * must not be cN's only chance to be on the mainline) */
		if (r % 4 == 0 && left >= len + 1) {
			long back = (long)((r >> 20) % 16), fork, tip;

			fork = main[nmain - 1 - RB_MIN(back, nmain - 1)];
			tip = fork;
			for (i = 0; i < len; i++, k++) {
				g->par[k][0] = tip;
				g->npar[k] = 1;
				tip = k;
			}
			g->par[k][0] = main[nmain - 1];
			g->par[k][1] = tip;
			g->npar[k] = 2;
		} else {
			g->par[k][0] = main[nmain - 1];
			g->npar[k] = 1;
		}
		main[nmain++] = k++;
	}
	free(main);
}

void session_mem_reset(struct session_mem *m)
{
	long k;

	bisection_steps_free(m->steps, m->steps_nr);
	m->steps = NULL;
	m->steps_nr = m->steps_alloc = 0;
	/* the sample arrays are kept for the next bisection: no churn */
	for (k = 0; k <= m->n; k++)
		m->samples[k].nr = 0;
	m->run_id = 0;
	memset(m->host, 0, sizeof(m->host));
	m->clock = 0;
	m->phase = PHASE_ENDPOINTS;
	m->runs = 0;
	memset(m->kind_runs, 0, sizeof(m->kind_runs));
	memset(m->booted, 0, sizeof(m->booted));
	m->boots = 0;
	memset(m->kind_boots, 0, sizeof(m->kind_boots));
	/* a new lab: no artifact, no build going, no slot built before */
	memset(m->art, 0, (size_t)(m->n + 1) * sizeof(*m->art));
	memset(m->art_flags, 0, (size_t)(m->n + 1) * sizeof(*m->art_flags));
	memset(m->slot, 0, sizeof(m->slot));
	for (k = 0; k < SESSION_MEM_MAX_SLOTS; k++)
		m->slot[k].last = -1;
	m->ahead_nr = 0;
	m->ahead_calls = 0;
	m->builds = m->builds_ahead = m->builds_cancelled = 0;
	m->build_wait = 0;
}

void session_mem_release(struct session_mem *m)
{
	long k;

	session_mem_reset(m);
	for (k = 0; k <= m->n; k++)
		free(m->samples[k].v);
	free(m->samples);
	free(m->art);
	free(m->art_flags);
	free(m->built_at);
	free(m->ahead_k);
	free(m->anc);
	session_mem_graph_release(&m->graph);
	rb_range_release(&m->range);
}

int session_mem_run(struct session_mem *m, const struct stats_policy *pol,
		    struct session_outcome_info *out)
{
	struct session_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	/* the look-ahead only when something builds ahead (it costs) */
	m->ops.ahead = m->cost.ahead ? m_ahead : NULL;
	cfg.ops = &m->ops;
	cfg.range = &m->range;
	cfg.hosts = m->hosts;
	cfg.nr_hosts = m->nr_hosts;
	cfg.metric = "stress-ng.sim.ops_per_sec";
	cfg.policy = *pol;
	cfg.progress = m->progress;
	cfg.tty = m->tty;
	return session_run(&cfg, out);
}

size_t session_mem_count_steps(const struct session_mem *m, const char *kind,
			       const char *needle)
{
	size_t i, n = 0;

	for (i = 0; i < m->steps_nr; i++)
		n += !strcmp(m->steps[i].kind, kind) &&
		     (!needle || (m->steps[i].detail &&
				  strstr(m->steps[i].detail, needle)));
	return n;
}
