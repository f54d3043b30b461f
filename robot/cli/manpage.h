/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_CLI_MANPAGE_H
#define ROBOT_CLI_MANPAGE_H

#include <stddef.h>
#include <stdio.h>

/*
 * The manual pages (doc/robot*.1), built into the binary by scripts/embed-man:
 * `robot help CMD` prints the page of robot-CMD as text, a usage error its
 * SYNOPSIS, `robot help` the NAME line of every command's page.
 */
struct rb_manpage {
	const char *name; /* "robot-bisect" */
	const char *roff;
};
extern const struct rb_manpage rb_manpages[];
extern const size_t rb_manpages_nr;

/* The page called name ("robot-bisect"), or NULL. */
const struct rb_manpage *rb_manpage_find(const char *name);

/*
 * Render the roff of a page (the man(7) macros our pages use: TH SH SS PP
 * LP TP IP RS RE nf fi br B I BR IR, and the escapes \fB \fI \fR \fP \- \e
 * \& \(bu \(em) as plain text of at most width columns. section non-NULL:
 * only the body of that section (e.g. "SYNOPSIS"), prefix before its
 * first line and indented as it.
 */
void rb_manpage_render(FILE *out, const char *roff, int width,
		       const char *section, const char *prefix);

/* The text after "\-" of the NAME section (malloc'd), "" when none. */
char *rb_manpage_summary(const char *roff);

#endif
