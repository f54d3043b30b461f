// SPDX-License-Identifier: GPL-2.0-only
/*
 * Error slot, allocation wrappers, small string and file helpers.
 */
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "robot.h"

#define RB_ERRMSG_MAX 2048

static _Thread_local char errmsg[RB_ERRMSG_MAX];
static _Thread_local bool errset;

int rb_verror(const char *fmt, va_list ap)
{
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	errset = true;
	return -1;
}

int rb_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rb_verror(fmt, ap);
	va_end(ap);
	return -1;
}

int rb_error_prefix(const char *fmt, ...)
{
	char buf[RB_ERRMSG_MAX];
	size_t n, m;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf) - 3, fmt, ap);
	va_end(ap);
	n = strlen(buf);
	buf[n++] = ':';
	buf[n++] = ' ';
	m = strlen(rb_errmsg());
	if (m > sizeof(buf) - n - 1)
		m = sizeof(buf) - n - 1;
	memcpy(buf + n, rb_errmsg(), m);
	buf[n + m] = '\0';
	memcpy(errmsg, buf, n + m + 1);
	errset = true;
	return -1;
}

const char *rb_errmsg(void)
{
	return errset ? errmsg : "unknown error";
}

void rb_error_clear(void)
{
	errset = false;
	errmsg[0] = '\0';
}

/*
 * A message that starts with "FILE:LINE:COL:" already says where the
 * problem is; compilers print those bare, and so do we.
 */
static bool has_location(const char *msg)
{
	const char *p = strchr(msg, ':');
	int i;

	if (!p || p == msg)
		return false;
	for (i = 0; i < 2; i++) {
		const char *q = p + 1;

		if (*q < '0' || *q > '9')
			return false;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q != ':')
			return false;
		p = q;
	}
	return true;
}

void rb_error_print(void)
{
	const char *msg = rb_errmsg();

	if (has_location(msg))
		fprintf(stderr, "%s\n", msg);
	else
		fprintf(stderr, "robot: error: %s\n", msg);
}

void rb_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("robot: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void rb_vnotice_to(FILE *f, bool tty, const char *fmt, va_list ap)
{
	if (tty)
		fputs("\r\033[K", f);
	fputs("robot: ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

void rb_vnotice(const char *fmt, va_list ap)
{
	rb_vnotice_to(stderr, false, fmt, ap);
}

void rb_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rb_vnotice(fmt, ap);
	va_end(ap);
}

void rb_die(const char *fmt, ...)
{
	va_list ap;

	fputs("robot: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(RB_EXIT_FATAL);
}

void rb_bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "robot: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		rb_die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		rb_die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		rb_die("out of memory allocating %zu bytes", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		rb_die("out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		rb_die("out of memory");
	return p;
}

char *xstrvfmt(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		rb_die("out of memory");
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xstrvfmt(fmt, ap);
	va_end(ap);
	return p;
}

bool rb_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool rb_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

void rb_fmt_confidence(char *buf, size_t n, double c)
{
	double pct = floor(c * 10000 + 1e-9) / 100;

	if (!isfinite(c))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f%%", RB_MAX(0.0, RB_MIN(100.0, pct)));
}

void rb_fmt_p(char *buf, size_t n, double p)
{
	if (!(p >= 0))
		snprintf(buf, n, "p = -");
	else if (p < 0.0001)
		snprintf(buf, n, "p < 0.0001");
	else
		snprintf(buf, n, "p = %.4f", p);
}

static atomic_bool stop_requested;

void rb_stop_request(void)
{
	atomic_store(&stop_requested, true);
}

bool rb_stop_requested(void)
{
	return atomic_load(&stop_requested);
}

size_t rb_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t prev[65], cur[65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = RB_MIN(sub, RB_MIN(del, ins));
		}
		memcpy(prev, cur, (lb + 1) * sizeof(*prev));
	}
	return prev[lb];
}

const char *rb_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3, d, i;

	for (i = 0; i < n; i++) {
		d = rb_edit_distance(cands[i], word);
		if (d < best_d && d <= strlen(word) / 2 + 1) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

int rb_error_unknown(const char *what, const char *word,
		     const char *const *cands, size_t n, const char *why)
{
	const char *hint = rb_suggest(word, cands, n);

	if (hint)
		return rb_error("unknown %s '%s' (did you mean '%s'?)", what,
				word, hint);
	if (why && *why)
		return rb_error("unknown %s '%s': %s", what, word, why);
	return rb_error("unknown %s '%s'", what, word);
}

int rb_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int rb_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end && (u = strchr(units, *end)) != NULL) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (*end == 'i')
			end++;
	}
	if (*end == 'B')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int rb_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	/* nan and inf are not numbers any input of ours may hold */
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

bool rb_is_clean_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned c = *p, cp, n, i;

		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			p++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			n = 2;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 3;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		for (i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		/* overlong forms, surrogates, beyond U+10FFFF, C1 */
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
			return false;
		p += n;
	}
	return true;
}

bool rb_is_sha1_hex(const char *s)
{
	int i;

	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[40] == '\0';
}

bool rb_next_line(const char **p, const char **line, size_t *len)
{
	const char *nl;

	if (!**p)
		return false;
	*line = *p;
	nl = strchr(*p, '\n');
	*len = nl ? (size_t)(nl - *p) : strlen(*p);
	*p += *len + (nl != NULL);
	return true;
}

int rb_read_file(const char *path, char **buf, size_t *len)
{
	return rb_read_file_max(path, SIZE_MAX, buf, len);
}

int rb_read_file_max(const char *path, size_t max, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t alloc = 0, n = 0;

	if (!f)
		return rb_error("cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		size_t got;

		RB_ALLOC_GROW(p, n + 65536 + 1, alloc);
		got = fread(p + n, 1, alloc - n - 1, f);
		n += got;
		if (got == 0)
			break;
		if (n > max) {
			fclose(f);
			free(p);
			return rb_error("'%s' is larger than %zu MiB", path,
					max >> 20);
		}
	}
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		free(p);
		return rb_error("cannot read '%s': %s", path, strerror(e));
	}
	fclose(f);
	p[n] = '\0';
	*buf = p;
	if (len)
		*len = n;
	return 0;
}

int rb_copy_file(const char *from, const char *to)
{
	char *buf;
	size_t len;
	int r = rb_read_file(from, &buf, &len);

	if (r < 0)
		return r;
	r = rb_write_file_atomic(to, buf, len);
	free(buf);
	return r;
}

int rb_write_file_atomic(const char *path, const void *buf, size_t len)
{
	char *lock = xstrfmt("%s.lock", path);
	const char *p = buf;
	int fd, ret = -1;

	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		/* a stale lock from a crashed writer: we own the workdir lock */
		unlink(lock);
		fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		rb_error("cannot create '%s': %s", lock, strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rb_error("cannot write '%s': %s", lock,
				 strerror(errno));
			close(fd);
			unlink(lock);
			goto out;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		rb_error("cannot sync '%s': %s", lock, strerror(errno));
		unlink(lock);
		goto out;
	}
	if (rename(lock, path) < 0) {
		rb_error("cannot rename '%s' to '%s': %s", lock, path,
			 strerror(errno));
		unlink(lock);
		goto out;
	}
	ret = 0;
out:
	free(lock);
	return ret;
}

int rb_mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;
	int ret = 0;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			ret = rb_error("cannot create directory '%s': %s", p,
				       strerror(errno));
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		ret = rb_error("cannot create directory '%s': %s", p,
			       strerror(errno));
out:
	free(p);
	return ret;
}

static int rm_one(const char *path, const struct stat *st RB_UNUSED,
		  int type RB_UNUSED, struct FTW *ftw RB_UNUSED)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int rb_remove_tree(const char *path)
{
	if (!path || !*path || !strcmp(path, "/"))
		return rb_error("refusing to remove '%s'", path ? path : "");
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return rb_error("cannot remove '%s': %s", path,
				strerror(errno));
	return 0;
}

bool rb_file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool rb_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

char *rb_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *rb_path_join(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir || !*dir)
		return xstrdup(name);
	if (rb_ends_with(dir, "/"))
		return xstrfmt("%s%s", dir, name);
	return xstrfmt("%s/%s", dir, name);
}

char *rb_realpath(const char *path)
{
	char *r = realpath(path, NULL);

	if (!r) {
		rb_error("cannot resolve path '%s': %s", path, strerror(errno));
		return NULL;
	}
	return r;
}

double rb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double rb_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void rb_utc_stamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void rb_sleep(double seconds)
{
	struct timespec ts = { (time_t)seconds, 0 };

	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

#define SECRET_MAX 4096

int rb_read_secret_file(const char *path, const char *what, char **out)
{
	char buf[SECRET_MAX + 1];
	struct stat st;
	ssize_t n;
	size_t len = 0;
	int fd, ret = -1;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return rb_error("cannot open %s file '%s': %s", what, path,
				strerror(errno));
	if (fstat(fd, &st) < 0) {
		rb_error("cannot stat %s file '%s': %s", what, path,
			 strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rb_error("%s file '%s' is not a regular file", what, path);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		rb_error("%s file '%s' is not owned by the user running robot",
			 what, path);
		goto out;
	}
	if (st.st_mode & 077) {
		rb_error("%s file '%s' is readable by group or others "
			 "(mode %04o): chmod 600 it",
			 what, path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	while (len < SECRET_MAX) {
		n = read(fd, buf + len, SECRET_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rb_error("cannot read %s file '%s': %s", what, path,
				 strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	/* one trailing line end is the editor's, not the secret's */
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len && buf[len - 1] == '\r')
		buf[--len] = '\0';
	if (!len || memchr(buf, '\0', len) || strchr(buf, '\n')) {
		rb_error("%s file '%s' does not hold one %s line", what, path,
			 what);
		goto out;
	}
	*out = xstrdup(buf);
	ret = 0;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}
