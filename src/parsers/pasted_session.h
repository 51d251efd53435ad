#pragma once
// A terminal session as people paste it into an issue: prompts and command lines
// (`admin@gpu-07:~$ sudo ibstat`, `[root@node ~]# ofed_info -s`, `$ dmesg | grep -i xid`,
// `PS C:\> ...`, `>>> ...`) with each command's output below. Pure functions: the text is cut
// into sections at command lines; what each section is (ibstat, lspci, ...) is the caller's
// business (cli/captures.cpp), by its command or its content.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct PastedSection {
  int command_line = 0;  // the line holding the command (1-based); 0 when the section has none
  std::string command;   // as typed, prompt removed: "sudo ibstat mlx5_0"; empty when none
  int first_line = 0;    // first line of the output (1-based)
  int last_line = 0;     // last line of the output; < first_line when the command printed nothing
};

// Cuts `text` at command lines. Lines before the first command form a section without one.
// Sections in order; every line of the text belongs to exactly one section (a command line to
// the section it opens).
std::vector<PastedSection> split_pasted_session(std::string_view text);

// The command a line holds when it is a prompt line or a bare command line, else nullopt:
// "admin@gpu-07:~$ sudo ibstat" -> "sudo ibstat"; "[root@node ~]# ofed_info -s" ->
// "ofed_info -s"; "$ dmesg | grep Xid" -> "dmesg | grep Xid"; "# lspci -vvv" -> "lspci -vvv"
// (a bare "# " is a root prompt only before a program this file knows, so "# Port info: ..."
// stays output); "+ ibstat" (a `set -x` trace) likewise; "ibv_devinfo:" (a label naming a
// program) -> "ibv_devinfo". A prompt without a command yields "".
std::optional<std::string> command_of_line(std::string_view line);

// The program a command runs and its arguments, wrappers (sudo, env VAR=..., time, timeout N,
// `kubectl exec ... --`, `docker exec CONTAINER`, ssh HOST) removed, for each stage of its
// pipeline: "sudo dmesg -T | grep -i xid" -> {{"dmesg","-T"},{"grep","-i","xid"}}.
std::vector<std::vector<std::string>> command_stages(std::string_view command);

}  // namespace trainready
