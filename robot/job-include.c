// SPDX-License-Identifier: GPL-2.0-only
/*
 * lkp's `<<:` includes (lkp-tests lib/yaml.rb, jobs/README.md): a line
 *
 *	<<: FILE
 *	<<: {file: FILE, key: 'value', ignore: [key, ...]}
 *
 * is replaced by the text of FILE, indented like the line. `key: value`
 * replaces that top-level key's line in every YAML document of FILE, or
 * is appended to a document that lacks it; `ignore:` drops the named
 * top-level keys. The text is assembled before it is parsed, as lkp does,
 * and every line remembers where it was written, so that errors name the
 * file, line and column the user wrote.
 *
 * FILE is looked up as lkp does: an absolute path; ./ or ../ relative to
 * the including file; else in the including file's folder and in $LKP_SRC
 * (an lkp-tests checkout), then anywhere below the nearest `jobs` folder
 * above the including file, below that folder and below $LKP_SRC (first
 * match in name order). Unlike lkp, an included file's own includes are
 * expanded too; an include cycle is an error.
 *
 * lkp's templates (lib/erb.rb, lib/job.rb) are Ruby: `{{ expression }}`
 * in a value, evaluated against the job's other keys, and ERB (`<% %>`,
 * a line starting with '%'). The robot runs no Ruby, so each file's text
 * is refused at its first template, before it is parsed: as YAML,
 * `{{ x }}` is a mapping of a mapping, and a quoted one would be the
 * value itself.
 */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "robot.h"
#include "job.h"
#include "sbuf.h"
#include "svec.h"
#include "ytree.h"

/*
 * How deep includes may nest, how deep the folder search goes and how
 * many folders it may open in all (a job in a large tree, a home folder,
 * must not make a missing include take minutes).
 */
#define INCLUDE_MAX_DEPTH 16
#define SEARCH_MAX_DEPTH 8
#define SEARCH_MAX_DIRS 20000

struct line {
	char *text;
	struct ysource src;
};

struct lines {
	struct line *v;
	size_t nr, alloc;
};

static void lines_push(struct lines *l, char *text, const struct ysource *src)
{
	RB_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr].text = text;
	l->v[l->nr].src = *src;
	l->nr++;
}

static void lines_release(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void split_lines(struct lines *out, const char *file, const char *text,
			size_t len)
{
	struct ysource src = { .file = ytree_intern(file) };
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		src.line++;
		lines_push(out, xstrndup(text + at, n), &src);
		at += n + 1;
	}
}

/*
 * An include line: spaces, "<<", spaces, ':', at least one space, then
 * something that is not a YAML alias (*REF) or a list.
 */
static bool is_include(const char *s, size_t *indent, const char **content)
{
	const char *p = s + strspn(s, " ");

	*indent = (size_t)(p - s);
	if (strncmp(p, "<<", 2))
		return false;
	p += 2;
	p += strspn(p, " ");
	if (*p != ':' || (p[1] != ' ' && p[1] != '\t'))
		return false;
	p += 1 + strspn(p + 1, " \t");
	if (!*p || *p == '*' || *p == '[')
		return false;
	*content = p;
	return true;
}

/* What the `<<:` line asks for. */
struct include {
	char *file;
	/* key -> value (a mapping of the flow map's other keys) */
	struct ynode *overrides;
	struct svec ignore;
};

static void include_release(struct include *inc)
{
	free(inc->file);
	ynode_free(inc->overrides);
	svec_clear(&inc->ignore);
}

static int at_error(const struct line *l, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int at_error(const struct line *l, size_t col, const char *fmt, ...)
{
	struct sbuf msg = SBUF_INIT;
	int c = (int)col + 1 - l->src.shift;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	rb_error("%s:%d:%d: %s", l->src.file, l->src.line, c < 1 ? 1 : c,
		 msg.buf);
	sbuf_release(&msg);
	return -1;
}

/* The first of lkp's templates in a file's lines (see the top), refused. */
static int check_templates(const struct lines *in)
{
	size_t i;

	for (i = 0; i < in->nr; i++) {
		const struct line *l = &in->v[i];
		const char *s = l->text, *p;

		if (s[0] == '%' && strncmp(s, "%YAML", 5) &&
		    strncmp(s, "%TAG", 4))
			return at_error(l, 0,
					"a line starting with '%%' is Ruby in "
					"an lkp ERB template, which the robot "
					"does not run: write the values it "
					"makes");
		p = strstr(s, "<%");
		if (p)
			return at_error(l, (size_t)(p - s),
					"'<%% %%>' is an lkp ERB template "
					"(Ruby), which the robot does not run: "
					"write the value it makes");
		for (p = s; *p; p++) {
			/* lkp leaves comments alone */
			if (*p == '#' &&
			    (p == s || p[-1] == ' ' || p[-1] == '\t'))
				break;
			if (p[0] == '{' && p[1] == '{')
				return at_error(l, (size_t)(p - s),
						"'{{ }}' is an lkp template "
						"(Ruby), which the robot does "
						"not evaluate: write the "
						"value it stands for");
		}
	}
	return 0;
}

static int parse_include(const struct line *l, size_t col, const char *content,
			 struct include *inc)
{
	struct ystream st;
	const struct ynode *m, *v;
	size_t i, end = strlen(content);

	memset(inc, 0, sizeof(*inc));
	while (end && (content[end - 1] == ' ' || content[end - 1] == '\t' ||
		       content[end - 1] == '\r'))
		end--;
	if (content[0] != '{') {
		/* a plain name, perhaps quoted */
		if (end >= 2 && (content[0] == '\'' || content[0] == '"') &&
		    content[end - 1] == content[0])
			inc->file = xstrndup(content + 1, end - 2);
		else
			inc->file = xstrndup(content, end);
		if (!*inc->file) {
			include_release(inc);
			return at_error(l, col, "'<<:' names no file");
		}
		return 0;
	}
	if (ytree_parse(&st, l->src.file, content, end) < 0)
		return at_error(l, col,
				"'<<: %.*s' is not a flow mapping such as "
				"{file: FILE, key: 'value'}",
				(int)end, content);
	if (st.nr != 1 || st.docs[0]->kind != YNODE_MAP) {
		ystream_release(&st);
		return at_error(l, col,
				"'<<: %.*s' is not a flow mapping such as "
				"{file: FILE, key: 'value'}",
				(int)end, content);
	}
	m = st.docs[0];
	inc->overrides = ynode_new(YNODE_MAP, 0, 0);
	for (i = 0; i < m->nr; i++) {
		const char *k = m->keys[i]->str;

		v = m->vals[i];
		if (!strcmp(k, "file")) {
			if (v->kind != YNODE_SCALAR || v->is_null || !*v->str)
				break;
			free(inc->file);
			inc->file = xstrdup(v->str);
		} else if (!strcmp(k, "ignore")) {
			size_t j;

			if (v->kind == YNODE_SCALAR) {
				svec_push(&inc->ignore, v->str);
				continue;
			}
			for (j = 0; v->kind == YNODE_SEQ && j < v->nr; j++)
				if (v->vals[j]->kind == YNODE_SCALAR)
					svec_push(&inc->ignore,
						  v->vals[j]->str);
		} else {
			ynode_map_push(inc->overrides, k, ynode_copy(v));
		}
	}
	ystream_release(&st);
	if (!inc->file) {
		include_release(inc);
		return at_error(l, col,
				"'<<:' needs a file: {file: FILE, ...}");
	}
	return 0;
}

/* --- finding the file ------------------------------------------------ */

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * dir/name, else the same below dir's folders in name order; *budget
 * folders may still be opened.
 */
static char *search_below(const char *dir, const char *name, int depth,
			  long *budget)
{
	struct svec subs = SVEC_INIT;
	struct dirent *de;
	char *path = xstrfmt("%s/%s", dir, name), *found = NULL;
	DIR *d;
	size_t i;

	if (is_file(path))
		return path;
	free(path);
	if (depth >= SEARCH_MAX_DEPTH || *budget <= 0 || !(d = opendir(dir)))
		return NULL;
	(*budget)--;
	while ((de = readdir(d))) {
		struct stat st;
		char *sub;

		if (de->d_name[0] == '.')
			continue;
		sub = xstrfmt("%s/%s", dir, de->d_name);
		/* like Ruby's **, symlinked folders are not entered */
		if (!lstat(sub, &st) && S_ISDIR(st.st_mode))
			svec_push(&subs, sub);
		free(sub);
	}
	closedir(d);
	qsort(subs.v, subs.nr, sizeof(*subs.v), cmp_str);
	for (i = 0; i < subs.nr && !found; i++)
		found = search_below(subs.v[i], name, depth + 1, budget);
	svec_clear(&subs);
	return found;
}

/* The nearest folder called "jobs" at or above dir, or NULL. */
static char *jobs_root(const char *dir)
{
	char *copy = xstrdup(dir), *p;

	for (;;) {
		p = strrchr(copy, '/');
		if (!strcmp(p ? p + 1 : copy, "jobs"))
			return copy;
		if (!p || p == copy)
			break;
		*p = '\0';
	}
	free(copy);
	return NULL;
}

static char *find_include(const char *name, const char *dir,
			  struct sbuf *looked)
{
	const char *lkp_src = getenv("LKP_SRC");
	struct svec roots = SVEC_INIT;
	char *path = NULL, *jr;
	long budget = SEARCH_MAX_DIRS;
	size_t i;

	if (name[0] == '/') {
		sbuf_addstr(looked, "the absolute path");
		return is_file(name) ? xstrdup(name) : NULL;
	}
	if (rb_starts_with(name, "./") || rb_starts_with(name, "../")) {
		sbuf_addf(looked, "%s", dir);
		path = xstrfmt("%s/%s", dir, name);
		if (is_file(path))
			return path;
		free(path);
		return NULL;
	}
	/* first flat, in the including file's folder and $LKP_SRC ... */
	svec_push(&roots, dir);
	if (lkp_src && *lkp_src)
		svec_push(&roots, lkp_src);
	for (i = 0; i < roots.nr && !path; i++) {
		path = xstrfmt("%s/%s", roots.v[i], name);
		if (!is_file(path)) {
			free(path);
			path = NULL;
		}
	}
	/* ... then below the nearest jobs folder, the folder, $LKP_SRC */
	jr = rb_starts_with(name, "jobs/") ? NULL : jobs_root(dir);
	if (!path && jr && strcmp(jr, dir))
		path = search_below(jr, name, 0, &budget);
	for (i = 0; i < roots.nr && !path; i++)
		path = search_below(roots.v[i], name, 0, &budget);
	if (jr && strcmp(jr, dir))
		sbuf_addf(looked, "%s, ", jr);
	free(jr);
	for (i = 0; i < roots.nr; i++)
		sbuf_addf(looked, "%s%s", i ? ", " : "", roots.v[i]);
	if (!path && budget <= 0)
		sbuf_addf(looked,
			  " (the search below them stopped after %d "
			  "folders)",
			  SEARCH_MAX_DIRS);
	if (!lkp_src || !*lkp_src)
		sbuf_addstr(looked, "; LKP_SRC is not set");
	svec_clear(&roots);
	return path;
}

/* --- overriding keys of the included text ---------------------------- */

static bool is_doc_sep(const char *s)
{
	return !strncmp(s, "---", 3) && !s[3 + strspn(s + 3, " \t\r")];
}

/* Does line s set the top-level key? */
static bool is_key_line(const char *s, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	if (strncmp(s, key, n))
		return false;
	p = s + n + strspn(s + n, " \t");
	return *p == ':' &&
	       (!p[1] || p[1] == ' ' || p[1] == '\t' || p[1] == '\r');
}

/* Lines after a top-level key that belong to its value. */
static bool is_continuation(const char *s)
{
	if (!*s || *s == ' ' || *s == '\t' || *s == '#')
		return true;
	return s[0] == '-' && (!s[1] || s[1] == ' ' || s[1] == '\t');
}

static void add_quoted(struct sbuf *sb, const char *s)
{
	sbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_addch(sb, '\'');
		sbuf_addch(sb, *s);
	}
	sbuf_addch(sb, '\'');
}

/* A value as one line of flow YAML that reads back the same. */
static void add_flow(struct sbuf *sb, const struct ynode *v)
{
	size_t i;

	switch (v->kind) {
	case YNODE_SCALAR:
		if (v->is_null)
			sbuf_addch(sb, '~');
		else
			add_quoted(sb, v->str);
		return;
	case YNODE_SEQ:
		sbuf_addch(sb, '[');
		for (i = 0; i < v->nr; i++) {
			if (i)
				sbuf_addstr(sb, ", ");
			add_flow(sb, v->vals[i]);
		}
		sbuf_addch(sb, ']');
		return;
	case YNODE_MAP:
		sbuf_addch(sb, '{');
		for (i = 0; i < v->nr; i++) {
			if (i)
				sbuf_addstr(sb, ", ");
			add_quoted(sb, v->keys[i]->str);
			sbuf_addstr(sb, ": ");
			add_flow(sb, v->vals[i]);
		}
		sbuf_addch(sb, '}');
		return;
	}
}

static void remove_line(struct lines *l, size_t i)
{
	free(l->v[i].text);
	memmove(l->v + i, l->v + i + 1, (l->nr - i - 1) * sizeof(*l->v));
	l->nr--;
}

/*
 * In the document [from, to) of l, drop the top-level key's lines (its
 * value's lines too), or with a replacement rewrite its first line and
 * drop the rest; a document without the key gets the replacement
 * appended (from src). Returns the document's new end.
 */
static size_t drop_key(struct lines *l, size_t from, size_t to, const char *key,
		       const char *replacement, const struct ysource *src)
{
	size_t i = from;
	bool found = false;

	while (i < to) {
		if (!is_key_line(l->v[i].text, key)) {
			i++;
			continue;
		}
		while (i + 1 < to && is_continuation(l->v[i + 1].text)) {
			remove_line(l, i + 1);
			to--;
		}
		if (replacement && !found) {
			free(l->v[i].text);
			l->v[i].text = xstrdup(replacement);
			i++;
		} else {
			remove_line(l, i);
			to--;
		}
		found = true;
	}
	if (replacement && !found) {
		RB_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		memmove(l->v + to + 1, l->v + to, (l->nr - to) * sizeof(*l->v));
		l->v[to].text = xstrdup(replacement);
		l->v[to].src = *src;
		l->nr++;
		to++;
	}
	return to;
}

/* Apply ignore: and the overrides to each YAML document of l. */
static void revise_text(struct lines *l, const struct include *inc,
			const struct ysource *src)
{
	struct sbuf rep = SBUF_INIT;
	size_t from = 0, to, i, k;

	while (from <= l->nr) {
		bool blank = true;

		for (to = from; to < l->nr && !is_doc_sep(l->v[to].text); to++)
			if (l->v[to].text[strspn(l->v[to].text, " \t\r")] &&
			    l->v[to].text[0] != '#')
				blank = false;
		if (!blank) {
			for (i = 0; i < inc->ignore.nr; i++)
				to = drop_key(l, from, to, inc->ignore.v[i],
					      NULL, src);
			for (k = 0; inc->overrides && k < inc->overrides->nr;
			     k++) {
				sbuf_reset(&rep);
				sbuf_addf(&rep,
					  "%s: ", inc->overrides->keys[k]->str);
				add_flow(&rep, inc->overrides->vals[k]);
				to = drop_key(l, from, to,
					      inc->overrides->keys[k]->str,
					      rep.buf, src);
			}
		}
		from = to + 1;
	}
	sbuf_release(&rep);
}

/* --- assembling the text ---------------------------------------------- */

struct assembly {
	struct lines out;
	/* the real paths of the files being included, outermost first */
	struct svec stack;
	struct svec names;
	size_t bytes;
	int includes;
};

static int expand_lines(struct assembly *a, struct lines *in, const char *dir,
			size_t indent);

static void pop(struct svec *sv)
{
	sv->nr--;
	free(sv->v[sv->nr]);
	sv->v[sv->nr] = NULL;
}

static int include_one(struct assembly *a, const struct line *l, size_t col,
		       const char *content, const char *dir, size_t indent)
{
	struct include inc;
	struct lines sub = { 0 };
	struct sbuf looked = SBUF_INIT, chain = SBUF_INIT;
	struct ysource here = l->src;
	char *path = NULL, *real = NULL, *text = NULL, *subdir = NULL;
	size_t len, i;
	int ret = -1;

	if (parse_include(l, col, content, &inc) < 0)
		return -1;
	a->includes++;
	if (a->stack.nr >= INCLUDE_MAX_DEPTH) {
		at_error(l, col, "includes nest deeper than %d files",
			 INCLUDE_MAX_DEPTH);
		goto out;
	}
	path = find_include(inc.file, dir, &looked);
	if (!path) {
		at_error(l, col, "included file '%s' not found (looked in %s)",
			 inc.file, looked.buf);
		goto out;
	}
	real = realpath(path, NULL);
	if (!real) {
		at_error(l, col, "cannot resolve '%s': %s", path,
			 strerror(errno));
		goto out;
	}
	for (i = 0; i < a->stack.nr; i++) {
		if (strcmp(a->stack.v[i], real))
			continue;
		for (; i < a->stack.nr; i++)
			sbuf_addf(&chain, "%s -> ", a->names.v[i]);
		sbuf_addstr(&chain, path);
		at_error(l, col, "include cycle: %s", chain.buf);
		goto out;
	}
	if (rb_read_file_max(path, JOB_FILE_MAX, &text, &len) < 0) {
		at_error(l, col, "%s", rb_errmsg());
		goto out;
	}
	a->bytes += len;
	if (a->bytes > JOB_FILE_MAX) {
		at_error(l, col,
			 "the job and its includes are larger than %u "
			 "bytes",
			 JOB_FILE_MAX);
		goto out;
	}
	split_lines(&sub, path, text, len);
	if (check_templates(&sub) < 0)
		goto out;
	revise_text(&sub, &inc, &here);
	subdir = rb_dirname(path);
	/* the include line itself stays, as its indentation only */
	lines_push(&a->out, xstrfmt("%*s", (int)indent, ""), &l->src);
	svec_push(&a->stack, real);
	svec_push(&a->names, path);
	ret = expand_lines(a, &sub, subdir, indent);
	pop(&a->stack);
	pop(&a->names);
out:
	lines_release(&sub);
	include_release(&inc);
	sbuf_release(&looked);
	sbuf_release(&chain);
	free(path);
	free(real);
	free(text);
	free(subdir);
	return ret;
}

/* Copy in to the assembly, each line indented by indent, includes expanded. */
static int expand_lines(struct assembly *a, struct lines *in, const char *dir,
			size_t indent)
{
	size_t i, ind;
	const char *content;

	for (i = 0; i < in->nr; i++) {
		struct line *l = &in->v[i];
		struct ysource src = l->src;

		if (is_include(l->text, &ind, &content)) {
			/* the include line's columns as the user wrote them */
			if (include_one(a, l, (size_t)(content - l->text),
					content, dir, indent + ind) < 0)
				return -1;
			continue;
		}
		src.shift += (int)indent;
		lines_push(&a->out,
			   indent ? xstrfmt("%*s%s", (int)indent, "", l->text) :
				    xstrdup(l->text),
			   &src);
	}
	return 0;
}

int job_include_expand(const char *file, const char *text, size_t len,
		       struct sbuf *out, struct ysource **lines,
		       size_t *nr_lines)
{
	struct assembly a = { .stack = SVEC_INIT, .names = SVEC_INIT };
	struct lines top = { 0 };
	char *dir = rb_dirname(file);
	char *real = realpath(file, NULL);
	size_t i, ind;
	const char *content;
	int ret = -1;
	bool any = false;

	split_lines(&top, file, text, len);
	if (check_templates(&top) < 0)
		goto out;
	for (i = 0; i < top.nr && !any; i++)
		any = is_include(top.v[i].text, &ind, &content);
	if (!any) {
		ret = 1;
		goto out;
	}
	svec_push(&a.stack, real ? real : file);
	svec_push(&a.names, file);
	a.bytes = len;
	if (expand_lines(&a, &top, dir, 0) < 0)
		goto out;
	*lines = xcalloc(a.out.nr + 1, sizeof(**lines));
	for (i = 0; i < a.out.nr; i++) {
		sbuf_addstr(out, a.out.v[i].text);
		sbuf_addch(out, '\n');
		(*lines)[i] = a.out.v[i].src;
	}
	*nr_lines = a.out.nr;
	ret = 0;
out:
	lines_release(&a.out);
	lines_release(&top);
	svec_clear(&a.stack);
	svec_clear(&a.names);
	free(real);
	free(dir);
	return ret;
}
