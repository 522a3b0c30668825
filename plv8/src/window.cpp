// Window stage: plv8.get_window_object() for functions declared WINDOW, over PostgreSQL's
// window function API (positions, peers, marks, arguments of other rows, partition memory).
#include "plv8.h"

extern "C" {
#include "nodes/nodes.h"
#include "windowapi.h"
}

namespace plv8 {

namespace {

// Partition-local memory: a fixed-size area per partition holding a JSON text, sized by the
// first get_partition_local() of the partition.
struct PartitionLocal {
	bool sized;
	uint32 size;
	uint32 len;
	char data[FLEXIBLE_ARRAY_MEMBER];
};

const uint32 kDefaultLocalSize = 1000;

// The window object is only valid while its call runs: a script that kept it in a global
// must not reach a finished call's state.
CallState *StateOf(Env *env, const Args &args) {
	v8::Local<v8::Object> self = args.This();
	CallState *st = nullptr;
	if (self->InternalFieldCount() > 0) st = static_cast<CallState *>(self->GetAlignedPointerFromInternalField(0));
	for (CallState *c = current_call; c != nullptr; c = c->outer)
		if (c == st) return st;
	ThrowJsError(env->isolate, "window object is used outside of its window function call");
	return nullptr;
}

WindowObject WinOf(CallState *st) { return reinterpret_cast<WindowObject>(st->fcinfo->context); }

bool IntArg(const Args &args, int i, int64 *out) {
	double d = 0;
	if (args.Length() > i && !args[i]->NumberValue(args.GetIsolate()->GetCurrentContext()).To(&d)) return false;
	*out = static_cast<int64>(d);
	return true;
}

// Returns what `get(window object)` answers, as a number.
void ReturnCount(const Args &args, int64 (*get)(WindowObject)) {
	Env *env = EnvOf(args);
	CallState *st = StateOf(env, args);
	if (st == nullptr) return;
	int64 n = 0;
	if (PgTry(env, [&] { n = get(WinOf(st)); })) args.GetReturnValue().Set(v8::Number::New(env->isolate, (double)n));
}

void GetCurrentPosition(const Args &args) { ReturnCount(args, WinGetCurrentPosition); }
void GetPartitionRowCount(const Args &args) { ReturnCount(args, WinGetPartitionRowCount); }

void SetMarkPosition(const Args &args) {
	Env *env = EnvOf(args);
	CallState *st = StateOf(env, args);
	int64 pos;
	if (st == nullptr || !IntArg(args, 0, &pos)) return;
	PgTry(env, [&] { WinSetMarkPosition(WinOf(st), pos); });
}

void RowsArePeers(const Args &args) {
	Env *env = EnvOf(args);
	CallState *st = StateOf(env, args);
	int64 a, b;
	if (st == nullptr || !IntArg(args, 0, &a) || !IntArg(args, 1, &b)) return;
	bool peers = false;
	if (PgTry(env, [&] { peers = WinRowsArePeers(WinOf(st), a, b); }))
		args.GetReturnValue().Set(v8::Boolean::New(env->isolate, peers));
}

TypeInfo *ArgType(Env *env, CallState *st, int argno) {
	TypeInfo *ti = nullptr;
	if (!PgTry(env, [&] {
		    Oid t = get_fn_expr_argtype(st->fcinfo->flinfo, argno);
		    if (t == InvalidOid) elog(ERROR, "window function has no argument %d", argno);
		    ti = TypeInfoNew(t, -1, CurrentMemoryContext);
	    }))
		return nullptr;
	return ti;
}

// get_func_arg_in_partition / get_func_arg_in_frame: undefined when the row is outside.
void GetFuncArgAt(const Args &args, bool frame) {
	Env *env = EnvOf(args);
	CallState *st = StateOf(env, args);
	int64 argno, relpos, seektype;
	if (st == nullptr || !IntArg(args, 0, &argno) || !IntArg(args, 1, &relpos) || !IntArg(args, 2, &seektype)) return;
	bool mark = args.Length() > 3 && args[3]->BooleanValue(env->isolate);
	TypeInfo *ti = ArgType(env, st, (int)argno);
	if (ti == nullptr) return;
	Datum d = (Datum)0;
	bool isnull = true, isout = false;
	if (!PgTry(env, [&] {
		    WindowObject w = WinOf(st);
		    d = frame ? WinGetFuncArgInFrame(w, (int)argno, (int)relpos, (int)seektype, mark, &isnull, &isout)
		              : WinGetFuncArgInPartition(w, (int)argno, (int)relpos, (int)seektype, mark, &isnull, &isout);
	    }))
		return;
	if (isout) return;  // undefined
	v8::Local<v8::Value> v;
	if (ToJs(env, d, isnull, ti).ToLocal(&v)) args.GetReturnValue().Set(v);
}

void GetFuncArgInPartition(const Args &args) { GetFuncArgAt(args, false); }
void GetFuncArgInFrame(const Args &args) { GetFuncArgAt(args, true); }

void GetFuncArgCurrent(const Args &args) {
	Env *env = EnvOf(args);
	CallState *st = StateOf(env, args);
	int64 argno;
	if (st == nullptr || !IntArg(args, 0, &argno)) return;
	TypeInfo *ti = ArgType(env, st, (int)argno);
	if (ti == nullptr) return;
	Datum d = (Datum)0;
	bool isnull = true;
	if (!PgTry(env, [&] { d = WinGetFuncArgCurrent(WinOf(st), (int)argno, &isnull); })) return;
	v8::Local<v8::Value> v;
	if (ToJs(env, d, isnull, ti).ToLocal(&v)) args.GetReturnValue().Set(v);
}

PartitionLocal *LocalMemory(Env *env, CallState *st, uint32 size) {
	PartitionLocal *local = nullptr;
	if (!PgTry(env, [&] {
		    local = static_cast<PartitionLocal *>(
		        WinGetPartitionLocalMemory(WinOf(st), offsetof(PartitionLocal, data) + size));
	    }))
		return nullptr;
	// Fresh partition memory is zeroed: its size is the one asked for first.
	if (!local->sized) {
		local->sized = true;
		local->size = size;
	}
	return local;
}

void GetPartitionLocal(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	CallState *st = StateOf(env, args);
	if (st == nullptr) return;
	uint32 size = kDefaultLocalSize;
	if (args.Length() > 0 && !args[0]->IsUndefined()) {
		double d = 0;
		if (!args[0]->NumberValue(isolate->GetCurrentContext()).To(&d)) return;
		size = d > 0 && d < (double)MaxAllocSize ? static_cast<uint32>(d) : 0;
	}
	PartitionLocal *local = LocalMemory(env, st, size);
	if (local == nullptr || local->len == 0) return;
	v8::Local<v8::String> json;
	v8::Local<v8::Value> v;
	if (NewText(env, local->data, local->len).ToLocal(&json) && v8::JSON::Parse(isolate->GetCurrentContext(), json).ToLocal(&v))
		args.GetReturnValue().Set(v);
}

void SetPartitionLocal(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	CallState *st = StateOf(env, args);
	if (st == nullptr) return;
	v8::Local<v8::Value> value = args.Length() > 0 ? args[0] : v8::Undefined(isolate).As<v8::Value>();
	v8::Local<v8::String> json;
	if (!v8::JSON::Stringify(cx, value).ToLocal(&json)) return;
	bool ok;
	std::string text = ToStdString(isolate, json, &ok);
	if (!ok) return;
	PartitionLocal *local = LocalMemory(env, st, kDefaultLocalSize);
	if (local == nullptr) return;
	if (text.size() > local->size) {
		ThrowJsError(isolate, "window local memory overflow");
		return;
	}
	memcpy(local->data, text.data(), text.size());
	local->len = static_cast<uint32>(text.size());
}

void GetWindowObject(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	CallState *st = current_call;
	if (st == nullptr || st->fcinfo == nullptr || st->fcinfo->context == nullptr ||
	    !IsA(st->fcinfo->context, WindowObjectData)) {
		ThrowJsError(isolate, "get_window_object called in wrong context");
		return;
	}
	v8::Local<v8::Object> obj;
	if (!env->window_template.Get(isolate)->NewInstance(isolate->GetCurrentContext()).ToLocal(&obj)) return;
	obj->SetAlignedPointerInInternalField(0, st);
	args.GetReturnValue().Set(obj);
}

}  // namespace

void InstallWindowApi(Env *env, v8::Local<v8::ObjectTemplate> plv8) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::External> data = v8::External::New(isolate, env);
	v8::Local<v8::ObjectTemplate> w = WrapperTemplate(isolate, "WindowObject",
	                                                  {
	                                                      {"get_current_position", GetCurrentPosition},
	                                                      {"get_partition_row_count", GetPartitionRowCount},
	                                                      {"set_mark_position", SetMarkPosition},
	                                                      {"rows_are_peers", RowsArePeers},
	                                                      {"get_func_arg_in_partition", GetFuncArgInPartition},
	                                                      {"get_func_arg_in_frame", GetFuncArgInFrame},
	                                                      {"get_func_arg_current", GetFuncArgCurrent},
	                                                      {"get_partition_local", GetPartitionLocal},
	                                                      {"set_partition_local", SetPartitionLocal},
	                                                  },
	                                                  data);
	w->Set(NewString(isolate, "SEEK_CURRENT"), v8::Integer::New(isolate, WINDOW_SEEK_CURRENT));
	w->Set(NewString(isolate, "SEEK_HEAD"), v8::Integer::New(isolate, WINDOW_SEEK_HEAD));
	w->Set(NewString(isolate, "SEEK_TAIL"), v8::Integer::New(isolate, WINDOW_SEEK_TAIL));
	env->window_template.Reset(isolate, w);
	SetMethod(isolate, plv8, "get_window_object", GetWindowObject, data);
}

}  // namespace plv8
