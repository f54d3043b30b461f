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

void run_samples_free(struct run_sample *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].host);
	free(v);
}
