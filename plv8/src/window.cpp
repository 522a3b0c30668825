// Window stage: plv8.get_window_object() for functions declared WINDOW, over PostgreSQL's
// window function API.
#include "plv8.h"

namespace plv8 {

namespace {

void GetWindowObject(const v8::FunctionCallbackInfo<v8::Value> &args) {
	ThrowJsError(args.GetIsolate(), "get_window_object is not supported");
}

}  // namespace

void InstallWindowApi(Env *env, v8::Local<v8::ObjectTemplate> plv8) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::External> data = v8::External::New(isolate, env);
	plv8->Set(NewString(isolate, "get_window_object"), v8::FunctionTemplate::New(isolate, GetWindowObject, data));
}

}  // namespace plv8
