// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report mail as text: the 0-Day body and the mail's headers, built
 * with the header primitives of mail-header.c. Pure: no clock, no files,
 * no sockets.
 */
#include <math.h>

#include "robot.h"
#include "report.h"

/* ------------------------------------------------------------------ */
/* Subject                                                              */

void rb_report_subsystem(struct sbuf *out, const char *subject)
{
	char *clean = rb_mail_sanitized(subject);
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
		char *shown = rb_mail_sanitized(sha);
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
	tree = rb_mail_sanitized(r->tree);
	branch = rb_mail_sanitized(r->branch);
	stat = rb_mail_sanitized(r->stat);
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
	char *clean = rb_mail_sanitized(text);
	struct sbuf line = SBUF_INIT;
	const char *p = clean;
	size_t col = 0;

	while (*p) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t cols = rb_mail_utf8_cols(p, n);

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
	const char *p = text, *l;
	unsigned lineno = 0;
	size_t n, len;

	while (rb_next_line(&p, &l, &n)) {
		lineno++;
		if (n && l[n - 1] == '\r')
			n--;
		len = b->len;
		sbuf_addstr(b, prefix);
		rb_mail_sanitize_keep_spacing(b, l, n);
		if (b->len - len > RB_MAIL_LINE_MAX)
			return rb_error("line %u of the %s is %zu octets long "
					"(more than %d)",
					lineno, what, b->len - len,
					RB_MAIL_LINE_MAX);
		sbuf_addch(b, '\n');
	}
	return 0;
}

/*
 * A measured value as the compare table prints one: two decimals below
 * 1000, whole numbers below 1e8, then four significant digits.
 */
/*
 * One rounding rule for the mail's numbers: the decimals follow the
 * magnitude of the value (2 below 1000, none up to 1e8, 4 significant
 * digits beyond), and a spread is written to the decimals of the value it
 * belongs to ("1175 ± 124", "61.41 ± 1.33"), never finer than it.
 */
static void fmt_like(char *buf, size_t size, double v, double like)
{
	double a = fabs(like);

	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else if (a < 1000)
		snprintf(buf, size, "%.2f", v);
	else if (a < 1e8)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.4g", v);
}

static void fmt_value(char *buf, size_t size, double v)
{
	fmt_like(buf, size, v, v);
}

static void fmt_spread(char *buf, size_t size, double v, double of)
{
	if (v < 0 || !isfinite(v))
		snprintf(buf, size, "-");
	else
		fmt_like(buf, size, v, isfinite(of) ? of : v);
}

static double ci_percent(const struct rb_report *r)
{
	return 100.0 * (r->ci_level > 0 ? r->ci_level : 0.95);
}

static void spread_name(struct sbuf *sb, const struct rb_report *r)
{
	/* "sample": the compare table's %stddev is lkp's population one */
	if (r->spread_kind == RB_SPREAD_STDDEV)
		sbuf_addstr(sb, "sample stddev");
	else
		sbuf_addf(sb, "%g%% CI", ci_percent(r));
}

/* ------------------------------------------------------------------ */
/* The sections                                                         */

static void section_head(struct sbuf *b, const struct rb_report *r,
			 const char *sha, const char *subject)
{
	char *s = rb_mail_sanitized(subject);

	body_line(b, "Hello,");
	blank(b, 1);
	body_linef(b, "kernel test robot noticed a %.1f%% %s of %s on:",
		   fabs(r->pct), kind_word(r->kind), r->stat);
	blank(b, 2);
	body_linef(b, "commit: %s (\"%s\")", sha, s);
	if (r->tree_url && *r->tree_url) {
		char *url = rb_mail_sanitized(r->tree_url),
		     *br = rb_mail_sanitized(r->branch);

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
	char *tree = rb_mail_sanitized(st->tree),
	     *branch = rb_mail_sanitized(st->branch);
	size_t cols = rb_mail_utf8_cols(tree, strlen(tree)) + 1 +
		      rb_mail_utf8_cols(branch, strlen(branch));

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
		char *tree = rb_mail_sanitized(r->still[i].tree);
		char *branch = rb_mail_sanitized(r->still[i].branch);
		char *sha = rb_mail_sanitized(r->still[i].sha);

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
	v = rb_mail_sanitized(value);
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
			char *k = rb_mail_sanitized(r->params[i].key);
			char *v = rb_mail_sanitized(r->params[i].value);

			body_linef(b, "\t%s: %s", k, v);
			free(k);
			free(v);
		}
	}
	blank(b, 2);
}

static void archive_link(struct sbuf *out, const char *base, const char *mid)
{
	char *clean = rb_mail_sanitized(base);
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
	char *name = rb_mail_sanitized(r->from.name);

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
		body_line(b, r->no_config ?
				     "The materials to reproduce are "
				     "available at:" :
				     "The kernel config and materials to "
				     "reproduce are available at:");
		body_line(b, url.buf);
		if (r->details && *r->details)
			body_linef(b, "details: %s/%s", url.buf, r->details);
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
		char *v = rb_mail_sanitized(st->verdict);

		fmt_value(m, sizeof(m), st->mean);
		fmt_spread(s, sizeof(s), st->spread, st->mean);
		snprintf(n, sizeof(n), "%u", st->runs);
		w.verdict = RB_MAX(w.verdict, rb_mail_utf8_cols(v, strlen(v)));
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
		char *v = rb_mail_sanitized(st->verdict);
		char *subj = rb_mail_sanitized(st->subject);
		char *sha = rb_mail_sanitized(st->sha);

		fmt_value(m, sizeof(m), st->mean);
		fmt_spread(s, sizeof(s), st->spread, st->mean);
		body_linef(b, "  %-12.12s  %s%*s  %*s ± %*s  %*u  %s", sha, v,
			   (int)(w.verdict - rb_mail_utf8_cols(v, strlen(v))),
			   "", (int)w.mean, m, (int)w.spread, s, (int)w.runs,
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
	char *sha = rb_mail_sanitized(m->sha);

	fmt_value(v, sizeof(v), m->mean);
	fmt_spread(s, sizeof(s), m->spread, m->mean);
	body_linef(b, "  %-8s %-12.12s  %*s ± %*s  %u runs", label, sha,
		   (int)wm, v, (int)ws, s, m->runs);
	free(sha);
}

/*
 * "Lab time: 33 runs, 25 boots, 8 builds (3 of them started by the
 * look-ahead builders rather than the box, 1 of those never used); ...":
 * the look-ahead builds the anchors too before anything is measured, so
 * the box may have waited for such a build (bisection.c build_line)
 */
static void section_cost(struct sbuf *b, const struct rb_report *r)
{
	const struct rb_report_cost *c = &r->cost;
	long w = lround(c->build_wait);
	struct sbuf line = SBUF_INIT;

	if (!r->has_cost)
		return;
	sbuf_addf(&line, "Lab time: %u run%s, %u boot%s, %u build%s", c->runs,
		  RB_PLURAL(c->runs), c->boots, RB_PLURAL(c->boots), c->builds,
		  RB_PLURAL(c->builds));
	if (c->builds_ahead)
		sbuf_addf(&line,
			  " (%u of them started by the look-ahead builders "
			  "rather than the box, %u of those never used)",
			  c->builds_ahead, c->builds_unused);
	sbuf_addstr(&line, "; the box waited ");
	if (w >= 60)
		sbuf_addf(&line, "%ldm %lds", w / 60, w % 60);
	else
		sbuf_addf(&line, "%lds", w);
	sbuf_addstr(&line, " for kernels.");
	body_line(b, line.buf);
	blank(b, 1);
	sbuf_release(&line);
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
	fmt_spread(s1, sizeof(s1), c->parent.spread, c->parent.mean);
	fmt_spread(s2, sizeof(s2), c->culprit.spread, c->culprit.mean);
	wm = RB_MAX(strlen(v1), strlen(v2));
	ws = RB_MAX(strlen(s1), strlen(s2));
	measure_line(b, "parent", &c->parent, wm, ws);
	measure_line(b, "culprit", &c->culprit, wm, ws);
	sbuf_reset(&line);
	sbuf_addf(&line, "  %-8s %+.1f%%", "change", c->pct);
	if (c->ci_level > 0)
		sbuf_addf(&line, " [%+.1f%%, %+.1f%%] (%.0f%% ci)", c->ci_lo,
			  c->ci_hi, 100 * c->ci_level);
	if (c->p_value >= 0) {
		char pv[32];

		rb_fmt_p(pv, sizeof(pv), c->p_value);
		sbuf_addf(&line, ", %s", pv);
		if (c->method && *c->method) {
			char *m = rb_mail_sanitized(c->method);

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

/* Where a part of the change happened: before the parent, or after C. */
static void share_where(struct sbuf *t, const struct rb_report *r,
			const char *parent, bool before)
{
	if (!before)
		sbuf_addf(t, " between %.12s and %.12s", r->sha, r->bad_sha);
	else if (parent)
		sbuf_addf(t, " between %.12s and %.12s", r->good_sha, parent);
	else
		sbuf_addstr(t, " before this commit");
}

/*
 * "This commit accounts for 64% [52%, 77%] of the change from X to Y; the
 * rest happened between X and P (31%) and between C and Y (5%)." The parts
 * before the parent and after the culprit add up to the rest. Parts under
 * 5% are not named when the other is not either; beside a named part a
 * small one is named as the remainder ("...; 6% happened between C and Y,
 * the remaining 4% between X and P."), so that what is called the rest
 * is all of it.
 */
static void section_share(struct sbuf *b, const struct rb_report *r)
{
	struct sbuf t = SBUF_INIT;
	const char *parent = r->confirm ? r->confirm->parent.sha : NULL;
	bool before, after;

	if (!r->has_share || !r->good_sha || !r->bad_sha)
		return;
	before = fabs(r->share_before) >= 0.05;
	after = fabs(r->share_after) >= 0.05;
	sbuf_addf(&t,
		  "This commit accounts for %.0f%% [%.0f%%, %.0f%%] of the "
		  "change from %.12s to %.12s",
		  100 * r->share, 100 * r->share_lo, 100 * r->share_hi,
		  r->good_sha, r->bad_sha);
	if (before && after) {
		sbuf_addstr(&t, "; the rest happened");
		share_where(&t, r, parent, true);
		sbuf_addf(&t, " (%.0f%%) and", 100 * r->share_before);
		share_where(&t, r, parent, false);
		sbuf_addf(&t, " (%.0f%%)", 100 * r->share_after);
	} else if (before || after) {
		sbuf_addf(&t, "; %.0f%% happened",
			  100 * (before ? r->share_before : r->share_after));
		share_where(&t, r, parent, before);
		sbuf_addf(&t, ", the remaining %.0f%%",
			  100 * (before ? r->share_after : r->share_before));
		share_where(&t, r, parent, !before);
	}
	sbuf_addch(&t, '.');
	body_wrap(b, "", t.buf, 72);
	blank(b, 1);
	sbuf_release(&t);
}

/* a chance (0..1) as a short percentage: 0.025 "2.5%", 0.02 "2%" */
static void add_chance(struct sbuf *sb, double p)
{
	sbuf_addf(sb, "%.2g%%", 100 * p);
}

/*
 * A wrong culprit needs a wrong step (union bound over the decided ones)
 * that the confirmation repeats: the confidence is 1 minus that product,
 * so the note names the three factors and the product.
 */
void rb_report_confidence_note(struct sbuf *out, unsigned decided,
			       double step_alpha, double confirm_alpha)
{
	double wrong = decided * step_alpha * confirm_alpha;

	if (!decided) {
		sbuf_addstr(out, "No step was decided, so no wrong step can "
				 "have led to this culprit.");
	} else {
		sbuf_addstr(out, "A wrong culprit needs a wrong step that "
				 "the confirmation repeats: ");
		if (decided == 1)
			sbuf_addstr(out, "the one decided step");
		else
			sbuf_addf(out, "each of the %u decided steps", decided);
		sbuf_addstr(out, " errs at most ");
		add_chance(out, step_alpha);
		sbuf_addstr(out, " of the time and the confirmation repeats "
				 "such an error at most ");
		add_chance(out, confirm_alpha);
		sbuf_addf(
			out,
			" of the time, so the chance of a wrong culprit is at most "
			"%u x ",
			decided);
		add_chance(out, step_alpha);
		sbuf_addstr(out, " x ");
		add_chance(out, confirm_alpha);
		if (wrong < 1) {
			sbuf_addstr(out, " = ");
			add_chance(out, wrong);
			sbuf_addch(out, '.');
		} else {
			sbuf_addstr(out, ", 100% or more: no bound.");
		}
		sbuf_addstr(out, " Each step ran until a sequential test "
				 "decided.");
	}
	sbuf_addf(out,
		  " The culprit was %smeasured again against its parent, "
		  "interleaved on one machine, and had to show a change of "
		  "its own.",
		  decided ? "then " : "");
}

static void section_confidence(struct sbuf *b, const struct rb_report *r)
{
	char c[32];

	if (!(r->confidence >= 0))
		return;
	rb_fmt_confidence(c, sizeof(c), r->confidence);
	body_linef(b, "Confidence: %s", c);
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
		char *clean = rb_mail_sanitized(line);

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
		if (rb_mail_same_address(v[i].email, email))
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

	if (rb_mail_check_message_id(r->message_id) < 0 ||
	    rb_mail_check_address(r->from.email) < 0)
		return -1;
	if (!r->author.email || !*r->author.email)
		return rb_error("the culprit's author has no mail address");
	/* the names that recur in the mail, as they will be printed */
	r->tree = tree = rb_mail_sanitized(orig->tree);
	r->branch = branch = rb_mail_sanitized(orig->branch);
	r->stat = stat = rb_mail_sanitized(orig->stat);
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
	section_cost(&b, r);
	section_confirm(&b, r);
	section_share(&b, r);
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
