// Code cache housekeeping: the cache directory -> the files within plv8.code_cache_max_age
// (since last use) and plv8.code_cache_max_size (least recently used removed first). Runs after
// a backend has written a file, so the directory cannot grow without a prune; never raises.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "plv8.h"

namespace plv8 {

int code_cache_max_size_kb = 256 * 1024;
int code_cache_max_age_s = 30 * 24 * 3600;

namespace {

// A temporary file this old was left by a backend that died while writing it.
const time_t kStaleTemp = 3600;

struct Entry {
	std::string path;
	off_t size;
	time_t mtime;
};

bool IsCacheName(const char *name) {
	if (strlen(name) != 64) return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'))) return false;
	return true;
}

void Remove(const std::string &path) {
	if (unlink(path.c_str()) != 0 && errno != ENOENT)
		elog(DEBUG1, "plv8 code cache: could not remove file \"%s\": %m", path.c_str());
}

}  // namespace

void CodeCachePrune(const char *dir) {
	DIR *d = opendir(dir);
	if (d == nullptr) return;
	time_t now = time(nullptr);
	std::vector<Entry> files;
	while (struct dirent *de = readdir(d)) {
		const char *name = de->d_name;
		bool temp = strlen(name) > 64 && strncmp(name + 64, ".tmp", 4) == 0;
		if (!temp && !IsCacheName(name)) continue;  // not ours
		std::string path = std::string(dir) + "/" + name;
		struct stat st;
		if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
		if (temp) {
			if (now - st.st_mtime > kStaleTemp) Remove(path);
		} else if (now - st.st_mtime > code_cache_max_age_s) {
			Remove(path);
		} else {
			files.push_back({path, st.st_size, st.st_mtime});
		}
	}
	closedir(d);
	off_t total = 0;
	for (const Entry &e : files) total += e.size;
	off_t max = static_cast<off_t>(code_cache_max_size_kb) * 1024;
	if (total <= max) return;
	std::sort(files.begin(), files.end(), [](const Entry &a, const Entry &b) { return a.mtime < b.mtime; });
	for (const Entry &e : files) {
		if (total <= max) break;
		Remove(e.path);
		total -= e.size;
	}
}

// A file's modification time is its last use, so that the age and size bounds keep the files
// in use: set once per backend and file when the file is read.
void CodeCacheTouch(const char *path) {
	if (utimensat(AT_FDCWD, path, nullptr, 0) != 0)
		elog(DEBUG1, "plv8 code cache: could not touch file \"%s\": %m", path);
}

}  // namespace plv8
