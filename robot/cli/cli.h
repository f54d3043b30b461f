/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_CLI_H
#define ROBOT_CLI_H

/*
 * The command table (git's commands[], libgit2's cli_cmds[]). Each command
 * lives in cli/cmd_<name>.c and is one row of rb_commands[] in commands.c.
 * A command gets argv with argv[0] = its own name and returns the process
 * exit status (RB_EXIT_*).
 */
struct rb_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	/* one line for `robot help`; NULL: the NAME of its manual page */
	const char *summary;
};

extern const struct rb_command rb_commands[];
extern const size_t rb_commands_nr;

const struct rb_command *rb_command_find(const char *name);
/* "usage: robot ..." and the list of commands. */
void rb_print_usage(FILE *out);
/* Print "usage: ..." of a command to stderr and return RB_EXIT_USAGE. */
int rb_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print the usage text of a command to stdout (for -h/--help). */
int rb_command_help(const char *cmd);

/* The commands: cli/cmd_<name>.c each. */
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
