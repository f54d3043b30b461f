/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_H
#define ROBOT_H

/*
 * Common includes and attributes. Every robot source includes this first
 * (after <config> macros), so banned.h reaches every file.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RB_UNUSED __attribute__((unused))
#define RB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define RB_NORETURN __attribute__((noreturn))
#define RB_WARN_UNUSED __attribute__((warn_unused_result))

#define RB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RB_MAX(a, b) ((a) > (b) ? (a) : (b))
/* "s" unless there is one: printf("%u run%s", n, RB_PLURAL(n)) */
#define RB_PLURAL(n) ((n) == 1 ? "" : "s")

/* Exit codes, as STYLE.md fixes them. */
enum {
	RB_EXIT_OK = 0,
	RB_EXIT_FAIL = 1,
	RB_EXIT_INCONCLUSIVE = 2,
	RB_EXIT_FATAL = 128,
	RB_EXIT_USAGE = 129,
};

#ifndef ROBOT_VERSION
#define ROBOT_VERSION "0.1.0"
#endif

#include "util.h"
#include "banned.h"

#endif
