// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-text rendering of our manual pages: a small subset of man(7),
 * filled and indented the way man(1) lays a page out, without hyphenation
 * or justification.
 */
#include "../robot.h"
#include "../sbuf.h"
#include "manpage.h"

#define BODY 7 /* the indent of a section's text */

struct render {
	FILE *out;
	int width;
	const char *only; /* the section wanted, or NULL */
	const char *prefix; /* before the first line printed (only) */
	bool in_section; /* the current section is printed */
	bool printed; /* something was printed */
	bool blank; /* a blank line is due before the next text */
	bool headed; /* nothing since the section's heading */
	bool nofill;
	int base; /* .RS indent */
	int indent; /* of the text to come */
	int hang; /* the body indent of a .TP or .IP */
	struct sbuf tag; /* a .TP tag waiting for its line, or .IP's */
	bool tag_next; /* the next text line is the .TP tag */
	struct sbuf para; /* the words of the paragraph being filled */
};

const struct rb_manpage *rb_manpage_find(const char *name)
{
	size_t i;

	for (i = 0; i < rb_manpages_nr; i++)
		if (!strcmp(rb_manpages[i].name, name))
			return &rb_manpages[i];
	return NULL;
}

/* A roff text line without its escapes. */
static void unescape(struct sbuf *sb, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		if (*s != '\\' || s + 1 >= end) {
			sbuf_addch(sb, *s++);
			continue;
		}
		s++;
		switch (*s) {
		case 'f':
			s += s + 1 < end ? 2 : 1;
			break;
		case '(':
			if (s + 2 < end && !strncmp(s + 1, "bu", 2))
				sbuf_addch(sb, '*');
			else if (s + 2 < end && !strncmp(s + 1, "em", 2))
				sbuf_addstr(sb, "--");
			s += s + 2 < end ? 3 : 1;
			break;
		case 'e':
			sbuf_addch(sb, '\\');
			s++;
			break;
		case '&':
			s++;
			break;
		default: /* \- \\ "\ " and the like: the character */
			sbuf_addch(sb, *s++);
			break;
		}
	}
}

static void put_line(struct render *r, int indent, const char *text)
{
	if (r->only && !r->in_section)
		return;
	if (r->blank && r->printed)
		fputc('\n', r->out);
	r->blank = false;
	if (r->only && !r->printed && r->prefix) {
		fputs(r->prefix, r->out);
		indent = 0;
	}
	fprintf(r->out, "%*s%s\n", indent, "", text);
	r->printed = true;
	r->headed = false;
}

/* The waiting .TP/.IP tag alone on its line, when the body does not fit. */
static void flush_tag(struct render *r)
{
	if (!r->tag.len)
		return;
	put_line(r, r->indent, r->tag.buf);
	sbuf_reset(&r->tag);
}

/* Fill the paragraph into lines of at most width columns. */
static void flush(struct render *r)
{
	const char *w = r->para.buf;
	struct sbuf line = SBUF_INIT;
	int ind = r->hang ? r->hang : r->indent, col0 = ind;
	bool first = true; /* no word on the line yet */

	if (!r->para.len) {
		flush_tag(r);
		return;
	}
	/* a short tag (a bullet, an option) shares the body's first line */
	if (r->tag.len && r->indent + (int)r->tag.len < ind) {
		sbuf_addf(&line, "%-*s", ind - r->indent, r->tag.buf);
		col0 = r->indent;
		sbuf_reset(&r->tag);
	} else {
		flush_tag(r);
	}
	while (*w) {
		size_t n = strcspn(w, " ");

		if (!first &&
		    (size_t)col0 + line.len + 1 + n > (size_t)r->width) {
			put_line(r, col0, line.buf);
			sbuf_reset(&line);
			col0 = ind;
			first = true;
		}
		if (!first)
			sbuf_addch(&line, ' ');
		sbuf_add(&line, w, n);
		first = false;
		w += n;
		while (*w == ' ')
			w++;
	}
	if (line.len)
		put_line(r, col0, line.buf);
	sbuf_release(&line);
	sbuf_reset(&r->para);
}

/* Words of a text line into the paragraph (or a no-fill line out). */
static void text(struct render *r, const char *s, size_t n)
{
	struct sbuf t = SBUF_INIT;

	unescape(&t, s, n);
	if (r->tag_next) {
		r->tag_next = false;
		sbuf_add(&r->tag, t.buf, t.len);
	} else if (r->nofill) {
		flush_tag(r);
		put_line(r, r->hang ? r->hang : r->indent, t.buf);
	} else {
		if (r->para.len && t.len)
			sbuf_addch(&r->para, ' ');
		sbuf_add(&r->para, t.buf, t.len);
	}
	sbuf_release(&t);
}

/*
 * .B a b: the arguments, with spaces; .BR a b c and the other requests of
 * alternating fonts (.BI .IB .BR .RB .IR .RI): the arguments joined with
 * none, as man(7) sets them ("\-\-opt" " FILE" is "--opt FILE"). Plain
 * text has one font.
 */
static void font_args(struct render *r, const char *args, bool alternate)
{
	struct sbuf t = SBUF_INIT;
	const char *a = args;

	while (*a) {
		size_t n;

		while (*a == ' ')
			a++;
		if (!*a)
			break;
		if (*a == '"') {
			n = strcspn(++a, "\"");
			sbuf_add(&t, a, n);
			a += n + (a[n] == '"');
		} else {
			n = strcspn(a, " ");
			sbuf_add(&t, a, n);
			a += n;
		}
		if (!alternate && *a)
			sbuf_addch(&t, ' ');
	}
	text(r, t.buf, t.len);
	sbuf_release(&t);
}

static void paragraph(struct render *r)
{
	flush(r);
	r->blank = !r->headed;
	r->hang = 0;
	r->indent = r->base;
}

static void request(struct render *r, const char *m, const char *args)
{
	if (!strcmp(m, "SH") || !strcmp(m, "SS")) {
		struct sbuf t = SBUF_INIT;

		flush(r);
		r->hang = 0;
		r->base = BODY;
		r->nofill = false;
		unescape(&t, args, strlen(args));
		if (!strcmp(m, "SH"))
			r->in_section = !r->only || !strcmp(t.buf, r->only);
		if (!r->only) {
			r->blank = true;
			put_line(r, m[1] == 'H' ? 0 : 3, t.buf);
		}
		r->headed = true;
		r->indent = BODY;
		sbuf_release(&t);
	} else if (!strcmp(m, "PP") || !strcmp(m, "LP") || !strcmp(m, "P")) {
		paragraph(r);
	} else if (!strcmp(m, "TP")) {
		paragraph(r);
		r->hang = r->base + BODY;
		r->tag_next = true;
	} else if (!strcmp(m, "IP")) {
		struct sbuf t = SBUF_INIT;
		const char *sp = strrchr(args, ' ');
		long n = sp ? strtol(sp + 1, NULL, 10) : 0;

		paragraph(r);
		unescape(&t, args, sp ? (size_t)(sp - args) : strlen(args));
		sbuf_add(&r->tag, t.buf, t.len);
		r->hang = r->base + (n > 0 ? (int)n : BODY);
		sbuf_release(&t);
	} else if (!strcmp(m, "RS")) {
		long n = *args ? strtol(args, NULL, 10) : BODY;

		flush(r);
		r->base += (int)n;
		r->indent = r->base;
		r->hang = 0;
	} else if (!strcmp(m, "RE")) {
		flush(r);
		r->base = BODY;
		r->indent = r->base;
		r->hang = 0;
	} else if (!strcmp(m, "nf")) {
		flush(r);
		r->nofill = true;
	} else if (!strcmp(m, "fi")) {
		r->nofill = false;
	} else if (!strcmp(m, "br")) {
		flush(r);
	} else if (!strcmp(m, "B") || !strcmp(m, "I")) {
		font_args(r, args, false);
	} else if (strlen(m) == 2 && m[0] != m[1] && strchr("BIR", m[0]) &&
		   strchr("BIR", m[1])) {
		font_args(r, args, true);
	}
	/* TH and anything else: nothing to show */
}

void rb_manpage_render(FILE *out, const char *roff, int width,
		       const char *section, const char *prefix)
{
	struct render r = { .out = out,
			    .width = width,
			    .only = section,
			    .prefix = prefix,
			    .in_section = !section,
			    .base = BODY,
			    .indent = BODY };
	const char *l = roff;

	sbuf_init(&r.tag, 0);
	sbuf_init(&r.para, 0);
	while (*l) {
		size_t n = strcspn(l, "\n");

		if (n >= 1 && (l[0] == '.' || l[0] == '\'')) {
			char mac[4] = { 0 };
			size_t k = 1;
			char *args;

			while (k < n && k < 4 && l[k] != ' ')
				k++;
			memcpy(mac, l + 1, RB_MIN(k - 1, sizeof(mac) - 1));
			while (k < n && l[k] == ' ')
				k++;
			args = xstrndup(l + k, n - k);
			if (strncmp(l, ".\\\"", 3))
				request(&r, mac, args);
			free(args);
		} else if (n == 0 && !r.nofill) {
			paragraph(&r);
		} else {
			text(&r, l, n);
		}
		l += n + (l[n] == '\n');
	}
	flush(&r);
	sbuf_release(&r.tag);
	sbuf_release(&r.para);
}

char *rb_manpage_summary(const char *roff)
{
	const char *name = strstr(roff, "\n.SH NAME\n");
	const char *d, *e;
	struct sbuf t = SBUF_INIT;

	if (!name)
		return xstrdup("");
	name += strlen("\n.SH NAME\n");
	e = name + strcspn(name, "\n");
	d = strstr(name, "\\- ");
	if (!d || d > e)
		return xstrdup("");
	unescape(&t, d + 3, (size_t)(e - d - 3));
	return sbuf_detach(&t);
}
