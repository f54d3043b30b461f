// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one table of robot commands. Adding a command: write
 * cli/cmd_<name>.c, declare it in cli.h, add its row here.
 */
#include "../robot.h"
#include "cli.h"
#include "manpage.h"

/* The summaries and usage texts are the commands' manual pages (doc/). */
const struct rb_command rb_commands[] = {
	{ "help", cmd_help, NULL,
	  "show help for robot or one of its commands" },
	{ "version", cmd_version, NULL, "print the robot's version" },
	{ "compare", cmd_compare, compare_opts, NULL },
	{ "job", cmd_job, job_opts, NULL },
	{ "lab", cmd_lab, lab_opts, NULL },
	{ "outbox", cmd_outbox, outbox_opts, NULL },
	{ "pick", cmd_pick, NULL, NULL },
	{ "run", cmd_run, run_opts, NULL },
	{ "bisect", cmd_bisect, bisect_opts, NULL },
	{ "report", cmd_report, report_opts, NULL },
	{ "nightly", cmd_nightly, nightly_opts, NULL },
	{ "history", cmd_history, history_opts, NULL },
};

const size_t rb_commands_nr = RB_ARRAY_SIZE(rb_commands);

const struct rb_command *rb_command_find(const char *name)
{
	size_t i;

	for (i = 0; i < rb_commands_nr; i++)
		if (!strcmp(rb_commands[i].name, name))
			return &rb_commands[i];
	return NULL;
}

int rb_unknown_command(const char *name)
{
	const char *names[RB_ARRAY_SIZE(rb_commands)];
	const char *hint;
	size_t i;

	for (i = 0; i < rb_commands_nr; i++)
		names[i] = rb_commands[i].name;
	hint = rb_suggest(name, names, rb_commands_nr);
	if (hint)
		fprintf(stderr,
			"robot: '%s' is not a robot command (did you mean "
			"'%s'?); see 'robot help'\n",
			name, hint);
	else
		fprintf(stderr,
			"robot: '%s' is not a robot command; see 'robot "
			"help'\n",
			name);
	return RB_EXIT_USAGE;
}

/* The manual page of a command: robot-CMD, robot's own for the others. */
static const struct rb_manpage *page_of(const struct rb_command *c)
{
	char name[64];
	const struct rb_manpage *p;

	snprintf(name, sizeof(name), "robot-%s", c->name);
	p = rb_manpage_find(name);
	return p ? p : rb_manpage_find("robot");
}

int rb_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct rb_command *c = rb_command_find(cmd);
	const struct rb_manpage *p = c ? page_of(c) : NULL;
	va_list ap;

	va_start(ap, fmt);
	rb_vnotice(fmt, ap);
	va_end(ap);
	if (p)
		rb_manpage_render(stderr, p->roff, 80, "SYNOPSIS", "usage: ");
	return RB_EXIT_USAGE;
}

int rb_command_help(const char *cmd)
{
	const struct rb_command *c = rb_command_find(cmd);
	const struct rb_manpage *p = c ? page_of(c) : NULL;

	if (!p)
		return RB_EXIT_USAGE;
	rb_manpage_render(stdout, p->roff, 80, NULL, NULL);
	return RB_EXIT_OK;
}

void rb_print_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: robot [--version] [--help] COMMAND [ARGS]\n\n"
		     "commands:\n");
	for (i = 0; i < rb_commands_nr; i++) {
		const struct rb_command *c = &rb_commands[i];
		char *summary = c->summary ?
					xstrdup(c->summary) :
					rb_manpage_summary(page_of(c)->roff);

		fprintf(out, "   %-10s %s\n", c->name, summary);
		free(summary);
	}
	fprintf(out, "\nSee 'robot help COMMAND' for the manual page of one "
		     "(doc/robot-COMMAND.1).\n");
}

const struct rb_opt_spec *rb_command_opts(const char *cmd)
{
	const struct rb_command *c = rb_command_find(cmd);

	return c ? c->opts : NULL;
}
