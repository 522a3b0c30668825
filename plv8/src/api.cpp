// API stage: the `plv8` object and level constants seen by JavaScript: messages, quoting,
// function lookup, set results, transaction control and the database-access callbacks.
#include "spi.h"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_proc.h"
#include "commands/proclang.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

namespace plv8 {

namespace {

bool ValidLevel(int level) {
	return (level >= DEBUG5 && level <= DEBUG1) || level == LOG || level == INFO || level == NOTICE ||
	       level == WARNING || level == ERROR;
}

void Elog(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	int level = 0;
	if (args.Length() > 0 && !args[0]->Int32Value(cx).To(&level)) return;
	if (!ValidLevel(level)) {
		ThrowJsError(isolate, "invalid error level");
		return;
	}
	std::string msg;
	for (int i = 1; i < args.Length(); i++) {
		bool ok;
		std::string part = ToStdString(isolate, args[i], &ok);
		if (!ok) return;
		if (i > 1) msg += ' ';
		msg += part;
	}
	if (level == ERROR) {
		ThrowJsError(isolate, msg.c_str());
		return;
	}
	const char *m = msg.c_str();
	PgTry(env, [&] { ereport(level, (errmsg("%s", m))); });
}

// quote_literal / quote_ident: the quoted text can outgrow both PostgreSQL's allocation limit
// and V8's string limit, so both steps report errors instead of failing silently.
void Quote(const Args &args, bool literal) {
	Env *env = EnvOf(args);
	bool ok;
	std::string s = ToStdString(env->isolate, args[0], &ok);
	if (!ok) return;
	const char *in = s.c_str();
	const char *q = nullptr;
	if (!PgTry(env, [&] { q = literal ? quote_literal_cstr(in) : quote_identifier(in); })) return;
	v8::Local<v8::String> out;
	if (NewText(env, q, strlen(q)).ToLocal(&out)) args.GetReturnValue().Set(out);
	if (q != in) pfree(const_cast<char *>(q));
}

void QuoteLiteral(const Args &args) { Quote(args, true); }

void QuoteNullable(const Args &args) {
	Env *env = EnvOf(args);
	if (args.Length() < 1 || args[0]->IsNull() || args[0]->IsUndefined()) {
		args.GetReturnValue().Set(NewString(env->isolate, "NULL"));
		return;
	}
	QuoteLiteral(args);
}

void QuoteIdent(const Args &args) { Quote(args, false); }

void FindFunction(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	bool ok;
	std::string sig = ToStdString(isolate, args[0], &ok);
	if (!ok) return;
	const char *s = sig.c_str();
	Oid fn = InvalidOid;
	bool is_plv8 = false, allowed = false;
	if (!PgTry(env, [&] {
		    if (strchr(s, '(') != nullptr) fn = DatumGetObjectId(DirectFunctionCall1(regprocedurein, CStringGetDatum(s)));
		    else fn = DatumGetObjectId(DirectFunctionCall1(regprocin, CStringGetDatum(s)));
		    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
		    if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for function %u", fn);
		    Oid lang = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->prolang;
		    ReleaseSysCache(tup);
		    is_plv8 = lang == get_language_oid("plv8", true);
		    allowed = pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
		    if (is_plv8 && !allowed)
			    ereport(WARNING, (errmsg("failed to find or no permission for js function %s", s)));
	    }))
		return;
	if (!is_plv8) {
		std::string m = "javascript function is not found for \"" + sig + "\"";
		ThrowJsError(isolate, m.c_str());
		return;
	}
	if (!allowed) return;
	v8::Local<v8::Function> f;
	if (FindCompiled(env, fn).ToLocal(&f)) args.GetReturnValue().Set(f);
}

void ReturnNextFn(const Args &args) {
	Env *env = EnvOf(args);
	ReturnNext(env, args[0]);  // undefined when not given
}

void MemoryUsage(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	std::string json = HeapStatsJson(isolate, false, InvalidOid);
	v8::Local<v8::Value> v;
	if (v8::JSON::Parse(isolate->GetCurrentContext(), NewString(isolate, json.c_str())).ToLocal(&v))
		args.GetReturnValue().Set(v);
}

void RunScript(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	if (args.Length() < 1) return;
	v8::Local<v8::String> src;
	if (!args[0]->ToString(cx).ToLocal(&src)) return;
	v8::Local<v8::Value> name = args.Length() > 1 ? args[1] : NewString(isolate, "undefined").As<v8::Value>();
	v8::ScriptOrigin origin(isolate, name);
	v8::Local<v8::Script> script;
	if (!v8::Script::Compile(cx, src, &origin).ToLocal(&script)) return;
	v8::Local<v8::Value> result;
	if (script->Run(cx).ToLocal(&result)) args.GetReturnValue().Set(result);
}

void Commit(const Args &args) {
	Env *env = EnvOf(args);
	PgTry(env, [&] { SPI_commit(); });
}

void Rollback(const Args &args) {
	Env *env = EnvOf(args);
	PgTry(env, [&] { SPI_rollback(); });
}

}  // namespace

void SetMethod(v8::Isolate *isolate, v8::Local<v8::ObjectTemplate> t, const char *name, v8::FunctionCallback cb,
               v8::Local<v8::External> data) {
	t->Set(NewString(isolate, name), v8::FunctionTemplate::New(isolate, cb, data));
}

v8::Local<v8::ObjectTemplate> WrapperTemplate(v8::Isolate *isolate, const char *tag, std::initializer_list<Method> methods,
                                              v8::Local<v8::External> data) {
	v8::Local<v8::ObjectTemplate> t = v8::ObjectTemplate::New(isolate);
	t->SetInternalFieldCount(1);
	for (const Method &m : methods) SetMethod(isolate, t, m.name, m.fn, data);
	t->Set(v8::Symbol::GetToStringTag(isolate), NewString(isolate, tag));
	return t;
}

void InstallGlobals(Env *env, v8::Local<v8::Context> context) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::External> data = v8::External::New(isolate, env);

	InstallPlanTemplates(env, data);

	v8::Local<v8::ObjectTemplate> t = v8::ObjectTemplate::New(isolate);
	SetMethod(isolate, t, "execute", Execute, data);
	SetMethod(isolate, t, "prepare", Prepare, data);
	SetMethod(isolate, t, "subtransaction", Subtransaction, data);
	SetMethod(isolate, t, "elog", Elog, data);
	SetMethod(isolate, t, "quote_literal", QuoteLiteral, data);
	SetMethod(isolate, t, "quote_nullable", QuoteNullable, data);
	SetMethod(isolate, t, "quote_ident", QuoteIdent, data);
	SetMethod(isolate, t, "find_function", FindFunction, data);
	SetMethod(isolate, t, "return_next", ReturnNextFn, data);
	SetMethod(isolate, t, "memory_usage", MemoryUsage, data);
	SetMethod(isolate, t, "run_script", RunScript, data);
	SetMethod(isolate, t, "commit", Commit, data);
	SetMethod(isolate, t, "rollback", Rollback, data);
	InstallWindowApi(env, t);
	t->Set(NewString(isolate, "version"), NewString(isolate, PLV8_VERSION_STR));

	v8::Local<v8::Object> global = context->Global();
	v8::Local<v8::Object> plv8obj;
	if (t->NewInstance(context).ToLocal(&plv8obj) && global->Set(context, NewString(isolate, "plv8"), plv8obj).IsNothing()) return;
	struct {
		const char *name;
		int level;
	} levels[] = {{"DEBUG5", DEBUG5}, {"DEBUG4", DEBUG4}, {"DEBUG3", DEBUG3}, {"DEBUG2", DEBUG2},
	              {"DEBUG1", DEBUG1}, {"DEBUG", DEBUG5}, {"LOG", LOG},       {"INFO", INFO},
	              {"NOTICE", NOTICE}, {"WARNING", WARNING}, {"ERROR", ERROR}};
	for (auto &l : levels)
		if (global->Set(context, NewString(isolate, l.name), v8::Integer::New(isolate, l.level)).IsNothing()) return;

	// JSON text for json/jsonb results: BigInt becomes its decimal string. The original
	// JSON.stringify is captured so that scripts replacing it do not change conversions.
	const char *helper =
	    "(function (stringify) {"
	    "  const replacer = function (k, v) { return typeof v === 'bigint' ? v.toString() : v; };"
	    "  return function (v) { return stringify(v, replacer); };"
	    "})(JSON.stringify)";
	v8::Local<v8::Script> script;
	v8::Local<v8::Value> fn;
	if (v8::Script::Compile(context, NewString(isolate, helper)).ToLocal(&script) && script->Run(context).ToLocal(&fn) &&
	    fn->IsFunction())
		env->cx->json_stringify.Reset(isolate, fn.As<v8::Function>());
}

}  // namespace plv8
