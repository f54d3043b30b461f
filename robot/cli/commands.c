// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one table of robot commands. Adding a command: write
 * cli/cmd_<name>.c, declare it in cli.h, add its row here.
 */
#include "../robot.h"
#include "cli.h"

const struct rb_command rb_commands[] = {
	{ "help", cmd_help, "show help for robot or one of its commands",
	  "usage: robot help [COMMAND]\n" },
	{ "version", cmd_version, "print the robot's version",
	  "usage: robot version\n       robot --version\n" },
	{ "compare", cmd_compare,
	  "the 0-Day %stddev/%change table of lkp result data",
	  "usage: robot compare [--all] [--more] [--json] [--axis KEY=VALUE]...\n"
	  "                     DIR_OR_MATRIX_A DIR_OR_MATRIX_B [...]\n"
	  "\n"
	  "    --all        every stat, not only those lkp would show\n"
	  "    --more       include the stats lkp's denylist hides\n"
	  "    --json       rows, changes and significance tests as JSON\n"
	  "    --axis K=V   a common axis for the header (repeatable)\n"
	  "\n"
	  "Each argument is a matrix.json, a commit directory holding one, or\n"
	  "a directory of numbered runs with a stats.json each. The first is\n"
	  "the base.\n" },
	{ "job", cmd_job, "expand or validate lkp job files",
	  "usage: robot job expand JOB [--lab LAB] [--host NAME]\n"
	  "       robot job validate JOB...\n"
	  "\n"
	  "expand   print the atomic jobs of JOB as YAML documents, nr_threads\n"
	  "         resolved against the host's nr_cpu (--host NAME of --lab\n"
	  "         LAB, else the lab's first host, else this machine)\n"
	  "validate check every JOB; errors are FILE:LINE:COL: message\n" },
	{ "lab", cmd_lab, "check a lab file and reach its hosts",
	  "usage: robot lab check --lab LAB\n"
	  "\n"
	  "check    parse LAB, check its hooks are executable, run `true` and\n"
	  "         `nproc` on every host over its transport, print a table\n" },
	{ "outbox", cmd_outbox, "list, show, draft and send the robot's mails",
	  "usage: robot outbox [list] (--dir DIR | --workdir DIR)\n"
	  "       robot outbox show (--dir DIR | --workdir DIR) ID\n"
	  "       robot outbox draft (--dir DIR | --workdir DIR) [--print] "
	  "REPORT.json\n"
	  "       robot outbox send (--dir DIR | --workdir DIR) --smtp URL\n"
	  "              [--starttls] [--cacert FILE] [--smtp-user USER\n"
	  "              (--password-env VAR | --password-file FILE)]\n"
	  "              [--bcc ADDR]... [--timeout SEC] [--force] "
	  "(ID... | --all)\n"
	  "\n"
	  "The outbox is DIR, or WORKDIR/outbox: every mail as ID.eml with\n"
	  "its state in ID.state (drafted, sending, sent, failed). A sent\n"
	  "mail is never sent again; a mail whose sending was interrupted\n"
	  "is sent again only with --force.\n" },
	{ "pick", cmd_pick,
	  "the commit(s) a bisection tests next, as git picks",
	  "usage: robot pick [--repo DIR] [--first-parent]\n"
	  "                  [--bisect-all | --bisect-vars]\n"
	  "                  [--skip REV]... [--ways H] BAD ^GOOD...\n"
	  "\n"
	  "  --repo DIR       the repository (default: .)\n"
	  "  --first-parent   follow only the first parent of merges\n"
	  "  --bisect-all     every candidate with its distance, best first\n"
	  "  --bisect-vars    git's bisect_* shell variables\n"
	  "  --skip REV       a skipped commit (repeat); prints what git bisect\n"
	  "                   checks out after these skips, or its conclusion\n"
	  "  --ways H         H commits to test at once on H hosts\n"
	  "Revisions: REV, ^REV, A..B, --not, as for git rev-list.\n" },
	{ "run", cmd_run, "build, boot and run a job at one commit",
	  "usage: robot run --lab LAB --job JOB --commit REV [--host NAME]\n"
	  "                 [--runs N] [--param K=V]...\n"
	  "\n"
	  "Checks REV out, runs the lab's build hook (unless its artifact is\n"
	  "complete), boots the host with the boot hook and runs the job's\n"
	  "payload N times (default 1) with the monitors. Every run goes into\n"
	  "the store and the result tree; infrastructure failures are\n"
	  "retried. Prints the mean, stddev% and runs of each headline stat.\n"
	  "Exit: 0 measured, 2 the commit cannot be built or booted (125),\n"
	  "1 failure.\n"
	  "\n"
	  "  --host NAME    the host to use (default: the lab's first)\n"
	  "  --param K=V    select one atomic job of a matrix job file\n" },
	{ "bisect", cmd_bisect,
	  "find the commit that regressed a metric, confirm it",
	  "usage: robot bisect --lab LAB --job JOB --good REV [--good REV...]\n"
	  "                    --bad REV [--metric STAT]\n"
	  "                    [--threshold VALUE|-N%|+N%] [--first-parent]\n"
	  "                    [--hosts NAME,...] [--param K=V]... [--json FILE]\n"
	  "       robot bisect list --lab LAB\n"
	  "       robot bisect log --lab LAB ID\n"
	  "       robot bisect reset --lab LAB ID\n"
	  "\n"
	  "Measures the good and the bad commit until the regression of the\n"
	  "metric (default: the job's stress-ng.<test>.ops_per_sec) is shown\n"
	  "or refuted, bisects with as many runs per step as the evidence\n"
	  "needs (k-way on several hosts), confirms the culprit against its\n"
	  "parent(s) and prints it as git does. The same command resumes an\n"
	  "interrupted bisection; a finished one prints its result again.\n"
	  "Exit: 0 found, 2 not reproduced, only skipped commits left or\n"
	  "inconclusive, 1 failure.\n"
	  "\n"
	  "  --threshold V    the metric's value between good and bad\n"
	  "  --threshold -N%  a drop of N% from good is the regression\n"
	  "  --threshold +N%  a rise of N% from good is the regression\n"
	  "                   (default: halfway between good and bad)\n"
	  "  --hosts A,B      the lab hosts to use (default: all)\n"
	  "  --json FILE      the result as JSON (also kept in the store)\n" },
	{ "report", cmd_report, "print (and send) the mail of a bisection",
	  "usage: robot report --lab LAB ID [--send] [--force]\n"
	  "       robot report --lab LAB ID --still [--send]\n"
	  "\n"
	  "Prints the \"kernel test robot noticed\" mail of bisection ID\n"
	  "(drafting it, with its reproduce materials under\n"
	  "WORKDIR/archive/<message-id>/, when it was not yet). --send\n"
	  "delivers it with the lab's mail settings; a mail is never sent\n"
	  "twice (--force sends one whose sending was interrupted).\n"
	  "--still drafts the follow-up of a nightly report whose culprit\n"
	  "still showed at later heads ([still regression on ...] lines).\n" },
	{ "nightly", cmd_nightly,
	  "track the tree's branch: test each new head, bisect, mail",
	  "usage: robot nightly --lab LAB [--once] [--interval DURATION]\n"
	  "\n"
	  "Fetches tree.url's tree.branch into tree.path, measures the new\n"
	  "head with the jobs of the lab's nightly: section against a\n"
	  "baseline (the previous tested head, or the latest v* tag),\n"
	  "records every stat in the history, bisects a regression (or an\n"
	  "improvement) to its culprit and mails it when the lab allows;\n"
	  "a reported culprit still present at a later head is recorded\n"
	  "with its report. An interrupted cycle continues where it\n"
	  "stopped. Events go to stderr and WORKDIR/nightly.log, a summary\n"
	  "of each cycle to stdout.\n"
	  "Exit: 0, or 1 when the robot itself failed (a cycle is left\n"
	  "unfinished: the next run continues it).\n"
	  "\n"
	  "  --once           one cycle, then exit (for cron and systemd)\n"
	  "  --interval T     between cycles (default: nightly.interval, 6h)\n" },
	{ "history", cmd_history, "the tested heads of a job, and the changes",
	  "usage: robot history --lab LAB --job JOB [--stat STAT]\n"
	  "                     [--param K=V]... [--json] [--svg FILE]\n"
	  "\n"
	  "One line per head the nightly tested: mean, stddev and runs of\n"
	  "STAT (default: the metric the nightly judges the job by), the\n"
	  "change against the baseline, the verdict and the culprit.\n"
	  "JOB is a job file (--param picks an atomic job) or a stored name\n"
	  "(testcase/path_params).\n"
	  "\n"
	  "  --json      the same as JSON\n"
	  "  --svg FILE  draw the series, regressions and culprits marked\n" },
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

int rb_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct rb_command *c = rb_command_find(cmd);
	va_list ap;

	fputs("robot: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fputs(c->usage, stderr);
	return RB_EXIT_USAGE;
}

int rb_command_help(const char *cmd)
{
	const struct rb_command *c = rb_command_find(cmd);

	if (!c)
		return RB_EXIT_USAGE;
	fputs(c->usage, stdout);
	return RB_EXIT_OK;
}

void rb_print_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: robot [--version] [--help] COMMAND [ARGS]\n\n"
		     "commands:\n");
	for (i = 0; i < rb_commands_nr; i++)
		fprintf(out, "   %-10s %s\n", rb_commands[i].name,
			rb_commands[i].summary);
	fprintf(out, "\nSee 'robot help COMMAND' for the options of one.\n");
}
