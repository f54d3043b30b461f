// SPDX-License-Identifier: GPL-2.0-only
/*
 * Option helpers shared by the commands.
 */
#include "../robot.h"
#include "../sbuf.h"
#include "../svec.h"
#include "cli.h"

int rb_opt_arg(int argc, char **argv, int *i, const char *name,
	       const char **value)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*value = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

static const struct rb_opt_spec *find_opt(const struct rb_opt_spec *spec,
					  const char *a, size_t n)
{
	for (; spec->name; spec++)
		if (strlen(spec->name) == n && !strncmp(spec->name, a, n))
			return spec;
	return NULL;
}

static int set_opt(const char *cmd, const struct rb_opt_spec *o, const char *v,
		   void *opts)
{
	/* void *: the row's offset lands on a field of its own type */
	void *field = (char *)opts + o->off;
	long n;

	switch (o->type) {
	case RB_OPT_FLAG:
		*(bool *)field = true;
		break;
	case RB_OPT_STRING:
		*(const char **)field = v;
		break;
	case RB_OPT_LIST:
		svec_push((struct svec *)field, v);
		break;
	case RB_OPT_COUNT:
		if (rb_parse_long(v, &n) < 0 || n < o->min || n > o->max)
			return rb_usage_error(cmd, "%s takes a count (%ld-%ld)",
					      o->name, o->min, o->max);
		*(long *)field = n;
		break;
	}
	return 0;
}

static bool opt_given(const struct rb_opt_spec *o, const void *opts)
{
	const void *field = (const char *)opts + o->off;

	switch (o->type) {
	case RB_OPT_STRING:
		return *(const char *const *)field != NULL;
	case RB_OPT_LIST:
		return ((const struct svec *)field)->nr > 0;
	default:
		return true;
	}
}

/* "--lab, --job and --commit are required", when one of them is missing. */
static int check_required(const char *cmd, const struct rb_opt_spec *spec,
			  const void *opts)
{
	const struct rb_opt_spec *o;
	struct sbuf names = SBUF_INIT;
	size_t nr = 0, k = 0;
	bool missing = false;
	int ret;

	for (o = spec; o->name; o++)
		if (o->required) {
			nr++;
			missing |= !opt_given(o, opts);
		}
	if (!missing)
		return 0;
	for (o = spec; o->name; o++) {
		if (!o->required)
			continue;
		if (k++)
			sbuf_addstr(&names, k == nr ? " and " : ", ");
		sbuf_addstr(&names, o->name);
	}
	ret = rb_usage_error(cmd, "%s %s required", names.buf,
			     nr > 1 ? "are" : "is");
	sbuf_release(&names);
	return ret;
}

int rb_opts_parse(const char *cmd, const struct rb_opt_spec *spec, int argc,
		  char **argv, void *opts, struct svec *args)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		const struct rb_opt_spec *o;
		size_t n;
		int r;

		if (!strcmp(a, "--")) {
			for (i++; i < argc && args; i++)
				svec_push(args, argv[i]);
			if (i < argc)
				return rb_usage_error(
					cmd, "unknown argument '%s'", argv[i]);
			break;
		}
		n = strcspn(a, "=");
		o = a[0] == '-' ? find_opt(spec, a, n) : NULL;
		if (!o) {
			if (a[0] == '-' && a[1])
				return rb_usage_error(cmd,
						      "unknown option '%s'", a);
			if (!args)
				return rb_usage_error(
					cmd, "unknown argument '%s'", a);
			svec_push(args, a);
			continue;
		}
		if (!o->arg) {
			if (a[n])
				return rb_usage_error(
					cmd, "'%s' takes no value", o->name);
		} else {
			r = rb_opt_arg(argc, argv, &i, o->name, &v);
			if (r < 0)
				return rb_usage_error(cmd, "'%s' needs a value",
						      o->name);
		}
		r = set_opt(cmd, o, v, opts);
		if (r)
			return r;
	}
	return check_required(cmd, spec, opts);
}
