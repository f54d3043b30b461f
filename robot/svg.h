/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_SVG_H
#define ROBOT_SVG_H

/*
 * What the robot's drawings share (`robot history --svg`, the bisection
 * report page): text made safe for XML and HTML, and the steps of an
 * axis. Pure.
 */

struct sbuf;

/*
 * s with & < > " ' as entities, and without the control characters XML
 * 1.0 has no place for (TAB stays). NULL appends nothing.
 */
void svg_text(struct sbuf *sb, const char *s);

/* A "nice" step near range / 5: 1, 2 or 5 times a power of ten. */
double svg_nice_step(double range);

/* v with two decimals, or 4 significant digits from a million on. */
void svg_num(struct sbuf *sb, double v);

#endif
