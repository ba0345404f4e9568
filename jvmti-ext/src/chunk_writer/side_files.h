// Side files: what stackreq keeps in JFR's repository for a JVM that dies before JFR finishes the
// chunk it is writing (SIGKILL, a crash, Runtime.halt). About twice a second the emitter writes
// the events accepted since the last write as chunks of their own into a new file beside the
// chunk JFR is writing; when JFR finishes that chunk, the emitter appends the window's events to
// it as before and deletes every side file (docs/continuous.md).
//
// Names and layout, chosen for JFR's own readers of the repository (checked on JDK 17 and 25):
// - "<chunk stem>_stackreq_<sequence>.jfr": `jfr assemble` concatenates *.jfr in name order and
//   HotSpot's emergency dump (hs_err_pid*.jfr) copies them, ordered by the first 19 characters
//   (the chunk's second) and then by the length of the name: both put a side file after the
//   chunk it belongs to and after every JVM chunk of the same second, never before. JFR's own
//   names are the stem, "<stem>_N" (17) and "<stem>_NN" (25): never one of these.
// - Each file starts with an empty chunk stamped at the JVM's tick 0 (before every chunk of the
//   repository), then the chunks with the events. Streams (RepositoryFiles) take every *.jfr file
//   with a chunk header and order them by the first header's start time: they read the chunk
//   before the time they start at (floorKey), the newest (lastKey) or the first after the end of
//   the one they finished. None of these is ever a side file's start but the oldest, and a
//   stream starting before the JVM's first chunk reads the empty chunk only and moves on to that
//   first chunk: streams see no side file event, as they see no appended chunk.
// - A file appears whole: written under a name JFR ignores (".stackreq-side.tmp") and renamed.
//   So that a chunk lasting an hour does not leave thousands of files, two files of the same
//   level are merged into one of the next level (a binary counter): at most about log2(writes)
//   files, each byte copied about log2(writes) times. A merge renames the merged file over the
//   older one, then deletes the newer: a death between those two calls leaves the newer's events
//   twice in the repository; at any other moment every event is there once.
//
// Not thread-safe: the emitter calls it under its write mutex.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stackreq {

class SideFiles {
public:
    // Writes bytes (whole chunks) as a new side file of the JVM chunk file chunk_path, then merges.
    // Returns false and sets *error (one line) when it cannot; what was written before stays.
    bool write(const std::string& chunk_path, const std::string& bytes, std::string* error);
    // Deletes every side file written so far.
    void remove_all();
    // Leaves them where they are, no longer tracked (deleted by nothing).
    void forget_all() {
        files_.clear();
        bytes_ = 0;
    }

    size_t count() const { return files_.size(); }
    // Bytes in the side files written so far.
    uint64_t bytes() const { return bytes_; }
    // The paths, oldest first.
    std::vector<std::string> paths() const;

    // "<chunk stem>_stackreq_<sequence, 6 digits or more>.jfr" beside chunk_path: a ".jfr" name, or
    // on JDK 11 the ".part" file JFR renames to the chunk's ".jfr" when it finishes it.
    static std::string name_for(const std::string& chunk_path, uint64_t sequence);

private:
    struct File {
        std::string path;
        int level;
    };
    bool merge_last_two(std::string* error);

    std::vector<File> files_;
    uint64_t sequence_ = 0;
    uint64_t bytes_ = 0;
};

}  // namespace stackreq
