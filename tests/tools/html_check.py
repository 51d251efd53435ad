#!/usr/bin/env python3
"""Opens an HTML report in headless Chromium and fails if the page is not clean.

Checks, for one file: no console error, no uncaught exception, no Content-Security-Policy
violation (the report's CSP allows inline styles and data: images, nothing else), no request
for anything but the file itself; then writes a PNG screenshot of the whole page and checks it
is a PNG with a non-zero size.

It drives Chromium over the DevTools protocol on --remote-debugging-pipe (fd 3: commands in,
fd 4: replies and events out, each a JSON message ended by NUL), with the standard library only:
scraping --enable-logging output instead depends on log formats that change between Chromium
versions and headless modes, while protocol events (Log.entryAdded, Runtime.exceptionThrown,
Audits.issueAdded) are structured.

Exit status: 0 clean, 1 problems found (each printed), 2 Chromium missing or broken.
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium, width, height):
        self.profile = tempfile.mkdtemp(prefix="html-check-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def child_fds():
            # Chromium wants the pipe on fds 3 and 4 exactly; move both above 10 first so
            # neither dup2 overwrites the other's source.
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--remote-debugging-pipe", "--user-data-dir=" + self.profile,
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-sync", "--disable-component-update",
            "--hide-scrollbars", "--mute-audio", "--window-size=%d,%d" % (width, height),
            "about:blank",
        ]
        # stderr to a file, not a pipe nobody drains: a chatty Chromium must not block on it.
        self.stderr = open(os.path.join(self.profile, "stderr.log"), "w+b")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.stderr, preexec_fn=child_fds,
                                     pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self.read(deadline)
            if m is None:
                raise RuntimeError("no reply to %s within %ss" % (method, timeout))
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe (exit %s): %s" % (
                    self.proc.poll(), self.stderr_tail()))
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def wait_event(self, method, seconds):
        deadline = time.time() + seconds
        for m in self.events:
            if m.get("method") == method:
                return m
        while True:
            m = self.read(deadline)
            if m is None:
                return None
            self.events.append(m)
            if m.get("method") == method:
                return m

    def drain(self, seconds):
        deadline = time.time() + seconds
        while self.read(deadline) is not None:
            pass

    def stderr_tail(self):
        try:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.stderr.seek(0)
            return self.stderr.read().decode(errors="replace")[-2000:]
        except Exception:  # noqa: BLE001 - best effort diagnostics
            return ""

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:  # noqa: BLE001 - it may be gone already
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def problems_in(events, page_url):
    out = []
    for m in events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") == "error" or "Refused to" in e.get("text", ""):
                out.append("console %s (%s): %s" % (e.get("level"), e.get("source"), e.get("text")))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            out.append("console.%s: %s" % (p.get("type"), args))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("uncaught exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif method == "Audits.issueAdded":
            issue = p.get("issue", {})
            if issue.get("code") == "ContentSecurityPolicyIssue":
                d = issue.get("details", {}).get("contentSecurityPolicyIssueDetails", {})
                out.append("CSP violation: %s (%s)" % (
                    d.get("violatedDirective"), d.get("blockedURL", d.get("contentSecurityPolicyViolationType"))))
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith("data:"):
                out.append("request for %s" % url)
    return out


def check_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return "not a PNG"
    w, h = struct.unpack(">II", head[16:24])
    if w == 0 or h == 0 or os.path.getsize(path) < 1000:
        return "empty PNG (%dx%d, %d bytes)" % (w, h, os.path.getsize(path))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html")
    ap.add_argument("--screenshot", help="PNG to write (the whole page, 1280 px wide)")
    ap.add_argument("--color-scheme", choices=["light", "dark"], default="light")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", ""))
    args = ap.parse_args()

    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("html_check: chromium not found (Debian: apt-get install chromium; "
              "scripts/setup-deps.sh installs it)", file=sys.stderr)
        return 2
    if not os.path.isfile(args.html):
        print("html_check: no such file: %s" % args.html, file=sys.stderr)
        return 2
    url = "file://" + os.path.abspath(args.html)
    try:
        b = Browser(chromium, 1280, 2000)
    except OSError as e:
        print("html_check: cannot start %s: %s" % (chromium, e), file=sys.stderr)
        return 2
    try:
        targets = b.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session = b.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network", "Audits"):
            b.send(domain + ".enable", session=session)
        b.send("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": args.color_scheme}]}, session=session)
        b.send("Page.navigate", {"url": url}, session=session)
        if b.wait_event("Page.loadEventFired", 30) is None:
            print("html_check: %s did not finish loading in 30 s" % args.html)
            return 1
        b.drain(0.5)  # late console messages and issues
        problems = problems_in(b.events, url)
        if args.screenshot:
            metrics = b.send("Page.getLayoutMetrics", session=session)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            height = max(1, min(int(size["height"]), 16000))
            shot = b.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}}, session=session)
            with open(args.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            bad = check_png(args.screenshot)
            if bad:
                problems.append("screenshot %s: %s" % (args.screenshot, bad))
    except (RuntimeError, StopIteration, KeyError, OSError) as e:
        print("html_check: Chromium failed: %s" % e, file=sys.stderr)
        return 2
    finally:
        b.close()
    for p in problems:
        print("html_check: %s: %s" % (args.html, p))
    if not problems:
        print("html_check: %s: clean%s" % (args.html, ", screenshot " + args.screenshot if args.screenshot else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
