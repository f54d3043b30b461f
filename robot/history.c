// SPDX-License-Identifier: GPL-2.0-only
/*
 * A job's history as a table, JSON and SVG (pure; see history.h).
 */
#include <jansson.h>
#include <math.h>

#include "robot.h"
#include "changepoint.h"
#include "history.h"
#include "sbuf.h"
#include "svg.h"

struct history_point *history_add(struct history *h)
{
	struct history_point *p;

	RB_ALLOC_GROW(h->v, h->nr + 1, h->alloc);
	p = &h->v[h->nr++];
	memset(p, 0, sizeof(*p));
	return p;
}

static void history_changes_clear(struct history *h)
{
	size_t i;

	for (i = 0; i < h->changes_nr; i++) {
		free(h->changes[i].bisection_status);
		free(h->changes[i].culprit);
	}
	free(h->changes);
	h->changes = NULL;
	h->changes_nr = 0;
}

static double mean_of(const double *x, size_t from, size_t to)
{
	double sum = 0;
	size_t i;

	for (i = from; i <= to; i++)
		sum += x[i];
	return sum / (double)(to - from + 1);
}

/*
 * A creep: change points of one direction with at most 2 min_seg points
 * between their intervals are one change (the series moved the same way
 * night after night, segmentation cut the ramp).
 */
static size_t merge_creeps(struct change_point *cp, size_t nr, size_t min_seg)
{
	size_t k, out = 0;

	for (k = 0; k < nr; k++) {
		struct change_point *prev = out ? &cp[out - 1] : NULL;
		bool down = cp[k].after < cp[k].before;

		if (prev && (prev->after < prev->before) == down &&
		    cp[k].lo <= prev->hi + 2 * min_seg) {
			prev->hi = cp[k].hi;
			prev->p = RB_MAX(prev->p, cp[k].p);
			if (fabs(cp[k].after - cp[k].before) >
			    fabs(prev->after - prev->before))
				prev->at = cp[k].at;
			prev->after = cp[k].after;
			continue;
		}
		cp[out++] = cp[k];
	}
	return out;
}

int history_find_changes(struct history *h, const char *host, int direction)
{
	struct cp_opts o = CP_OPTS_INIT;
	struct change_point *cp = NULL;
	size_t *idx = xcalloc(h->nr + 1, sizeof(*idx));
	double *x = xcalloc(h->nr + 1, sizeof(*x));
	size_t m = 0, nr = 0, i, k;
	int ret = -1;

	history_changes_clear(h);
	for (i = 0; i < h->nr; i++) {
		const struct history_point *p = &h->v[i];

		if (!p->n || !isfinite(p->mean) ||
		    (host && (!p->host || strcmp(p->host, host))))
			continue;
		idx[m] = i;
		x[m++] = p->mean;
	}
	if (cp_detect(&cp, &nr, x, m, &o) < 0)
		goto out;
	nr = merge_creeps(cp, nr, o.min_seg);
	h->changes = xcalloc(nr + 1, sizeof(*h->changes));
	for (k = 0; k < nr; k++) {
		struct history_change *c = &h->changes[h->changes_nr++];
		size_t start = k ? cp[k - 1].hi : 0;
		size_t end = k + 1 < nr ? cp[k + 1].lo - 1 : m - 1;
		size_t w = RB_MAX(cp[k].hi - cp[k].lo + 1, (size_t)2);
		size_t good = cp[k].lo - 1 >= start + w ? cp[k].lo - 1 - w :
							  start;
		size_t bad = RB_MIN(cp[k].hi + w, end);

		c->at = idx[cp[k].at];
		c->lo = idx[cp[k].lo];
		c->hi = idx[cp[k].hi];
		c->good = idx[good];
		c->bad = idx[bad];
		c->p = cp[k].p;
		/*
		 * The size is what the bisection's endpoints will show: the
		 * level up to the good head against the level from the bad
		 * head on (a creep's ramp is in neither)
		 */
		c->before = mean_of(x, start, good);
		c->after = mean_of(x, bad, end);
		c->change_pct = c->before != 0 ? 100 * (c->after - c->before) /
							 fabs(c->before) :
						 NAN;
		c->kind = (c->after - c->before) * direction < 0 ?
				  "regression" :
				  "improvement";
		for (i = good + 1; i <= bad; i++)
			if (h->v[idx[i]].verdict &&
			    !strcmp(h->v[idx[i]].verdict, c->kind))
				c->called = true;
	}
	ret = 0;
out:
	free(cp);
	free(idx);
	free(x);
	return ret;
}

void history_release(struct history *h)
{
	size_t i;

	for (i = 0; i < h->nr; i++) {
		struct history_point *p = &h->v[i];

		free(p->commit);
		free(p->subject);
		free(p->verdict);
		free(p->baseline);
		free(p->baseline_name);
		free(p->bisection_status);
		free(p->culprit);
		free(p->culprit_subject);
		free(p->still);
		free(p->host);
	}
	history_changes_clear(h);
	free(h->v);
	free(h->job);
	free(h->stat);
	memset(h, 0, sizeof(*h));
}

double history_change_pct(const struct history_point *p)
{
	if (!p->n || !p->has_baseline_mean || p->baseline_mean == 0)
		return NAN;
	return 100.0 * (p->mean / p->baseline_mean - 1);
}

/*
 * Days since 1970-01-01 to a civil date (proleptic Gregorian): the era
 * arithmetic of the 400-year cycle, so no libc time function is needed.
 */
static void civil(int64_t days, int *y, unsigned *m, unsigned *d)
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int)(yoe + era * 400) + (*m <= 2);
}

static void date_text(double t, char *buf, size_t len, bool with_time)
{
	int64_t secs = (int64_t)floor(t), days = secs / 86400;
	int64_t rem = secs - days * 86400;
	unsigned m, d;
	int y;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil(days, &y, &m, &d);
	if (with_time)
		snprintf(buf, len, "%04d-%02u-%02uT%02u:%02u:%02uZ", y, m, d,
			 (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60),
			 (unsigned)(rem % 60));
	else
		snprintf(buf, len, "%04d-%02u-%02u", y, m, d);
}

/* What the nightly made of a head, in a few words. */
static void verdict_text(struct sbuf *sb, const struct history_point *p)
{
	sbuf_addstr(sb, p->verdict ? p->verdict : "-");
	if (p->culprit)
		sbuf_addf(sb, ": culprit %.12s", p->culprit);
	else if (p->bisection && p->bisection_status)
		sbuf_addf(sb, ": bisection %s", p->bisection_status);
	if (p->culprit && p->culprit_subject)
		sbuf_addf(sb, " (\"%s\")", p->culprit_subject);
	if (p->still)
		sbuf_addf(sb, "%sstill regression of %.12s",
			  p->verdict ? ", " : "", p->still);
}

int history_table(const struct history *h, struct sbuf *out)
{
	struct sbuf v = SBUF_INIT;
	size_t i;

	sbuf_addf(out, "# %s: %s\n", h->job, h->stat ? h->stat : "?");
	sbuf_addf(out, "%5s  %-10s  %-12s  %14s  %7s  %4s  %7s  %s\n", "cycle",
		  "date", "commit", "mean", "stddev", "runs", "change",
		  "verdict");
	for (i = 0; i < h->nr; i++) {
		const struct history_point *p = &h->v[i];
		double ch = history_change_pct(p);
		char date[32];

		date_text(p->time, date, sizeof(date), false);
		sbuf_reset(&v);
		if (p->n)
			svg_num(&v, p->mean);
		else
			sbuf_addch(&v, '-');
		sbuf_addf(out, "%5lld  %-10s  %-12.12s  %14s  ",
			  (long long)p->cycle, date, p->commit, v.buf);
		if (p->n > 1 && p->mean != 0)
			sbuf_addf(out, "%6.1f%%",
				  100.0 * p->stddev / fabs(p->mean));
		else
			sbuf_addf(out, "%7s", "-");
		sbuf_addf(out, "  %4zu  ", p->n);
		if (isfinite(ch))
			sbuf_addf(out, "%+6.1f%%", ch);
		else
			sbuf_addf(out, "%7s", "-");
		sbuf_reset(&v);
		verdict_text(&v, p);
		sbuf_addf(out, "  %s\n", v.buf);
	}
	sbuf_release(&v);
	return 0;
}

int history_changes_table(const struct history *h, struct sbuf *out)
{
	size_t i;

	sbuf_addf(out, "# %s: %s: change points\n", h->job,
		  h->stat ? h->stat : "?");
	sbuf_addf(out, "%-13s  %-26s  %7s  %6s  %s\n", "cycles", "commits",
		  "size", "p", "what");
	for (i = 0; i < h->changes_nr; i++) {
		const struct history_change *c = &h->changes[i];
		const struct history_point *g = &h->v[c->good],
					   *b = &h->v[c->bad];
		char cyc[32];

		snprintf(cyc, sizeof(cyc), "%lld..%lld",
			 (long long)h->v[c->lo].cycle,
			 (long long)h->v[c->hi].cycle);
		sbuf_addf(out, "%-13s  %.12s..%.12s  ", cyc, g->commit,
			  b->commit);
		if (isfinite(c->change_pct))
			sbuf_addf(out, "%+6.1f%%", c->change_pct);
		else
			sbuf_addf(out, "%7s", "-");
		sbuf_addf(out, "  %6.4f  %s, ", c->p, c->kind);
		if (c->called)
			sbuf_addstr(out, "called by a cycle");
		else
			sbuf_addstr(out, "not called by a cycle");
		if (c->bisection) {
			sbuf_addf(out, ": bisection %lld %s",
				  (long long)c->bisection,
				  c->bisection_status ? c->bisection_status :
							"running");
			if (c->culprit)
				sbuf_addf(out, " %.12s", c->culprit);
		}
		sbuf_addch(out, '\n');
	}
	if (!h->changes_nr)
		sbuf_addstr(out, "no change point\n");
	return 0;
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int history_json(const struct history *h, struct sbuf *out)
{
	json_t *root = json_object(), *pts = json_array();
	char *text;
	size_t i;
	int r;

	json_object_set_new(root, "job", jstr(h->job));
	json_object_set_new(root, "stat", jstr(h->stat));
	for (i = 0; i < h->nr; i++) {
		const struct history_point *p = &h->v[i];
		json_t *o = json_object();
		char date[32];

		date_text(p->time, date, sizeof(date), true);
		json_object_set_new(o, "cycle", json_integer(p->cycle));
		json_object_set_new(o, "time", json_string(date));
		json_object_set_new(o, "commit", jstr(p->commit));
		json_object_set_new(o, "subject", jstr(p->subject));
		json_object_set_new(o, "runs", json_integer((json_int_t)p->n));
		json_object_set_new(o, "mean",
				    p->n ? jnum(p->mean) : json_null());
		json_object_set_new(o, "stddev",
				    p->n ? jnum(p->stddev) : json_null());
		json_object_set_new(o, "min",
				    p->n ? jnum(p->min) : json_null());
		json_object_set_new(o, "max",
				    p->n ? jnum(p->max) : json_null());
		json_object_set_new(o, "verdict", jstr(p->verdict));
		json_object_set_new(o, "baseline", jstr(p->baseline));
		json_object_set_new(o, "baseline_name", jstr(p->baseline_name));
		json_object_set_new(o, "baseline_mean",
				    p->has_baseline_mean ?
					    jnum(p->baseline_mean) :
					    json_null());
		json_object_set_new(o, "change_pct",
				    jnum(history_change_pct(p)));
		json_object_set_new(o, "bisection",
				    p->bisection ? json_integer(p->bisection) :
						   json_null());
		json_object_set_new(o, "bisection_status",
				    jstr(p->bisection_status));
		json_object_set_new(o, "culprit", jstr(p->culprit));
		json_object_set_new(o, "culprit_subject",
				    jstr(p->culprit_subject));
		json_object_set_new(o, "still", jstr(p->still));
		json_array_append_new(pts, o);
	}
	json_object_set_new(root, "points", pts);
	pts = json_array();
	for (i = 0; i < h->changes_nr; i++) {
		const struct history_change *c = &h->changes[i];

		json_array_append_new(
			pts,
			json_pack(
				"{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:f, "
				"s:s, s:b, s:o, s:o, s:o}",
				"at", h->v[c->at].commit, "first",
				h->v[c->lo].commit, "last", h->v[c->hi].commit,
				"good", h->v[c->good].commit, "bad",
				jstr(h->v[c->bad].commit), "before",
				jnum(c->before), "after", jnum(c->after), "p",
				c->p, "kind", c->kind, "called", c->called,
				"change_pct", jnum(c->change_pct), "bisection",
				c->bisection ? json_integer(c->bisection) :
					       json_null(),
				"culprit", jstr(c->culprit)));
	}
	json_object_set_new(root, "changes", pts);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(12));
	json_decref(root);
	if (!text)
		return rb_error("cannot encode the history as JSON");
	r = sbuf_addstr(out, text);
	sbuf_addch(out, '\n');
	free(text);
	return r;
}

/* --- SVG -------------------------------------------------------------- */

#define SVG_W 900.0
#define SVG_H 460.0
#define SVG_L 90.0
#define SVG_R 30.0
#define SVG_T 70.0
#define SVG_B 90.0

struct scale {
	double lo, hi;
	size_t n;
};

static double sx(const struct scale *s, size_t i)
{
	return SVG_L + ((double)i + 0.5) * (SVG_W - SVG_L - SVG_R) /
			       (double)RB_MAX(s->n, 1);
}

static double sy(const struct scale *s, double v)
{
	return SVG_T + (s->hi - v) / (s->hi - s->lo) * (SVG_H - SVG_T - SVG_B);
}

static const char *color_of(const struct history_point *p)
{
	if (p->verdict && !strcmp(p->verdict, "regression"))
		return "#d62728";
	if (p->verdict && !strcmp(p->verdict, "improvement"))
		return "#2ca02c";
	return "#1f77b4";
}

static void point_title(struct sbuf *sb, const struct history_point *p)
{
	struct sbuf t = SBUF_INIT;
	double ch = history_change_pct(p);

	sbuf_addf(&t, "cycle %lld, %.12s", (long long)p->cycle, p->commit);
	if (p->subject)
		sbuf_addf(&t, " \"%s\"", p->subject);
	if (p->n) {
		sbuf_addstr(&t, ": ");
		svg_num(&t, p->mean);
		sbuf_addstr(&t, " \u00b1 ");
		svg_num(&t, p->stddev);
		sbuf_addf(&t, " (%zu runs)", p->n);
	}
	if (isfinite(ch))
		sbuf_addf(&t, ", %+.1f%% vs %s", ch,
			  p->baseline_name ? p->baseline_name : "baseline");
	sbuf_addstr(&t, ", ");
	verdict_text(&t, p);
	svg_text(sb, t.buf);
	sbuf_release(&t);
}

/* The y scale of the series (means +- stddev), on round steps. */
static double svg_scale(const struct history *h, struct scale *sc)
{
	struct scale s = { 0 };
	double step;
	size_t i;
	bool any = false;

	s.n = h->nr;
	for (i = 0; i < h->nr; i++) {
		const struct history_point *p = &h->v[i];
		double lo = p->mean - p->stddev, hi = p->mean + p->stddev;

		if (!p->n)
			continue;
		if (!any || lo < s.lo)
			s.lo = lo;
		if (!any || hi > s.hi)
			s.hi = hi;
		any = true;
	}
	if (!any) {
		s.lo = 0;
		s.hi = 1;
	}
	if (s.hi - s.lo < 1e-9 * RB_MAX(1, fabs(s.hi)))
		s.hi = s.lo + RB_MAX(1, fabs(s.lo) * 0.1);
	step = svg_nice_step(s.hi - s.lo);
	s.lo = floor(s.lo / step) * step;
	s.hi = ceil(s.hi / step) * step;
	if (s.hi <= s.lo)
		s.hi = s.lo + step;
	*sc = s;
	return step;
}

/* The title, the y axis, its grid and labels, the axes. */
static void svg_axes(struct sbuf *out, const struct history *h,
		     const struct scale *sc, double step, double base_y)
{
	const struct scale s = *sc;
	struct sbuf line = SBUF_INIT;
	double v;

	sbuf_addf(out,
		  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		  "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		  "font-family=\"sans-serif\" font-size=\"12\">\n",
		  SVG_W, SVG_H, SVG_W, SVG_H);
	sbuf_addf(out,
		  "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
		  "fill=\"white\"/>\n",
		  SVG_W, SVG_H);
	sbuf_addf(out,
		  "<text x=\"%.0f\" y=\"22\" font-size=\"15\" "
		  "font-weight=\"bold\">",
		  SVG_L);
	svg_text(out, h->job);
	sbuf_addstr(out, "</text>\n");
	sbuf_addf(out, "<text x=\"%.0f\" y=\"40\">", SVG_L);
	svg_text(out, h->stat);
	sbuf_addstr(out, " per tested head (mean \u00b1 stddev)</text>\n");

	/* the y axis, its grid and labels */
	sbuf_addstr(out, "<g class=\"grid\" stroke=\"#dddddd\">\n");
	for (v = s.lo; v <= s.hi + step / 2; v += step)
		sbuf_addf(out,
			  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			  "y2=\"%.1f\"/>\n",
			  SVG_L, sy(&s, v), SVG_W - SVG_R, sy(&s, v));
	sbuf_addstr(out, "</g>\n<g class=\"yaxis\" text-anchor=\"end\">\n");
	for (v = s.lo; v <= s.hi + step / 2; v += step) {
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">", SVG_L - 6,
			  sy(&s, v) + 4);
		sbuf_reset(&line);
		sbuf_addf(&line, "%g", fabs(v) < step / 1e6 ? 0.0 : v);
		svg_text(out, line.buf);
		sbuf_addstr(out, "</text>\n");
	}
	sbuf_addstr(out, "</g>\n");
	sbuf_addf(out,
		  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		  "stroke=\"black\"/>\n"
		  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		  "stroke=\"black\"/>\n",
		  SVG_L, SVG_T, SVG_L, base_y, SVG_L, base_y, SVG_W - SVG_R,
		  base_y);

	sbuf_release(&line);
}

/* Regressions and improvements: a dashed line and the culprit. */
static void svg_changes(struct sbuf *out, const struct history *h,
			const struct scale *sc, double base_y)
{
	const struct scale s = *sc;
	struct sbuf line = SBUF_INIT;
	size_t i;

	sbuf_addstr(out, "<g class=\"changes\">\n");
	for (i = 0; i < h->nr; i++) {
		const struct history_point *p = &h->v[i];
		double ch = history_change_pct(p);

		if (!p->verdict || (strcmp(p->verdict, "regression") &&
				    strcmp(p->verdict, "improvement")))
			continue;
		sbuf_addf(out,
			  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			  "y2=\"%.1f\" stroke=\"%s\" "
			  "stroke-dasharray=\"4 3\"/>\n",
			  sx(&s, i), SVG_T - 8, sx(&s, i), base_y, color_of(p));
		sbuf_addf(out,
			  "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
			  "text-anchor=\"middle\">",
			  sx(&s, i), SVG_T - 26, color_of(p));
		sbuf_reset(&line);
		sbuf_addstr(&line, p->verdict);
		if (isfinite(ch))
			sbuf_addf(&line, " %+.1f%%", ch);
		svg_text(out, line.buf);
		sbuf_addstr(out, "</text>\n");
		sbuf_addf(out,
			  "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
			  "text-anchor=\"middle\" class=\"culprit\">",
			  sx(&s, i), SVG_T - 12, color_of(p));
		sbuf_reset(&line);
		if (p->culprit)
			sbuf_addf(&line, "culprit %.12s", p->culprit);
		else if (p->bisection_status)
			sbuf_addf(&line, "bisection: %s", p->bisection_status);
		else
			sbuf_addstr(&line, "not bisected");
		svg_text(out, line.buf);
		sbuf_addstr(out, "</text>\n");
	}
	for (i = 0; i < h->changes_nr; i++) {
		const struct history_change *c = &h->changes[i];
		double x0 = c->lo ? (sx(&s, c->lo - 1) + sx(&s, c->lo)) / 2 :
				    sx(&s, 0);
		double x1 = c->hi ? (sx(&s, c->hi - 1) + sx(&s, c->hi)) / 2 :
				    sx(&s, 0);

		/* the heads a bisection of it takes, lightly */
		sbuf_addf(out,
			  "<rect class=\"changerange\" x=\"%.1f\" "
			  "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			  "fill=\"#9467bd\" fill-opacity=\"0.06\"/>\n",
			  sx(&s, c->good), SVG_T,
			  sx(&s, c->bad) - sx(&s, c->good), base_y - SVG_T);
		sbuf_addf(out,
			  "<g class=\"changepoint\"><rect x=\"%.1f\" "
			  "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			  "fill=\"#9467bd\" fill-opacity=\"0.15\" "
			  "stroke=\"#9467bd\" stroke-dasharray=\"2 2\"/>"
			  "<text x=\"%.1f\" y=\"%.1f\" fill=\"#9467bd\" "
			  "text-anchor=\"middle\">",
			  x0 - 3, SVG_T, x1 - x0 + 6, base_y - SVG_T,
			  (x0 + x1) / 2, base_y - 6);
		sbuf_reset(&line);
		sbuf_addstr(&line, "change");
		if (isfinite(c->change_pct))
			sbuf_addf(&line, " %+.1f%%", c->change_pct);
		if (c->culprit)
			sbuf_addf(&line, ": %.12s", c->culprit);
		svg_text(out, line.buf);
		sbuf_addstr(out, "</text></g>\n");
	}
	sbuf_addstr(out, "</g>\n");

	sbuf_release(&line);
}

/* The series: a line through the means, bars, points. */
static void svg_series(struct sbuf *out, const struct history *h,
		       const struct scale *sc, double base_y)
{
	const struct scale s = *sc;
	struct sbuf line = SBUF_INIT;
	bool first = true;
	size_t i;

	sbuf_reset(&line);
	for (i = 0; i < h->nr; i++) {
		if (!h->v[i].n)
			continue;
		sbuf_addf(&line, "%s%.1f,%.1f", first ? "" : " ", sx(&s, i),
			  sy(&s, h->v[i].mean));
		first = false;
	}
	if (line.len)
		sbuf_addf(out,
			  "<polyline class=\"series\" fill=\"none\" "
			  "stroke=\"#1f77b4\" stroke-width=\"1.5\" "
			  "points=\"%s\"/>\n",
			  line.buf);
	sbuf_addstr(out, "<g class=\"points\">\n");
	for (i = 0; i < h->nr; i++) {
		const struct history_point *p = &h->v[i];
		double x = sx(&s, i);

		sbuf_addstr(out, "<g>\n<title>");
		point_title(out, p);
		sbuf_addstr(out, "</title>\n");
		if (!p->n) {
			/* nothing measured: a grey cross on the axis */
			sbuf_addf(out,
				  "<path d=\"M%.1f,%.1f l8,8 m0,-8 l-8,8\" "
				  "stroke=\"#888888\" stroke-width=\"2\"/>\n",
				  x - 4, base_y - 12);
		} else {
			double y = sy(&s, p->mean);

			if (p->stddev > 0)
				sbuf_addf(out,
					  "<path d=\"M%.1f,%.1f V%.1f "
					  "M%.1f,%.1f h8 M%.1f,%.1f h8\" "
					  "stroke=\"#555555\"/>\n",
					  x, sy(&s, p->mean - p->stddev),
					  sy(&s, p->mean + p->stddev), x - 4,
					  sy(&s, p->mean - p->stddev), x - 4,
					  sy(&s, p->mean + p->stddev));
			sbuf_addf(out,
				  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
				  "fill=\"%s\" class=\"%s\"/>\n",
				  x, y, color_of(p),
				  p->verdict ? p->verdict : "none");
			if (p->still)
				sbuf_addf(out,
					  "<circle cx=\"%.1f\" cy=\"%.1f\" "
					  "r=\"9\" fill=\"none\" "
					  "stroke=\"#ff7f0e\" "
					  "stroke-width=\"2\" "
					  "class=\"still\"/>\n",
					  x, y);
		}
		sbuf_addf(
			out,
			"<text x=\"%.1f\" y=\"%.1f\" font-family=\"monospace\" "
			"font-size=\"10\" text-anchor=\"end\" "
			"transform=\"rotate(-45 %.1f %.1f)\">%.7s</text>\n",
			x, base_y + 14, x, base_y + 14, p->commit);
		sbuf_addstr(out, "</g>\n");
	}
	sbuf_addstr(out, "</g>\n");
	sbuf_release(&line);
}

static void svg_legend(struct sbuf *out)
{
	sbuf_addf(out,
		  "<g class=\"legend\" font-size=\"11\">\n"
		  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#1f77b4\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\">tested head</text>\n"
		  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#d62728\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\">regression</text>\n"
		  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#2ca02c\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\">improvement</text>\n"
		  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"none\" "
		  "stroke=\"#ff7f0e\" stroke-width=\"2\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\">still regression</text>\n"
		  "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
		  "fill=\"#9467bd\" fill-opacity=\"0.3\"/>"
		  "<text x=\"%.1f\" y=\"%.1f\">change point</text>\n"
		  "</g>\n",
		  SVG_L, SVG_H - 14, SVG_L + 10, SVG_H - 10, SVG_L + 110,
		  SVG_H - 14, SVG_L + 120, SVG_H - 10, SVG_L + 220, SVG_H - 14,
		  SVG_L + 230, SVG_H - 10, SVG_L + 340, SVG_H - 14, SVG_L + 352,
		  SVG_H - 10, SVG_L + 470, SVG_H - 19, SVG_L + 484, SVG_H - 10);
}

int history_svg(const struct history *h, struct sbuf *out)
{
	struct scale s;
	double step = svg_scale(h, &s), base_y = SVG_H - SVG_B;

	svg_axes(out, h, &s, step, base_y);
	svg_changes(out, h, &s, base_y);
	svg_series(out, h, &s, base_y);
	if (!h->nr)
		sbuf_addf(out,
			  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			  "no tested head yet</text>\n",
			  (SVG_L + SVG_W - SVG_R) / 2, (SVG_T + base_y) / 2);
	svg_legend(out);
	sbuf_addstr(out, "</svg>\n");
	return 0;
}
