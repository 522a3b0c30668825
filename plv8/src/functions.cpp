// Function stage: pg_proc rows -> compiled JavaScript functions (cached per context
// and recompiled when the row changes), and the call paths for functions, set-returning
// functions, procedures and DO blocks (trigger arguments: triggers.cpp).
#include <map>
#include <unordered_map>

#include "fninfo.h"

extern "C" {
#include "catalog/pg_proc.h"
#include "commands/trigger.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "windowapi.h"
}

namespace plv8 {

CallState *current_call = nullptr;

namespace {

struct Compiled {
	TransactionId xmin;
	ItemPointerData tid;
	v8::Global<v8::Function> fn;
};

std::map<std::pair<JsContext *, Oid>, Compiled *> compiled;

// Compiles `(function (args) {\n body \n})`, line numbers counted from the body. A function
// body that will run goes through the code cache; a DO block or a body only being validated
// does not.
v8::MaybeLocal<v8::Script> CompileScript(Env *env, const std::string &source, const char *name, bool cacheable,
                                         const char *kept = nullptr) {
	v8::Isolate *isolate = env->isolate;
	v8::ScriptOrigin origin(isolate, NewString(isolate, name), -1, 0);
	v8::Local<v8::String> text;
	if (!(kept ? NewKeptText(env, kept, source.size()) : NewText(env, source.data(), source.size())).ToLocal(&text))
		return {};
	if (cacheable) return CompileCached(env, text, origin, source, name);
	return v8::Script::Compile(isolate->GetCurrentContext(), text, &origin);
}

// The function a wrapped body evaluates to.
v8::MaybeLocal<v8::Function> Compile(Env *env, const std::string &source, const char *name, bool cacheable,
                                     const char *kept = nullptr) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	v8::Local<v8::Script> script;
	if (!CompileScript(env, source, name, cacheable, kept).ToLocal(&script)) return {};
	v8::Local<v8::Value> v;
	if (!script->Run(cx).ToLocal(&v)) return {};
	if (!v->IsFunction()) {
		ThrowJsError(isolate, "function body did not compile to a function");
		return {};
	}
	return v.As<v8::Function>();
}

v8::MaybeLocal<v8::Function> CompiledFor(Env *env, FnInfo *info) {
	v8::Isolate *isolate = env->isolate;
	auto key = std::make_pair(env->cx, info->oid);
	auto it = compiled.find(key);
	if (it != compiled.end()) {
		Compiled *c = it->second;
		if (c->xmin == info->xmin && ItemPointerEquals(&c->tid, &info->tid)) return c->fn.Get(isolate);
		c->fn.Reset();
		delete c;
		compiled.erase(it);
	}
	v8::Local<v8::Function> fn;
	std::string source(info->source, info->source_len);
	if (!Compile(env, source, info->proname, true, info->source).ToLocal(&fn)) return {};
	Compiled *c = new Compiled();
	c->xmin = info->xmin;
	c->tid = info->tid;
	c->fn.Reset(isolate, fn);
	compiled[key] = c;
	return fn;
}

// ---------------------------------------------------------------------------
// Calls

struct Outcome {
	bool terminated;
	bool failed;
	JsError err;
	Datum result;
	bool isnull;
};

bool CollectSet(Env *env, v8::Local<v8::Value> result) {
	if (result->IsUndefined() || result->IsNull()) return true;
	if (result->IsArray()) {
		v8::Local<v8::Array> arr = result.As<v8::Array>();
		v8::Local<v8::Context> cx = env->isolate->GetCurrentContext();
		for (uint32_t i = 0; i < arr->Length(); i++) {
			v8::Local<v8::Value> v;
			if (!arr->Get(cx, i).ToLocal(&v)) return false;
			if (!ReturnNext(env, v)) return false;
		}
		return true;
	}
	return ReturnNext(env, result);
}

// Runs `body(cx)` in `env` with the watchdog armed and `state` (if any) as the current call.
// A failure is captured into `out` as plain data: the PostgreSQL error is raised by Finish()
// only after these V8 scopes are gone, since a longjmp must never cross them.
template <typename F>
void RunJs(Env *env, CallState *state, Outcome *out, F body) {
	v8::Isolate *isolate = env->isolate;
	v8::Isolate::Scope iscope(isolate);
	v8::HandleScope hscope(isolate);
	v8::Local<v8::Context> cx = env->cx->context.Get(isolate);
	v8::Context::Scope cscope(cx);
	EnterJs(env);
	v8::TryCatch tc(isolate);
	if (state != nullptr) {
		state->outer = current_call;
		current_call = state;
	}
	bool ok = body(cx);
	if (state != nullptr) current_call = state->outer;
	bool terminated = tc.HasTerminated() || isolate->IsExecutionTerminating();
	if (!ok && !terminated && tc.HasCaught()) CaptureJsError(env, tc, &out->err);
	out->failed = !ok;
	out->terminated = LeaveJs(env, terminated);
}

// The SQL arguments of a plain or window call as JavaScript values.
bool CallArgs(Env *env, FnInfo *info, FunctionCallInfo fcinfo, std::vector<v8::Local<v8::Value>> *argv) {
	argv->resize(info->nargs);
	WindowObject win = info->prokind == PROKIND_WINDOW ? PG_WINDOW_OBJECT() : nullptr;
	for (int i = 0; i < info->nargs; i++) {
		TypeInfo *ti = info->args[i];
		if (ti == nullptr) {  // polymorphic: the actual type of this call site
			Oid actual = get_fn_expr_argtype(fcinfo->flinfo, i);
			if (!PgTry(env, [&] { ti = TypeInfoNew(actual, -1, CurrentMemoryContext); })) return false;
		}
		Datum d;
		bool isnull;
		if (win == nullptr) {
			d = fcinfo->args[i].value;
			isnull = fcinfo->args[i].isnull;
		} else if (!PgTry(env, [&] { d = WinGetFuncArgCurrent(win, i, &isnull); })) {
			return false;  // a window function's arguments are not in fcinfo
		}
		if (!ToJs(env, d, isnull, ti).ToLocal(&(*argv)[i])) return false;
	}
	return true;
}

// The result of a plain call as a Datum in the caller's memory.
bool CallResult(Env *env, FnInfo *info, FunctionCallInfo fcinfo, v8::Local<v8::Value> result,
                MemoryContext callercxt, Outcome *out) {
	TypeInfo *ti = info->ret;
	MemoryContext old = MemoryContextSwitchTo(callercxt);
	bool ok = true;
	if (ti == nullptr) {  // polymorphic or record: the result type of this call site
		ok = PgTry(env, [&] {
			TupleDesc desc = nullptr;
			Oid rt = InvalidOid;
			TypeFuncClass cls = get_call_result_type(fcinfo, &rt, &desc);
			if (cls == TYPEFUNC_COMPOSITE) {
				ti = TypeInfoNew(desc->tdtypeid, desc->tdtypmod, CurrentMemoryContext);
				ti->kind = TypeKind::Composite;
				ti->tupdesc = BlessTupleDesc(desc);
				ti->attrs = AttrTypeInfos(desc, CurrentMemoryContext);
			} else {
				ti = TypeInfoNew(rt, -1, CurrentMemoryContext);
			}
		});
	}
	ok = ok && ToDatum(env, result, ti, &out->result, &out->isnull);
	MemoryContextSwitchTo(old);
	return ok;
}

// One call of a function, trigger or set-returning function, inside RunJs.
bool CallFunction(Env *env, FnInfo *info, FunctionCallInfo fcinfo, MemoryContext callercxt, Outcome *out,
                  v8::Local<v8::Context> cx) {
	v8::Local<v8::Function> fn;
	if (!CompiledFor(env, info).ToLocal(&fn)) return false;
	TriggerData *td = info->is_trigger && CALLED_AS_TRIGGER(fcinfo) ? reinterpret_cast<TriggerData *>(fcinfo->context) : nullptr;
	TypeInfo **tattrs = nullptr;
	std::vector<v8::Local<v8::Value>> argv;
	if (td != nullptr) {
		if (!PgTry(env, [&] { tattrs = AttrTypeInfos(RelationGetDescr(td->tg_relation), CurrentMemoryContext); })) return false;
		argv.resize(kTriggerArgCount);
		if (!TriggerArgs(env, td, tattrs, argv.data())) return false;
	} else if (!CallArgs(env, info, fcinfo, &argv)) {
		return false;
	}
	v8::Local<v8::Object> self;
	if (!Receiver(env, fcinfo->flinfo, &self)) return false;
	v8::Local<v8::Value> result;
	if (!fn->Call(cx, self, (int)argv.size(), argv.data()).ToLocal(&result)) return false;
	if (td != nullptr) {
		out->isnull = false;
		return TriggerResult(env, td, tattrs, result, callercxt, &out->result);
	}
	if (info->retset) {
		out->isnull = true;
		return CollectSet(env, result);
	}
	return CallResult(env, info, fcinfo, result, callercxt, out);
}

void Finish(Env *env, Outcome *out) {
	if (out->terminated) RaiseTermination(env);
	if (out->failed) {
		if (out->err.set) RaiseJsError(&out->err);
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("JavaScript function failed without an exception")));
	}
}

void SetupSrf(FunctionCallInfo fcinfo, FnInfo *info, CallState *state) {
	ReturnSetInfo *rsi = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	if (rsi == nullptr || !IsA(rsi, ReturnSetInfo) || (rsi->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("set-valued function called in context that cannot accept a set")));
	MemoryContext old = MemoryContextSwitchTo(rsi->econtext->ecxt_per_query_memory);
	TupleDesc desc = nullptr;
	Oid rettype = InvalidOid;
	TypeFuncClass cls = get_call_result_type(fcinfo, &rettype, &desc);
	if (cls == TYPEFUNC_COMPOSITE) {
		state->composite = true;
		state->tupdesc = CreateTupleDescCopy(desc);
		state->attrs = AttrTypeInfos(state->tupdesc, CurrentMemoryContext);
	} else if (cls == TYPEFUNC_RECORD) {
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("function returning record called in context that cannot accept type record")));
	} else {
		state->composite = false;
		state->tupdesc = CreateTemplateTupleDesc(1);
		TupleDescInitEntry(state->tupdesc, 1, "value", rettype, -1, 0);
		state->scalar = TypeInfoNew(rettype, -1, CurrentMemoryContext);
	}
	state->tuplestore = tuplestore_begin_heap(true, false, work_mem);
	rsi->returnMode = SFRM_Materialize;
	rsi->setResult = state->tuplestore;
	rsi->setDesc = state->tupdesc;
	MemoryContextSwitchTo(old);
}

}  // namespace

bool ReturnNext(Env *env, v8::Local<v8::Value> value) {
	CallState *st = current_call;
	if (st == nullptr || st->tuplestore == nullptr) {
		ThrowJsError(env->isolate, "return_next called in context that cannot accept a set");
		return false;
	}
	ReturnSetInfo *rsi = reinterpret_cast<ReturnSetInfo *>(st->fcinfo->resultinfo);
	MemoryContext old = MemoryContextSwitchTo(rsi->econtext->ecxt_per_query_memory);
	bool ok;
	if (st->composite) {
		HeapTuple tuple;
		ok = ObjectToTuple(env, value, st->tupdesc, st->attrs, &tuple, true) &&
		     PgTry(env, [&] { tuplestore_puttuple(st->tuplestore, tuple); });
	} else {
		Datum d;
		bool isnull;
		ok = ToDatum(env, value, st->scalar, &d, &isnull) &&
		     PgTry(env, [&] { tuplestore_putvalues(st->tuplestore, st->tupdesc, &d, &isnull); });
	}
	MemoryContextSwitchTo(old);
	return ok;
}

v8::MaybeLocal<v8::Function> FindCompiled(Env *env, Oid fn_oid) {
	FnInfo *info = nullptr;
	if (!PgTry(env, [&] { info = GetFnInfo(fn_oid); })) return {};
	return CompiledFor(env, info);
}

void ForgetCompiled(JsContext *cx) {
	for (auto it = compiled.begin(); it != compiled.end();) {
		if (it->first.first == cx) {
			it->second->fn.Reset();
			delete it->second;
			it = compiled.erase(it);
		} else {
			++it;
		}
	}
}

bool IsNonatomic(FunctionCallInfo fcinfo) {
	return fcinfo->context != nullptr && IsA(fcinfo->context, CallContext) &&
	       !castNode(CallContext, fcinfo->context)->atomic;
}

Datum CallHandler(FunctionCallInfo fcinfo) {
	MemoryContext callercxt = CurrentMemoryContext;
	bool nonatomic = IsNonatomic(fcinfo);
	if (SPI_connect_ext(nonatomic ? SPI_OPT_NONATOMIC : 0) != SPI_OK_CONNECT)
		elog(ERROR, "could not connect to SPI manager");
	FnInfo *info = GetFnInfo(fcinfo->flinfo->fn_oid);
	CallState state;
	memset(&state, 0, sizeof(state));
	state.fcinfo = fcinfo;
	state.nonatomic = nonatomic;
	if (info->retset) SetupSrf(fcinfo, info, &state);
	Env *env = CurrentEnv();
	if (current_call == nullptr) NoteOutermostCall(env);
	Outcome out;
	memset(&out, 0, sizeof(out));
	RunJs(env, &state, &out, [&](v8::Local<v8::Context> cx) {
		return CallFunction(env, info, fcinfo, callercxt, &out, cx);
	});
	Finish(env, &out);
	if (SPI_finish() != SPI_OK_FINISH) elog(ERROR, "could not disconnect from SPI manager");
	if (current_call == nullptr) {  // the outermost call has succeeded
		CodeCacheFlush();
		GiveBackFreeMemory(ReduceHeap(env));
	}
	if (info->retset) {
		fcinfo->isnull = true;
		return (Datum)0;
	}
	fcinfo->isnull = out.isnull;
	return out.result;
}

Datum InlineHandler(const char *source, bool atomic) {
	if (SPI_connect_ext(atomic ? 0 : SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "could not connect to SPI manager");
	Env *env = CurrentEnv();
	Outcome out;
	memset(&out, 0, sizeof(out));
	CallState state;
	memset(&state, 0, sizeof(state));
	state.nonatomic = !atomic;
	RunJs(env, &state, &out, [&](v8::Local<v8::Context> cx) {
		std::string src = std::string("(function () {\n") + source + "\n})";
		v8::Local<v8::Function> fn;
		v8::Local<v8::Value> result;
		return Compile(env, src, "undefined", false).ToLocal(&fn) && fn->Call(cx, cx->Global(), 0, nullptr).ToLocal(&result);
	});
	Finish(env, &out);
	if (SPI_finish() != SPI_OK_FINISH) elog(ERROR, "could not disconnect from SPI manager");
	if (current_call == nullptr) CodeCacheFlush();
	return (Datum)0;
}

void Validate(Oid fn_oid) {
	FnInfo *info = GetFnInfo(fn_oid);
	Env *env = CurrentEnv();
	Outcome out;
	memset(&out, 0, sizeof(out));
	RunJs(env, nullptr, &out, [&](v8::Local<v8::Context> cx) {
		// Only compiled, never run: a body with side effects must not execute at CREATE.
		v8::Local<v8::Script> script;
		return CompileScript(env, std::string(info->source, info->source_len), info->proname, false).ToLocal(&script);
	});
	Finish(env, &out);
}

}  // namespace plv8
