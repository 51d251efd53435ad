// Issue 30 item 3: every shape a NCCL log line comes in.
#include "parsers/nccl_line_prefix.h"

#include <gtest/gtest.h>

#include <string>

#include "parsers/nccl_log.h"
#include "parsers/nccl_log_record.h"

namespace trainready {
namespace {

std::string norm(std::string_view line) {
  std::string scratch;
  return std::string(normalize_nccl_line(line, scratch));
}

constexpr std::string_view kNccl = "gpu-3:4123:4188 [2] NCCL INFO Using network IB";

TEST(NcclLinePrefix, LaunchersAndCollectorsAreRemoved) {
  for (std::string prefix : {
           "[1,0]<stdout>:",   // mpirun --tag-output
           "[1,12]<stderr>:",  //
           "0: ",
           "  12: ",  // srun --label
           "[rank3]:",
           "[default0]:",
           "[trainer0|0]:",                    // torchrun / PyTorch
           "[pod/trainer-0/pytorch] ",         // kubectl logs --prefix
           "2024-05-01T12:34:56.123456789Z ",  // kubectl logs --timestamps
           "2024-05-01T12:34:56+02:00 ",
           "2024-05-01 12:34:56,123 ",
           "Dec  2 04:00:00 gpu-3 python[4123]: ",                // syslog
           "2024-05-01T12:34:56.123+00:00 gpu-3 python[4123]: ",  // rsyslog, ISO time
           "(RayWorkerWrapper pid=50232, ip=10.1.0.67) ",         // Ray
           "[pod/t-0/c] 2024-05-01T12:34:56Z [1,0]<stdout>:",     // several at once
           "[0m ",
           "[1;31m",
           "[0m [rank1]:",  // colour whose ESC was lost when pasted
           // mpirun --timestamp-output (ctime, then the tag or the stream): openucx/ucx#2215
           "Wed Jan 24 16:28:44 2018[1,99]<stderr>:",
           // Open MPI 5 (PMIx): the time in brackets
           "[Wed Jan 24 16:28:44 2018][1,98]<stderr>:",
           "[Thu Mar  7 09:05:01 2024]<stdout>: ",
           "Thu Mar  7 09:05:01 2024<stdout>:",
           // containerd / CRI-O's container log file: time, stream, tag (F full, P partial)
           "2024-05-01T12:34:56.123456789Z stderr F ",
           "2024-05-01T12:34:56.123456789Z stdout P ",
           "2024-05-01T12:34:56.123456789Z stderr F [rank3]:",
           "[2024-05-01 12:00:00,123] ",  // NCCL's "[%F %T] " shape with Python's ",123"
           "> ",
           "> > ",  // a quote of a quote
           // the CloudWatch Logs console's rows, copied (aws/aws-ofi-nccl#889)
           "  | 2025-05-16T16:39:51.208-07:00 | ",
           "| 2025-05-16T16:39:51Z | ",
           // Markdown code marks glued on when an issue's code block is copied as text
           "```",
           "`",
           // an editor's line number (espnet/espnet#1940)
           "451 ",
       }) {
    EXPECT_EQ(norm(prefix + std::string(kNccl)), kNccl) << prefix;
  }
}

// The same marks before lines without a head: NCCL's bare version line after a line number
// (espnet/espnet#1940), an indented excerpt without host:pid:tid (NVIDIA/aicr#1413). A number or
// an indent before other text stays.
TEST(NcclLinePrefix, LineNumbersAndIndentsBeforeHeadlessNcclLines) {
  EXPECT_EQ(norm("455 NCCL version 2.4.8+cuda10.0"), "NCCL version 2.4.8+cuda10.0");
  EXPECT_EQ(norm("  NCCL INFO Using network IB"), "NCCL INFO Using network IB");
  EXPECT_EQ(norm("```ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>"),
            "ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>");
  EXPECT_EQ(norm("2 GPUs found"), "2 GPUs found");
  EXPECT_EQ(norm("12 ranks: 3:4 ok"), "12 ranks: 3:4 ok");
  EXPECT_EQ(norm("    return fn(*args)"), "    return fn(*args)");
}

// Ray's deduplication suffix after a worker's line (vllm#15769, vllm#2734): cut with its colour,
// also where a copy lost the escape byte; a line without a prefix, or with brackets of its own,
// keeps its text.
TEST(NcclLinePrefix, RayDedupSuffixIsCut) {
  EXPECT_EQ(norm("(RayWorkerWrapper pid=539) vllm-0:539:539 [6] NCCL INFO NCCL_CUMEM_ENABLE set "
                 "by environment to 0. [repeated 15x across cluster]"),
            "vllm-0:539:539 [6] NCCL INFO NCCL_CUMEM_ENABLE set by environment to 0.");
  EXPECT_EQ(norm("\x1b[36m(RayWorkerVllm pid=5310)\x1b[0m h:5310:5433 [7] NCCL INFO NET/IB : No "
                 "device found. \x1b[32m [repeated 12x across cluster]\x1b[0m"),
            "h:5310:5433 [7] NCCL INFO NET/IB : No device found.");
  EXPECT_EQ(norm("(RayWorkerVllm pid=5310) h:5310:5310 [7] NCCL INFO cudaDriverVersion 12010 [32m "
                 "[repeated 6x across cluster] (Ray deduplicates logs by default. Set "
                 "RAY_DEDUP_LOGS=0 to disable log deduplication)"),
            "h:5310:5310 [7] NCCL INFO cudaDriverVersion 12010");
  EXPECT_EQ(norm("h:1:1 [0] NCCL INFO Using network IB [repeated 14x across cluster]"),
            "h:1:1 [0] NCCL INFO Using network IB [repeated 14x across cluster]");
  EXPECT_EQ(norm("(pid=983) h:1:1 [0] NCCL INFO Channel 00/02 : 0 1 [repeated]"),
            "h:1:1 [0] NCCL INFO Channel 00/02 : 0 1 [repeated]");
}

// Docker's json-file log driver: the "log" string decoded (escapes, \u001b colour, its newline
// off); a line that is not such an object is left as it is.
TEST(NcclLinePrefix, DockerJsonFileLinesAreDecoded) {
  EXPECT_EQ(norm(R"({"log":"gpu-3:4123:4188 [2] NCCL INFO Using network IB\n","stream":"stderr",)"
                 R"("time":"2024-05-01T12:34:56.123456789Z"})"),
            kNccl);
  EXPECT_EQ(norm(R"({"log":"\u001b[32m[rank0]:gpu-3:4123:4188 [2] NCCL INFO Using network IB)"
                 R"(\u001b[0m\r\n","stream":"stdout","time":"2024-05-01T12:34:56Z"})"),
            kNccl);
  EXPECT_EQ(norm(R"({"log": "say \"hi\"\n", "stream": "stderr"})"), "say \"hi\"");
  for (std::string other : {R"({"log":)", R"({"log":"cut)", R"({"log":12})", R"({"msg":"x"})"})
    EXPECT_EQ(norm(other), other);
}

TEST(NcclLinePrefix, ColourAndCarriageReturnAreRemoved) {
  EXPECT_EQ(norm("\x1b[32mgpu-3:4123:4188 [2] NCCL INFO Using network IB\x1b[0m\r"), kNccl);
  EXPECT_EQ(norm("\x1b[1;31m[rank0]:\x1b[0m gpu-3:4123:4188 [2] NCCL INFO Using network IB\r\r"),
            kNccl);
}

// Only colour goes: a screen-clearing or title-setting sequence in a log is kept, for the
// reporters to show escaped.
TEST(NcclLinePrefix, OtherControlSequencesAreKept) {
  EXPECT_EQ(norm("h:1:2 [0] NCCL WARN x \x1b]0;owned\x07 \x1b[2J \x1b[31my"),
            "h:1:2 [0] NCCL WARN x \x1b]0;owned\x07 \x1b[2J y");
}

// A whole line a paste put between quotation marks, ASCII or an input method's (NVIDIA/nccl#1129:
// "\u201dmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\u201c"), loses them; a line
// with a mark at one end only, or a short one, keeps it.
TEST(NcclLinePrefix, QuotationMarksAroundAWholeLineAreRemoved) {
  EXPECT_EQ(
      norm("\xE2\x80\x9Dmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\xE2\x80\x9C"),
      "misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed");
  EXPECT_EQ(norm("\"gpu-3:4123:4188 [2] NCCL INFO Using network IB\""), kNccl);
  EXPECT_EQ(norm("`gpu-3:4123:4188 [2] NCCL INFO Using network IB`"), kNccl);
  EXPECT_EQ(norm("\xE3\x80\x8Cgpu-3:4123:4188 [2] NCCL INFO Using network IB\xE3\x80\x8D"), kNccl);
  EXPECT_EQ(norm("\"NCCL WARN x y z"), "\"NCCL WARN x y z");
  EXPECT_EQ(norm("'a'"), "'a'");
  // A folded line's continuation that is one of NCCL's quoted strings stays as it is.
  EXPECT_EQ(norm("'CUDA driver version is insufficient for CUDA runtime version'"),
            "'CUDA driver version is insufficient for CUDA runtime version'");
  // The read: the message the knowledge base knows, not a WARN quoted back.
  const NcclRunFacts f = analyze_nccl_log_text(
      "\xE2\x80\x9Dmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\xE2\x80\x9C\n",
      "t.log");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message, "Call to ibv_create_qp failed");
}

TEST(NcclLinePrefix, PlainLinesStayAsTheyAre) {
  for (std::string_view line :
       {kNccl, std::string_view("5873af64cf59:10158:10560 [0] NCCL INFO Bootstrap"),
        std::string_view("10.0.0.4: connection refused"),
        std::string_view("RuntimeError: NCCL error in: x.cpp:1, unhandled system error"),
        std::string_view("Mar12:1:2 [0] NCCL INFO x"),
        std::string_view("[E ProcessGroupNCCL.cpp:1]"), std::string_view(""),
        std::string_view("[0] NCCL INFO x"), std::string_view("[12]: x"), std::string_view("["),
        // A ctime at the start of a line without mpirun's tag or stream after it is text.
        std::string_view("Wed Jan 24 16:28:44 2018 started"),
        std::string_view("Wed Jan 24 16:28:44 2018"),
        std::string_view("Wed Jan 2x 16:28:44 2018[1,0]<stdout>:x"),
        std::string_view("Tue host:1:2 [0] NCCL INFO x"), std::string_view("WORKER:1:2 [0] x"),
        std::string_view("|x| NCCL INFO y"), std::string_view("| "),
        std::string_view("       | x")}) {
    std::string scratch;
    EXPECT_EQ(normalize_nccl_line(line, scratch), line) << line;
  }
}

// GitHub's autolinks, as a log pasted into an issue carries them (NVIDIA/nccl#1710): unwrapped
// only where the URL is the link's own text; a link to elsewhere, a connection line and text
// that only looks like a link stay.
TEST(NcclLinePrefix, MarkdownAutolinksAreUnwrapped) {
  EXPECT_EQ(norm("> node201:127799:127863 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) "
                 "NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation"),
            "node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got "
            "async event : local access violation");
  EXPECT_EQ(norm("h:1:2 [0] NCCL WARN NET/IB : Got completion from peer "
                 "[10.1.3.201](https://10.1.3.201)<33057> with status=9"),
            "h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.1.3.201<33057> with "
            "status=9");
  EXPECT_EQ(norm("h:1:2 [0] NCCL INFO [proxy.cc:698](http://proxy.cc:698/) -> 6 "
                 "[net.cc:1137](http://net.cc:1137/)"),
            "h:1:2 [0] NCCL INFO proxy.cc:698 -> 6 net.cc:1137");
  for (std::string_view kept : {
           std::string_view("see [the doc](http://example.com/doc) for net_ib.cc"),
           std::string_view("[a b](http://a b)"),
           std::string_view("x [](http://) y"),
           std::string_view("[net.cc](http://net.cc:1"),  // not closed
           std::string_view("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via "
                            "[P2P.cc](http://P2P.cc)"),
       }) {
    std::string scratch;
    EXPECT_EQ(normalize_nccl_line(kept, scratch), kept) << kept;
  }
}

// Before the prefix was removed, colour made "32mgpu-3" the host and a timestamp made every line
// a new head.
TEST(NcclLinePrefix, LogReaderUsesTheNormalisedLine) {
  NcclRunFacts f = analyze_nccl_log_text(
      "\x1b[32mgpu-3:4123:4188 [2] NCCL INFO Using network IB\x1b[0m\r\n"
      "2024-05-01T12:34:56Z NCCL version 2.18.6+cuda12.2\r\n"
      "[0m NCCL version 2.7.8+cuda11.1\n",
      "t.log");
  ASSERT_EQ(f.streams.size(), 1u);
  EXPECT_EQ(f.streams.begin()->second.host, "gpu-3");
  EXPECT_EQ(f.versions.count("2.18.6"), 1u);
  EXPECT_EQ(f.versions.count("2.7.8"), 1u);  // pasted without the colour code's ESC
  EXPECT_EQ(f.net_plugin, "IB");
}

NcclRecord one(std::string_view line) {
  NcclRecord r[4];
  EXPECT_EQ(split_nccl_records(line, r, 4), 1u) << line;
  return r[0];
}

// NCCL 2.0 - 2.2 printed no "NCCL" tag (NVIDIA/nccl#111 quotes 2.0's WARN line).
TEST(NcclLogRecordShapes, Nccl20To22HeadsWithoutTheTag) {
  NcclRecord i = one("ml3:32632:32662 [0] INFO NET : Using interface enp0s31f6:10.92.42.96<0>");
  EXPECT_EQ(i.host, "ml3");
  EXPECT_EQ(i.level, NcclLevel::kInfo);
  EXPECT_EQ(i.message, "NET : Using interface enp0s31f6:10.92.42.96<0>");
  NcclRecord w =
      one("ml3:32632:32662 [0] misc/ibvwrap.cu:63 WARN Failed to open libibverbs.so[.1]");
  EXPECT_EQ(w.level, NcclLevel::kWarn);
  EXPECT_EQ(w.message, "Failed to open libibverbs.so[.1]");
  NcclRecord masked = one("*server name* [0] include/socket.h:185 WARN Call to connect failed");
  EXPECT_EQ(masked.host, "");
  EXPECT_EQ(masked.dev, 0);
  EXPECT_EQ(masked.message, "Call to connect failed");
  // 2.3.x named the network "internal" or, with a plugin, "external" (init.cu:74, :77 @
  // v2.3.5-5); as pytorch/pytorch#14870 posted it, without the tag.
  EXPECT_EQ(analyze_nccl_log_text("docker-1:19123:19123 [2] INFO Using internal Network IB\n", "t")
                .net_plugin,
            "IB");
  EXPECT_EQ(analyze_nccl_log_text("h:1:1 [0] NCCL INFO Using external Network AWS Libfabric\n", "t")
                .net_plugin,
            "AWS Libfabric");
}

TEST(NcclLogRecordShapes, HeadsCutOffOrMasked) {
  NcclRecord a = one("[4] NCCL INFO Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC");
  EXPECT_EQ(a.host, "");
  EXPECT_EQ(a.dev, 4);
  EXPECT_EQ(a.message, "Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC");
  EXPECT_EQ(one("7  [1] NCCL INFO Ring 00 : 1[23000] -> 8[1e000] [send] via NET/IB/1/GDRDMA").dev,
            1);
  EXPECT_EQ(one("<cluster_name>:924:924 [5] NCCL INFO cudaDriverVersion 12010").dev, 5);
  EXPECT_EQ(one("32662 [0] NCCL INFO Using network IB").message, "Using network IB");
  NcclRecord w = one("[3] misc/socket.cc:47 NCCL WARN socketProgress: Connection closed");
  EXPECT_EQ(w.level, NcclLevel::kWarn);
  EXPECT_EQ(w.dev, 3);
  NcclRecord bare = one("NCCL INFO Channel 00/02 : 0 1");
  EXPECT_EQ(bare.dev, -1);
  EXPECT_EQ(bare.message, "Channel 00/02 : 0 1");
}

TEST(NcclLogRecordShapes, OtherProgramsInfoLinesAreNotRecords) {
  NcclRecord r[2];
  for (std::string_view line :
       {"2019-02-11 09:47:49,051 46393 INFO     Wrapping distributed manually",
        "INFO 01-29 05:10:25 utils.py:918] Found nccl from library libnccl.so.2",
        "[2024-04-30 21:03:22,195] [INFO] [real_accelerator.py:158:get_accelerator] x",
        "worker [0] INFO started", "[0] WARN low disk", "NCCL version 2.18.1+cuda12.1",
        "include/socket.h:403 NCCL WARN Connect to 10.148.3.247<56821> failed"}) {
    EXPECT_EQ(split_nccl_records(line, r, 2), 0u) << line;
  }
}

}  // namespace
}  // namespace trainready
