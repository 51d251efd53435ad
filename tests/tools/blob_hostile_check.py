#!/usr/bin/env python3
"""`trainready stage` against the hostile fake Blob service (tests/tools/fake_blob.py, on
127.0.0.1 and a free port), every run under a time limit. The Blob cases of reliability probe 3:

- D14 a repeated NextMarker (with and without new blobs), a run of empty pages, and a listing
  without end (the page bound, through blob_client_check's smaller limits): each ends, named;
- D6/D15 sizes of 2^63-1, 2^64-1, above Azure's largest block and page blob, and not a number:
  that blob named as not staged, the others staged, never a crash;
- D16 a 403 body echoing the signature raw, percent-encoded, as sig%3D..., doubly encoded, with
  lower-case hex: the signature in no output (text, JSON, stderr);
- D17 the SAS from --sas-file (mode advised) and from AZURE_STORAGE_SAS_TOKEN: the copy works,
  and /proc/PID/cmdline of the running stage holds no signature (the argv form does: the check
  can fail);
- D24 a NUL in a blob name: the message is whole; D26 a listing body over 64 MiB named as such,
  a GET answering another ETag classed `changed`; D31 a listing that drips: ended by the
  request deadline (blob_client_check with a 3 s deadline);
- finding 9: 403 AuthorizationSourceIPMismatch / AuthorizationProtocolMismatch /
  AuthenticationFailed / AuthorizationFailure each explained by its own cause.

Usage: blob_hostile_check.py TRAINREADY BLOB_CLIENT_CHECK
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_blob  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
CHECK = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
FAILS = []
SECRET = "S3CRETsig"  # every spelling the fake echoes starts with it


def check(cond, what):
    # Output excerpts in `what` are printed in full only when the check fails.
    shown = what if not cond or len(what) < 140 else " ".join(what[:140].split()) + " ..."
    print(("ok   " if cond else "FAIL ") + shown, flush=True)
    if not cond:
        FAILS.append(what)


def stage(fb, container, dst, *extra, sas=fake_blob.SAS, env=None, limit=60):
    e = {k: v for k, v in os.environ.items() if k != "AZURE_STORAGE_SAS_TOKEN"}
    e.update(env or {})
    t0 = time.monotonic()
    try:
        p = subprocess.run([BIN, "stage", fb.url(container, sas), dst, "--blob-endpoint", fb.endpoint,
                            "--progress", "never", *extra], capture_output=True, text=True,
                           timeout=limit, env=e)
    except subprocess.TimeoutExpired:
        return None, "(timed out after %d s)" % limit, limit
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def js(out):
    try:
        return json.loads(out[out.index("{"):out.rindex("}") + 1])["stage"]
    except (ValueError, KeyError):
        return {}


def names(problems):
    return " | ".join(p["path"] + ": " + p["message"] for p in problems)


def listing_cases(fb, tmp):
    # D14: the same marker for ever, 0 blobs (890 requests in 40 s before the fix). Nothing was
    # listed, so the source could not be read at all: exit 2, as for a refused listing (D28).
    rc, out, took = stage(fb, "loop", os.path.join(tmp, "loop"), "--json")
    check(rc == 2 and "NextMarker it had given before" in out and took < 30,
          f"loop: a repeated NextMarker ends the listing, exit 2 ({rc}, {took:.1f} s): {out[-300:]}")
    # The same marker with a new blob each time: the first page is staged, then the error.
    rc, out, took = stage(fb, "repeat", os.path.join(tmp, "repeat"), "--json")
    check(rc == 1 and "NextMarker it had given before" in out and fb.requests("repeat") < 10,
          f"repeat: marker repeated with new blobs ends ({rc}, {fb.requests('repeat')} requests)")
    # New markers, no blobs: 1,000 empty pages in a row is no progress (nothing listed: exit 2).
    rc, out, took = stage(fb, "emptyloop", os.path.join(tmp, "empty"), "--json", limit=120)
    check(rc == 2 and "pages in a row held no entry" in out,
          f"emptyloop: a run of empty pages ends ({rc}, {took:.1f} s): {out[-300:]}")
    if CHECK:
        # Without end (a new blob and marker each page): the page bound, made small here.
        p = subprocess.run([CHECK, "--blob-endpoint", fb.endpoint, "--max-pages", "50", "source",
                            fb.url("forever"), "0"], capture_output=True, text=True, timeout=60)
        err = json.loads(p.stdout or "{}").get("error", "")
        check(p.returncode == 3 and "more than 50 pages" in err, f"forever: the page bound ends it: {err}")
        p = subprocess.run([CHECK, "--blob-endpoint", fb.endpoint, "--max-entries", "20", "source",
                            fb.url("forever"), "0"], capture_output=True, text=True, timeout=60)
        err = json.loads(p.stdout or "{}").get("error", "")
        check(p.returncode == 3 and "more than 20 entries" in err, f"forever: the entry bound ends it: {err}")


def size_cases(fb, tmp):
    for cont, bad, why in [("huge63", "f.bin", "above the largest"), ("max64", "max.bin", "above the largest"),
                           ("overmax", "block.bin", "above the largest"), ("overmax", "page.bin", "8 TiB"),
                           ("badsize", "bad.bin", "not a byte count")]:
        dst = os.path.join(tmp, cont)
        rc, out, took = stage(fb, cont, dst, "--json")
        s = js(out)
        failed = s.get("failed", [])
        check(rc == 1 and any(f["path"] == bad and why in f["message"] for f in failed),
              f"{cont}: {bad} named as not staged ({why}), exit 1 ({rc}): {names(failed) or out[-300:]}")
        check(os.path.exists(os.path.join(dst, "fine.bin")) and not os.path.exists(os.path.join(dst, bad)),
              f"{cont}: fine.bin staged beside it, {bad} not written")


def secret_cases(fb, tmp):
    for fmt in ([], ["--json"], ["--format", "sarif"]):
        rc, out, took = stage(fb, "echo", os.path.join(tmp, "echo"), *fmt)
        check(rc in (1, 2) and SECRET not in out and "403" in out,
              f"echo {fmt}: no spelling of the signature in the output (exit {rc}): "
              f"{[w for w in out.split() if SECRET in w][:3]}")
    # The SAS from a file, mode 600: staged; mode 644: advised.
    sas_file = os.path.join(tmp, "sas")
    with open(sas_file, "w") as f:
        f.write("?" + fake_blob.SAS + "\n")
    os.chmod(sas_file, 0o600)
    dst = os.path.join(tmp, "from-file")
    rc, out, took = stage(fb, "good", dst, "--sas-file", sas_file, sas="")
    ok = rc == 0 and all(open(os.path.join(dst, k), "rb").read() == v for k, v in fake_blob.DATA.items())
    check(ok and "chmod" not in out and SECRET not in out, f"--sas-file (0600): staged, exit {rc}: {out[-300:]}")
    os.chmod(sas_file, 0o644)
    rc, out, took = stage(fb, "good", os.path.join(tmp, "from-file2"), "--sas-file", sas_file, sas="")
    check(rc == 0 and "chmod 600" in out and SECRET not in out, f"--sas-file (0644): advised: {out[-300:]}")
    os.chmod(sas_file, 0o600)
    rc, out, took = stage(fb, "good", os.path.join(tmp, "both"), "--sas-file", sas_file)
    check(rc == 2 and "one way only" in out and SECRET not in out, f"a SAS in the URL and --sas-file: exit 2 ({rc})")
    dst = os.path.join(tmp, "from-env")
    rc, out, took = stage(fb, "good", dst, sas="", env={"AZURE_STORAGE_SAS_TOKEN": fake_blob.SAS})
    check(rc == 0 and os.path.exists(os.path.join(dst, "sub/b.bin")) and SECRET not in out,
          f"AZURE_STORAGE_SAS_TOKEN: staged, exit {rc}: {out[-300:]}")
    rc, out, took = stage(fb, "good", os.path.join(tmp, "no-sas"), sas="")
    check(rc != 0 and "AuthenticationFailed" in out, f"no SAS at all: refused by the fake ({rc})")
    # /proc/PID/cmdline of a running stage (--max-bw keeps it running): the signature is there
    # with the argv form only.
    for form, sas, extra, env in [("argv", fake_blob.SAS, [], {}),
                                  ("--sas-file", "", ["--sas-file", sas_file], {}),
                                  ("env", "", [], {"AZURE_STORAGE_SAS_TOKEN": fake_blob.SAS})]:
        e = {k: v for k, v in os.environ.items() if k != "AZURE_STORAGE_SAS_TOKEN"}
        e.update(env)
        p = subprocess.Popen([BIN, "stage", fb.url("good", sas), os.path.join(tmp, "cmdline-" + form[-4:]),
                              "--blob-endpoint", fb.endpoint, "--max-bw", "64K", "--progress", "never", *extra],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        cmdline = b""
        for _ in range(50):
            time.sleep(0.1)
            try:
                with open(f"/proc/{p.pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                break
            if cmdline:
                break
        alive = p.poll() is None
        p.kill()
        out, err = p.communicate()
        held = SECRET.encode() in cmdline
        if form == "argv":
            check(alive and held, f"argv form: the signature is in /proc/PID/cmdline (the check can fail)")
        else:
            check(alive and cmdline and not held and SECRET.encode() not in out + err,
                  f"{form}: /proc/PID/cmdline of the running stage holds no signature")


def message_cases(fb, tmp):
    rc, out, took = stage(fb, "nul", os.path.join(tmp, "nul"), "--json")
    failed = js(out).get("failed", [])
    check(rc == 1 and any("nul\\x00byte" in f["message"] and "NUL" in f["message"] for f in failed),
          f"nul: the name and the reason are whole: {names(failed)}")
    # Nothing listed before the cut: the source could not be listed at all, exit 2 (D28).
    rc, out, took = stage(fb, "hugelist", os.path.join(tmp, "hugelist"), "--json")
    check(rc == 2 and "over 64 MiB" in out and "more than was asked" not in out,
          f"hugelist: a body over 64 MiB named as such ({rc}): {out[-300:]}")
    rc, out, took = stage(fb, "endless", os.path.join(tmp, "endless"), "--json")
    check(rc == 2 and "over 64 MiB" in out and took < 60, f"endless: cut and named ({rc}, {took:.1f} s)")
    rc, out, took = stage(fb, "etagchange", os.path.join(tmp, "etag"), "--json")
    s = js(out)
    # Classed changed, not io; a file that changed during the copy is also not staged (D8).
    check(any(c["path"] == "e.bin" and c["kind"] == "changed" for c in s.get("changed", [])) and
          all(f["kind"] == "changed" for f in s.get("failed", []) if f["path"] == "e.bin"),
          f"etagchange: classed changed: changed={names(s.get('changed', []))} failed={names(s.get('failed', []))}")
    for cont, words in [("deny-sip", ["sip", "IP address"]), ("deny-spr", ["spr", "https"]),
                        ("deny-auth", ["expired", "AuthenticationFailed"]),
                        ("deny-net", ["network rules", "private endpoint", "firewall"])]:
        rc, out, took = stage(fb, cont, os.path.join(tmp, cont))
        flat = " ".join(out.split())
        check(rc in (1, 2) and all(w in flat for w in words), f"{cont}: explained with {words}: {flat[-400:]}")
    check("network rules" not in " ".join(stage(fb, "deny-auth", os.path.join(tmp, "da2"))[1].split()),
          "deny-auth: not blamed on the network rules")
    if CHECK:
        # D31: a listing that drips at 2 KiB/s (above the 1 KiB/s stall rule) ends at its deadline.
        t0 = time.monotonic()
        p = subprocess.run([CHECK, "--blob-endpoint", fb.endpoint, "--max-attempts", "1", "--request-deadline", "3",
                            "list", fb.url("drip")], capture_output=True, text=True, timeout=60)
        took = time.monotonic() - t0
        err = json.loads(p.stdout or "{}").get("error", "")
        check(p.returncode == 3 and "deadline of 3 s" in err and took < 10,
              f"drip: the listing ends at its 3 s deadline ({took:.1f} s): {err}")
        t0 = time.monotonic()
        p = subprocess.run([CHECK, "--blob-endpoint", fb.endpoint, "--max-attempts", "1", "--read-deadline-base", "2",
                            "--read-deadline-per-mib", "1", "read", fb.url("dripread"), "slow.bin", "0x1", "0",
                            str(1 << 20), os.path.join(tmp, "drip.bin")], capture_output=True, text=True, timeout=60)
        took = time.monotonic() - t0
        err = json.loads(p.stdout or "{}").get("error", "")
        check(p.returncode == 3 and "deadline of 3 s" in err and took < 10,
              f"dripread: a 1 MiB range ends at its 2 + 1 s deadline ({took:.1f} s): {err}")


def main():
    with tempfile.TemporaryDirectory() as tmp, fake_blob.FakeBlob() as fb:
        for section in (listing_cases, size_cases, secret_cases, message_cases):
            t0 = time.monotonic()
            section(fb, tmp)
            print(f"-- {section.__name__}: {time.monotonic() - t0:.1f} s", flush=True)
    if FAILS:
        print("\n".join(["FAILED:"] + FAILS))
        return 1
    print("blob hostile: all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
