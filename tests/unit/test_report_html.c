// SPDX-License-Identifier: GPL-2.0-only
/*
 * The evidence page of a bisection (report-html.c).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "robot.h"
#include "report-html.h"
#include "report-page.h"
#include "sbuf.h"

#define NC 20
#define NR 10

static struct rh_commit commits[NC];
static struct rh_run runs[NC][NR];
static char shas[NC][41];

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* 20 commits of 10 runs: the first 12 good (~1000), then bad (~600). */
static void fill(struct rh_report *r)
{
	size_t i, k;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < NC; i++) {
		snprintf(shas[i], sizeof(shas[i]), "%040zx", i + 1);
		commits[i] = (struct rh_commit){
			.sha = shas[i],
			.subject = i == 12 ? "mm: <script>alert(1)</script> & "
					     "\"quoted\"" :
					     "lib: a change",
			.verdict = i < 12 ? "good" : "bad",
			.anchor = i == 0 || i == NC - 1,
			.step = i == 0 || i == NC - 1 ? 0 : (unsigned)i,
			.has_llr = i && i != NC - 1,
			.llr = i < 12 ? -8 : 9,
			.bound = 6.9,
			.builds = 1,
			.boots = 1,
			.build_log = "/w/build log#1",
			.runs = runs[i],
			.runs_nr = NR,
		};
		for (k = 0; k < NR; k++)
			runs[i][k] = (struct rh_run){
				.id = (int64_t)(i * NR + k + 1),
				.value =
					(i < 12 ? 1000 : 600) +
					(double)((k * 7919 + i * 104729) % 41) -
					20,
				.host = "box",
				.dir = "/w/results/run",
				.confirm = (i == 11 || i == 12) && k >= 6,
			};
	}
	r->id = 7;
	r->job = "stress-ng/1-mmapaddr-1s";
	r->metric = "stress-ng.mmapaddr.ops_per_sec";
	r->status = "found";
	r->direction = 1;
	r->threshold = 800;
	r->good = shas[0];
	r->bad = shas[NC - 1];
	r->culprit = shas[12];
	r->culprit_subject = commits[12].subject;
	r->parent = shas[11];
	r->confidence = 0.995;
	r->commits = commits;
	r->commits_nr = NC;
	r->table = "  a <b> table";
}

Test(report_html, page_of_200_runs)
{
	struct rh_report r;
	struct sbuf sb = SBUF_INIT;

	fill(&r);
	cr_assert_eq(rh_render(&sb, &r), 0);
	cr_log_info("a page of %d runs: %zu bytes", NC * NR, sb.len);
	cr_assert_lt(sb.len, 300000);
	cr_assert_eq(count(sb.buf, "<circle class=\"run"), NC * NR);
	cr_assert_eq(count(sb.buf, "<circle class=\"run confirm\""), 8);
	cr_assert_eq(count(sb.buf, "<rect class=\"culprit\""), 1);
	cr_assert(strstr(sb.buf, "<rect class=\"culprit\" data-commit=\"") &&
		  strstr(strstr(sb.buf, "<rect class=\"culprit\""), shas[12]));
	cr_assert_eq(count(sb.buf, "<tr data-commit="), NC);
	cr_assert_eq(count(sb.buf, "class=\"culprit\"><td"), 1);
	/* text from commits and jobs is text, never markup */
	cr_assert_null(strstr(sb.buf, "<script"));
	cr_assert_not_null(strstr(sb.buf, "&lt;script&gt;"));
	cr_assert_not_null(strstr(sb.buf, "&amp; &quot;quoted&quot;"));
	cr_assert_not_null(strstr(sb.buf, "a &lt;b&gt; table"));
	/* a local path as a URL: the space and the # encoded */
	cr_assert_not_null(
		strstr(sb.buf, "href=\"file:///w/build%20log%231\""));
	/* nothing fetched (the SVG namespace is a name, not a load) */
	cr_assert_null(strstr(sb.buf, "src="));
	cr_assert_null(strstr(sb.buf, "href=\"http"));
	cr_assert_null(strstr(sb.buf, "url("));
	cr_assert_not_null(strstr(sb.buf, "threshold 800.00"));
	cr_assert_not_null(strstr(sb.buf, "<dt>confidence</dt><dd>99.5%</dd>"));
	sbuf_release(&sb);
	/* a confidence is never rounded up to a certainty */
	r.confidence = 0.99996;
	cr_assert_eq(rh_render(&sb, &r), 0);
	cr_assert_not_null(
		strstr(sb.buf, "<dt>confidence</dt><dd>&gt;99.9%</dd>"));
	sbuf_release(&sb);
}

Test(report_html, verdicts_and_confidence_under_the_columns)
{
	struct rh_report r;
	struct sbuf sb = SBUF_INIT;

	fill(&r);
	commits[5].verdict = "weak";
	commits[5].llr = 1.0986; /* odds 3:1 */
	commits[6].verdict = "skip";
	commits[6].has_llr = false;
	cr_assert_eq(rh_render(&sb, &r), 0);
	cr_assert_not_null(strstr(sb.buf, "class=\"verdict weak\""));
	cr_assert_not_null(strstr(sb.buf, "class=\"verdict skip\""));
	cr_assert_not_null(strstr(sb.buf, ">75.0%</text>"));
	cr_assert_not_null(strstr(sb.buf, ">&gt;99.9%</text>"));
	cr_assert_eq(count(sb.buf, ">GOOD</text>"), 1);
	cr_assert_eq(count(sb.buf, ">BAD</text>"), 1);
	sbuf_release(&sb);
}

Test(report_html, nothing_to_show_is_an_error)
{
	struct rh_report r;
	struct sbuf sb = SBUF_INIT;

	fill(&r);
	r.commits_nr = 0;
	cr_assert_eq(rh_render(&sb, &r), -1);
	sbuf_release(&sb);
}

Test(report_html, one_value_everywhere_still_draws)
{
	struct rh_report r;
	struct sbuf sb = SBUF_INIT;
	size_t i, k;

	fill(&r);
	for (i = 0; i < NC; i++)
		for (k = 0; k < NR; k++)
			runs[i][k].value = 5;
	r.threshold = NAN;
	cr_assert_eq(rh_render(&sb, &r), 0);
	cr_assert_null(strstr(sb.buf, "nan"));
	cr_assert_null(strstr(sb.buf, "inf"));
	cr_assert_null(strstr(sb.buf, "class=\"threshold\""));
	sbuf_release(&sb);
}

/*
 * The lab time says who made the builds it counts as ahead: the
 * look-ahead's builders, which build the anchors too before anything is
 * measured (a box may wait for them), so not "ahead of need".
 */
Test(report_html, lab_time_says_who_built)
{
	struct rh_report r;
	struct sbuf sb = SBUF_INIT;

	fill(&r);
	r.has_cost = true;
	r.cost = (struct rb_report_cost){ .runs = 22,
					  .boots = 12,
					  .builds = 14,
					  .builds_ahead = 13,
					  .builds_unused = 6,
					  .build_wait = 8.4 };
	cr_assert_eq(rh_render(&sb, &r), 0);
	cr_assert_not_null(strstr(sb.buf, "22 runs, 12 boots, 14 builds (13 "
					  "by the look-ahead builders, 6 "
					  "unused); the boxes waited 8 s"),
			   "%s", sb.buf);
	cr_assert_null(strstr(sb.buf, "ahead of need"));
	sbuf_release(&sb);
}

/*
 * The compare table's ±% is lkp's population stddev, the other tables'
 * sd the sample one: the page says which is which (for the same runs
 * they differ, and nothing else told them apart).
 */
Test(report_html, says_which_sd_each_table_shows)
{
	static const struct rb_report_confirm conf = {
		.parent = { "0000000000000000000000000000000000000c", 1000, 9,
			    6 },
		.culprit = { "0000000000000000000000000000000000000d", 600, 8,
			     6 },
		.pct = -40,
		.p_value = -1,
		.reproduced = true,
	};
	struct rh_report r;
	struct sbuf sb = SBUF_INIT;
	const char *cmp, *steps;

	fill(&r);
	cr_assert_eq(rh_render(&sb, &r), 0);
	cmp = strstr(sb.buf, "<section id=\"compare\">");
	steps = strstr(sb.buf, "<section id=\"steps\">");
	cr_assert(cmp && steps);
	cr_assert_not_null(strstr(cmp, "lkp's %stddev, the population "
				       "standard deviation (n) as a "
				       "percentage of the mean.</p>"));
	cr_assert_not_null(strstr(steps, "sd, here and in the confirmation: "
					 "the sample standard deviation (n "
					 "&#8722; 1).</p>"));
	cr_assert_null(strstr(cmp, "confirmation's runs"));
	sbuf_release(&sb);
	/* with a confirmation the table is on its runs (reporting.c) */
	r.confirm = &conf;
	cr_assert_eq(rh_render(&sb, &r), 0);
	cmp = strstr(sb.buf, "<section id=\"compare\">");
	cr_assert(cmp && strstr(cmp, "<p>On the confirmation's runs. "));
	sbuf_release(&sb);
}

/*
 * Which way is better, for the page and the mail alike: the stat's own
 * meaning first. A bisected improvement has its bad side higher (result
 * "direction" -1), which the page used to print as "lower is better"
 * while the mail, from the stat, said "higher is better".
 */
Test(report_html, direction_from_the_stat_then_the_bisection)
{
	static const struct {
		const char *metric;
		int result_direction, want;
	} cases[] = {
		/* a regression and an improvement of a higher-is-better stat */
		{ "stress-ng.mmapaddr.ops_per_sec", 1, 1 },
		{ "stress-ng.mmapaddr.ops_per_sec", -1, 1 },
		/* a stat of unknown meaning: the bisection's good side */
		{ "toy.unknown_stat", -1, -1 },
		{ "toy.unknown_stat", 1, 1 },
		{ "toy.unknown_stat", 0, 0 },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		json_t *res = json_pack("{s:i}", "direction",
					cases[i].result_direction);

		cr_expect_eq(report_direction(cases[i].metric, res),
			     cases[i].want, "case %zu", i);
		json_decref(res);
	}
}
