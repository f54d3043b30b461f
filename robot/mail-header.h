/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_MAIL_HEADER_H
#define ROBOT_MAIL_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"
#include "svec.h"

/*
 * Mail headers, pure: the one home of rb_mail_* (RFC 5322 and RFC 2047).
 * Every text that comes from a commit or a job goes through
 * rb_mail_sanitize(): control characters (CR, LF, TAB, ...) become spaces,
 * runs of white space one space, invalid UTF-8 U+FFFD, so a subject
 * "x\r\nBcc: victim@example.org" stays inside its own header. Headers fold
 * at 78 columns and non-ASCII words in them become encoded-words (Q
 * encoding, UTF-8). The other direction too: a header's value, an address
 * list, and the SMTP envelope of a message.
 */

#define RB_MAIL_LINE_MAX 998 /* octets per line without CRLF, RFC 5322 */
#define RB_MAIL_FOLD_COLS 78 /* where headers fold */
#define RB_MAIL_ADDR_MAX 254 /* octets of an addr-spec, RFC 5321 */
/* the longest word a header carries as it is (lines stay under 998) */
#define RB_MAIL_WORD_MAX 900

/* One mailbox: name may be NULL or "" (the bare address is written). */
struct rb_mail_addr {
	const char *name;
	const char *email;
};

/*
 * A Message-ID "<YYYYMMDDHHMM.<8hex>-robot@<domain>>": the local time of
 * `when` (at tz_minutes) and `rnd` as 8 hex digits; the caller makes the
 * pair unique (a random rnd per mail). 0, or -1 for an invalid domain.
 */
int rb_report_message_id(struct sbuf *out, int64_t when, int tz_minutes,
			 uint32_t rnd, const char *domain);

/* An RFC 5322 date "Tue, 10 Jun 2025 22:38:45 +0800". 0 or -1. */
int rb_mail_date(struct sbuf *out, int64_t when, int tz_minutes);

/*
 * Header primitives, exposed for the tests and for other mails.
 *
 * rb_mail_sanitize: s as one line of valid UTF-8 (see above), trimmed.
 * rb_mail_header_text: "Name: text\n", text sanitized, RFC 2047-encoded
 *   where needed (unstructured) and folded at 78 columns.
 * rb_mail_header_addrs: "Name: a, b\n" from mailboxes, names encoded as
 *   phrases (quoted when they hold specials), folded after commas.
 *   -1 for an invalid address.
 * rb_mail_check_address: 0 when email is a plain ASCII addr-spec we are
 *   willing to put in a header and in an SMTP envelope, else -1 + error.
 */
void rb_mail_sanitize(struct sbuf *out, const char *s);
void rb_mail_header_text(struct sbuf *out, const char *name, const char *text);
int rb_mail_header_addrs(struct sbuf *out, const char *name,
			 const struct rb_mail_addr *a, size_t n);
int rb_mail_check_address(const char *email);

/*
 * A mailbox as the lab file writes one (mail.from, to, cc): "Name
 * <email>", "\"Name\" <email>" or a bare "email".
 *
 * rb_mail_split_mailbox: split s in place; a->email (and a->name, NULL
 *   when there is none) point into s. Nothing is checked.
 * rb_mail_check_mailbox: 0 when the address rb_mail_split_mailbox finds
 *   in text passes rb_mail_check_address (the mail's own check, made
 *   again when the mail is drafted), else -1 + error.
 */
void rb_mail_split_mailbox(char *s, struct rb_mail_addr *a);
int rb_mail_check_mailbox(const char *text);

/*
 * The SMTP side of a message: the envelope sender (the first From
 * address), the recipients (To, Cc and Bcc addresses, each once, in that
 * order) and the data to transmit (CRLF line ends, Bcc headers left
 * out, ending in CRLF). rb_mail_envelope() refuses NUL bytes, lines over
 * 998 octets, a missing From or no recipient; on failure env is left
 * released.
 */
struct rb_envelope {
	char *from;
	struct svec rcpt;
	struct sbuf data;
};

#define RB_ENVELOPE_INIT                             \
	{                                            \
		.rcpt = SVEC_INIT, .data = SBUF_INIT \
	}

int rb_mail_envelope(struct rb_envelope *env, const char *msg, size_t len);
void rb_envelope_release(struct rb_envelope *env);

/*
 * The value of the first header `name` (case-insensitive), unfolded, or
 * NULL. A new string.
 */
char *rb_mail_header_get(const char *msg, size_t len, const char *name);

/* Split an address-list header value into addr-specs. 0 or -1. */
int rb_mail_parse_addresses(struct svec *out, const char *value);

/* Helpers the report body shares. */
/*
 * A Message-ID we accept: "<left@right>" of the characters that are safe
 * in a file name and in a URL, so that the outbox and the archive can use
 * it as it is.
 */
int rb_mail_check_message_id(const char *mid);
bool rb_mail_same_address(const char *a, const char *b);
/*
 * The same for a line whose spacing matters (the table, the command to
 * reproduce): tabs stay, other controls and invalid bytes become '?'.
 */
void rb_mail_sanitize_keep_spacing(struct sbuf *out, const char *s, size_t n);
char *rb_mail_sanitized(const char *s);
/* Display columns of UTF-8 text: one per character. */
size_t rb_mail_utf8_cols(const char *s, size_t n);

#endif
