// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mail headers from text the robot does not control (commit subjects,
 * author names and addresses, lab mail settings), and the SMTP envelope
 * of a message. The input is split at NUL bytes: the first part picks
 * what to build, then texts, or name/address pairs. Promises: the
 * header block is one field (or one per header asked for), printable
 * ASCII folded at whitespace, lines <= 998 octets, encoded words <= 75
 * characters; an envelope has CRLF line ends only.
 */
#include "robot.h"
#include "report.h"
#include "sbuf.h"
#include "svec.h"

#include "fuzz.h"

#define MAX_ADDRS 8

static void check_block(const struct sbuf *h, int want_fields)
{
	const char *why = NULL;
	int n = fuzz_header_fields(h->buf, h->len, &why);

	fuzz_check(n >= 0, "%s in:\n%s", why, h->buf);
	fuzz_check(n == want_fields, "%d header fields, not %d:\n%s", n,
		   want_fields, h->buf);
}

static void check_envelope(const char *msg, size_t len)
{
	struct rb_envelope env = RB_ENVELOPE_INIT;
	size_t i;

	if (rb_mail_envelope(&env, msg, len) == 0) {
		const struct sbuf *d = &env.data;

		fuzz_check(d->len >= 2 && d->buf[d->len - 2] == '\r' &&
				   d->buf[d->len - 1] == '\n',
			   "the data does not end in CRLF");
		for (i = 0; i < d->len; i++) {
			if (d->buf[i] == '\n')
				fuzz_check(i && d->buf[i - 1] == '\r',
					   "a bare LF at %zu", i);
			if (d->buf[i] == '\r')
				fuzz_check(i + 1 < d->len &&
						   d->buf[i + 1] == '\n',
					   "a bare CR at %zu", i);
		}
		fuzz_check(env.rcpt.nr > 0 && env.from,
			   "an envelope without sender or recipients");
	}
	rb_envelope_release(&env);
}

int fuzz_mail_header(const uint8_t *data, size_t size)
{
	struct svec part = SVEC_INIT;
	struct sbuf h = SBUF_INIT;
	struct rb_mail_addr a[MAX_ADDRS];
	char *all = fuzz_string(data, size);
	size_t i, n, at = 0;

	/* the parts: NUL-separated (the copy ends in one more NUL) */
	while (at <= size && part.nr < 2 * MAX_ADDRS + 1) {
		svec_push(&part, all + at);
		at += strlen(all + at) + 1;
	}
	switch (part.nr ? (unsigned char)part.v[0][0] % 4 : 0) {
	case 0:
		/* an unstructured header: Subject */
		rb_mail_header_text(&h, "Subject",
				    part.nr > 1 ? part.v[1] : "");
		check_block(&h, 1);
		break;
	case 1:
		/* mailboxes: To */
		for (i = 1, n = 0; i + 1 < part.nr && n < MAX_ADDRS; i += 2) {
			a[n].name = part.v[i];
			a[n].email = part.v[i + 1];
			n++;
		}
		if (n && rb_mail_header_addrs(&h, "To", a, n) == 0)
			check_block(&h, 1);
		break;
	case 2: {
		/* a whole message from the outbox (after the first part) */
		size_t skip = strlen(all) + 1;

		if (skip <= size)
			check_envelope(all + skip, size - skip);
		break;
	}
	default: {
		/* the address list of a header value */
		struct svec out = SVEC_INIT;

		if (part.nr > 1 &&
		    rb_mail_parse_addresses(&out, part.v[1]) == 0)
			for (i = 0; i < out.nr; i++)
				fuzz_check(rb_mail_check_address(out.v[i]) == 0,
					   "'%s' parsed but not valid",
					   out.v[i]);
		svec_clear(&out);
		break;
	}
	}
	sbuf_release(&h);
	svec_clear(&part);
	free(all);
	return 0;
}
