// Writes an emitted deployment into the output directory: one file per format, through the
// atomic writer (temp + fsync + rename), never over an existing file unless asked.
#include <filesystem>
#include <system_error>

#include "core/atomic_file.h"
#include "emit/deployment_model.h"

namespace trainready {

std::optional<std::string> emit_file_name(const std::string& format) {
  if (format == "arm") return "azuredeploy.json";
  if (format == "bicep") return "main.bicep";
  if (format == "terraform") return "main.tf";
  return std::nullopt;
}

std::string emit_deployment(const DeploymentModel& m, const std::string& format,
                            const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  const std::optional<std::string> name = emit_file_name(format);
  if (!name) throw EmitRefused("--emit " + format + ": expected arm, bicep or terraform");
  // Render first: nothing is written when a writer fails.
  const std::string text = format == "arm"     ? write_arm_template(m)
                           : format == "bicep" ? write_bicep(m)
                                               : write_terraform(m);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw EmitRefused(dir + ": exists and is not a directory; -o names the directory to write " +
                      *name + " into");
  fs::create_directories(dir, ec);
  if (ec) throw EmitRefused(dir + ": cannot create the directory: " + ec.message());
  const std::string path = (fs::path(dir) / *name).string();
  if (!force && fs::exists(fs::symlink_status(path, ec)))
    throw EmitRefused(path + ": already exists; pass --force to replace it");
  write_file_atomically(path, text);
  return path;
}

}  // namespace trainready
