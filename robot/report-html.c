// SPDX-License-Identifier: GPL-2.0-only
/*
 * The evidence page of a bisection (report-html.h): HTML with an inline
 * SVG chart, no script. Pure.
 */
#include <math.h>

#include "robot.h"
#include "report-html.h"
#include "sbuf.h"
#include "svg.h"

#define CH_W 900.0
#define CH_H 440.0
#define CH_L 80.0
#define CH_R 20.0
#define CH_T 40.0
#define CH_B 100.0

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;"
	"color:#222;margin:0 auto;max-width:980px;padding:0 12px 24px}"
	"h1{font-size:1.35em;margin:.8em 0 .3em}"
	"h2{font-size:1.1em;margin:1.4em 0 .4em;border-bottom:1px solid #ccc}"
	"code,pre{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace}"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;"
	"margin:0}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}"
	"figure{margin:0}svg.chart{width:100%;height:auto;display:block}"
	"figcaption{font-size:.85em;color:#555}"
	".tbl{overflow-x:auto}table{border-collapse:collapse;font-size:.85em}"
	"th,td{padding:3px 6px;border-bottom:1px solid #e4e4e4;"
	"text-align:left;vertical-align:top}td.n{text-align:right;"
	"font-variant-numeric:tabular-nums;white-space:nowrap}"
	"tr.culprit{background:#fff3c4}"
	"pre{overflow-x:auto;font-size:12px;background:#f7f7f7;padding:8px}"
	".good{color:#2ca02c}.bad{color:#d62728}.skip{color:#7f7f7f}"
	".weak{color:#e07b00}"
	"@media (max-width:640px){body{font-size:14px}td.subject{display:none}}"
	"@media print{body{max-width:none;font-size:10pt;padding:0}"
	"a{color:inherit;text-decoration:none}.tbl{overflow:visible}"
	"pre{white-space:pre-wrap;background:none}"
	"section{break-inside:avoid}}";

static const char *verdict_class(const char *v)
{
	if (!v)
		return "none";
	if (!strcmp(v, "good") || !strcmp(v, "bad") || !strcmp(v, "skip") ||
	    !strcmp(v, "weak"))
		return v;
	return "none";
}

static const char *verdict_color(const char *v)
{
	v = verdict_class(v);
	if (!strcmp(v, "good"))
		return "#2ca02c";
	if (!strcmp(v, "bad"))
		return "#d62728";
	if (!strcmp(v, "weak"))
		return "#e07b00";
	return "#7f7f7f";
}

/*
 * The chance of the verdict against the other one from the step's log
 * likelihood ratio, at even prior odds.
 */
static double step_confidence(const struct rh_commit *c)
{
	return 1 / (1 + exp(-fabs(c->llr)));
}

static void confidence_text(struct sbuf *sb, double p)
{
	if (p >= 0.9995)
		sbuf_addstr(sb, "&gt;99.9%");
	else
		sbuf_addf(sb, "%.1f%%", 100 * p);
}

/* A local path as a file:// URL, for an href (escaped). */
static void file_url(struct sbuf *sb, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)path;

	sbuf_addstr(sb, "file://");
	for (; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			sbuf_addch(sb, (char)*p);
		else
			sbuf_addf(sb, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}

static void link(struct sbuf *sb, const char *path, const char *text)
{
	if (!path || !*path)
		return;
	sbuf_addstr(sb, "<a href=\"");
	file_url(sb, path);
	sbuf_addstr(sb, "\">");
	svg_text(sb, text);
	sbuf_addstr(sb, "</a> ");
}

static void mean_sd(const struct rh_commit *c, bool confirm, double *mean,
		    double *sd, size_t *n)
{
	double s = 0, ss = 0;
	size_t i;

	*n = 0;
	for (i = 0; i < c->runs_nr; i++)
		if (confirm || !c->runs[i].confirm) {
			s += c->runs[i].value;
			(*n)++;
		}
	*mean = *n ? s / (double)*n : NAN;
	for (i = 0; i < c->runs_nr; i++)
		if (confirm || !c->runs[i].confirm)
			ss += (c->runs[i].value - *mean) *
			      (c->runs[i].value - *mean);
	*sd = *n > 1 ? sqrt(ss / (double)(*n - 1)) : 0;
}

static const struct rh_commit *find(const struct rh_report *r, const char *sha)
{
	size_t i;

	for (i = 0; sha && i < r->commits_nr; i++)
		if (!strcmp(r->commits[i].sha, sha))
			return &r->commits[i];
	return NULL;
}

struct chart {
	double lo, hi, colw;
	size_t n;
};

static double cx(const struct chart *ch, size_t i)
{
	return CH_L + ((double)i + 0.5) * ch->colw;
}

static double cy(const struct chart *ch, double v)
{
	return CH_T + (ch->hi - v) / (ch->hi - ch->lo) * (CH_H - CH_T - CH_B);
}

static void chart_range(const struct rh_report *r, struct chart *ch)
{
	size_t i, k;

	ch->lo = INFINITY;
	ch->hi = -INFINITY;
	for (i = 0; i < r->commits_nr; i++)
		for (k = 0; k < r->commits[i].runs_nr; k++) {
			ch->lo = RB_MIN(ch->lo, r->commits[i].runs[k].value);
			ch->hi = RB_MAX(ch->hi, r->commits[i].runs[k].value);
		}
	if (isfinite(r->threshold)) {
		ch->lo = RB_MIN(ch->lo, r->threshold);
		ch->hi = RB_MAX(ch->hi, r->threshold);
	}
	if (!isfinite(ch->lo)) {
		ch->lo = 0;
		ch->hi = 1;
	}
	if (ch->hi - ch->lo < 1e-9 * RB_MAX(fabs(ch->hi), 1)) {
		ch->lo -= RB_MAX(fabs(ch->lo) * 0.05, 0.5);
		ch->hi += RB_MAX(fabs(ch->hi) * 0.05, 0.5);
	}
	ch->lo -= (ch->hi - ch->lo) * 0.06;
	ch->hi += (ch->hi - ch->lo) * 0.06;
	ch->n = r->commits_nr;
	ch->colw = (CH_W - CH_L - CH_R) / (double)RB_MAX(ch->n, 1);
}

static void chart_axes(struct sbuf *o, const struct rh_report *r,
		       const struct chart *ch)
{
	double step = svg_nice_step(ch->hi - ch->lo), v;

	sbuf_addf(o,
		  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		  "fill=\"none\" stroke=\"#999\"/>\n",
		  CH_L, CH_T, CH_W - CH_L - CH_R, CH_H - CH_T - CH_B);
	for (v = ceil(ch->lo / step) * step; v <= ch->hi; v += step) {
		sbuf_addf(o,
			  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			  "y2=\"%.1f\" stroke=\"#eee\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			  "font-size=\"12\">",
			  CH_L, CH_W - CH_R, cy(ch, v), cy(ch, v), CH_L - 6,
			  cy(ch, v) + 4);
		svg_num(o, fabs(v) < step * 1e-9 ? 0 : v);
		sbuf_addstr(o, "</text>\n");
	}
	sbuf_addf(o,
		  "<text x=\"14\" y=\"%.1f\" font-size=\"12\" "
		  "transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">",
		  (CH_T + CH_H - CH_B) / 2, (CH_T + CH_H - CH_B) / 2);
	svg_text(o, r->metric);
	sbuf_addstr(o, r->direction < 0 ? " (lower is better)" :
					  " (higher is better)");
	sbuf_addstr(o, "</text>\n");
}

/* The good and bad anchors' mean ± sd across the chart, the threshold. */
static void chart_bands(struct sbuf *o, const struct rh_report *r,
			const struct chart *ch)
{
	const char *who[2] = { r->good, r->bad };
	const char *color[2] = { "#2ca02c", "#d62728" };
	const char *name[2] = { "good", "bad" };
	int w;

	for (w = 0; w < 2; w++) {
		const struct rh_commit *c = find(r, who[w]);
		double m, sd, top, bot;
		size_t n;

		if (!c)
			continue;
		mean_sd(c, false, &m, &sd, &n);
		if (!n)
			continue;
		top = RB_MAX(cy(ch, m + sd), CH_T);
		bot = RB_MIN(cy(ch, m - sd), CH_H - CH_B);
		sbuf_addf(o,
			  "<g class=\"band %s\"><rect x=\"%.1f\" y=\"%.1f\" "
			  "width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			  "fill-opacity=\"0.12\"/><line x1=\"%.1f\" "
			  "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-opacity=\"0.6\"/><title>%s anchor %.12s: "
			  "mean ",
			  name[w], CH_L, top, CH_W - CH_L - CH_R,
			  RB_MAX(bot - top, 0.5), color[w], CH_L, CH_W - CH_R,
			  cy(ch, m), cy(ch, m), color[w], name[w], c->sha);
		svg_num(o, m);
		sbuf_addstr(o, " &#177; ");
		svg_num(o, sd);
		sbuf_addf(o, " (%zu runs)</title></g>\n", n);
	}
	if (isfinite(r->threshold)) {
		sbuf_addf(
			o,
			"<g class=\"threshold\"><line x1=\"%.1f\" x2=\"%.1f\" "
			"y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
			"stroke-dasharray=\"6 4\"/><text x=\"%.1f\" "
			"y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">"
			"threshold ",
			CH_L, CH_W - CH_R, cy(ch, r->threshold),
			cy(ch, r->threshold), CH_W - CH_R - 4,
			cy(ch, r->threshold) - 4);
		svg_num(o, r->threshold);
		sbuf_addstr(o, "</text></g>\n");
	}
}

static void chart_column(struct sbuf *o, const struct rh_report *r,
			 const struct chart *ch, size_t i)
{
	const struct rh_commit *c = &r->commits[i];
	const char *col = verdict_color(c->verdict);
	double x = cx(ch, i), base = CH_H - CH_B;
	size_t k;

	if (r->culprit && !strcmp(c->sha, r->culprit))
		sbuf_addf(
			o,
			"<rect class=\"culprit\" data-commit=\"%s\" "
			"x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#ffd54f\" fill-opacity=\"0.35\" "
			"stroke=\"#c79a00\"/>\n",
			c->sha, x - ch->colw / 2, CH_T, ch->colw,
			CH_H - CH_T - CH_B);
	for (k = 0; k < c->runs_nr; k++) {
		const struct rh_run *u = &c->runs[k];
		/* spread a column's dots a little, the same way every time */
		double dx = ((double)(k % 5) - 2) * RB_MIN(ch->colw * 0.09, 4);

		sbuf_addf(
			o,
			"<circle class=\"run%s\" data-commit=\"%s\" "
			"data-run=\"%lld\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" ",
			u->confirm ? " confirm" : "", c->sha, (long long)u->id,
			x + dx, cy(ch, u->value));
		if (u->confirm)
			sbuf_addf(o,
				  "fill=\"#fff\" stroke=\"%s\" "
				  "stroke-width=\"1.5\">",
				  col);
		else
			sbuf_addf(o, "fill=\"%s\" fill-opacity=\"0.8\">", col);
		sbuf_addf(o, "<title>%.12s run %lld", c->sha, (long long)u->id);
		if (u->host) {
			sbuf_addstr(o, " on ");
			svg_text(o, u->host);
		}
		sbuf_addstr(o, u->confirm ? " (confirmation): " : ": ");
		svg_num(o, u->value);
		sbuf_addstr(o, "</title></circle>\n");
	}
	/* under the column: its verdict, its step and its confidence */
	sbuf_addf(
		o,
		"<text class=\"verdict %s\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\" font-size=\"12\" font-weight=\"bold\" "
		"fill=\"%s\">%s</text>\n",
		verdict_class(c->verdict), x, base + 16, col,
		c->anchor ?
			(!strcmp(verdict_class(c->verdict), "bad") ? "BAD" :
								     "GOOD") :
		!c->verdict		    ? "-" :
		!strcmp(c->verdict, "good") ? "g" :
		!strcmp(c->verdict, "bad")  ? "b" :
		!strcmp(c->verdict, "skip") ? "s" :
					      "w");
	if (c->step)
		sbuf_addf(o,
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			  "font-size=\"10\">#%u</text>\n",
			  x, base + 29, c->step);
	if (c->has_llr && ch->n <= 30) {
		sbuf_addf(o,
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			  "font-size=\"9\" fill=\"#555\">",
			  x, base + 41);
		confidence_text(o, step_confidence(c));
		sbuf_addstr(o, "</text>\n");
	}
	if (ch->n <= 40)
		sbuf_addf(o,
			  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			  "font-family=\"monospace\" text-anchor=\"end\" "
			  "transform=\"rotate(-60 %.1f %.1f)\">%.7s</text>\n",
			  x + 3, base + 50, x + 3, base + 50, c->sha);
}

static void chart_legend(struct sbuf *o)
{
	static const struct {
		const char *text, *color;
		bool hollow;
	} items[] = {
		{ "good", "#2ca02c", false },
		{ "bad", "#d62728", false },
		{ "weak", "#e07b00", false },
		{ "skip", "#7f7f7f", false },
		{ "confirmation run", "#555", true },
	};
	double x = CH_L;
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(items); i++) {
		sbuf_addf(o,
			  "<circle cx=\"%.1f\" cy=\"18\" r=\"4\" fill=\"%s\" "
			  "stroke=\"%s\"/><text x=\"%.1f\" y=\"22\" "
			  "font-size=\"12\">%s</text>\n",
			  x, items[i].hollow ? "#fff" : items[i].color,
			  items[i].color, x + 8, items[i].text);
		x += 24 + 7.0 * (double)strlen(items[i].text);
	}
	sbuf_addf(o,
		  "<rect x=\"%.1f\" y=\"12\" width=\"14\" height=\"12\" "
		  "fill=\"#ffd54f\" fill-opacity=\"0.5\" stroke=\"#c79a00\"/>"
		  "<text x=\"%.1f\" y=\"22\" font-size=\"12\">culprit</text>\n",
		  x - 4, x + 14);
}

static void section_chart(struct sbuf *o, const struct rh_report *r)
{
	struct chart ch;
	size_t i;

	chart_range(r, &ch);
	sbuf_addstr(o, "<section id=\"chart\"><h2>Every run</h2><figure>");
	sbuf_addf(o,
		  "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		  "viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		  "aria-label=\"runs of each tested commit\">\n",
		  CH_W, CH_H);
	chart_axes(o, r, &ch);
	chart_bands(o, r, &ch);
	for (i = 0; i < r->commits_nr; i++)
		chart_column(o, r, &ch, i);
	chart_legend(o);
	sbuf_addstr(o, "</svg><figcaption>Each dot is one run of ");
	svg_text(o, r->metric);
	sbuf_addstr(o, ", commits from older (left) to newer (right); the "
		       "bands are the good and bad endpoints' mean &#177; "
		       "sample standard deviation. Under each commit: its "
		       "verdict (g good, b bad, w weak, s skip), the order it "
		       "was decided in, and the step's confidence (its "
		       "sequential test's likelihood ratio at even "
		       "odds).</figcaption>"
		       "</figure></section>\n");
}

static void dd_commit(struct sbuf *o, const char *sha, const char *subject)
{
	sbuf_addf(o, "<code>%.12s</code>", sha ? sha : "");
	if (subject) {
		sbuf_addstr(o, " &#8220;");
		svg_text(o, subject);
		sbuf_addstr(o, "&#8221;");
	}
}

static void section_summary(struct sbuf *o, const struct rh_report *r)
{
	const struct rh_commit *g = find(r, r->good), *b = find(r, r->bad);

	sbuf_addstr(o, "<section id=\"summary\"><dl>");
	sbuf_addstr(o, "<dt>job</dt><dd>");
	svg_text(o, r->job);
	sbuf_addstr(o, "</dd><dt>stat</dt><dd>");
	svg_text(o, r->metric);
	sbuf_addstr(o, r->direction < 0 ? " (lower is better)" :
					  " (higher is better)");
	sbuf_addstr(o, "</dd><dt>range</dt><dd>good ");
	dd_commit(o, r->good, g ? g->subject : NULL);
	sbuf_addstr(o, "<br>bad ");
	dd_commit(o, r->bad, b ? b->subject : NULL);
	if (r->tree) {
		sbuf_addstr(o, "<br>on ");
		svg_text(o, r->tree);
		if (r->branch) {
			sbuf_addch(o, '/');
			svg_text(o, r->branch);
		}
	}
	sbuf_addstr(o, "</dd><dt>outcome</dt><dd>");
	svg_text(o, r->status);
	if (r->culprit) {
		sbuf_addstr(o, ": ");
		dd_commit(o, r->culprit, r->culprit_subject);
	}
	sbuf_addstr(o, "</dd>");
	if (isfinite(r->threshold)) {
		sbuf_addstr(o, "<dt>threshold</dt><dd>");
		svg_num(o, r->threshold);
		sbuf_addstr(o, " (a commit on the bad side of it is bad)</dd>");
	}
	if (r->confidence >= 0) {
		/* never rounded up to a certainty */
		sbuf_addstr(o, "<dt>confidence</dt><dd>");
		confidence_text(o, r->confidence);
		sbuf_addstr(o, "</dd>");
	}
	if (r->has_share)
		sbuf_addf(o,
			  "<dt>share</dt><dd>the culprit accounts for %.0f%% "
			  "[%.0f%%, %.0f%%] of the change</dd>",
			  100 * r->share, 100 * r->share_lo, 100 * r->share_hi);
	if (r->has_cost)
		sbuf_addf(o,
			  "<dt>lab time</dt><dd>%u runs, %u boots, %u builds "
			  "(%u by the look-ahead builders, %u unused); the "
			  "boxes waited "
			  "%.0f s for kernels</dd>",
			  r->cost.runs, r->cost.boots, r->cost.builds,
			  r->cost.builds_ahead, r->cost.builds_unused,
			  r->cost.build_wait);
	if (r->mail) {
		sbuf_addstr(o, "<dt>mail</dt><dd><code>");
		svg_text(o, r->mail);
		sbuf_addstr(o, "</code></dd>");
	}
	sbuf_addstr(o, "</dl></section>\n");
}

static void commit_row(struct sbuf *o, const struct rh_report *r,
		       const struct rh_commit *c)
{
	double m, sd;
	size_t n, k;
	bool culprit = r->culprit && !strcmp(c->sha, r->culprit);

	sbuf_addf(o, "<tr data-commit=\"%s\"%s><td class=\"n\">", c->sha,
		  culprit ? " class=\"culprit\"" : "");
	if (c->step)
		sbuf_addf(o, "%u", c->step);
	else if (c->anchor)
		sbuf_addstr(o, "anchor");
	sbuf_addf(o, "</td><td><code>%.12s</code>%s</td><td class=\"subject\">",
		  c->sha, culprit ? " <b>culprit</b>" : "");
	svg_text(o, c->subject);
	sbuf_addf(o, "</td><td class=\"%s\">%s</td><td class=\"n\">",
		  verdict_class(c->verdict), c->verdict ? c->verdict : "-");
	if (c->has_llr)
		confidence_text(o, step_confidence(c));
	mean_sd(c, true, &m, &sd, &n);
	sbuf_addf(o, "</td><td class=\"n\">%zu</td><td class=\"n\">", n);
	if (n) {
		svg_num(o, m);
		sbuf_addstr(o, " &#177; ");
		svg_num(o, sd);
	}
	sbuf_addf(o,
		  "</td><td class=\"n\">%u</td><td class=\"n\">%u</td>"
		  "<td class=\"n\">%u</td><td>",
		  c->builds, c->boots, c->runs_failed + c->boots_failed);
	link(o, c->build_log, "build");
	link(o, c->boot_log, "boot");
	for (k = 0; k < c->runs_nr; k++) {
		char t[24];

		snprintf(t, sizeof(t), "%zu", k + 1);
		link(o, c->runs[k].dir, t);
	}
	sbuf_addstr(o, "</td></tr>\n");
}

static void section_commits(struct sbuf *o, const struct rh_report *r)
{
	size_t i;

	sbuf_addstr(o, "<section id=\"steps\"><h2>Tested commits</h2>"
		       "<div class=\"tbl\"><table id=\"commits\"><thead><tr>"
		       "<th>step</th><th>commit</th><th class=\"subject\">"
		       "subject</th><th>verdict</th><th>confidence</th>"
		       "<th>runs</th><th>mean &#177; sd</th><th>builds</th>"
		       "<th>boots</th><th>failed</th><th>logs</th></tr>"
		       "</thead><tbody>\n");
	for (i = 0; i < r->commits_nr; i++)
		commit_row(o, r, &r->commits[i]);
	sbuf_addstr(o, "</tbody></table></div><p>Runs count every run of "
		       "the stat in this bisection, the confirmation's "
		       "included; failed counts boots and runs that did not "
		       "give a result. sd, here and in the confirmation: the "
		       "sample standard deviation (n &#8722; 1).</p>"
		       "</section>\n");
}

static void confirm_row(struct sbuf *o, const char *who,
			const struct rb_report_measure *m)
{
	sbuf_addf(o,
		  "<tr><td>%s</td><td><code>%.12s</code></td>"
		  "<td class=\"n\">%u</td><td class=\"n\">",
		  who, m->sha ? m->sha : "", m->runs);
	svg_num(o, m->mean);
	sbuf_addstr(o, "</td><td class=\"n\">");
	if (m->spread >= 0)
		svg_num(o, m->spread);
	sbuf_addstr(o, "</td></tr>");
}

static void section_confirm(struct sbuf *o, const struct rh_report *r)
{
	const struct rb_report_confirm *f = r->confirm;

	if (!f)
		return;
	sbuf_addstr(o, "<section id=\"confirmation\"><h2>Confirmation</h2>"
		       "<div class=\"tbl\"><table><thead><tr><th></th>"
		       "<th>commit</th><th>runs</th><th>mean</th><th>sd</th>"
		       "</tr></thead><tbody>");
	confirm_row(o, "parent", &f->parent);
	confirm_row(o, "culprit", &f->culprit);
	sbuf_addf(o,
		  "</tbody></table></div><p>%s: the culprit changes the "
		  "stat by %+.2f%%",
		  f->reproduced ? "Reproduced" : "Not reproduced", f->pct);
	if (f->ci_level > 0)
		sbuf_addf(o, " [%+.2f%%, %+.2f%%] at %.0f%%", f->ci_lo,
			  f->ci_hi, 100 * f->ci_level);
	if (f->rounds)
		sbuf_addf(o, ", in %u interleaved rounds on one machine",
			  f->rounds);
	if (f->p_value >= 0) {
		sbuf_addf(o, "; p = %.3g", f->p_value);
		if (f->method) {
			sbuf_addstr(o, " (");
			svg_text(o, f->method);
			sbuf_addch(o, ')');
		}
	}
	sbuf_addstr(o, ".</p></section>\n");
}

static void section_monitors(struct sbuf *o, const struct rh_report *r)
{
	size_t i;

	if (!r->monitors_nr)
		return;
	sbuf_addstr(o, "<section id=\"monitors\"><h2>Monitors: the culprit "
		       "and its parent</h2><div class=\"tbl\"><table><thead>"
		       "<tr><th>stat</th><th>parent</th><th>culprit</th>"
		       "<th>change</th></tr></thead><tbody>\n");
	for (i = 0; i < r->monitors_nr; i++) {
		const struct rh_stat *s = &r->monitors[i];

		sbuf_addstr(o, "<tr><td>");
		svg_text(o, s->name);
		sbuf_addstr(o, "</td><td class=\"n\">");
		svg_num(o, s->parent);
		sbuf_addstr(o, "</td><td class=\"n\">");
		svg_num(o, s->culprit);
		sbuf_addstr(o, "</td><td class=\"n\">");
		if (s->parent != 0)
			sbuf_addf(o, "%+.1f%%",
				  100 * (s->culprit - s->parent) /
					  fabs(s->parent));
		sbuf_addstr(o, "</td></tr>\n");
	}
	sbuf_addstr(o, "</tbody></table></div></section>\n");
}

static void section_pre(struct sbuf *o, const char *id, const char *title,
			const char *text, const char *note)
{
	if (!text || !*text)
		return;
	sbuf_addf(o, "<section id=\"%s\"><h2>%s</h2><pre>", id, title);
	svg_text(o, text);
	sbuf_addstr(o, "</pre>");
	if (note)
		sbuf_addf(o, "<p>%s</p>", note);
	sbuf_addstr(o, "</section>\n");
}

int rh_render(struct sbuf *out, const struct rh_report *r)
{
	if (!r->metric || !r->commits_nr) {
		rb_error("bisection %lld: no measured commit to show",
			 (long long)r->id);
		return -1;
	}
	sbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
			 "<meta charset=\"utf-8\"><meta name=\"viewport\" "
			 "content=\"width=device-width, initial-scale=1\">"
			 "<link rel=\"icon\" href=\"data:,\"><title>");
	sbuf_addf(out, "bisection %lld: ", (long long)r->id);
	svg_text(out, r->metric);
	sbuf_addf(out, "</title><style>%s</style></head><body>\n<h1>", css);
	if (r->culprit) {
		sbuf_addf(out, "<code>%.12s</code> ", r->culprit);
		svg_text(out, r->culprit_subject);
	} else {
		sbuf_addf(out, "bisection %lld: ", (long long)r->id);
		svg_text(out, r->status);
	}
	sbuf_addstr(out, "</h1>\n");
	section_summary(out, r);
	section_chart(out, r);
	section_commits(out, r);
	section_confirm(out, r);
	/* lkp's %stddev (compare.c): not the sd of the tables above */
	section_pre(out, "compare", "Compare table", r->table,
		    r->confirm ?
			    "On the confirmation's runs. &#177;%: lkp's "
			    "%stddev, the population standard deviation (n) "
			    "as a percentage of the mean." :
			    "&#177;%: lkp's %stddev, the population standard "
			    "deviation (n) as a percentage of the mean.");
	section_monitors(out, r);
	section_pre(out, "reproduce", "Reproduce", r->reproduce, NULL);
	sbuf_addf(out,
		  "<footer><p>Made by the kernel test robot from "
		  "bisection %lld of its store.</p></footer>\n"
		  "</body></html>\n",
		  (long long)r->id);
	return 0;
}
