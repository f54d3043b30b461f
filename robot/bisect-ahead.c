// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the next rounds of a bisection can pick (see bisect.h,
 * rb_bisect_ahead). Pure: copies of the state take each outcome of the
 * round in turn.
 */
#include "robot.h"
#include "bisect.h"

void rb_bisect_copy(struct rb_bisect *dst, const struct rb_bisect *src)
{
	uint32_t n = src->g->nr ? src->g->nr : 1;
	uint32_t *cand, *pos, *tmp, *stack;
	uint8_t *mark;

	if (dst->g != src->g || !dst->mark) {
		rb_bisect_release(dst);
		dst->cand = xmalloc(sizeof(*dst->cand) * n);
		dst->mark = xmalloc(n);
		dst->pos = xmalloc(sizeof(*dst->pos) * n);
		dst->tmp = xmalloc(sizeof(*dst->tmp) * n);
		dst->stack = xmalloc(sizeof(*dst->stack) * n);
	}
	cand = dst->cand;
	mark = dst->mark;
	pos = dst->pos;
	tmp = dst->tmp;
	stack = dst->stack;
	free(dst->mb);
	*dst = *src;
	dst->cand = cand;
	dst->mark = mark;
	dst->pos = pos;
	dst->tmp = tmp;
	dst->stack = stack;
	memcpy(cand, src->cand, sizeof(*cand) * src->cand_nr);
	memcpy(mark, src->mark, n);
	memcpy(pos, src->pos, sizeof(*pos) * n);
	memcpy(tmp, src->tmp, sizeof(*tmp) * n);
	dst->mb = NULL;
	if (src->mb) {
		dst->mb = xmalloc(sizeof(*dst->mb) *
				  (src->mb_nr ? src->mb_nr : 1));
		memcpy(dst->mb, src->mb, sizeof(*dst->mb) * src->mb_nr);
	}
}

/* Outcomes of a round of more picks than this are not enumerated. */
#define AHEAD_MAX_PICKS 4
/* An outcome less likely than this is not looked into. */
#define AHEAD_MIN_PROB 1e-3

struct ahead {
	const struct rb_bisect *root;
	uint32_t hosts;
	unsigned depth;
	/* one state per level, reused (no allocation per outcome) */
	struct rb_bisect *lvl;
	struct rb_ahead *out;
	size_t nr, max;
};

static void add(struct ahead *a, uint32_t node, double p, unsigned depth)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (a->out[i].node == node) {
			a->out[i].prob += p;
			if (depth < a->out[i].depth)
				a->out[i].depth = depth;
			return;
		}
	if (a->nr == a->max)
		return;
	a->out[a->nr].node = node;
	a->out[a->nr].prob = p;
	a->out[a->nr].depth = depth;
	a->nr++;
}

/* The picks a round would test from state b (as the session's rounds). */
static uint32_t picks_of(struct rb_bisect *b, uint32_t hosts, uint32_t *picks,
			 int *status, uint32_t *found)
{
	struct rb_bisect_step bs = RB_BISECT_STEP_INIT;
	uint32_t n = 0;

	rb_bisect_next(b, &bs);
	*status = (int)bs.status;
	*found = bs.pick;
	if (bs.status == RB_BISECT_CONTINUE) {
		if (!bs.is_merge_base && hosts > 1)
			n = rb_bisect_picks(b, RB_MIN(hosts, AHEAD_MAX_PICKS),
					    picks);
		if (!n) {
			picks[0] = bs.pick;
			n = 1;
		}
	}
	rb_bisect_step_release(&bs);
	return n;
}

static void expand(struct ahead *a, const struct rb_bisect *from,
		   const uint32_t *picks, const double *p_bad, uint32_t n,
		   double prob, unsigned depth)
{
	struct rb_bisect *b = &a->lvl[depth];
	uint32_t combo, i;

	for (combo = 0; combo < (1u << n); combo++) {
		uint32_t next[AHEAD_MAX_PICKS], m, found;
		double q = prob, half[AHEAD_MAX_PICKS];
		int status;

		for (i = 0; i < n; i++)
			q *= combo >> i & 1 ? p_bad[i] : 1 - p_bad[i];
		if (q < AHEAD_MIN_PROB)
			continue;
		rb_bisect_copy(b, from);
		for (i = 0; i < n; i++)
			/* a contradicting verdict is left out, as the
			 * session does */
			if (rb_bisect_mark(b, picks[i],
					   combo >> i & 1 ? RB_BAD : RB_GOOD) <
			    0)
				rb_error_clear();
		m = picks_of(b, a->hosts, next, &status, &found);
		if (status == RB_BISECT_FOUND) {
			/* the confirmation measures the culprit's parents */
			const uint32_t *par;
			uint32_t np = rb_graph_parents(b->g, found, &par);

			for (i = 0; i < np; i++)
				if (par[i] != RB_NODE_NONE)
					add(a, par[i], q, depth + 1);
			continue;
		}
		for (i = 0; i < m; i++) {
			add(a, next[i], q, depth + 1);
			half[i] = 0.5;
		}
		if (m && depth + 1 < a->depth)
			expand(a, b, next, half, m, q, depth + 1);
	}
}

static int by_prob(const void *x, const void *y)
{
	const struct rb_ahead *a = x, *b = y;

	if (a->prob != b->prob)
		return a->prob < b->prob ? 1 : -1;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

size_t rb_bisect_ahead(const struct rb_bisect *b, const uint32_t *picks,
		       const double *p_bad, uint32_t n, uint32_t hosts,
		       unsigned depth, struct rb_ahead *out, size_t max)
{
	struct ahead a = { .root = b,
			   .hosts = hosts ? hosts : 1,
			   .depth = depth,
			   .out = out,
			   .max = max };
	unsigned i;

	if (!depth || !max)
		return 0;
	n = RB_MIN(n, AHEAD_MAX_PICKS);
	a.lvl = xcalloc(depth, sizeof(*a.lvl));
	for (i = 0; i < depth; i++)
		a.lvl[i] = (struct rb_bisect)RB_BISECT_INIT;
	if (n)
		expand(&a, b, picks, p_bad, n, 1.0, 0);
	else {
		/* before the first round: its picks, then what follows */
		uint32_t first[AHEAD_MAX_PICKS], found, m;
		double half[AHEAD_MAX_PICKS];
		int status;

		rb_bisect_copy(&a.lvl[0], b);
		m = picks_of(&a.lvl[0], a.hosts, first, &status, &found);
		for (i = 0; i < m; i++) {
			add(&a, first[i], 1.0, 0);
			half[i] = 0.5;
		}
		if (m && depth > 1) {
			a.depth = depth - 1;
			expand(&a, b, first, half, m, 1.0, 0);
		}
	}
	for (i = 0; i < depth; i++)
		rb_bisect_release(&a.lvl[i]);
	free(a.lvl);
	qsort(out, a.nr, sizeof(*out), by_prob);
	return a.nr;
}
