// Context stage: plv8.context -> the global object a call runs in. Each user's isolate has
// its default context (which runs the start procedure) and up to plv8.context_cache_size
// named ones, least recently used dropped first; named contexts run no start procedure.
#include <algorithm>

#include "plv8.h"

extern "C" {
#include "utils/guc.h"
}

namespace plv8 {

char *context_name = nullptr;
int context_cache_size = 8;

namespace {

// A new context with the plv8 object installed, made the current one of `env`.
JsContext *NewContext(Env *env, const char *name) {
	v8::Isolate *isolate = env->isolate;
	JsContext *cx = new JsContext();
	cx->name = name;
	env->cx = cx;
	v8::Isolate::Scope iscope(isolate);
	v8::HandleScope hscope(isolate);
	v8::Local<v8::Context> context = v8::Context::New(isolate, nullptr, v8::ObjectTemplate::New(isolate));
	cx->context.Reset(isolate, context);
	v8::Context::Scope cscope(context);
	InstallGlobals(env, context);
	return cx;
}

void DisposeContext(JsContext *cx) {
	ForgetCompiled(cx);
	ForgetReceivers(cx);
	cx->json_stringify.Reset();
	cx->context.Reset();
	delete cx;
}

// The default context, created on first use with the start (or boot) procedure run in it.
void UseDefaultContext(Env *env) {
	if (env->default_cx != nullptr) {
		env->cx = env->default_cx;
		return;
	}
	JsContext *cx = NewContext(env, "");
	env->default_cx = cx;
	v8::Isolate *isolate = env->isolate;
	bool stopped;
	{
		v8::Isolate::Scope iscope(isolate);
		v8::HandleScope hscope(isolate);
		v8::Local<v8::Context> context = cx->context.Get(isolate);
		v8::Context::Scope cscope(context);
		EnterJs(env);
		v8::TryCatch tc(isolate);
		RunStartProc(env, context);
		bool terminated = tc.HasTerminated() || isolate->IsExecutionTerminating();
		if (tc.HasCaught() && !terminated) {
			// A failing start procedure does not stop the context; PLV8 goes on as well.
			bool ok;
			std::string text = ToStdString(isolate, tc.Exception(), &ok);
			PgTry(env, [&] { ereport(WARNING, (errmsg("plv8.start_proc failed: %s", text.c_str()))); });
		}
		stopped = LeaveJs(env, terminated);
	}
	// An interrupt or the memory limit hit while the start procedure ran ends the statement;
	// the half-started environment goes, so the next call runs the start procedure again.
	if (stopped) {
		env->doomed = true;
		RaiseTermination(env);
	}
}

void UseNamedContext(Env *env, const char *name) {
	auto it = std::find_if(env->named.begin(), env->named.end(), [&](JsContext *c) { return c->name == name; });
	if (it != env->named.end()) {
		JsContext *cx = *it;
		env->named.erase(it);
		env->named.insert(env->named.begin(), cx);
		env->cx = cx;
		return;
	}
	while (!env->named.empty() && env->named.size() >= static_cast<size_t>(context_cache_size)) {
		DisposeContext(env->named.back());
		env->named.pop_back();
	}
	env->named.insert(env->named.begin(), NewContext(env, name));
}

}  // namespace

void SelectContext(Env *env) {
	const char *name = context_name != nullptr ? context_name : "";
	if (env->cx != nullptr && env->cx->name == name) return;
	if (name[0] == '\0') UseDefaultContext(env);
	else UseNamedContext(env, name);
}

void ForgetContexts(Env *env) {
	for (JsContext *cx : env->named) DisposeContext(cx);
	env->named.clear();
	if (env->default_cx != nullptr) DisposeContext(env->default_cx);
	env->default_cx = nullptr;
	env->cx = nullptr;
}

std::string ContextNamesJson(Env *env) {
	std::string out = "[";
	for (JsContext *cx : env->named) out += (out.size() > 1 ? "," : "") + JsonString(cx->name);
	return out + "]";
}

bool CheckContextName(char **newval, void **extra, GucSource source) {
	if (!JsRunning()) return true;
	GUC_check_errcode(ERRCODE_OBJECT_IN_USE);
	GUC_check_errmsg("cannot change plv8.context while a plv8 function is running");
	return false;
}

}  // namespace plv8
