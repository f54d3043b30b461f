/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_REPO_H
#define ROBOT_REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bisect.h"

/*
 * The libgit2 adapter: everything the robot asks of a git repository.
 * Thin: it reads commits into the pure struct rb_graph (bisect.h) and
 * leaves every decision to the core.
 *
 * Errors: functions return 0 or -1 with one message in rb_error(), the
 * subject quoted and libgit2's own text once:
 *   cannot resolve 'v6.9-rc1': revspec 'v6.9-rc1' not found
 */
struct rb_repo;

/* Open the repository at (or above) path. */
int rb_repo_open(struct rb_repo **out, const char *path);
/* rb_repo_free(NULL) is a no-op. */
void rb_repo_free(struct rb_repo *r);

/*
 * Resolve a revision to a commit: full or abbreviated sha, tag (peeled),
 * branch, HEAD~3, v1.0^2: anything git_revparse_single() takes.
 */
int rb_repo_resolve(struct rb_repo *r, const char *rev, uint8_t *oid);

/* One revision argument of a walk, as on git's command line. */
struct rb_rev {
	uint8_t oid[RB_OID_RAWSZ];
	bool negative; /* ^REV: hide it and its ancestors */
};

/* rb_repo_walk() flags */
enum {
	RB_WALK_FIRST_PARENT = 1 << 0,
};

/*
 * Walk `revs` (BAD --not GOOD...) in git's order and append the commits to
 * g as RB_NODE_CAND nodes, then resolve the graph. *list (malloc'd, caller
 * frees) gets their nodes in walk order, *nr their count. The starting
 * commits are de-duplicated and sorted by committer date the way git's
 * prepare_revision_walk() does (stable: ties keep argument order) before
 * they reach libgit2, whose limited walk then matches git's (libgit2 keeps
 * push order and does not sort).
 */
int rb_repo_walk(struct rb_repo *r, const struct rb_rev *revs, size_t nrevs,
		 unsigned flags, struct rb_graph *g, uint32_t **list,
		 uint32_t *nr);

/* Is `anc` an ancestor of (or equal to) `desc`? 1, 0, or -1 on error. */
int rb_repo_is_ancestor(struct rb_repo *r, const uint8_t *anc,
			const uint8_t *desc);

/*
 * All merge bases of `one` and the `n` commits in `others` (git's
 * get_merge_bases_many(): the best common ancestors of one and any of
 * them), in libgit2's order. *out is malloc'd (caller frees); *nr may be 0.
 */
int rb_repo_merge_bases(struct rb_repo *r, const uint8_t *one,
			const uint8_t (*others)[RB_OID_RAWSZ], size_t n,
			uint8_t (**out)[RB_OID_RAWSZ], size_t *nr);

/*
 * Load a bisection's range as `git bisect` does: walk bad --not goods
 * (goods in sha order, as git reads refs/bisect/good-*) and, when some good
 * is not an ancestor of bad, add the merge bases of bad and the goods as
 * extra nodes to test first. flags: RB_FIND_FIRST_PARENT or 0. On success
 * *out is filled (rb_range_release() it); on error it is released.
 */
int rb_repo_load_range(struct rb_repo *r, const uint8_t *bad,
		       const uint8_t (*goods)[RB_OID_RAWSZ], size_t ngoods,
		       unsigned flags, struct rb_range *out);

/* What a report needs to say about a commit. Strings are owned. */
struct rb_commit_info {
	char *subject; /* first line of the message */
	char *author_name, *author_email;
	int64_t author_time;
	int author_offset; /* minutes east of UTC */
	char *committer_name, *committer_email;
	int64_t commit_time;
	int commit_offset;
	unsigned parents;
};

int rb_repo_commit_info(struct rb_repo *r, const uint8_t *oid,
			struct rb_commit_info *out);
void rb_commit_info_release(struct rb_commit_info *ci);
/* The parents of a commit, in order; *out malloc'd (caller frees). */
int rb_repo_parents(struct rb_repo *r, const uint8_t *oid,
		    uint8_t (**out)[RB_OID_RAWSZ], size_t *nr);

/*
 * git's decorations of a commit as `git log --decorate` shows them:
 * "HEAD -> main, tag: v1.0, origin/main" (HEAD first, then the other refs
 * in reverse name order), or "" when none. Returns a malloc'd string.
 */
char *rb_repo_decoration(struct rb_repo *r, const uint8_t *oid);

/*
 * Check a commit out into `dir`, touching only the files that differ from
 * what dir holds now, so that an incremental build there stays incremental
 * (unchanged files keep their mtimes). Untracked files (build output) are
 * left alone; tracked files are forced to the commit's content.
 *
 * dir NULL: the repository's own work tree. Otherwise dir is a checkout of
 * its own: created on first use as a repository that borrows this one's
 * objects (objects/info/alternates, nothing copied, no branch created in
 * the source), or an existing repository that can reach the commit. HEAD
 * there is detached at the commit.
 */
int rb_repo_checkout(struct rb_repo *r, const uint8_t *oid, const char *dir);

/*
 * The newest tag matching pattern (fnmatch: "v*") reachable from oid, as
 * `git describe --tags --abbrev=0 --match PATTERN` finds it, but never a
 * tag of oid itself (then the one before it, from its first parent): the
 * baseline of a head. 1 found (*name malloc'd, *tagged the commit it
 * tags), 0 none, -1 error.
 */
int rb_repo_last_tag(struct rb_repo *r, const uint8_t *oid, const char *pattern,
		     char **name, uint8_t *tagged);

#endif
