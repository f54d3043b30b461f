// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a payload run leaves behind, read as the runner reads it: the
 * --yaml file, the metrics on stderr and `time -v`'s lines. The first
 * input byte picks the parser, the rest is the file. Promises: every stat
 * name is in lkp's character set (stat_name_ok) and every value finite.
 */
#include <math.h>

#include "robot.h"
#include "payload.h"
#include "result.h"
#include "svec.h"

#include "fuzz.h"

int fuzz_stressng(const uint8_t *data, size_t size)
{
	struct statset s = STATSET_INIT;
	struct svec dropped = SVEC_INIT;
	char *text;
	size_t i;

	if (!size)
		return 0;
	text = fuzz_string(data + 1, size - 1);
	switch (data[0] % 3) {
	case 0:
		stressng_parse_yaml(text, size - 1, &s, &dropped);
		break;
	case 1:
		stressng_parse_text(text, &s, &dropped);
		break;
	default:
		time_v_parse(text, &s, &dropped);
		break;
	}
	for (i = 0; i < s.nr; i++) {
		fuzz_check(stat_name_ok(s.v[i].name), "stat name '%s'",
			   s.v[i].name);
		fuzz_check(isfinite(s.v[i].value), "%s = %g", s.v[i].name,
			   s.v[i].value);
	}
	for (i = 0; i < dropped.nr; i++) {
		const unsigned char *c = (const unsigned char *)dropped.v[i];

		for (; *c; c++)
			fuzz_check(*c >= 0x20 && *c != 0x7f,
				   "a control character in a warning");
	}
	svec_clear(&dropped);
	statset_release(&s);
	free(text);
	return 0;
}
