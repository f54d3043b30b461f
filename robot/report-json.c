// SPDX-License-Identifier: GPL-2.0-only
/*
 * A report described in JSON, read into struct rb_report (jansson).
 */
#include <jansson.h>
#include <stddef.h>

#include "robot.h"
#include "outbox.h"
#include "report-json.h"

enum ftype {
	F_STR,
	F_DOUBLE,
	F_UNIT, /* a number from 0 to 1 (a confidence) */
	F_LEVEL, /* a number between 0 and 1, both excluded (a ci level) */
	F_INT,
	F_INT64,
	F_ADDR,
	F_KIND,
	F_SPREAD,
	F_OTHER, /* read by its own code below */
};

/* The top-level names: one row each (fio's options table, in small). */
static const struct field {
	const char *name;
	enum ftype type;
	size_t off;
} fields[] = {
	{ "tree", F_STR, offsetof(struct rb_report, tree) },
	{ "branch", F_STR, offsetof(struct rb_report, branch) },
	{ "tree_url", F_STR, offsetof(struct rb_report, tree_url) },
	{ "sha", F_STR, offsetof(struct rb_report, sha) },
	{ "subject", F_STR, offsetof(struct rb_report, subject) },
	{ "author", F_ADDR, offsetof(struct rb_report, author) },
	{ "committer", F_ADDR, offsetof(struct rb_report, committer) },
	{ "kind", F_KIND, offsetof(struct rb_report, kind) },
	{ "stat", F_STR, offsetof(struct rb_report, stat) },
	{ "change", F_DOUBLE, offsetof(struct rb_report, pct) },
	{ "testcase", F_STR, offsetof(struct rb_report, testcase) },
	{ "config", F_STR, offsetof(struct rb_report, config) },
	{ "compiler", F_STR, offsetof(struct rb_report, compiler) },
	{ "machine", F_STR, offsetof(struct rb_report, machine) },
	{ "from", F_ADDR, offsetof(struct rb_report, from) },
	{ "archive_url", F_STR, offsetof(struct rb_report, archive_url) },
	{ "materials_url", F_STR, offsetof(struct rb_report, materials_url) },
	{ "signature", F_STR, offsetof(struct rb_report, signature) },
	{ "date", F_INT64, offsetof(struct rb_report, date) },
	{ "tz_minutes", F_INT, offsetof(struct rb_report, tz_minutes) },
	{ "message_id", F_STR, offsetof(struct rb_report, message_id) },
	{ "table", F_STR, offsetof(struct rb_report, table) },
	{ "spread", F_SPREAD, offsetof(struct rb_report, spread_kind) },
	{ "ci_level", F_LEVEL, offsetof(struct rb_report, ci_level) },
	{ "confidence", F_UNIT, offsetof(struct rb_report, confidence) },
	{ "confidence_note", F_STR,
	  offsetof(struct rb_report, confidence_note) },
	{ "reproduce", F_STR, offsetof(struct rb_report, reproduce) },
	{ "job", F_OTHER, 0 },
	{ "key", F_OTHER, 0 },
	{ "domain", F_OTHER, 0 },
	{ "table_file", F_OTHER, 0 },
	{ "still", F_OTHER, 0 },
	{ "parameters", F_OTHER, 0 },
	{ "to", F_OTHER, 0 },
	{ "cc", F_OTHER, 0 },
	{ "steps", F_OTHER, 0 },
	{ "confirm", F_OTHER, 0 },
	{ "cost", F_OTHER, 0 },
};

struct ctx {
	const char *path;
	const char *text; /* the JSON text, len bytes */
	size_t len;
};

static int bad(const struct ctx *c, const char *what, const char *want)
{
	return rb_error("%s: '%s' must be %s", c->path, what, want);
}

/* The end of the JSON string whose opening quote is at i (past its "). */
static size_t string_end(const char *t, size_t len, size_t i)
{
	for (i++; i < len && t[i] != '"'; i++)
		if (t[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

/* Past the white space (and one c, when it is there) from i. */
static size_t skip(const char *t, size_t len, size_t i, char c)
{
	while (i < len &&
	       (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n'))
		i++;
	if (c && i < len && t[i] == c)
		return skip(t, len, i + 1, 0);
	return i;
}

/*
 * Where the value of the top-level name sits in the text, as jansson
 * counts (line from 1, column in characters from 1): jansson keeps no
 * places, so the text is scanned again. 0 when it is not found.
 */
static int value_place(const struct ctx *c, const char *name, int *line,
		       int *col)
{
	const char *t = c->text;
	size_t i = 0, n = strlen(name), k, bol = 0;
	int depth = 0;
	bool key = false;

	while (t && i < c->len) {
		switch (t[i]) {
		case '"':
			k = string_end(t, c->len, i);
			if (depth == 1 && key && k - i == n + 2 &&
			    !memcmp(t + i + 1, name, n)) {
				i = skip(t, c->len, k, ':');
				*line = 1;
				for (k = 0; k < i; k++)
					if (t[k] == '\n') {
						(*line)++;
						bol = k + 1;
					}
				*col = 1;
				for (k = bol; k < i; k++)
					*col += ((unsigned char)t[k] & 0xc0) !=
						0x80;
				return 1;
			}
			key = false;
			i = k;
			continue;
		case '{':
			key = ++depth == 1;
			break;
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		case ',':
			key = depth == 1;
			break;
		}
		i++;
	}
	return 0;
}

/* A top-level number out of its range, at its place. */
static int bad_range(const struct ctx *c, const char *what, const char *want,
		     double v)
{
	int line, col;

	if (value_place(c, what, &line, &col))
		return rb_error("%s:%d:%d: '%s' must be %s, not %g", c->path,
				line, col, what, want, v);
	return rb_error("%s: '%s' must be %s, not %g", c->path, what, want, v);
}

static int get_str(const struct ctx *c, json_t *v, const char *what,
		   const char **out)
{
	if (!json_is_string(v))
		return bad(c, what, "a string");
	*out = json_string_value(v);
	return 0;
}

static int get_num(const struct ctx *c, json_t *v, const char *what,
		   double *out)
{
	if (!json_is_number(v))
		return bad(c, what, "a number");
	*out = json_number_value(v);
	return 0;
}

static int get_uint(const struct ctx *c, json_t *v, const char *what,
		    unsigned *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > UINT_MAX)
		return bad(c, what, "a whole number");
	*out = (unsigned)json_integer_value(v);
	return 0;
}

/* An object holding only the names in `allowed` (NULL-terminated). */
static int check_object(const struct ctx *c, json_t *o, const char *what,
			const char *const *allowed)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o))
		return bad(c, what, "an object");
	json_object_foreach(o, k, v)
	{
		const char *const *a;

		for (a = allowed; *a; a++)
			if (!strcmp(*a, k))
				break;
		if (!*a)
			return rb_error("%s: unknown name '%s' in '%s'",
					c->path, k, what);
	}
	return 0;
}

static int get_addr(const struct ctx *c, json_t *o, const char *what,
		    struct rb_mail_addr *a)
{
	static const char *const names[] = { "name", "email", NULL };
	json_t *v;

	if (json_is_string(o)) {
		a->name = NULL;
		a->email = json_string_value(o);
		return 0;
	}
	if (check_object(c, o, what, names) < 0)
		return -1;
	v = json_object_get(o, "email");
	if (!v)
		return rb_error("%s: '%s' has no 'email'", c->path, what);
	if (get_str(c, v, what, &a->email) < 0)
		return -1;
	v = json_object_get(o, "name");
	a->name = NULL;
	return v ? get_str(c, v, what, &a->name) : 0;
}

static int get_addrs(const struct ctx *c, json_t *arr, const char *what,
		     struct rb_mail_addr **out, size_t *nr)
{
	size_t i;
	json_t *v;

	if (!json_is_array(arr))
		return bad(c, what, "a list");
	*out = xcalloc(json_array_size(arr) + 1, sizeof(**out));
	json_array_foreach(arr, i, v)
	{
		if (get_addr(c, v, what, &(*out)[i]) < 0)
			return -1;
	}
	*nr = json_array_size(arr);
	return 0;
}

static int get_params(const struct ctx *c, struct rb_report_doc *d, json_t *a)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return bad(c, "parameters", "a list of [name, value] pairs");
	d->params = xcalloc(json_array_size(a) + 1, sizeof(*d->params));
	json_array_foreach(a, i, v)
	{
		if (!json_is_array(v) || json_array_size(v) != 2 ||
		    !json_is_string(json_array_get(v, 0)) ||
		    !json_is_string(json_array_get(v, 1)))
			return bad(c, "parameters",
				   "a list of [name, value] pairs of strings");
		d->params[i].key = json_string_value(json_array_get(v, 0));
		d->params[i].value = json_string_value(json_array_get(v, 1));
	}
	d->r.params = d->params;
	d->r.params_nr = json_array_size(a);
	return 0;
}

static int get_still(const struct ctx *c, struct rb_report_doc *d, json_t *a)
{
	static const char *const names[] = { "tree", "branch", "sha", NULL };
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return bad(c, "still", "a list");
	d->still = xcalloc(json_array_size(a) + 1, sizeof(*d->still));
	json_array_foreach(a, i, v)
	{
		struct rb_report_still *s = &d->still[i];

		if (check_object(c, v, "still", names) < 0 ||
		    get_str(c, json_object_get(v, "tree"), "still.tree",
			    &s->tree) < 0 ||
		    get_str(c, json_object_get(v, "branch"), "still.branch",
			    &s->branch) < 0 ||
		    get_str(c, json_object_get(v, "sha"), "still.sha",
			    &s->sha) < 0)
			return -1;
	}
	d->r.still = d->still;
	d->r.still_nr = json_array_size(a);
	return 0;
}

static int get_measure(const struct ctx *c, json_t *o, const char *what,
		       struct rb_report_measure *m)
{
	static const char *const names[] = { "sha", "mean", "spread", "runs",
					     NULL };
	json_t *v;

	m->spread = -1;
	if (check_object(c, o, what, names) < 0 ||
	    get_str(c, json_object_get(o, "sha"), what, &m->sha) < 0 ||
	    get_num(c, json_object_get(o, "mean"), what, &m->mean) < 0 ||
	    get_uint(c, json_object_get(o, "runs"), what, &m->runs) < 0)
		return -1;
	v = json_object_get(o, "spread");
	return v ? get_num(c, v, what, &m->spread) : 0;
}

static int get_steps(const struct ctx *c, struct rb_report_doc *d, json_t *a)
{
	static const char *const names[] = { "sha",    "subject", "mean",
					     "spread", "runs",	  "verdict",
					     NULL };
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return bad(c, "steps", "a list");
	d->steps = xcalloc(json_array_size(a) + 1, sizeof(*d->steps));
	json_array_foreach(a, i, v)
	{
		struct rb_report_step *s = &d->steps[i];
		json_t *sp;

		s->spread = -1;
		if (check_object(c, v, "steps", names) < 0 ||
		    get_str(c, json_object_get(v, "sha"), "steps.sha",
			    &s->sha) < 0 ||
		    get_str(c, json_object_get(v, "subject"), "steps.subject",
			    &s->subject) < 0 ||
		    get_num(c, json_object_get(v, "mean"), "steps.mean",
			    &s->mean) < 0 ||
		    get_uint(c, json_object_get(v, "runs"), "steps.runs",
			     &s->runs) < 0 ||
		    get_str(c, json_object_get(v, "verdict"), "steps.verdict",
			    &s->verdict) < 0)
			return -1;
		sp = json_object_get(v, "spread");
		if (sp && get_num(c, sp, "steps.spread", &s->spread) < 0)
			return -1;
	}
	d->r.steps = d->steps;
	d->r.steps_nr = json_array_size(a);
	return 0;
}

static int get_confirm(const struct ctx *c, struct rb_report_doc *d, json_t *o)
{
	static const char *const names[] = { "parent", "culprit",    "rounds",
					     "change", "p_value",    "method",
					     "ci",     "reproduced", NULL };
	struct rb_report_confirm *cf = &d->confirm;
	json_t *v;

	cf->p_value = -1;
	if (check_object(c, o, "confirm", names) < 0 ||
	    get_measure(c, json_object_get(o, "parent"), "confirm.parent",
			&cf->parent) < 0 ||
	    get_measure(c, json_object_get(o, "culprit"), "confirm.culprit",
			&cf->culprit) < 0 ||
	    get_num(c, json_object_get(o, "change"), "confirm.change",
		    &cf->pct) < 0)
		return -1;
	v = json_object_get(o, "rounds");
	if (v && get_uint(c, v, "confirm.rounds", &cf->rounds) < 0)
		return -1;
	v = json_object_get(o, "p_value");
	if (v && get_num(c, v, "confirm.p_value", &cf->p_value) < 0)
		return -1;
	v = json_object_get(o, "method");
	if (v && get_str(c, v, "confirm.method", &cf->method) < 0)
		return -1;
	v = json_object_get(o, "ci");
	if (v && (json_array_size(v) != 3 ||
		  get_num(c, json_array_get(v, 0), "confirm.ci[0]",
			  &cf->ci_lo) < 0 ||
		  get_num(c, json_array_get(v, 1), "confirm.ci[1]",
			  &cf->ci_hi) < 0 ||
		  get_num(c, json_array_get(v, 2), "confirm.ci[2]",
			  &cf->ci_level) < 0))
		return bad(c, "confirm.ci", "[low %, high %, level]");
	if (cf->ci_level < 0 || cf->ci_level >= 1 || cf->ci_lo > cf->ci_hi)
		return bad(c, "confirm.ci", "[low %, high %, level < 1]");
	v = json_object_get(o, "reproduced");
	if (!json_is_boolean(v))
		return bad(c, "confirm.reproduced", "true or false");
	cf->reproduced = json_is_true(v);
	if (cf->reproduced && cf->ci_level > 0 && cf->ci_lo <= 0 &&
	    cf->ci_hi >= 0)
		return rb_error("%s: 'confirm.ci' holds 0 while 'confirm."
				"reproduced' is true: an interval that "
				"includes no change is not a confirmed change",
				c->path);
	d->r.confirm = cf;
	return 0;
}

static int get_cost(const struct ctx *c, struct rb_report_doc *d, json_t *o)
{
	static const char *const names[] = {
		"runs",		 "boots",      "builds", "builds_ahead",
		"builds_unused", "build_wait", NULL
	};
	struct rb_report_cost *k = &d->r.cost;
	json_t *v;

	if (check_object(c, o, "cost", names) < 0 ||
	    get_uint(c, json_object_get(o, "runs"), "cost.runs", &k->runs) <
		    0 ||
	    get_uint(c, json_object_get(o, "boots"), "cost.boots", &k->boots) <
		    0 ||
	    get_uint(c, json_object_get(o, "builds"), "cost.builds",
		     &k->builds) < 0)
		return -1;
	v = json_object_get(o, "builds_ahead");
	if (v && get_uint(c, v, "cost.builds_ahead", &k->builds_ahead) < 0)
		return -1;
	v = json_object_get(o, "builds_unused");
	if (v && get_uint(c, v, "cost.builds_unused", &k->builds_unused) < 0)
		return -1;
	v = json_object_get(o, "build_wait");
	if (v && (get_num(c, v, "cost.build_wait", &k->build_wait) < 0 ||
		  !(k->build_wait >= 0)))
		return bad(c, "cost.build_wait", "seconds, 0 or more");
	if (k->builds_ahead > k->builds || k->builds_unused > k->builds_ahead)
		return rb_error("%s: 'cost' has more builds ahead than builds, "
				"or more unused than ahead",
				c->path);
	d->r.has_cost = true;
	return 0;
}

/* A confidence from 0 to 1, a level of an interval between them. */
static int get_fraction(const struct ctx *c, const struct field *f, json_t *v,
			double *out)
{
	if (get_num(c, v, f->name, out) < 0)
		return -1;
	if (f->type == F_UNIT && !(*out >= 0 && *out <= 1))
		return bad_range(c, f->name, "from 0 to 1", *out);
	if (f->type == F_LEVEL && !(*out > 0 && *out < 1))
		return bad_range(c, f->name,
				 "between 0 and 1 (0.95: a 95% interval)",
				 *out);
	return 0;
}

static int get_field(const struct ctx *c, struct rb_report_doc *d,
		     const struct field *f, json_t *v)
{
	void *at = (char *)&d->r + f->off; /* the field, typed by the row */
	const char *s = NULL;

	switch (f->type) {
	case F_STR:
		return get_str(c, v, f->name, (const char **)at);
	case F_DOUBLE:
		return get_num(c, v, f->name, (double *)at);
	case F_UNIT:
	case F_LEVEL:
		return get_fraction(c, f, v, (double *)at);
	case F_INT:
		if (!json_is_integer(v) || json_integer_value(v) < INT_MIN ||
		    json_integer_value(v) > INT_MAX)
			return bad(c, f->name, "a whole number");
		*(int *)at = (int)json_integer_value(v);
		return 0;
	case F_INT64:
		if (!json_is_integer(v))
			return bad(c, f->name, "a whole number");
		*(int64_t *)at = json_integer_value(v);
		if (!strcmp(f->name, "date"))
			d->has_date = true;
		return 0;
	case F_ADDR:
		return get_addr(c, v, f->name, (struct rb_mail_addr *)at);
	case F_KIND:
		if (get_str(c, v, f->name, &s) < 0)
			return -1;
		if (!strcmp(s, "regression"))
			d->r.kind = RB_REPORT_REGRESSION;
		else if (!strcmp(s, "improvement"))
			d->r.kind = RB_REPORT_IMPROVEMENT;
		else
			return bad(c, f->name, "'regression' or 'improvement'");
		return 0;
	case F_SPREAD:
		if (get_str(c, v, f->name, &s) < 0)
			return -1;
		if (!strcmp(s, "ci"))
			d->r.spread_kind = RB_SPREAD_CI;
		else if (!strcmp(s, "stddev"))
			d->r.spread_kind = RB_SPREAD_STDDEV;
		else
			return bad(c, f->name, "'ci' or 'stddev'");
		return 0;
	case F_OTHER:
		break;
	}
	RB_BUG("field '%s' has no reader", f->name);
}

static int get_other(const struct ctx *c, struct rb_report_doc *d,
		     const char *name, json_t *v)
{
	size_t nr = 0;

	if (!strcmp(name, "still"))
		return get_still(c, d, v);
	if (!strcmp(name, "parameters"))
		return get_params(c, d, v);
	if (!strcmp(name, "steps"))
		return get_steps(c, d, v);
	if (!strcmp(name, "confirm"))
		return get_confirm(c, d, v);
	if (!strcmp(name, "cost"))
		return get_cost(c, d, v);
	if (!strcmp(name, "to")) {
		if (get_addrs(c, v, name, &d->to, &nr) < 0)
			return -1;
		d->r.to = d->to;
		d->r.to_nr = nr;
		return 0;
	}
	if (!strcmp(name, "cc")) {
		if (get_addrs(c, v, name, &d->cc, &nr) < 0)
			return -1;
		d->r.cc = d->cc;
		d->r.cc_nr = nr;
		return 0;
	}
	if (!strcmp(name, "domain"))
		return get_str(c, v, name, &d->domain);
	if (!strcmp(name, "table_file")) {
		const char *f = NULL;
		char *dir, *path;
		int ret;

		if (get_str(c, v, name, &f) < 0)
			return -1;
		dir = rb_dirname(c->path);
		path = rb_path_join(dir, f);
		free(d->table);
		d->table = NULL;
		ret = rb_read_file(path, &d->table, NULL);
		if (!ret)
			d->r.table = d->table;
		else
			rb_error_prefix("%s: 'table_file'", c->path);
		free(dir);
		free(path);
		return ret;
	}
	return 0; /* "job" and "key" make the key, below */
}

static int make_key(const struct ctx *c, struct rb_report_doc *d, json_t *root)
{
	json_t *key = json_object_get(root, "key");
	json_t *job = json_object_get(root, "job");
	struct sbuf sb = SBUF_INIT;
	const char *s = NULL;

	if (key) {
		if (get_str(c, key, "key", &s) < 0)
			return -1;
		if (!*s || strchr(s, '\n'))
			return bad(c, "key", "one non-empty line");
		d->key = xstrdup(s);
		return 0;
	}
	if (!job)
		return rb_error("%s: 'job' (or 'key') is needed to tell this "
				"mail from others",
				c->path);
	if (get_str(c, job, "job", &s) < 0)
		return -1;
	if (rb_outbox_key(&sb, d->r.sha, d->r.stat, s) < 0) {
		sbuf_release(&sb);
		return rb_error_prefix("%s", c->path);
	}
	d->key = sbuf_detach(&sb);
	return 0;
}

static int doc_read(struct rb_report_doc *d, const char *path, const char *text,
		    size_t len)
{
	struct ctx c = { path, text, len };
	json_error_t err;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	json_t *v;
	const char *k;
	size_t i;

	if (!root) {
		if (err.line > 0)
			return rb_error("%s:%d:%d: %s", path, err.line,
					err.column, err.text);
		return rb_error("%s: %s", path, err.text);
	}
	d->json = root;
	if (!json_is_object(root))
		return rb_error("%s:1:1: a report must be a JSON object", path);
	json_object_foreach(root, k, v)
	{
		for (i = 0; i < RB_ARRAY_SIZE(fields); i++)
			if (!strcmp(fields[i].name, k))
				break;
		if (i == RB_ARRAY_SIZE(fields))
			return rb_error("%s: unknown name '%s'", path, k);
		if (fields[i].type == F_OTHER) {
			if (get_other(&c, d, k, v) < 0)
				return -1;
		} else if (get_field(&c, d, &fields[i], v) < 0) {
			return -1;
		}
	}
	return make_key(&c, d, root);
}

int rb_report_doc_load(struct rb_report_doc *d, const char *path)
{
	char *text;
	size_t len;
	int ret;

	memset(d, 0, sizeof(*d));
	d->r.confidence = -1;
	/* our reader: "cannot read '/tmp': Is a directory", not jansson's
	 * "'[' or '{' expected near end of file" */
	if (rb_read_file(path, &text, &len) < 0)
		return -1;
	ret = doc_read(d, path, text, len);
	free(text);
	return ret;
}

int rb_report_doc_parse(struct rb_report_doc *d, const char *source,
			const char *text, size_t len)
{
	memset(d, 0, sizeof(*d));
	d->r.confidence = -1;
	return doc_read(d, source, text, len);
}

void rb_report_doc_release(struct rb_report_doc *d)
{
	if (d->json)
		json_decref(d->json);
	free(d->key);
	free(d->table);
	free(d->params);
	free(d->still);
	free(d->to);
	free(d->cc);
	free(d->steps);
	memset(d, 0, sizeof(*d));
}
