// Files that stackreq writes chunks into: its own file= recording, JFR's chunk files and
// recording destinations. Never through a symbolic link at the path (output_file.h).
#pragma once

#include <string>

#include "chunk_writer/jfr_chunk.h"

namespace stackreq {

// Serializes content and writes it to path; flags O_APPEND, or O_CREAT | O_TRUNC. Returns false
// and sets *error (one line naming the path) when it cannot.
bool write_chunk_file(const char* path, int flags, const ChunkContent& content, std::string* error);

// The time scale of the file's first chunk header; false when the file does not start with one.
// A chunk appended to a JVM recording is written on that scale: the JDK 25 reader times every
// chunk of a file by the first chunk's header (see ChunkContent::append_to).
bool read_first_chunk_scale(const char* path, TickScale* scale);

}  // namespace stackreq
