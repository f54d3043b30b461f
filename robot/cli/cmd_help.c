// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot help [CMD], robot version
 */
#include "../robot.h"
#include "cli.h"

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		rb_print_usage(stdout);
		return RB_EXIT_OK;
	}
	if (!rb_command_find(argv[1]))
		return rb_unknown_command(argv[1]);
	return rb_command_help(argv[1]);
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("robot version %s\n", ROBOT_VERSION);
	return RB_EXIT_OK;
}
