// SPDX-License-Identifier: GPL-2.0-only
/* The manual pages built into the binary, and their plain rendering. */
#include <criterion/criterion.h>

#include "robot.h"
#include "cli/cli.h"
#include "cli/manpage.h"

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
