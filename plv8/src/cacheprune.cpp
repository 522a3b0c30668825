// Code cache housekeeping: a database's cache directory -> its files within
// plv8.code_cache_max_age (since last use) and plv8.code_cache_max_size (least recently used
// removed first), each database on its own budget; plus the directories of dropped databases
// and files of the earlier layout (one directory for the whole cluster) removed. Runs after a
// backend has written a file, so no directory can grow without a prune; never raises.
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

extern "C" {
#include "access/xact.h"
#include "utils/syscache.h"
}

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

bool IsTempName(const char *name) { return strlen(name) > 64 && strncmp(name + 64, ".tmp", 4) == 0; }

// A database's directory is named by its oid.
bool IsOidName(const char *name) {
	if (*name == '\0' || strlen(name) > 10) return false;
	for (const char *c = name; *c; c++)
		if (*c < '0' || *c > '9') return false;
	return true;
}

void Remove(const std::string &path) {
	if (unlink(path.c_str()) != 0 && errno != ENOENT)
		elog(DEBUG1, "plv8 code cache: could not remove file \"%s\": %m", path.c_str());
}

// Whether database `db` exists; true when that cannot be known (outside a transaction, or on
// any error), so that only a dropped database's directory is ever removed.
bool DatabaseExists(Oid db) {
	if (!IsTransactionState()) return true;
	bool exists = true;
	MemoryContext oldcxt = CurrentMemoryContext;
	PG_TRY();
	{
		exists = SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(db));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
		exists = true;
	}
	PG_END_TRY();
	return exists;
}

// Removes the cache files and temporary files in `dir`, then `dir` itself if that left it empty.
void RemoveDatabaseDir(const std::string &dir) {
	DIR *d = opendir(dir.c_str());
	if (d == nullptr) return;
	while (struct dirent *de = readdir(d))
		if (IsCacheName(de->d_name) || IsTempName(de->d_name)) Remove(dir + "/" + de->d_name);
	closedir(d);
	if (rmdir(dir.c_str()) != 0 && errno != ENOENT && errno != ENOTEMPTY)
		elog(DEBUG1, "plv8 code cache: could not remove directory \"%s\": %m", dir.c_str());
}

// The root holds only databases' directories: those of databases since dropped go, and so do
// files of the earlier layout.
void TidyRoot(const char *root, Oid db) {
	DIR *d = opendir(root);
	if (d == nullptr) return;
	std::vector<std::string> dropped;
	while (struct dirent *de = readdir(d)) {
		const char *name = de->d_name;
		std::string path = std::string(root) + "/" + name;
		if (IsCacheName(name) || IsTempName(name)) {
			Remove(path);
		} else if (IsOidName(name)) {
			Oid oid = static_cast<Oid>(strtoul(name, nullptr, 10));
			if (oid != db && !DatabaseExists(oid)) dropped.push_back(path);
		}
	}
	closedir(d);
	for (const std::string &dir : dropped) RemoveDatabaseDir(dir);
}

// Keeps `dir`, one database's directory, within the age and size bounds.
void PruneDatabaseDir(const std::string &dir) {
	DIR *d = opendir(dir.c_str());
	if (d == nullptr) return;
	time_t now = time(nullptr);
	std::vector<Entry> files;
	while (struct dirent *de = readdir(d)) {
		const char *name = de->d_name;
		bool temp = IsTempName(name);
		if (!temp && !IsCacheName(name)) continue;  // not ours
		std::string path = dir + "/" + name;
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

}  // namespace

void CodeCachePrune(const char *root, Oid db) {
	PruneDatabaseDir(std::string(root) + "/" + std::to_string(db));
	TidyRoot(root, db);
}

// A file's modification time is its last use, so that the age and size bounds keep the files
// in use: set once per backend and file when the file is read.
void CodeCacheTouch(const char *path) {
	if (utimensat(AT_FDCWD, path, nullptr, 0) != 0)
		elog(DEBUG1, "plv8 code cache: could not touch file \"%s\": %m", path);
}

}  // namespace plv8
