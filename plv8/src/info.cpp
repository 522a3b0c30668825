// Runtime stage, figures for plv8_info() and plv8.memory_usage(). Input: the environments of
// this backend; output: their heap statistics as JSON text.
#include <map>

#include "plv8.h"

namespace plv8 {
namespace {

// Per heap space (new, old, code, map, large objects...): what each holds, for telling a
// backend's private memory apart by its cause.
std::string SpacesJson(v8::Isolate *isolate) {
	std::string out = "{";
	for (size_t i = 0; i < isolate->NumberOfHeapSpaces(); i++) {
		v8::HeapSpaceStatistics s;
		if (!isolate->GetHeapSpaceStatistics(&s, i)) continue;
		if (out.size() > 1) out += ",";
		out += JsonString(s.space_name()) + ":{\"size\":" + std::to_string(s.space_size()) +
		       ",\"used\":" + std::to_string(s.space_used_size()) +
		       ",\"physical\":" + std::to_string(s.physical_space_size()) + "}";
	}
	return out + "}";
}

}  // namespace

std::string HeapStatsJson(v8::Isolate *isolate, bool with_user, Oid user, const std::string &contexts) {
	v8::HeapStatistics hs;
	isolate->GetHeapStatistics(&hs);
	std::string out = "{";
	if (with_user) {
		char *name = GetUserNameFromId(user, true);
		out += "\"user\":" + JsonString(name ? name : "") + ",";
	}
	out += "\"total_heap_size\":" + std::to_string(hs.total_heap_size());
	out += ",\"total_physical_size\":" + std::to_string(hs.total_physical_size());
	out += ",\"used_heap_size\":" + std::to_string(hs.used_heap_size());
	out += ",\"heap_size_limit\":" + std::to_string(hs.heap_size_limit());
	out += ",\"external_memory\":" + std::to_string(hs.external_memory());
	// Memory V8 takes with malloc outside its heap (compiler zones, tables): part of a backend's
	// private memory that neither the heap figures nor PostgreSQL's memory contexts show. Only in
	// plv8_info(): plv8.memory_usage() keeps PLV8's keys.
	if (with_user) {
		out += ",\"malloced_memory\":" + std::to_string(hs.malloced_memory());
		out += ",\"peak_malloced_memory\":" + std::to_string(hs.peak_malloced_memory());
		out += ",\"spaces\":" + SpacesJson(isolate);
	}
	out += ",\"number_of_native_contexts\":" + std::to_string(hs.number_of_native_contexts());
	if (with_user) out += ",\"contexts\":" + contexts;
	out += "}";
	return out;
}

std::string EnvInfoJson() {
	std::string out = "[";
	for (auto &kv : AllEnvs()) {
		if (out.size() > 1) out += ",";
		std::string heap = HeapStatsJson(kv.second->isolate, true, kv.first, ContextNamesJson(kv.second));
		const CodeCacheStats &cc = kv.second->code_cache;
		heap.pop_back();  // the closing brace: the code cache figures go inside
		out += heap + ",\"code_cache\":{\"hits\":" + std::to_string(cc.hits) + ",\"misses\":" + std::to_string(cc.misses) +
		       ",\"writes\":" + std::to_string(cc.writes) + ",\"rejected\":" + std::to_string(cc.rejected) + "}";
		// The memory-reducing collections (memory.cpp): how many ran, and the least time before the next.
		const auto spacing = std::chrono::duration_cast<std::chrono::milliseconds>(kv.second->reduction_spacing);
		out += ",\"heap_reductions\":{\"count\":" + std::to_string(kv.second->reductions) +
		       ",\"spacing_ms\":" + std::to_string(spacing.count()) + "}}";
	}
	out += "]";
	return out;
}

}  // namespace plv8
