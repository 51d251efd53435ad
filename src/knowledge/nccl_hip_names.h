#pragma once
// The HIP names RCCL prints where NCCL prints CUDA's (data/nccl-kb/hip-names.txt, written by
// tools/nccl_hip_names.py from RCCL's message sites). RCCL compiles hipify-perl'd copies of its
// sources, string literals included, so NCCL's "cudaIpcGetMemHandle failed : %s" is printed as
// "hipIpcGetMemHandle failed : invalid argument"; the knowledge base's entries are written for
// NCCL's text and read RCCL's line in NCCL's spelling.
#include <string>
#include <string_view>

namespace trainready {

// `text` with every HIP name of the table spelled as NCCL's source spells it; empty when `text`
// holds none (the text is read as it is).
std::string nccl_cuda_spelling(std::string_view text);

}  // namespace trainready
