// SideFiles: names that sort after their chunk in `jfr assemble`'s order and HotSpot's emergency
// dump's, whole files only, merges that keep the bytes in write order and the file count
// logarithmic, and removal.
#include "chunk_writer/side_files.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"

using stackreq::SideFiles;

namespace {

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> listing(const std::string& dir) {
    std::vector<std::string> names;
    DIR* d = opendir(dir.c_str());
    while (dirent* entry = readdir(d)) {
        if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
            names.push_back(entry->d_name);
        }
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

// HotSpot's emergency dump order (jfrEmergencyDump.cpp file_sort): the first 19 characters, then
// the shorter name up to its first dot, then the names.
bool emergency_before(const std::string& a, const std::string& b) {
    int cmp = a.compare(0, 19, b, 0, 19);
    if (cmp != 0) return cmp < 0;
    size_t la = a.find('.'), lb = b.find('.');
    if (la != lb) return la < lb;
    return a.compare(0, la, b, 0, lb) < 0;
}

void test_names_sort_after_their_chunk() {
    const std::string chunk = "2026_01_02_03_04_05";
    std::string side = SideFiles::name_for("/r/" + chunk + ".jfr", 7);
    CHECK(side == "/r/" + chunk + "_stackreq_000007.jfr");
    side = side.substr(3);
    for (const std::string& jvm : {chunk + ".jfr", chunk + "_1.jfr", chunk + "_12.jfr", chunk + "_03.jfr"}) {
        CHECK(jvm < side);                      // jfr assemble: by name
        CHECK(emergency_before(jvm, side));     // hs_err_pid*.jfr
        CHECK(!emergency_before(side, jvm));
    }
    const std::string next_second = "2026_01_02_03_04_06.jfr";
    CHECK(side < next_second);
    CHECK(emergency_before(side, next_second));
    CHECK(SideFiles::name_for("/r/" + chunk + ".jfr", 9) < SideFiles::name_for("/r/" + chunk + ".jfr", 10));
    // JDK 11 writes the chunk into "<stem>.part" and renames it "<stem>.jfr" when it finishes it.
    CHECK(SideFiles::name_for("/r/" + chunk + ".part", 7) == "/r/" + chunk + "_stackreq_000007.jfr");
}

void test_writes_merge_in_order() {
    char dir_template[] = "/tmp/side_files_testXXXXXX";
    std::string dir = mkdtemp(dir_template);
    const std::string chunk = dir + "/2026_01_02_03_04_05.jfr";
    SideFiles files;
    std::string all;
    std::string error;
    for (int i = 1; i <= 37; i++) {
        std::string bytes = "<" + std::to_string(i) + ">";
        all += bytes;
        CHECK(files.write(chunk, bytes, &error));
        CHECK(files.bytes() == all.size());
        // A binary counter: one file per set bit of the number of writes.
        CHECK(files.count() == static_cast<size_t>(__builtin_popcount(i)));
        std::string joined;
        for (const std::string& path : files.paths()) joined += read(path);
        CHECK(joined == all);
        CHECK(listing(dir).size() == files.count());  // no temporary file left
    }
    std::vector<std::string> paths = files.paths();
    CHECK(std::is_sorted(paths.begin(), paths.end()));
    files.remove_all();
    CHECK(files.count() == 0 && files.bytes() == 0);
    CHECK(listing(dir).empty());
    rmdir(dir.c_str());
}

void test_unwritable_directory() {
    SideFiles files;
    std::string error;
    CHECK(!files.write("/nonexistent-dir/2026_01_02_03_04_05.jfr", "x", &error));
    CHECK(error.find("/nonexistent-dir/") != std::string::npos);
    CHECK(files.count() == 0);
}

}  // namespace

int main() {
    return run_tests("side_files_test",
                     {test_names_sort_after_their_chunk, test_writes_merge_in_order, test_unwritable_directory});
}
