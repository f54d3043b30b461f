// SPDX-License-Identifier: GPL-2.0-only
/* A bisection's records (record.h). */
#include "robot.h"
#include "record.h"

void bisection_steps_free(struct bisection_step_rec *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].commit);
		free(v[i].host);
		free(v[i].verdict);
		free(v[i].detail);
	}
	free(v);
}

int64_t record_detail_int(const char *detail, const char *key, int64_t dflt)
{
	size_t k = strlen(key);
	const char *p = detail;

	while (p && (p = strchr(p, '"'))) {
		if (!strncmp(p + 1, key, k) && !strncmp(p + 1 + k, "\": ", 3))
			return strtoll(p + k + 4, NULL, 10);
		p++;
	}
	return dflt;
}

void run_samples_free(struct run_sample *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].host);
	free(v);
}
