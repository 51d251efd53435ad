// nccl-tests output in every layout in tests/data/fixtures, each with the facts written out.
#include "parsers/nccl_tests.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/input_error.h"
#include "support/paths.h"

namespace trainready {
namespace {

using test::fixture;
using test::read_fixture;

NcclTestsFacts parse(const std::string& rel) { return parse_nccl_tests_file(fixture(rel)); }

TEST(NcclTests, SuperbenchOldLayoutWithErrorColumn) {
  NcclTestsFacts t = parse("nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt");
  EXPECT_EQ(t.collective, "all_reduce");  // from the file name: no "Collective test starting"
  EXPECT_EQ(t.n_gpus, 8);
  EXPECT_EQ(t.ranks(), 8);
  EXPECT_EQ(t.nodes(), 1);
  EXPECT_EQ(t.devices[0].name, "A100-SXM4-40GB");
  const NcclTestsRow* big = t.largest();
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->size_bytes, 8589934592u);
  EXPECT_NEAR(*big->busbw(), 235.26, 0.01);
  EXPECT_NEAR(*t.avg_busbw, 68.4048, 1e-6);
  EXPECT_EQ(*t.out_of_bounds, 0);
  EXPECT_FALSE(t.truncated);
}

// Rows pasted without the table's header (NVIDIA/nccl#340's excerpt, nccl-tests before 2.13 with
// an "error" column; a current all_reduce row with redop and root): the row's shape says the
// columns. A line that is not exactly that shape starts no table.
TEST(NcclTests, RowsWithoutTheirHeader) {
  NcclTestsFacts old = parse_nccl_tests(
      "       65536          8192   float    16.57    1.98    1.98  0e+00    13.83    2.37    2.37 "
      " "
      "0e+00\n"
      "   134217728      16777216   float   3298.6   20.34   20.34  0e+00   3070.3   21.86   21.86 "
      " "
      "0e+00\n"
      "# Out of bounds values : 0 OK\n",
      "old.txt");
  ASSERT_EQ(old.rows.size(), 2u);
  EXPECT_TRUE(old.rows[0].error_is_max_error);
  EXPECT_NEAR(*old.largest()->busbw(), 21.86, 1e-9);
  EXPECT_TRUE(old.rows[0].redop.empty());
  NcclTestsFacts cur = parse_nccl_tests(
      "   134217728      33554432     float     sum      -1   1066.6  125.84  235.95      0   "
      "1063.3  126.23  236.68      0\n",
      "cur.txt");
  ASSERT_EQ(cur.rows.size(), 1u);
  EXPECT_EQ(cur.rows[0].redop, "sum");
  EXPECT_FALSE(cur.rows[0].error_is_max_error);
  EXPECT_NEAR(*cur.rows[0].busbw(), 236.68, 1e-9);
  // A count of wrong values past a million prints with a decimal point: still #wrong.
  NcclTestsFacts many = parse_nccl_tests(
      "   134217728      33554432     float     sum      -1   1066.6  125.84  235.95  "
      "1.04858e+06   1063.3  126.23  236.68  1.04858e+06\n",
      "many.txt");
  ASSERT_EQ(many.rows.size(), 1u);
  EXPECT_FALSE(many.rows[0].error_is_max_error);
  EXPECT_THROW(parse_nccl_tests("   1024   256   banana  1 2 3 4 5 6 7 8\n", "x.txt"), InputError);
  EXPECT_THROW(parse_nccl_tests("   1024   256   float  1 2 3\n", "x.txt"), InputError);
  // `trainready nccl` takes such an excerpt for nccl-tests output (openucx/ucx#10055's table).
  EXPECT_TRUE(looks_like_nccl_tests(
      "   101711880      25427970     float     sum      -1    16680    6.10    9.15      0    "
      "16676    6.10    9.15      0\n"));
  EXPECT_FALSE(looks_like_nccl_tests("   1024   256   banana  1 2 3 4 5 6 7 8\n"));
}

TEST(NcclTests, AlltoallBlankRedopColumn) {
  NcclTestsFacts t = parse("nccl-tests/superbench-1node-8xa100-40g-alltoall_perf.txt");
  EXPECT_EQ(t.collective, "alltoall");
  const NcclTestsRow* big = t.largest();
  ASSERT_NE(big, nullptr);
  EXPECT_NEAR(*big->oop_time_us, 33508, 0.5);
  EXPECT_NEAR(*big->oop_busbw, 224.31, 0.01);
  EXPECT_NEAR(*big->ip_busbw, 226.16, 0.01);
  EXPECT_FALSE(big->oop_wrong.has_value());  // N/A
}

TEST(NcclTests, AllGather) {
  NcclTestsFacts t = parse("nccl-tests/superbench-1node-8xa100-40g-all_gather_perf.txt");
  EXPECT_EQ(t.collective, "all_gather");
  EXPECT_NEAR(*t.largest()->busbw(), 230.07, 0.01);
}

TEST(NcclTests, SrunLabelPrefixes) {
  NcclTestsFacts t =
      parse("nccl-tests/aws-2x-p5-efa-srun-label-prefix-all_reduce_perf-excerpt.txt");
  EXPECT_EQ(t.rows.size(), 32u);
  EXPECT_EQ(t.largest()->size_bytes, 17179869184u);
  EXPECT_NEAR(*t.largest()->busbw(), 487.26, 0.01);
  EXPECT_TRUE(t.truncated);  // no summary lines in the excerpt
  EXPECT_EQ(t.ranks(), 0);
}

TEST(NcclTests, P4deExcerpt) {
  NcclTestsFacts t =
      parse("nccl-tests/aws-2x-p4de-efa-srun-label-prefix-all_reduce_perf-excerpt.txt");
  EXPECT_EQ(t.rows.size(), 29u);
  EXPECT_NEAR(*t.largest()->busbw(), 78.33, 0.01);
}

TEST(NcclTests, MpirunTagOutputWithNoise) {
  NcclTestsFacts t =
      parse("nccl-tests/nccl-ebpf-2rank-socket-forced-tag-output-all_reduce_perf.txt");
  EXPECT_EQ(t.collective, "all_reduce");
  EXPECT_EQ(t.tests_version, "2.18.0");
  EXPECT_EQ(t.nccl_version, "2.29.7");
  EXPECT_EQ(t.rows.size(), 8u);
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(t.devices[1].bus_id, "0000:02:00");
  EXPECT_EQ(t.devices[1].host, "lab");
  EXPECT_NEAR(*t.largest()->busbw(), 2.31, 0.001);
  EXPECT_NEAR(*t.avg_busbw, 1.57614, 1e-6);
}

TEST(NcclTests, AzureMlExcerptWithInterleavedNcclLine) {
  NcclTestsFacts t = parse("nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt");
  EXPECT_EQ(t.rows.size(), 9u);
  EXPECT_NEAR(*t.largest()->busbw(), 189.33, 0.01);
  EXPECT_NEAR(*t.largest()->oop_wrong, 5e-07, 1e-9);
  EXPECT_TRUE(t.largest()->error_is_max_error);
}

TEST(NcclTests, CoreweaveElidedRows) {
  NcclTestsFacts t = parse("nccl-tests/coreweave-8node-64xh100-sharp-all_reduce_perf-excerpt.txt");
  EXPECT_EQ(t.rows.size(), 5u);
  EXPECT_NEAR(*t.largest()->busbw(), 386.56, 0.01);
  EXPECT_NEAR(*t.avg_busbw, 373.187, 1e-6);
}

TEST(NcclTests, Deepops) {
  NcclTestsFacts s = parse("nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt");
  EXPECT_EQ(s.rows.size(), 13u);
  EXPECT_NEAR(*s.largest()->busbw(), 191.56, 0.01);
  NcclTestsFacts k = parse("nccl-tests/deepops-k8s-2x-dgx-a100-8xhdr-all_reduce_perf.txt");
  EXPECT_NEAR(*k.largest()->busbw(), 188.7, 0.01);
  EXPECT_NEAR(*k.avg_busbw, 53.7098, 1e-6);
}

TEST(NcclTests, RcclVariant) {
  NcclTestsFacts t =
      parse("nccl-tests/rocm-sad-1node-8xmi350x-rccl-tests-all_reduce_perf-excerpt.txt");
  EXPECT_EQ(t.tests_version, "rccl-tests: Version Unknown");
  EXPECT_EQ(t.ranks(), 8);  // nThread 1 x nGpus 8, though only 2 device lines survive
  EXPECT_EQ(t.rows.size(), 2u);
  EXPECT_NEAR(*t.largest()->busbw(), 367.51, 0.01);
}

TEST(NcclTests, RowsSplitByInterleavedNcclLines) {
  NcclTestsFacts t =
      parse("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log");
  EXPECT_EQ(t.collective, "all_reduce");
  EXPECT_EQ(t.nccl_version, "2.27.7");
  ASSERT_EQ(t.rows.size(), 11u);
  const NcclTestsRow& first = t.rows.front();
  EXPECT_EQ(first.size_bytes, 8388608u);
  EXPECT_NEAR(*first.oop_time_us, 83.33, 0.001);
  EXPECT_NEAR(*first.oop_busbw, 100.66, 0.001);
  EXPECT_EQ(*first.oop_wrong, 0);
  EXPECT_NEAR(*first.ip_busbw, 103.59, 0.001);
  for (const auto& r : t.rows) EXPECT_EQ(r.oop_wrong.value_or(-1), 0) << r.size_bytes;
  EXPECT_NEAR(*t.avg_busbw, 178.078, 1e-6);
}

TEST(NcclTests, GatherDropOff) {
  NcclTestsFacts t =
      parse("nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log");
  EXPECT_EQ(t.collective, "gather");
  EXPECT_EQ(t.nodes(), 2);
  EXPECT_EQ(t.ranks(), 2);
  EXPECT_EQ(t.rows.size(), 50u);
  EXPECT_NEAR(*t.largest()->busbw(), 11.02, 0.001);
  EXPECT_NEAR(*t.peak_busbw(), 23.61, 0.001);
}

TEST(NcclTests, JsonOutput) {
  const std::string json = R"({"version": 3, "args": ["./build/all_gather_perf", "-b", "8"],
    "nccl_version": 22805,
    "config": {"nthreads": 1, "ngpus": 1, "devices": [
      {"rank": 0, "group": 0, "pid": 10, "hostname": "a", "device": 0, "device_hex": "0000:18:00", "device_info": "NVIDIA H100 80GB HBM3"},
      {"rank": 1, "group": 0, "pid": 11, "hostname": "b", "device": 0, "device_hex": "0000:18:00", "device_info": "NVIDIA H100 80GB HBM3"}]},
    "results": [
      {"size": 1048576, "count": 131072, "type": "float", "redop": "none", "root": "    -1",
       "out_of_place": {"time": 50.1, "alg_bw": 20.9, "bus_bw": 10.5, "nwrong": 0},
       "in_place": {"time": 49.0, "alg_bw": 21.4, "bus_bw": 10.7, "nwrong": 0}},
      {"size": 1073741824, "count": 134217728, "type": "float", "redop": "none", "root": "    -1",
       "out_of_place": null,
       "in_place": {"cpu_time": 6000.0, "alg_bw": 178.9, "bus_bw": 89.5, "nwrong": null}}],
    "out_of_bounds": {"count": 0, "okay": true},
    "average_bus_bandwidth": {"bandwidth": 50.1, "okay": "unchecked"}})";
  NcclTestsFacts t = parse_nccl_tests(json, "out.json");
  EXPECT_TRUE(t.from_json);
  EXPECT_EQ(t.collective, "all_gather");
  EXPECT_EQ(t.nccl_version, "2.28.5");
  EXPECT_EQ(t.nodes(), 2);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_NEAR(*t.largest()->busbw(), 89.5, 1e-9);
  EXPECT_FALSE(t.rows[1].oop_busbw.has_value());
  EXPECT_NEAR(*t.rows[1].ip_time_us, 6000.0, 1e-9);
  EXPECT_NEAR(*t.avg_busbw, 50.1, 1e-9);
}

TEST(NcclTests, MalformedJsonNamesLineAndColumn) {
  try {
    parse_nccl_tests("{\n \"results\": [1,\n}", "bad.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.line(), 3);
  }
  EXPECT_THROW(parse_nccl_tests("{\"no\": 1}", "x.json"), InputError);
}

TEST(NcclTests, NoTableIsAnInputError) {
  EXPECT_THROW(parse_nccl_tests("hello\nworld\n", "x.txt"), InputError);
  EXPECT_THROW(parse_nccl_tests("", "x.txt"), InputError);
  EXPECT_THROW(
      parse_nccl_tests(read_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"), "x"),
      InputError);
}

// The summary pasted without its table (nccl-tests src/util.cu:777 @ v2.19.6 prints
// "# %-20s : %d %s", "Out of bounds values", errors, "FAILED" / "OK"): its verdict is read, with
// no rows; a summary line with no count is not one.
TEST(NcclTests, OutOfBoundsSummaryAloneIsRead) {
  NcclTestsFacts t = parse_nccl_tests("# Out of bounds values : 248 FAILED\n", "s.txt");
  ASSERT_TRUE(t.out_of_bounds);
  EXPECT_EQ(*t.out_of_bounds, 248);
  EXPECT_EQ(t.out_of_bounds_where.line, 1);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_FALSE(t.truncated);
  EXPECT_THROW(parse_nccl_tests("# Out of bounds values\n", "s.txt"), InputError);
  EXPECT_THROW(parse_nccl_tests("# Out of bounds values : \n", "s.txt"), InputError);
}

TEST(NcclTests, PerIterationAndTimestampColumns) {
  // nccl-tests 2.19 with -P (per-iteration columns) and timestamps.
  const std::string text =
      "# Collective test starting: all_reduce_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong    "
      "i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    "
      "i_p99    i_cv% timestamp\n"
      "  1073741824     268435456     float     sum      -1   4800.1  223.69  391.46       0   "
      "4790.0   4810.0   4809.0     0.10   4801.2  223.64  391.37       0   4790.0   4812.0   "
      "4811.0     0.11 2025-10-28 10:00:00\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 391.4 \n";
  NcclTestsFacts t = parse_nccl_tests(text, "p.txt");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_NEAR(*t.rows[0].oop_busbw, 391.46, 1e-9);
  EXPECT_NEAR(*t.rows[0].ip_busbw, 391.37, 1e-9);
  EXPECT_EQ(*t.rows[0].ip_wrong, 0);
}

TEST(NcclTests, TruncatedTablesNeverThrowOnceTheHeaderIsIn) {
  const std::string text =
      read_fixture("nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt");
  const std::size_t header = text.find("busbw");
  for (std::size_t cut = header + 80; cut < text.size(); cut += 37) {
    NcclTestsFacts t = parse_nccl_tests(text.substr(0, cut), "cut.txt");
    EXPECT_LE(t.rows.size(), 13u);
  }
}

TEST(NcclTests, BusbwFactors) {
  EXPECT_DOUBLE_EQ(*busbw_factor("all_reduce_perf", 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(*busbw_factor("all_gather", 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busbw_factor("reduce_scatter", 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(*busbw_factor("alltoall", 2), 0.5);
  EXPECT_DOUBLE_EQ(*busbw_factor("broadcast", 16), 1.0);
  EXPECT_DOUBLE_EQ(*busbw_factor("reduce", 16), 1.0);
  EXPECT_DOUBLE_EQ(*busbw_factor("sendrecv", 2), 1.0);
  EXPECT_FALSE(busbw_factor("mystery", 2).has_value());
}

TEST(NcclTests, Detection) {
  EXPECT_TRUE(looks_like_nccl_tests(
      read_fixture("nccl-tests/deepops-k8s-2x-dgx-a100-8xhdr-all_reduce_perf.txt")));
  EXPECT_FALSE(looks_like_nccl_tests(
      read_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log")));
}

}  // namespace
}  // namespace trainready
