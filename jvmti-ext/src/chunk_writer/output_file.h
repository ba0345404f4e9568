// Opening the files the agent writes (file=, log=, latency=): never through a symbolic link at
// the path, never left world-writable (created rw-r--r-- whatever the umask).
#pragma once

namespace stackreq {

// flags: O_APPEND or O_TRUNC (plus O_CREAT implied). Returns the fd or -1 with errno set.
int open_output_file(const char* path, int flags);

}  // namespace stackreq
