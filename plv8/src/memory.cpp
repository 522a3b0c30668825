// Runtime stage, a backend's private memory. Input: the libraries loaded in the process, and the
// end of each outermost call; output: none (pages shared or given back).
//
// When the postmaster loads the handler (shared_preload_libraries), it also maps the pages of
// V8's library that only get read (code, constants) into its own address space. A backend that
// runs V8 reads megabytes of libnode's code, and more as V8's optimizing compiler starts on hot
// functions. Pages that only one process maps count as that process's private memory, although
// they are the one copy in the page cache that every backend reads; once the postmaster maps them
// too, each backend's share of them counts as shared. V8 itself does not start here.
#include "plv8.h"

#include <link.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace plv8 {
namespace {

int MapReadOnlySegments(struct dl_phdr_info *info, size_t, void *) {
	if (info->dlpi_name == nullptr || strstr(info->dlpi_name, "libnode.so") == nullptr) return 0;
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

}  // namespace

void MapLibraryPages() { dl_iterate_phdr(MapReadOnlySegments, nullptr); }

// Memory a call freed (a large query result, a compilation's zones, a statement's executor
// state) stays in malloc's arena, counted as the backend's private memory, until given back.
// Checked after the first outermost call and then every 64th: the check walks the arena.
void GiveBackFreeMemory() {
	static unsigned calls = 0;
	if (calls++ % 64 != 0) return;
	constexpr size_t kKeep = size_t(1) << 20;
	if (mallinfo2().fordblks > kKeep) malloc_trim(kKeep);
}

}  // namespace plv8
