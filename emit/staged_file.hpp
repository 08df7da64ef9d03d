// An output file written under a temporary name next to its final path and renamed into place
// by commit(); destroyed uncommitted, it removes the temporary. Nothing half-written survives.
#pragma once

#include <string>

namespace mo {

class StagedFile {
public:
    // Creates "<dir>/.<name>.<pid>.tmp"; throws mo::Error naming the path when it cannot.
    explicit StagedFile(std::string final_path);
    ~StagedFile();
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    int fd() const { return fd_; }
    const std::string& final_path() const { return final_path_; }
    const std::string& temp_path() const { return temp_path_; }
    // Closes the file (reporting write-back errors) and renames it to the final path.
    void commit();
    // Removes the final file again (undoes commit() when a later step fails).
    void remove_committed();

private:
    std::string final_path_, temp_path_;
    int fd_ = -1;
    bool committed_ = false;
};

}  // namespace mo
