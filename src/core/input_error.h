#pragma once
// Bad input from the user: a file that is not what it should be. Carries file, line and what
// was expected; the CLI turns it into a message and exit code 2.
#include <stdexcept>
#include <string>

namespace trainready {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, const std::string& what_expected)
      : std::runtime_error(format(file, line, what_expected)),
        file_(std::move(file)),
        line_(line) {}
  const std::string& file() const { return file_; }
  int line() const { return line_; }

 private:
  static std::string format(const std::string& f, int line, const std::string& w) {
    std::string s = f;
    if (line > 0) s += ":" + std::to_string(line);
    return s + ": " + w;
  }
  std::string file_;
  int line_;
};

}  // namespace trainready
