// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampling loop, its output format, and the table of monitors.
 */
#include <ctype.h>

#include "robot.h"
#include "monitor.h"
#include "sbuf.h"

const struct monitor_ops *const monitor_table[] = {
	&monitor_vmstat,
	&monitor_meminfo,
	&monitor_proc_vmstat,
	&monitor_mpstat,
};
const size_t monitor_table_nr = RB_ARRAY_SIZE(monitor_table);

/*
 * $1 is the output file. One snapshot a second; `read` keeps only the first
 * field of /proc/uptime. The loop runs until the robot kills it.
 */
const char *monitor_loop_script(void)
{
	return "exec >\"$1\" 2>/dev/null\n"
	       "while :; do\n"
	       "\tread up idle </proc/uptime\n"
	       "\techo \"==> $up\"\n"
	       "\tfor f in /proc/stat /proc/vmstat /proc/meminfo; do\n"
	       "\t\techo \"--- $f\"\n"
	       "\t\tcat \"$f\"\n"
	       "\tdone\n"
	       "\techo \"<==\"\n"
	       "\tsleep 1\n"
	       "done\n";
}

void mon_series_release(struct mon_series *s)
{
	free(s->snap);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

const char *mon_file_text(const struct mon_snapshot *snap, const char *path)
{
	size_t i;

	for (i = 0; i < snap->nr_files; i++)
		if (!strcmp(snap->files[i].path, path))
			return snap->files[i].text;
	return NULL;
}

static const char *known_path(const char *p)
{
	static const char *const paths[] = { "/proc/stat", "/proc/vmstat",
					     "/proc/meminfo", "/proc/uptime" };
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(paths); i++)
		if (!strcmp(p, paths[i]))
			return paths[i];
	return NULL;
}

static char empty_text[1];

/* End the text of the file being read just before the marker at line. */
static void end_file(struct mon_file *file, char *line)
{
	if (!file)
		return;
	if (file->text == line)
		file->text = empty_text;
	else
		*(line - 1) = '\0';
}

/*
 * Split in place: "==> T" starts a snapshot, "--- PATH" a file whose text
 * runs to the next marker, "<==" ends the snapshot. A snapshot without its
 * end marker was cut short by the kill and is dropped, as lkp drops an
 * incomplete last record.
 */
int mon_series_parse(struct mon_series *s, char *buf)
{
	char *p = buf, *line, *nl;
	struct mon_snapshot *cur = NULL;
	struct mon_file *file = NULL;
	bool complete = false;

	memset(s, 0, sizeof(*s));
	s->buf = buf;
	while (*p) {
		line = p;
		nl = strchr(p, '\n');
		if (!nl)
			break; /* an unterminated last line: cut short */
		p = nl + 1;
		if (rb_starts_with(line, "==> ")) {
			end_file(file, line);
			file = NULL;
			*nl = '\0';
			if (cur && !complete)
				s->nr--;
			RB_ALLOC_GROW(s->snap, s->nr + 1, s->alloc);
			cur = &s->snap[s->nr++];
			memset(cur, 0, sizeof(*cur));
			complete = false;
			if (rb_parse_double(line + 4, &cur->uptime) < 0) {
				rb_error("monitor output: bad sample time '%s'",
					 line + 4);
				mon_series_release(s);
				return -1;
			}
		} else if (rb_starts_with(line, "--- ") && cur && !complete) {
			const char *path;

			end_file(file, line);
			file = NULL;
			*nl = '\0';
			path = known_path(line + 4);
			if (!path || cur->nr_files == RB_ARRAY_SIZE(cur->files))
				continue;
			file = &cur->files[cur->nr_files++];
			file->path = path;
			file->text = p;
		} else if (rb_starts_with(line, "<==") && cur) {
			end_file(file, line);
			file = NULL;
			complete = true;
		}
	}
	if (cur && !complete)
		s->nr--;
	return 0;
}

double mon_field(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	if (!text)
		return -1;
	while (p && *p) {
		if (!strncmp(p, key, n) &&
		    (p[n] == ' ' || p[n] == ':' || p[n] == '\t')) {
			const char *v = p + n;

			while (*v == ':' || *v == ' ' || *v == '\t')
				v++;
			return strtod(v, NULL);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

void monitors_reduce(const struct mon_series *s, struct statset *out)
{
	size_t i;

	for (i = 0; i < monitor_table_nr; i++)
		monitor_table[i]->reduce(s, out);
}

void mon_average_fields(const struct mon_series *s, const char *path,
			const char *prefix, bool (*want)(const char *key),
			struct statset *out)
{
	struct statset sum = STATSET_INIT, cnt = STATSET_INIT;
	struct sbuf name = SBUF_INIT;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const char *p = mon_file_text(&s->snap[i], path);

		while (p && *p) {
			const char *e = p + strcspn(p, ": \t\n");
			const char *v = e;

			while (*v == ':' || *v == ' ' || *v == '\t')
				v++;
			if (e > p && *v >= '0' && *v <= '9') {
				sbuf_reset(&name);
				sbuf_addf(&name, "%s.%.*s", prefix,
					  (int)(e - p), p);
				if (!want ||
				    want(name.buf + strlen(prefix) + 1)) {
					statset_add(&sum, name.buf,
						    strtod(v, NULL));
					statset_add(&cnt, name.buf, 1);
				}
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	}
	for (i = 0; i < sum.nr; i++)
		statset_set(out, sum.v[i].name,
			    sum.v[i].value / *statset_get(&cnt, sum.v[i].name));
	sbuf_release(&name);
	statset_release(&sum);
	statset_release(&cnt);
}

int mon_cpu_jiffies(const char *stat, double v[CPU_NR])
{
	int i;

	if (!stat || !rb_starts_with(stat, "cpu "))
		return -1;
	for (i = 0; i < CPU_NR; i++)
		v[i] = 0;
	sscanf(stat + 4, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
	       &v[CPU_USER], &v[CPU_NICE], &v[CPU_SYS], &v[CPU_IDLE],
	       &v[CPU_IOWAIT], &v[CPU_IRQ], &v[CPU_SOFT], &v[CPU_STEAL],
	       &v[CPU_GUEST], &v[CPU_GNICE]);
	return 0;
}
