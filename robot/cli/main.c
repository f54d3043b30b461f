// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot: git-style dispatch from the command table.
 */
#include <signal.h>

#include "../robot.h"
#include "cli.h"

int main(int argc, char **argv)
{
	const struct rb_command *cmd;

	/* a closed pipe (robot ... | head) is an EPIPE, not a death */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		rb_print_usage(stderr);
		return RB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv + 1);
	cmd = rb_command_find(argv[1]);
	if (!cmd)
		return rb_unknown_command(argv[1]);
	if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
		return rb_command_help(cmd->name);
	return cmd->fn(argc - 1, argv + 1);
}
