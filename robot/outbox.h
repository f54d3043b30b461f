/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_OUTBOX_H
#define ROBOT_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

/*
 * The outbox: a directory (the workdir's outbox/) that keeps every mail
 * the robot drafts, as <id>.eml, next to <id>.state, a few "name: value"
 * lines:
 *
 *   state: sent            drafted | sending | sent | failed
 *   key: <culprit>/<stat>/<job>
 *   time: 2025-06-10T14:39:01Z      (UTC, of the last change)
 *   attempts: 1
 *   reason: smtp authentication failed (535 ...)     (failed, sending)
 *
 * <id> is the Message-ID without its angle brackets. Both files are
 * written with rb_write_file_atomic(); the .eml first, so a state always
 * has its mail. Every change happens under an flock() of <dir>/.lock, so
 * two robots never send the same mail.
 *
 * Dedup: a key names what the mail is about (culprit + stat + job). The
 * outbox holds at most one mail per key, and a mail is never sent twice:
 * sending a sent mail does nothing. A "sending" state is an attempt that
 * was interrupted (the robot died during the SMTP transaction): whether
 * the server took the mail is unknown, so it is not sent again unless
 * forced.
 *
 * A bisection's stored result names its mail's path ("mail",
 * bisection_set_mail); the outbox stays the one place that knows what
 * was sent.
 */
enum rb_outbox_state {
	RB_OUTBOX_DRAFTED,
	RB_OUTBOX_SENDING,
	RB_OUTBOX_SENT,
	RB_OUTBOX_FAILED,
};

struct rb_outbox_entry {
	char *id;
	char *key; /* "" for a mail whose state file was lost */
	enum rb_outbox_state state;
	char *time; /* "" when never recorded */
	char *reason; /* "" unless failed or sending */
	unsigned attempts;
};

struct rb_outbox {
	char *dir;
};

#define RB_OUTBOX_INIT \
	{              \
		NULL   \
	}

const char *rb_outbox_state_name(enum rb_outbox_state s);

/* Use (and create) the outbox directory. 0 or -1. */
int rb_outbox_open(struct rb_outbox *ob, const char *dir);
void rb_outbox_release(struct rb_outbox *ob);

/* The dedup key "<culprit>/<stat>/<job>"; -1 when a part is empty. */
int rb_outbox_key(struct sbuf *out, const char *culprit, const char *stat,
		  const char *job);

/*
 * Keep a rendered mail as drafted under key. Its id comes from its
 * Message-ID header. When the outbox already holds a mail for key,
 * nothing is written: *id is that mail's id and *existing is set.
 * 0 or -1.
 */
int rb_outbox_add(struct rb_outbox *ob, const char *key, const char *msg,
		  size_t len, char **id, bool *existing);

/* Every mail, sorted by id. 0 or -1. */
int rb_outbox_list(struct rb_outbox *ob, struct rb_outbox_entry **v,
		   size_t *nr);
void rb_outbox_entries_free(struct rb_outbox_entry *v, size_t nr);

/* One mail's state; -1 with "no mail 'ID' in the outbox" when absent. */
int rb_outbox_get(struct rb_outbox *ob, const char *id,
		  struct rb_outbox_entry *e);
void rb_outbox_entry_release(struct rb_outbox_entry *e);

/* The mail itself. 0 or -1. */
int rb_outbox_read(struct rb_outbox *ob, const char *id, char **msg,
		   size_t *len);

/*
 * Send one mail with deliver (rb_mail_send behind a closure in real use).
 * Returns 0 when delivered now; 1 when nothing was done because the mail,
 * or another one with its key, was sent already (*sent_as names it and
 * *sent_time says when; both new strings, may be NULL); -1 on failure:
 * delivery errors are recorded as "failed" with the reason and left in
 * rb_errmsg(). A "sending" mail is refused unless RB_OUTBOX_FORCE.
 */
typedef int (*rb_outbox_deliver_fn)(void *ctx, const char *msg, size_t len);

enum { RB_OUTBOX_FORCE = 1 };

int rb_outbox_send(struct rb_outbox *ob, const char *id,
		   rb_outbox_deliver_fn deliver, void *ctx, unsigned flags,
		   char **sent_as, char **sent_time);

#endif
