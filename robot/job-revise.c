// SPDX-License-Identifier: GPL-2.0-only
/*
 * lkp's incremental hash update (lkp-tests lib/hash.rb revise_hash, and
 * jobs/README.md "Incremental Hash update"), on positioned YAML trees:
 *
 *	key: v		replaces the key (a later document's top-level keys
 *			replace the first's)
 *	a.b.c: v	sets c in the mapping a.b (made when missing)
 *	a[.b]+: v	adds v to the value (lists grow, mappings merge, two
 *			scalars become a list); duplicates dropped
 *	a[.b]-: v	removes v's keys or items from the value, or with no
 *			value the key itself
 *
 * mail_to, mail_cc, constraints and need_* (but need_memory, need_cpu and
 * need_modules) accumulate instead of being replaced.
 */
#include "robot.h"
#include "job.h"
#include "ytree.h"

static bool is_null(const struct ynode *n)
{
	return !n || (n->kind == YNODE_SCALAR && n->is_null);
}

static bool accumulative(const char *k)
{
	if (!strcmp(k, "mail_to") || !strcmp(k, "mail_cc") ||
	    !strcmp(k, "constraints"))
		return true;
	return rb_starts_with(k, "need_") && strcmp(k, "need_memory") &&
	       strcmp(k, "need_cpu") && strcmp(k, "need_modules");
}

static bool special(const char *k)
{
	size_t n = strlen(k);

	return n > 1 && (k[n - 1] == '+' || k[n - 1] == '-');
}

static void map_set(struct ynode *map, const char *key, struct ynode *val,
		    const struct ynode *at)
{
	long i = ynode_map_find(map, key);

	if (i >= 0) {
		ynode_map_replace(map, (size_t)i, val);
		return;
	}
	ynode_map_push(map, key, val);
	map->keys[map->nr - 1]->line = at->line;
	map->keys[map->nr - 1]->col = at->col;
	map->keys[map->nr - 1]->file = at->file;
}

static struct ynode *null_at(const struct ynode *at)
{
	struct ynode *n = ynode_new_scalar("", at->line, at->col);

	n->is_null = true;
	n->file = at->file;
	return n;
}

/* Onto the list s: b's items when b is a list (b is freed), else b. */
static void push_all(struct ynode *s, struct ynode *b)
{
	size_t i;

	if (b->kind != YNODE_SEQ) {
		ynode_seq_push(s, b);
		return;
	}
	for (i = 0; i < b->nr; i++)
		ynode_seq_push(s, ynode_copy(b->vals[i]));
	ynode_free(b);
}

/* lkp's merge_accumulative(a, b); takes both, returns the result. */
static struct ynode *accumulate(struct ynode *a, struct ynode *b)
{
	struct ynode *s;
	size_t i;

	if (is_null(b)) {
		ynode_free(b);
		return a;
	}
	if (is_null(a)) {
		ynode_free(a);
		return b;
	}
	if (a->kind == YNODE_SEQ) {
		push_all(a, b);
		return a;
	}
	if (a->kind == YNODE_MAP) {
		if (b->kind == YNODE_MAP) {
			for (i = 0; i < b->nr; i++)
				map_set(a, b->keys[i]->str,
					ynode_copy(b->vals[i]), b->keys[i]);
		} else if (b->kind == YNODE_SCALAR) {
			map_set(a, b->str, null_at(b), b);
		}
		ynode_free(b);
		return a;
	}
	if (b->kind == YNODE_MAP) {
		if (ynode_map_find(b, a->str) < 0)
			map_set(b, a->str, null_at(a), a);
		ynode_free(a);
		return b;
	}
	s = ynode_new(YNODE_SEQ, a->line, a->col);
	s->file = a->file;
	ynode_seq_push(s, a);
	push_all(s, b);
	return s;
}

static bool same_scalar(const struct ynode *a, const struct ynode *b)
{
	return a->kind == YNODE_SCALAR && b->kind == YNODE_SCALAR &&
	       a->is_null == b->is_null && !strcmp(a->str, b->str);
}

/* Array#uniq! over scalars: later repeats go. */
static void uniq(struct ynode *seq)
{
	size_t i, j;

	if (seq->kind != YNODE_SEQ)
		return;
	for (i = 0; i < seq->nr; i++) {
		for (j = i + 1; j < seq->nr;) {
			if (!same_scalar(seq->vals[i], seq->vals[j])) {
				j++;
				continue;
			}
			ynode_free(seq->vals[j]);
			memmove(seq->vals + j, seq->vals + j + 1,
				(seq->nr - j - 1) * sizeof(*seq->vals));
			seq->nr--;
		}
	}
}

/*
 * Walk the dotted path in root: the mapping that holds its last part
 * (and that mapping's parent and its key there). create: missing or
 * null mappings on the way are made. -1 with an error when a part of the
 * way is not a mapping, 1 when it is missing (not create).
 */
static int lookup(struct ynode *root, const char *path, bool create,
		  const struct ynode *at, const char *file, struct ynode **map,
		  struct ynode **parent, char **pkey, char **last)
{
	char *copy = xstrdup(path), *part = copy, *dot;
	struct ynode *h = root;
	int ret = 0;

	*parent = NULL;
	*pkey = NULL;
	while ((dot = strchr(part, '.'))) {
		struct ynode *v;
		long i;

		*dot = '\0';
		i = ynode_map_find(h, part);
		v = i >= 0 ? h->vals[i] : NULL;
		if (is_null(v)) {
			if (!create) {
				ret = 1;
				goto out;
			}
			v = ynode_new(YNODE_MAP, at->line, at->col);
			v->file = at->file;
			map_set(h, part, v, at);
		} else if (v->kind != YNODE_MAP) {
			ret = ynode_error(file, at,
					  "'%s': '%s' is a %s, not a mapping",
					  path, part, ynode_kind_name(v->kind));
			goto out;
		}
		*parent = h;
		free(*pkey);
		*pkey = xstrdup(part);
		h = v;
		part = dot + 1;
	}
	*map = h;
	*last = xstrdup(part);
out:
	free(copy);
	if (ret)
		free(*pkey);
	return ret;
}

static void remove_items(struct ynode *target, const struct ynode *what)
{
	size_t i, j;

	for (i = 0; i < (what->kind == YNODE_SCALAR ? 1u : what->nr); i++) {
		const struct ynode *w =
			what->kind == YNODE_SCALAR ? what :
			what->kind == YNODE_MAP	   ? what->keys[i] :
						     what->vals[i];

		if (w->kind != YNODE_SCALAR)
			continue;
		if (target->kind == YNODE_MAP) {
			long at = ynode_map_find(target, w->str);

			if (at >= 0)
				ynode_map_remove(target, (size_t)at);
			continue;
		}
		for (j = 0; target->kind == YNODE_SEQ && j < target->nr;) {
			if (!same_scalar(target->vals[j], w)) {
				j++;
				continue;
			}
			ynode_free(target->vals[j]);
			memmove(target->vals + j, target->vals + j + 1,
				(target->nr - j - 1) * sizeof(*target->vals));
			target->nr--;
		}
	}
}

/* key-: v */
static int minus(struct ynode *root, const struct ynode *key,
		 const struct ynode *v, const char *file)
{
	char *path = xstrndup(key->str, strlen(key->str) - 1);
	struct ynode *map, *parent;
	char *pkey, *last = NULL;
	long at;
	int r = lookup(root, path, false, key, file, &map, &parent, &pkey,
		       &last);

	free(path);
	if (r)
		return r < 0 ? -1 : 0;
	at = ynode_map_find(map, last);
	if (at >= 0 && !is_null(v)) {
		struct ynode *t = map->vals[at];

		remove_items(t, v);
		if ((t->kind == YNODE_MAP || t->kind == YNODE_SEQ) && !t->nr)
			ynode_map_replace(map, (size_t)at, null_at(key));
	} else if (at >= 0) {
		ynode_map_remove(map, (size_t)at);
		if (!map->nr && parent)
			map_set(parent, pkey, null_at(key), key);
	}
	free(pkey);
	free(last);
	return 0;
}

/* containers nested in n, n included (0 for a scalar) */
static int depth(const struct ynode *n)
{
	int d = 0, c;
	size_t i;

	if (!n || n->kind == YNODE_SCALAR)
		return 0;
	for (i = 0; i < n->nr; i++) {
		/* not in RB_MAX, which would call it twice a level */
		c = depth(n->vals[i]);
		d = RB_MAX(d, c);
	}
	return d + 1;
}

/*
 * key+: v and a.b.c: v. The value lands under the top mapping and one
 * mapping a dot: the reader's nesting limit holds for the result too (a
 * job written out must read back).
 */
static int plus_or_set(struct ynode *root, const struct ynode *key,
		       const struct ynode *v, bool plus, const char *file)
{
	char *path = plus ? xstrndup(key->str, strlen(key->str) - 1) :
			    xstrdup(key->str);
	struct ynode *map, *parent, *nv;
	char *pkey, *last;
	const char *c;
	int dots = 0;
	long at;
	int r = lookup(root, path, true, key, file, &map, &parent, &pkey,
		       &last);

	for (c = path; *c; c++)
		dots += *c == '.';
	free(path);
	if (r < 0)
		return -1;
	at = ynode_map_find(map, last);
	if (plus) {
		nv = accumulate(at >= 0 ? ynode_copy(map->vals[at]) : NULL,
				ynode_copy(v));
		if (!nv)
			nv = null_at(key);
		uniq(nv);
	} else {
		nv = ynode_copy(v);
	}
	if (1 + dots + depth(nv) > YTREE_MAX_DEPTH) {
		ynode_free(nv);
		free(pkey);
		free(last);
		return ynode_error(file, key,
				   "'%.40s%s': nesting deeper than %d levels",
				   key->str, strlen(key->str) > 40 ? "..." : "",
				   YTREE_MAX_DEPTH);
	}
	map_set(map, last, nv, key);
	free(pkey);
	free(last);
	return 0;
}

int job_revise(struct ynode *orig, const struct ynode *rev, const char *file)
{
	size_t i, nr;
	char **names;
	int ret = 0;

	for (i = 0; rev && i < rev->nr; i++) {
		const char *k = rev->keys[i]->str;
		long at = ynode_map_find(orig, k);

		if (at >= 0 && (special(k) || accumulative(k)))
			orig->vals[at] = accumulate(orig->vals[at],
						    ynode_copy(rev->vals[i]));
		else
			map_set(orig, k, ynode_copy(rev->vals[i]),
				rev->keys[i]);
	}
	/* the special keys, in the order of the merged mapping */
	nr = orig->nr;
	names = xcalloc(nr + 1, sizeof(*names));
	for (i = 0; i < nr; i++)
		names[i] = xstrdup(orig->keys[i]->str);
	for (i = 0; i < nr && !ret; i++) {
		const char *k = names[i];
		long at = ynode_map_find(orig, k);
		size_t len = strlen(k);
		const struct ynode *key, *v;

		if (at < 0 || (!special(k) && !strchr(k, '.')))
			continue;
		key = orig->keys[at];
		v = orig->vals[at];
		if (len > 1 && k[len - 1] == '-')
			ret = minus(orig, key, v, file);
		else if (len > 1 && k[len - 1] == '+')
			ret = plus_or_set(orig, key, v, true, file);
		else
			ret = plus_or_set(orig, key, v, false, file);
	}
	for (i = 0; i < nr && !ret; i++) {
		long at = ynode_map_find(orig, names[i]);

		if (at >= 0 && (special(names[i]) || strchr(names[i], '.')))
			ynode_map_remove(orig, (size_t)at);
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return ret;
}
