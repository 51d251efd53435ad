#pragma once

namespace trainready {

// The whole CLI: returns the process exit code (0 ok, 1 findings, 2 usage or input error).
int run_cli(int argc, char** argv);

}  // namespace trainready
