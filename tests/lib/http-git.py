# SPDX-License-Identifier: GPL-2.0-only
"""A smart HTTP(S) git server on loopback for tests: every request runs
`git http-backend` (CGI) over the repositories under --root, read-only.

usage: http-git.py --port N --root DIR --ready FILE [--tls CERT KEY]
"""
import argparse
import os
import ssl
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def _cgi(self):
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.server.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": self.client_address[0],
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        enc = self.headers.get("Content-Encoding")
        if enc:
            env["HTTP_CONTENT_ENCODING"] = enc
        proto = self.headers.get("Git-Protocol")
        if proto:
            env["GIT_PROTOCOL"] = proto
        p = subprocess.run(["git", "http-backend"], input=body, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = p.stdout
        sep = out.find(b"\r\n\r\n")
        skip = 4
        if sep < 0:
            sep = out.find(b"\n\n")
            skip = 2
        head, payload = (out[:sep], out[sep + skip:]) if sep >= 0 else (b"", out)
        status = 200
        headers = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = _cgi
    do_POST = _cgi

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.command, self.path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.root = os.path.abspath(a.root)
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(a.ready, "w") as f:
        f.write("%d\n" % os.getpid())
    srv.serve_forever()


if __name__ == "__main__":
    main()
