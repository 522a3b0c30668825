// Runtime stage, a backend's private memory. Input: the libraries loaded in the process, and the
// end of each outermost call; output: none (pages shared or given back).
//
// V8's young generation is two semi-spaces of 1 MB (V8's minimum): objects are allocated in one,
// and a young collection copies the survivors into the other and swaps them. The one left behind
// holds only garbage but stays resident, so a backend carries 2 MB there, and V8 gives it back
// only in a collection that reduces memory. A resolver request allocates tens of kB, so a young
// collection runs about once per hundred requests; one memory-reducing collection (a full one,
// a few ms for this heap) after an outermost call during which a young collection ran, at most
// once per plv8.heap_reduce_interval calls (0: never), keeps that space given back most of the time for a
// few percent of the calls' time. It also compacts the old generation, where the first call's
// reflection leaves its garbage. Such a collection also lets the maps of objects no longer alive
// go, and with them the optimized code that was built for those objects: under load that code is
// compiled again in the calls that follow (tens of milliseconds of compiling on the backend's
// thread). So it runs at most once per second (kMinReductionSpacing), with one exception: the
// first one runs right after the backend's second outermost call. The first call, which waits
// for its answer while V8 loads and compiles everything, does not also wait for the collection
// (about 10 ms of it with the trim that follows, for 0.7 MB of its garbage), and right after it
// hardly any code is optimized yet, so that collection costs no compiling again, where one a
// second later, in a busy backend, did. And while calls keep coming without a quiet second
// between them, the spacing doubles after each collection, up to kMaxReductionSpacing: a busy
// backend takes the memory back at once, so each collection there only costs it the collection
// and the compiling again, and that cost grows with the number of busy backends sharing the
// cores (measured with 8 clients on 2 cores: a fifth of an upsert's CPU time). A quiet second
// brings the spacing back to one second.
//
// When the postmaster loads the handler (shared_preload_libraries), it also maps the pages of
// V8's library that only get read (code, constants) into its own address space, and those of the
// ICU libraries V8 calls (about 0.9 MB of their code and constants in a resolver's backend). A
// backend that runs V8 reads megabytes of libnode's code, and more as V8's optimizing compiler
// starts on hot functions. Pages that only one process maps count as that process's private
// memory, although they are the one copy in the page cache that every backend reads; once the
// postmaster maps them too, each backend's share of them counts as shared. V8 itself does not
// start here.
#include "plv8.h"

#include <link.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace plv8 {
namespace {

// libicudata (ICU's data, tens of MB) is left out: a backend reads little of it.
constexpr const char *kSharedLibraries[] = {"libnode.so", "libicuuc.so", "libicui18n.so"};

bool SharedLibrary(const char *path) {
	if (path == nullptr) return false;
	for (const char *name : kSharedLibraries)
		if (strstr(path, name) != nullptr) return true;
	return false;
}

int MapReadOnlySegments(struct dl_phdr_info *info, size_t, void *) {
	if (!SharedLibrary(info->dlpi_name)) return 0;
	const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) &ph = info->dlpi_phdr[i];
		if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) != 0) continue;
		uintptr_t start = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
		uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
		if (madvise(reinterpret_cast<void *>(start), end - start, MADV_POPULATE_READ) == 0) continue;
		// Kernels before 5.14: one read per page does the same.
		for (uintptr_t p = start; p < end; p += page) (void)*reinterpret_cast<volatile const char *>(p);
	}
	return 0;
}

void NoteYoungCollection(v8::Isolate *, v8::GCType, v8::GCCallbackFlags, void *data) {
	static_cast<Env *>(data)->scavenged = true;
}

constexpr auto kMinReductionSpacing = std::chrono::seconds(1);
constexpr auto kMaxReductionSpacing = std::chrono::seconds(64);
// A gap between two outermost calls at least this long makes the backend quiet.
constexpr auto kQuietGap = std::chrono::seconds(1);

}  // namespace

void WatchYoungGeneration(Env *env) {
	env->scavenged = false;
	env->outermost_calls = 0;
	env->calls_since_reduction = INT_MAX;
	env->last_reduction = std::chrono::steady_clock::now();
	env->last_call_end = env->last_reduction;
	env->reduction_spacing = kMinReductionSpacing;
	env->quiet_since_reduction = false;
	env->reductions = 0;
	env->isolate->AddGCEpilogueCallback(NoteYoungCollection, env, v8::kGCTypeScavenge);
}

void NoteOutermostCall(Env *env) {
	if (std::chrono::steady_clock::now() - env->last_call_end < kQuietGap) return;
	env->quiet_since_reduction = true;
	env->reduction_spacing = kMinReductionSpacing;
}

// After an outermost call that succeeded; true when V8 gave memory back.
bool ReduceHeap(Env *env) {
	const auto now = std::chrono::steady_clock::now();
	env->last_call_end = now;
	// The first call's garbage goes after the second call.
	const bool second = env->outermost_calls < 2 && ++env->outermost_calls == 2;
	if (heap_reduce_interval <= 0) return false;
	if (env->calls_since_reduction < heap_reduce_interval) env->calls_since_reduction++;
	if (!env->scavenged) return false;
	if (!second && (env->calls_since_reduction < heap_reduce_interval || now - env->last_reduction < env->reduction_spacing)) return false;
	env->reduction_spacing = env->quiet_since_reduction ? kMinReductionSpacing : std::min<std::chrono::steady_clock::duration>(2 * env->reduction_spacing, kMaxReductionSpacing);
	env->quiet_since_reduction = false;
	env->last_reduction = now;
	env->calls_since_reduction = 0;
	env->scavenged = false;
	env->reductions++;
	v8::Isolate::Scope scope(env->isolate);
	v8::HandleScope handles(env->isolate);
	// Critical pressure: one full collection with V8's memory-reducing flags, run right here on
	// the isolate's thread.
	env->isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kCritical);
	return true;
}

void MapLibraryPages() { dl_iterate_phdr(MapReadOnlySegments, nullptr); }

// Memory a call freed (a large query result, a compilation's zones, a statement's executor
// state) stays in malloc's arena, counted as the backend's private memory, until given back.
// Checked after the first outermost call and every 64th: the check walks the arena. After V8 gave
// memory back (`now`), all of it goes: the collection itself freed malloc'd memory, and it
// costs far more than the trim.
void GiveBackFreeMemory(bool now) {
	static unsigned calls = 0;
	if (calls++ % 64 != 0 && !now) return;
	constexpr size_t kKeep = size_t(1) << 20;
	if (now || mallinfo2().fordblks > kKeep) malloc_trim(now ? 0 : kKeep);
}

}  // namespace plv8
