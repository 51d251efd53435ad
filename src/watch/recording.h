#pragma once
// --record FILE: one JSON line per sample, appended with one write(2) each, so a killed run keeps
// every sample it wrote and a partial line can only come from a full disk. --replay reads it back.
#include <functional>
#include <string>

#include "watch/sample.h"

namespace trainready::watch {

class RecordWriter {
 public:
  // Opens FILE for appending; a new or empty file gets the header line first. A non-empty file
  // that is not a watch recording is refused (InputError), never appended to.
  RecordWriter(const std::string& path, const std::string& host);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;
  // Throws std::runtime_error naming the file when the line cannot be written whole.
  void append(const Sample& s);

 private:
  void write_line(const std::string& line);
  std::string path_;
  int fd_ = -1;
};

struct RecordingHeader {
  std::string host;
};

// Streams a recording: the header, then each sample with its line number. Bad lines throw
// InputError(file, line, what was expected).
void read_recording(const std::string& path,
                    const std::function<void(const RecordingHeader&)>& on_header,
                    const std::function<void(const Sample&, int line)>& on_sample);

}  // namespace trainready::watch
