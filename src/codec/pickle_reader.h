#pragma once
// A small, bounded reader for the pickles PyTorch's Flight Recorder writes (torch::jit::Pickler,
// protocol 2, through pickle_str() in torch/csrc/distributed/c10d) and for the same structure
// written by Python's own pickle module (protocols 2-5, framing, MEMOIZE). Data only: dict, list,
// tuple, str, int, float, bool, None and the memo. Nothing is ever called: GLOBAL/STACK_GLOBAL
// are accepted for exactly the four torch.jit._pickle names the writer can emit around a value
// (restore_type_tag, build_intlist, build_doublelist, build_boollist), and REDUCE of those only
// returns the value it wraps. Every other opcode is refused with its byte offset.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace trainready {

// Tuples become arrays; dict keys must be str or int (ints become their decimal text). Throws
// InputError naming `source` (line 0, the byte offset in the message) on anything else, on
// truncation, on nesting deeper than 64, or when the memo would expand past a few million
// values (a pickle that references one big list many times).
nlohmann::json read_pickle(std::string_view data, const std::string& source);

// True when the bytes start like a protocol 2-5 pickle (PROTO opcode).
bool looks_like_pickle(std::string_view data);

}  // namespace trainready
