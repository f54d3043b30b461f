// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading lkp matrix.json / stats.json files for `robot compare`.
 */
#include <dirent.h>
#include <jansson.h>
#include <sys/stat.h>

#include "robot.h"
#include "cmp-load.h"
#include "sbuf.h"
#include "store.h"
#include "svec.h"

static void push_json(struct cmp_stat *st, json_t *v)
{
	if (json_is_integer(v))
		cmp_stat_push(st, (double)json_integer_value(v), true);
	else if (json_is_real(v))
		cmp_stat_push(st, json_real_value(v), false);
	else
		st->has_string = true;
}

static int load_object(struct cmp_matrix *m, json_t *root, const char *src)
{
	void *it;

	if (!json_is_object(root))
		return rb_error("%s: not a JSON object", src);
	/* in the file's order: jansson keeps the insertion order */
	for (it = json_object_iter(root); it;
	     it = json_object_iter_next(root, it)) {
		const char *key = json_object_iter_key(it);
		json_t *val = json_object_iter_value(it);
		struct cmp_stat *st;
		size_t i;

		if (!rb_is_clean_text(key)) {
			struct sbuf shown = SBUF_INIT;

			sbuf_add_escaped(&shown, key);
			rb_error("%s: stat name '%s' holds a control character",
				 src, shown.buf);
			sbuf_release(&shown);
			return -1;
		}
		if (!strcmp(key, "stats_source")) {
			m->has_sources = true;
			m->sources = json_is_array(val) ? json_array_size(val) :
							  1;
			continue;
		}
		st = cmp_matrix_stat(m, key);
		if (!json_is_array(val)) {
			push_json(st, val);
			continue;
		}
		for (i = 0; i < json_array_size(val); i++)
			push_json(st, json_array_get(val, i));
	}
	return 0;
}

int cmp_load_json(struct cmp_matrix *m, const char *text, const char *source)
{
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	int ret;

	if (!root)
		return rb_error("%s:%d:%d: %s", source, err.line, err.column,
				err.text);
	ret = load_object(m, root, source);
	json_decref(root);
	return ret;
}

static int load_file(struct cmp_matrix *m, const char *path)
{
	char *text;
	int ret;

	if (rb_read_file(path, &text, NULL) < 0)
		return -1;
	ret = cmp_load_json(m, text, path);
	free(text);
	return ret;
}

static char *base_name(const char *path)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = path + n; s > path && s[-1] != '/'; s--)
		;
	return xstrndup(s, (size_t)(path + n - s));
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* lkp's add_stats_to_matrix: pad to the current column count, append */
static int unite_run(struct cmp_matrix *m, const char *stats_path,
		     size_t column)
{
	struct cmp_matrix run;
	size_t i;

	cmp_matrix_init(&run);
	if (load_file(&run, stats_path)) {
		cmp_matrix_release(&run);
		return -1;
	}
	for (i = 0; i < run.nr; i++) {
		struct cmp_stat *st = cmp_matrix_stat(m, run.stats[i].name);
		size_t k;

		while (st->nr < column)
			cmp_stat_push(st, 0, true);
		for (k = 0; k < run.stats[i].nr; k++)
			cmp_stat_push(st, run.stats[i].v[k],
				      run.stats[i].is_int[k]);
		st->has_string |= run.stats[i].has_string;
	}
	cmp_matrix_release(&run);
	return 0;
}

static int load_runs(struct cmp_matrix *m, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	long *runs = NULL;
	size_t nr = 0, alloc = 0, i;
	int ret = 0;

	if (!d)
		return rb_error("cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char *p;

		if (!all_digits(de->d_name))
			continue;
		p = xstrfmt("%s/%s/stats.json", dir, de->d_name);
		if (rb_file_exists(p)) {
			long n;

			if (!rb_parse_long(de->d_name, &n)) {
				RB_ALLOC_GROW(runs, nr + 1, alloc);
				runs[nr++] = n;
			}
		}
		free(p);
	}
	closedir(d);
	if (!nr)
		return rb_error(
			"'%s' has no matrix.json and no run directories "
			"with a stats.json",
			dir);
	qsort(runs, nr, sizeof(*runs), cmp_long);
	m->has_sources = true;
	for (i = 0; i < nr && !ret; i++) {
		char *p = xstrfmt("%s/%ld/stats.json", dir, runs[i]);

		ret = unite_run(m, p, i);
		m->sources++;
		free(p);
	}
	free(runs);
	return ret;
}

int cmp_load(struct cmp_matrix *m, const char *path)
{
	struct stat sb;
	char *mj;
	int ret;

	cmp_matrix_init(m);
	if (stat(path, &sb))
		return rb_error("cannot open '%s': %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode)) {
		char *dir = rb_dirname(path), *name = base_name(path);

		ret = load_file(m, path);
		/* .../<sha>/matrix.json: the commit is the directory */
		m->label = strcmp(name, "matrix.json") ? xstrdup(name) :
							 base_name(dir);
		free(dir);
		free(name);
		return ret;
	}
	m->label = base_name(path);
	mj = xstrfmt("%s/matrix.json", path);
	if (rb_file_exists(mj))
		ret = load_file(m, mj);
	else
		ret = load_runs(m, path);
	free(mj);
	return ret;
}

int cmp_axes_from_path(const char *path, char **keys, char **values)
{
	static const char *const names[] = { "testcase",   "path_params",
					     "tbox_group", "rootfs",
					     "kconfig",	   "compiler" };
	char *dir = NULL, *parts[7];
	struct stat sb;
	int i, got = 0;

	if (stat(path, &sb))
		return 0;
	dir = S_ISDIR(sb.st_mode) ? xstrdup(path) : rb_dirname(path);
	for (i = 6; i >= 0; i--) {
		char *up;

		parts[i] = base_name(dir);
		up = rb_dirname(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	if (rb_is_sha1_hex(parts[6])) {
		for (i = 0; i < 6; i++) {
			keys[i] = xstrdup(names[i]);
			values[i] = parts[i];
			parts[i] = NULL;
		}
		got = 6;
	}
	for (i = 0; i < 7; i++)
		free(parts[i]);
	return got;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void cmp_matrix_from_runs(struct cmp_matrix *m, const char *label,
			  const struct run_stats *runs, size_t n)
{
	struct svec names = SVEC_INIT;
	size_t i, k;

	cmp_matrix_init(m);
	m->label = xstrdup(label);
	for (i = 0; i < n; i++)
		for (k = 0; k < runs[i].stats.nr; k++)
			if (svec_find(&names, runs[i].stats.v[k].name) < 0)
				svec_push(&names, runs[i].stats.v[k].name);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(*names.v), cmp_names);
	for (k = 0; k < names.nr; k++) {
		struct cmp_stat *st = cmp_matrix_stat(m, names.v[k]);

		for (i = 0; i < n; i++) {
			const double *v =
				statset_get(&runs[i].stats, names.v[k]);
			double x = v ? *v : 0;

			/* result.c's rule for a JSON integer */
			cmp_stat_push(st, x,
				      x < 9e15 && x > -9e15 &&
					      x == (double)(long long)x);
		}
	}
	m->sources = n;
	m->has_sources = true;
	svec_clear(&names);
}
