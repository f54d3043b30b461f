#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# A loopback SMTP server for the robot's tests, on Debian's aiosmtpd (run
# it with /usr/bin/python3: pyenv's python does not see Debian packages).
# Every message it accepts lands in SPOOL as NNNN.eml (the bytes received,
# as they were sent) with NNNN.json (envelope sender, recipients, whether
# the session was TLS and who logged in). The .eml appears last, by a
# rename, so a test that sees it sees the whole mail.
#
# usage: smtp-sink.py --port N --spool DIR --ready FILE
#            [--starttls CERT KEY | --smtps CERT KEY]
#            [--auth USER PASSWORD-FILE]
#
# Prints nothing on success; writes "ready PORT" to FILE once it accepts
# connections; stops on SIGTERM or SIGINT.

import argparse
import json
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Spool:
    def __init__(self, path):
        self.path = path
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            base = os.path.join(self.path, "%04d" % self.count)
        meta = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            # STARTTLS sets session.ssl; implicit TLS is in the transport
            "tls": (session.ssl is not None or
                    server.transport.get_extra_info("ssl_object") is not None),
            "login": (session.auth_data.login.decode()
                      if isinstance(session.auth_data, LoginPassword)
                      else None),
        }
        with open(base + ".json", "w") as f:
            json.dump(meta, f)
        with open(base + ".tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(base + ".tmp", base + ".eml")
        return "250 2.0.0 Message accepted"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--spool", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--smtps", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--auth", nargs=2, metavar=("USER", "PASSWORD_FILE"))
    args = ap.parse_args()

    os.makedirs(args.spool, exist_ok=True)
    kwargs = {}
    ctx = None
    pair = args.starttls or args.smtps
    if pair:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(pair[0], pair[1])
    if args.starttls:
        kwargs["tls_context"] = ctx
        kwargs["require_starttls"] = True
    if args.auth:
        user = args.auth[0].encode()
        with open(args.auth[1], "rb") as f:
            password = f.read().rstrip(b"\r\n")

        def check(server, session, envelope, mechanism, data):
            ok = (isinstance(data, LoginPassword) and data.login == user
                  and data.password == password)
            return AuthResult(success=ok, handled=False,
                              auth_data=data if ok else None)

        kwargs["authenticator"] = check
        kwargs["auth_required"] = True
        # aiosmtpd counts only STARTTLS as TLS; over implicit TLS (smtps)
        # the session is encrypted from the first byte all the same
        kwargs["auth_require_tls"] = not args.smtps

    controller = Controller(Spool(args.spool), hostname="127.0.0.1",
                            port=args.port,
                            ssl_context=ctx if args.smtps else None,
                            server_hostname="sink.test", **kwargs)
    controller.start()

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        f.write("ready %d\n" % args.port)
    os.rename(tmp, args.ready)
    done.wait()
    controller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
