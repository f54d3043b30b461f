// SPDX-License-Identifier: GPL-2.0-only
/*
 * The libgit2 adapter (see repo.h).
 */
#include <git2.h>
#include <sys/stat.h>

#include "robot.h"
#include "repo.h"
#include "sbuf.h"

struct deco {
	uint8_t oid[RB_OID_RAWSZ];
	char *name; /* full ref name */
};

struct rb_repo {
	git_repository *repo;
	struct deco *deco; /* sorted by oid, then name descending */
	size_t deco_nr;
	bool deco_loaded;
	char *head_branch; /* HEAD's branch (full name) or NULL if detached */
	uint8_t head_oid[RB_OID_RAWSZ];
	bool head_valid;
};

static const char *git_msg(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}

static void oid_to_git(git_oid *out, const uint8_t *oid)
{
	memcpy(out->id, oid, RB_OID_RAWSZ);
}

int rb_repo_open(struct rb_repo **out, const char *path)
{
	struct rb_repo *r;

	git_libgit2_init();
	r = xcalloc(1, sizeof(*r));
	if (git_repository_open_ext(&r->repo, path, 0, NULL) < 0) {
		rb_error("cannot open repository '%s': %s", path, git_msg());
		free(r);
		*out = NULL;
		return -1;
	}
	*out = r;
	return 0;
}

void rb_repo_free(struct rb_repo *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->deco_nr; i++)
		free(r->deco[i].name);
	free(r->deco);
	free(r->head_branch);
	git_repository_free(r->repo);
	free(r);
	git_libgit2_shutdown();
}

int rb_repo_resolve(struct rb_repo *r, const char *rev, uint8_t *oid)
{
	git_object *obj = NULL, *commit = NULL;

	if (!*rev)
		return rb_error("cannot resolve '': empty revision");
	if (git_revparse_single(&obj, r->repo, rev) < 0)
		return rb_error("cannot resolve '%s': %s", rev, git_msg());
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		rb_error("cannot resolve '%s': not a commit: %s", rev,
			 git_msg());
		git_object_free(obj);
		return -1;
	}
	memcpy(oid, git_object_id(commit)->id, RB_OID_RAWSZ);
	git_object_free(commit);
	git_object_free(obj);
	return 0;
}

struct start {
	struct rb_rev rev;
	int64_t time;
	size_t order;
};

static int cmp_start(const void *a_, const void *b_)
{
	const struct start *a = a_, *b = b_;

	if (a->time != b->time)
		return a->time > b->time ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int commit_time(struct rb_repo *r, const uint8_t *oid, int64_t *t)
{
	git_commit *c;
	git_oid id;
	char hex[RB_OID_HEXSZ + 1];

	oid_to_git(&id, oid);
	if (git_commit_lookup(&c, r->repo, &id) < 0)
		return rb_error("cannot read commit '%s': %s",
				rb_oid_hex(oid, hex), git_msg());
	*t = git_commit_time(c);
	git_commit_free(c);
	return 0;
}

/*
 * The parents and the committer time of a raw commit object: "tree X",
 * "parent X"..., "author ...", "committer NAME <EMAIL> TIME TZ".
 */
static int parse_commit_header(const void *data, size_t len,
			       uint8_t (**par)[RB_OID_RAWSZ], size_t *cap,
			       size_t *np, int64_t *time)
{
	const char *p = data, *end = p + len;

	*np = 0;
	*time = 0;
	while (p < end && *p != '\n') {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t l;

		if (!eol)
			eol = end;
		l = (size_t)(eol - p);
		if (l == 7 + RB_OID_HEXSZ && !memcmp(p, "parent ", 7)) {
			char hex[RB_OID_HEXSZ + 1];

			memcpy(hex, p + 7, RB_OID_HEXSZ);
			hex[RB_OID_HEXSZ] = '\0';
			RB_ALLOC_GROW(*par, *np + 1, *cap);
			if (rb_oid_from_hex((*par)[*np], hex) < 0)
				return -1;
			(*np)++;
		} else if (l > 10 && !memcmp(p, "committer ", 10)) {
			const char *gt = eol;
			char num[32];
			size_t k = 0;

			while (gt > p && *gt != '>')
				gt--;
			if (*gt != '>')
				return -1;
			for (gt++; gt < eol && *gt == ' '; gt++)
				;
			while (gt < eol && *gt >= '0' && *gt <= '9' &&
			       k < sizeof(num) - 1)
				num[k++] = *gt++;
			num[k] = '\0';
			*time = strtoll(num, NULL, 10);
		}
		p = eol + 1;
	}
	return 0;
}

int rb_repo_walk(struct rb_repo *r, const struct rb_rev *revs, size_t nrevs,
		 unsigned flags, struct rb_graph *g, uint32_t **list,
		 uint32_t *nr)
{
	struct start *st = xcalloc(nrevs ? nrevs : 1, sizeof(*st));
	size_t nst = 0, i, j, alloc = 0, pcap = 0;
	git_revwalk *w = NULL;
	git_odb *odb = NULL;
	uint8_t(*pbuf)[RB_OID_RAWSZ] = NULL;
	uint32_t *out = NULL, n = 0;
	bool any_positive = false;
	git_oid id;
	int ret = -1, e;

	/* de-duplicate: the first occurrence keeps its place, flags or-ed */
	for (i = 0; i < nrevs; i++) {
		for (j = 0; j < nst; j++)
			if (!memcmp(st[j].rev.oid, revs[i].oid, RB_OID_RAWSZ))
				break;
		if (j < nst) {
			st[j].rev.negative |= revs[i].negative;
			continue;
		}
		st[nst].rev = revs[i];
		st[nst].order = nst;
		if (commit_time(r, revs[i].oid, &st[nst].time) < 0)
			goto out;
		nst++;
	}
	qsort(st, nst, sizeof(*st), cmp_start);
	if (git_revwalk_new(&w, r->repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_NONE) < 0) {
		rb_error("cannot walk: %s", git_msg());
		goto out;
	}
	if (flags & RB_WALK_FIRST_PARENT)
		git_revwalk_simplify_first_parent(w);
	for (i = 0; i < nst; i++) {
		oid_to_git(&id, st[i].rev.oid);
		if (st[i].rev.negative)
			e = git_revwalk_hide(w, &id);
		else
			e = git_revwalk_push(w, &id);
		any_positive |= !st[i].rev.negative;
		if (e < 0) {
			rb_error("cannot walk: %s", git_msg());
			goto out;
		}
	}
	if (git_repository_odb(&odb, r->repo) < 0) {
		rb_error("cannot read objects: %s", git_msg());
		goto out;
	}
	while (any_positive && (e = git_revwalk_next(&id, w)) == 0) {
		git_odb_object *obj;
		int64_t t;
		size_t np;

		/*
		 * The walk has just read this commit: the raw object is in
		 * libgit2's cache, and parsing the two header fields we need
		 * ourselves costs less than a full git_commit_lookup().
		 */
		if (git_odb_read(&obj, odb, &id) < 0) {
			char hex[RB_OID_HEXSZ + 1];

			rb_error("cannot read commit '%s': %s",
				 rb_oid_hex(id.id, hex), git_msg());
			goto out;
		}
		e = parse_commit_header(git_odb_object_data(obj),
					git_odb_object_size(obj), &pbuf, &pcap,
					&np, &t);
		git_odb_object_free(obj);
		if (e < 0) {
			char hex[RB_OID_HEXSZ + 1];

			rb_error("cannot parse commit '%s'",
				 rb_oid_hex(id.id, hex));
			goto out;
		}
		RB_ALLOC_GROW(out, n + 1, alloc);
		out[n++] = rb_graph_add(g, id.id, t, RB_NODE_CAND, np,
					(const uint8_t(*)[RB_OID_RAWSZ])pbuf);
	}
	if (any_positive && e != GIT_ITEROVER) {
		rb_error("cannot walk: %s", git_msg());
		goto out;
	}
	rb_graph_resolve(g);
	*list = out;
	*nr = n;
	out = NULL;
	ret = 0;
out:
	free(out);
	free(pbuf);
	free(st);
	git_revwalk_free(w);
	git_odb_free(odb);
	return ret;
}

int rb_repo_is_ancestor(struct rb_repo *r, const uint8_t *anc,
			const uint8_t *desc)
{
	git_oid a, d;
	int e;

	if (!memcmp(anc, desc, RB_OID_RAWSZ))
		return 1;
	oid_to_git(&a, anc);
	oid_to_git(&d, desc);
	e = git_graph_descendant_of(r->repo, &d, &a);
	if (e < 0)
		return rb_error("cannot compare commits: %s", git_msg());
	return e;
}

int rb_repo_merge_bases(struct rb_repo *r, const uint8_t *one,
			const uint8_t (*others)[RB_OID_RAWSZ], size_t n,
			uint8_t (**out)[RB_OID_RAWSZ], size_t *nr)
{
	git_oid *in = xmalloc(sizeof(*in) * (n + 1));
	git_oidarray res = { 0 };
	size_t i;
	int e;

	*out = NULL;
	*nr = 0;
	oid_to_git(&in[0], one);
	for (i = 0; i < n; i++)
		oid_to_git(&in[i + 1], others[i]);
	e = git_merge_bases_many(&res, r->repo, n + 1, in);
	free(in);
	if (e == GIT_ENOTFOUND)
		return 0;
	if (e < 0)
		return rb_error("cannot find merge bases: %s", git_msg());
	*out = xmalloc(RB_OID_RAWSZ * (res.count ? res.count : 1));
	for (i = 0; i < res.count; i++)
		memcpy((*out)[i], res.ids[i].id, RB_OID_RAWSZ);
	*nr = res.count;
	git_oidarray_dispose(&res);
	return 0;
}

static int cmp_rev_oid(const void *a_, const void *b_)
{
	const struct rb_rev *a = a_, *b = b_;

	return memcmp(a->oid, b->oid, RB_OID_RAWSZ);
}

int rb_repo_load_range(struct rb_repo *r, const uint8_t *bad,
		       const uint8_t (*goods)[RB_OID_RAWSZ], size_t ngoods,
		       unsigned flags, struct rb_range *out)
{
	struct rb_rev *revs = xcalloc(ngoods + 1, sizeof(*revs));
	uint8_t(*mb)[RB_OID_RAWSZ] = NULL;
	size_t i, mb_nr = 0;
	bool all_ancestors = true;
	int ret = -1;

	rb_range_init(out, bad, goods, ngoods, flags & RB_FIND_FIRST_PARENT);
	/* git bisect reads refs/bisect/good-<sha>: goods come in sha order */
	memcpy(revs[0].oid, bad, RB_OID_RAWSZ);
	for (i = 0; i < ngoods; i++) {
		memcpy(revs[i + 1].oid, goods[i], RB_OID_RAWSZ);
		revs[i + 1].negative = true;
	}
	qsort(revs + 1, ngoods, sizeof(*revs), cmp_rev_oid);
	if (rb_repo_walk(r, revs, ngoods + 1,
			 flags & RB_FIND_FIRST_PARENT ? RB_WALK_FIRST_PARENT :
							0,
			 &out->g, &out->list, &out->nr) < 0)
		goto out;
	for (i = 0; i < ngoods; i++) {
		int e = rb_repo_is_ancestor(r, goods[i], bad);

		if (e < 0)
			goto out;
		if (!e)
			all_ancestors = false;
	}
	if (!all_ancestors &&
	    rb_repo_merge_bases(r, bad, goods, ngoods, &mb, &mb_nr) < 0)
		goto out;
	out->mb = xmalloc(sizeof(*out->mb) * (mb_nr ? mb_nr : 1));
	if (mb_nr) {
		int64_t t;

		if (commit_time(r, bad, &t) < 0)
			goto out;
		out->bad_node = rb_graph_add(&out->g, bad, t, 0, 0, NULL);
	}
	for (i = 0; i < mb_nr; i++) {
		int64_t t;

		if (commit_time(r, mb[i], &t) < 0)
			goto out;
		out->mb[i] = rb_graph_add(&out->g, mb[i], t, 0, 0, NULL);
	}
	out->mb_nr = (uint32_t)mb_nr;
	rb_graph_resolve(&out->g);
	ret = 0;
out:
	if (ret < 0)
		rb_range_release(out);
	free(mb);
	free(revs);
	return ret;
}

int rb_repo_commit_info(struct rb_repo *r, const uint8_t *oid,
			struct rb_commit_info *out)
{
	const git_signature *a, *c;
	git_commit *cm;
	git_oid id;
	char hex[RB_OID_HEXSZ + 1];
	const char *s;

	memset(out, 0, sizeof(*out));
	oid_to_git(&id, oid);
	if (git_commit_lookup(&cm, r->repo, &id) < 0)
		return rb_error("cannot read commit '%s': %s",
				rb_oid_hex(oid, hex), git_msg());
	s = git_commit_summary(cm);
	out->subject = xstrdup(s ? s : "");
	a = git_commit_author(cm);
	c = git_commit_committer(cm);
	out->author_name = xstrdup(a->name);
	out->author_email = xstrdup(a->email);
	out->author_time = a->when.time;
	out->author_offset = a->when.offset;
	out->committer_name = xstrdup(c->name);
	out->committer_email = xstrdup(c->email);
	out->commit_time = c->when.time;
	out->commit_offset = c->when.offset;
	out->parents = git_commit_parentcount(cm);
	git_commit_free(cm);
	return 0;
}

int rb_repo_parents(struct rb_repo *r, const uint8_t *oid,
		    uint8_t (**out)[RB_OID_RAWSZ], size_t *nr)
{
	git_commit *cm;
	git_oid id;
	char hex[RB_OID_HEXSZ + 1];
	unsigned i, n;

	oid_to_git(&id, oid);
	if (git_commit_lookup(&cm, r->repo, &id) < 0)
		return rb_error("cannot read commit '%s': %s",
				rb_oid_hex(oid, hex), git_msg());
	n = git_commit_parentcount(cm);
	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (i = 0; i < n; i++)
		memcpy((*out)[i], git_commit_parent_id(cm, i)->id,
		       RB_OID_RAWSZ);
	*nr = n;
	git_commit_free(cm);
	return 0;
}

void rb_commit_info_release(struct rb_commit_info *ci)
{
	free(ci->subject);
	free(ci->author_name);
	free(ci->author_email);
	free(ci->committer_name);
	free(ci->committer_email);
	memset(ci, 0, sizeof(*ci));
}

static int cmp_deco(const void *a_, const void *b_)
{
	const struct deco *a = a_, *b = b_;
	int c = memcmp(a->oid, b->oid, RB_OID_RAWSZ);

	return c ? c : -strcmp(a->name, b->name);
}

static void load_decorations(struct rb_repo *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref, *head;
	size_t alloc = 0;

	r->deco_loaded = true;
	if (git_reference_iterator_new(&it, r->repo) == 0) {
		while (git_reference_next(&ref, it) == 0) {
			git_object *obj;

			if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) ==
			    0) {
				RB_ALLOC_GROW(r->deco, r->deco_nr + 1, alloc);
				memcpy(r->deco[r->deco_nr].oid,
				       git_object_id(obj)->id, RB_OID_RAWSZ);
				r->deco[r->deco_nr++].name =
					xstrdup(git_reference_name(ref));
				git_object_free(obj);
			}
			git_reference_free(ref);
		}
		git_reference_iterator_free(it);
	}
	git_error_clear();
	qsort(r->deco, r->deco_nr, sizeof(*r->deco), cmp_deco);
	if (git_reference_lookup(&head, r->repo, "HEAD") == 0) {
		git_object *obj;

		if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
			r->head_branch =
				xstrdup(git_reference_symbolic_target(head));
		if (git_reference_peel(&obj, head, GIT_OBJECT_COMMIT) == 0) {
			memcpy(r->head_oid, git_object_id(obj)->id,
			       RB_OID_RAWSZ);
			r->head_valid = true;
			git_object_free(obj);
		}
		git_reference_free(head);
	}
	git_error_clear();
}

static void add_short_name(struct sbuf *sb, const char *name)
{
	if (sb->len)
		sbuf_addstr(sb, ", ");
	if (rb_starts_with(name, "refs/heads/"))
		sbuf_addstr(sb, name + strlen("refs/heads/"));
	else if (rb_starts_with(name, "refs/tags/"))
		sbuf_addf(sb, "tag: %s", name + strlen("refs/tags/"));
	else if (rb_starts_with(name, "refs/remotes/"))
		sbuf_addstr(sb, name + strlen("refs/remotes/"));
	else
		sbuf_addstr(sb, name);
}

char *rb_repo_decoration(struct rb_repo *r, const uint8_t *oid)
{
	struct sbuf sb = SBUF_INIT;
	const char *skip = NULL;
	size_t lo = 0, hi, i;

	if (!r->deco_loaded)
		load_decorations(r);
	if (r->head_valid && !memcmp(r->head_oid, oid, RB_OID_RAWSZ)) {
		sbuf_addstr(&sb, "HEAD");
		if (r->head_branch) {
			sbuf_addf(&sb, " -> %s",
				  rb_starts_with(r->head_branch,
						 "refs/heads/") ?
					  r->head_branch + 11 :
					  r->head_branch);
			skip = r->head_branch;
		}
	}
	hi = r->deco_nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (memcmp(r->deco[mid].oid, oid, RB_OID_RAWSZ) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo;
	     i < r->deco_nr && !memcmp(r->deco[i].oid, oid, RB_OID_RAWSZ);
	     i++) {
		if (skip && !strcmp(skip, r->deco[i].name))
			continue;
		add_short_name(&sb, r->deco[i].name);
	}
	return sbuf_detach(&sb);
}

/* <dir> as a repository borrowing r's objects; created when missing */
static int open_checkout_dir(struct rb_repo *r, const char *dir,
			     git_repository **out)
{
	struct sbuf alt = SBUF_INIT;
	char *objects = NULL, *path = NULL;
	const char *common;
	int ret = -1;

	if (git_repository_open_ext(out, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) == 0)
		return 0;
	if (rb_mkdir_p(dir) < 0)
		return -1;
	if (git_repository_init(out, dir, 0) < 0)
		return rb_error("cannot create a checkout in '%s': %s", dir,
				git_msg());
	git_repository_free(*out);
	*out = NULL;
	common = git_repository_commondir(r->repo);
	objects = rb_path_join(common, "objects");
	path = xstrfmt("%s/.git/objects/info/alternates", dir);
	sbuf_addf(&alt, "%s\n", objects);
	if (rb_write_file_atomic(path, alt.buf, alt.len) < 0)
		goto out;
	if (git_repository_open_ext(out, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0) {
		rb_error("cannot open checkout '%s': %s", dir, git_msg());
		goto out;
	}
	ret = 0;
out:
	sbuf_release(&alt);
	free(objects);
	free(path);
	return ret;
}

int rb_repo_checkout(struct rb_repo *r, const uint8_t *oid, const char *dir)
{
	git_checkout_options opts;
	git_repository *repo = r->repo, *own = NULL;
	git_commit *c = NULL;
	char hex[RB_OID_HEXSZ + 1];
	const char *where = dir ? dir : "the work tree";
	git_oid id;
	int ret = -1;

	rb_oid_hex(oid, hex);
	if (dir) {
		if (open_checkout_dir(r, dir, &own) < 0)
			return -1;
		repo = own;
	}
	if (git_repository_is_bare(repo)) {
		rb_error("cannot check out '%s' in %s: no work tree", hex,
			 where);
		goto out;
	}
	oid_to_git(&id, oid);
	if (git_commit_lookup(&c, repo, &id) < 0) {
		rb_error("cannot check out '%s' in '%s': %s", hex, where,
			 git_msg());
		goto out;
	}
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_checkout_tree(repo, (const git_object *)c, &opts) < 0 ||
	    git_repository_set_head_detached(repo, &id) < 0) {
		rb_error("cannot check out '%s' in '%s': %s", hex, where,
			 git_msg());
		goto out;
	}
	ret = 0;
out:
	git_commit_free(c);
	git_repository_free(own);
	return ret;
}

/* The commit a tag name peels to; 0 or -1. */
static int tag_commit(git_repository *repo, const char *name, git_oid *out)
{
	git_object *obj = NULL, *c = NULL;
	char *ref = xstrfmt("refs/tags/%s", name);
	int r = -1;

	if (git_revparse_single(&obj, repo, ref) == 0 &&
	    git_object_peel(&c, obj, GIT_OBJECT_COMMIT) == 0) {
		git_oid_cpy(out, git_object_id(c));
		r = 0;
	}
	git_object_free(c);
	git_object_free(obj);
	free(ref);
	return r;
}

/* git describe --tags --abbrev=0 --match pattern; 1, 0 none, -1 */
static int describe(git_repository *repo, const git_oid *id,
		    const char *pattern, char **name)
{
	git_describe_options dopts;
	git_describe_format_options fopts;
	git_describe_result *res = NULL;
	git_buf buf = { 0 };
	git_commit *c = NULL;
	int r;

	if (git_commit_lookup(&c, repo, id) < 0)
		return rb_error("cannot read commit: %s", git_msg());
	git_describe_options_init(&dopts, GIT_DESCRIBE_OPTIONS_VERSION);
	dopts.describe_strategy = GIT_DESCRIBE_TAGS;
	dopts.pattern = pattern;
	git_describe_format_options_init(&fopts,
					 GIT_DESCRIBE_FORMAT_OPTIONS_VERSION);
	fopts.abbreviated_size = 0;
	r = git_describe_commit(&res, (git_object *)c, &dopts);
	git_commit_free(c);
	/* no matching tag below: libgit2 says so as a describe error */
	if (r == GIT_ENOTFOUND ||
	    (r < 0 && git_error_last() &&
	     git_error_last()->klass == GIT_ERROR_DESCRIBE)) {
		git_error_clear();
		return 0;
	}
	if (r < 0)
		return rb_error("cannot describe: %s", git_msg());
	r = git_describe_format(&buf, res, &fopts);
	git_describe_result_free(res);
	if (r < 0) {
		git_buf_dispose(&buf);
		return rb_error("cannot describe: %s", git_msg());
	}
	*name = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	return 1;
}

/* The last tag at or before id and the commit it tags: 1, 0 (none), -1. */
static int tag_before(git_repository *repo, const git_oid *id,
		      const char *pattern, char **name, git_oid *tid)
{
	int ret = describe(repo, id, pattern, name);

	if (ret <= 0)
		return ret;
	if (tag_commit(repo, *name, tid) < 0) {
		free(*name);
		*name = NULL;
		return rb_error("cannot read tag: %s", git_msg());
	}
	return 1;
}

int rb_repo_last_tag(struct rb_repo *r, const uint8_t *oid, const char *pattern,
		     char **name, uint8_t *tagged)
{
	git_oid id, tid;
	git_commit *c = NULL;
	int ret;

	*name = NULL;
	oid_to_git(&id, oid);
	ret = tag_before(r->repo, &id, pattern, name, &tid);
	if (ret <= 0)
		return ret;
	if (git_oid_equal(&tid, &id)) {
		/* the head itself is tagged: the tag before it */
		free(*name);
		*name = NULL;
		if (git_commit_lookup(&c, r->repo, &id) < 0)
			return rb_error("cannot read commit: %s", git_msg());
		if (!git_commit_parentcount(c)) {
			git_commit_free(c);
			return 0;
		}
		git_oid_cpy(&id, git_commit_parent_id(c, 0));
		git_commit_free(c);
		ret = tag_before(r->repo, &id, pattern, name, &tid);
		if (ret <= 0)
			return ret;
	}
	memcpy(tagged, tid.id, RB_OID_RAWSZ);
	return 1;
}
