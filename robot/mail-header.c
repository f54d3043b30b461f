// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mail headers (mail-header.h): sanitizing, addresses, encoded-words and
 * folding, dates and Message-IDs, reading headers back, the SMTP envelope.
 * Pure.
 */
#include "robot.h"
#include "mail-header.h"

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
void rb_mail_sanitize_keep_spacing(struct sbuf *out, const char *s, size_t n)
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

char *rb_mail_sanitized(const char *s)
{
	struct sbuf sb = SBUF_INIT;

	rb_mail_sanitize(&sb, s);
	return sbuf_detach(&sb);
}

/* Display columns of UTF-8 text: one per character. */
size_t rb_mail_utf8_cols(const char *s, size_t n)
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
	char *shown = rb_mail_sanitized(email);
	int r = rb_error("invalid mail address '%s'", shown);

	free(shown);
	return r;
}
}

void rb_mail_split_mailbox(char *s, struct rb_mail_addr *a)
{
	char *lt = strrchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	a->name = NULL;
	a->email = s;
	if (!lt || !gt)
		return;
	*gt = '\0';
	a->email = lt + 1;
	while (lt > s && lt[-1] == ' ')
		lt--;
	*lt = '\0';
	if (*s == '"' && lt > s + 1 && lt[-1] == '"') {
		lt[-1] = '\0';
		s++;
	}
	a->name = *s ? s : NULL;
}

int rb_mail_check_mailbox(const char *text)
{
	char *copy = xstrdup(text);
	struct rb_mail_addr a;
	int r;

	rb_mail_split_mailbox(copy, &a);
	r = rb_mail_check_address(a.email);
	free(copy);
	return r;
}

bool rb_mail_same_address(const char *a, const char *b)
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
	char *clean = rb_mail_sanitized(text);

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
	name = rb_mail_sanitized(a->name);
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
int rb_mail_check_message_id(const char *mid)
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
	char *shown = rb_mail_sanitized(mid);
	int r = rb_error("invalid message id '%s'", shown);

	free(shown);
	return r;
}
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
			if (rb_mail_same_address(rcpt->v[j], from->v[i]))
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
