// An output file written under a temporary name next to its final path and renamed into place
// by commit(); destroyed uncommitted, it removes the temporary. Nothing half-written survives.
#pragma once

#include <string>

#include "core/tool_api.hpp"

namespace mo {

class StagedFile {
public:
    // Creates "<dir>/.<name>.<pid>.tmp"; throws mo::Error naming the path when it cannot.
    explicit StagedFile(std::string final_path);
    ~StagedFile();
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    int fd() const { return fd_; }  // open for reading too (BinWriter compares with what it wrote)
    const std::string& final_path() const { return final_path_; }
    const std::string& temp_path() const { return temp_path_; }
    // Closes the file (reporting write-back errors) and renames it to the final path.
    void commit();
    // Removes the final file again (undoes commit() when a later step fails).
    void remove_committed();

private:
    std::string final_path_, temp_path_;
    int fd_ = -1;
    int slot_ = -1;  // its entry for remove_staged_files_on_signals()
    bool committed_ = false;
};

// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that remove the temporaries being
// written, then let the signal end the process as it would have: interrupting mo leaves
// neither a half-written file nor a temporary (an existing IR of the same name stays as it was).
MO_TOOL_API void remove_staged_files_on_signals();
// The same for those of the four whose action is still the default: what mo installs when it is
// a library inside another program (the Python module), leaving that program's handlers alone.
MO_TOOL_API void remove_staged_files_on_default_signals();

}  // namespace mo
