/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_YTREE_H
#define ROBOT_YTREE_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/*
 * A small YAML tree in which every node remembers where it was written,
 * so that errors about job and lab files can say FILE:LINE:COL.
 *
 * Built from libyaml's event API (ytree_parse). Scalars are kept as text
 * (no int/bool typing: the schema decides what a value means); tags are
 * dropped; anchors and aliases are resolved by copying the anchored node.
 * Mapping keys are scalars and unique within their mapping.
 *
 * Ownership: a node owns its children. ynode_free() frees a whole subtree
 * (NULL is a no-op). Lines and columns are 1-based.
 */
enum ynode_kind {
	YNODE_SCALAR,
	YNODE_SEQ,
	YNODE_MAP,
};

struct ynode {
	enum ynode_kind kind;
	int line, col;
	/* YNODE_SCALAR: the text ("" for a null) */
	char *str;
	/* a plain empty, `~` or `null` scalar */
	bool is_null;
	/* written quoted ('x' or "x"): a string, never a null */
	bool quoted;
	/*
	 * The file the node was written in when it is not the one parsed
	 * (an included file, see ytree_parse_lines); NULL otherwise. Interned
	 * (ytree_intern), never freed.
	 */
	const char *file;
	/*
	 * YNODE_SEQ: vals[0..nr); YNODE_MAP: keys[i] -> vals[i], keys in
	 * the order of the file (keys[i] are scalars).
	 */
	struct ynode **keys;
	struct ynode **vals;
	size_t nr, alloc;
};

/* The documents of one YAML stream (one file). */
struct ystream {
	char *file;
	struct ynode **docs;
	size_t nr, alloc;
};

#define YSTREAM_INIT \
	{            \
		0    \
	}

/* Deepest nesting ytree_parse accepts. */
#define YTREE_MAX_DEPTH 64

/*
 * Parse buf (len bytes) into out. `file` names the input in errors.
 * Returns 0, or -1 with "FILE:LINE:COL: message" as the error.
 */
int ytree_parse(struct ystream *out, const char *file, const char *buf,
		size_t len);
void ystream_release(struct ystream *st);

/*
 * Where a line of a text assembled from several files (lkp's `<<:`
 * includes) was written: its file, its line there, and how many columns
 * were added in front of it.
 */
struct ysource {
	const char *file;
	int line;
	int shift;
};

/*
 * ytree_parse of a text whose line i (0-based) comes from lines[i]:
 * nodes and errors carry the positions where each line was written. As
 * in lkp (Ruby's YAML), a key written twice in one mapping keeps its
 * first place and takes the later value.
 */
int ytree_parse_lines(struct ystream *out, const char *file, const char *buf,
		      size_t len, const struct ysource *lines, size_t nr_lines);

/* A copy of s that lives as long as the process (file names of nodes). */
const char *ytree_intern(const char *s);

struct ynode *ynode_new(enum ynode_kind kind, int line, int col);
struct ynode *ynode_new_scalar(const char *s, int line, int col);
void ynode_free(struct ynode *n);
struct ynode *ynode_copy(const struct ynode *n);
/* The nodes of a subtree, mapping keys included. */
size_t ynode_count(const struct ynode *n);
/* "scalar", "list" or "mapping" */
const char *ynode_kind_name(enum ynode_kind kind);

/* Append to a sequence; the node takes ownership of val. */
void ynode_seq_push(struct ynode *seq, struct ynode *val);
/* Append a key (copied into a scalar node at val's position). */
void ynode_map_push(struct ynode *map, const char *key, struct ynode *val);
/* Index of key in a mapping, or -1. */
long ynode_map_find(const struct ynode *map, const char *key);
/* The value of key, or NULL. */
struct ynode *ynode_map_get(const struct ynode *map, const char *key);
/* Replace the value at index i (the old value is freed). */
void ynode_map_replace(struct ynode *map, size_t i, struct ynode *val);
/* Remove entry i (key and value freed). */
void ynode_map_remove(struct ynode *map, size_t i);

/*
 * Append root as one YAML document ("---" first) to out, block style.
 * Null scalars are written as `~`; other scalars are quoted whenever a
 * plain scalar would read back differently. 0 or -1.
 */
int ynode_emit(const struct ynode *root, struct sbuf *out);

/*
 * "FILE:LINE:COL: " + message as the error (FILE: the node's own file
 * when it has one); returns -1.
 */
int ynode_error(const char *file, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
