/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SCHEMA_H
#define ROBOT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "ytree.h"

/*
 * One table of rows describes a file format (fio's options.c): each row
 * names a key, its type, where its value lands in the target struct, its
 * default, its allowed values and an extra check. One generic parser
 * (schema_parse) reads a positioned YAML mapping through the table and
 * reports every problem as "FILE:LINE:COL: message".
 *
 * A table ends with a row whose name is NULL.
 */

/* An ordered list of owned key/value strings (payload options). */
struct kv {
	char *key;
	char *val;
	/* one of the payload's declared options (test, method, ...) */
	bool declared;
};

struct kvlist {
	struct kv *v;
	size_t nr, alloc;
};

#define KVLIST_INIT \
	{           \
		0   \
	}

void kvlist_push(struct kvlist *l, const char *key, const char *val,
		 bool declared);
/* The value of key, or NULL. */
const char *kvlist_get(const struct kvlist *l, const char *key);
void kvlist_copy(struct kvlist *dst, const struct kvlist *src);
void kvlist_clear(struct kvlist *l);

/* Is s one of the NULL-terminated list? */
bool schema_in_list(const char *const *list, const char *s);

enum schema_type {
	SCH_STR, /* char * */
	SCH_PATH, /* char *, relative values joined to ctx->dir */
	SCH_LONG, /* long */
	SCH_BOOL, /* bool: true/false, yes/no, on/off */
	SCH_DURATION, /* long seconds (60s, 5m, 1h, 1d or seconds) */
	SCH_STRLIST, /* struct svec; a scalar is a one-element list */
	SCH_MAP, /* a mapping read by the sub table at base + off */
	SCH_SEQ, /* a list of mappings: void * at off, size_t count at
		    off2, elements of elem_size read by the sub table */
	SCH_RAW, /* struct ynode * (a copy of the subtree) */
	SCH_IGNORE, /* accepted and dropped (keys the robot writes) */
	SCH_PAYLOAD, /* a payload section: its name (char *) at off, every
			option in order into the struct kvlist at off2; the
			sub table declares its options (check validates the
			other, pass-through, values) */
};

/* Row flags */
#define SCH_F_REQUIRED 0x1
/* a list of values is a matrix axis (job files) */
#define SCH_F_EXPAND 0x2
/* SCH_DURATION: also keep the text (char *) at off2 */
#define SCH_F_TEXT 0x4
/* validated and listed (payload options) but stored nowhere else */
#define SCH_F_NOFIELD 0x8
/* part of the job's path params (job files) */
#define SCH_F_PARAM 0x10

struct schema_ctx;

struct schema_row {
	const char *name;
	enum schema_type type;
	size_t off;
	size_t off2;
	/* default, written as in the file ("2h", "robot-work", "false") */
	const char *def;
	/* NULL-terminated list of the only values accepted */
	const char *const *allowed;
	/*
	 * SCH_PAYLOAD: NULL-terminated list of pass-through option names
	 * refused (those that name files or paths on the box)
	 */
	const char *const *refused;
	/* extra check of a scalar value: 0, or -1 with the error set */
	int (*check)(const struct schema_ctx *ctx, const struct ynode *n,
		     const char *val);
	unsigned flags;
	const struct schema_row *sub;
	size_t elem_size;
	/* one line for the README and error hints */
	const char *help;
};

struct schema_ctx {
	/* the file named in errors */
	const char *file;
	/* relative SCH_PATH values are joined to this */
	const char *dir;
	/*
	 * Unknown top-level keys: NULL makes them an error, otherwise they
	 * are copied, in order, into this mapping.
	 */
	struct ynode *unknown;
};

/*
 * Read map (a YNODE_MAP; NULL applies the defaults only) into base
 * through table. `section` names the mapping in messages (NULL at the
 * top). A NULL map is an absent section: defaults apply, required keys
 * are not enforced. `where` locates errors about the mapping itself.
 * 0, or -1 with "FILE:LINE:COL: message".
 */
int schema_parse(const struct schema_row *table, const struct ynode *map,
		 void *base, const struct schema_ctx *ctx, const char *section,
		 const struct ynode *where);
/* Free what schema_parse stored in base. */
void schema_release(const struct schema_row *table, void *base);
/* The row called name, or NULL. */
const struct schema_row *schema_find(const struct schema_row *table,
				     const char *name);

/*
 * "60s", "5m", "1h", "1d" or plain seconds into *secs. 0, or -1 with a
 * message (no location) when the text is not a non-negative whole time.
 */
int schema_parse_duration(const char *s, long *secs);
/* A .check for durations of at least a second ("what" names the key). */
int schema_check_seconds(const struct schema_ctx *ctx, const struct ynode *n,
			 const char *what, const char *val);

/* The closest row name to a misspelt key, or NULL (for hints). */
const char *schema_suggest(const struct schema_row *table, const char *key);

#endif
