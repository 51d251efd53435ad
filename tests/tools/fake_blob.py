#!/usr/bin/env python3
"""A hostile fake Azure Blob service for the tests, on 127.0.0.1 only (a free port).

The container name picks the behaviour (the account path segment is ignored):

  good        three good blobs (a.bin 1000 B, sub/b.bin 3 MiB, empty.bin), ranged GETs with ETag;
              every request must carry sig=SIG (the test SAS below) or gets 403
  loop        0 blobs, the same NextMarker on every page (D14)
  repeat      a new blob on every page, the same NextMarker every time (D14)
  forever     a new blob and a new NextMarker on every page, without end (D14)
  emptyloop   0 blobs and a new NextMarker on every page, without end (D14)
  huge63      f.bin of 2^63-1 bytes + fine.bin (D6)
  max64       max.bin of 2^64-1 bytes + fine.bin (D15)
  overmax     a block blob 1 byte above Azure's largest, a page blob above 8 TiB + fine.bin
  badsize     a Content-Length that is not a number + fine.bin
  slow2       page 1 at once, page 2 after 30 s (D11)
  echo        403 whose body echoes the signature raw, percent-encoded, as sig%3D..., doubly
              encoded (D16)
  drip        the listing body at about 2 KiB/s, for ever (D31)
  dripread    a good listing; GETs drip at about 2 KiB/s (D31)
  hugelist    a listing body of 70 MB (D26)
  endless     an endless chunked listing body (D26)
  etagchange  listed with ETag 0x1; GETs answer ETag 0x2 (D26)
  nul         a blob named "nul<NUL>byte" (Encoded="true") + fine.bin (D24)
  deny-sip / deny-spr / deny-auth / deny-net
              403 with AuthorizationSourceIPMismatch / AuthorizationProtocolMismatch /
              AuthenticationFailed / AuthorizationFailure (finding 9)
  anything else: 404 ContainerNotFound

`requests` counts the requests per container (the tests read it). As a script:
`fake_blob.py [PORT]` serves until killed and prints the endpoint (http://127.0.0.1:PORT/acct).
As a module: `with FakeBlob() as fb: fb.endpoint`.
"""
import http.server
import socketserver
import sys
import threading
import time
import urllib.parse

# The dummy SAS of the reliability probe; SIG is its signature as the URL carries it.
SAS = "sv=2021-08-06&sp=rl&sig=S3CRETsig%2B%3D"
SIG = "S3CRETsig%2B%3D"
SIG_RAW = "S3CRETsig+="

DATA = {
    "a.bin": bytes((i * 7) & 255 for i in range(1000)),
    "sub/b.bin": bytes((i * 13 + 5) & 255 for i in range(3 << 20)),
    "empty.bin": b"",
}
BLOCK_MAX = 50_000 * 4000 * (1 << 20)  # 190.7 TiB: 50,000 blocks of 4,000 MiB
PAGE_MAX = 8 << 40


def blob(name, size, etag="0x1", btype="BlockBlob", encoded=False):
    enc = ' Encoded="true"' if encoded else ""
    return (f"<Blob><Name{enc}>{name}</Name><Properties><Last-Modified>Mon, 01 Dec 2025 10:00:00 GMT"
            f"</Last-Modified><Etag>{etag}</Etag><Content-Length>{size}</Content-Length>"
            f"<BlobType>{btype}</BlobType></Properties></Blob>")


def page(blobs, marker=""):
    return (f'<?xml version="1.0" encoding="utf-8"?><EnumerationResults><Blobs>{blobs}</Blobs>'
            f"<NextMarker>{marker}</NextMarker></EnumerationResults>").encode()


def error(code, message=""):
    return f'<?xml version="1.0" encoding="utf-8"?><Error><Code>{code}</Code><Message>{message}</Message></Error>'.encode()


DENY = {"deny-sip": "AuthorizationSourceIPMismatch", "deny-spr": "AuthorizationProtocolMismatch",
        "deny-auth": "AuthenticationFailed", "deny-net": "AuthorizationFailure"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counts = {}
    lock = threading.Lock()

    def log_message(self, *a):
        pass

    def reply(self, code, body, ctype="application/xml", headers=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def drip(self, total, rate=2048):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(total))
        self.send_header("ETag", '"0x1"')
        self.end_headers()
        try:
            while True:
                self.wfile.write(b"<" * rate)
                self.wfile.flush()
                time.sleep(1)
        except OSError:
            return

    def ranged(self, data, etag='"0x1"'):
        rng = self.headers.get("x-ms-range") or self.headers.get("Range") or ""
        if rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            a = int(a)
            b = min(int(b) if b else len(data) - 1, len(data) - 1)
            if a >= len(data):
                return self.reply(416, error("InvalidRange"))
            return self.reply(206, data[a:b + 1], "application/octet-stream",
                              {"ETag": etag, "Content-Range": f"bytes {a}-{b}/{len(data)}"})
        return self.reply(200, data, "application/octet-stream", {"ETag": etag})

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path, _, query = self.path.partition("?")
        parts = path.split("/", 3)
        cont = parts[2] if len(parts) > 2 else ""
        name = urllib.parse.unquote(parts[3]) if len(parts) > 3 else ""
        params = urllib.parse.parse_qs(query, keep_blank_values=True)
        listing = params.get("comp") == ["list"]
        marker = params.get("marker", [""])[0]
        with Handler.lock:
            n = Handler.counts.get(cont, 0) + 1
            Handler.counts[cont] = n
        if cont == "good":
            if f"sig={SIG}" not in query:
                return self.reply(403, error("AuthenticationFailed", "no signature"),
                                  headers={"x-ms-error-code": "AuthenticationFailed"})
            if listing:
                return self.reply(200, page("".join(blob(k, len(v)) for k, v in DATA.items())))
            if name in DATA:
                return self.ranged(DATA[name])
            return self.reply(404, error("BlobNotFound"))
        if cont == "loop":
            return self.reply(200, page("", "same"))
        if cont == "repeat":
            return self.reply(200, page(blob(f"r{n}.bin", 10), "same")) if listing else self.ranged(b"x" * 10)
        if cont == "forever":
            return self.reply(200, page(blob(f"f{n}.bin", 10), f"m{n}")) if listing else self.ranged(b"x" * 10)
        if cont == "emptyloop":
            return self.reply(200, page("", f"m{n}"))
        if cont == "huge63":
            return (self.reply(200, page(blob("f.bin", 2**63 - 1) + blob("fine.bin", 10))) if listing
                    else self.ranged(b"x" * 10))
        if cont == "max64":
            return (self.reply(200, page(blob("max.bin", 2**64 - 1) + blob("fine.bin", 10))) if listing
                    else self.ranged(b"x" * 10))
        if cont == "overmax":
            return (self.reply(200, page(blob("block.bin", BLOCK_MAX + 1) +
                                         blob("page.bin", PAGE_MAX + 512, btype="PageBlob") +
                                         blob("fine.bin", 10))) if listing else self.ranged(b"x" * 10))
        if cont == "badsize":
            return (self.reply(200, page(blob("bad.bin", "12x") + blob("fine.bin", 10))) if listing
                    else self.ranged(b"x" * 10))
        if cont == "slow2":
            if not listing:
                return self.ranged(b"x" * 10)
            if marker:
                time.sleep(30)
                return self.reply(200, page(blob("late.bin", 10)))
            return self.reply(200, page("".join(blob(f"e{i}.bin", 10) for i in range(32)), "m2"))
        if cont == "echo":
            sig = query.split("sig=")[-1]
            raw = urllib.parse.unquote(sig)
            twice = urllib.parse.quote(sig, safe="")
            return self.reply(403, error("AuthenticationFailed",
                                         f"bad signature: {sig} (sig={sig}) raw {raw} "
                                         f"form sig%3D{sig} twice {twice} lowerhex {sig.replace('%2B', '%2b').replace('%3D', '%3d')}"))
        if cont == "drip":
            return self.drip(60 << 20) if listing else self.ranged(b"x" * 10)
        if cont == "dripread":
            return self.reply(200, page(blob("slow.bin", 1 << 20))) if listing else self.drip(1 << 20)
        if cont == "hugelist":
            body = page(blob("x.bin", 1) * 1 + "<!--" + "x" * (70 * 1000 * 1000) + "-->")
            return self.reply(200, body)
        if cont == "endless":
            self.send_response(200)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"<!--" + b"x" * 65536 + b"-->"
            try:
                while True:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                return
        if cont == "etagchange":
            return self.reply(200, page(blob("e.bin", 10))) if listing else self.ranged(b"x" * 10, '"0x2"')
        if cont == "nul":
            return (self.reply(200, page(blob("nul%00byte", 10, encoded=True) + blob("fine.bin", 10)))
                    if listing else self.ranged(b"x" * 10))
        if cont in DENY:
            code = DENY[cont]
            return self.reply(403, error(code, "This request is not authorized to perform this operation."),
                              headers={"x-ms-error-code": code})
        return self.reply(404, error("ContainerNotFound"))


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up (a deadline, a cut listing) is part of the tests


class FakeBlob:
    """The service in a thread of this process, on 127.0.0.1 and a free port."""

    def __init__(self, port=0):
        self.server = Server(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.endpoint = f"http://127.0.0.1:{self.port}/acct"

    def url(self, container, sas=SAS):
        return f"{self.endpoint}/{container}" + (f"?{sas}" if sas else "")

    def requests(self, container):
        with Handler.lock:
            return Handler.counts.get(container, 0)

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *a):
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":
    fb = FakeBlob(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(fb.endpoint, flush=True)
    fb.server.serve_forever()
