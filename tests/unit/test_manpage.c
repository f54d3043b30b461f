// SPDX-License-Identifier: GPL-2.0-only
/* The manual pages built into the binary, and their plain rendering. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "robot.h"
#include "cli/cli.h"
#include "cli/manpage.h"
#include "svec.h"

static char *render(const char *roff, const char *section, const char *prefix)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	rb_manpage_render(f, roff, 40, section, prefix);
	fclose(f);
	return buf;
}

static const char page[] =
	".\\\" a comment\n"
	".TH ROBOT-X 1\n"
	".SH NAME\n"
	"robot\\-x \\- do \\fBone\\fR thing\n"
	".SH SYNOPSIS\n"
	".nf\n"
	"robot x \\-\\-lab LAB\n"
	"    [\\-\\-more]\n"
	".fi\n"
	".SH DESCRIPTION\n"
	"Words that fill a line of forty columns and then go on to\n"
	"the next one.\n"
	".PP\n"
	".IP \\(bu 2\n"
	"a bullet\n"
	".TP\n"
	"\\fB\\-\\-lab\\fR LAB\n"
	"the lab file\n"
	".TP\n"
	"\\fB\\-n\\fR\n"
	"short tag\n"
	".SH SEE ALSO\n"
	".BR robot (1)\n";

Test(manpage, renders_the_subset)
{
	char *t = render(page, NULL, NULL);

	cr_assert_str_eq(t, "NAME\n"
			    "       robot-x - do one thing\n"
			    "\n"
			    "SYNOPSIS\n"
			    "       robot x --lab LAB\n"
			    "           [--more]\n"
			    "\n"
			    "DESCRIPTION\n"
			    "       Words that fill a line of forty\n"
			    "       columns and then go on to the\n"
			    "       next one.\n"
			    "\n"
			    "       * a bullet\n"
			    "\n"
			    "       --lab LAB\n"
			    "              the lab file\n"
			    "\n"
			    "       -n     short tag\n"
			    "\n"
			    "SEE ALSO\n"
			    "       robot(1)\n");
	free(t);
}

Test(manpage, one_section_for_usage_errors)
{
	char *t = render(page, "SYNOPSIS", "usage: ");

	cr_assert_str_eq(t, "usage: robot x --lab LAB\n"
			    "           [--more]\n");
	free(t);
}

Test(manpage, summary_is_the_name_line)
{
	char *s = rb_manpage_summary(page);

	cr_assert_str_eq(s, "do one thing");
	free(s);
}

/* Every command has its page, and its page a synopsis naming it. */
Test(manpage, every_command_has_a_page)
{
	size_t i;

	cr_assert_not_null(rb_manpage_find("robot"));
	for (i = 0; i < rb_commands_nr; i++) {
		const char *name = rb_commands[i].name;
		char pname[64], want[64];
		const struct rb_manpage *p;
		char *syn, *sum;

		if (rb_commands[i].summary)
			continue; /* help, version: robot(1) */
		snprintf(pname, sizeof(pname), "robot-%s", name);
		p = rb_manpage_find(pname);
		cr_assert_not_null(p, "no doc/%s.1", pname);
		sum = rb_manpage_summary(p->roff);
		cr_assert_gt(strlen(sum), 10, "%s: NAME has no summary", pname);
		free(sum);
		syn = render(p->roff, "SYNOPSIS", "usage: ");
		snprintf(want, sizeof(want), "usage: robot %s", name);
		cr_assert(!strncmp(syn, want, strlen(want)), "%s: %s", pname,
			  syn);
		free(syn);
	}
}

/* The option rows of a command are the ones its page documents. */
Test(manpage, every_option_row_is_on_the_page)
{
	size_t i;

	for (i = 0; i < rb_commands_nr; i++) {
		const struct rb_opt_spec *o = rb_commands[i].opts;
		char pname[64];
		const struct rb_manpage *p;
		char *text;

		if (!o)
			continue;
		snprintf(pname, sizeof(pname), "robot-%s", rb_commands[i].name);
		p = rb_manpage_find(pname);
		cr_assert_not_null(p);
		text = render(p->roff, NULL, NULL);
		for (; o->name; o++)
			cr_expect(strstr(text, o->name) != NULL,
				  "%s is not on %s's page", o->name, pname);
		free(text);
	}
}

/* The parser: values, flags, lists, counts, and its refusals. */
struct t_opts {
	const char *lab;
	bool flag;
	struct svec list;
	long n;
};

#define T_OPT(f) offsetof(struct t_opts, f)
static const struct rb_opt_spec t_spec[] = {
	RB_OPT_STR("--lab", "LAB", T_OPT(lab), ""),
	RB_OPT_BOOL("--flag", T_OPT(flag), ""),
	RB_OPT_ADD("--item", "X", T_OPT(list), ""),
	RB_OPT_NUM("--n", "N", T_OPT(n), 1, 9, ""),
	RB_OPT_END,
};

/* The same with --lab and --item required. */
static const struct rb_opt_spec t_req[] = {
	RB_OPT_STR("--lab", "LAB", T_OPT(lab), "", RB_OPT_REQ),
	RB_OPT_BOOL("--flag", T_OPT(flag), ""),
	RB_OPT_ADD("--item", "X", T_OPT(list), "", RB_OPT_REQ),
	RB_OPT_END,
};

Test(manpage, options_parse_by_their_rows)
{
	char a0[] = "--lab=a.yaml", a1[] = "--flag", a2[] = "--item",
	     a3[] = "x", a4[] = "pos", a5[] = "--item=y", a6[] = "--n",
	     a7[] = "7", a8[] = "--", a9[] = "--lab";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 };
	struct t_opts o = { .list = SVEC_INIT };
	struct svec args = SVEC_INIT;

	cr_assert_eq(rb_opts_parse("run", t_spec, 10, argv, &o, &args), 0);
	cr_assert_str_eq(o.lab, "a.yaml");
	cr_assert(o.flag);
	cr_assert_eq(o.list.nr, 2);
	cr_assert_str_eq(o.list.v[1], "y");
	cr_assert_eq(o.n, 7);
	cr_assert_eq(args.nr, 2);
	cr_assert_str_eq(args.v[1], "--lab");
	svec_clear(&o.list);
	svec_clear(&args);
}

Test(manpage, options_refused)
{
	char b0[] = "--nope", b1[] = "--lab", b2[] = "--n", b3[] = "10",
	     b4[] = "--flag=1", b5[] = "word";
	char *unknown[] = { b0 }, *missing[] = { b1 }, *range[] = { b2, b3 },
	     *flagval[] = { b4 }, *pos[] = { b5 };
	struct t_opts o = { .list = SVEC_INIT };

	cr_redirect_stderr();
	cr_assert_eq(rb_opts_parse("run", t_spec, 1, unknown, &o, NULL),
		     RB_EXIT_USAGE);
	cr_assert_eq(rb_opts_parse("run", t_spec, 1, missing, &o, NULL),
		     RB_EXIT_USAGE);
	cr_assert_eq(rb_opts_parse("run", t_spec, 2, range, &o, NULL),
		     RB_EXIT_USAGE);
	cr_assert_eq(rb_opts_parse("run", t_spec, 1, flagval, &o, NULL),
		     RB_EXIT_USAGE);
	cr_assert_eq(rb_opts_parse("run", t_spec, 1, pos, &o, NULL),
		     RB_EXIT_USAGE);
	svec_clear(&o.list);
}

/* A missing required row names every required row; given, they pass. */
Test(manpage, options_required)
{
	char c0[] = "--lab=a", c1[] = "--item", c2[] = "x";
	char *lab_only[] = { c0 }, *both[] = { c0, c1, c2 }, line[128];
	struct t_opts o = { .list = SVEC_INIT };

	cr_redirect_stderr();
	cr_assert_eq(rb_opts_parse("run", t_req, 1, lab_only, &o, NULL),
		     RB_EXIT_USAGE);
	fflush(stderr);
	cr_assert_not_null(
		fgets(line, sizeof(line), cr_get_redirected_stderr()));
	cr_assert_str_eq(line, "robot: --lab and --item are required\n");
	cr_assert_eq(rb_opts_parse("run", t_req, 3, both, &o, NULL), 0);
	cr_assert_eq(o.list.nr, 1);
	svec_clear(&o.list);
}

/*
 * The requests of alternating fonts join their arguments without a space
 * (man(7)); a .TP tag set by one is the option's heading, as in
 * doc/robot-job.1's ".BI \-\-stress\-ng\-help " FILE"".
 */
Test(manpage, alternating_fonts)
{
	static const char alt[] = ".SH OPTIONS\n"
				  ".TP\n"
				  ".BI \\-\\-stress\\-ng\\-help \" FILE\"\n"
				  "the help text\n"
				  ".PP\n"
				  ".IB a b c\n"
				  ".RB [ \\-\\-x ]\n"
				  ".BR robot (1),\n"
				  ".IR file .yaml\n"
				  ".RI \" one\" two\n"
				  ".B two words\n";
	char *t = render(alt, NULL, NULL);

	cr_assert_str_eq(t, "OPTIONS\n"
			    "       --stress-ng-help FILE\n"
			    "              the help text\n"
			    "\n"
			    "       abc [--x] robot(1), file.yaml\n"
			    "       onetwo two words\n");
	free(t);
}

/* The real page: robot help job shows the option's heading. */
Test(manpage, job_page_shows_stress_ng_help)
{
	const struct rb_manpage *p = rb_manpage_find("robot-job");
	char *t;

	cr_assert_not_null(p);
	t = render(p->roff, "DESCRIPTION", NULL);
	cr_expect(strstr(t, "\n       --stress-ng-help FILE\n") != NULL, "%s",
		  t);
	free(t);
}
