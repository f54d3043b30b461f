// SPDX-License-Identifier: GPL-2.0-only
/*
 * Option helpers shared by the commands.
 */
#include "../robot.h"
#include "cli.h"

int rb_opt_arg(int argc, char **argv, int *i, const char *name,
	       const char **value)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*value = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}
