// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic reader of schema tables (see schema.h). Pure.
 */
#include <strings.h>

#include "robot.h"
#include "sbuf.h"
#include "schema.h"
#include "svec.h"

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))

void kvlist_push(struct kvlist *l, const char *key, const char *val,
		 bool declared)
{
	RB_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr].key = xstrdup(key);
	l->v[l->nr].val = xstrdup(val);
	l->v[l->nr].declared = declared;
	l->nr++;
}

const char *kvlist_get(const struct kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].val;
	return NULL;
}

void kvlist_copy(struct kvlist *dst, const struct kvlist *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++)
		kvlist_push(dst, src->v[i].key, src->v[i].val,
			    src->v[i].declared);
}

void kvlist_clear(struct kvlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].key);
		free(l->v[i].val);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct schema_row *schema_find(const struct schema_row *table,
				     const char *name)
{
	for (; table->name; table++)
		if (!strcmp(table->name, name))
			return table;
	return NULL;
}

int schema_parse_duration(const char *s, long *secs)
{
	static const struct {
		char unit;
		long mult;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	const char *p = s;
	long v = 0, mult = 1;
	size_t i;

	if (*p == '-')
		return rb_error("'%s' is negative", s);
	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (LONG_MAX - 9) / 10)
			return rb_error("'%s' is too long", s);
		v = v * 10 + (*p - '0');
	}
	if (*p) {
		for (i = 0; i < RB_ARRAY_SIZE(units); i++)
			if (*p == units[i].unit)
				mult = units[i].mult;
		if (mult == 1 && *p != 's')
			goto bad;
		if (p[1])
			goto bad;
	}
	if (v > LONG_MAX / mult)
		return rb_error("'%s' is too long", s);
	*secs = v * mult;
	return 0;
bad:
	return rb_error("'%s' is not a time (60s, 5m, 1h, 1d or seconds)", s);
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

const char *schema_suggest(const struct schema_row *table, const char *key)
{
	const char *best = NULL;
	size_t best_d = 3, d;

	for (; table->name; table++) {
		if (table->type == SCH_IGNORE)
			continue;
		d = rb_edit_distance(table->name, key);
		if (d < best_d && d <= strlen(key) / 2 + 1) {
			best_d = d;
			best = table->name;
		}
	}
	return best;
}

/* "hooks.build" style names in messages */
static char *qualify(const char *section, const char *name)
{
	return section ? xstrfmt("%s.%s", section, name) : xstrdup(name);
}

static int want_scalar(const struct schema_ctx *ctx, const struct ynode *v,
		       const char *name)
{
	if (v->kind == YNODE_SCALAR)
		return 0;
	return ynode_error(ctx->file, v, "'%s' must be a scalar, not a %s",
			   name, ynode_kind_name(v->kind));
}

bool schema_in_list(const char *const *list, const char *s)
{
	size_t i;

	for (i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

static int check_allowed(const struct schema_ctx *ctx,
			 const struct schema_row *row, const struct ynode *v,
			 const char *name, const char *val)
{
	struct sbuf sb = SBUF_INIT;
	size_t i;

	if (!row->allowed)
		return 0;
	for (i = 0; row->allowed[i]; i++)
		if (!strcmp(row->allowed[i], val))
			return 0;
	for (i = 0; row->allowed[i]; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "",
			  *row->allowed[i] ? row->allowed[i] : "''");
	ynode_error(ctx->file, v, "'%s' must be one of %s, not '%s'", name,
		    sb.buf, val);
	sbuf_release(&sb);
	return -1;
}

/*
 * Store one scalar value (from the file, or a default when v is NULL:
 * then `at` locates errors).
 */
static int store_scalar(const struct schema_ctx *ctx,
			const struct schema_row *row, const char *name,
			const struct ynode *v, const char *val, void *base)
{
	long l;
	bool b;

	if (v && check_allowed(ctx, row, v, name, val) < 0)
		return -1;
	if (v && row->check && row->check(ctx, v, val) < 0)
		return -1;
	if (row->flags & SCH_F_NOFIELD)
		return 0;
	switch (row->type) {
	case SCH_STR:
		free(*FIELD(base, row->off, char *));
		*FIELD(base, row->off, char *) = xstrdup(val);
		return 0;
	case SCH_PATH:
		if (!*val)
			return ynode_error(ctx->file, v,
					   "'%s' is an empty path", name);
		free(*FIELD(base, row->off, char *));
		*FIELD(base, row->off, char *) =
			ctx->dir ? rb_path_join(ctx->dir, val) : xstrdup(val);
		return 0;
	case SCH_LONG:
		if (rb_parse_long(val, &l) < 0)
			return ynode_error(ctx->file, v,
					   "'%s' must be a whole number, "
					   "not '%s'",
					   name, val);
		*FIELD(base, row->off, long) = l;
		return 0;
	case SCH_BOOL:
		if (parse_bool(val, &b) < 0)
			return ynode_error(ctx->file, v,
					   "'%s' must be true or false, "
					   "not '%s'",
					   name, val);
		*FIELD(base, row->off, bool) = b;
		return 0;
	case SCH_DURATION:
		if (schema_parse_duration(val, &l) < 0)
			return ynode_error(ctx->file, v, "%s %s", name,
					   rb_errmsg());
		*FIELD(base, row->off, long) = l;
		if (row->flags & SCH_F_TEXT) {
			free(*FIELD(base, row->off2, char *));
			*FIELD(base, row->off2, char *) = xstrdup(val);
		}
		return 0;
	default:
		RB_BUG("store_scalar on type %d", row->type);
	}
}

static const char *option_name_problem(const char *s)
{
	const char *p;

	if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9'))
		return "must start with a lowercase letter or a digit";
	for (p = s; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') &&
		    *p != '-' && *p != '_')
			return "may hold only [a-z0-9_-]";
	return NULL;
}

static int parse_payload(const struct schema_ctx *ctx,
			 const struct schema_row *row, const struct ynode *key,
			 const struct ynode *v, void *base)
{
	struct kvlist *opts = FIELD(base, row->off2, struct kvlist);
	char **name = FIELD(base, row->off, char *);
	const struct schema_row *sub;
	size_t i;

	if (*name)
		return ynode_error(ctx->file, key,
				   "a second payload section '%s' "
				   "(the job already runs '%s')",
				   row->name, *name);
	if (v->kind != YNODE_MAP)
		return ynode_error(ctx->file, v,
				   "'%s' must be a mapping of its options, "
				   "not a %s",
				   row->name, ynode_kind_name(v->kind));
	*name = xstrdup(row->name);
	for (i = 0; i < v->nr; i++) {
		const struct ynode *k = v->keys[i], *val = v->vals[i];
		const char *problem;
		char *qname;

		sub = schema_find(row->sub, k->str);
		qname = qualify(row->name, k->str);
		if (want_scalar(ctx, val, qname) < 0) {
			free(qname);
			return -1;
		}
		if (sub) {
			if (val->is_null) {
				free(qname);
				continue;
			}
			if (store_scalar(ctx, sub, qname, val, val->str, base) <
			    0) {
				free(qname);
				return -1;
			}
			kvlist_push(opts, k->str, val->str, true);
			free(qname);
			continue;
		}
		free(qname);
		problem = option_name_problem(k->str);
		if (problem)
			return ynode_error(ctx->file, k,
					   "option name '%s' of '%s' %s",
					   k->str, row->name, problem);
		if (row->refused && schema_in_list(row->refused, k->str))
			return ynode_error(
				ctx->file, k,
				"option '%s' of '%s' names a file or "
				"a directory on the box: the robot "
				"chooses where a run's files go",
				k->str, row->name);
		if (row->check && row->check(ctx, val, val->str) < 0)
			return -1;
		kvlist_push(opts, k->str, val->str, false);
	}
	for (sub = row->sub; sub->name; sub++)
		if ((sub->flags & SCH_F_REQUIRED) &&
		    !kvlist_get(opts, sub->name))
			return ynode_error(ctx->file, key, "'%s' needs a '%s'",
					   row->name, sub->name);
	return 0;
}

static int parse_seq(const struct schema_ctx *ctx, const struct schema_row *row,
		     const char *name, const struct ynode *v, void *base)
{
	void **arr = FIELD(base, row->off, void *);
	size_t *nr = FIELD(base, row->off2, size_t);
	size_t i;

	if (v->kind != YNODE_SEQ)
		return ynode_error(ctx->file, v,
				   "'%s' must be a list, not a %s", name,
				   ynode_kind_name(v->kind));
	for (i = 0; i < v->nr; i++) {
		const struct ynode *e = v->vals[i];
		char *qname = xstrfmt("%s[%zu]", name, i);
		void *elem;
		int r;

		if (e->kind != YNODE_MAP) {
			ynode_error(ctx->file, e,
				    "'%s' must be a mapping, not a %s", qname,
				    ynode_kind_name(e->kind));
			free(qname);
			return -1;
		}
		*arr = xrealloc(*arr, (*nr + 1) * row->elem_size);
		elem = (char *)*arr + *nr * row->elem_size;
		memset(elem, 0, row->elem_size);
		(*nr)++;
		r = schema_parse(row->sub, e, elem, ctx, qname, e);
		free(qname);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int parse_strlist(const struct schema_ctx *ctx,
			 const struct schema_row *row, const char *name,
			 const struct ynode *v, void *base)
{
	struct svec *sv = FIELD(base, row->off, struct svec);
	size_t i;

	if (!sv->v)
		svec_init(sv);
	if (v->kind == YNODE_MAP)
		return ynode_error(ctx->file, v,
				   "'%s' must be a list or a scalar, not a "
				   "mapping",
				   name);
	if (v->kind == YNODE_SCALAR) {
		if (check_allowed(ctx, row, v, name, v->str) < 0 ||
		    (row->check && row->check(ctx, v, v->str) < 0))
			return -1;
		svec_push(sv, v->str);
		return 0;
	}
	for (i = 0; i < v->nr; i++) {
		const struct ynode *e = v->vals[i];

		if (want_scalar(ctx, e, name) < 0 ||
		    check_allowed(ctx, row, e, name, e->str) < 0 ||
		    (row->check && row->check(ctx, e, e->str) < 0))
			return -1;
		svec_push(sv, e->str);
	}
	return 0;
}

static int parse_row(const struct schema_ctx *ctx, const struct schema_row *row,
		     const char *section, const struct ynode *key,
		     const struct ynode *v, void *base)
{
	char *name = qualify(section, row->name);
	int r = 0;

	switch (row->type) {
	case SCH_STR:
	case SCH_PATH:
	case SCH_LONG:
	case SCH_BOOL:
	case SCH_DURATION:
		r = want_scalar(ctx, v, name);
		if (!r)
			r = store_scalar(ctx, row, name, v, v->str, base);
		break;
	case SCH_STRLIST:
		r = parse_strlist(ctx, row, name, v, base);
		break;
	case SCH_MAP:
		r = schema_parse(row->sub, v, FIELD(base, row->off, void), ctx,
				 name, key);
		break;
	case SCH_SEQ:
		r = parse_seq(ctx, row, name, v, base);
		break;
	case SCH_RAW:
		ynode_free(*FIELD(base, row->off, struct ynode *));
		*FIELD(base, row->off, struct ynode *) = ynode_copy(v);
		break;
	case SCH_IGNORE:
		break;
	case SCH_PAYLOAD:
		r = parse_payload(ctx, row, key, v, base);
		break;
	}
	free(name);
	return r;
}

/* A row the file left out: its default, or an error when required. */
static int apply_default(const struct schema_ctx *ctx,
			 const struct schema_row *row, const char *section,
			 const struct ynode *where, bool absent, void *base)
{
	char *name;
	int r = 0;

	if (row->type == SCH_MAP) {
		name = qualify(section, row->name);
		r = schema_parse(row->sub, NULL, FIELD(base, row->off, void),
				 ctx, name, where);
		free(name);
		return r;
	}
	if (row->type == SCH_STRLIST) {
		struct svec *sv = FIELD(base, row->off, struct svec);

		if (!sv->v)
			svec_init(sv);
	}
	/* an absent section takes its defaults; it needs nothing */
	if ((row->flags & SCH_F_REQUIRED) && !absent) {
		if (section)
			return ynode_error(ctx->file, where,
					   "'%s' needs a '%s'", section,
					   row->name);
		return ynode_error(ctx->file, where, "missing '%s'", row->name);
	}
	if (!row->def)
		return 0;
	name = qualify(section, row->name);
	r = store_scalar(ctx, row, name, NULL, row->def, base);
	free(name);
	return r;
}

int schema_parse(const struct schema_row *table, const struct ynode *map,
		 void *base, const struct schema_ctx *ctx, const char *section,
		 const struct ynode *where)
{
	const struct schema_row *row;
	size_t nr_rows = 0, i;
	bool *seen;
	int r = -1;

	for (row = table; row->name; row++)
		nr_rows++;
	if (map && map->kind == YNODE_SCALAR && map->is_null)
		map = NULL;
	if (map && map->kind != YNODE_MAP) {
		if (section)
			return ynode_error(ctx->file, map,
					   "'%s' must be a mapping, not a %s",
					   section, ynode_kind_name(map->kind));
		return ynode_error(ctx->file, map,
				   "expected a mapping, not a %s",
				   ynode_kind_name(map->kind));
	}
	seen = xcalloc(nr_rows + 1, sizeof(*seen));
	for (i = 0; map && i < map->nr; i++) {
		const struct ynode *k = map->keys[i], *v = map->vals[i];
		const char *hint;

		row = schema_find(table, k->str);
		if (!row) {
			if (!section && ctx->unknown) {
				ynode_map_push(ctx->unknown, k->str,
					       ynode_copy(v));
				ctx->unknown->keys[ctx->unknown->nr - 1]->line =
					k->line;
				ctx->unknown->keys[ctx->unknown->nr - 1]->col =
					k->col;
				continue;
			}
			hint = schema_suggest(table, k->str);
			if (hint)
				ynode_error(ctx->file, k,
					    "unknown key '%s'%s%s (did you "
					    "mean '%s'?)",
					    k->str, section ? " in " : "",
					    section ? section : "", hint);
			else
				ynode_error(ctx->file, k,
					    "unknown key '%s'%s%s", k->str,
					    section ? " in " : "",
					    section ? section : "");
			goto out;
		}
		/* an empty value is an absent one (a payload needs options) */
		if (v->kind == YNODE_SCALAR && v->is_null &&
		    row->type != SCH_PAYLOAD)
			continue;
		seen[row - table] = true;
		if (parse_row(ctx, row, section, k, v, base) < 0)
			goto out;
	}
	for (row = table; row->name; row++)
		if (!seen[row - table] &&
		    apply_default(ctx, row, section, map ? map : where, !map,
				  base) < 0)
			goto out;
	r = 0;
out:
	free(seen);
	return r;
}

void schema_release(const struct schema_row *table, void *base)
{
	const struct schema_row *row;
	size_t i;

	for (row = table; row->name; row++) {
		if (row->flags & SCH_F_NOFIELD)
			continue;
		switch (row->type) {
		case SCH_STR:
		case SCH_PATH:
			free(*FIELD(base, row->off, char *));
			*FIELD(base, row->off, char *) = NULL;
			break;
		case SCH_DURATION:
			if (row->flags & SCH_F_TEXT) {
				free(*FIELD(base, row->off2, char *));
				*FIELD(base, row->off2, char *) = NULL;
			}
			break;
		case SCH_STRLIST:
			svec_clear(FIELD(base, row->off, struct svec));
			break;
		case SCH_MAP:
			schema_release(row->sub, FIELD(base, row->off, void));
			break;
		case SCH_SEQ: {
			void **arr = FIELD(base, row->off, void *);
			size_t *nr = FIELD(base, row->off2, size_t);

			for (i = 0; i < *nr; i++)
				schema_release(row->sub,
					       (char *)*arr +
						       i * row->elem_size);
			free(*arr);
			*arr = NULL;
			*nr = 0;
			break;
		}
		case SCH_RAW:
			ynode_free(*FIELD(base, row->off, struct ynode *));
			*FIELD(base, row->off, struct ynode *) = NULL;
			break;
		case SCH_PAYLOAD:
			free(*FIELD(base, row->off, char *));
			*FIELD(base, row->off, char *) = NULL;
			kvlist_clear(FIELD(base, row->off2, struct kvlist));
			schema_release(row->sub, base);
			break;
		default:
			break;
		}
	}
}

int schema_check_seconds(const struct schema_ctx *ctx, const struct ynode *n,
			 const char *what, const char *val)
{
	long secs;

	if (schema_parse_duration(val, &secs) < 0)
		return ynode_error(ctx->file, n, "%s %s", what, rb_errmsg());
	if (!secs)
		return ynode_error(ctx->file, n, "%s '%s' must be at least 1s",
				   what, val);
	return 0;
}
