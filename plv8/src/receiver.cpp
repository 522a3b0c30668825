// `this` of a function call: one object per call site (FmgrInfo) and context, as in
// PLV8, so a function can keep state across the rows of one statement.
#include <map>

#include "plv8.h"

namespace plv8 {

namespace {

// The call site's fn_extra holds its id; its objects go when the call site's memory does.
struct CallSite {
	uint64 id;
	MemoryContextCallback forget;
};

uint64 next_call_site = 1;
// Never destroyed: a destructor at exit would touch isolates that are gone.
std::map<std::pair<uint64, JsContext *>, v8::Global<v8::Object>> &receivers =
    *new std::map<std::pair<uint64, JsContext *>, v8::Global<v8::Object>>();

void ForgetCallSite(void *arg) {
	uint64 id = static_cast<CallSite *>(arg)->id;
	auto it = receivers.lower_bound(std::make_pair(id, static_cast<JsContext *>(nullptr)));
	while (it != receivers.end() && it->first.first == id) it = receivers.erase(it);  // resets the handle
}

// May raise errors (allocation): call guarded.
uint64 CallSiteId(FmgrInfo *flinfo) {
	CallSite *site = static_cast<CallSite *>(flinfo->fn_extra);
	if (site != nullptr) return site->id;
	site = static_cast<CallSite *>(MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(CallSite)));
	site->id = next_call_site++;
	site->forget.func = ForgetCallSite;
	site->forget.arg = site;
	MemoryContextRegisterResetCallback(flinfo->fn_mcxt, &site->forget);
	flinfo->fn_extra = site;
	return site->id;
}

}  // namespace

bool Receiver(Env *env, FmgrInfo *flinfo, v8::Local<v8::Object> *out) {
	uint64 site = 0;
	if (!PgTry(env, [&] { site = CallSiteId(flinfo); })) return false;
	v8::Global<v8::Object> &g = receivers[std::make_pair(site, env->cx)];
	if (g.IsEmpty()) {
		*out = v8::Object::New(env->isolate);
		g.Reset(env->isolate, *out);
	} else {
		*out = g.Get(env->isolate);
	}
	return true;
}

void ForgetReceivers(JsContext *cx) {
	for (auto it = receivers.begin(); it != receivers.end();) {
		if (it->first.second == cx) it = receivers.erase(it);
		else ++it;
	}
}

}  // namespace plv8
