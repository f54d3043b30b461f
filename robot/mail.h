/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_MAIL_H
#define ROBOT_MAIL_H

#include <stdbool.h>
#include <stddef.h>

struct svec;

/*
 * Delivery of one RFC 5322 message over SMTP with libcurl: the adapter
 * for "mail". The envelope comes from the message itself (the first From
 * address; every To, Cc and Bcc address, plus extra Bcc addresses given
 * here); Bcc headers are not transmitted. See rb_mail_envelope().
 *
 * The password never leaves this file: it is read from an environment
 * variable or from a file only its owner can read, handed to libcurl,
 * and wiped from our memory afterwards. No message we produce carries it
 * (libcurl's own trace is captured, never printed: only the server's
 * replies are kept, to name the reason of a failure).
 */
struct rb_smtp {
	/*
	 * smtp://HOST[:PORT][/EHLO-NAME] or smtps://HOST[:PORT]: smtps is
	 * TLS from the first byte (port 465), smtp may be upgraded with
	 * STARTTLS. A password inside the URL is refused.
	 */
	const char *url;
	bool starttls; /* smtp://: STARTTLS required (CURLUSESSL_ALL) */
	const char *ca_file; /* trust this CA file (self-signed test certs) */
	const char *user; /* log in as; NULL: no login */
	const char *password_env; /* the password is in this variable... */
	const char *password_file; /* ...or in this file (mode 0600) */
	long timeout; /* seconds for the whole delivery; 0: 120 */
};

/*
 * Deliver msg (as rendered: "\n" or "\r\n" line ends). extra_bcc may be
 * NULL. Returns 0 once the server accepted the message, else -1 with one
 * line in rb_errmsg(), e.g.
 *   smtp authentication failed (535 5.7.8 Authentication credentials invalid)
 */
int rb_mail_send(const struct rb_smtp *smtp, const char *msg, size_t len,
		 const struct svec *extra_bcc);

/*
 * The password of smtp->user, as rb_mail_send() reads it: a new string
 * the caller wipes (rb_mail_password_free). -1 with an error when the
 * variable is unset, the file unreadable or open to group or others.
 */
int rb_mail_password(const struct rb_smtp *smtp, char **out);
void rb_mail_password_free(char *password);

/* Check the options without connecting (URL shape, login settings). */
int rb_mail_check(const struct rb_smtp *smtp);

#endif
