// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report mail as text: RFC 5322 headers (sanitised, RFC 2047-encoded,
 * folded), the body in the 0-Day layout, and the SMTP envelope of a
 * message. Pure: no clock, no files, no sockets.
 */
#include <math.h>

#include "robot.h"
#include "report.h"

/* ------------------------------------------------------------------ */
/* UTF-8 and sanitising                                                 */

/*
 * Decode one UTF-8 character at s (n bytes left). Returns its length and
 * the code point in *cp, or 0 for an invalid sequence (overlong forms,
 * surrogates and code points above U+10FFFF are invalid too).
 */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Characters a mail line must not carry as they are. */
static bool is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	       cp == 0x2028 || cp == 0x2029;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

void rb_mail_sanitize(struct sbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	bool space = false, any = false;

	while (n) {
		uint32_t cp;
		size_t len = utf8_decode(p, n, &cp);

		if (len && (cp == ' ' || is_control(cp))) {
			space = true;
			p += len;
			n -= len;
			continue;
		}
		if (space && any)
			sbuf_addch(out, ' ');
		space = false;
		any = true;
		if (!len) {
			sbuf_addstr(out, replacement);
			p++;
			n--;
			continue;
		}
		sbuf_add(out, p, len);
		p += len;
		n -= len;
	}
}

/*
 * The same for a line whose spacing matters (the table, the command to
 * reproduce): tabs stay, other controls and invalid bytes become '?'.
 */
static void sanitize_keep_spacing(struct sbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	while (n) {
		uint32_t cp;
		size_t len = utf8_decode(p, n, &cp);

		if (!len || (is_control(cp) && cp != '\t')) {
			sbuf_addch(out, '?');
			len = len ? len : 1;
		} else {
			sbuf_add(out, p, len);
		}
		p += len;
		n -= len;
	}
}

static char *sanitized(const char *s)
{
	struct sbuf sb = SBUF_INIT;

	rb_mail_sanitize(&sb, s);
	return sbuf_detach(&sb);
}

/* Display columns of UTF-8 text: one per character. */
static size_t utf8_cols(const char *s, size_t n)
{
	size_t cols = 0, i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			cols++;
	return cols;
}

/* ------------------------------------------------------------------ */
/* Addresses                                                            */

static bool is_atext(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

static bool is_domain_label(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-'))
			return false;
	}
	return true;
}

int rb_mail_check_address(const char *email)
{
	const char *at, *p, *dot;
	size_t n;

	if (!email || !*email)
		return rb_error("missing mail address");
	n = strlen(email);
	at = strrchr(email, '@');
	if (n > RB_MAIL_ADDR_MAX || !at || at == email || !at[1])
		goto bad;
	/* local part: a dot-atom (no quoted local parts) */
	if (email[0] == '.' || at[-1] == '.')
		goto bad;
	for (p = email; p < at; p++)
		if (!is_atext((unsigned char)*p) && !(*p == '.' && p[1] != '.'))
			goto bad;
	/* domain: dot-separated labels, or an address literal */
	p = at + 1;
	if (*p == '[') {
		if (email[n - 1] != ']' || n - (size_t)(p - email) < 3)
			goto bad;
		for (p++; p < email + n - 1; p++)
			if (!strchr("0123456789abcdefABCDEF.:IPv", *p))
				goto bad;
		return 0;
	}
	for (;;) {
		dot = strchr(p, '.');
		if (!is_domain_label(p, dot ? (size_t)(dot - p) : strlen(p)))
			goto bad;
		if (!dot)
			break;
		p = dot + 1;
	}
	return 0;
bad : {
	char *shown = sanitized(email);
	int r = rb_error("invalid mail address '%s'", shown);

	free(shown);
	return r;
}
}

static bool same_address(const char *a, const char *b)
{
	return a && b && !strcasecmp(a, b);
}

/* ------------------------------------------------------------------ */
/* Header tokens, RFC 2047 and folding                                 */

/*
 * A header value is written as a list of tokens separated by single
 * spaces; a fold (CRLF + the space) may replace any separator, never a
 * character inside a token. So what a reader unfolds is exactly the
 * value we meant.
 */
struct tokens {
	struct svec v;
};

#define TOKENS_INIT       \
	{                 \
		SVEC_INIT \
	}

/* The longest text between "=?UTF-8?Q?" and "?=" in a 75-octet word. */
#define EW_MAX 66 /* "Subject: " and one fits in 78 columns */
#define EW_TEXT_MAX (EW_MAX - (sizeof("=?UTF-8?Q?") - 1) - 2)

/*
 * Q-encode text into encoded-words of at most 75 octets, each a whole
 * number of characters (RFC 2047 §5 forbids splitting one). Only letters,
 * digits and "!*+-/" go unencoded: the set allowed in every context,
 * phrases included; a space is "_".
 */
static void encode_words(struct tokens *t, const char *text, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;
	struct sbuf w = SBUF_INIT;
	size_t wlen = 0;

	while (n) {
		char enc[16 * 3 + 1];
		size_t len, i, elen = 0;
		uint32_t cp;

		len = utf8_decode(p, n, &cp);
		if (!len)
			len = 1; /* sanitised text never gets here */
		for (i = 0; i < len; i++) {
			int c = p[i];

			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || strchr("!*+-/", c)) {
				enc[elen++] = (char)c;
			} else if (c == ' ') {
				enc[elen++] = '_';
			} else {
				snprintf(enc + elen, 4, "=%02X", c);
				elen += 3;
			}
		}
		if (wlen && wlen + elen > EW_TEXT_MAX) {
			sbuf_addstr(&w, "?=");
			svec_push_nodup(&t->v, sbuf_detach(&w));
			wlen = 0;
		}
		if (!wlen)
			sbuf_addstr(&w, "=?UTF-8?Q?");
		sbuf_add(&w, enc, elen);
		wlen += elen;
		p += len;
		n -= len;
	}
	if (wlen) {
		sbuf_addstr(&w, "?=");
		svec_push_nodup(&t->v, sbuf_detach(&w));
	}
	sbuf_release(&w);
}

/*
 * A word of unstructured text that cannot go as it is: non-ASCII, or
 * something a reader would take for an encoded-word, or so long that it
 * could not be folded under the line limit.
 */
static bool word_needs_encoding(const char *w, size_t n)
{
	size_t i;

	if (n > RB_MAIL_WORD_MAX)
		return true;
	for (i = 0; i < n; i++) {
		if ((unsigned char)w[i] >= 0x80)
			return true;
		if (i + 1 < n && ((w[i] == '=' && w[i + 1] == '?') ||
				  (w[i] == '?' && w[i + 1] == '=')))
			return true;
	}
	return false;
}

/*
 * Unstructured text (RFC 5322 §3.2.5) as tokens: plain words as they are,
 * each run of words that need encoding as encoded-words. The spaces
 * inside a run are encoded ("_") because a reader drops the white space
 * between two adjacent encoded-words.
 */
static void tokens_text(struct tokens *t, const char *clean)
{
	const char *p = clean, *run = NULL, *run_end = NULL;

	while (*p) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (word_needs_encoding(p, n)) {
			if (!run)
				run = p;
			run_end = p + n;
		} else {
			if (run) {
				encode_words(t, run, (size_t)(run_end - run));
				run = NULL;
			}
			svec_push_nodup(&t->v, xstrndup(p, n));
		}
		p += n;
		if (*p == ' ')
			p++;
	}
	if (run)
		encode_words(t, run, (size_t)(run_end - run));
}

/* The longest word of s once quoted ('"' and '\\' take two octets). */
static size_t longest_quoted_word(const char *s)
{
	size_t best = 0, n = 0;

	for (;; s++) {
		if (!*s || *s == ' ') {
			if (n > best)
				best = n;
			n = 0;
			if (!*s)
				break;
			continue;
		}
		n += (*s == '"' || *s == '\\') ? 2 : 1;
	}
	return best;
}

/*
 * A display name as a phrase: plain atoms when it has only atext and
 * spaces, a quoted-string when it has specials ("Paul E . McKenney"),
 * encoded-words when it is not ASCII (an encoded-word cannot sit inside
 * a quoted-string), holds "=?" or "?=", or has a word too long to fit a
 * line. A quoted-string
 * goes as one token per word: folding white space inside a
 * quoted-string unfolds to the space it replaced (RFC 5322 §3.2.4), so a
 * long name folds like any other text.
 */
static void tokens_phrase(struct tokens *t, const char *clean)
{
	bool ascii = true, atoms = true;
	const char *p;

	for (p = clean; *p; p++) {
		if ((unsigned char)*p >= 0x80)
			ascii = false;
		else if (*p != ' ' && !is_atext((unsigned char)*p))
			atoms = false;
	}
	/*
	 * what a reader could take for an encoded-word is encoded (some
	 * decode them even inside a quoted-string)
	 */
	if (strstr(clean, "=?") || strstr(clean, "?="))
		ascii = false;
	if (!ascii ||
	    (!atoms && longest_quoted_word(clean) > RB_MAIL_WORD_MAX)) {
		encode_words(t, clean, strlen(clean));
	} else if (atoms) {
		tokens_text(t, clean);
	} else {
		struct sbuf q = SBUF_INIT;

		sbuf_addch(&q, '"');
		for (p = clean; *p; p++) {
			if (*p == ' ') {
				svec_push_nodup(&t->v, sbuf_detach(&q));
				continue;
			}
			if (*p == '"' || *p == '\\')
				sbuf_addch(&q, '\\');
			sbuf_addch(&q, *p);
		}
		sbuf_addch(&q, '"');
		svec_push_nodup(&t->v, sbuf_detach(&q));
		sbuf_release(&q);
	}
}

/* Write "Name:" and the tokens, folding before a token past column 78. */
static void write_folded(struct sbuf *out, const char *name,
			 const struct tokens *t)
{
	size_t col, i;

	sbuf_addf(out, "%s:", name);
	col = strlen(name) + 1;
	for (i = 0; i < t->v.nr; i++) {
		size_t n = strlen(t->v.v[i]);

		if (i && col + 1 + n > RB_MAIL_FOLD_COLS) {
			sbuf_addstr(out, "\n ");
			col = 1;
		} else {
			sbuf_addch(out, ' ');
			col++;
		}
		sbuf_addstr(out, t->v.v[i]);
		col += n;
	}
	sbuf_addch(out, '\n');
}

void rb_mail_header_text(struct sbuf *out, const char *name, const char *text)
{
	struct tokens t = TOKENS_INIT;
	char *clean = sanitized(text);

	tokens_text(&t, clean);
	write_folded(out, name, &t);
	svec_clear(&t.v);
	free(clean);
}

static int tokens_addr(struct tokens *t, const struct rb_mail_addr *a,
		       bool last)
{
	char *name;

	if (rb_mail_check_address(a->email) < 0)
		return -1;
	name = sanitized(a->name);
	if (*name) {
		struct tokens words = TOKENS_INIT;
		struct sbuf whole = SBUF_INIT;
		size_t i;

		tokens_phrase(&words, name);
		svec_pushf(&words.v, "<%s>%s", a->email, last ? "" : ",");
		/* one token when it fits a line: fold between addresses */
		for (i = 0; i < words.v.nr; i++)
			sbuf_addf(&whole, "%s%s", i ? " " : "", words.v.v[i]);
		if (whole.len < RB_MAIL_FOLD_COLS - 1)
			svec_push_nodup(&t->v, sbuf_detach(&whole));
		else
			svec_append(&t->v, &words.v);
		sbuf_release(&whole);
		svec_clear(&words.v);
	} else {
		svec_pushf(&t->v, "%s%s", a->email, last ? "" : ",");
	}
	free(name);
	return 0;
}

int rb_mail_header_addrs(struct sbuf *out, const char *name,
			 const struct rb_mail_addr *a, size_t n)
{
	struct tokens t = TOKENS_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = tokens_addr(&t, &a[i], i + 1 == n);
	if (!ret)
		write_folded(out, name, &t);
	svec_clear(&t.v);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Dates and message ids                                                */

struct civil {
	int64_t year;
	int month, day, hour, min, sec, wday;
};

/*
 * Days since 1970-01-01 to a proleptic Gregorian date. The year is
 * counted from March so that the leap day ends it; an era is the 400-year
 * cycle of 146097 days after which the calendar repeats.
 */
static void civil_from_days(int64_t z, struct civil *c)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468; /* days from 0000-03-01 to 1970-01-01 */
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	c->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	c->month = (int)(mp < 10 ? mp + 3 : mp - 9);
	c->year = yoe + era * 400 + (c->month <= 2);
}

/* 1900-01-01 and 10000-01-01 00:00 UTC: the years a Date: can carry */
#define DATE_MIN (-2208988800LL)
#define DATE_END 253402300800LL

static int to_civil(int64_t when, int tz_minutes, struct civil *c)
{
	int64_t local, days, secs;

	if (tz_minutes < -1439 || tz_minutes > 1439)
		return rb_error("invalid time zone offset %d minutes",
				tz_minutes);
	/* checked before the sum, which could overflow */
	if (when < DATE_MIN + 86400 || when >= DATE_END - 86400)
		return rb_error("date %lld is out of range", (long long)when);
	local = when + (int64_t)tz_minutes * 60;
	days = local / 86400;
	secs = local % 86400;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	civil_from_days(days, c);
	if (c->year < 1900 || c->year > 9999)
		return rb_error("date %lld is out of range", (long long)when);
	c->hour = (int)(secs / 3600);
	c->min = (int)(secs / 60 % 60);
	c->sec = (int)(secs % 60);
	c->wday = (int)(((days % 7) + 11) % 7); /* 1970-01-01: Thursday */
	return 0;
}

int rb_mail_date(struct sbuf *out, int64_t when, int tz_minutes)
{
	static const char *const wdays[] = { "Sun", "Mon", "Tue", "Wed",
					     "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
					      "May", "Jun", "Jul", "Aug",
					      "Sep", "Oct", "Nov", "Dec" };
	struct civil c;
	int off = tz_minutes < 0 ? -tz_minutes : tz_minutes;

	if (to_civil(when, tz_minutes, &c) < 0)
		return -1;
	sbuf_addf(out, "%s, %d %s %lld %02d:%02d:%02d %c%02d%02d",
		  wdays[c.wday], c.day, months[c.month - 1], (long long)c.year,
		  c.hour, c.min, c.sec, tz_minutes < 0 ? '-' : '+', off / 60,
		  off % 60);
	return 0;
}

static int check_domain(const char *domain)
{
	const char *p = domain, *dot;

	if (!domain || !*domain || strlen(domain) > 200)
		goto bad;
	for (;;) {
		dot = strchr(p, '.');
		if (!is_domain_label(p, dot ? (size_t)(dot - p) : strlen(p)))
			goto bad;
		if (!dot)
			return 0;
		p = dot + 1;
	}
bad:
	return rb_error("invalid mail domain '%s'", domain ? domain : "");
}

int rb_report_message_id(struct sbuf *out, int64_t when, int tz_minutes,
			 uint32_t rnd, const char *domain)
{
	struct civil c;

	if (check_domain(domain) < 0 || to_civil(when, tz_minutes, &c) < 0)
		return -1;
	sbuf_addf(out, "<%04lld%02d%02d%02d%02d.%08x-robot@%s>",
		  (long long)c.year, c.month, c.day, c.hour, c.min, rnd,
		  domain);
	return 0;
}

/*
 * A Message-ID we accept: "<left@right>" of the characters that are safe
 * in a file name and in a URL, so that the outbox and the archive can use
 * it as it is.
 */
static int check_message_id(const char *mid)
{
	size_t n = mid ? strlen(mid) : 0, i, at = 0, ats = 0;

	if (n < 5 || n > 250 || mid[0] != '<' || mid[n - 1] != '>')
		goto bad;
	for (i = 1; i < n - 1; i++) {
		char c = mid[i];

		if (c == '@') {
			ats++;
			at = i;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || strchr("._+=-", c))) {
			goto bad;
		}
	}
	if (ats != 1 || at == 1 || at == n - 2 || mid[1] == '.')
		goto bad;
	return 0;
bad : {
	char *shown = sanitized(mid);
	int r = rb_error("invalid message id '%s'", shown);

	free(shown);
	return r;
}
}

/* ------------------------------------------------------------------ */
/* Subject                                                              */

void rb_report_subsystem(struct sbuf *out, const char *subject)
{
	char *clean = sanitized(subject);
	char *colon = strchr(clean, ':');
	size_t n;

	if (colon) {
		n = (size_t)(colon - clean);
		while (n && clean[n - 1] == ' ')
			n--;
		sbuf_add(out, clean, n);
	}
	free(clean);
}

static const char *kind_word(enum rb_report_kind kind)
{
	return kind == RB_REPORT_REGRESSION ? "regression" : "improvement";
}

static int check_sha(const char *sha, size_t min, const char *what)
{
	size_t n = sha ? strlen(sha) : 0, i;

	for (i = 0; i < n; i++)
		if (!((sha[i] >= '0' && sha[i] <= '9') ||
		      (sha[i] >= 'a' && sha[i] <= 'f')))
			break;
	if (n < min || n > 64 || i != n) {
		char *shown = sanitized(sha);
		int r = rb_error("invalid %s sha '%s'", what, shown);

		free(shown);
		return r;
	}
	return 0;
}

static int check_required(const char *s, const char *what)
{
	if (!s || !*s)
		return rb_error("the report has no %s", what);
	return 0;
}

int rb_report_subject(struct sbuf *out, const struct rb_report *r)
{
	struct sbuf sub = SBUF_INIT;
	char *tree, *branch, *stat;

	if (check_required(r->tree, "tree name") < 0 ||
	    check_required(r->branch, "branch") < 0 ||
	    check_required(r->stat, "stat name") < 0 ||
	    check_sha(r->sha, 40, "culprit") < 0)
		return -1;
	if (!isfinite(r->pct))
		return rb_error("the report's change is not a number");
	tree = sanitized(r->tree);
	branch = sanitized(r->branch);
	stat = sanitized(r->stat);
	rb_report_subsystem(&sub, r->subject);
	sbuf_addf(out, "[%s:%s] ", tree, branch);
	if (sub.len)
		sbuf_addf(out, "[%s] ", sub.buf);
	sbuf_addf(out, "%.10s: %s %.1f%% %s", r->sha, stat, fabs(r->pct),
		  kind_word(r->kind));
	sbuf_release(&sub);
	free(tree);
	free(branch);
	free(stat);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Body lines                                                           */

/*
 * One body line of ours. A line over 998 octets (a huge commit subject,
 * a parameter value) is broken at the last space that keeps it under the
 * limit, else at a character boundary.
 */
static void body_line(struct sbuf *b, const char *line)
{
	size_t n = strlen(line);

	while (n > RB_MAIL_LINE_MAX) {
		size_t cut = RB_MAIL_LINE_MAX;

		while (cut > RB_MAIL_LINE_MAX / 2 && line[cut] != ' ')
			cut--;
		if (line[cut] != ' ') {
			cut = RB_MAIL_LINE_MAX;
			while (cut && ((unsigned char)line[cut] & 0xc0) == 0x80)
				cut--;
		}
		sbuf_add(b, line, cut);
		sbuf_addch(b, '\n');
		if (line[cut] == ' ')
			cut++;
		line += cut;
		n -= cut;
	}
	sbuf_add(b, line, n);
	sbuf_addch(b, '\n');
}

static void body_linef(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void body_linef(struct sbuf *b, const char *fmt, ...)
{
	struct sbuf line = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&line, fmt, ap);
	va_end(ap);
	body_line(b, line.buf);
	sbuf_release(&line);
}

static void blank(struct sbuf *b, int n)
{
	while (n-- > 0)
		sbuf_addch(b, '\n');
}

/* Word-wrap prose of ours at `width` columns, each line after indent. */
static void body_wrap(struct sbuf *b, const char *indent, const char *text,
		      size_t width)
{
	char *clean = sanitized(text);
	struct sbuf line = SBUF_INIT;
	const char *p = clean;
	size_t col = 0;

	while (*p) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t cols = utf8_cols(p, n);

		if (col && col + 1 + cols > width) {
			body_line(b, line.buf);
			sbuf_reset(&line);
			col = 0;
		}
		if (!col) {
			sbuf_addstr(&line, indent);
			col = strlen(indent);
		} else {
			sbuf_addch(&line, ' ');
			col++;
		}
		sbuf_add(&line, p, n);
		col += cols;
		p += n;
		if (*p == ' ')
			p++;
	}
	if (col)
		body_line(b, line.buf);
	sbuf_release(&line);
	free(clean);
}

/*
 * Lines given pre-rendered (the table, the command): the layout is
 * theirs, so a line is never broken; one over 998 octets is an error.
 */
static int body_verbatim(struct sbuf *b, const char *prefix, const char *text,
			 const char *what)
{
	const char *p = text;
	unsigned lineno = 0;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t len;

		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		len = b->len;
		sbuf_addstr(b, prefix);
		sanitize_keep_spacing(b, p, n);
		if (b->len - len > RB_MAIL_LINE_MAX)
			return rb_error("line %u of the %s is %zu octets long "
					"(more than %d)",
					lineno, what, b->len - len,
					RB_MAIL_LINE_MAX);
		sbuf_addch(b, '\n');
		p += n;
		if (*p == '\r')
			p++;
		if (*p == '\n')
			p++;
	}
	return 0;
}

/*
 * A measured value as the compare table prints one: two decimals below
 * 1000, whole numbers below 1e8, then four significant digits.
 */
static void fmt_value(char *buf, size_t size, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else if (a < 1000)
		snprintf(buf, size, "%.2f", v);
	else if (a < 1e8)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.4g", v);
}

static void fmt_spread(char *buf, size_t size, double v)
{
	if (v < 0 || !isfinite(v))
		snprintf(buf, size, "-");
	else
		fmt_value(buf, size, v);
}

static double ci_percent(const struct rb_report *r)
{
	return 100.0 * (r->ci_level > 0 ? r->ci_level : 0.95);
}

static void spread_name(struct sbuf *sb, const struct rb_report *r)
{
	if (r->spread_kind == RB_SPREAD_STDDEV)
		sbuf_addstr(sb, "stddev");
	else
		sbuf_addf(sb, "%g%% CI", ci_percent(r));
}

/* ------------------------------------------------------------------ */
/* The sections                                                         */

static void section_head(struct sbuf *b, const struct rb_report *r,
			 const char *sha, const char *subject)
{
	char *s = sanitized(subject);

	body_line(b, "Hello,");
	blank(b, 1);
	body_linef(b, "kernel test robot noticed a %.1f%% %s of %s on:",
		   fabs(r->pct), kind_word(r->kind), r->stat);
	blank(b, 2);
	body_linef(b, "commit: %s (\"%s\")", sha, s);
	if (r->tree_url && *r->tree_url) {
		char *url = sanitized(r->tree_url), *br = sanitized(r->branch);

		body_linef(b, "%s %s", url, br);
		free(url);
		free(br);
	}
	blank(b, 1);
	free(s);
}

/* Columns of "<tree>/<branch>" as printed. */
static size_t still_cols(const struct rb_report_still *st)
{
	char *tree = sanitized(st->tree), *branch = sanitized(st->branch);
	size_t cols = utf8_cols(tree, strlen(tree)) + 1 +
		      utf8_cols(branch, strlen(branch));

	free(tree);
	free(branch);
	return cols;
}

static void section_still(struct sbuf *b, const struct rb_report *r)
{
	size_t i, width = 0;

	if (!r->still_nr)
		return;
	/* right-align "<tree>/<branch>" so that the shas line up */
	for (i = 0; i < r->still_nr; i++)
		width = RB_MAX(width, still_cols(&r->still[i]));
	for (i = 0; i < r->still_nr; i++) {
		char *tree = sanitized(r->still[i].tree);
		char *branch = sanitized(r->still[i].branch);
		char *sha = sanitized(r->still[i].sha);

		body_linef(b, "[still %s on %*s%s/%s %s]", kind_word(r->kind),
			   (int)(width - still_cols(&r->still[i])), "", tree,
			   branch, sha);
		free(tree);
		free(branch);
		free(sha);
	}
	blank(b, 1);
}

static void field(struct sbuf *b, const char *name, const char *value)
{
	char *v;

	if (!value || !*value)
		return;
	v = sanitized(value);
	body_linef(b, "%s: %s", name, v);
	free(v);
}

static void section_params(struct sbuf *b, const struct rb_report *r)
{
	size_t i;

	field(b, "testcase", r->testcase);
	field(b, "config", r->config);
	field(b, "compiler", r->compiler);
	field(b, "test machine", r->machine);
	if (r->params_nr) {
		body_line(b, "parameters:");
		blank(b, 1);
		for (i = 0; i < r->params_nr; i++) {
			char *k = sanitized(r->params[i].key);
			char *v = sanitized(r->params[i].value);

			body_linef(b, "\t%s: %s", k, v);
			free(k);
			free(v);
		}
	}
	blank(b, 2);
}

static void archive_link(struct sbuf *out, const char *base, const char *mid)
{
	char *clean = sanitized(base);
	size_t n = strlen(clean);

	while (n && clean[n - 1] == '/')
		n--;
	sbuf_add(out, clean, n);
	sbuf_addch(out, '/');
	sbuf_add(out, mid + 1, strlen(mid) - 2); /* without "<>" */
	free(clean);
}

static void section_trailers(struct sbuf *b, const struct rb_report *r)
{
	char *name = sanitized(r->from.name);

	if (r->kind != RB_REPORT_REGRESSION) {
		free(name);
		return;
	}
	body_line(b, "If you fix the issue in a separate patch/commit (i.e. "
		     "not just a new version of");
	body_line(b, "the same patch/commit), kindly add following tags");
	if (*name)
		body_linef(b, "| Reported-by: %s <%s>", name, r->from.email);
	else
		body_linef(b, "| Reported-by: <%s>", r->from.email);
	if (r->archive_url && *r->archive_url) {
		struct sbuf url = SBUF_INIT;

		archive_link(&url, r->archive_url, r->message_id);
		body_linef(b, "| Closes: %s", url.buf);
		sbuf_release(&url);
	}
	blank(b, 2);
	free(name);
}

static int section_details(struct sbuf *b, const struct rb_report *r)
{
	struct sbuf url = SBUF_INIT;
	char dashes[99];

	memset(dashes, '-', 98);
	dashes[98] = '\0';
	body_line(b, "Details are as below:");
	body_linef(b, "%s>", dashes);
	blank(b, 2);
	if (r->materials_url && *r->materials_url)
		rb_mail_sanitize(&url, r->materials_url);
	else if (r->archive_url && *r->archive_url)
		archive_link(&url, r->archive_url, r->message_id);
	if (url.len) {
		body_line(b, "The kernel config and materials to reproduce "
			     "are available at:");
		body_line(b, url.buf);
		blank(b, 1);
	}
	sbuf_release(&url);
	if (r->table && *r->table) {
		if (body_verbatim(b, "", r->table, "compare table") < 0)
			return -1;
		blank(b, 2);
	}
	return 0;
}

/* Which way is good for the stat, from the kind and the sign of change. */
static const char *direction(const struct rb_report *r)
{
	bool up = r->pct > 0;

	if (r->pct == 0)
		return NULL;
	if (r->kind == RB_REPORT_IMPROVEMENT)
		return up ? "higher is better" : "lower is better";
	return up ? "lower is better" : "higher is better";
}

struct cols {
	size_t verdict, mean, spread, runs;
};

static void section_bisection(struct sbuf *b, const struct rb_report *r)
{
	struct sbuf head = SBUF_INIT;
	const char *dir = direction(r);
	struct cols w = { strlen("verdict"), 4, 6, 4 };
	char m[64], s[64], n[32];
	size_t i;

	if (!r->steps_nr)
		return;
	for (i = 0; i < r->steps_nr; i++) {
		const struct rb_report_step *st = &r->steps[i];
		char *v = sanitized(st->verdict);

		fmt_value(m, sizeof(m), st->mean);
		fmt_spread(s, sizeof(s), st->spread);
		snprintf(n, sizeof(n), "%u", st->runs);
		w.verdict = RB_MAX(w.verdict, utf8_cols(v, strlen(v)));
		w.mean = RB_MAX(w.mean, strlen(m));
		w.spread = RB_MAX(w.spread, strlen(s));
		w.runs = RB_MAX(w.runs, strlen(n));
		free(v);
	}
	sbuf_addf(&head, "Bisection of %s (mean ± ", r->stat);
	spread_name(&head, r);
	if (dir)
		sbuf_addf(&head, "; %s", dir);
	sbuf_addstr(&head, "):");
	body_line(b, head.buf);
	blank(b, 1);
	sbuf_reset(&head);
	body_linef(b, "  %-12s  %-*s  %*s   %*s  %*s  %s", "commit",
		   (int)w.verdict, "verdict", (int)w.mean, "mean",
		   (int)w.spread,
		   r->spread_kind == RB_SPREAD_STDDEV ? "stddev" : "CI",
		   (int)w.runs, "runs", "subject");
	for (i = 0; i < r->steps_nr; i++) {
		const struct rb_report_step *st = &r->steps[i];
		char *v = sanitized(st->verdict);
		char *subj = sanitized(st->subject);
		char *sha = sanitized(st->sha);

		fmt_value(m, sizeof(m), st->mean);
		fmt_spread(s, sizeof(s), st->spread);
		body_linef(b, "  %-12.12s  %s%*s  %*s ± %*s  %*u  %s", sha, v,
			   (int)(w.verdict - utf8_cols(v, strlen(v))), "",
			   (int)w.mean, m, (int)w.spread, s, (int)w.runs,
			   st->runs, subj);
		free(v);
		free(subj);
		free(sha);
	}
	blank(b, 1);
	sbuf_release(&head);
}

static void measure_line(struct sbuf *b, const char *label,
			 const struct rb_report_measure *m, size_t wm,
			 size_t ws)
{
	char v[64], s[64];
	char *sha = sanitized(m->sha);

	fmt_value(v, sizeof(v), m->mean);
	fmt_spread(s, sizeof(s), m->spread);
	body_linef(b, "  %-8s %-12.12s  %*s ± %*s  %u runs", label, sha,
		   (int)wm, v, (int)ws, s, m->runs);
	free(sha);
}

static void section_confirm(struct sbuf *b, const struct rb_report *r)
{
	const struct rb_report_confirm *c = r->confirm;
	struct sbuf line = SBUF_INIT;
	char v1[64], v2[64], s1[64], s2[64];
	size_t wm, ws;

	if (!c)
		return;
	sbuf_addstr(&line, "Confirmation: the parent and the culprit");
	if (c->rounds)
		sbuf_addf(&line, " ran in %u interleaved rounds", c->rounds);
	else
		sbuf_addstr(&line, " ran again");
	sbuf_addstr(&line, " (mean ± ");
	spread_name(&line, r);
	sbuf_addstr(&line, "):");
	body_line(b, line.buf);
	blank(b, 1);
	fmt_value(v1, sizeof(v1), c->parent.mean);
	fmt_value(v2, sizeof(v2), c->culprit.mean);
	fmt_spread(s1, sizeof(s1), c->parent.spread);
	fmt_spread(s2, sizeof(s2), c->culprit.spread);
	wm = RB_MAX(strlen(v1), strlen(v2));
	ws = RB_MAX(strlen(s1), strlen(s2));
	measure_line(b, "parent", &c->parent, wm, ws);
	measure_line(b, "culprit", &c->culprit, wm, ws);
	sbuf_reset(&line);
	sbuf_addf(&line, "  %-8s %+.1f%%", "change", c->pct);
	if (c->p_value >= 0) {
		if (c->p_value < 0.0001)
			sbuf_addstr(&line, ", p < 0.0001");
		else
			sbuf_addf(&line, ", p = %.4f", c->p_value);
		if (c->method && *c->method) {
			char *m = sanitized(c->method);

			sbuf_addf(&line, " (%s)", m);
			free(m);
		}
	}
	sbuf_addf(&line, ": %s",
		  c->reproduced ? "reproduced" : "not reproduced");
	body_line(b, line.buf);
	blank(b, 1);
	sbuf_release(&line);
}

static void section_confidence(struct sbuf *b, const struct rb_report *r)
{
	if (!(r->confidence >= 0))
		return;
	body_linef(b, "Confidence: %.1f%%", 100.0 * r->confidence);
	if (r->confidence_note && *r->confidence_note)
		body_wrap(b, "  ", r->confidence_note, 72);
	blank(b, 1);
}

static int section_reproduce(struct sbuf *b, const struct rb_report *r)
{
	if (!r->reproduce || !*r->reproduce)
		return 0;
	body_linef(b,
		   "To reproduce by hand, boot the test machine into "
		   "%.10s and run:",
		   r->sha);
	blank(b, 1);
	if (body_verbatim(b, "\t", r->reproduce, "command to reproduce") < 0)
		return -1;
	blank(b, 1);
	return 0;
}

static const char default_signature[] = "robot, an open kernel test robot";

static void section_tail(struct sbuf *b, const struct rb_report *r)
{
	const char *sig = r->signature && *r->signature ? r->signature :
							  default_signature;

	blank(b, 2);
	body_line(b, "Disclaimer:");
	body_line(b, "Results were measured on the test machine named above "
		     "and are given for");
	body_line(b, "information only. Other hardware, other software or "
		     "another configuration");
	body_line(b, "may give other results.");
	blank(b, 2);
	body_line(b, "-- ");
	while (*sig) {
		const char *e = strchr(sig, '\n');
		size_t n = e ? (size_t)(e - sig) : strlen(sig);
		char *line = xstrndup(sig, n);
		char *clean = sanitized(line);

		body_line(b, clean);
		free(clean);
		free(line);
		sig += n;
		if (*sig)
			sig++;
	}
}

/* ------------------------------------------------------------------ */
/* The whole mail                                                       */

static bool listed(const struct rb_mail_addr *v, size_t n, const char *email)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (same_address(v[i].email, email))
			return true;
	return false;
}

static int headers(struct sbuf *out, const struct rb_report *r)
{
	struct rb_mail_addr *to, *cc;
	size_t to_nr = 0, cc_nr = 0, i;
	struct sbuf line = SBUF_INIT;
	int ret = -1;

	to = xcalloc(r->to_nr + 1, sizeof(*to));
	cc = xcalloc(r->cc_nr + 1, sizeof(*cc));
	to[to_nr++] = r->author;
	for (i = 0; i < r->to_nr; i++)
		if (!listed(to, to_nr, r->to[i].email))
			to[to_nr++] = r->to[i];
	for (i = 0; i < r->cc_nr; i++)
		if (!listed(to, to_nr, r->cc[i].email) &&
		    !listed(cc, cc_nr, r->cc[i].email))
			cc[cc_nr++] = r->cc[i];
	if (r->committer.email && *r->committer.email &&
	    !listed(to, to_nr, r->committer.email) &&
	    !listed(cc, cc_nr, r->committer.email)) {
		cc = xrealloc(cc, (cc_nr + 1) * sizeof(*cc));
		cc[cc_nr++] = r->committer;
	}

	if (rb_mail_header_addrs(out, "From", &r->from, 1) < 0 ||
	    rb_mail_header_addrs(out, "To", to, to_nr) < 0 ||
	    (cc_nr && rb_mail_header_addrs(out, "Cc", cc, cc_nr) < 0))
		goto out;
	if (rb_report_subject(&line, r) < 0)
		goto out;
	rb_mail_header_text(out, "Subject", line.buf);
	sbuf_reset(&line);
	if (rb_mail_date(&line, r->date, r->tz_minutes) < 0)
		goto out;
	sbuf_addf(out, "Date: %s\n", line.buf);
	sbuf_addf(out, "Message-ID: %s\n", r->message_id);
	sbuf_addstr(out, "MIME-Version: 1.0\n"
			 "Content-Type: text/plain; charset=UTF-8\n"
			 "Content-Transfer-Encoding: 8bit\n");
	ret = 0;
out:
	sbuf_release(&line);
	free(to);
	free(cc);
	return ret;
}

int rb_report_render(struct sbuf *out, const struct rb_report *orig)
{
	struct rb_report copy = *orig, *r = &copy;
	struct sbuf b = SBUF_INIT;
	size_t start = out->len;
	char *tree = NULL, *branch = NULL, *stat = NULL;
	int ret = -1;

	if (check_message_id(r->message_id) < 0 ||
	    rb_mail_check_address(r->from.email) < 0)
		return -1;
	if (!r->author.email || !*r->author.email)
		return rb_error("the culprit's author has no mail address");
	/* the names that recur in the mail, as they will be printed */
	r->tree = tree = sanitized(orig->tree);
	r->branch = branch = sanitized(orig->branch);
	r->stat = stat = sanitized(orig->stat);
	if (headers(out, r) < 0)
		goto out;
	sbuf_addch(out, '\n');

	section_head(&b, r, r->sha, r->subject);
	section_still(&b, r);
	section_params(&b, r);
	section_trailers(&b, r);
	if (section_details(&b, r) < 0)
		goto out;
	section_bisection(&b, r);
	section_confirm(&b, r);
	section_confidence(&b, r);
	if (section_reproduce(&b, r) < 0)
		goto out;
	section_tail(&b, r);
	sbuf_add(out, b.buf, b.len);
	ret = 0;
out:
	if (ret)
		sbuf_setlen(out, start);
	sbuf_release(&b);
	free(tree);
	free(branch);
	free(stat);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Reading a message back: headers and the envelope                     */

/* Length of the header block (up to the empty line), and of each line. */
static size_t line_len(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));

	return e ? (size_t)(e - p) : (size_t)(end - p);
}

/*
 * Walk the logical header fields of msg: for each one, call fn with the
 * name and the unfolded value. Stops at the empty line.
 */
typedef int (*header_fn)(void *ctx, const char *name, const char *value,
			 const char *raw, size_t raw_len);

static int each_header(const char *msg, size_t len, header_fn fn, void *ctx)
{
	const char *p = msg, *end = msg + len;
	unsigned lineno = 0;
	int ret = 0;

	while (p < end && !ret) {
		size_t n = line_len(p, end);
		const char *start = p, *colon;
		struct sbuf value = SBUF_INIT;
		char *name;

		if (n == 0 || (n == 1 && p[0] == '\r'))
			break;
		colon = memchr(p, ':', n);
		if (!colon || colon == p || p[0] == ' ' || p[0] == '\t' ||
		    memchr(p, ' ', (size_t)(colon - p))) {
			ret = rb_error("line %u of the mail is not a header "
				       "field",
				       lineno + 1);
			break;
		}
		name = xstrndup(p, (size_t)(colon - p));
		sbuf_add(&value, colon + 1, n - (size_t)(colon + 1 - p));
		p += n + (p + n < end);
		lineno++;
		while (p < end && (*p == ' ' || *p == '\t')) {
			lineno++;
			n = line_len(p, end);
			sbuf_add(&value, p, n);
			p += n + (p + n < end);
		}
		{
			/* drop CRs of CRLF ends and the white space at edges */
			size_t i, j = 0;

			for (i = 0; i < value.len; i++)
				if (value.buf[i] != '\r')
					value.buf[j++] = value.buf[i];
			sbuf_setlen(&value, j);
			sbuf_rtrim(&value);
			for (i = 0;
			     value.buf[i] == ' ' || value.buf[i] == '\t';)
				i++;
			ret = fn(ctx, name, value.buf + i, start,
				 (size_t)(p - start));
		}
		free(name);
		sbuf_release(&value);
	}
	return ret;
}

struct get_ctx {
	const char *name;
	char *value;
};

static int get_one(void *vctx, const char *name, const char *value,
		   const char *raw RB_UNUSED, size_t raw_len RB_UNUSED)
{
	struct get_ctx *ctx = vctx;

	if (strcasecmp(name, ctx->name))
		return 0;
	ctx->value = xstrdup(value);
	return 1;
}

char *rb_mail_header_get(const char *msg, size_t len, const char *name)
{
	struct get_ctx ctx = { name, NULL };

	each_header(msg, len, get_one, &ctx);
	return ctx.value;
}

/*
 * An address list (RFC 5322 §3.4) split at top-level commas; in each
 * item the addr-spec is what sits between '<' and '>', or the item
 * itself. Quoted strings and comments are skipped; a group "name: a, b;"
 * gives its members.
 */
int rb_mail_parse_addresses(struct svec *out, const char *value)
{
	struct sbuf item = SBUF_INIT, angle = SBUF_INIT;
	const char *p = value;
	int depth = 0, ret = 0;
	bool quoted = false, in_angle = false, has_angle = false;

	for (;; p++) {
		char c = *p;

		if (quoted) {
			if (c == '\\' && p[1])
				p++;
			else if (c == '"')
				quoted = false;
			else if (!c)
				break;
			continue;
		}
		if (depth) {
			if (c == '\\' && p[1])
				p++;
			else if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
			else if (!c)
				break;
			continue;
		}
		if (in_angle) {
			if (c == '>')
				in_angle = false;
			else if (!c)
				break;
			else
				sbuf_addch(&angle, c);
			continue;
		}
		if (c == '"') {
			quoted = true;
		} else if (c == '(') {
			depth = 1;
		} else if (c == '<') {
			in_angle = has_angle = true;
			sbuf_reset(&angle);
		} else if (c == ':') {
			sbuf_reset(&item); /* a group's display name */
		} else if (c == ',' || c == ';' || !c) {
			struct sbuf *a = has_angle ? &angle : &item;
			size_t i = 0;

			sbuf_rtrim(a);
			while (a->buf[i] == ' ' || a->buf[i] == '\t')
				i++;
			if (a->buf[i]) {
				if (rb_mail_check_address(a->buf + i) < 0) {
					ret = -1;
					break;
				}
				svec_push(out, a->buf + i);
			}
			sbuf_reset(&item);
			sbuf_reset(&angle);
			has_angle = false;
			if (!c)
				break;
		} else {
			sbuf_addch(&item, c);
		}
	}
	if (!ret && (quoted || depth || in_angle))
		ret = rb_error("unterminated address list '%s'", value);
	sbuf_release(&item);
	sbuf_release(&angle);
	return ret;
}

struct env_ctx {
	struct rb_envelope *env;
	struct svec to, cc, bcc;
	int err;
};

static int env_header(void *vctx, const char *name, const char *value,
		      const char *raw, size_t raw_len)
{
	struct env_ctx *ctx = vctx;
	struct svec *list = NULL;
	const char *p = raw, *end = raw + raw_len;

	if (!strcasecmp(name, "From") && !ctx->env->from) {
		struct svec from = SVEC_INIT;

		if (rb_mail_parse_addresses(&from, value) < 0) {
			svec_clear(&from);
			goto bad;
		}
		if (from.nr)
			ctx->env->from = xstrdup(from.v[0]);
		svec_clear(&from);
	} else if (!strcasecmp(name, "To")) {
		list = &ctx->to;
	} else if (!strcasecmp(name, "Cc")) {
		list = &ctx->cc;
	} else if (!strcasecmp(name, "Bcc")) {
		list = &ctx->bcc;
	}
	if (list && rb_mail_parse_addresses(list, value) < 0)
		goto bad;
	if (list == &ctx->bcc)
		return 0; /* the recipients must not see it */
	while (p < end) {
		size_t n = line_len(p, end);

		if (n && p[n - 1] == '\r')
			n--;
		sbuf_add(&ctx->env->data, p, n);
		sbuf_addstr(&ctx->env->data, "\r\n");
		p += line_len(p, end);
		if (p < end)
			p++;
	}
	return 0;
bad:
	rb_error_prefix("header '%s'", name);
	ctx->err = -1;
	return -1;
}

static void add_rcpts(struct svec *rcpt, const struct svec *from)
{
	size_t i, j;

	for (i = 0; i < from->nr; i++) {
		for (j = 0; j < rcpt->nr; j++)
			if (same_address(rcpt->v[j], from->v[i]))
				break;
		if (j == rcpt->nr)
			svec_push(rcpt, from->v[i]);
	}
}

/* Check every line of msg: no NUL, no bare CR, at most 998 octets. */
static int check_lines(const char *msg, size_t len)
{
	const char *p = msg, *end = msg + len;
	unsigned lineno = 0;

	if (memchr(msg, '\0', len))
		return rb_error("the mail holds a NUL byte");
	while (p < end) {
		size_t n = line_len(p, end);
		const char *cr;

		lineno++;
		if (n && p[n - 1] == '\r')
			n--;
		cr = memchr(p, '\r', n);
		if (cr)
			return rb_error("line %u of the mail has a bare CR",
					lineno);
		if (n > RB_MAIL_LINE_MAX)
			return rb_error("line %u of the mail is %zu octets "
					"long (more than %d)",
					lineno, n, RB_MAIL_LINE_MAX);
		p += line_len(p, end);
		if (p < end)
			p++;
	}
	return 0;
}

static size_t header_block_len(const char *msg, size_t len)
{
	const char *p = msg, *end = msg + len;

	while (p < end) {
		size_t n = line_len(p, end);

		if (n == 0 || (n == 1 && p[0] == '\r'))
			return (size_t)(p - msg);
		p += n;
		if (p < end)
			p++;
	}
	return len;
}

int rb_mail_envelope(struct rb_envelope *env, const char *msg, size_t len)
{
	struct env_ctx ctx = { env, SVEC_INIT, SVEC_INIT, SVEC_INIT, 0 };
	size_t hlen;
	const char *p, *end = msg + len;
	int ret = -1;

	if (check_lines(msg, len) < 0)
		return -1;
	hlen = header_block_len(msg, len);
	if (each_header(msg, hlen, env_header, &ctx) < 0 || ctx.err)
		goto out;
	if (!env->from) {
		rb_error("the mail has no 'From' address");
		goto out;
	}
	add_rcpts(&env->rcpt, &ctx.to);
	add_rcpts(&env->rcpt, &ctx.cc);
	add_rcpts(&env->rcpt, &ctx.bcc);
	if (!env->rcpt.nr) {
		rb_error("the mail has no recipient");
		goto out;
	}
	/* the body, from the empty line on, with CRLF line ends */
	for (p = msg + hlen; p < end;) {
		size_t n = line_len(p, end), m = n;

		if (m && p[m - 1] == '\r')
			m--;
		sbuf_add(&env->data, p, m);
		sbuf_addstr(&env->data, "\r\n");
		p += n;
		if (p < end)
			p++;
	}
	if (hlen == len)
		sbuf_addstr(&env->data, "\r\n");
	ret = 0;
out:
	if (ret)
		rb_envelope_release(env);
	svec_clear(&ctx.to);
	svec_clear(&ctx.cc);
	svec_clear(&ctx.bcc);
	return ret;
}

void rb_envelope_release(struct rb_envelope *env)
{
	free(env->from);
	env->from = NULL;
	svec_clear(&env->rcpt);
	sbuf_release(&env->data);
}
