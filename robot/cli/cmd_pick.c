// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot pick: the commit a bisection tests next, as git picks it.
 *
 * Without --skip or --ways it prints what `git rev-list --bisect[-all|
 * -vars]` prints for the same revisions. --skip switches to `git bisect`
 * semantics (goods in sha order, merge bases first, skip-away) and prints
 * the commit `git bisect` would check out, or its conclusion. --ways H
 * prints H commits to test at once on H hosts.
 */
#include "../robot.h"
#include "../bisect.h"
#include "../repo.h"
#include "cli.h"

struct pick_opts {
	const char *repo;
	bool first_parent;
	bool all;
	bool vars;
	long ways;
	const char **skips;
	size_t skips_nr;
	const char **revs; /* as given: REV, ^REV, A..B */
	size_t revs_nr;
};

static int add_rev(struct rb_repo *r, const char *arg, bool negate,
		   struct rb_rev **revs, size_t *nr, size_t *alloc)
{
	const char *dots = strstr(arg, "..");
	struct rb_rev rev = { .negative = negate };

	if (dots && dots[2] != '.') {
		char *left = xstrndup(arg, (size_t)(dots - arg));
		const char *right = dots + 2;
		struct rb_rev l = { .negative = !negate };
		int e = rb_repo_resolve(r, *left ? left : "HEAD", l.oid);

		free(left);
		if (e < 0)
			return -1;
		rev.negative = negate;
		if (rb_repo_resolve(r, *right ? right : "HEAD", rev.oid) < 0)
			return -1;
		RB_ALLOC_GROW(*revs, *nr + 2, *alloc);
		(*revs)[(*nr)++] = l;
		(*revs)[(*nr)++] = rev;
		return 0;
	}
	if (*arg == '^') {
		rev.negative = !negate;
		arg++;
	}
	if (rb_repo_resolve(r, arg, rev.oid) < 0)
		return -1;
	RB_ALLOC_GROW(*revs, *nr + 1, *alloc);
	(*revs)[(*nr)++] = rev;
	return 0;
}

static void print_vars(const char *hex, uint32_t all, uint32_t reaches)
{
	uint32_t cnt = RB_MAX(all - reaches, reaches);

	printf("bisect_rev='%s'\n", hex);
	printf("bisect_nr=%d\n", (int)cnt - 1);
	printf("bisect_good=%d\n", (int)(all - reaches) - 1);
	printf("bisect_bad=%d\n", (int)reaches - 1);
	printf("bisect_all=%u\n", all);
	printf("bisect_steps=%d\n", rb_bisect_estimate_steps(all));
}

/* `git rev-list --bisect[-all][-vars]` */
static int pick_rev_list(struct rb_repo *r, const struct pick_opts *o,
			 const struct rb_rev *revs, size_t nrevs)
{
	struct rb_graph g = RB_GRAPH_INIT;
	struct rb_find f = RB_FIND_INIT;
	uint32_t *list = NULL, nr = 0, i;
	unsigned fflags = o->first_parent ? RB_FIND_FIRST_PARENT : 0;
	char hex[RB_OID_HEXSZ + 1];
	int ret = RB_EXIT_FAIL;

	if (rb_repo_walk(r, revs, nrevs,
			 o->first_parent ? RB_WALK_FIRST_PARENT : 0, &g, &list,
			 &nr) < 0) {
		rb_error_print();
		goto out;
	}
	rb_bisect_find(&g, list, nr, fflags | (o->all ? RB_FIND_ALL : 0), &f);
	if (o->all) {
		for (i = 0; i < f.nr; i++) {
			char *deco =
				rb_repo_decoration(r, g.oid[f.all[i].node]);

			printf("%s (%s%sdist=%u)\n",
			       rb_oid_hex(g.oid[f.all[i].node], hex), deco,
			       *deco ? ", " : "", f.all[i].dist);
			free(deco);
		}
		if (o->vars && f.nr)
			printf("------\n");
	}
	if (o->vars) {
		if (!f.nr)
			goto out; /* git: nothing, exit 1 */
		print_vars(rb_oid_hex(g.oid[f.pick], hex), f.nr, f.weight);
	} else if (!o->all && f.nr) {
		printf("%s\n", rb_oid_hex(g.oid[f.pick], hex));
	}
	ret = RB_EXIT_OK;
out:
	rb_find_release(&f);
	free(list);
	rb_graph_release(&g);
	return ret;
}

static int print_step(const struct rb_graph *g, const struct rb_bisect *b,
		      const struct rb_bisect_step *st, bool porcelain)
{
	char hex[RB_OID_HEXSZ + 1];
	uint32_t i;

	switch (st->status) {
	case RB_BISECT_CONTINUE:
		printf("%s\n", rb_oid_hex(g->oid[st->pick], hex));
		return RB_EXIT_OK;
	case RB_BISECT_FOUND:
		printf("%s is the first bad commit\n",
		       rb_oid_hex(g->oid[st->pick], hex));
		return RB_EXIT_OK;
	case RB_BISECT_ONLY_SKIPPED:
		printf("There are only 'skip'ped commits left to test.\n"
		       "The first bad commit could be any of:\n");
		for (i = 0; i < st->list_nr; i++)
			printf("%s\n", rb_oid_hex(g->oid[st->list[i]], hex));
		printf("We cannot bisect more!\n");
		return RB_EXIT_INCONCLUSIVE;
	case RB_BISECT_MERGE_BASE_BAD:
		rb_error("the merge base '%s' is bad: the bug was fixed "
			 "between it and the good commits",
			 rb_oid_hex(g->oid[st->pick], hex));
		rb_error_print();
		return RB_EXIT_FAIL;
	case RB_BISECT_SWAPPED:
		rb_error("some good revisions are not ancestors of the bad "
			 "revision '%s': maybe good and bad are swapped",
			 rb_oid_hex(g->oid[st->pick], hex));
		rb_error_print();
		return RB_EXIT_FAIL;
	case RB_BISECT_EMPTY:
		if (!porcelain)
			return RB_EXIT_OK; /* rev-list: empty range, no output */
		(void)b;
		rb_error("no commit to test: the bad revision is also good");
		rb_error_print();
		return RB_EXIT_FAIL;
	}
	return RB_EXIT_FAIL;
}

/* --skip (git bisect) and --ways H */
static int pick_state(struct rb_repo *r, const struct pick_opts *o,
		      const struct rb_rev *revs, size_t nrevs)
{
	struct rb_range range;
	struct rb_bisect b = RB_BISECT_INIT;
	struct rb_bisect_step st = RB_BISECT_STEP_INIT;
	uint8_t(*goods)[RB_OID_RAWSZ] = NULL, (*skips)[RB_OID_RAWSZ] = NULL;
	uint32_t *picks = NULL, np, i;
	unsigned fflags = o->first_parent ? RB_FIND_FIRST_PARENT : 0;
	const uint8_t *bad = NULL;
	size_t ngoods = 0, k;
	bool porcelain = o->skips_nr > 0, inited = false;
	char hex[RB_OID_HEXSZ + 1];
	int ret = RB_EXIT_FAIL;

	rb_range_init(&range, (const uint8_t[RB_OID_RAWSZ]){ 0 }, NULL, 0,
		      fflags);
	if (porcelain) {
		/* an unknown --skip REV is fatal (128) as any unknown REV is */
		skips = xmalloc(RB_OID_RAWSZ * o->skips_nr);
		for (k = 0; k < o->skips_nr; k++) {
			if (rb_repo_resolve(r, o->skips[k], skips[k]) < 0) {
				rb_error_print();
				ret = RB_EXIT_FATAL;
				goto out;
			}
		}
		goods = xmalloc(RB_OID_RAWSZ * (nrevs ? nrevs : 1));
		for (k = 0; k < nrevs; k++) {
			if (revs[k].negative) {
				memcpy(goods[ngoods++], revs[k].oid,
				       RB_OID_RAWSZ);
			} else if (bad &&
				   memcmp(bad, revs[k].oid, RB_OID_RAWSZ)) {
				ret = rb_usage_error("pick",
						     "--skip takes exactly one "
						     "bad revision");
				goto out;
			} else {
				bad = revs[k].oid;
			}
		}
		if (!bad) {
			ret = rb_usage_error("pick", "no bad revision given");
			goto out;
		}
		rb_range_release(&range);
		if (rb_repo_load_range(r, bad,
				       (const uint8_t(*)[RB_OID_RAWSZ])goods,
				       ngoods, fflags, &range) < 0) {
			rb_error_print();
			goto out;
		}
		rb_range_start(&range, &b);
		inited = true;
		for (k = 0; k < o->skips_nr; k++) {
			uint32_t node = rb_graph_find(&range.g, skips[k]);

			/* skips outside the range change nothing, as in git */
			if (node == RB_NODE_NONE)
				continue;
			if (rb_bisect_mark(&b, node, RB_SKIP) < 0) {
				rb_error_print();
				goto out;
			}
		}
	} else {
		if (rb_repo_walk(r, revs, nrevs,
				 o->first_parent ? RB_WALK_FIRST_PARENT : 0,
				 &range.g, &range.list, &range.nr) < 0) {
			rb_error_print();
			goto out;
		}
		rb_range_start(&range, &b);
		inited = true;
	}
	rb_bisect_next(&b, &st);
	if (o->ways > 0 && st.status == RB_BISECT_CONTINUE) {
		picks = xmalloc(sizeof(*picks) * (size_t)o->ways);
		np = rb_bisect_picks(&b, (uint32_t)o->ways, picks);
		for (i = 0; i < np; i++)
			printf("%s\n", rb_oid_hex(range.g.oid[picks[i]], hex));
		ret = RB_EXIT_OK;
	} else if (!porcelain && st.status == RB_BISECT_FOUND) {
		/* rev-list prints the bad commit when it is all that is left */
		printf("%s\n", rb_oid_hex(range.g.oid[st.pick], hex));
		ret = RB_EXIT_OK;
	} else {
		ret = print_step(&range.g, &b, &st, porcelain);
	}
out:
	rb_bisect_step_release(&st);
	if (inited)
		rb_bisect_release(&b);
	free(picks);
	free(goods);
	free(skips);
	rb_range_release(&range);
	return ret;
}

int cmd_pick(int argc, char **argv)
{
	struct pick_opts o = { .repo = "." };
	struct rb_repo *r = NULL;
	struct rb_rev *revs = NULL;
	size_t nrevs = 0, alloc = 0, k;
	bool negate = false, dashdash = false;
	int i, ret = RB_EXIT_FAIL;

	o.skips = xcalloc((size_t)argc, sizeof(*o.skips));
	o.revs = xcalloc((size_t)argc, sizeof(*o.revs));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			o.revs[o.revs_nr++] = a;
		} else if (!strcmp(a, "--")) {
			dashdash = true;
		} else if (!strcmp(a, "--repo") || !strcmp(a, "-C")) {
			if (++i >= argc) {
				ret = rb_usage_error("pick",
						     "%s needs a "
						     "directory",
						     a);
				goto out;
			}
			o.repo = argv[i];
		} else if (rb_starts_with(a, "--repo=")) {
			o.repo = a + 7;
		} else if (!strcmp(a, "--first-parent")) {
			o.first_parent = true;
		} else if (!strcmp(a, "--bisect-all")) {
			o.all = true;
		} else if (!strcmp(a, "--bisect-vars")) {
			o.vars = true;
		} else if (!strcmp(a, "--bisect")) {
			/* the default; accepted for git's spelling */
		} else if (!strcmp(a, "--skip")) {
			if (++i >= argc) {
				ret = rb_usage_error("pick", "--skip needs a "
							     "revision");
				goto out;
			}
			o.skips[o.skips_nr++] = argv[i];
		} else if (rb_starts_with(a, "--skip=")) {
			o.skips[o.skips_nr++] = a + 7;
		} else if (!strcmp(a, "--ways") ||
			   rb_starts_with(a, "--ways=")) {
			const char *v = a[6] == '=' ? a + 7 :
					++i < argc  ? argv[i] :
						      NULL;

			if (!v || rb_parse_long(v, &o.ways) < 0 || o.ways < 1 ||
			    o.ways > 32) {
				ret = rb_usage_error("pick",
						     "--ways needs a number "
						     "from 1 to 32");
				goto out;
			}
		} else if (!strcmp(a, "--not")) {
			o.revs[o.revs_nr++] = a;
		} else {
			ret = rb_usage_error("pick", "unknown option '%s'", a);
			goto out;
		}
	}
	if (!o.revs_nr) {
		ret = rb_usage_error("pick", "no revision given");
		goto out;
	}
	if ((o.skips_nr || o.ways) && (o.all || o.vars)) {
		ret = rb_usage_error("pick", "--skip and --ways cannot be "
					     "combined with --bisect-all or "
					     "--bisect-vars");
		goto out;
	}
	if (rb_repo_open(&r, o.repo) < 0) {
		rb_error_print();
		ret = RB_EXIT_FATAL;
		goto out;
	}
	for (k = 0; k < o.revs_nr; k++) {
		if (!strcmp(o.revs[k], "--not")) {
			negate = !negate;
			continue;
		}
		if (add_rev(r, o.revs[k], negate, &revs, &nrevs, &alloc) < 0) {
			rb_error_print();
			ret = RB_EXIT_FATAL;
			goto out;
		}
	}
	if (o.skips_nr || o.ways)
		ret = pick_state(r, &o, revs, nrevs);
	else
		ret = pick_rev_list(r, &o, revs, nrevs);
out:
	if (fflush(stdout) != 0 && ret == RB_EXIT_OK)
		ret = RB_EXIT_FAIL;
	rb_repo_free(r);
	free(revs);
	free(o.skips);
	free(o.revs);
	return ret;
}
