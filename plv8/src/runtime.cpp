// Runtime stage: starts V8 lazily in a backend, keeps one isolate per user id (its contexts:
// contexts.cpp), enforces plv8.memory_limit, and raises the error of JavaScript that was stopped
// (on an interrupt or past plv8.execution_timeout: watchdog.cpp).
#include <algorithm>
#include <atomic>
#include <csignal>
#include <map>
#include <memory>
#include <pthread.h>

#include <libplatform/libplatform.h>

#include "plv8.h"

// Exported by libnode's V8 but declared only in its internal headers.
namespace v8::base {
void SetPrintStackTrace(void (*print_stack_trace)());
}

extern "C" {
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "catalog/pg_authid.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
}

namespace plv8 {

int memory_limit_mb = 256;
int execution_timeout_s = 300;
int heap_reduce_interval = 128;
std::atomic<bool> terminate_requested{false};
char *v8_flags = nullptr;

namespace {

v8::Platform *platform = nullptr;
std::map<Oid, Env *> &envs = *new std::map<Oid, Env *>();

// Creates threads with every signal blocked, so PostgreSQL's signal handlers always run
// on the backend's own thread.
template <typename F>
void WithSignalsBlocked(F f) {
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	f();
	pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// V8's own fatal checks (for example a FixedArray past its maximum length, which V8 10.2 treats
// as fatal where later versions throw a RangeError) print their message and then trap, and a
// trapped backend makes the postmaster restart every backend. V8 calls this hook after printing
// and before trapping: a FATAL ends this connection only. It must not return.
void FatalFromV8() {
	ereport(FATAL, (errcode(ERRCODE_INTERNAL_ERROR),
	                errmsg("JavaScript engine stopped on a fatal error"),
	                errdetail("V8 printed the reason to the server log.")));
}

void InitV8() {
	if (platform != nullptr) return;
	// Garbage collection and compilation on the backend's own thread: helper threads would each
	// grow a malloc arena of their own (the optimizing compiler's zones, a megabyte or more at a
	// time, kept by the arena once freed), so a backend's memory would keep growing with when and
	// where V8 happened to compile or collect.
	// And since the optimizing compiler then runs in the calls themselves, a function is optimized
	// once it is four times as hot as V8 would wait for (its interrupt budget, 132 KB of bytecode
	// run, made 528 KB): a short call compiled there costs more than it saves unless the backend
	// lives long, and a backend that does still optimizes what stays hot. Measured on 2 cores, 8
	// clients sending a resolver's upserts in runs of 2 s, new backends each run: 0.82 ms of the
	// backends' CPU per request before, 0.56 after; the same in backends kept for 15 s.
	applied_v8_flags = "--single-threaded --interrupt-budget=540672";
	v8::V8::SetFlagsFromString(applied_v8_flags.c_str());
	if (v8_flags != nullptr && v8_flags[0] != '\0') {
		v8::V8::SetFlagsFromString(v8_flags);
		applied_v8_flags += std::string(" ") + v8_flags;
	}
	WithSignalsBlocked([] {
		std::unique_ptr<v8::Platform> p = v8::platform::NewDefaultPlatform(2);
		platform = p.release();  // lives as long as the backend
		v8::V8::InitializePlatform(platform);
		v8::V8::Initialize();
		v8::base::SetPrintStackTrace(FatalFromV8);
		StartWatchdog();
	});
}

// ---------------------------------------------------------------------------
// Memory limit

// V8 calls its OOM handler, which must never return, when an allocation fails even after this
// callback: the handler could only end the backend. So the callback terminates the script and,
// once per isolate, raises the limit far enough for V8 to finish the allocation in progress
// (a hash table or array doubling needs up to twice its size at once) and unwind to the
// handler's entry, where the statement ends with an ERROR and the isolate is disposed.
size_t NearHeapLimit(void *data, size_t current, size_t initial) {
	Env *env = static_cast<Env *>(data);
	env->memory_exceeded = true;
	env->isolate->TerminateExecution();
	if (env->headroom_granted) return current;
	env->headroom_granted = true;
	constexpr size_t kMinHeadroom = size_t(256) << 20, kMaxHeadroom = size_t(1) << 30;
	return current + std::min(std::max(2 * initial, kMinHeadroom), kMaxHeadroom);
}

}  // namespace

// Counts ArrayBuffer memory and refuses it past the limit as PLV8's allocator does: when V8's
// heap in use plus the buffers held plus the request exceed plv8.memory_limit, so buffers and
// heap together stay within it. The heap's size is read again after every 1 MB of buffers
// allocated, and before any refusal (a collection may have shrunk it since).
struct CountingAllocator : public v8::ArrayBuffer::Allocator {
	Env *env = nullptr;
	size_t limit = 0;
	std::atomic<size_t> used{0};
	size_t heap_used = 0;        // V8's heap in use when last read
	size_t since_read = kReread;  // bytes allocated since then (the first request reads it)

	static constexpr size_t kReread = size_t(1) << 20;
	// V8 keeps typed arrays this small inside its heap and moves their contents out to a buffer
	// when `.buffer` is read, where a refused allocation is fatal (JSTypedArray::GetBuffer); such
	// requests are counted but never refused: the objects holding them count against the heap.
	static constexpr size_t kAlwaysGranted = 64;

	// A refusal makes V8 throw a catchable RangeError ("Array buffer allocation failed"), as
	// in PLV8: one buffer too large for what is left ends nothing else.
	bool Reserve(size_t n) {
		since_read += n;
		if (n > kAlwaysGranted && (since_read >= kReread || heap_used + used.load() + n > limit)) {
			v8::HeapStatistics hs;
			env->isolate->GetHeapStatistics(&hs);
			heap_used = hs.used_heap_size();
			since_read = 0;
			if (heap_used + used.load() + n > limit) return false;
		}
		used += n;
		return true;
	}
	void *Allocate(size_t n) override {
		if (!Reserve(n)) return nullptr;
		void *p = calloc(n ? n : 1, 1);
		if (p == nullptr) used -= n;
		return p;
	}
	void *AllocateUninitialized(size_t n) override {
		if (!Reserve(n)) return nullptr;
		void *p = malloc(n ? n : 1);
		if (p == nullptr) used -= n;
		return p;
	}
	void Free(void *p, size_t n) override {
		free(p);
		used -= n;
	}
};

v8::MaybeLocal<v8::ArrayBuffer> NewArrayBuffer(Env *env, const void *data, size_t n) {
	// v8::ArrayBuffer::New treats a refused allocation as fatal (the backend would exit), so
	// the memory is taken from the counting allocator here and handed over to V8.
	CountingAllocator *a = env->allocator;
	void *p = a->AllocateUninitialized(n);
	if (p == nullptr) {
		// The error V8 throws for `new ArrayBuffer(n)`, with the SQLSTATE of the limit.
		v8::Isolate *isolate = env->isolate;
		v8::Local<v8::Value> ex = v8::Exception::RangeError(NewString(isolate, "Array buffer allocation failed"));
		ex.As<v8::Object>()->Set(isolate->GetCurrentContext(), NewString(isolate, "sqlerrcode"), NewString(isolate, "53200")).Check();
		isolate->ThrowException(ex);
		return {};
	}
	if (n > 0) memcpy(p, data, n);
	std::unique_ptr<v8::BackingStore> bs = v8::ArrayBuffer::NewBackingStore(
	    p, n, [](void *mem, size_t len, void *owner) { static_cast<CountingAllocator *>(owner)->Free(mem, len); }, a);
	return v8::ArrayBuffer::New(env->isolate, std::move(bs));
}

namespace {

// Reached only when the headroom of NearHeapLimit was not enough (or the system itself is out
// of memory). V8 forbids returning, and an ERROR would longjmp across V8 frames, so the
// backend exits as cleanly as it can: a FATAL ends this connection only, where an abort would
// make the postmaster restart every backend.
void OomHandler(const char *location, bool is_heap_oom) {
	ereport(FATAL, (errcode(ERRCODE_OUT_OF_MEMORY),
	                errmsg("JavaScript ran out of memory in %s", location)));
}

uintptr_t StackLimit() {
	// PostgreSQL knows where the main stack begins; V8 gets the part of max_stack_depth that
	// leaves room for the PostgreSQL frames below and above it.
	pg_stack_base_t base = set_stack_base();
	restore_stack_base(base);
	char here;
	uintptr_t start = base ? reinterpret_cast<uintptr_t>(base) : reinterpret_cast<uintptr_t>(&here);
	uintptr_t depth = static_cast<uintptr_t>(max_stack_depth) * 1024;
	uintptr_t allowed = depth - depth / 4;
	return start - allowed;
}

Env *CreateEnv(Oid user) {
	InitV8();
	Env *env = new Env();
	env->user = user;
	env->depth = 0;
	env->memory_exceeded = false;
	env->headroom_granted = false;
	env->doomed = false;
	env->code_cache = CodeCacheStats{};
	size_t limit = static_cast<size_t>(memory_limit_mb) * 1024 * 1024;
	env->allocator = new CountingAllocator();
	env->allocator->limit = limit;

	v8::Isolate::CreateParams params;
	params.array_buffer_allocator = env->allocator;
	params.constraints.ConfigureDefaultsFromHeapSize(0, limit);
	WithSignalsBlocked([&] { env->isolate = v8::Isolate::New(params); });
	v8::Isolate *isolate = env->isolate;
	env->allocator->env = env;
	isolate->SetStackLimit(StackLimit());
	isolate->AddNearHeapLimitCallback(NearHeapLimit, env);
	isolate->SetOOMErrorHandler(OomHandler);
	WatchYoungGeneration(env);

	env->cx = nullptr;
	env->default_cx = nullptr;
	envs[user] = env;
	return env;
}

void DisposeEnv(Env *env) {
	CodeCacheForget(env);
	ForgetContexts(env);
	env->plan_template.Reset();
	env->cursor_template.Reset();
	env->window_template.Reset();
	env->isolate->Dispose();
	delete env->allocator;
	delete env;
}

ErrorData *pending_error = nullptr;

char *DupOrNull(const char *s) { return s ? pstrdup(s) : nullptr; }

ErrorData *CopyErrorDataTo(ErrorData *src, MemoryContext cxt) {
	MemoryContext old = MemoryContextSwitchTo(cxt);
	ErrorData *e = static_cast<ErrorData *>(palloc(sizeof(ErrorData)));
	*e = *src;
	e->message = DupOrNull(src->message);
	e->detail = DupOrNull(src->detail);
	e->detail_log = DupOrNull(src->detail_log);
	e->hint = DupOrNull(src->hint);
	e->context = DupOrNull(src->context);
	e->backtrace = DupOrNull(src->backtrace);
	e->schema_name = DupOrNull(src->schema_name);
	e->table_name = DupOrNull(src->table_name);
	e->column_name = DupOrNull(src->column_name);
	e->datatype_name = DupOrNull(src->datatype_name);
	e->constraint_name = DupOrNull(src->constraint_name);
	e->internalquery = DupOrNull(src->internalquery);
	e->assoc_context = cxt;
	MemoryContextSwitchTo(old);
	return e;
}

}  // namespace

Env *CurrentEnv() {
	Oid user = GetUserId();
	auto it = envs.find(user);
	Env *env = it != envs.end() ? it->second : CreateEnv(user);
	// plv8.context cannot change while JavaScript runs, so nested calls keep their context.
	if (env->depth == 0) SelectContext(env);
	return env;
}

void ResetEnv(Oid user) {
	if (user == InvalidOid) user = GetUserId();
	auto it = envs.find(user);
	if (it == envs.end()) return;
	Env *env = it->second;
	if (env->depth > 0)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_IN_USE),
		                errmsg("cannot reset the JavaScript environment while it is running")));
	envs.erase(it);
	DisposeEnv(env);
}

bool IsUncatchable(Env *env, ErrorData *edata) {
	return edata->sqlerrcode == ERRCODE_QUERY_CANCELED || edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN ||
	       edata->elevel >= FATAL || env->memory_exceeded || terminate_requested.load() || QueryCancelPending ||
	       ProcDiePending;
}

void SetPendingError(ErrorData *edata) {
	if (pending_error != nullptr) {
		FreeErrorData(edata);
		return;
	}
	pending_error = CopyErrorDataTo(edata, TopMemoryContext);
	FreeErrorData(edata);
}

bool HasPendingError() { return pending_error != nullptr; }

void RaiseTermination(Env *env) {
	bool memory = env->memory_exceeded;
	if (env->doomed && env->depth == 0) {
		auto it = envs.find(env->user);
		if (it != envs.end() && it->second == env) envs.erase(it);
		DisposeEnv(env);
	}
	if (pending_error != nullptr) {
		// Raised from the statement's memory, so that nothing stays behind in TopMemoryContext.
		ErrorData *e = CopyErrorDataTo(pending_error, CurrentMemoryContext);
		FreeErrorData(pending_error);
		pending_error = nullptr;
		ReThrowError(e);
	}
	if (memory) ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("Out of memory error")));
	CHECK_FOR_INTERRUPTS();
	long timeout_s;
	if (TimedOut(&timeout_s))
		ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("execution timeout exceeded"),
		                errdetail("plv8.execution_timeout is %ld s.", timeout_s)));
	ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("canceling statement due to user request")));
}

const std::map<Oid, Env *> &AllEnvs() { return envs; }

}  // namespace plv8
