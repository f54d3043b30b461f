// SPDX-License-Identifier: GPL-2.0-only
/*
 * Commit selection for a bisection (see bisect.h). Pure: no libgit2, no
 * I/O. The behaviour to match is git's (bisect.c, revision.c); the code is
 * our own.
 */
#include "robot.h"
#include "bisect.h"

/* ---------------------------------------------------------------- graph */

void rb_graph_init(struct rb_graph *g)
{
	memset(g, 0, sizeof(*g));
}

void rb_graph_release(struct rb_graph *g)
{
	free(g->oid);
	free(g->time);
	free(g->flags);
	free(g->par_off);
	free(g->par);
	free(g->pending);
	free(g->hash);
	rb_graph_init(g);
}

static uint32_t oid_hash(const uint8_t *oid)
{
	uint32_t h;

	memcpy(&h, oid, sizeof(h));
	return h;
}

static void hash_insert(uint32_t *hash, uint32_t size, const struct rb_graph *g,
			uint32_t node)
{
	uint32_t mask = size - 1, i = oid_hash(g->oid[node]) & mask;

	while (hash[i] != RB_NODE_NONE)
		i = (i + 1) & mask;
	hash[i] = node;
}

static void hash_grow(struct rb_graph *g)
{
	uint32_t size = g->hash_size ? g->hash_size * 2 : 1024, i;

	free(g->hash);
	g->hash = xmalloc(sizeof(*g->hash) * size);
	memset(g->hash, 0xff, sizeof(*g->hash) * size);
	g->hash_size = size;
	for (i = 0; i < g->nr; i++)
		hash_insert(g->hash, size, g, i);
}

uint32_t rb_graph_find(const struct rb_graph *g, const uint8_t *oid)
{
	uint32_t mask, i;

	if (!g->hash_size)
		return RB_NODE_NONE;
	mask = g->hash_size - 1;
	for (i = oid_hash(oid) & mask; g->hash[i] != RB_NODE_NONE;
	     i = (i + 1) & mask)
		if (!memcmp(g->oid[g->hash[i]], oid, RB_OID_RAWSZ))
			return g->hash[i];
	return RB_NODE_NONE;
}

uint32_t rb_graph_add(struct rb_graph *g, const uint8_t *oid, int64_t time,
		      unsigned flags, size_t nparents,
		      const uint8_t (*parents)[RB_OID_RAWSZ])
{
	uint32_t n = rb_graph_find(g, oid);
	size_t i;

	if (n != RB_NODE_NONE) {
		g->flags[n] |= flags;
		return n;
	}
	if (g->nr + 1 >= g->alloc) {
		uint32_t a = g->alloc ? g->alloc * 2 : 256;

		g->oid = xrealloc(g->oid, sizeof(*g->oid) * a);
		g->time = xrealloc(g->time, sizeof(*g->time) * a);
		g->flags = xrealloc(g->flags, sizeof(*g->flags) * a);
		g->par_off =
			xrealloc(g->par_off, sizeof(*g->par_off) * (a + 1));
		g->alloc = a;
	}
	/* keep the table at most half full */
	if ((g->nr + 1) * 2 > g->hash_size)
		hash_grow(g);
	n = g->nr++;
	memcpy(g->oid[n], oid, RB_OID_RAWSZ);
	g->time[n] = time;
	g->flags[n] = flags;
	hash_insert(g->hash, g->hash_size, g, n);
	if (n == 0)
		g->par_off[0] = 0;
	RB_ALLOC_GROW(g->pending, g->pending_nr + nparents, g->pending_alloc);
	for (i = 0; i < nparents; i++)
		memcpy(g->pending[g->pending_nr++], parents[i], RB_OID_RAWSZ);
	g->par_off[n + 1] = g->par_off[n] + nparents;
	return n;
}

void rb_graph_resolve(struct rb_graph *g)
{
	size_t need, i;

	if (!g->par_off) {
		/* no node yet: an empty graph still has par_off[0] */
		g->par_off = xcalloc(1, sizeof(*g->par_off));
		return;
	}
	need = g->nr ? g->par_off[g->nr] : 0;
	RB_ALLOC_GROW(g->par, need, g->par_alloc);
	for (i = g->par_nr; i < need; i++)
		g->par[i] = rb_graph_find(g, g->pending[i - g->par_nr]);
	g->par_nr = need;
	g->pending_nr = 0;
}

/* -------------------------------------------------------------- weights */

/*
 * The candidate subgraph by position in the walk list: the interesting
 * parents of each position (only the first parent counts with
 * RB_FIND_FIRST_PARENT, as in git), and a topological rank (parents rank
 * lower than children) so that ancestor sets can be built in one pass.
 */
struct wgraph {
	uint32_t n;
	uint32_t *poff; /* n + 1 */
	uint32_t *ppos;
	uint32_t *rank; /* position -> rank */
	uint32_t *order; /* rank -> position */
};

static void wgraph_release(struct wgraph *wg)
{
	free(wg->poff);
	free(wg->ppos);
	free(wg->rank);
	free(wg->order);
	memset(wg, 0, sizeof(*wg));
}

static inline uint32_t wg_npar(const struct wgraph *wg, uint32_t i)
{
	return wg->poff[i + 1] - wg->poff[i];
}

/* pos: node -> position (RB_NODE_NONE outside); filled by the caller. */
static void wgraph_build(struct wgraph *wg, const struct rb_graph *g,
			 const uint32_t *list, uint32_t n, unsigned flags,
			 const uint32_t *pos)
{
	uint32_t i, k, total = 0, *nchild, *stack, sp = 0, r;

	wg->n = n;
	wg->poff = xmalloc(sizeof(*wg->poff) * (n + 1));
	for (i = 0; i < n; i++) {
		const uint32_t *par;
		uint32_t np = rb_graph_parents(g, list[i], &par);

		wg->poff[i] = total;
		for (k = 0; k < np; k++) {
			if (par[k] != RB_NODE_NONE &&
			    pos[par[k]] != RB_NODE_NONE)
				total++;
			if (flags & RB_FIND_FIRST_PARENT)
				break;
		}
	}
	wg->poff[n] = total;
	wg->ppos = xmalloc(sizeof(*wg->ppos) * (total ? total : 1));
	nchild = xcalloc(n ? n : 1, sizeof(*nchild));
	for (i = 0, total = 0; i < n; i++) {
		const uint32_t *par;
		uint32_t np = rb_graph_parents(g, list[i], &par);

		for (k = 0; k < np; k++) {
			if (par[k] != RB_NODE_NONE &&
			    pos[par[k]] != RB_NODE_NONE) {
				wg->ppos[total++] = pos[par[k]];
				nchild[pos[par[k]]]++;
			}
			if (flags & RB_FIND_FIRST_PARENT)
				break;
		}
	}
	/*
	 * Kahn's algorithm from the tips down gives children before parents;
	 * ranks are handed out from the top so that parents rank lower.
	 */
	wg->rank = xmalloc(sizeof(*wg->rank) * (n ? n : 1));
	wg->order = xmalloc(sizeof(*wg->order) * (n ? n : 1));
	stack = xmalloc(sizeof(*stack) * (n ? n : 1));
	for (i = n; i-- > 0;)
		if (!nchild[i])
			stack[sp++] = i;
	r = n;
	while (sp) {
		uint32_t p = stack[--sp];

		wg->rank[p] = --r;
		wg->order[r] = p;
		for (k = wg->poff[p]; k < wg->poff[p + 1]; k++)
			if (!--nchild[wg->ppos[k]])
				stack[sp++] = wg->ppos[k];
	}
	if (r != 0)
		RB_BUG("commit graph has a cycle");
	free(stack);
	free(nchild);
}

/*
 * When each merge's set is last needed (last_use, by merge index), and how
 * many sets are live at the worst moment (slot: scratch, 0 live, NONE
 * not). Returns that count.
 */
static uint32_t plan_sets(const struct wgraph *wg, const uint32_t *mranks,
			  uint32_t m_nr, const uint32_t *anchor,
			  uint32_t *last_use, uint32_t *slot)
{
	uint32_t k, live = 0, max_live = 0;

	for (k = 0; k < m_nr; k++)
		last_use[wg->order[mranks[k]]] = RB_NODE_NONE;
	for (k = 0; k < m_nr; k++) {
		uint32_t m = wg->order[mranks[k]], j;

		for (j = wg->poff[m]; j < wg->poff[m + 1]; j++) {
			uint32_t a = anchor[wg->ppos[j]];

			if (a != RB_NODE_NONE)
				last_use[a] = k;
		}
	}
	for (k = 0; k < m_nr; k++) {
		uint32_t m = wg->order[mranks[k]], j;

		slot[m] = 0;
		if (++live > max_live)
			max_live = live;
		for (j = wg->poff[m]; j < wg->poff[m + 1]; j++) {
			uint32_t a = anchor[wg->ppos[j]];

			if (a != RB_NODE_NONE && last_use[a] == k &&
			    slot[a] != RB_NODE_NONE) {
				slot[a] = RB_NODE_NONE;
				live--;
			}
		}
		if (last_use[m] == RB_NODE_NONE) {
			slot[m] = RB_NODE_NONE;
			live--;
		}
	}
	return max_live;
}

/*
 * The set of merge m (rank mrank) within the columns [lo, hi) into B (nw
 * words): itself, each parent's chain of single-parent commits down to
 * its merge ancestor, and that merge's set. Returns its count.
 */
static uint32_t merge_bits(const struct wgraph *wg, const uint8_t *counted,
			   uint32_t m, uint32_t mrank, uint32_t lo, uint32_t hi,
			   uint64_t *B, const uint64_t *bits,
			   const uint32_t *slot, size_t cw, size_t nw)
{
	uint32_t j, cnt = 0;
	size_t x;

	memset(B, 0, nw * sizeof(*B));
	if (mrank < hi && (!counted || counted[m]))
		B[(mrank - lo) / 64] |= 1ULL << ((mrank - lo) % 64);
	for (j = wg->poff[m]; j < wg->poff[m + 1]; j++) {
		uint32_t p = wg->ppos[j];

		for (;;) {
			uint32_t rp = wg->rank[p];

			if (rp < lo)
				break;
			if (wg_npar(wg, p) >= 2) {
				const uint64_t *A = bits + (size_t)slot[p] * cw;

				for (x = 0; x < nw; x++)
					B[x] |= A[x];
				break;
			}
			if (rp < hi && (!counted || counted[p]))
				B[(rp - lo) / 64] |= 1ULL << ((rp - lo) % 64);
			if (!wg_npar(wg, p))
				break;
			p = wg->ppos[wg->poff[p]];
		}
	}
	for (x = 0; x < nw; x++)
		cnt += (uint32_t)__builtin_popcountll(B[x]);
	return cnt;
}

/*
 * Weights by ancestor bitsets. A single-parent commit weighs its parent's
 * weight plus itself; only merges need a set: B(m) = {m} + for each parent
 * p, the chain of single-parent commits from p down to its nearest merge
 * ancestor a, plus B(a). Columns are topological ranks, so walking a chain
 * down can stop as soon as ranks fall below the current column chunk, and
 * merges below the chunk have empty sets there. A merge's set is kept in a
 * slot only until the last merge that uses it, so live sets are few (the
 * width of the history, not its length); when even those do not fit the
 * budget, the columns are cut into chunks and the pass repeated.
 */
static void wgraph_weights(const struct wgraph *wg, const uint8_t *counted,
			   size_t budget, uint32_t *w)
{
	uint32_t n = wg->n, i, r, k, m_nr = 0, *mranks, *anchor, *last_use,
		 *slot, *free_slots, free_nr, max_live;
	size_t words_total, cw, lo_w;
	uint64_t *bits;

#define CNT(p) (!counted || counted[p])
	if (!n)
		return;
	/* single-parent and root weights, and the merges in rank order */
	anchor = xmalloc(sizeof(*anchor) * n);
	mranks = xmalloc(sizeof(*mranks) * n);
	for (r = 0; r < n; r++) {
		uint32_t p = wg->order[r], np = wg_npar(wg, p);

		if (np >= 2) {
			mranks[m_nr++] = r;
			anchor[p] = p;
			w[p] = 0;
		} else if (np == 1) {
			uint32_t q = wg->ppos[wg->poff[p]];

			anchor[p] = anchor[q];
			w[p] = RB_NODE_NONE; /* filled after the merges */
		} else {
			anchor[p] = RB_NODE_NONE;
			w[p] = CNT(p) ? 1 : 0;
		}
	}
	if (!m_nr)
		goto singles;

	last_use = xmalloc(sizeof(*last_use) * n);
	slot = xmalloc(sizeof(*slot) * n);
	free_slots = xmalloc(sizeof(*free_slots) * m_nr);
	max_live = plan_sets(wg, mranks, m_nr, anchor, last_use, slot);
	if (!budget)
		budget = (size_t)128 << 20;
	words_total = ((size_t)n + 63) / 64;
	cw = budget / 8 / max_live;
	if (cw < 1)
		cw = 1;
	if (cw > words_total)
		cw = words_total;
	bits = xmalloc(sizeof(*bits) * cw * max_live);

	for (lo_w = 0; lo_w < words_total; lo_w += cw) {
		uint32_t lo = (uint32_t)(lo_w * 64), hi;
		size_t hi_w = RB_MIN(lo_w + cw, words_total), nw = hi_w - lo_w;

		hi = hi_w * 64 > n ? n : (uint32_t)(hi_w * 64);
		for (i = 0; i < max_live; i++)
			free_slots[i] = max_live - 1 - i;
		free_nr = max_live;
		for (k = 0; k < m_nr; k++) {
			uint32_t m = wg->order[mranks[k]], j;
			uint64_t *B;

			if (mranks[k] < lo) {
				/* nothing of it in this chunk: no slot */
				slot[m] = RB_NODE_NONE;
				goto release;
			}
			slot[m] = free_slots[--free_nr];
			B = bits + (size_t)slot[m] * cw;
			w[m] += merge_bits(wg, counted, m, mranks[k], lo, hi, B,
					   bits, slot, cw, nw);
release:
			for (j = wg->poff[m]; j < wg->poff[m + 1]; j++) {
				uint32_t a = anchor[wg->ppos[j]];

				if (a != RB_NODE_NONE && last_use[a] == k &&
				    slot[a] != RB_NODE_NONE) {
					free_slots[free_nr++] = slot[a];
					slot[a] = RB_NODE_NONE;
				}
			}
			if (last_use[m] == RB_NODE_NONE &&
			    slot[m] != RB_NODE_NONE) {
				free_slots[free_nr++] = slot[m];
				slot[m] = RB_NODE_NONE;
			}
		}
	}
	free(bits);
	free(free_slots);
	free(slot);
	free(last_use);
singles:
	for (r = 0; r < n; r++) {
		uint32_t p = wg->order[r];

		if (wg_npar(wg, p) == 1)
			w[p] = w[wg->ppos[wg->poff[p]]] + (CNT(p) ? 1 : 0);
	}
#undef CNT
	free(mranks);
	free(anchor);
}

void rb_bisect_weights(const struct rb_graph *g, const uint32_t *list,
		       uint32_t nr, unsigned flags, const uint8_t *counted,
		       size_t budget, uint32_t *w)
{
	struct wgraph wg = { 0 };
	uint32_t *pos = xmalloc(sizeof(*pos) * (g->nr ? g->nr : 1)), i;

	memset(pos, 0xff, sizeof(*pos) * g->nr);
	for (i = 0; i < nr; i++)
		pos[list[i]] = i;
	wgraph_build(&wg, g, list, nr, flags, pos);
	wgraph_weights(&wg, counted, budget, w);
	wgraph_release(&wg);
	free(pos);
}

/* ----------------------------------------------------------------- find */

/*
 * git stops at the first commit that is "approximately halfway": 2w - N in
 * {-1, 0, 1}, or (since 2.30) |2w - N| < N/1024.
 */
static bool halfway(uint32_t w, uint32_t n)
{
	int64_t diff = 2 * (int64_t)w - n;

	if (diff >= -1 && diff <= 1)
		return true;
	return (diff < 0 ? -diff : diff) < (int64_t)(n / 1024);
}

static uint32_t dist_of(uint32_t w, uint32_t n)
{
	return RB_MIN(w, n - w);
}

void rb_find_release(struct rb_find *f)
{
	free(f->all);
	f->all = NULL;
	f->nr = 0;
	f->pick = RB_NODE_NONE;
	f->weight = 0;
}

static int cmp_dist(const void *a_, const void *b_, void *g_)
{
	const struct rb_dist *a = a_, *b = b_;
	const struct rb_graph *g = g_;

	if (a->dist != b->dist)
		return a->dist < b->dist ? 1 : -1;
	return memcmp(g->oid[a->node], g->oid[b->node], RB_OID_RAWSZ);
}

/*
 * git's check order over finished weights: the list reversed (oldest
 * first); merges first, each checked for halfway; then passes over the
 * single-parent commits, each checked as soon as its parent's weight is
 * known in git's pass order; then the first strict maximum of the distance.
 */
static uint32_t simulate_pick(const struct wgraph *wg, const uint32_t *w)
{
	uint32_t n = wg->n, i, best = 0, best_d = 0, todo = 0;
	uint8_t *known;
	bool have_best = false;

	for (i = n; i-- > 0;)
		if (wg_npar(wg, i) >= 2 && halfway(w[i], n))
			return i;
	known = xmalloc(n);
	for (i = 0; i < n; i++) {
		known[i] = wg_npar(wg, i) != 1;
		todo += !known[i];
	}
	while (todo) {
		uint32_t done = 0;

		for (i = n; i-- > 0;) {
			if (known[i] || !known[wg->ppos[wg->poff[i]]])
				continue;
			known[i] = 1;
			done++;
			if (halfway(w[i], n)) {
				free(known);
				return i;
			}
		}
		if (!done)
			RB_BUG("weights did not converge");
		todo -= done;
	}
	free(known);
	for (i = n; i-- > 0;) {
		uint32_t d = dist_of(w[i], n);

		if (!have_best || d > best_d) {
			best = i;
			best_d = d;
			have_best = true;
		}
	}
	return best;
}

static void find_positions(const struct rb_graph *g, const uint32_t *list,
			   uint32_t nr, unsigned flags, const uint32_t *pos,
			   struct rb_find *out)
{
	struct wgraph wg = { 0 };
	uint32_t *w, i;

	out->nr = nr;
	out->pick = RB_NODE_NONE;
	out->weight = 0;
	out->all = NULL;
	if (!nr)
		return;
	wgraph_build(&wg, g, list, nr, flags, pos);
	w = xmalloc(sizeof(*w) * nr);
	wgraph_weights(&wg, NULL, 0, w);
	if (!(flags & RB_FIND_ALL)) {
		i = simulate_pick(&wg, w);
		out->pick = list[i];
		out->weight = w[i];
	} else {
		out->all = xmalloc(sizeof(*out->all) * nr);
		for (i = 0; i < nr; i++) {
			out->all[i].node = list[i];
			out->all[i].weight = w[i];
			out->all[i].dist = dist_of(w[i], nr);
		}
		qsort_r(out->all, nr, sizeof(*out->all), cmp_dist, (void *)g);
		out->pick = out->all[0].node;
		out->weight = out->all[0].weight;
	}
	free(w);
	wgraph_release(&wg);
}

void rb_bisect_find(const struct rb_graph *g, const uint32_t *list, uint32_t nr,
		    unsigned flags, struct rb_find *out)
{
	uint32_t *pos = xmalloc(sizeof(*pos) * (g->nr ? g->nr : 1)), i;

	memset(pos, 0xff, sizeof(*pos) * g->nr);
	for (i = 0; i < nr; i++)
		pos[list[i]] = i;
	find_positions(g, list, nr, flags, pos, out);
	free(pos);
}

int rb_bisect_estimate_steps(uint32_t all)
{
	int n = 0;
	uint32_t e, x;

	if (all < 3)
		return 0;
	while ((all >> (n + 1)) != 0)
		n++;
	e = 1u << n;
	x = all - e;
	return (uint64_t)e < 3 * (uint64_t)x ? n : n - 1;
}

int32_t rb_isqrt(int32_t v)
{
	int32_t r = 0, bit = 1 << 30;
	int32_t x = v;

	if (v <= 0)
		return 0;
	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/*
 * The multiplication count * prn is done in 32 bits and wraps as it does
 * on the machines git runs on (undefined in C, so we spell the wrap out).
 */
int32_t rb_bisect_skip_index(uint32_t count)
{
	uint32_t x = count * 1103515245u + 12345u;
	int32_t prn = (int32_t)((x / 65536) % 32768);
	int32_t t = (int32_t)(count * (uint32_t)prn);

	t /= 32768;
	t *= rb_isqrt(prn);
	return t / rb_isqrt(32768);
}

/* ---------------------------------------------------------------- state */

void rb_bisect_init(struct rb_bisect *b, const struct rb_graph *g,
		    const uint32_t *list, uint32_t nr, unsigned flags)
{
	uint32_t n = g->nr ? g->nr : 1, i;

	memset(b, 0, sizeof(*b));
	b->g = g;
	b->flags = flags & RB_FIND_FIRST_PARENT;
	b->concluded = -1;
	b->bad = nr ? list[0] : RB_NODE_NONE;
	b->cand = xmalloc(sizeof(*b->cand) * (nr ? nr : 1));
	if (nr)
		memcpy(b->cand, list, sizeof(*list) * nr);
	b->cand_nr = nr;
	b->mark = xcalloc(n, 1);
	b->pos = xmalloc(sizeof(*b->pos) * n);
	memset(b->pos, 0xff, sizeof(*b->pos) * n);
	for (i = 0; i < nr; i++)
		b->pos[list[i]] = i;
	b->tmp = xcalloc(n, sizeof(*b->tmp));
	b->stack = xmalloc(sizeof(*b->stack) * n);
	if (nr)
		b->mark[b->bad] |= RB_BAD;
	else
		b->concluded = RB_BISECT_EMPTY;
	b->concluded_node = RB_NODE_NONE;
}

void rb_bisect_release(struct rb_bisect *b)
{
	free(b->cand);
	free(b->mark);
	free(b->mb);
	free(b->pos);
	free(b->tmp);
	free(b->stack);
	memset(b, 0, sizeof(*b));
	b->bad = RB_NODE_NONE;
	b->concluded = -1;
}

void rb_range_init(struct rb_range *r, const uint8_t *bad,
		   const uint8_t (*goods)[RB_OID_RAWSZ], size_t nr_goods,
		   unsigned flags)
{
	memset(r, 0, sizeof(*r));
	rb_graph_init(&r->g);
	r->flags = flags;
	r->bad_node = RB_NODE_NONE;
	memcpy(r->bad, bad, RB_OID_RAWSZ);
	r->goods = xcalloc(nr_goods ? nr_goods : 1, sizeof(*r->goods));
	if (nr_goods)
		memcpy(r->goods, goods, nr_goods * sizeof(*r->goods));
	r->nr_goods = nr_goods;
}

void rb_range_release(struct rb_range *r)
{
	rb_graph_release(&r->g);
	free(r->list);
	free(r->mb);
	free(r->goods);
	memset(r, 0, sizeof(*r));
	r->bad_node = RB_NODE_NONE;
}

void rb_range_start(const struct rb_range *r, struct rb_bisect *b)
{
	rb_bisect_init(b, &r->g, r->list, r->nr,
		       r->flags & RB_FIND_FIRST_PARENT);
	if (r->mb_nr)
		rb_bisect_set_merge_bases(b, r->bad_node, r->mb, r->mb_nr);
}

void rb_bisect_set_merge_bases(struct rb_bisect *b, uint32_t bad,
			       const uint32_t *mb, uint32_t nr)
{
	uint32_t i;

	free(b->mb);
	b->mb = xmalloc(sizeof(*b->mb) * (nr ? nr : 1));
	if (nr)
		memcpy(b->mb, mb, sizeof(*mb) * nr);
	b->mb_nr = nr;
	for (i = 0; i < nr; i++)
		if (mb[i] == bad) {
			b->concluded = RB_BISECT_SWAPPED;
			b->concluded_node = bad;
		}
}

uint32_t rb_bisect_candidates(const struct rb_bisect *b)
{
	return b->cand_nr;
}

/*
 * Mark in b->tmp (epoch `ep`) the node and every ancestor that is a node of
 * the initial walk (RB_NODE_CAND): the candidates can only shrink, and the
 * paths between candidates stay among candidates.
 */
static void mark_ancestors(struct rb_bisect *b, uint32_t node, uint32_t ep)
{
	const struct rb_graph *g = b->g;
	uint32_t sp = 0;

	b->tmp[node] = ep;
	b->stack[sp++] = node;
	while (sp) {
		uint32_t x = b->stack[--sp], np, k;
		const uint32_t *par;

		np = rb_graph_parents(g, x, &par);
		for (k = 0; k < np; k++) {
			uint32_t p = par[k];

			if (p == RB_NODE_NONE ||
			    !(g->flags[p] & RB_NODE_CAND) || b->tmp[p] == ep)
				continue;
			b->tmp[p] = ep;
			b->stack[sp++] = p;
		}
	}
}

/* heap of (time desc, seq asc) for replaying git's walk */
struct qent {
	int64_t time;
	uint32_t seq;
	uint32_t node;
};

static bool qless(const struct qent *a, const struct qent *b)
{
	if (a->time != b->time)
		return a->time > b->time;
	return a->seq < b->seq;
}

static void qpush(struct qent *q, uint32_t *n, struct qent e)
{
	uint32_t i = (*n)++;

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (!qless(&e, &q[p]))
			break;
		q[i] = q[p];
		i = p;
	}
	q[i] = e;
}

static struct qent qpop(struct qent *q, uint32_t *n)
{
	struct qent top = q[0], last = q[--(*n)];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && qless(&q[c + 1], &q[c]))
			c++;
		if (!qless(&q[c], &last))
			break;
		q[i] = q[c];
		i = c;
	}
	if (*n)
		q[i] = last;
	return top;
}

/*
 * Keep the candidates whose tmp mark satisfies keep(), then put them in the
 * order a fresh `git rev-list TIPS --not GOODS` prints them. git's walk
 * pops commits by committer date, newest first, ties in insertion order;
 * an interesting commit is queued by its first child to be popped, and all
 * its children in the range are interesting, so the walk restricted to the
 * candidates gives the same order.
 *
 * NEEDSWORK: with committer dates skewed enough that git's walk pops a
 * commit as interesting before a good's walk reaches it, git may queue a
 * candidate through that commit (and keep it, up to SLOP); a fresh walk
 * from the adapter reproduces that, this replay does not.
 */
static void reorder(struct rb_bisect *b)
{
	const struct rb_graph *g = b->g;
	uint32_t n = b->cand_nr, i, k, qn = 0, seq = 0, out = 0, ntips = 0;
	uint32_t *haschild, *neworder;
	struct qent *q;

	if (!n)
		return;
	haschild = xcalloc(n, sizeof(*haschild));
	for (i = 0; i < n; i++)
		b->pos[b->cand[i]] = i;
	for (i = 0; i < n; i++) {
		const uint32_t *par;
		uint32_t np = rb_graph_parents(g, b->cand[i], &par);

		for (k = 0; k < np; k++) {
			if (par[k] != RB_NODE_NONE &&
			    b->pos[par[k]] != RB_NODE_NONE)
				haschild[b->pos[par[k]]] = 1;
			if (b->flags & RB_FIND_FIRST_PARENT)
				break;
		}
	}
	q = xmalloc(sizeof(*q) * n);
	neworder = xmalloc(sizeof(*neworder) * n);
	/* tips, by date then old order: a stable insertion into the heap */
	for (i = 0; i < n; i++)
		if (!haschild[i]) {
			struct qent e = { g->time[b->cand[i]], seq++,
					  b->cand[i] };

			qpush(q, &qn, e);
			haschild[i] = 2; /* seen */
			ntips++;
		}
	while (qn) {
		struct qent e = qpop(q, &qn);
		const uint32_t *par;
		uint32_t np = rb_graph_parents(g, e.node, &par);

		neworder[out++] = e.node;
		for (k = 0; k < np; k++) {
			uint32_t p = par[k];

			if (p != RB_NODE_NONE && b->pos[p] != RB_NODE_NONE &&
			    haschild[b->pos[p]] != 2) {
				struct qent pe = { g->time[p], seq++, p };

				haschild[b->pos[p]] = 2;
				qpush(q, &qn, pe);
			}
			if (b->flags & RB_FIND_FIRST_PARENT)
				break;
		}
	}
	if (out != n)
		RB_BUG("candidate replay lost commits");
	memcpy(b->cand, neworder, sizeof(*neworder) * n);
	for (i = 0; i < n; i++)
		b->pos[b->cand[i]] = i;
	/* the known bad commit, if the candidates have one bad tip */
	b->bad = RB_NODE_NONE;
	if (ntips == 1 && (b->mark[b->cand[0]] & RB_BAD))
		b->bad = b->cand[0];
	free(neworder);
	free(q);
	free(haschild);
}

/* keep candidates with (tmp == ep) == want */
static void filter_cand(struct rb_bisect *b, uint32_t ep, bool want)
{
	uint32_t i, n = 0;

	for (i = 0; i < b->cand_nr; i++) {
		uint32_t c = b->cand[i];

		b->pos[c] = RB_NODE_NONE;
		if ((b->tmp[c] == ep) == want)
			b->cand[n++] = c;
	}
	b->cand_nr = n;
	for (i = 0; i < n; i++)
		b->pos[b->cand[i]] = i;
}

static uint32_t fresh_epoch(struct rb_bisect *b)
{
	if (++b->epoch == 0) {
		memset(b->tmp, 0, sizeof(*b->tmp) * b->g->nr);
		b->epoch = 1;
	}
	return b->epoch;
}

bool rb_bisect_reaches(struct rb_bisect *b, uint32_t node, uint32_t anc)
{
	uint32_t ep;

	if (node >= b->g->nr || anc >= b->g->nr)
		return false;
	if (node == anc)
		return true;
	ep = fresh_epoch(b);
	mark_ancestors(b, node, ep);
	return b->tmp[anc] == ep;
}

int rb_bisect_mark(struct rb_bisect *b, uint32_t node, enum rb_verdict v)
{
	const struct rb_graph *g = b->g;
	char hex[RB_OID_HEXSZ + 1];
	uint32_t i, ep;

	if (node >= g->nr)
		return rb_error("no such commit in the bisection graph");
	rb_oid_hex(g->oid[node], hex);
	if (b->concluded >= 0)
		return rb_error("cannot mark '%s': the bisection is over", hex);
	if (v != RB_GOOD && v != RB_BAD && v != RB_SKIP)
		return rb_error("cannot mark '%s': unknown verdict", hex);
	for (i = 0; i < b->mb_nr; i++) {
		if (b->mb[i] != node)
			continue;
		if (v == RB_BAD) {
			b->concluded = RB_BISECT_MERGE_BASE_BAD;
			b->concluded_node = node;
		}
		b->mark[node] |= (uint8_t)v;
		return 0;
	}
	if (!(g->flags[node] & RB_NODE_CAND))
		return rb_error("'%s' is not a candidate of this bisection",
				hex);
	if (v == RB_SKIP) {
		b->mark[node] |= RB_SKIP;
		return 0;
	}
	if ((v == RB_GOOD && (b->mark[node] & RB_BAD)) ||
	    (v == RB_BAD && (b->mark[node] & RB_GOOD)))
		return rb_error("'%s' is already marked %s", hex,
				v == RB_GOOD ? "bad" : "good");
	if (v == RB_GOOD) {
		ep = fresh_epoch(b);
		mark_ancestors(b, node, ep);
		/* a good commit cannot descend from a bad one */
		for (i = 0; i < g->nr; i++)
			if ((b->mark[i] & RB_BAD) && b->tmp[i] == ep)
				return rb_error("'%s' cannot be good: it "
						"descends from a bad commit",
						hex);
		b->mark[node] |= RB_GOOD;
		filter_cand(b, ep, false);
	} else {
		/* a bad commit cannot be an ancestor of a good one */
		for (i = 0; i < g->nr && b->pos[node] == RB_NODE_NONE; i++) {
			if (!(b->mark[i] & RB_GOOD) ||
			    !(g->flags[i] & RB_NODE_CAND))
				continue;
			ep = fresh_epoch(b);
			mark_ancestors(b, i, ep);
			if (b->tmp[node] == ep)
				return rb_error("'%s' cannot be bad: it is an "
						"ancestor of a good commit",
						hex);
		}
		ep = fresh_epoch(b);
		mark_ancestors(b, node, ep);
		b->mark[node] |= RB_BAD;
		filter_cand(b, ep, true);
	}
	reorder(b);
	return 0;
}

void rb_bisect_step_release(struct rb_bisect_step *s)
{
	free(s->list);
	s->list = NULL;
	s->list_nr = 0;
}

void rb_bisect_next(struct rb_bisect *b, struct rb_bisect_step *out)
{
	struct rb_find f = RB_FIND_INIT;
	uint32_t i, count = 0, tried_nr = 0, *filtered = NULL, *tried = NULL;
	bool any_skip = false;

	memset(out, 0, sizeof(*out));
	out->pick = RB_NODE_NONE;
	out->nr = b->cand_nr;
	if (b->concluded >= 0) {
		out->status = (enum rb_bisect_status)b->concluded;
		out->pick = b->concluded_node;
		return;
	}
	for (i = 0; i < b->mb_nr; i++) {
		if (b->mark[b->mb[i]] & (RB_GOOD | RB_SKIP))
			continue;
		out->status = RB_BISECT_CONTINUE;
		out->pick = b->mb[i];
		out->is_merge_base = true;
		out->steps = rb_bisect_estimate_steps(b->cand_nr);
		return;
	}
	if (!b->cand_nr) {
		out->status = RB_BISECT_EMPTY;
		return;
	}
	for (i = 0; i < b->cand_nr; i++)
		if (b->mark[b->cand[i]] & RB_SKIP)
			any_skip = true;
	if (!any_skip) {
		find_positions(b->g, b->cand, b->cand_nr, b->flags, b->pos, &f);
		out->pick = f.pick;
	} else {
		/* git: no shortcut while skips exist, then skip away */
		find_positions(b->g, b->cand, b->cand_nr,
			       b->flags | RB_FIND_ALL, b->pos, &f);
		if (!(b->mark[f.all[0].node] & RB_SKIP)) {
			out->pick = f.all[0].node;
		} else {
			filtered = xmalloc(sizeof(*filtered) * f.nr);
			tried = xmalloc(sizeof(*tried) * (f.nr + 1));
			for (i = 0; i < f.nr; i++) {
				uint32_t c = f.all[i].node;

				if (b->mark[c] & RB_SKIP)
					tried[tried_nr++] = c;
				else
					filtered[count++] = c;
			}
			if (!count) {
				out->status = RB_BISECT_ONLY_SKIPPED;
				out->list = tried;
				out->list_nr = tried_nr;
				free(filtered);
				rb_find_release(&f);
				return;
			} else {
				int32_t idx = rb_bisect_skip_index(count);

				if (idx < 0 || (uint32_t)idx >= count)
					out->pick = filtered[0];
				else if (filtered[idx] != b->bad)
					out->pick = filtered[idx];
				else
					out->pick = filtered[idx ? idx - 1 : 0];
			}
		}
	}
	out->weight = f.weight;
	out->steps = rb_bisect_estimate_steps(b->cand_nr);
	if (out->pick == b->bad) {
		if (tried_nr) {
			out->status = RB_BISECT_ONLY_SKIPPED;
			tried[tried_nr++] = b->bad;
			out->list = tried;
			out->list_nr = tried_nr;
			out->pick = RB_NODE_NONE;
			tried = NULL;
		} else {
			out->status = RB_BISECT_FOUND;
		}
	} else {
		out->status = RB_BISECT_CONTINUE;
		out->left = b->cand_nr > f.weight ? b->cand_nr - f.weight - 1 :
						    0;
	}
	free(tried);
	free(filtered);
	rb_find_release(&f);
}

/* ---------------------------------------------------------------- k-way */

struct kway {
	struct rb_bisect *b;
	struct wgraph wg;
	uint32_t n;
	uint32_t *sig; /* per position: which other picks it reaches */
	uint32_t *w; /* scratch weights */
	uint8_t *counted;
	uint64_t *maxv, *sq; /* objective per position */
	uint32_t *stack;
	uint8_t *seen;
};

/* positions that are the pick itself or its ancestors: bit j in sig */
static void kway_reach(struct kway *k, uint32_t start, uint32_t bit)
{
	uint32_t sp = 0, j;

	memset(k->seen, 0, k->n);
	k->seen[start] = 1;
	k->stack[sp++] = start;
	while (sp) {
		uint32_t x = k->stack[--sp];

		k->sig[x] |= bit;
		for (j = k->wg.poff[x]; j < k->wg.poff[x + 1]; j++) {
			uint32_t p = k->wg.ppos[j];

			if (!k->seen[p]) {
				k->seen[p] = 1;
				k->stack[sp++] = p;
			}
		}
	}
}

static int cmp_u32(const void *a_, const void *b_)
{
	uint32_t a = *(const uint32_t *)a_, b = *(const uint32_t *)b_;

	return a < b ? -1 : a > b;
}

/*
 * Objective of moving pick `i` to each position, the others fixed: the
 * verdicts on the picks split the candidates by which picks they reach;
 * moving pick i to c splits each such class K into K ∩ anc(c) and the
 * rest. Fills maxv/sq; returns false when the classes are too many to
 * weigh (the picks then stay where they are).
 */
static bool kway_objective(struct kway *k, const uint32_t *picks, uint32_t h,
			   uint32_t i)
{
	uint32_t j, c, *sigs, nsig = 0;

	memset(k->sig, 0, sizeof(*k->sig) * k->n);
	for (j = 0; j < h; j++)
		if (j != i)
			kway_reach(k, picks[j], 1u << (j < 31 ? j : 31));
	sigs = xmalloc(sizeof(*sigs) * k->n);
	memcpy(sigs, k->sig, sizeof(*sigs) * k->n);
	qsort(sigs, k->n, sizeof(*sigs), cmp_u32);
	for (c = 0; c < k->n; c++)
		if (!c || sigs[c] != sigs[c - 1])
			sigs[nsig++] = sigs[c];
	if (nsig > 64) {
		free(sigs);
		return false;
	}
	memset(k->maxv, 0, sizeof(*k->maxv) * k->n);
	memset(k->sq, 0, sizeof(*k->sq) * k->n);
	for (j = 0; j < nsig; j++) {
		uint32_t size = 0;

		for (c = 0; c < k->n; c++) {
			k->counted[c] = k->sig[c] == sigs[j];
			size += k->counted[c];
		}
		wgraph_weights(&k->wg, k->counted, 0, k->w);
		for (c = 0; c < k->n; c++) {
			uint64_t a = k->w[c], r = size - a;

			k->maxv[c] = RB_MAX(k->maxv[c], RB_MAX(a, r));
			k->sq[c] += a * a + r * r;
		}
	}
	free(sigs);
	return true;
}

uint32_t rb_bisect_picks(struct rb_bisect *b, uint32_t h, uint32_t *out)
{
	struct rb_bisect_step st = RB_BISECT_STEP_INIT;
	struct kway k = { 0 };
	uint32_t i, j, c, got = 0, *ppos, elig = 0, round;

	if (!h)
		return 0;
	if (h > 32)
		h = 32;
	if (b->concluded >= 0)
		return 0;
	for (i = 0; i < b->mb_nr && got < h; i++)
		if (!(b->mark[b->mb[i]] & (RB_GOOD | RB_SKIP)))
			out[got++] = b->mb[i];
	if (got)
		return got;
	rb_bisect_next(b, &st);
	rb_bisect_step_release(&st);
	if (st.status != RB_BISECT_CONTINUE)
		return 0;
	if (h == 1) {
		out[0] = st.pick;
		return 1;
	}
	k.b = b;
	k.n = b->cand_nr;
	wgraph_build(&k.wg, b->g, b->cand, k.n, b->flags, b->pos);
	k.w = xmalloc(sizeof(*k.w) * k.n);
	wgraph_weights(&k.wg, NULL, 0, k.w);
	for (c = 0; c < k.n; c++)
		if (!(b->mark[b->cand[c]] & (RB_SKIP | RB_BAD)))
			elig++;
	ppos = xmalloc(sizeof(*ppos) * h);
	if (elig <= h) {
		for (c = k.n; c-- > 0;)
			if (!(b->mark[b->cand[c]] & (RB_SKIP | RB_BAD)))
				ppos[got++] = c;
		goto done;
	}
	/* start at the weights i*N/(h+1) */
	for (i = 0; i < h; i++) {
		uint64_t target =
			((uint64_t)(i + 1) * k.n + (h + 1) / 2) / (h + 1);
		uint64_t best_d = UINT64_MAX;
		uint32_t best = RB_NODE_NONE;

		for (c = k.n; c-- > 0;) {
			uint64_t d;

			if (b->mark[b->cand[c]] & (RB_SKIP | RB_BAD))
				continue;
			for (j = 0; j < got; j++)
				if (ppos[j] == c)
					break;
			if (j < got)
				continue;
			d = k.w[c] > target ? k.w[c] - target : target - k.w[c];
			if (d < best_d) {
				best_d = d;
				best = c;
			}
		}
		ppos[got++] = best;
	}
	/* then move each pick in turn while the worst case shrinks */
	k.sig = xmalloc(sizeof(*k.sig) * k.n);
	k.counted = xmalloc(k.n);
	k.maxv = xmalloc(sizeof(*k.maxv) * k.n);
	k.sq = xmalloc(sizeof(*k.sq) * k.n);
	k.stack = xmalloc(sizeof(*k.stack) * k.n);
	k.seen = xmalloc(k.n);
	for (round = 0; round < 8; round++) {
		bool moved = false;

		for (i = 0; i < h; i++) {
			uint32_t best;

			if (!kway_objective(&k, ppos, h, i))
				goto stop;
			best = ppos[i];
			for (c = k.n; c-- > 0;) {
				if (b->mark[b->cand[c]] & (RB_SKIP | RB_BAD))
					continue;
				for (j = 0; j < h; j++)
					if (j != i && ppos[j] == c)
						break;
				if (j < h)
					continue;
				if (k.maxv[c] < k.maxv[best] ||
				    (k.maxv[c] == k.maxv[best] &&
				     k.sq[c] < k.sq[best]))
					best = c;
			}
			if (best != ppos[i]) {
				ppos[i] = best;
				moved = true;
			}
		}
		if (!moved)
			break;
	}
stop:
	free(k.sig);
	free(k.counted);
	free(k.maxv);
	free(k.sq);
	free(k.stack);
	free(k.seen);
done:
	for (i = 0; i < got; i++)
		out[i] = b->cand[ppos[i]];
	free(ppos);
	free(k.w);
	wgraph_release(&k.wg);
	return got;
}
