#pragma once
// Reader for nccl-tests / rccl-tests output: any historic table layout (columns found by their
// header words), launcher prefixes (srun -l "0: ", mpirun --tag-output "[1,0]<stdout>:"),
// rows split by interleaved NCCL lines, and the JSON file of nccl-tests >= 2.17 (-J out.json).
#include <string>
#include <string_view>

#include "facts/nccl_tests_facts.h"

namespace trainready {

// Throws InputError (file, line, what was expected) when no result table is found.
NcclTestsFacts parse_nccl_tests(std::string_view text, const std::string& source);
NcclTestsFacts parse_nccl_tests_file(const std::string& path);  // "-" reads stdin
bool looks_like_nccl_tests(std::string_view text);
// One "Rank  0 Group  0 Pid 64904 on mew0 device  0 [0000:17:00] NVIDIA A100" line (the text
// after "#  "); rank is -1 when the line is not one.
NcclTestsDevice parse_nccl_tests_device(std::string_view body, const Provenance& at);

}  // namespace trainready
