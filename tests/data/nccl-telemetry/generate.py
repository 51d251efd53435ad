#!/usr/bin/env python3
"""Writes the generated part of tests/data/nccl-telemetry (SOURCES.md says which files are
generated and which are copied from public issues).

Each writer below follows the code of the program that writes that format, at the version named:
  - ncclras text: the rasOutAppend() formats of NCCL src/ras/client_support.cc (v2.24.3-1, v2.29.7-1)
  - ncclras JSON: jsonWriteHeader / jsonStartCommunicator / jsonWriteRankData /
    jsonWriteMissingRank / jsonWriteFooter (v2.28.7-1 .. v2.30.7-1)
  - Flight Recorder pickle: torch::jit::Pickler as pickle_str() drives it (protocol 2, no type
    tags): pushInt, pushString (BINUNICODE + BINPUT, BINGET when repeated), pushDict, pushGenericList,
    pushTuple, pushDouble, pointer-memoised shared values (the stack-frame dicts); the dict as
    FlightRecorder<>::dump_dict / getCollectiveTrace / getPgConfig / getPgStatus build it (format 2.10)
  - Flight Recorder JSON: FlightRecorder<>::dump_json (format 2.10)
  - NCCL Inspector: inspector_json.cc + json.cc of plugins/profiler/inspector (v2.30.7-1): one
    compact object a line, doubles as "%lf"
Python's own pickle module writes one more dump (protocol 5) to show the reader takes it too.
Run from this directory: python3 generate.py
"""
import json
import os
import pickle
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "job-rank5-behind")

HOSTS = {r: ("ndh100-a01", "10.0.0.4", 4100 + r) if r < 4 else ("ndh100-b01", "10.0.0.5", 5100 + r - 4)
         for r in range(8)}
COMM_HASH = 0x9c2f6a1e0b7d4e35
BEHIND = 5
AHEAD_OPS = 641


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# ---- ncclras JSON (client_support.cc jsonWrite*) ------------------------------------------------
def ras_json(counts, missing=()):
    o = []
    o.append("{\n")
    o.append('  "nccl_version": "%s",\n' % "2.29.7")
    o.append('  "cuda_runtime_version": %d,\n' % 12080)
    o.append('  "cuda_driver_version": %d,\n' % 12080)
    o.append('  "timestamp": "%s",\n' % "2026-11-30 14:02:11")
    o.append('  "communicators_count": %d,\n' % 1)
    o.append('  "communicators": [\n')
    o.append("    {\n")
    o.append('      "hash": "0x%x",\n' % COMM_HASH)
    o.append('      "secondary_hash": "0x%x:0x%x",\n' % (0x3e1f00a2c4d9b817, 0x6b2e41d0))
    o.append('      "size": %d,\n' % 8)
    o.append('      "ranks_count": %d,\n' % (8 - len(missing)))
    o.append('      "missing_ranks_count": %d,\n' % len(missing))
    o.append('      "ranks": [\n')
    first = True
    for r in range(8):
        if r in missing:
            continue
        host, ip, pid = HOSTS[r]
        if not first:
            o.append(",\n")
        first = False
        o.append("        {\n")
        o.append('          "rank": %d,\n' % r)
        o.append('          "host": "%s",\n' % ip)
        o.append('          "pid": %d,\n' % pid)
        o.append('          "cuda_dev": %d,\n' % (r % 4))
        o.append('          "nvml_dev": %d,\n' % (r % 4))
        o.append('          "status": {\n')
        o.append('            "init_state": %d,\n' % 0)
        o.append('            "async_error": %d,\n' % 0)
        o.append('            "finalize_called": %s,\n' % "false")
        o.append('            "destroy_flag": %s,\n' % "false")
        o.append('            "abort_flag": %s\n' % "false")
        o.append("          },\n")
        o.append('          "collective_counts": {\n')
        names = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"]
        for i, n in enumerate(names):
            o.append('            "%s": %d' % (n, counts(r, n)))
            if i < len(names) - 1:
                o.append(",")
            o.append("\n")
        o.append("          }\n")
        o.append("        }")
    o.append("\n      ],\n")
    o.append('      "missing_ranks": [\n')
    first = True
    for r in missing:
        host, ip, pid = HOSTS[r]
        if not first:
            o.append(",\n")
        first = False
        o.append("        {\n")
        o.append('          "rank": %d,\n' % r)
        o.append('          "host": "%s",\n' % ip)
        o.append('          "pid": %d,\n' % pid)
        o.append('          "cuda_dev": %d,\n' % (r % 4))
        o.append('          "nvml_dev": %d,\n' % (r % 4))
        o.append('          "status": {\n')
        o.append('            "unresponsive": %s,\n' % "true")
        o.append('            "considered_dead": %s\n' % "true")
        o.append("          }\n")
        o.append("        }")
    o.append("\n      ]\n")
    o.append("    }")
    o.append("\n  ],\n")
    o.append('  "ras": {\n')
    o.append('    "collection_time_sec": %.3f,\n' % 0.004)
    o.append('    "timeouts_count": %d\n' % 0)
    o.append("  }\n")
    o.append("}\n")
    return "".join(o)


def counts_rank5_behind(r, name):
    if name == "AllReduce":
        return AHEAD_OPS - 1 if r == BEHIND else AHEAD_OPS
    if name == "Broadcast":
        return 2
    return 0


# ---- ncclras text (client_support.cc rasOutAppend) ----------------------------------------------
def ras_text_header(version, cuda, runtime, nodes, ppn, gpp):
    return ("NCCL version %s compiled with CUDA %s\n" % (version, cuda) +
            "CUDA runtime version %d, driver version %d\n\n" % (runtime, runtime) +
            "Job summary\n===========\n\n" +
            "  Nodes  Processes         GPUs  Processes     GPUs\n"
            "(total)   per node  per process    (total)  (total)\n"
            "%7d  %9d  %11d  %9d  %7d\n" % (nodes, ppn, gpp, nodes * ppn, nodes * ppn * gpp))


def ras_text_table(rows, secs):
    s = "\nCommunicators..." + " (%.3fs)\n=============\n\n" % secs
    s += ("Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
          "    #  in group  per comm  per node  per comm  in group\n")
    for g, comms, nodes, rpn, rpc, rig, status, err in rows:
        s += "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s\n" % (g, comms, nodes, rpn, rpc, rig, status, err)
    return s


def ras_text_2_29_rank5_behind():
    s = ras_text_header("2.29.7", "12.8", 12080, 2, 4, 1)
    s += ras_text_table([(0, 1, 2, "4", 8, 8, "RUNNING", "MISMATCH")], 0.002)
    s += "\nErrors\n======\n\n"
    s += "Warnings\n========\n\n"
    s += "#%d-%d (%016x) MISMATCH\n" % (0, 0, COMM_HASH)
    s += "  Communicator ranks have different %s operation counts\n" % "AllReduce"
    s += "  %d ranks have launched up to operation %d\n" % (7, AHEAD_OPS)
    host, ip, pid = HOSTS[BEHIND]
    s += ("  Rank %d has launched up to operation %d -- GPU %s managed by process %d "
          "on node %s\n" % (BEHIND, AHEAD_OPS - 1, str(BEHIND % 4), pid, ip))
    s += "\n"
    return s


def ras_text_2_24_collective_counts():
    # 2.24/2.25 count all collectives together ("collective operation counts").
    s = ras_text_header("2.24.3", "12.6", 12060, 2, 4, 1)
    s += ras_text_table([(0, 1, 2, "4", 8, 8, "RUNNING", "MISMATCH")], 0.001)
    s += "\nErrors\n======\n\n"
    s += "Warnings\n========\n\n"
    s += "#%d-%d (%016x) MISMATCH\n" % (0, 0, COMM_HASH)
    s += "  Communicator ranks have different collective operation counts\n"
    s += "  %d ranks have launched up to operation %d\n" % (7, 1200)
    host, ip, pid = HOSTS[BEHIND]
    s += ("  Rank %d has launched up to operation %d -- GPU %s managed by process %d on node %s\n"
          % (BEHIND, 1199, str(BEHIND % 4), pid, ip))
    s += "\n"
    return s


def ras_text_2_29_dead():
    s = ras_text_header("2.29.7", "12.8", 12080, 2, 4, 1)
    s += ras_text_table([(0, 1, 2, "4", 8, 8, "RUNNING", "INCOMPLETE")], 5.004)
    s += "\nErrors\n======\n\n"
    s += "DEAD\n  %d job process%s considered dead (unreachable via the RAS network)\n" % (1, " is")
    host, ip, pid = HOSTS[6]
    s += "  Process %d on node %s managing GPU%s %s\n" % (pid, ip, "", "2")
    s += "\n"
    s += "#%d-%d (%016x) INCOMPLETE\n  Missing communicator data from %d rank%s\n" % (0, 0, COMM_HASH, 1, "")
    s += "  Rank %d -- GPU %s managed by process %d on node %s\n" % (6, "2", pid, ip)
    s += "\n"
    s += "Warnings\n========\n\n"
    s += "TIMEOUT\n  Encountered %d communication timeout%s while gathering communicator data\n\n" % (1, "")
    return s


# ---- torch::jit::Pickler ------------------------------------------------------------------------
class Shared:
    """A value the writer memoises by pointer (an IValue with use_count > 1)."""
    def __init__(self, v):
        self.v = v


class TorchPickler:
    def __init__(self):
        self.out = bytearray()
        self.memo_id = 0
        self.strings = {}
        self.shared = {}

    def put(self):
        if self.memo_id <= 255:
            self.out += b"q" + bytes([self.memo_id])
        else:
            self.out += b"r" + struct.pack("<I", self.memo_id)
        self.memo_id += 1
        return self.memo_id - 1

    def get(self, i):
        self.out += (b"h" + bytes([i])) if i <= 255 else (b"j" + struct.pack("<I", i))

    def int_(self, n):
        if 0 <= n <= 255:
            self.out += b"K" + bytes([n])
        elif 0 <= n <= 65535:
            self.out += b"M" + struct.pack("<H", n)
        elif -2**31 <= n < 2**31:
            self.out += b"J" + struct.pack("<i", n)
        else:
            self.out += b"\x8a\x08" + struct.pack("<q", n)

    def string(self, s):
        if s in self.strings:
            self.get(self.strings[s])
            return
        b = s.encode()
        self.out += b"X" + struct.pack("<I", len(b)) + b
        self.strings[s] = self.put()

    def value(self, v):
        if isinstance(v, Shared):
            if id(v) in self.shared:
                self.get(self.shared[id(v)])
                return
            self.value(v.v)
            self.shared[id(v)] = self.put()
        elif v is None:
            self.out += b"N"
        elif v is True:
            self.out += b"\x88"
        elif v is False:
            self.out += b"\x89"
        elif isinstance(v, int):
            self.int_(v)
        elif isinstance(v, float):
            self.out += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            self.string(v)
        elif isinstance(v, dict):
            self.out += b"}("
            for k, x in v.items():
                self.value(k)
                self.value(x)
            self.out += b"u"
        elif isinstance(v, list):
            self.out += b"]("
            for x in v:
                self.value(x)
            self.out += b"e"
        elif isinstance(v, tuple):
            if len(v) == 0:
                self.out += b")"
            elif len(v) <= 3:
                for x in v:
                    self.value(x)
                self.out += bytes([0x84 + len(v)])
            else:
                self.out += b"("
                for x in v:
                    self.value(x)
                self.out += b"t"
        else:
            raise TypeError(v)

    def dump(self, v):
        self.out += b"\x80\x02"
        self.value(v)
        self.out += b"."
        return bytes(self.out)


T0 = 1764511200_000000000  # 2025-11-30T14:00:00Z in ns


def fr_dump(rank, with_frames=True):
    frames = [Shared({"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py",
                      "line": 2951}),
              Shared({"name": "wrapper", "filename": "torch/distributed/c10d_logger.py", "line": 81}),
              Shared({"name": "train_step", "filename": "/work/train.py", "line": 212})]
    last = AHEAD_OPS - 1 if rank == BEHIND else AHEAD_OPS
    entries = []
    for i, seq in enumerate(range(last - 5, last + 1)):
        done = seq < AHEAD_OPS
        e = {}
        if with_frames:
            e["frames"] = list(frames)
        e["record_id"] = 1000 + i
        e["pg_id"] = 0
        e["process_group"] = ("0", "default_pg")
        e["thread_name"] = "pt_main_thread"
        e["thread_id"] = "140213377218368"
        e["collective_seq_id"] = seq
        e["p2p_seq_id"] = 0
        e["op_id"] = seq
        e["profiling_name"] = "nccl:all_reduce"
        e["time_created_ns"] = T0 + seq * 350_000_000 + rank * 1000
        if done:
            e["duration_ms"] = 41.25
        e["input_sizes"] = [[67108864]]
        e["input_dtypes"] = ["Float"]
        e["output_sizes"] = [[67108864]]
        e["output_dtypes"] = ["Float"]
        e["state"] = "completed" if done else "started"
        e["time_discovered_started_ns"] = T0 + seq * 350_000_000 + 2_000_000
        e["time_discovered_completed_ns"] = T0 + seq * 350_000_000 + 44_000_000 if done else None
        e["retired"] = done
        e["timeout_ms"] = 600000
        e["is_p2p"] = False
        entries.append(e)
    return {
        "version": "2.10",
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}},
        "comm_lib_version": "2.29.7",
        "pg_status": {"0": {"last_enqueued_collective": last, "last_started_collective": last,
                            "last_completed_collective": AHEAD_OPS - 1}},
        "entries": entries,
    }


def fr_json(d):
    """FlightRecorder<>::dump_json: pg_status numbers as strings, unset times as 0, no frames."""
    out = {"version": d["version"], "comm_lib_version": d["comm_lib_version"],
           "pg_config": d["pg_config"],
           "pg_status": {k: {kk: str(vv) for kk, vv in v.items()} for k, v in d["pg_status"].items()}}
    ents = []
    for e in d["entries"]:
        e = {k: (list(v) if isinstance(v, tuple) else v) for k, v in e.items() if k != "frames"}
        if e["time_discovered_completed_ns"] is None:
            e["time_discovered_completed_ns"] = 0
        ents.append(e)
    out["entries"] = ents
    return json.dumps(out, sort_keys=True)  # nlohmann::json keeps keys sorted


# ---- NCCL Inspector (inspector_json.cc, json.cc) ------------------------------------------------
def inspector_line(rank, sn, busbw):
    host, ip, pid = HOSTS[rank]

    def d(x):
        return "%f" % x  # fprintf "%lf"
    return ('{"header":{"id":"0x%x","comm_name":"%s","rank":%d,"n_ranks":%d,"nnodes":%d},'
            '"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":'
            '"nccl_profiler_interface","dump_timestamp_us":%d,"hostname":"%s","pid":%d},'
            '"coll_perf":{"coll":"AllReduce","coll_sn":%d,"coll_msg_size_bytes":%d,'
            '"coll_exec_time_us":%d,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":%s,'
            '"coll_busbw_gbs":%s}}\n' % (
                COMM_HASH, "DP Group 0", rank, 8, 2, 1764511200_000000 + sn * 350_000, host, pid,
                sn, 268435456, int(268435456 / (busbw * 8 / 14) / 1e3), d(busbw * 8 / 14), d(busbw)))


def main():
    write(os.path.join(HERE, "ras-text-2.29.7-rank5-behind-allreduce.txt"), ras_text_2_29_rank5_behind())
    write(os.path.join(HERE, "ras-text-2.24.3-collective-counts-rank5-behind.txt"),
          ras_text_2_24_collective_counts())
    write(os.path.join(HERE, "ras-text-2.29.7-dead-process-timeout.txt"), ras_text_2_29_dead())
    write(os.path.join(HERE, "ras-json-2.29.7-all-ok.json"), ras_json(lambda r, n: 12 if n == "AllReduce" else 0))
    write(os.path.join(HERE, "ras-json-2.29.7-missing-rank6.json"),
          ras_json(lambda r, n: 12 if n == "AllReduce" else 0, missing=(6,)))
    # The job: RAS JSON, Flight Recorder dumps of every rank, Inspector logs of every process.
    write(os.path.join(JOB, "ras-status.json"), ras_json(counts_rank5_behind))
    for r in range(8):
        d = fr_dump(r)
        if r == 6:
            write(os.path.join(JOB, "nccl_trace_rank_%d.json" % r), fr_json(d))
        else:
            write(os.path.join(JOB, "nccl_trace_rank_%d" % r), TorchPickler().dump(d))
        host, ip, pid = HOSTS[r]
        last = AHEAD_OPS - 1 if r == BEHIND else AHEAD_OPS - 1  # completed operations only
        lines = "".join(inspector_line(r, sn, 361.5 + (sn % 3) * 0.7) for sn in range(last - 9, last + 1))
        with open(os.path.join(JOB, "%s-pid%d.log" % (host, pid)), "a") as f:
            f.write(lines)
    # Python's own pickle (protocol 5: FRAME, SHORT_BINUNICODE, MEMOIZE) of one dump.
    d = fr_dump(3, with_frames=False)
    write(os.path.join(HERE, "fr-python-pickle-protocol5-rank3"), pickle.dumps(d, protocol=5))


if __name__ == "__main__":
    for root, _, files in os.walk(JOB):
        for f in files:
            os.remove(os.path.join(root, f))
    main()
