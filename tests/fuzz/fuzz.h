/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_FUZZ_H
#define ROBOT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * The fuzz targets (tests/fuzz/fuzz-<name>.c): each takes any bytes,
 * runs them through the robot's own entry point for that input and
 * checks what the robot promises about the result; a broken promise is
 * a crash (fuzz_check aborts), so that libFuzzer and the sanitizers see
 * it, and so does the unit test that replays tests/data/fuzz/<name>/.
 *
 * X(name, what): one row per target. `make fuzz` builds each with
 * libFuzzer (tests/fuzz/libfuzzer.c); the unit tests link them all.
 */
#define FUZZ_TARGETS(X)                                                  \
	X(job, "job files: load, expand, resolve, write back")           \
	X(lab, "lab files")                                              \
	X(stressng, "stress-ng's --yaml file, its stderr, time -v")      \
	X(matrix, "lkp matrix.json / stats.json")                        \
	X(mail_header, "mail headers: text and addresses, the envelope") \
	X(report_json, "report JSON (robot outbox draft) to a mail")

#define FUZZ_DECLARE(name, what) \
	int fuzz_##name(const uint8_t *data, size_t size);
FUZZ_TARGETS(FUZZ_DECLARE)
#undef FUZZ_DECLARE

/* Abort with the target's message when cond is false. */
#define fuzz_check(cond, ...)                                       \
	do {                                                        \
		if (!(cond))                                        \
			fuzz_fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

void fuzz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* data as a NUL-terminated string (a copy; free it) */
char *fuzz_string(const uint8_t *data, size_t size);

/*
 * The header fields in s (len bytes), if s is what the robot may put in
 * a mail's header block: printable ASCII and LF line ends, each line
 * not empty and at most 998 octets, a line that starts with a space or
 * a tab continues the field above (folding), encoded words of at most
 * 75 characters and on one line. Otherwise -1 and *why says what.
 */
int fuzz_header_fields(const char *s, size_t len, const char **why);

#endif
