// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the robot's drawings share (svg.h).
 */
#include <math.h>

#include "robot.h"
#include "sbuf.h"
#include "svg.h"

void svg_text(struct sbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			sbuf_addstr(sb, "&amp;");
			break;
		case '<':
			sbuf_addstr(sb, "&lt;");
			break;
		case '>':
			sbuf_addstr(sb, "&gt;");
			break;
		case '"':
			sbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			sbuf_addstr(sb, "&#39;");
			break;
		default:
			/* XML 1.0 has no place for other control characters */
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				sbuf_addch(sb, *s);
		}
	}
}

double svg_nice_step(double range)
{
	double raw = range / 5, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

void svg_num(struct sbuf *sb, double v)
{
	if (fabs(v) < 1e6)
		sbuf_addf(sb, "%.2f", v);
	else
		sbuf_addf(sb, "%.4g", v);
}
