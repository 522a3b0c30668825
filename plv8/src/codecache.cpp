// Code cache stage: function source text -> compiled script, through V8 code caches kept in
// files under the data directory, so a new backend skips parsing and lazy compilation.
//
// Each database has a directory of its own (named by its oid) and its own size budget: no
// database finds, evicts or times another's entries, which could tell a tenant whether
// another database runs a given source.
//
// A cache is written "warm": not at compile time (it would hold only the top level) but when
// the outermost handler call that compiled the script has returned successfully, so it also
// holds the inner functions that call compiled lazily. That file is marked cold; a backend
// using a cold file rewrites it once, marked warm, after kWarmCalls more calls, by which time
// the functions a workload runs are compiled. Nothing here may raise an error: any failure
// only means compiling without a cache.
#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>
#include <vector>

#include "plv8.h"

extern "C" {
#include "common/cryptohash.h"
#include "common/sha2.h"
#include "port/pg_crc32c.h"
}

namespace plv8 {

bool code_cache_enabled = true;
std::string applied_v8_flags;

namespace {

// Relative to the backend's working directory, which is the data directory; one directory per
// database below it.
const char *const kCacheDir = "pg_plv8_code_cache";
// Small bodies compile faster than a file can be read; DO blocks never come here.
const size_t kMinSource = 1024;
const size_t kMaxFile = 32 * 1024 * 1024;
// A bound on scripts waiting for their call to end (a call can compile many functions).
const size_t kMaxPending = 64;
// Successful outermost calls after which a cold file is rewritten from the warmer script.
const int kWarmCalls = 16;

const char kMagic[8] = {'P', 'L', 'V', '8', 'C', 'C', '0', '2'};
const uint32 kWarm = 1;
struct FileHeader {
	char magic[8];
	uint8 key[PG_SHA256_DIGEST_LENGTH];
	uint32 payload_len;
	uint32 payload_crc;  // V8 release builds do not checksum the data they are given
	uint32 flags;        // kWarm once rewritten after kWarmCalls calls
};

struct Key {
	uint8 digest[PG_SHA256_DIGEST_LENGTH];
	std::string hex;
};

struct Pending {
	Env *env;
	Key key;
	v8::Global<v8::UnboundScript> script;
	int calls;  // for a refresh: successful outermost calls since it was noted
};

std::vector<Pending *> &pending = *new std::vector<Pending *>();
// Scripts whose file is cold, waiting to be warm enough for a rewrite.
std::vector<Pending *> &refresh = *new std::vector<Pending *>();
// Keys this backend has already written (or tried to): once per entry per backend.
std::unordered_set<std::string> &done = *new std::unordered_set<std::string>();
// Keys whose file this backend has marked as used, or refreshed.
std::unordered_set<std::string> &touched = *new std::unordered_set<std::string>();
std::unordered_set<std::string> &refreshed = *new std::unordered_set<std::string>();

// sha256 of everything that decides what V8 compiles: V8's version, its flags, the script's
// name and the exact source text; and the database, so that a file is never taken for another
// database's. V8 itself compares only the source length and the flags.
bool MakeKey(const std::string &source, const char *name, Key *key) {
	// The hash context is registered with the resource owner (when built with OpenSSL).
	if (CurrentResourceOwner == nullptr) return false;
	bool ok = false;
	MemoryContext oldcxt = CurrentMemoryContext;
	pg_cryptohash_ctx *volatile ctx = nullptr;
	PG_TRY();
	{
		ctx = pg_cryptohash_create(PG_SHA256);
		std::string head = std::string("plv8 code cache 2") + '\0' + std::to_string(MyDatabaseId) + '\0' +
		                   v8::V8::GetVersion() + '\0' + applied_v8_flags + '\0' + name + '\0';
		if (ctx != nullptr && pg_cryptohash_init(ctx) == 0 &&
		    pg_cryptohash_update(ctx, reinterpret_cast<const uint8 *>(head.data()), head.size()) == 0 &&
		    pg_cryptohash_update(ctx, reinterpret_cast<const uint8 *>(source.data()), source.size()) == 0 &&
		    pg_cryptohash_final(ctx, key->digest, sizeof(key->digest)) == 0)
			ok = true;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
		ok = false;
	}
	PG_END_TRY();
	if (ctx != nullptr) pg_cryptohash_free(ctx);
	if (!ok) return false;
	static const char hexdigits[] = "0123456789abcdef";
	key->hex.clear();
	for (uint8 b : key->digest) {
		key->hex += hexdigits[b >> 4];
		key->hex += hexdigits[b & 15];
	}
	return true;
}

std::string DatabaseDir() { return std::string(kCacheDir) + "/" + std::to_string(MyDatabaseId); }

std::string CachePath(const Key &key) { return DatabaseDir() + "/" + key.hex; }

uint32 Crc(const uint8 *data, size_t len) {
	pg_crc32c crc;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return crc;
}

enum class ReadResult { Missing, Bad, Ok };

// The payload of a cache file, checked against its header; a short, oversized, foreign or
// damaged file is Bad and gets replaced.
ReadResult ReadCacheFile(const Key &key, std::vector<uint8_t> *payload, uint32 *flags) {
	std::string path = CachePath(key);
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) return errno == ENOENT ? ReadResult::Missing : ReadResult::Bad;
	struct stat st;
	FileHeader h;
	bool ok = fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(h)) &&
	          st.st_size <= static_cast<off_t>(kMaxFile) && read(fd, &h, sizeof(h)) == static_cast<ssize_t>(sizeof(h)) &&
	          memcmp(h.magic, kMagic, sizeof(kMagic)) == 0 && memcmp(h.key, key.digest, sizeof(h.key)) == 0 &&
	          h.payload_len > 0 && static_cast<off_t>(h.payload_len) == st.st_size - static_cast<off_t>(sizeof(h));
	if (ok) {
		payload->resize(h.payload_len);
		size_t got = 0;
		while (got < payload->size()) {
			ssize_t n = read(fd, payload->data() + got, payload->size() - got);
			if (n < 0 && errno == EINTR) continue;
			if (n <= 0) break;
			got += static_cast<size_t>(n);
		}
		ok = got == payload->size() && Crc(payload->data(), payload->size()) == h.payload_crc;
		*flags = h.flags;
	}
	close(fd);
	return ok ? ReadResult::Ok : ReadResult::Bad;
}

bool WriteAll(int fd, const void *data, size_t len) {
	const char *p = static_cast<const char *>(data);
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) return false;
		p += n;
		len -= static_cast<size_t>(n);
	}
	return true;
}

// Writes under a name of this backend, then renames: a reader sees the old file, the new one
// or none, never a part. Returns false (with a DEBUG1 message) on any failure.
bool WriteCacheFile(const Key &key, const uint8_t *data, size_t len, uint32 flags) {
	std::string dir = DatabaseDir();
	for (const char *d : {kCacheDir, dir.c_str()}) {
		if (mkdir(d, S_IRWXU) != 0 && errno != EEXIST) {
			elog(DEBUG1, "plv8 code cache: could not create directory \"%s\": %m", d);
			return false;
		}
	}
	FileHeader h;
	memcpy(h.magic, kMagic, sizeof(kMagic));
	memcpy(h.key, key.digest, sizeof(h.key));
	h.payload_len = static_cast<uint32>(len);
	h.payload_crc = Crc(data, len);
	h.flags = flags;
	std::string path = CachePath(key);
	std::string tmp = path + ".tmp" + std::to_string(static_cast<long>(getpid()));
	int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
	if (fd < 0) {
		elog(DEBUG1, "plv8 code cache: could not create file \"%s\": %m", tmp.c_str());
		return false;
	}
	bool ok = WriteAll(fd, &h, sizeof(h)) && WriteAll(fd, data, len);
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && rename(tmp.c_str(), path.c_str()) != 0) {
		ok = false;
		saved = errno;
	}
	if (!ok) {
		unlink(tmp.c_str());
		errno = saved;
		elog(DEBUG1, "plv8 code cache: could not write file \"%s\": %m", path.c_str());
	}
	return ok;
}

Pending *NewPending(Env *env, const Key &key, v8::Local<v8::UnboundScript> script) {
	Pending *p = new Pending();
	p->env = env;
	p->key = key;
	p->script.Reset(env->isolate, script);
	p->calls = 0;
	return p;
}

void AddPending(Env *env, const Key &key, v8::Local<v8::UnboundScript> script) {
	if (pending.size() >= kMaxPending || done.count(key.hex) > 0) return;
	pending.push_back(NewPending(env, key, script));
}

void AddRefresh(Env *env, const Key &key, v8::Local<v8::UnboundScript> script) {
	if (refresh.size() >= kMaxPending || !refreshed.insert(key.hex).second) return;
	refresh.push_back(NewPending(env, key, script));
}

void DeletePending(Pending *p) {
	p->script.Reset();
	delete p;
}

// Serializes a script's current code (with every function compiled so far) into its file.
bool WriteScript(Pending *p, uint32 flags) {
	Env *env = p->env;
	std::unique_ptr<v8::ScriptCompiler::CachedData> data;
	{
		v8::Isolate *isolate = env->isolate;
		v8::Isolate::Scope iscope(isolate);
		v8::HandleScope hscope(isolate);
		v8::Context::Scope cscope(env->cx->context.Get(isolate));
		data.reset(v8::ScriptCompiler::CreateCodeCache(p->script.Get(isolate)));
	}
	if (data == nullptr || data->length <= 0 || static_cast<size_t>(data->length) > kMaxFile - sizeof(FileHeader) ||
	    !WriteCacheFile(p->key, data->data, static_cast<size_t>(data->length), flags))
		return false;
	env->code_cache.writes++;
	return true;
}

// Whether another backend has already rewritten the file warm (a missing or damaged file is not).
bool IsWarm(const Key &key) {
	std::vector<uint8_t> payload;
	uint32 flags = 0;
	return ReadCacheFile(key, &payload, &flags) == ReadResult::Ok && (flags & kWarm) != 0;
}

// Rewrites, marked warm, the cold files of scripts that have run kWarmCalls calls since, unless
// another backend has done it meanwhile. Returns whether a file was written.
bool RefreshWarm() {
	bool wrote = false;
	for (auto it = refresh.begin(); it != refresh.end();) {
		Pending *p = *it;
		if (++p->calls < kWarmCalls) {
			++it;
			continue;
		}
		if (code_cache_enabled && !IsWarm(p->key)) wrote = WriteScript(p, kWarm) || wrote;
		DeletePending(p);
		it = refresh.erase(it);
	}
	return wrote;
}

}  // namespace

v8::MaybeLocal<v8::Script> CompileCached(Env *env, v8::Local<v8::String> text, const v8::ScriptOrigin &origin,
                                         const std::string &source, const char *name) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	Key key;
	if (!code_cache_enabled || source.size() < kMinSource || !MakeKey(source, name, &key)) {
		v8::ScriptCompiler::Source src(text, origin);
		return v8::ScriptCompiler::Compile(cx, &src);
	}
	std::vector<uint8_t> payload;
	uint32 flags = 0;
	ReadResult found = ReadCacheFile(key, &payload, &flags);
	v8::Local<v8::Script> script;
	bool usable;
	if (found == ReadResult::Ok) {
		// The buffer stays ours and outlives `src`.
		auto *data = new v8::ScriptCompiler::CachedData(payload.data(), static_cast<int>(payload.size()),
		                                                 v8::ScriptCompiler::CachedData::BufferNotOwned);
		v8::ScriptCompiler::Source src(text, origin, data);
		if (!v8::ScriptCompiler::Compile(cx, &src, v8::ScriptCompiler::kConsumeCodeCache).ToLocal(&script)) return {};
		usable = !src.GetCachedData()->rejected;
	} else {
		v8::ScriptCompiler::Source src(text, origin);
		if (!v8::ScriptCompiler::Compile(cx, &src).ToLocal(&script)) return {};
		usable = false;
	}
	CodeCacheStats &stats = env->code_cache;
	if (usable) {
		stats.hits++;
		if (touched.insert(key.hex).second) CodeCacheTouch(CachePath(key).c_str());
		if ((flags & kWarm) == 0) AddRefresh(env, key, script->GetUnboundScript());
	} else {
		if (found == ReadResult::Missing) stats.misses++;
		else stats.rejected++;
		AddPending(env, key, script->GetUnboundScript());
	}
	return script;
}

void CodeCacheFlush() {
	if (pending.empty() && refresh.empty()) return;
	bool wrote = RefreshWarm();
	std::vector<Pending *> items;
	items.swap(pending);
	for (Pending *p : items) {
		if (code_cache_enabled && done.insert(p->key.hex).second && WriteScript(p, 0)) {
			wrote = true;
			v8::Isolate::Scope iscope(p->env->isolate);
			v8::HandleScope hscope(p->env->isolate);
			AddRefresh(p->env, p->key, p->script.Get(p->env->isolate));
		}
		DeletePending(p);
	}
	if (wrote) CodeCachePrune(kCacheDir, MyDatabaseId);
}

void CodeCacheForget(Env *env) {
	for (std::vector<Pending *> *list : {&pending, &refresh}) {
		for (auto it = list->begin(); it != list->end();) {
			if ((*it)->env == env) {
				DeletePending(*it);
				it = list->erase(it);
			} else {
				++it;
			}
		}
	}
}

}  // namespace plv8
