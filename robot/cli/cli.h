/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_CLI_H
#define ROBOT_CLI_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The command table (git's commands[], libgit2's cli_cmds[]). Each command
 * lives in cli/cmd_<name>.c and is one row of rb_commands[] in commands.c.
 * A command gets argv with argv[0] = its own name and returns the process
 * exit status (RB_EXIT_*).
 */
struct rb_opt_spec;
struct svec;

struct rb_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	/* its options (NULL: parsed by hand, subcommands of their own) */
	const struct rb_opt_spec *opts;
	/* one line for `robot help`; NULL: the NAME of its manual page */
	const char *summary;
};

extern const struct rb_command rb_commands[];
extern const size_t rb_commands_nr;

const struct rb_command *rb_command_find(const char *name);
/*
 * SIGINT and SIGTERM during a long command: call before any other thread
 * starts. They are blocked in every thread and a thread of their own
 * waits for one; then it makes the workers report no more results
 * (rb_stop_request: a run the signal cut short is never a verdict), calls
 * on_stop(arg, "interrupted by SIGINT") (robot bisect marks its bisection
 * interrupted), stops the hooks and payloads the robot started on the
 * workdir, ends the status line, says "...; run the same command to
 * resume" and exits 130 (SIGINT) or 143 (SIGTERM), as a shell reports
 * them. The rest of the process ends with it: the store is crash-safe.
 */
int rb_interrupt_start(const char *workdir, bool tty,
		       void (*on_stop)(void *arg, const char *why), void *arg);

/* "'NAME' is not a robot command", with a "did you mean"; RB_EXIT_USAGE. */
int rb_unknown_command(const char *name);
/* "usage: robot ..." and the list of commands. */
void rb_print_usage(FILE *out);
/* Print "usage: ..." of a command to stderr and return RB_EXIT_USAGE. */
int rb_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print the usage text of a command to stdout (for -h/--help). */
int rb_command_help(const char *cmd);

/*
 * A command's options as data: one row each (name, argument, the field it
 * sets, a help line), read by rb_opts_parse; the manual page's OPTIONS
 * section documents the same rows (test_manpage.c checks every row is on
 * the page). Fields: bool (FLAG), const char * (STRING, the last one
 * wins), struct svec (LIST, repeatable), long (COUNT, min..max).
 */
enum rb_opt_type { RB_OPT_FLAG, RB_OPT_STRING, RB_OPT_LIST, RB_OPT_COUNT };
struct rb_opt_spec {
	const char *name; /* "--lab" */
	const char *arg; /* "LAB", NULL for a flag */
	enum rb_opt_type type;
	size_t off; /* offsetof the field in the command's options */
	long min, max; /* RB_OPT_COUNT */
	const char *help;
	bool required; /* a usage error names every required row */
};

/*
 * Rows, as git's OPT_STRING() and friends write them; a row that must be
 * given ends with RB_OPT_REQ (the usage error then names every required
 * row).
 */
/* clang-format off */
#define RB_OPT_ROW(n, a, t, o, h, ...) \
	{ .name = n, .arg = a, .type = t, .off = o, .help = h, __VA_ARGS__ }
#define RB_OPT_STR(n, a, o, h, ...) RB_OPT_ROW(n, a, RB_OPT_STRING, o, h, __VA_ARGS__)
#define RB_OPT_BOOL(n, o, h) RB_OPT_ROW(n, NULL, RB_OPT_FLAG, o, h)
#define RB_OPT_ADD(n, a, o, h, ...) RB_OPT_ROW(n, a, RB_OPT_LIST, o, h, __VA_ARGS__)
#define RB_OPT_NUM(n, a, o, lo, hi, h) \
	RB_OPT_ROW(n, a, RB_OPT_COUNT, o, h, .min = lo, .max = hi)
#define RB_OPT_END { .name = NULL }
#define RB_OPT_REQ .required = true
/* clang-format on */
/* The rows several commands share, in the same words. */
#define RB_OPT_LAB(off, ...) \
	RB_OPT_STR("--lab", "LAB", off, "the lab file", __VA_ARGS__)
#define RB_OPT_JOB(off, ...) \
	RB_OPT_STR("--job", "JOB", off, "the job file", __VA_ARGS__)
#define RB_OPT_PARAM(off)                 \
	RB_OPT_ADD("--param", "K=V", off, \
		   "select one atomic job of a matrix job file")
#define RB_OPT_FORCE(off) \
	RB_OPT_BOOL("--force", off, "send a mail whose sending was interrupted")

/*
 * Parse argv[0..argc) ("--name V", "--name=V", flags, "-x" rows too; "--" ends the
 * options) into opts by the rows of spec (ended by a row without a name).
 * Other words go to args, or are an error when args is NULL. 0, or the
 * usage error's exit code (the command's SYNOPSIS printed).
 */
int rb_opts_parse(const char *cmd, const struct rb_opt_spec *spec, int argc,
		  char **argv, void *opts, struct svec *args);

/* A command's option rows by name ("run"), or NULL (for the tests). */
const struct rb_opt_spec *rb_command_opts(const char *cmd);

/* The commands: cli/cmd_<name>.c each, with their option rows. */
extern const struct rb_opt_spec run_opts[], bisect_opts[], outbox_opts[],
	report_opts[], nightly_opts[], history_opts[], lab_opts[], job_opts[],
	compare_opts[];
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_lab(int argc, char **argv);

/*
 * argv[*i] is option `name` ("--lab"): "--lab=V" or "--lab V" (then *i
 * moves past V). Returns 1 with *value set, 0 when argv[*i] is another
 * argument, -1 when the value is missing.
 */
int rb_opt_arg(int argc, char **argv, int *i, const char *name,
	       const char **value);
int cmd_outbox(int argc, char **argv);
int cmd_pick(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_history(int argc, char **argv);

#endif
