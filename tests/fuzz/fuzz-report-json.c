// SPDX-License-Identifier: GPL-2.0-only
/*
 * A report JSON as `robot outbox draft` takes it: parsed, dated and
 * identified when it does not say, rendered into the mail, then the
 * envelope taken from it. Promises: a refusal names the source; a
 * rendered mail's header block is clean ASCII, folded, lines <= 998
 * octets, and the mail gives an envelope.
 */
#include "robot.h"
#include "report-json.h"
#include "report.h"
#include "sbuf.h"

#include "fuzz.h"

#define SRC "report.json"

int fuzz_report_json(const uint8_t *data, size_t size)
{
	struct rb_report_doc doc;
	struct sbuf mail = SBUF_INIT, mid = SBUF_INIT;
	struct rb_envelope env = RB_ENVELOPE_INIT;
	const char *end, *why = NULL;

	if (rb_report_doc_parse(&doc, SRC, (const char *)data, size) < 0) {
		const char *e = rb_errmsg();

		fuzz_check(e && rb_starts_with(e, SRC), "error '%s'",
			   e ? e : "");
		goto out;
	}
	if (!doc.has_date) {
		doc.r.date = 1764547200; /* 2025-12-01, no clock here */
		doc.r.tz_minutes = 0;
	}
	if (!doc.r.message_id) {
		if (rb_report_message_id(
			    &mid, doc.r.date, doc.r.tz_minutes, 0x12345678,
			    doc.domain ? doc.domain : "example.invalid") < 0)
			goto out;
		doc.r.message_id = mid.buf;
	}
	if (rb_report_render(&mail, &doc.r) < 0)
		goto out;
	end = strstr(mail.buf, "\n\n");
	fuzz_check(end, "a mail without a body");
	fuzz_check(fuzz_header_fields(mail.buf, (size_t)(end - mail.buf) + 1,
				      &why) > 0,
		   "%s in the headers of:\n%s", why, mail.buf);
	fuzz_check(rb_mail_envelope(&env, mail.buf, mail.len) == 0,
		   "a rendered mail without an envelope: %s", rb_errmsg());
out:
	rb_envelope_release(&env);
	sbuf_release(&mail);
	sbuf_release(&mid);
	rb_report_doc_release(&doc);
	return 0;
}
