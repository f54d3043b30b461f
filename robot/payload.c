// SPDX-License-Identifier: GPL-2.0-only
/* The table of payloads (payload.h). */
#include "robot.h"
#include "payload.h"

static const struct payload_ops *const payloads[] = {
	&payload_stressng,
};

const struct payload_ops *payload_find(const char *name)
{
	size_t i;

	if (!name || !*name)
		return payloads[0];
	for (i = 0; i < RB_ARRAY_SIZE(payloads); i++)
		if (!strcmp(payloads[i]->name, name))
			return payloads[i];
	rb_error("payload '%s' is not supported (only stress-ng)", name);
	return NULL;
}
