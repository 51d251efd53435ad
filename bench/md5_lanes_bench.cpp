// stage's MD5 of several Blob files at once (src/stage/md5_lanes.h, issue 35) against OpenSSL's
// MD5 (libcrypto EVP, its x86-64 assembly: what stage used before), on the same bytes, one core.
// A Blob's Content-MD5 is one stream per file, so OpenSSL hashes the files one after the other;
// stage feeds the files' chunks side by side through the lanes of one AVX2 register, 16 MiB at a
// time as its hash thread does. Alternates reference and ours (A B A B) and prints each pair's
// ratio and the median; checks the digests agree. Usage: md5_lanes_bench [files] [MiB] [rounds]
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "stage/hashing.h"
#include "stage/md5_lanes.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kChunk = 16u << 20;  // stage's default chunk

std::string hex(const unsigned char* md, unsigned n) {
  std::string out;
  char b[3];
  for (unsigned i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    out += b;
  }
  return out;
}

std::vector<std::string> openssl_md5s(const std::vector<std::vector<std::byte>>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_md5(), nullptr);
    for (std::size_t off = 0; off < f.size(); off += kChunk)
      EVP_DigestUpdate(ctx, f.data() + off, std::min(kChunk, f.size() - off));
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    EVP_MD_CTX_free(ctx);
    out.push_back(hex(md, n));
  }
  return out;
}

std::vector<std::string> lane_md5s(const std::vector<std::vector<std::byte>>& files) {
  std::vector<trainready::stage::Md5> md5(files.size());
  std::vector<trainready::stage::Md5*> ptrs;
  for (auto& m : md5) ptrs.push_back(&m);
  const std::size_t size = files[0].size();
  std::vector<std::span<const std::byte>> chunk(files.size());
  for (std::size_t off = 0; off < size; off += kChunk) {
    for (std::size_t i = 0; i < files.size(); ++i)
      chunk[i] = std::span<const std::byte>(files[i].data() + off, std::min(kChunk, size - off));
    trainready::stage::Md5::update_together(ptrs.data(), chunk.data(), ptrs.size());
  }
  std::vector<std::string> out;
  for (auto& m : md5) out.push_back(m.hex());
  return out;
}

template <class F>
double seconds(F&& f, std::vector<std::string>& digests) {
  const auto t0 = Clock::now();
  digests = f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t nfiles = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4;
  const std::size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 256;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  if (nfiles == 0 || mib == 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: md5_lanes_bench [files >= 1] [MiB >= 1] [rounds >= 1]\n");
    return 2;
  }
  std::mt19937_64 rng(1);
  std::vector<std::vector<std::byte>> files(nfiles, std::vector<std::byte>(mib << 20));
  for (auto& f : files)
    for (std::size_t i = 0; i + 8 <= f.size(); i += 8) {
      const std::uint64_t v = rng();
      for (int b = 0; b < 8; ++b) f[i + b] = static_cast<std::byte>(v >> (8 * b));
    }
  const double gb = static_cast<double>(nfiles * (mib << 20)) / 1e9;
  std::printf("MD5 of %zu files x %zu MiB (%.2f GB), 16 MiB chunks, one core; AVX2 lanes: %s\n",
              nfiles, mib, gb, trainready::stage::md5::lanes_use_avx2() ? "yes" : "no");
  std::vector<double> ratios;
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::string> ref, ours;
    const double a = seconds([&] { return openssl_md5s(files); }, ref);
    const double b = seconds([&] { return lane_md5s(files); }, ours);
    if (ref != ours) {
      std::fprintf(stderr, "md5_lanes_bench: digests differ from OpenSSL's\n");
      return 1;
    }
    ratios.push_back(a / b);
    std::printf(
        "  round %d: OpenSSL one file at a time %.3f s (%.2f GB/s), stage's lanes %.3f s "
        "(%.2f GB/s): ratio %.2f\n",
        r + 1, a, gb / a, b, gb / b, a / b);
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf("median ratio (OpenSSL time / stage's, >= 1: stage's faster): %.2f\n",
              ratios[ratios.size() / 2]);
  return 0;
}
