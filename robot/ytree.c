// SPDX-License-Identifier: GPL-2.0-only
/*
 * A positioned YAML tree on top of libyaml's event parser, and a writer
 * on top of its emitter. Pure: everything happens in memory.
 */
#include <yaml.h>

#include "robot.h"
#include "sbuf.h"
#include "ytree.h"

/* An alias bomb (a: &a [*a, *a] ...) must not eat the machine. */
#define YTREE_MAX_NODES 200000

int ynode_error(const char *file, const struct ynode *n, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT, msg = SBUF_INIT;
	va_list ap;

	if (n)
		sbuf_addf(&sb, "%s:%d:%d: ", n->file ? n->file : file, n->line,
			  n->col);
	else
		sbuf_addf(&sb, "%s: ", file);
	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	sbuf_add_escaped(&sb, msg.buf);
	rb_error("%s", sb.buf);
	sbuf_release(&sb);
	sbuf_release(&msg);
	return -1;
}

const char *ynode_kind_name(enum ynode_kind kind)
{
	switch (kind) {
	case YNODE_SCALAR:
		return "scalar";
	case YNODE_SEQ:
		return "list";
	case YNODE_MAP:
		return "mapping";
	}
	return "node";
}

struct ynode *ynode_new(enum ynode_kind kind, int line, int col)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = line;
	n->col = col;
	return n;
}

struct ynode *ynode_new_scalar(const char *s, int line, int col)
{
	struct ynode *n = ynode_new(YNODE_SCALAR, line, col);

	n->str = xstrdup(s);
	return n;
}

void ynode_free(struct ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr; i++) {
		if (n->keys)
			ynode_free(n->keys[i]);
		ynode_free(n->vals[i]);
	}
	free(n->keys);
	free(n->vals);
	free(n->str);
	free(n);
}

static struct ynode *copy_counted(const struct ynode *n, size_t *count)
{
	struct ynode *c;
	size_t i;

	if (!n)
		return NULL;
	(*count)++;
	c = ynode_new(n->kind, n->line, n->col);
	c->str = n->str ? xstrdup(n->str) : NULL;
	c->is_null = n->is_null;
	c->quoted = n->quoted;
	c->file = n->file;
	if (n->nr) {
		c->alloc = n->nr;
		c->nr = n->nr;
		c->vals = xcalloc(n->nr, sizeof(*c->vals));
		if (n->keys)
			c->keys = xcalloc(n->nr, sizeof(*c->keys));
		for (i = 0; i < n->nr; i++) {
			if (n->keys)
				c->keys[i] = copy_counted(n->keys[i], count);
			c->vals[i] = copy_counted(n->vals[i], count);
		}
	}
	return c;
}

struct ynode *ynode_copy(const struct ynode *n)
{
	size_t count = 0;

	return copy_counted(n, &count);
}

size_t ynode_count(const struct ynode *n)
{
	size_t i, c = 1;

	for (i = 0; i < n->nr; i++)
		c += ynode_count(n->vals[i]) + (n->keys ? 1 : 0);
	return c;
}

static void grow(struct ynode *n)
{
	if (n->nr < n->alloc)
		return;
	n->alloc = n->alloc ? n->alloc * 2 : 4;
	n->vals = xrealloc(n->vals, n->alloc * sizeof(*n->vals));
	if (n->kind == YNODE_MAP)
		n->keys = xrealloc(n->keys, n->alloc * sizeof(*n->keys));
}

void ynode_seq_push(struct ynode *seq, struct ynode *val)
{
	if (seq->kind != YNODE_SEQ)
		RB_BUG("ynode_seq_push on a %s", ynode_kind_name(seq->kind));
	grow(seq);
	seq->vals[seq->nr++] = val;
}

static void map_push_node(struct ynode *map, struct ynode *key,
			  struct ynode *val)
{
	if (map->kind != YNODE_MAP)
		RB_BUG("ynode_map_push on a %s", ynode_kind_name(map->kind));
	grow(map);
	map->keys[map->nr] = key;
	map->vals[map->nr] = val;
	map->nr++;
}

void ynode_map_push(struct ynode *map, const char *key, struct ynode *val)
{
	map_push_node(map, ynode_new_scalar(key, val->line, val->col), val);
}

long ynode_map_find(const struct ynode *map, const char *key)
{
	size_t i;

	if (!map || map->kind != YNODE_MAP)
		return -1;
	for (i = 0; i < map->nr; i++)
		if (!strcmp(map->keys[i]->str, key))
			return (long)i;
	return -1;
}

struct ynode *ynode_map_get(const struct ynode *map, const char *key)
{
	long i = ynode_map_find(map, key);

	return i < 0 ? NULL : map->vals[i];
}

void ynode_map_replace(struct ynode *map, size_t i, struct ynode *val)
{
	ynode_free(map->vals[i]);
	map->vals[i] = val;
}

void ynode_map_remove(struct ynode *map, size_t i)
{
	ynode_free(map->keys[i]);
	ynode_free(map->vals[i]);
	memmove(map->keys + i, map->keys + i + 1,
		(map->nr - i - 1) * sizeof(*map->keys));
	memmove(map->vals + i, map->vals + i + 1,
		(map->nr - i - 1) * sizeof(*map->vals));
	map->nr--;
}

void ystream_release(struct ystream *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		ynode_free(st->docs[i]);
	free(st->docs);
	free(st->file);
	memset(st, 0, sizeof(*st));
}

/* The parser's state between events. */
struct frame {
	struct ynode *node;
	struct ynode *key; /* a mapping's key waiting for its value */
	char *anchor;
};

struct anchor {
	char *name;
	const struct ynode *node;
};

struct builder {
	const char *file;
	const char *buf;
	size_t len;
	/* ytree_parse_lines: where each line of buf was written */
	const struct ysource *lines;
	size_t nr_lines;
	struct frame stack[YTREE_MAX_DEPTH + 1];
	int depth;
	struct ynode *root;
	struct anchor *anchors;
	size_t nr_anchors, alloc_anchors;
	size_t nodes;
};

/*
 * Turn a position in buf into where it was written; returns the file
 * (b->file unless the line came from another one).
 */
static const char *map_pos(const struct builder *b, int *line, int *col)
{
	const struct ysource *src;
	int past = 0;

	if (b->lines && b->nr_lines && (size_t)*line == b->nr_lines + 1) {
		/* the end of the text: just after its last line */
		*line = (int)b->nr_lines;
		past = 1;
	}
	if (!b->lines || *line < 1 || (size_t)*line > b->nr_lines)
		return b->file;
	src = &b->lines[*line - 1];
	*line = src->line + past;
	*col = *col > src->shift ? *col - src->shift : 1;
	return src->file ? src->file : b->file;
}

static void set_file(const struct builder *b, struct ynode *n, const char *file)
{
	n->file = file != b->file ? file : NULL;
}

static void set_anchor(struct builder *b, const char *name,
		       const struct ynode *n)
{
	size_t i;

	for (i = 0; i < b->nr_anchors; i++) {
		if (!strcmp(b->anchors[i].name, name)) {
			b->anchors[i].node = n;
			return;
		}
	}
	RB_ALLOC_GROW(b->anchors, b->nr_anchors + 1, b->alloc_anchors);
	b->anchors[b->nr_anchors].name = xstrdup(name);
	b->anchors[b->nr_anchors].node = n;
	b->nr_anchors++;
}

static void clear_anchors(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->nr_anchors; i++)
		free(b->anchors[i].name);
	b->nr_anchors = 0;
}

static void builder_reset(struct builder *b)
{
	int i;

	for (i = 0; i < b->depth; i++) {
		ynode_free(b->stack[i].key);
		free(b->stack[i].anchor);
	}
	b->depth = 0;
	ynode_free(b->root);
	b->root = NULL;
	clear_anchors(b);
}

/* Hang a finished (or just opened) node under the innermost container. */
static int attach(struct builder *b, struct ynode *n)
{
	struct frame *f;

	if (!b->depth) {
		b->root = n;
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (f->node->kind == YNODE_SEQ) {
		ynode_seq_push(f->node, n);
		return 0;
	}
	if (f->key) {
		long at = ynode_map_find(f->node, f->key->str);

		if (at >= 0) {
			/* a repeated key (only with b->lines): the later
			 * value at the first one's place */
			ynode_map_replace(f->node, (size_t)at, n);
			ynode_free(f->key);
		} else {
			map_push_node(f->node, f->key, n);
		}
		f->key = NULL;
		return 0;
	}
	if (n->kind != YNODE_SCALAR) {
		ynode_error(b->file, n,
			    "mapping keys must be scalars, not a %s",
			    ynode_kind_name(n->kind));
		ynode_free(n);
		return -1;
	}
	if (!b->lines && ynode_map_find(f->node, n->str) >= 0) {
		ynode_error(b->file, n, "duplicate key '%s'", n->str);
		ynode_free(n);
		return -1;
	}
	f->key = n;
	return 0;
}

static bool plain_null(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* Line and column of a byte offset (for reader errors, which have none). */
static void offset_mark(const struct builder *b, size_t off, int *line,
			int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && i < b->len; i++) {
		if (b->buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int parser_error(struct builder *b, const yaml_parser_t *p)
{
	int line = (int)p->problem_mark.line + 1;
	int col = (int)p->problem_mark.column + 1;
	const char *problem = p->problem ? p->problem : "parse error";
	const char *file;
	int cline = (int)p->context_mark.line + 1, ccol = 1;

	if (p->error == YAML_READER_ERROR) {
		offset_mark(b, p->problem_offset, &line, &col);
		file = map_pos(b, &line, &col);
		return rb_error("%s:%d:%d: malformed yaml: %s", file, line, col,
				problem);
	}
	file = map_pos(b, &line, &col);
	if (p->context) {
		map_pos(b, &cline, &ccol);
		return rb_error(
			"%s:%d:%d: malformed yaml: %s %s (from line %d)", file,
			line, col, problem, p->context, cline);
	}
	return rb_error("%s:%d:%d: malformed yaml: %s", file, line, col,
			problem);
}

static int on_event(struct builder *b, struct ystream *out,
		    const yaml_event_t *ev)
{
	int line = (int)ev->start_mark.line + 1;
	int col = (int)ev->start_mark.column + 1;
	const char *file = map_pos(b, &line, &col);
	const char *anchor = NULL;
	struct ynode *n;
	size_t i;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		builder_reset(b);
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		if (!b->root) {
			b->root = ynode_new_scalar("", line, col);
			set_file(b, b->root, file);
		}
		RB_ALLOC_GROW(out->docs, out->nr + 1, out->alloc);
		out->docs[out->nr++] = b->root;
		b->root = NULL;
		clear_anchors(b);
		return 0;
	case YAML_SCALAR_EVENT:
		n = ynode_new(YNODE_SCALAR, line, col);
		set_file(b, n, file);
		n->str = xstrndup((const char *)ev->data.scalar.value,
				  ev->data.scalar.length);
		if (strlen(n->str) != ev->data.scalar.length) {
			ynode_error(b->file, n, "NUL byte in a scalar");
			ynode_free(n);
			return -1;
		}
		n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		n->is_null = !n->quoted && plain_null(n->str);
		if (n->is_null)
			n->str[0] = '\0';
		if (ev->data.scalar.anchor)
			set_anchor(b, (const char *)ev->data.scalar.anchor, n);
		break;
	case YAML_ALIAS_EVENT:
		anchor = (const char *)ev->data.alias.anchor;
		for (i = 0; i < b->nr_anchors; i++)
			if (!strcmp(b->anchors[i].name, anchor))
				break;
		if (i == b->nr_anchors)
			return rb_error("%s:%d:%d: unknown or unfinished "
					"anchor '%s'",
					file, line, col, anchor);
		b->nodes += ynode_count(b->anchors[i].node);
		if (b->nodes > YTREE_MAX_NODES)
			return rb_error("%s:%d:%d: too many nodes (more than "
					"%d after expanding aliases)",
					file, line, col, YTREE_MAX_NODES);
		n = ynode_copy(b->anchors[i].node);
		n->line = line;
		n->col = col;
		set_file(b, n, file);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth >= YTREE_MAX_DEPTH)
			return rb_error("%s:%d:%d: nesting deeper than %d "
					"levels",
					file, line, col, YTREE_MAX_DEPTH);
		n = ynode_new(ev->type == YAML_SEQUENCE_START_EVENT ?
				      YNODE_SEQ :
				      YNODE_MAP,
			      line, col);
		set_file(b, n, file);
		anchor = ev->type == YAML_SEQUENCE_START_EVENT ?
				 (const char *)ev->data.sequence_start.anchor :
				 (const char *)ev->data.mapping_start.anchor;
		if (attach(b, n) < 0)
			return -1;
		b->stack[b->depth].node = n;
		b->stack[b->depth].key = NULL;
		b->stack[b->depth].anchor = anchor ? xstrdup(anchor) : NULL;
		b->depth++;
		b->nodes++;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		b->depth--;
		if (b->stack[b->depth].anchor) {
			set_anchor(b, b->stack[b->depth].anchor,
				   b->stack[b->depth].node);
			free(b->stack[b->depth].anchor);
			b->stack[b->depth].anchor = NULL;
		}
		return 0;
	default:
		return 0;
	}
	if (++b->nodes > YTREE_MAX_NODES) {
		ynode_free(n);
		return rb_error("%s:%d:%d: too many nodes (more than %d)", file,
				line, col, YTREE_MAX_NODES);
	}
	return attach(b, n);
}

const char *ytree_intern(const char *s)
{
	/* a few file names a run; reachable until exit */
	static char **names;
	static size_t nr, alloc;
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], s))
			return names[i];
	RB_ALLOC_GROW(names, nr + 1, alloc);
	names[nr] = xstrdup(s);
	return names[nr++];
}

int ytree_parse(struct ystream *out, const char *file, const char *buf,
		size_t len)
{
	return ytree_parse_lines(out, file, buf, len, NULL, 0);
}

int ytree_parse_lines(struct ystream *out, const char *file, const char *buf,
		      size_t len, const struct ysource *lines, size_t nr_lines)
{
	struct builder b = { .file = file,
			     .buf = buf,
			     .len = len,
			     .lines = lines,
			     .nr_lines = nr_lines };
	yaml_parser_t parser;
	yaml_event_t ev;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->file = xstrdup(file);
	if (!yaml_parser_initialize(&parser))
		rb_die("out of memory initialising the yaml parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	for (;;) {
		bool done;

		if (!yaml_parser_parse(&parser, &ev)) {
			ret = parser_error(&b, &parser);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		ret = on_event(&b, out, &ev);
		yaml_event_delete(&ev);
		if (ret < 0 || done)
			break;
	}
	yaml_parser_delete(&parser);
	builder_reset(&b);
	free(b.anchors);
	if (ret < 0) {
		char *keep = xstrdup(rb_errmsg());

		ystream_release(out);
		rb_error("%s", keep);
		free(keep);
	}
	return ret;
}

/* The emitter's output goes into an sbuf. */
static int write_sbuf(void *data, unsigned char *buffer, size_t size)
{
	return sbuf_add(data, buffer, size) == 0;
}

/*
 * Quoted: what was quoted, what would read back as null, and "<<" (a
 * plain "<<:" line is lkp's include, job-include.c: a key "<<" made by a
 * dotted key, "a.<<: x", must read back as the key it is).
 */
static bool needs_quotes(const struct ynode *n)
{
	return n->quoted || plain_null(n->str) || !strcmp(n->str, "<<");
}

static int emit_node(yaml_emitter_t *em, const struct ynode *n)
{
	yaml_event_t ev;
	size_t i;

	switch (n->kind) {
	case YNODE_SCALAR: {
		const char *s = n->is_null ? "~" : n->str;
		yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;

		if (!n->is_null && needs_quotes(n))
			style = YAML_SINGLE_QUOTED_SCALAR_STYLE;
		if (n->is_null)
			style = YAML_PLAIN_SCALAR_STYLE;
		yaml_scalar_event_initialize(&ev, NULL, NULL,
					     (yaml_char_t *)(uintptr_t)s,
					     (int)strlen(s), 1, 1, style);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	}
	case YNODE_SEQ:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
						     YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		for (i = 0; i < n->nr; i++)
			if (emit_node(em, n->vals[i]) < 0)
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	case YNODE_MAP:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						    YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		for (i = 0; i < n->nr; i++)
			if (emit_node(em, n->keys[i]) < 0 ||
			    emit_node(em, n->vals[i]) < 0)
				return -1;
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	}
	return -1;
}

int ynode_emit(const struct ynode *root, struct sbuf *out)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	struct sbuf tmp = SBUF_INIT;
	int ret = -1;

	if (!yaml_emitter_initialize(&em))
		rb_die("out of memory initialising the yaml emitter");
	yaml_emitter_set_output(&em, write_sbuf, &tmp);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_indent(&em, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	if (!yaml_emitter_emit(&em, &ev) || emit_node(&em, root) < 0)
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&em, &ev) || !yaml_emitter_flush(&em))
		goto out;
	/* an open-ended stream ends in "...": one document needs none */
	if (rb_ends_with(tmp.buf, "...\n"))
		sbuf_setlen(&tmp, tmp.len - 4);
	ret = sbuf_add(out, tmp.buf, tmp.len);
out:
	if (ret < 0)
		rb_error("cannot write yaml: %s",
			 em.problem ? em.problem : "output too large");
	yaml_emitter_delete(&em);
	sbuf_release(&tmp);
	return ret;
}
