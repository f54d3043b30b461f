// SPDX-License-Identifier: GPL-2.0-only
/*
 * How many runs a head gets and what they say (nightly-plan.c).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "robot.h"
#include "nightly-plan.h"
#include "sbuf.h"

/* n values around mean with a relative spread (deterministic, seeded) */
static void series(double *v, size_t n, double mean, double spread,
		   unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = mean *
		       (1 + spread * (((seed >> 16) & 0x7fff) / 32767.0 - 0.5));
	}
}

Test(nightly_plan, runs_and_verdicts)
{
	static const struct {
		const char *what;
		size_t nh, nb; /* nb (size_t)-1: no baseline */
		double head, hspread, base, bspread;
		int direction;
		enum nplan_next next;
		const char *verdict;
	} cases[] = {
		{ "too few head runs", 2, 3, 100, 0.01, 100, 0.01, 1,
		  NPLAN_HEAD, NULL },
		{ "no baseline, steady", 3, (size_t)-1, 100, 0.01, 0, 0, 1,
		  NPLAN_DONE, "first" },
		{ "no baseline, noisy", 4, (size_t)-1, 100, 0.6, 0, 0, 1,
		  NPLAN_HEAD, NULL },
		{ "no baseline, noisy at the cap", 8, (size_t)-1, 100, 0.6, 0,
		  0, 1, NPLAN_DONE, "first" },
		{ "a baseline without runs", 3, 0, 100, 0.01, 0, 0, 1,
		  NPLAN_BASE, NULL },
		{ "a 40% drop", 3, 3, 60, 0.02, 100, 0.02, 1, NPLAN_DONE,
		  "regression" },
		{ "a 40% rise", 3, 3, 140, 0.02, 100, 0.02, 1, NPLAN_DONE,
		  "improvement" },
		{ "a rise of a lower-is-better stat", 3, 3, 140, 0.02, 100,
		  0.02, -1, NPLAN_DONE, "regression" },
		{ "steady and the same", 3, 3, 100, 0.005, 100, 0.005, 1,
		  NPLAN_DONE, "unchanged" },
		{ "noisy: the head runs again", 3, 5, 100, 0.5, 100, 0.5, 1,
		  NPLAN_HEAD, NULL },
		{ "noisy: the baseline runs again", 5, 3, 100, 0.5, 100, 0.5, 1,
		  NPLAN_BASE, NULL },
		{ "noisy: the baseline at its cap", 5, 8, 100, 0.5, 100, 0.5, 1,
		  NPLAN_HEAD, NULL },
		{ "noisy at the cap", 8, 8, 100, 0.5, 100, 0.5, 1, NPLAN_DONE,
		  "undecided" },
		{ "a change below the threshold", 6, 6, 97, 0.005, 100, 0.005,
		  1, NPLAN_DONE, "unchanged" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct nplan_opts o = { .min_runs = 3,
					.max_runs = 8,
					.threshold_pct = 10,
					.direction = cases[i].direction };
		double h[16], b[16];
		struct nplan p;
		struct sbuf why = SBUF_INIT;
		bool nobase = cases[i].nb == (size_t)-1;

		series(h, cases[i].nh, cases[i].head, cases[i].hspread,
		       (unsigned)i * 7 + 1);
		if (!nobase)
			series(b, cases[i].nb, cases[i].base, cases[i].bspread,
			       (unsigned)i * 7 + 3);
		cr_assert_eq(nplan_next(&o, h, cases[i].nh, nobase ? NULL : b,
					nobase ? 0 : cases[i].nb, &p, &why),
			     0, "%s: %s", cases[i].what, rb_errmsg());
		cr_expect_eq(p.next, cases[i].next, "%s: next %d",
			     cases[i].what, p.next);
		if (cases[i].verdict)
			cr_expect_str_eq(p.verdict, cases[i].verdict, "%s: %s",
					 cases[i].what, why.buf);
		else
			cr_expect_null(p.verdict, "%s", cases[i].what);
		if (p.next == NPLAN_DONE)
			cr_expect_gt(why.len, 0, "%s: no reason",
				     cases[i].what);
		sbuf_release(&why);
	}
}

Test(nightly_plan, needs_a_threshold_and_a_direction)
{
	struct nplan_opts o = { .min_runs = 3, .max_runs = 8 };
	double v[3] = { 1, 2, 3 };
	struct nplan p;

	cr_expect_eq(nplan_next(&o, v, 3, NULL, 0, &p, NULL), -1);
	o.threshold_pct = 5;
	cr_expect_eq(nplan_next(&o, v, 3, NULL, 0, &p, NULL), -1);
	o.direction = 1;
	cr_expect_eq(nplan_next(&o, v, 3, NULL, 0, &p, NULL), 0);
}

/*
 * Stored baseline runs from another day, when the lab's level has moved:
 * a change is only called against baseline runs of this cycle.
 */
Test(nightly_plan, drift_needs_fresh_baseline_runs)
{
	struct nplan_opts o = { .min_runs = 3,
				.max_runs = 8,
				.threshold_pct = 10,
				.direction = 1 };
	double head[3], fresh[3] = { 0 };
	struct nplan p;

	series(head, 3, 60, 0.02, 1);
	/* stored runs from another day (the level was higher) are not the
	 * plan's to see: no fresh runs yet, the baseline runs again before
	 * any verdict */
	cr_assert_eq(nplan_next(&o, head, 3, fresh, 0, &p, NULL), 0);
	cr_expect_eq(p.next, NPLAN_BASE);
	cr_expect_null(p.verdict);
	/* fresh runs at the head's level: nothing changed */
	series(fresh, 3, 60, 0.02, 3);
	cr_assert_eq(nplan_next(&o, head, 3, fresh, 3, &p, NULL), 0);
	cr_expect_eq(p.next, NPLAN_DONE);
	cr_expect_str_eq(p.verdict, "unchanged");
	/* fresh runs at the old level: the drop is real */
	series(fresh, 3, 100, 0.02, 4);
	cr_assert_eq(nplan_next(&o, head, 3, fresh, 3, &p, NULL), 0);
	cr_expect_str_eq(p.verdict, "regression");
	cr_expect_lt(p.det.change_pct, -30);
}

/*
 * Over many seeded histories without a change, the nightly calls a
 * regression rarely (the detection's alpha is 1%, one-sided, and every
 * look of the adaptive loop spends some of it).
 */
Test(nightly_plan, few_false_regressions)
{
	struct nplan_opts o = { .min_runs = 3,
				.max_runs = 10,
				.threshold_pct = 5,
				.direction = 1 };
	unsigned trial, false_reg = 0, seed = 12345;
	const unsigned trials = 400;

	for (trial = 0; trial < trials; trial++) {
		double h[16], b[16];
		size_t nh = 0, nb = 0;
		struct nplan p;

		for (;;) {
			cr_assert_eq(nplan_next(&o, h, nh, b, nb, &p, NULL), 0);
			if (p.next == NPLAN_DONE)
				break;
			/* gaussian noise of 4% around 100 (Box-Muller) */
			{
				double u1, u2, z;

				seed = seed * 1103515245u + 12345u;
				u1 = ((seed >> 8) & 0xffffff) / 16777216.0 +
				     1e-9;
				seed = seed * 1103515245u + 12345u;
				u2 = ((seed >> 8) & 0xffffff) / 16777216.0;
				z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
				if (p.next == NPLAN_HEAD)
					h[nh++] = 100 * (1 + 0.04 * z);
				else
					b[nb++] = 100 * (1 + 0.04 * z);
			}
		}
		false_reg += !strcmp(p.verdict, "regression");
	}
	cr_expect_leq(false_reg, trials * 3 / 100, "%u false regressions of %u",
		      false_reg, trials);
}

/*
 * The first hour's nightly (issue: a head 49% slower called "undecided"
 * next to five stale baseline runs taken under another load and one
 * fresh run): only this cycle's runs decide, with at least as many fresh
 * baseline runs as head runs; and the two alternate from the start.
 */
Test(nightly_plan, stale_baseline_runs_never_decide)
{
	struct nplan_opts o = {
		.min_runs = 3, .max_runs = 5, .threshold_pct = 5, .direction = 1
	};
	const double head[] = { 3144, 3243, 3209, 3117 };
	/* (five stored baseline runs near 2260 are not handed to the plan) */
	const double fresh[] = { 6059, 6397, 6504, 6137 };
	double h[8], b[8];
	size_t nh = 0, nb = 0, k;
	char seq[16] = "";
	struct nplan p;

	cr_assert_eq(nplan_next(&o, head, 4, fresh, 1, &p, NULL), 0);
	cr_expect_eq(p.next, NPLAN_BASE);
	cr_expect_null(p.verdict);
	cr_assert_eq(nplan_next(&o, head, 4, fresh, 4, &p, NULL), 0);
	cr_expect_str_eq(p.verdict, "regression");
	cr_expect_lt(p.det.change_pct, -45);

	/* head, baseline, baseline, head, ... (ABBA) */
	for (k = 0; k < 6; k++) {
		cr_assert_eq(nplan_next(&o, h, nh, b, nb, &p, NULL), 0);
		cr_assert_neq(p.next, NPLAN_DONE);
		seq[k] = p.next == NPLAN_HEAD ? 'H' : 'B';
		if (p.next == NPLAN_HEAD)
			h[nh++] = 100 + (double)k;
		else
			b[nb++] = 60 + (double)k;
	}
	cr_expect_str_eq(seq, "HBBHHB");
	cr_assert_eq(nplan_next(&o, h, nh, b, nb, &p, NULL), 0);
	cr_expect_str_eq(p.verdict, "improvement");
}
