/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_BISECT_H
#define ROBOT_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oid.h"

/*
 * Commit selection for a bisection, pure: no libgit2, no I/O.
 *
 * The picks are bit-identical to git's (`git rev-list --bisect`, `git
 * bisect`): the same candidate order, the same weights, git's check order
 * with its "approximately halfway" shortcut, its first-maximum tie-break,
 * its `--bisect-all` sort and its deterministic skip-away. Weights come from
 * ancestor bitsets in topological order instead of git's walk per merge;
 * git's check order is then replayed over the finished weights.
 *
 * Two layers:
 *   struct rb_graph    a compact commit graph filled by an adapter
 *                      (robot/repo.c) or by hand (tests)
 *   struct rb_bisect   a bisection state over a graph: feed verdicts
 *                      (good/bad/skip for a node), ask for the next pick(s)
 *                      or the conclusion
 */

#define RB_NODE_NONE UINT32_MAX

/* ---------------------------------------------------------------- graph */

/* rb_graph_add() flags */
enum {
	/* the node is in the candidate list of the walk (BAD --not GOOD...) */
	RB_NODE_CAND = 1 << 0,
};

/*
 * Nodes are numbered 0..nr-1 in the order they were added; an adapter adds
 * the candidates in git's walk order (what `git rev-list BAD --not GOOD...`
 * prints), then any extra node a bisection needs (merge bases). Each node
 * has its raw oid, its committer time and its parents, in commit order. A
 * parent that is not a node is RB_NODE_NONE ("outside": uninteresting).
 *
 * Memory: about 40 bytes a commit (1.3M commits: ~52 MB).
 *
 * Invariants: par_off has nr+1 entries once rb_graph_resolve() ran; oids
 * are unique (adding an oid twice returns the first node, flags or-ed).
 */
struct rb_graph {
	uint32_t nr;
	uint32_t alloc;
	uint8_t (*oid)[RB_OID_RAWSZ];
	int64_t *time;
	uint8_t *flags;
	uint32_t *par_off; /* parents of i: par[par_off[i] .. par_off[i+1]) */
	uint32_t *par;
	size_t par_nr, par_alloc;
	/* parent oids waiting for rb_graph_resolve() */
	uint8_t (*pending)[RB_OID_RAWSZ];
	size_t pending_nr, pending_alloc, pending_from;
	/* oid -> node, open addressing; size is a power of two */
	uint32_t *hash;
	uint32_t hash_size;
};

#define RB_GRAPH_INIT \
	{             \
		0     \
	}

void rb_graph_init(struct rb_graph *g);
void rb_graph_release(struct rb_graph *g);

/*
 * Append a node (or return the existing node of that oid, or-ing flags;
 * its parents are then left as they were). Parents are given as raw oids
 * and resolved to nodes by rb_graph_resolve(), so a walk can add children
 * before their parents. Returns the node index.
 */
uint32_t rb_graph_add(struct rb_graph *g, const uint8_t *oid, int64_t time,
		      unsigned flags, size_t nparents,
		      const uint8_t (*parents)[RB_OID_RAWSZ]);
/* Resolve the parents added since the last call. Call before any use. */
void rb_graph_resolve(struct rb_graph *g);
/* The node of a raw oid, or RB_NODE_NONE. */
uint32_t rb_graph_find(const struct rb_graph *g, const uint8_t *oid);
/* Parents of a node: *out points into the graph; returns the count. */
static inline uint32_t rb_graph_parents(const struct rb_graph *g, uint32_t i,
					const uint32_t **out)
{
	*out = g->par + g->par_off[i];
	return g->par_off[i + 1] - g->par_off[i];
}

/* ------------------------------------------------------- one-shot pick */

/* rb_bisect_find() flags, as git's find_bisection() */
enum {
	RB_FIND_FIRST_PARENT = 1 << 0, /* count first parents only */
	RB_FIND_ALL = 1 << 1, /* no shortcut; sort all (--bisect-all) */
};

struct rb_dist {
	uint32_t node;
	uint32_t dist; /* min(w, N - w) */
	uint32_t weight; /* w: the commit and its ancestors among the N */
};

/*
 * The result of one find: `nr` candidates (git's bisect_all), the pick and
 * its weight (git's "reaches"). With RB_FIND_ALL, `all` holds every
 * candidate sorted by dist descending then hex oid ascending and `pick` is
 * all[0].node; otherwise `all` is NULL. pick is RB_NODE_NONE when nr == 0.
 */
struct rb_find {
	uint32_t nr;
	uint32_t pick;
	uint32_t weight;
	struct rb_dist *all; /* owned; rb_find_release() */
};

#define RB_FIND_INIT                                       \
	{                                                  \
		.pick = RB_NODE_NONE, .all = NULL, .nr = 0 \
	}
void rb_find_release(struct rb_find *f);

/*
 * git's find_bisection() over `list`, the candidates in the order the walk
 * printed them (the bad commit first). Parents that are not in `list` are
 * uninteresting. Only the parents and the order matter (and the oids, for
 * the RB_FIND_ALL sort). Always succeeds.
 */
void rb_bisect_find(const struct rb_graph *g, const uint32_t *list, uint32_t nr,
		    unsigned flags, struct rb_find *out);

/*
 * git's estimate_bisect_steps(): with n = floor(log2 N), e = 2^n, x = N - e,
 * the number of steps left is n when e < 3x and n - 1 otherwise (0 below 3):
 * a range of 2^n + x commits needs n more tests in the worst case, n - 1
 * when few commits stick out past the power of two.
 */
int rb_bisect_estimate_steps(uint32_t all);

/*
 * git's skip-away index for `count` commits left after the skipped ones:
 * an LCG draw prn in [0, 32768) and i = count * (prn/32768)^1.5, computed
 * in 32-bit int arithmetic as git does (count * prn wraps past 65538
 * commits; a negative index means "the head of the list").
 */
int32_t rb_bisect_skip_index(uint32_t count);
/* floor(sqrt(v)) for v >= 0 (git's sqrti on the range it uses). */
int32_t rb_isqrt(int32_t v);

/* ------------------------------------------------------ bisection state */

enum rb_verdict {
	RB_GOOD = 1,
	RB_BAD = 2,
	RB_SKIP = 4,
};

enum rb_bisect_status {
	RB_BISECT_CONTINUE, /* test `pick` (a merge base when is_merge_base) */
	RB_BISECT_FOUND, /* `pick` is the first bad commit */
	RB_BISECT_ONLY_SKIPPED, /* the first bad commit is one of `list` */
	RB_BISECT_MERGE_BASE_BAD, /* merge base `pick` is bad: the bug was
				   * fixed between it and the goods */
	RB_BISECT_SWAPPED, /* the bad commit is an ancestor of a good one:
			    * good and bad are probably swapped */
	RB_BISECT_EMPTY, /* no candidate is left: verdicts contradict one
			  * first bad commit (or the range was empty) */
};

/*
 * A bisection over a graph. The candidates start as the walk's list; a
 * verdict narrows them:
 *   bad X   drops every candidate that is not X or an ancestor of X
 *   good X  drops X and its ancestors
 *   skip X  keeps X but never picks it while another commit can be picked
 * Verdicts combine in any order (that is how k-way picks combine: apply the
 * verdicts of all hosts). After each verdict the candidate order is what a
 * fresh `git rev-list BAD --not GOOD...` would print: git's date-ordered
 * walk is replayed over the remaining candidates (exact unless committer
 * dates are skewed so badly that git's walk leaks commits; see NEEDSWORK in
 * bisect.c).
 *
 * Merge bases: when a good commit is not an ancestor of bad, the driver
 * passes the merge bases (all of them, as extra graph nodes) with
 * rb_bisect_set_merge_bases(). They are picked first, one at a time, as git
 * does; a bad merge base ends the bisection (RB_BISECT_MERGE_BASE_BAD); a
 * skipped one is left behind (git warns and continues). Unlike git's
 * `bisect run`, every merge base is tested before the bisection proper.
 *
 * Ownership: the state borrows the graph (it must outlive the state and not
 * change) and owns everything else. Nodes are graph indices throughout.
 */
struct rb_bisect {
	const struct rb_graph *g;
	unsigned flags; /* RB_FIND_FIRST_PARENT */
	uint32_t bad; /* the known bad tip of the candidates, or NONE */
	uint32_t *cand; /* current candidates in walk order */
	uint32_t cand_nr;
	uint8_t *mark; /* per node: enum rb_verdict bits */
	uint32_t *mb; /* merge bases to test, in order */
	uint32_t mb_nr;
	int concluded; /* enum rb_bisect_status once final, else -1 */
	uint32_t concluded_node;
	uint32_t epoch; /* current mark value in tmp */
	/* scratch, reused across steps (no allocation churn) */
	uint32_t *pos; /* node -> position in cand, or NONE */
	uint32_t *tmp;
	uint32_t *stack;
};

#define RB_BISECT_INIT                               \
	{                                            \
		.bad = RB_NODE_NONE, .concluded = -1 \
	}

/*
 * Start from a walk: list = the candidates in walk order (list[0] is the
 * bad commit), nr of them; flags RB_FIND_FIRST_PARENT or 0. An empty list
 * gives RB_BISECT_EMPTY.
 */
void rb_bisect_init(struct rb_bisect *b, const struct rb_graph *g,
		    const uint32_t *list, uint32_t nr, unsigned flags);
void rb_bisect_release(struct rb_bisect *b);

/*
 * Merge bases of bad and the goods, to test first (in the given order).
 * `bad` is the bad commit's node (it may be outside the walk, which is
 * empty when bad is an ancestor of a good). A merge base equal to bad gives
 * RB_BISECT_SWAPPED (git's "maybe you mistook good and bad revs?").
 */
void rb_bisect_set_merge_bases(struct rb_bisect *b, uint32_t bad,
			       const uint32_t *mb, uint32_t nr);

/*
 * Record a verdict on a node (a candidate of the initial walk or a merge
 * base). Returns 0, or -1 with rb_error() when the node is not one of those,
 * the verdict contradicts an earlier one, or the bisection is over.
 */
int rb_bisect_mark(struct rb_bisect *b, uint32_t node, enum rb_verdict v);

/*
 * The next step, what `git bisect` would do now. `list` (only-skipped: the
 * skipped candidates in git's order, then bad when it is not skipped) is
 * owned by the step: rb_bisect_step_release().
 */
struct rb_bisect_step {
	enum rb_bisect_status status;
	uint32_t pick; /* CONTINUE, FOUND, MERGE_BASE_BAD; else NONE */
	bool is_merge_base; /* CONTINUE: pick is a merge base to test */
	uint32_t nr; /* candidates left (git's bisect_all) */
	uint32_t weight; /* git's "reaches" for the best commit */
	uint32_t left; /* "Bisecting: N revisions left to test after this" */
	int steps; /* "(roughly S steps)" */
	uint32_t *list;
	uint32_t list_nr;
};

#define RB_BISECT_STEP_INIT                        \
	{                                          \
		.pick = RB_NODE_NONE, .list = NULL \
	}
void rb_bisect_step_release(struct rb_bisect_step *s);
void rb_bisect_next(struct rb_bisect *b, struct rb_bisect_step *out);

/*
 * k-way picks for h idle hosts: up to h distinct commits to test at once,
 * written to out[] (room for h); returns how many (0 when the bisection is
 * concluded). h == 1 is exactly rb_bisect_next()'s pick. Pending merge
 * bases come first (they are independent tests). Otherwise the picks split
 * the candidates into h+1 parts as evenly as the DAG allows: they start at
 * the weights i*N/(h+1), then each pick is moved in turn to the candidate
 * that minimises the largest set of candidates the verdicts could leave
 * (then the sum of squares of those sets), until nothing improves. Known bad
 * and skipped commits are never picked. Verdicts combine with
 * rb_bisect_mark() in any order. At most 32 picks (h is capped).
 */
uint32_t rb_bisect_picks(struct rb_bisect *b, uint32_t h, uint32_t *out);

/* A copy of a bisection state (dst: RB_BISECT_INIT or an earlier copy over
 * the same graph, whose buffers are reused); rb_bisect_release it. */
void rb_bisect_copy(struct rb_bisect *dst, const struct rb_bisect *src);

/* ----------------------------------------------------------- look-ahead */

struct rb_ahead {
	uint32_t node;
	double prob; /* the chance that a round tests it */
	unsigned depth; /* rounds from now (0: the round about to start) */
};

/*
 * The commits that the next rounds can test, the likeliest first, for
 * building ahead while the current round is measured. State b is before
 * the round of picks[0..n) (each bad with chance p_bad[i]); every outcome
 * of the round is applied to a copy (a contradicting verdict left out, as
 * the session does) and the next round's picks (rb_bisect_picks for hosts
 * > 1, else rb_bisect_next's) are listed with the chance of that outcome,
 * then their own outcomes (even odds) down to `depth` rounds. A commit
 * reached along several outcomes adds their chances. When an outcome
 * concludes the bisection (FOUND), the culprit's parents are listed: the
 * confirmation measures them. n == 0: the round is not picked yet; its
 * picks come first (chance 1, depth 0), then `depth - 1` rounds after.
 * Rounds of more than 4 picks look at their first 4. Writes at most max
 * entries to out; returns how many. Outcomes below a chance of 0.001 are
 * not followed.
 */
size_t rb_bisect_ahead(const struct rb_bisect *b, const uint32_t *picks,
		       const double *p_bad, uint32_t n, uint32_t hosts,
		       unsigned depth, struct rb_ahead *out, size_t max);

/* Candidates left and the estimated number of steps (git's figures). */
uint32_t rb_bisect_candidates(const struct rb_bisect *b);

/*
 * Is anc the node itself or one of its ancestors, along the nodes of the
 * initial walk (the candidates' graph)? For telling which verdicts a
 * fresh one contradicts: a bad commit's descendants are bad, a good
 * one's ancestors good. Uses the state's scratch; its verdicts stay.
 */
bool rb_bisect_reaches(struct rb_bisect *b, uint32_t node, uint32_t anc);

/* --------------------------------------------------------------- range */

/*
 * A bisection's range, loaded once (robot/repo.c from git, or by hand):
 * the graph, the walk `bad --not goods...` in git's order, the merge bases
 * to test first when a good commit is not an ancestor of bad (bad_node then
 * is bad's node), the flags (RB_FIND_FIRST_PARENT) and the endpoints. A
 * bisection state starts from it as often as needed (rb_range_start), so a
 * session that drops verdicts starts over without reading git again.
 */
struct rb_range {
	struct rb_graph g;
	uint32_t *list;
	uint32_t nr;
	unsigned flags;
	uint32_t bad_node;
	uint32_t *mb;
	uint32_t mb_nr;
	uint8_t bad[RB_OID_RAWSZ];
	uint8_t (*goods)[RB_OID_RAWSZ];
	size_t nr_goods;
};

/* An empty range of bad and goods (copied), to fill. */
void rb_range_init(struct rb_range *r, const uint8_t *bad,
		   const uint8_t (*goods)[RB_OID_RAWSZ], size_t nr_goods,
		   unsigned flags);
void rb_range_release(struct rb_range *r);
/* A fresh bisection state over the range (rb_bisect_release it). */
void rb_range_start(const struct rb_range *r, struct rb_bisect *b);

/* ------------------------------------------------------------ internals */

/*
 * Weights of `list` (walk order) into w[] (by position): for each
 * candidate, how many counted candidates are it or its ancestors. counted
 * NULL counts all; else counted[pos] != 0. Exposed for tests and benches.
 * Memory: bitsets for the merges only, cut into column chunks so that they
 * stay under `budget` bytes (0: 128 MiB).
 */
void rb_bisect_weights(const struct rb_graph *g, const uint32_t *list,
		       uint32_t nr, unsigned flags, const uint8_t *counted,
		       size_t budget, uint32_t *w);

#endif
