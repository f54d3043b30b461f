// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMTP delivery with libcurl (smtp://, smtps://, STARTTLS, login).
 */
#include <curl/curl.h>
#include <unistd.h>

#include "robot.h"
#include "mail.h"
#include "report.h"

#define DEFAULT_TIMEOUT 120L

void rb_mail_password_free(char *password)
{
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
}

int rb_mail_password(const struct rb_smtp *smtp, char **out)
{
	const char *v;

	*out = NULL;
	if (smtp->password_file && *smtp->password_file)
		return rb_read_secret_file(smtp->password_file, "password",
					   out);
	if (!smtp->password_env || !*smtp->password_env)
		return rb_error("smtp user '%s' has no password: give a "
				"password file or an environment variable",
				smtp->user ? smtp->user : "");
	v = getenv(smtp->password_env);
	if (!v || !*v)
		return rb_error("environment variable '%s' (the smtp password) "
				"is not set",
				smtp->password_env);
	*out = xstrdup(v);
	return 0;
}

static bool is_tls_url(const char *url)
{
	return !strncasecmp(url, "smtps://", 8);
}

int rb_mail_check(const struct rb_smtp *smtp)
{
	CURLU *u;
	char *pw = NULL;
	CURLUcode uc;
	int ret = -1;

	if (!smtp->url || !*smtp->url)
		return rb_error("no smtp server given");
	if (strncasecmp(smtp->url, "smtp://", 7) && !is_tls_url(smtp->url))
		return rb_error("smtp url '%s' must start with smtp:// or "
				"smtps://",
				smtp->url);
	u = curl_url();
	if (!u)
		rb_die("out of memory");
	uc = curl_url_set(u, CURLUPART_URL, smtp->url, 0);
	if (uc) {
		rb_error("invalid smtp url '%s': %s", smtp->url,
			 curl_url_strerror(uc));
		goto out;
	}
	if (!curl_url_get(u, CURLUPART_PASSWORD, &pw, 0)) {
		curl_free(pw);
		/* do not echo the URL: it holds the password */
		rb_error("the smtp url must not hold a password: use a "
			 "password file or an environment variable");
		goto out;
	}
	if ((smtp->password_env || smtp->password_file) && !smtp->user) {
		rb_error("an smtp password is given but no smtp user");
		goto out;
	}
	if (smtp->user && !is_tls_url(smtp->url) && !smtp->starttls) {
		rb_error("refusing to send the smtp password without tls: use "
			 "smtps:// or require starttls");
		goto out;
	}
	if (smtp->ca_file && access(smtp->ca_file, R_OK) < 0) {
		rb_error("cannot read ca file '%s': %s", smtp->ca_file,
			 strerror(errno));
		goto out;
	}
	ret = 0;
out:
	curl_url_cleanup(u);
	return ret;
}

/* ------------------------------------------------------------------ */

struct upload {
	const char *data;
	size_t len, off;
};

static size_t read_cb(char *buf, size_t size, size_t nitems, void *arg)
{
	struct upload *up = arg;
	size_t n = size * nitems;

	if (n > up->len - up->off)
		n = up->len - up->off;
	memcpy(buf, up->data + up->off, n);
	up->off += n;
	return n;
}

/*
 * The server's replies, from libcurl's trace: the last one, and the last
 * error (4xx, 5xx), as one printable line each. Only CURLINFO_HEADER_IN
 * is looked at: what we send (AUTH included) is never kept.
 */
struct replies {
	char last[256];
	char error[256];
};

static void keep_reply(char *dst, size_t size, const char *line, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n && j + 1 < size; i++) {
		unsigned char c = (unsigned char)line[i];

		dst[j++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	dst[j] = '\0';
}

static int debug_cb(CURL *curl RB_UNUSED, curl_infotype type, char *data,
		    size_t size, void *arg)
{
	struct replies *r = arg;
	const char *p = data, *end = data + size;

	if (type != CURLINFO_HEADER_IN)
		return 0;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n >= 3 && p[0] >= '2' && p[0] <= '5') {
			keep_reply(r->last, sizeof(r->last), p, n);
			if (p[0] >= '4')
				keep_reply(r->error, sizeof(r->error), p, n);
		}
		p += n;
		while (p < end && (*p == '\r' || *p == '\n'))
			p++;
	}
	return 0;
}

static int curl_failure(const struct rb_smtp *smtp, CURLcode rc,
			const char *errbuf, const struct replies *rep)
{
	const char *why = *errbuf ? errbuf : curl_easy_strerror(rc);
	const char *reply = *rep->error ? rep->error : rep->last;

	switch (rc) {
	case CURLE_LOGIN_DENIED:
		return rb_error("smtp authentication failed (%s)",
				*reply ? reply : why);
	case CURLE_USE_SSL_FAILED:
		return rb_error("smtp server '%s' does not offer starttls",
				smtp->url);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
		return rb_error("cannot verify the tls certificate of smtp "
				"server '%s': %s",
				smtp->url, why);
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
		return rb_error("cannot connect to smtp server '%s': %s",
				smtp->url, why);
	case CURLE_OPERATION_TIMEDOUT:
		return rb_error("smtp server '%s' timed out: %s", smtp->url,
				why);
	default:
		if (*rep->error)
			return rb_error("smtp delivery to '%s' failed: %s (%s)",
					smtp->url, why, rep->error);
		return rb_error("smtp delivery to '%s' failed: %s", smtp->url,
				why);
	}
}

static void global_init(void)
{
	static bool done;

	if (!done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			rb_die("cannot initialise libcurl");
		done = true;
	}
}

int rb_mail_send(const struct rb_smtp *smtp, const char *msg, size_t len,
		 const struct svec *extra_bcc)
{
	struct rb_envelope env = RB_ENVELOPE_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *rcpt = NULL;
	struct replies rep = { "", "" };
	struct upload up;
	char *password = NULL, *from = NULL;
	CURL *curl = NULL;
	CURLcode rc;
	size_t i, j;
	int ret = -1;

	if (rb_mail_check(smtp) < 0)
		return -1;
	if (rb_mail_envelope(&env, msg, len) < 0)
		return -1;
	for (i = 0; extra_bcc && i < extra_bcc->nr; i++) {
		if (rb_mail_check_address(extra_bcc->v[i]) < 0)
			goto out;
		for (j = 0; j < env.rcpt.nr; j++)
			if (!strcasecmp(env.rcpt.v[j], extra_bcc->v[i]))
				break;
		if (j == env.rcpt.nr)
			svec_push(&env.rcpt, extra_bcc->v[i]);
	}
	if (smtp->user && rb_mail_password(smtp, &password) < 0)
		goto out;

	global_init();
	curl = curl_easy_init();
	if (!curl) {
		rb_error("cannot initialise libcurl");
		goto out;
	}
	for (i = 0; i < env.rcpt.nr; i++) {
		char *r = xstrfmt("<%s>", env.rcpt.v[i]);
		struct curl_slist *n = curl_slist_append(rcpt, r);

		free(r);
		if (!n)
			rb_die("out of memory");
		rcpt = n;
	}
	from = xstrfmt("<%s>", env.from);
	up.data = env.data.buf;
	up.len = env.data.len;
	up.off = 0;

	curl_easy_setopt(curl, CURLOPT_URL, smtp->url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(curl, CURLOPT_READDATA, &up);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE,
			 (curl_off_t)env.data.len);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT,
			 smtp->timeout > 0 ? smtp->timeout : DEFAULT_TIMEOUT);
	/* the trace only feeds debug_cb, which keeps the server's replies */
	curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(curl, CURLOPT_DEBUGDATA, &rep);
	if (smtp->starttls)
		curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (smtp->ca_file)
		curl_easy_setopt(curl, CURLOPT_CAINFO, smtp->ca_file);
	if (smtp->user) {
		curl_easy_setopt(curl, CURLOPT_USERNAME, smtp->user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD, password);
	}
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		curl_failure(smtp, rc, errbuf, &rep);
		goto out;
	}
	ret = 0;
out:
	if (curl)
		curl_easy_cleanup(curl);
	curl_slist_free_all(rcpt);
	rb_mail_password_free(password);
	free(from);
	rb_envelope_release(&env);
	return ret;
}
