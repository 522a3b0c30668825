// Shared declarations of the PL/V8-compatible handler: V8 runtime management, PostgreSQL
// error guards, type conversion and the `plv8` JavaScript API.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include <v8.h>

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "datatype/timestamp.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/guc.h"
#include "utils/resowner.h"
}

#define PLV8_VERSION_STR "0.1.0"

namespace plv8 {

// Memory (memory.cpp): after outermost calls, V8's young generation and malloc's free memory
// given back.
struct Env;
void WatchYoungGeneration(Env *env);
// At the start of an outermost call, before ReduceHeap at its end.
void NoteOutermostCall(Env *env);
bool ReduceHeap(Env *env);
void GiveBackFreeMemory(bool now);

// ---------------------------------------------------------------------------
// Runtime (runtime.cpp): process-wide V8, per-user environments; the watchdog (watchdog.cpp).

struct CountingAllocator;

// What the code cache did for one environment (shown by plv8_info()).
struct CodeCacheStats {
	uint64 hits;      // compiled from a cache file
	uint64 misses;    // no cache file yet
	uint64 writes;    // cache files written
	uint64 rejected;  // a cache file was there but unusable (damaged, or refused by V8)
};

// One global object of an environment: the default one, or one named by plv8.context.
struct JsContext {
	std::string name;  // empty for the default context
	v8::Global<v8::Context> context;
	v8::Global<v8::Function> json_stringify;  // JSON.stringify with a BigInt replacer
};

// One isolate for one user id in this backend, with its default context and an LRU list of
// named ones; `cx` is the one calls run in.
struct Env {
	Oid user;
	v8::Isolate *isolate;
	JsContext *cx;
	JsContext *default_cx;           // null until a call uses it
	std::vector<JsContext *> named;  // most recently used first
	CountingAllocator *allocator;
	v8::Global<v8::ObjectTemplate> plan_template;
	v8::Global<v8::ObjectTemplate> cursor_template;
	v8::Global<v8::ObjectTemplate> window_template;
	int depth;            // nesting of active JavaScript entries into this isolate
	bool memory_exceeded; // set by the heap limit; the env is then disposed
	bool headroom_granted; // the heap limit was raised once to let the script unwind
	bool doomed;          // dispose when the outermost entry leaves
	CodeCacheStats code_cache;
	bool scavenged;                // a young-generation collection ran since the last ReduceHeap
	int calls_since_reduction;      // outermost calls since then
	int outermost_calls;            // since V8 started, counted up to 2
	std::chrono::steady_clock::time_point last_reduction;  // of the last ReduceHeap that collected
	std::chrono::steady_clock::time_point last_call_end;   // of the last outermost call
	std::chrono::steady_clock::duration reduction_spacing; // least time from one reduction to the next
	bool quiet_since_reduction;     // a quiet gap between two outermost calls came since then
	long reductions;                // memory-reducing collections run (plv8_info())
};

extern int memory_limit_mb;
extern char *context_name;
extern int context_cache_size;
extern int execution_timeout_s;
extern int heap_reduce_interval;
extern char *icu_data;
extern char *start_proc;
extern char *boot_proc;
extern char *v8_flags;
// The V8 flags in force in this backend (set when V8 starts).
extern std::string applied_v8_flags;

// Returns the environment of the current user, creating V8 and the isolate on first use.
Env *CurrentEnv();
// Forget every environment for `user` (or the current one if InvalidOid).
void ResetEnv(Oid user);
// Every environment of this backend, by user id.
const std::map<Oid, Env *> &AllEnvs();
// Heap statistics of every environment as a JSON text (info.cpp).
std::string EnvInfoJson();
std::string HeapStatsJson(v8::Isolate *isolate, bool with_user, Oid user, const std::string &contexts = "[]");

// Starts the thread that stops JavaScript on an interrupt or a timeout (watchdog.cpp); called
// once, with every signal blocked.
void StartWatchdog();
// Marks JavaScript as running in `env` so that the watchdog can stop it on an interrupt.
void EnterJs(Env *env);
// Leaves; returns true when this was the outermost entry and execution had been terminated.
bool LeaveJs(Env *env, bool terminated);

// An error that JavaScript must not be able to catch (query cancel, backend termination,
// memory limit): kept until the outermost entry has left V8, then raised.
void SetPendingError(ErrorData *edata);
bool HasPendingError();
// Raises the pending error, the interrupt or a generic cancel. Never returns.
void RaiseTermination(Env *env) pg_attribute_noreturn();
bool IsUncatchable(Env *env, ErrorData *edata);
// Set once JavaScript must stop; every database call refuses to run until it has.
extern std::atomic<bool> terminate_requested;
void ForceTerminate(Env *env);
// Whether the outermost call ran past plv8.execution_timeout (in force: `timeout_s`).
bool TimedOut(long *timeout_s);

// Makes the context plv8.context names the current one of `env` (creating it, and for the
// default context running the start procedure); raises the statement's error when that was
// stopped (contexts.cpp).
void SelectContext(Env *env);
// Drops every context of an environment about to be disposed.
void ForgetContexts(Env *env);
// Names of the named contexts of `env`, as a JSON array.
std::string ContextNamesJson(Env *env);
// GUC check hook of plv8.context: no switch while JavaScript runs.
bool CheckContextName(char **newval, void **extra, GucSource source);
// Whether any JavaScript is running in this backend.
bool JsRunning();

// Runs plv8.boot_proc, or else plv8.start_proc, in a new default context (startproc.cpp).
// Skips it with a WARNING when it is missing or the current user may not run it.
void RunStartProc(Env *env, v8::Local<v8::Context> context);

// ---------------------------------------------------------------------------
// Errors (errors.cpp)

// Throws a JavaScript Error built from a PostgreSQL error, or terminates JavaScript for an
// uncatchable one.
void ThrowPgError(Env *env, ErrorData *edata);
void ThrowJsError(v8::Isolate *isolate, const char *message);

// Runs `f` (plain PostgreSQL calls only: no C++ objects with destructors) catching any
// PostgreSQL error; the error becomes a JavaScript exception. Returns false on error.
// Cleanup steps (rolling back a subtransaction) pass `cleanup` so that they still run while
// JavaScript is being stopped.
template <typename F>
static inline bool PgTry(Env *env, F f, bool cleanup = false) {
	if (!cleanup && terminate_requested.load()) {
		ForceTerminate(env);
		return false;
	}
	MemoryContext oldcxt = CurrentMemoryContext;
	ErrorData *volatile edata = nullptr;
	PG_TRY();
	{
		f();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
	}
	PG_END_TRY();
	if (edata != nullptr) {
		ThrowPgError(env, edata);
		return false;
	}
	return true;
}

// A JavaScript exception turned into plain data, so it can be raised after V8 scopes end.
struct JsError {
	bool set;
	int sqlerrcode;
	char *message, *detail, *hint, *context;
	char *schema_name, *table_name, *column_name, *datatype_name, *constraint_name;
};

void CaptureJsError(Env *env, v8::TryCatch &tc, JsError *out);
void RaiseJsError(const JsError *err) pg_attribute_noreturn();

// ---------------------------------------------------------------------------
// Strings (strings.cpp)

// A name or fixed text (bounded, so V8 always accepts it).
v8::Local<v8::String> NewString(v8::Isolate *isolate, const char *s, int len = -1);
// User data: a value too long for V8 throws a JavaScript error with SQLSTATE 54000.
v8::MaybeLocal<v8::String> NewText(Env *env, const char *s, size_t len);
// The same over memory that is never freed while the backend lives, read by V8 in place when it
// is ASCII.
v8::MaybeLocal<v8::String> NewKeptText(Env *env, const char *s, size_t len);
std::string ToStdString(v8::Isolate *isolate, v8::Local<v8::Value> value, bool *ok);
// Error messages and fields are clipped to a size every layer can carry.
std::string ClipErrorText(std::string text);
// `text` as a JSON string literal (for the JSON texts plv8_info() builds).
std::string JsonString(const std::string &text);

// ---------------------------------------------------------------------------
// Type conversion (convert.cpp)

enum class TypeKind {
	Bool, Int2, Int4, Int8, Oid, Float4, Float8, Numeric, Text, Json, Jsonb, Bytea,
	Date, Timestamp, TimestampTz, Array, Composite, Record, TypedArray, Void, Other
};

struct TypeInfo {
	Oid typid;
	int32 typmod;
	TypeKind kind;
	int16 len;
	bool byval;
	char align;
	Oid ioparam;
	bool io_ready;
	FmgrInfo in, out;
	MemoryContext cxt;
	// arrays
	TypeInfo *elem;
	// composites
	TupleDesc tupdesc;
	TypeInfo **attrs;
	uint64 tupdesc_id;  // typcache identifier of `tupdesc`: a changed row type is re-read
	// typed arrays (plv8_*array domains)
	Oid typed_elem;
	bool domain;  // a domain over a built-in kind: checked after conversion
	void *domain_extra;
};

// Fills `ti` for a type; allocations go to `cxt`. May raise PostgreSQL errors (call guarded).
void TypeInfoInit(TypeInfo *ti, Oid typid, int32 typmod, MemoryContext cxt);
TypeInfo *TypeInfoNew(Oid typid, int32 typmod, MemoryContext cxt);
// Looks up the type's input and output functions the first time either is needed.
void EnsureIo(TypeInfo *ti);
// Reads (or re-reads after ALTER TYPE) the row type of a named composite into `ti`.
void RefreshRowType(TypeInfo *ti, Oid typid, int32 typmod);
// Milliseconds from the Unix epoch (JavaScript's) to PostgreSQL's (2000-01-01).
constexpr double kEpochOffsetMs = (double)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * 86400000.0;

// An ArrayBuffer holding a copy of `n` bytes, counted against plv8.memory_limit; empty (and
// JavaScript stopped or an exception thrown) when it does not fit.
v8::MaybeLocal<v8::ArrayBuffer> NewArrayBuffer(Env *env, const void *data, size_t n);
// An array for `n` elements; storage is reserved up front only where V8 can always hold it.
v8::Local<v8::Array> NewArray(v8::Isolate *isolate, uint64 n);

// Datum -> JavaScript. Returns an empty handle when an exception was thrown.
v8::MaybeLocal<v8::Value> ToJs(Env *env, Datum value, bool isnull, TypeInfo *ti);
// A tuple -> object with a property per live column.
v8::MaybeLocal<v8::Object> TupleToJs(Env *env, HeapTuple tuple, TupleDesc desc, TypeInfo **attrs,
                                     v8::Local<v8::String> *names);
// JavaScript -> Datum. Returns false when an exception was thrown.
bool ToDatum(Env *env, v8::Local<v8::Value> value, TypeInfo *ti, Datum *out, bool *isnull);
// An object -> a tuple of `desc`.
bool ObjectToTuple(Env *env, v8::Local<v8::Value> value, TupleDesc desc, TypeInfo **attrs,
                   HeapTuple *out, bool strict_names);
TypeInfo **AttrTypeInfos(TupleDesc desc, MemoryContext cxt);

// ---------------------------------------------------------------------------
// The plv8 object (api.cpp, window.cpp)

using Args = v8::FunctionCallbackInfo<v8::Value>;

// Every callback gets its environment as the data of its function template.
inline Env *EnvOf(const Args &args) { return static_cast<Env *>(args.Data().As<v8::External>()->Value()); }
void SetMethod(v8::Isolate *isolate, v8::Local<v8::ObjectTemplate> t, const char *name, v8::FunctionCallback cb,
               v8::Local<v8::External> data);
struct Method {
	const char *name;
	v8::FunctionCallback fn;
};
// The template of an object wrapping native state (PreparedPlan, Cursor, WindowObject): one
// internal field for the state, the methods, and `tag` as its Symbol.toStringTag.
v8::Local<v8::ObjectTemplate> WrapperTemplate(v8::Isolate *isolate, const char *tag, std::initializer_list<Method> methods,
                                              v8::Local<v8::External> data);

void InstallGlobals(Env *env, v8::Local<v8::Context> context);
void InstallWindowApi(Env *env, v8::Local<v8::ObjectTemplate> plv8);

// State of the innermost running function, for return_next / get_window_object / commit.
struct CallState {
	CallState *outer;
	FunctionCallInfo fcinfo;
	// set-returning
	Tuplestorestate *tuplestore;
	TupleDesc tupdesc;
	TypeInfo **attrs;    // composite result columns
	TypeInfo *scalar;    // scalar result type
	bool composite;
	bool nonatomic;
};
extern CallState *current_call;

// Stores one value into the current set-returning call; false when an exception was thrown.
bool ReturnNext(Env *env, v8::Local<v8::Value> value);

// ---------------------------------------------------------------------------
// Functions (functions.cpp)

// Returns the compiled JavaScript function of a plv8 function in `env`.
v8::MaybeLocal<v8::Function> FindCompiled(Env *env, Oid fn_oid);
void ForgetCompiled(JsContext *cx);

// `this` for a call at `flinfo` in `env`; false (with an exception) when it cannot be made.
bool Receiver(Env *env, FmgrInfo *flinfo, v8::Local<v8::Object> *out);
void ForgetReceivers(JsContext *cx);

// ---------------------------------------------------------------------------
// Code cache (codecache.cpp)

extern bool code_cache_enabled;
// Compiles a function's script, from a cache file under the data directory when one matches;
// otherwise the script is remembered and its cache written by CodeCacheFlush().
v8::MaybeLocal<v8::Script> CompileCached(Env *env, v8::Local<v8::String> text, const v8::ScriptOrigin &origin,
                                         const std::string &source, const char *name);
// Writes the caches of scripts compiled without one; called when the outermost call has
// returned successfully, so that the functions it ran are compiled and included.
void CodeCacheFlush();
// Drops what is remembered for an environment about to be disposed.
void CodeCacheForget(Env *env);
// Keeps database `db`'s directory under `root` within plv8.code_cache_max_age and _max_size,
// and removes the directories of dropped databases (cacheprune.cpp).
extern int code_cache_max_size_kb;
extern int code_cache_max_age_s;
void CodeCachePrune(const char *root, Oid db);
// Marks a cache file as just used.
void CodeCacheTouch(const char *path);

// ---------------------------------------------------------------------------
// Triggers (triggers.cpp)

const int kTriggerArgCount = 10;
extern const char *const kTriggerArgNames[kTriggerArgCount];
// NEW, OLD, TG_NAME ... TG_ARGV for a trigger call; `attrs` describe the relation's columns.
bool TriggerArgs(Env *env, TriggerData *td, TypeInfo **attrs, v8::Local<v8::Value> *argv);
// The row a BEFORE/INSTEAD OF row trigger hands back (allocated in `callercxt`).
bool TriggerResult(Env *env, TriggerData *td, TypeInfo **attrs, v8::Local<v8::Value> result,
                   MemoryContext callercxt, Datum *out);

}  // namespace plv8
