/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_UTIL_H
#define ROBOT_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Errors: a failing function stores one message with rb_error() and returns
 * a negative value (rb_error() itself returns -1, so `return rb_error(...)`
 * is the idiom). Callers that cannot handle the failure propagate the
 * return value and leave the message alone; an adapter may prefix the
 * library's own text once. Only robot/cli/ and the nightly loop print the
 * message (rb_error_print) and exit.
 *
 * The message lives in a thread-local buffer: it stays valid until the
 * next rb_error() on the same thread.
 */
int rb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int rb_verror(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
/* Prefix the stored message with "PREFIX: " (printf-style prefix). */
int rb_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The stored message, or "unknown error" when none was set. */
const char *rb_errmsg(void);
void rb_error_clear(void);
/* Print "robot: error: <msg>" (or "<msg>" when it already carries a
 * file:line:col location) to stderr. */
void rb_error_print(void);

/* Warnings and notices go straight to stderr: "robot: warning: ...". */
void rb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rb_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list. */
void rb_vnotice(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
/*
 * A notice to f, on a terminal (tty) over the status line that was there
 * ("\r", erase to the end of the line, then the notice).
 */
void rb_vnotice_to(FILE *f, bool tty, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Fatal: print and exit 128. For "cannot happen" use RB_BUG. */
void rb_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void rb_bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define RB_BUG(...) rb_bug_at(__FILE__, __LINE__, __VA_ARGS__)

/* Allocation that never returns NULL (dies on exhaustion). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrvfmt(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));
/* Grow *p (of *alloc elements of size sz) to hold at least n elements. */
#define RB_ALLOC_GROW(p, n, alloc)                                     \
	do {                                                           \
		if ((n) > (alloc)) {                                   \
			size_t rb_ag_new = (alloc) ? (alloc)*2 : 8;    \
			if (rb_ag_new < (n))                           \
				rb_ag_new = (n);                       \
			(p) = xrealloc((p), rb_ag_new * sizeof(*(p))); \
			(alloc) = rb_ag_new;                           \
		}                                                      \
	} while (0)

/*
 * A stop was asked for (SIGINT, SIGTERM: cli/interrupt.c): threads that
 * report results stop reporting, so that a run the signal cut short never
 * becomes a verdict.
 */
void rb_stop_request(void);
bool rb_stop_requested(void);

/*
 * A confidence (0..1) as people read it, everywhere the robot shows one:
 * a percentage with two decimals, rounded down, so that 0.99996 is
 * "99.99%" and never "100.00%" unless it is 1 ("99.98%" in the mail and
 * on stdout alike). buf of 16 bytes at least.
 */
void rb_fmt_confidence(char *buf, size_t n, double c);
/* A p-value, the same everywhere: "p = 0.0123", "p < 0.0001". */
void rb_fmt_p(char *buf, size_t n, double p);

/* String helpers. */
bool rb_starts_with(const char *s, const char *prefix);
bool rb_ends_with(const char *s, const char *suffix);
/*
 * Levenshtein distance of two strings of up to 64 bytes ((size_t)-1 for
 * longer ones), and the candidate closest to a misspelt word for a "did
 * you mean" hint: at most 2 edits away and at most half the word's length
 * plus one (so "x" does not suggest "y"), or NULL.
 */
size_t rb_edit_distance(const char *a, const char *b);
const char *rb_suggest(const char *word, const char *const *cands, size_t n);
/*
 * Refuse a name that is none of cands: "unknown WHAT 'word' (did you mean
 * 'x'?)" with rb_suggest's hint, else "unknown WHAT 'word': why" (why NULL
 * or "": nothing after the name). Returns -1 as rb_error() does.
 */
int rb_error_unknown(const char *what, const char *word,
		     const char *const *cands, size_t n, const char *why);
/* Parse a whole string as a base-10 integer / double; 0 or -1. */
int rb_parse_long(const char *s, long *out);
int rb_parse_double(const char *s, double *out);
/*
 * A size: digits with an optional K, M, G or T (powers of 1024, an
 * optional trailing B or iB: "20G", "512MiB", "4096"). 0 or -1.
 */
int rb_parse_size(const char *s, uint64_t *out);
/*
 * Whether s is text a terminal shows as it is: valid UTF-8 without
 * control characters (C0, DEL, C1: no escape sequence, no line end).
 */
bool rb_is_clean_text(const char *s);
/*
 * Walk a text line by line: the line at *p (*len bytes, its "\n" left
 * out; a last line without one counts), *p moved past it. false at the end.
 */
bool rb_next_line(const char **p, const char **line, size_t *len);
/* true when s is 40 lowercase hex digits */
bool rb_is_sha1_hex(const char *s);

/* Files. */
/* Read a whole file; NUL-terminated; *len excludes the NUL. 0 or -1. */
int rb_read_file(const char *path, char **buf, size_t *len);
/* The same, refusing ("'PATH' is larger than N MiB") files over max bytes. */
int rb_read_file_max(const char *path, size_t max, char **buf, size_t *len);
/*
 * Write atomically: PATH.lock, fsync, rename (git's lockfile). 0 or -1.
 * A PATH.lock already there is taken for a killed robot's (the workdir
 * lock keeps other robots out): two threads must not write one PATH.
 */
int rb_write_file_atomic(const char *path, const void *buf, size_t len);
/* Copy a file to another path, atomically as above. 0 or -1. */
int rb_copy_file(const char *from, const char *to);
/*
 * A secret kept in a file (a password, an API token): a regular file the
 * user running robot owns and nobody else may read (opened without
 * following a symlink), one line of at most 4 KiB; *out malloc'd (the
 * caller wipes it). -1 with "<what> file 'PATH' ..." otherwise.
 */
int rb_read_secret_file(const char *path, const char *what, char **out);
/* mkdir -p with mode 0755; 0 or -1. */
int rb_mkdir_p(const char *path);
/* rm -rf; 0 or -1. Refuses "/" and "". */
int rb_remove_tree(const char *path);
bool rb_file_exists(const char *path);
bool rb_is_executable(const char *path);
/* dirname of path into a new string ("." when there is no slash). */
char *rb_dirname(const char *path);
/* Join dir and name unless name is absolute. */
char *rb_path_join(const char *dir, const char *name);
/* Absolute, normalised path of an existing file (realpath); NULL + error. */
char *rb_realpath(const char *path);

/* Time: seconds since the epoch as a double, and a monotonic clock. */
double rb_now(void);
double rb_monotonic(void);
/* Sleep for seconds (a fraction too). */
void rb_sleep(double seconds);
/* Now in UTC as "2026-01-05T02:00:03Z" into buf (at least 21 bytes). */
void rb_utc_stamp(char *buf, size_t len);

#endif
