#!/usr/bin/env python3
"""The Blob client (src/blob, through tests/tools/blob_client_check) against Azurite started here
on 127.0.0.1 with blobs this test uploads, and against fake servers for what Azurite will not do
(garbage XML, 503 with Retry-After, a connection dropped mid-range). Fails loudly when Azurite
cannot start. Usage: blob_client_test.py BLOB_CLIENT_CHECK"""

import hashlib
import base64
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import azurite  # noqa: E402

CHECK = sys.argv[1]
failures = []


def run(*args, expect_rc=0):
    p = subprocess.run([CHECK, *args], capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
    except json.JSONDecodeError:
        out = {"raw": p.stdout}
    if p.returncode != expect_rc:
        failures.append(f"{args[:2]}: exit {p.returncode}, expected {expect_rc}: {p.stdout}{p.stderr}")
    return out


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def md5b64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def azurite_cases(tmp):
    with azurite.Azurite() as az:
        az.create_container("data")
        small = os.urandom(3000)
        large = os.urandom(24 << 20)
        az.put_blob("data", "set/small-md5.bin", small)
        az.put_blob("data", "set/small-nomd5.bin", small[:1000], content_md5=False)
        az.put_blob("data", "set/large.bin", large)
        az.put_blob("data", "set/odd name & more+ü.bin", b"odd")
        for i in range(23):
            az.put_blob("data", f"set/many/{i:03d}.bin", bytes([i]) * (100 + i))
        az.put_blob("data", "other/outside.bin", b"not under the prefix")
        ep = az.endpoint
        rl = az.container_sas("data", "rl")
        sig_rl = [kv.split("=", 1)[1] for kv in rl.split("&") if kv.startswith("sig=")][0]
        url = f"{ep}/data/set?{rl}"

        # Listing in pages of 7: every blob under set/, none outside, MD5 where the blob has one.
        out = run("--blob-endpoint", ep, "list", url, "7")
        names = {i["name"]: i for i in out.get("items", [])}
        check(len(names) == 27, f"list: 27 blobs under set/ (got {len(names)})")
        check(out.get("pages", 0) >= 4, f"list: paged by maxresults=7 ({out.get('pages')} pages)")
        check("other/outside.bin" not in names, "list: the prefix is honoured")
        check(names.get("set/small-md5.bin", {}).get("md5") == md5b64(small),
              "list: Content-MD5 of a blob uploaded with one")
        check(names.get("set/small-nomd5.bin", {}).get("md5") == "",
              "list: no Content-MD5 for a blob without one")
        check(names.get("set/large.bin", {}).get("size") == len(large), "list: size of the large blob")
        check("set/odd name & more+ü.bin" in names, "list: a name with space, &, + and UTF-8")

        # Properties and ranged reads pinned to the ETag.
        props = run("--blob-endpoint", ep, "props", url, "set/large.bin")
        check(props.get("md5") == md5b64(large) and props.get("size") == len(large),
              "props: size and Content-MD5")
        etag = props.get("etag", "")
        dst = os.path.join(tmp, "range.bin")
        run("--blob-endpoint", ep, "read", url, "set/large.bin", etag, str(5 << 20), str(9 << 20), dst)
        with open(dst, "rb") as f:
            check(f.read() == large[5 << 20:14 << 20], "read: 9 MiB at 5 MiB equal the uploaded bytes")
        odd = names.get("set/odd name & more+ü.bin", {})
        run("--blob-endpoint", ep, "read", url, "set/odd name & more+ü.bin", odd.get("etag", ""),
            "0", "3", dst)
        with open(dst, "rb") as f:
            check(f.read() == b"odd", "read: a name that needs percent-encoding")

        # The blob changes between listing and reading: 412, named, marked as changed.
        az.put_blob("data", "set/large.bin", os.urandom(1 << 20))
        out = run("--blob-endpoint", ep, "read", url, "set/large.bin", etag, "0", "4096", dst, expect_rc=3)
        check(out.get("changed") is True and out.get("status") == 412 and "set/large.bin" in out.get("error", ""),
              f"read: a blob changed since listing is detected and named: {out.get('error')}")
        # ... or vanished.
        az.request("DELETE", "data/set/small-md5.bin")
        out = run("--blob-endpoint", ep, "read", url, "set/small-md5.bin",
                  names["set/small-md5.bin"]["etag"], "0", "100", dst, expect_rc=3)
        # Azure answers 404 BlobNotFound; Azurite 412 (If-Match on nothing, RFC 9110 13.1.1).
        check(out.get("changed") is True and out.get("status") in (404, 412)
              and ("vanished" in out.get("error", "") or "deleted" in out.get("error", "")),
              f"read: a vanished blob is named: {out.get('error')}")

        # A SAS without read permission: a clear error that names the permission, no signature.
        l_only = az.container_sas("data", "l")
        sig = [kv.split("=", 1)[1] for kv in l_only.split("&") if kv.startswith("sig=")][0]
        out = run("--blob-endpoint", ep, "read", f"{ep}/data/set?{l_only}", "set/small-nomd5.bin",
                  names["set/small-nomd5.bin"]["etag"], "0", "10", dst, expect_rc=3)
        err = out.get("error", "")
        check(out.get("status") == 403 and "SAS does not allow" in err and "sp=l" in err and "read (r)" in err,
              f"read with sp=l: names the missing permission: {err}")
        check(sig not in err and "sig=" not in err, "read with sp=l: the signature is not in the message")
        out = run("--blob-endpoint", ep, "list", f"{ep}/data/set?{az.container_sas('data', 'r')}", expect_rc=3)
        check(out.get("status") == 403 and "list (l)" in out.get("error", ""),
              f"list with sp=r: names the missing permission: {out.get('error')}")
        # A SAS whose signature does not match.
        bad = rl.replace("sig=", "sig=AAAA")
        out = run("--blob-endpoint", ep, "list", f"{ep}/data/set?{bad}", expect_rc=3)
        # Azurite answers a wrong signature with AuthorizationFailure (Azure: AuthenticationFailed).
        check(out.get("status") == 403 and "refused" in out.get("error", "") and "AAAA" not in out.get("error", ""),
              f"list with a wrong signature: refused, signature redacted: {out.get('error')}")
        # A container that does not exist.
        out = run("--blob-endpoint", ep, "list", f"{ep}/nope/x?{az.container_sas('nope', 'rl')}", expect_rc=3)
        check(out.get("status") == 404 and "container 'nope' does not exist" in out.get("error", ""),
              f"list of a missing container: {out.get('error')}")
        # Without --blob-endpoint an Azurite URL is not taken for Azure.
        out = run("list", url, expect_rc=2)
        check("--blob-endpoint" in out.get("error", ""), "a non-Azure URL asks for --blob-endpoint")

        # The stage source's own page sizes: a short first page (500 entries, so the copy starts
        # after one quick request), then the service's pages of 5,000: 520 blobs are 2 requests.
        many = [f"many/{i:04d}.bin" for i in range(520)]
        for name in many:
            az.put_blob("data", name, name.encode(), content_md5=False)
        out = run("--blob-endpoint", ep, "source", f"{ep}/data/many?{rl}", "0")
        got = [e["path"] for e in out.get("entries", [])]
        check(got == [n[len("many/"):] for n in many] and out.get("source_requests") == 2,
              f"source: 520 blobs listed once each, in order, in a first page of 500 and one more "
              f"({len(got)} entries, {out.get('source_requests')} requests)")

        # The stage source over the same client: entries relative to the prefix, MD5 as hex,
        # ETag quoted, a name that cannot be a path below DST reported and left out, folder
        # markers skipped, and a blob changed between two ranges of one copy named as changed.
        az.put_blob("data", "src/ok/a.bin", small)
        az.put_blob("data", "src/ok/folder/", b"", content_md5=False)
        az.put_blob("data", "src/bad//double.bin", b"x")
        az.put_blob("data", "src/big.bin", large[:6 << 20])
        surl = f"{ep}/data/src?{rl}"
        out = run("--blob-endpoint", ep, "source", surl, "2")
        paths = {e["path"]: e for e in out.get("entries", [])}
        check(set(paths) == {"ok/a.bin", "big.bin"}, f"source: entries relative to the prefix: {sorted(paths)}")
        check(paths.get("ok/a.bin", {}).get("md5") == hashlib.md5(small).hexdigest()
              and paths["ok/a.bin"]["etag"].startswith('"'), "source: Content-MD5 as hex, ETag quoted")
        check(len(out.get("problems", [])) == 1 and "src/bad//double.bin" in out["problems"][0],
              f"source: a name with an empty component is reported, not staged: {out.get('problems')}")
        check(sig_rl not in json.dumps(out), "source: the SAS signature appears nowhere in the output")
        whole = os.path.join(tmp, "whole.bin")
        out = run("--blob-endpoint", ep, "source", surl, "0", "big.bin", whole, str(1 << 20))
        with open(whole, "rb") as f:
            check("source_error" not in out and f.read() == large[:6 << 20], "source: a 6 MiB blob read in 1 MiB ranges")
        pause = os.path.join(tmp, "pause")
        env = dict(os.environ, BLOB_CHECK_PAUSE_AFTER_FIRST=pause)
        p = subprocess.Popen([CHECK, "--blob-endpoint", ep, "source", surl, "0", "big.bin", whole, str(1 << 20)],
                             stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(600):
            if os.path.exists(pause):
                break
            time.sleep(0.05)
        az.put_blob("data", "src/big.bin", os.urandom(6 << 20))
        open(pause + ".go", "w").close()
        out = json.loads(p.communicate(timeout=120)[0].strip().splitlines()[-1])
        check(out.get("source_error") == "changed" and out.get("path") == "big.bin" and "src/big.bin" in out.get("error", ""),
              f"source: a blob overwritten between two ranges is 'changed' and named: {out.get('error')}")

        # Keep one real response for the parser corpus (the test suite replays it).
        if os.environ.get("TRAINREADY_CAPTURE_LIST"):
            import urllib.request
            req = urllib.request.Request(f"{ep}/data?restype=container&comp=list&maxresults=5&include=metadata&{rl}",
                                         headers={"x-ms-version": azurite.SAS_VERSION})
            with open(os.environ["TRAINREADY_CAPTURE_LIST"], "wb") as f:
                f.write(urllib.request.urlopen(req).read())


def https_cases(tmp):
    key, cert = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    with azurite.Azurite(extra_args=["--cert", cert, "--key", key]) as az:
        ep = az.endpoint
        url = f"{ep}/data?{az.container_sas('data', 'rl')}"
        out = run("--blob-endpoint", ep, "list", url, expect_rc=3)
        check("certificate" in out.get("error", "").lower(),
              f"https: an untrusted certificate is refused: {out.get('error')}")
        out = run("--blob-endpoint", ep, "--ca-file", cert, "list", url, expect_rc=3)
        check(out.get("status") == 404, "https: with its CA the endpoint is reached (container missing: 404)")


class Fake(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    plan = []      # responses to give, in order: (status, headers, body, truncate_to)
    seen = []      # request lines and x-ms-range headers

    def do_GET(self):
        Fake.seen.append((self.path, self.headers.get("x-ms-range"), self.headers.get("If-Match")))
        status, headers, body, cut = Fake.plan.pop(0) if Fake.plan else (500, {}, b"", None)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body if cut is None else body[:cut])
        if cut is not None:
            self.close_connection = True

    def log_message(self, *a):
        pass


def fake_cases(tmp):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Fake)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    ep = f"http://127.0.0.1:{srv.server_address[1]}/acct"
    url = f"{ep}/data/p?sv=2021-08-06&sp=rl&sig=SECRETSIG"
    listing = (b'<?xml version="1.0" encoding="utf-8"?><EnumerationResults><Blobs><Blob><Name>p/a</Name>'
               b'<Properties><Content-Length>3</Content-Length><Etag>0x1</Etag></Properties></Blob></Blobs>'
               b'<NextMarker/></EnumerationResults>')
    # Garbage where XML should be: an error naming the response, no crash.
    for garbage in [b"\x00\xff garbage", b"<EnumerationResults><Blobs><Blob>", b"<?xml version='1.0'?><Other/>",
                    b'<!DOCTYPE x [<!ENTITY a "aaaa">]><EnumerationResults/>']:
        Fake.plan = [(200, {}, garbage, None)]
        out = run("--blob-endpoint", ep, "list", url, expect_rc=4)
        check("List Blobs" in out.get("error", "") and "SECRETSIG" not in out.get("error", ""),
              f"garbage listing {garbage[:20]!r}: {out.get('error')}")
    # A size that is not a byte count names that blob, not the page (reliability probe 3, D15).
    Fake.plan = [(200, {}, b"<EnumerationResults><Blobs><Blob><Name>x</Name><Properties><Content-Length>-1"
                           b"</Content-Length><Etag>e</Etag></Properties></Blob></Blobs></EnumerationResults>", None)]
    out = run("--blob-endpoint", ep, "list", url)
    items = out.get("items", [])
    check(len(items) == 1 and "not a byte count" in items[0].get("problem", ""),
          f"a Content-Length of -1 is the blob's problem: {out}")
    # 503 twice (Retry-After: 1), then the answer: retried, about 2 s spent waiting.
    Fake.plan = [(503, {"Retry-After": "1", "x-ms-error-code": "ServerBusy"}, b"", None)] * 2 + [(200, {}, listing, None)]
    t0 = time.time()
    out = run("--blob-endpoint", ep, "list", url)
    check(out.get("retries") == 2 and time.time() - t0 >= 1.9 and len(out.get("items", [])) == 1,
          f"503 + Retry-After: retried twice, honouring the wait ({time.time() - t0:.1f} s)")
    # 429 throughout: gives up after --max-attempts and says so.
    Fake.plan = [(429, {"Retry-After": "0"}, b"", None)] * 3
    out = run("--blob-endpoint", ep, "--max-attempts", "3", "list", url, expect_rc=3)
    check(out.get("status") == 429 and "after 3 attempts" in out.get("error", ""), f"429 throughout: {out.get('error')}")
    # A connection dropped mid-range: the retry asks only for the rest.
    data = bytes(range(256)) * 40
    Fake.seen = []
    Fake.plan = [(206, {"ETag": "0x1"}, data, 4000), (206, {"ETag": "0x1"}, data[4000:], None)]
    dst = os.path.join(tmp, "resumed.bin")
    out = run("--blob-endpoint", ep, "read", url, "p/a", "0x1", "0", str(len(data)), dst)
    with open(dst, "rb") as f:
        got = f.read()
    ranges = [s[1] for s in Fake.seen]
    check(got == data and ranges == [f"bytes=0-{len(data) - 1}", f"bytes=4000-{len(data) - 1}"]
          and all(s[2] == "\"0x1\"" for s in Fake.seen),
          f"dropped range resumed at the byte it stopped, pinned to the ETag: {ranges}")
    srv.shutdown()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        azurite_cases(tmp)
        https_cases(tmp)
        fake_cases(tmp)
    if failures:
        print("\n".join(["FAILED:"] + failures))
        return 1
    print("blob client: all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
