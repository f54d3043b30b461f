// SPDX-License-Identifier: GPL-2.0-only
/*
 * lkp's matrix.json and stats.json as `robot compare` reads them, then
 * compared with itself into the table. Promises: a refusal names its
 * source; stat names in the table are printable (no escape sequences,
 * no line ends that could forge a row).
 */
#include "robot.h"
#include "cmp-load.h"
#include "compare.h"
#include "sbuf.h"

#include "fuzz.h"

/* every line clean text: no escape sequence, no forged line */
static void check_text(const struct sbuf *t)
{
	char *copy = xstrdup(t->buf), *save = NULL, *line;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fuzz_check(rb_is_clean_text(line), "a table line '%s'", line);
	free(copy);
}

int fuzz_matrix(const uint8_t *data, size_t size)
{
	struct cmp_matrix m;
	struct cmp_opts o;
	struct sbuf table = SBUF_INIT;
	const struct cmp_matrix *pair[2];
	char *text = fuzz_string(data, size);
	size_t i;

	cmp_matrix_init(&m);
	m.label = xstrdup("fuzz");
	if (cmp_load_json(&m, text, "matrix.json") < 0) {
		const char *e = rb_errmsg();

		fuzz_check(e && rb_starts_with(e, "matrix.json"),
			   "error without its source: '%s'", e ? e : "");
		goto out;
	}
	for (i = 0; i < m.nr; i++)
		fuzz_check(rb_is_clean_text(m.stats[i].name),
			   "stat name '%s' is not clean text", m.stats[i].name);
	/* the matrix against itself: every row and the JSON, as --all */
	cmp_opts_init(&o);
	o.all = true;
	pair[0] = pair[1] = &m;
	if (cmp_render(&table, &o, pair, 2) == 0)
		check_text(&table);
	/*
	 * the JSON form runs the statistical tests of every row, which cost
	 * five times the rest: one input in four (by its length) takes it
	 */
	if (size % 4 == 0) {
		sbuf_reset(&table);
		cmp_render_json(&table, &o, pair, 2);
	}
out:
	sbuf_release(&table);
	cmp_matrix_release(&m);
	free(text);
	return 0;
}
