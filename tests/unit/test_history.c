// SPDX-License-Identifier: GPL-2.0-only
/*
 * A job's history as a table, JSON and SVG (history.c).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "robot.h"
#include "history.h"
#include "sbuf.h"

static void fill(struct history *h)
{
	struct history_point *p;

	h->job = xstrdup("stress-ng/1-mmapaddr-1s");
	h->stat = xstrdup("stress-ng.mmapaddr.ops_per_sec");
	p = history_add(h);
	p->cycle = 1;
	p->time = 951782400; /* 2000-02-29 */
	p->commit = xstrdup("1111111111111111111111111111111111111111");
	p->n = 3;
	p->mean = 1000;
	p->stddev = 10;
	p->verdict = xstrdup("first");
	p = history_add(h);
	p->cycle = 2;
	p->time = 951782400 + 86400;
	p->commit = xstrdup("2222222222222222222222222222222222222222");
	p->subject = xstrdup("mm: a <slow> & \"careful\" path");
	p->n = 4;
	p->mean = 600;
	p->stddev = 12;
	p->verdict = xstrdup("regression");
	p->baseline = xstrdup("1111111111111111111111111111111111111111");
	p->baseline_name = xstrdup("previous head");
	p->has_baseline_mean = true;
	p->baseline_mean = 1000;
	p->bisection = 1;
	p->bisection_status = xstrdup("found");
	p->culprit = xstrdup("3333333333333333333333333333333333333333");
	p->culprit_subject = xstrdup("mm: walk the table");
	p = history_add(h);
	p->cycle = 3;
	p->time = 0;
	p->commit = xstrdup("4444444444444444444444444444444444444444");
	p->verdict = xstrdup("untestable");
	p = history_add(h);
	p->cycle = 4;
	p->time = 86400.0 * 365;
	p->commit = xstrdup("5555555555555555555555555555555555555555");
	p->n = 3;
	p->mean = 610;
	p->stddev = 0;
	p->verdict = xstrdup("unchanged");
	p->still = xstrdup("3333333333333333333333333333333333333333");
}

Test(history, table)
{
	struct history h = HISTORY_INIT;
	struct sbuf sb = SBUF_INIT;

	fill(&h);
	cr_assert_eq(history_table(&h, &sb), 0);
	cr_expect_str_eq(
		sb.buf,
		"# stress-ng/1-mmapaddr-1s: stress-ng.mmapaddr.ops_per_sec\n"
		"cycle  date        commit                  mean   stddev  "
		"runs   change  verdict\n"
		"    1  2000-02-29  111111111111         1000.00     1.0%     "
		"3        -  first\n"
		"    2  2000-03-01  222222222222          600.00     2.0%     "
		"4   -40.0%  regression: culprit 333333333333 (\"mm: walk the "
		"table\")\n"
		"    3  1970-01-01  444444444444               -        -     "
		"0        -  untestable\n"
		"    4  1971-01-01  555555555555          610.00     0.0%     "
		"3        -  unchanged, still regression of 333333333333\n");
	sbuf_release(&sb);
	history_release(&h);
}

Test(history, change)
{
	struct history_point p = { .n = 2, .mean = 90 };

	cr_expect(isnan(history_change_pct(&p)));
	p.has_baseline_mean = true;
	p.baseline_mean = 100;
	cr_expect_float_eq(history_change_pct(&p), -10, 1e-9);
	p.n = 0;
	cr_expect(isnan(history_change_pct(&p)));
}

Test(history, json)
{
	struct history h = HISTORY_INIT;
	struct sbuf sb = SBUF_INIT;

	fill(&h);
	cr_assert_eq(history_json(&h, &sb), 0);
	cr_expect(strstr(sb.buf, "\"job\": \"stress-ng/1-mmapaddr-1s\""));
	cr_expect(strstr(sb.buf, "\"time\": \"2000-02-29T00:00:00Z\""));
	cr_expect(strstr(sb.buf, "\"change_pct\": -40.0"));
	cr_expect(strstr(sb.buf, "\"culprit\": \"3333333333333333333333333333"
				 "333333333333\""));
	cr_expect(strstr(sb.buf, "\"mean\": null"), "untestable: no mean");
	cr_expect(strstr(sb.buf, "\"still\": \"333"));
	sbuf_release(&sb);
	history_release(&h);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

Test(history, svg)
{
	struct history h = HISTORY_INIT;
	struct sbuf sb = SBUF_INIT;

	fill(&h);
	cr_assert_eq(history_svg(&h, &sb), 0);
	cr_expect(rb_starts_with(sb.buf, "<?xml version=\"1.0\""));
	cr_expect(rb_ends_with(sb.buf, "</svg>\n"));
	cr_expect_eq(count(sb.buf, "<svg "), 1);
	/* a point per measured head, the regression red, one still ring */
	cr_expect_eq(count(sb.buf, "class=\"first\""), 1);
	cr_expect_eq(count(sb.buf, "class=\"regression\""), 1);
	cr_expect_eq(count(sb.buf, "class=\"still\""), 1);
	cr_expect(strstr(sb.buf, "culprit 333333333333</text>"));
	cr_expect(strstr(sb.buf, "regression -40.0%</text>"));
	/* text from commits is escaped */
	cr_expect(strstr(sb.buf, "a &lt;slow&gt; &amp; &quot;careful&quot;"));
	cr_expect_null(strstr(sb.buf, "<slow>"));
	/* one polyline through the three measured heads */
	cr_expect_eq(count(sb.buf, "<polyline"), 1);
	cr_expect_eq(count(sb.buf, "<title>"), 4);
	sbuf_release(&sb);
	history_release(&h);
}

Test(history, svg_empty)
{
	struct history h = HISTORY_INIT;
	struct sbuf sb = SBUF_INIT;

	h.job = xstrdup("j");
	h.stat = xstrdup("s");
	cr_assert_eq(history_svg(&h, &sb), 0);
	cr_expect(strstr(sb.buf, "no tested head yet"));
	sbuf_release(&sb);
	history_release(&h);
}

/*
 * A series of 24 nights: 1000 for 12, then 880 (a 12% drop) for 12, in a
 * little deterministic noise; night 6 untestable (no runs). The drop is
 * one change point, a regression when higher is better, not called.
 */
static void creep_series(struct history *h, const char *called_verdict)
{
	size_t i;

	h->job = xstrdup("stress-ng/1-mmapaddr-1s");
	h->stat = xstrdup("stress-ng.mmapaddr.ops_per_sec");
	for (i = 0; i < 24; i++) {
		struct history_point *p = history_add(h);

		p->cycle = (int64_t)i + 1;
		p->commit = xstrfmt("%040zx", i + 1);
		p->host = xstrdup("box");
		p->verdict = xstrdup(i == 13 && called_verdict ?
					     called_verdict :
					     "unchanged");
		if (i == 6)
			continue;
		p->n = 3;
		p->mean = (i < 12 ? 1000 : 880) + (double)((i * 37) % 11) - 5;
	}
}

Test(history, change_points)
{
	struct history h = HISTORY_INIT;
	struct sbuf sb = SBUF_INIT;
	const struct history_change *c;

	creep_series(&h, NULL);
	cr_assert_eq(history_find_changes(&h, "box", +1), 0);
	cr_assert_eq(h.changes_nr, 1);
	c = &h.changes[0];
	cr_expect_eq(c->at, 12);
	cr_expect(c->lo <= 12 && c->hi >= 12);
	cr_expect(c->good < c->lo && c->bad >= c->hi, "good %zu bad %zu",
		  c->good, c->bad);
	cr_expect_neq(c->good, 6, "the untestable night is no endpoint");
	cr_expect_str_eq(c->kind, "regression");
	cr_expect_not(c->called);
	cr_expect(c->change_pct < -10 && c->change_pct > -14, "%f",
		  c->change_pct);
	cr_expect_leq(c->p, 0.005);
	cr_assert_eq(history_changes_table(&h, &sb), 0);
	cr_expect(strstr(sb.buf, "regression, not called by a cycle\n") != NULL,
		  "%s", sb.buf);
	sbuf_reset(&sb);
	cr_assert_eq(history_svg(&h, &sb), 0);
	cr_expect(strstr(sb.buf, "class=\"changepoint\"") != NULL);
	sbuf_reset(&sb);
	cr_assert_eq(history_json(&h, &sb), 0);
	cr_expect(strstr(sb.buf, "\"changes\": [") != NULL);
	/* lower is better: the same drop is an improvement */
	cr_assert_eq(history_find_changes(&h, "box", -1), 0);
	cr_assert_eq(h.changes_nr, 1);
	cr_expect_str_eq(h.changes[0].kind, "improvement");
	/* another host measured none of it */
	cr_assert_eq(history_find_changes(&h, "other", +1), 0);
	cr_expect_eq(h.changes_nr, 0);
	sbuf_release(&sb);
	history_release(&h);
}

Test(history, change_point_called_by_a_cycle)
{
	struct history h = HISTORY_INIT;

	creep_series(&h, "regression");
	cr_assert_eq(history_find_changes(&h, NULL, +1), 0);
	cr_assert_eq(h.changes_nr, 1);
	cr_expect(h.changes[0].called);
	history_release(&h);
}
