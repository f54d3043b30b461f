// SPDX-License-Identifier: GPL-2.0-only
/*
 * lkp-style result files with jansson.
 */
#include <jansson.h>

#include "robot.h"
#include "result.h"

void statset_release(struct statset *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static struct stat_entry *find(const struct statset *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

bool stat_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"0123456789._-+%/:=@#()[]");

	return n > 0 && n <= 255 && !name[n] && name[0] != '.';
}

void statset_set(struct statset *s, const char *name, double value)
{
	struct stat_entry *e = find(s, name);

	if (e) {
		e->value = value;
		return;
	}
	RB_ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr].name = xstrdup(name);
	s->v[s->nr].value = value;
	s->nr++;
}

void statset_add(struct statset *s, const char *name, double value)
{
	struct stat_entry *e = find(s, name);

	if (e)
		e->value += value;
	else
		statset_set(s, name, value);
}

const double *statset_get(const struct statset *s, const char *name)
{
	struct stat_entry *e = find(s, name);

	return e ? &e->value : NULL;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct stat_entry *)a)->name,
		      ((const struct stat_entry *)b)->name);
}

void statset_sort(struct statset *s)
{
	if (s->nr)
		qsort(s->v, s->nr, sizeof(*s->v), cmp_entry);
}

void statset_merge(struct statset *dst, const struct statset *src,
		   const char *prefix)
{
	size_t i;

	for (i = 0; i < src->nr; i++) {
		char *n = xstrfmt("%s%s", prefix ? prefix : "", src->v[i].name);

		statset_set(dst, n, src->v[i].value);
		free(n);
	}
}

/* Integers stay integers in the files, as lkp's are. */
static json_t *number(double v)
{
	if (v < 9e15 && v > -9e15 && v == (double)(long long)v)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static int dump_atomic(json_t *root, const char *path)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS |
					      JSON_REAL_PRECISION(15));
	int ret;

	if (!text)
		return rb_error("cannot encode '%s'", path);
	{
		size_t n = strlen(text);

		text = xrealloc(text, n + 2);
		text[n] = '\n';
		text[n + 1] = '\0';
	}
	ret = rb_write_file_atomic(path, text, strlen(text));
	free(text);
	return ret;
}

int statset_write_json(const struct statset *s, const char *path)
{
	json_t *root = json_object();
	size_t i;
	int ret;

	for (i = 0; i < s->nr; i++)
		json_object_set_new(root, s->v[i].name, number(s->v[i].value));
	ret = dump_atomic(root, path);
	json_decref(root);
	return ret;
}

static json_t *load(const char *path, bool missing_ok)
{
	json_error_t err;
	json_t *root;

	if (missing_ok && !rb_file_exists(path))
		return json_object();
	root = json_load_file(path, 0, &err);
	if (!root) {
		rb_error("%s:%d:%d: %s", path, err.line, err.column, err.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		rb_error("%s:1:1: not a JSON object", path);
		return NULL;
	}
	return root;
}

int statset_read_json(struct statset *s, const char *path)
{
	json_t *root = load(path, false), *v;
	const char *k;

	if (!root)
		return -1;
	json_object_foreach(root, k, v)
	{
		if (json_is_number(v))
			statset_set(s, k, json_number_value(v));
	}
	json_decref(root);
	return 0;
}

int matrix_update(const char *matrix_path, const char *source,
		  const struct statset *s)
{
	json_t *root = load(matrix_path, true), *sources, *col, *v;
	size_t ncols, i, idx;
	const char *k;
	int ret;

	if (!root)
		return -1;
	sources = json_object_get(root, "stats_source");
	if (!json_is_array(sources)) {
		sources = json_array();
		json_object_set_new(root, "stats_source", sources);
	}
	ncols = json_array_size(sources);
	for (idx = 0; idx < ncols; idx++)
		if (!strcmp(json_string_value(json_array_get(sources, idx)) ?:
									      "",
			    source))
			break;
	if (idx == ncols) {
		json_array_append_new(sources, json_string(source));
		ncols++;
	}
	/* every stat column gets ncols entries, 0 where a run lacked it */
	for (i = 0; i < s->nr; i++) {
		col = json_object_get(root, s->v[i].name);
		if (!json_is_array(col)) {
			col = json_array();
			json_object_set_new(root, s->v[i].name, col);
		}
		while (json_array_size(col) < ncols)
			json_array_append_new(col, json_integer(0));
		json_array_set_new(col, idx, number(s->v[i].value));
	}
	json_object_foreach(root, k, v)
	{
		if (!json_is_array(v) || !strcmp(k, "stats_source"))
			continue;
		while (json_array_size(v) < ncols)
			json_array_append_new(v, json_integer(0));
		if (!statset_get(s, k))
			json_array_set_new(v, idx, json_integer(0));
	}
	ret = dump_atomic(root, matrix_path);
	json_decref(root);
	return ret;
}
