/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_LAVA_H
#define ROBOT_LAVA_H

#include <stdbool.h>
#include <stddef.h>

struct lab_lava;

/*
 * A client of a LAVA server's REST API v0.2 (LAVA 2023.01, Debian 12):
 * libcurl for HTTP, jansson for JSON. Every request sends the token as
 * "Authorization: Token <token>". A server that does not answer, or
 * answers 5xx, is an infrastructure failure (-1 with infra set); a 4xx
 * is the request's own fault (-1, infra clear), with the server's message.
 */
struct lava_client {
	char *url; /* without a trailing slash */
	char *token;
	/* seconds a request may take */
	long timeout;
	/* the last failure was the lab's, not the request's */
	bool infra;
};

/*
 * Ready the client for the lab's lava: section: the token from the
 * environment variable or the owner-only file it names (a file others
 * may read is refused, as ssh refuses such a key). 0 or -1.
 */
int lava_open(struct lava_client *c, const struct lab_lava *cfg);
void lava_close(struct lava_client *c);

/* What the server says of a device type's pool. */
struct lava_pool {
	/* devices of the type (those listed in devices:, if any) */
	size_t total;
	/* of them: health Good and state Idle */
	size_t idle;
	/* health Good (busy or not): what can take jobs */
	size_t good;
};

/*
 * The server's own checks: the API answers, the token is accepted (a
 * token the server refuses is -1 with "the server refuses the token"),
 * the device type exists, and its pool. -1 with one line.
 */
int lava_check(struct lava_client *c, const struct lab_lava *cfg,
	       struct lava_pool *pool);

struct sbuf;

/* Submit a job definition (YAML); *id the server's job id. */
int lava_submit(struct lava_client *c, const char *definition, long *id);
/* The oldest job whose name (description) is name: 1 found, 0 none, -1. */
int lava_find(struct lava_client *c, const char *name, long *id);
/*
 * Every job whose name is name, oldest first (*ids malloc'd, NULL when
 * none). A name is the robot's promise of one job: more than one means a
 * submit that reached the server although its robot never heard back (it
 * was killed, or the answer timed out) and a second one after it.
 */
int lava_find_all(struct lava_client *c, const char *name, long **ids,
		  size_t *n);

/* A job as the server sees it. */
struct lava_job {
	char *state; /* Submitted, Scheduling, Scheduled, Running, ... */
	char *health; /* Unknown, Complete, Incomplete, Canceled */
	char *device; /* actual_device, or NULL */
	bool finished;
	/* a finished job that is not Complete: its `job` case's
	 * error_type (Infrastructure, Job, Test, Bug, ...) and error_msg */
	char *error_type;
	char *error_msg;
};
int lava_job_get(struct lava_client *c, long id, struct lava_job *out);
void lava_job_release(struct lava_job *j);
/* The job's serial console (the log's "target" lines), one per line. */
int lava_console(struct lava_client *c, long id, struct sbuf *out);
/* Cancel a job (queued or running). */
int lava_cancel(struct lava_client *c, long id);

#endif
