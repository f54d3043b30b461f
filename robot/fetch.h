/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_FETCH_H
#define ROBOT_FETCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bisect.h"

/*
 * Fetching the kernel tree's branch (libgit2): the nightly loop's first
 * step. One branch of `url` goes into `ref` of the repository at `path`
 * (created bare when the path does not exist yet); tags come along, so
 * that a baseline can be "the latest v* tag".
 *
 * URLs: https:// and http:// (libgit2's own certificate checks, against
 * `ca_file` when given: process-wide, as libgit2 keeps it), git://,
 * ssh:// and scp-like user@host:path (keys from ssh-agent, `ssh_key`, or
 * ~/.ssh/id_ed25519, id_ecdsa, id_rsa; the server's host key must be in
 * `known_hosts`, ~/.ssh/known_hosts by default, looked up with
 * `ssh-keygen -F`, hashed entries included), file:// and local paths.
 *
 * Progress: with `progress` set, the objects received and the deltas
 * resolved are shown on one line of that stream (a terminal).
 */
struct rb_fetch_opts {
	const char *path; /* the local repository */
	const char *url;
	const char *branch; /* the remote branch, e.g. master */
	const char *ref; /* where it goes, e.g. refs/remotes/linus/master */
	const char *ssh_key; /* private key file, or NULL */
	const char *known_hosts; /* or NULL: ~/.ssh/known_hosts */
	const char *ca_file; /* https: the CA to trust, or NULL: the system's */
	FILE *progress; /* NULL: quiet */
};

struct rb_fetch_result {
	uint8_t head[RB_OID_RAWSZ]; /* what ref points at now */
	bool had_old; /* ref existed before */
	uint8_t old[RB_OID_RAWSZ]; /* and pointed there */
	unsigned objects; /* objects received */
	size_t bytes; /* bytes received */
};

/*
 * Fetch. 0, or -1 with "cannot fetch 'BRANCH' from 'URL': ..." (the
 * libgit2 or ssh reason once). The repository's other refs are left
 * alone except the tags the remote has.
 */
int rb_fetch(const struct rb_fetch_opts *o, struct rb_fetch_result *res);

/*
 * Ask the remote whether a fetch of o could work, fetching nothing and
 * leaving `path` alone (`ref` may be NULL): it answers, with the keys,
 * host keys and CA a fetch uses, and has the branch. 0, or -1 with
 * rb_fetch's own message ("cannot fetch 'BRANCH' from 'URL': the remote
 * has no such branch").
 */
int rb_fetch_check(const struct rb_fetch_opts *o);

/* The standard base64 of len bytes (for ssh host keys). malloc'd. */
char *rb_base64(const void *data, size_t len);

#endif
