// Error boundary: PostgreSQL errors caught around SPI calls become JavaScript exceptions,
// and uncaught JavaScript exceptions become PostgreSQL errors once V8 scopes are left.
#include "plv8.h"

namespace plv8 {

static void SetIf(v8::Isolate *isolate, v8::Local<v8::Context> cx, v8::Local<v8::Object> obj,
                  const char *key, const char *value) {
	if (value == nullptr) return;
	if (obj->Set(cx, NewString(isolate, key), NewString(isolate, ClipErrorText(value).c_str())).IsNothing()) return;
}

void ThrowPgError(Env *env, ErrorData *edata) {
	if (IsUncatchable(env, edata)) {
		SetPendingError(edata);
		ForceTerminate(env);
		return;
	}
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	std::string message = ClipErrorText(edata->message ? edata->message : "");
	v8::Local<v8::Value> ex = v8::Exception::Error(NewString(isolate, message.c_str()));
	v8::Local<v8::Object> obj;
	if (ex->ToObject(cx).ToLocal(&obj)) {
		const char *code = unpack_sql_state(edata->sqlerrcode);
		SetIf(isolate, cx, obj, "sqlerrcode", code);
		SetIf(isolate, cx, obj, "code", code);
		SetIf(isolate, cx, obj, "schema_name", edata->schema_name);
		SetIf(isolate, cx, obj, "table_name", edata->table_name);
		SetIf(isolate, cx, obj, "column_name", edata->column_name);
		SetIf(isolate, cx, obj, "datatype_name", edata->datatype_name);
		SetIf(isolate, cx, obj, "constraint_name", edata->constraint_name);
		SetIf(isolate, cx, obj, "detail", edata->detail);
		SetIf(isolate, cx, obj, "hint", edata->hint);
		SetIf(isolate, cx, obj, "context", edata->context);
		SetIf(isolate, cx, obj, "internalquery", edata->internalquery);
	}
	FreeErrorData(edata);
	isolate->ThrowException(ex);
}

static char *GetStringProp(v8::Isolate *isolate, v8::Local<v8::Context> cx, v8::Local<v8::Object> obj,
                           const char *key) {
	v8::Local<v8::Value> v;
	if (!obj->Get(cx, NewString(isolate, key)).ToLocal(&v)) return nullptr;
	if (v->IsUndefined() || v->IsNull()) return nullptr;
	bool ok;
	std::string s = ToStdString(isolate, v, &ok);
	return ok ? pstrdup(ClipErrorText(std::move(s)).c_str()) : nullptr;
}

static bool IsSqlState(const char *s) {
	if (s == nullptr || strlen(s) != 5) return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'A' && *c <= 'Z'))) return false;
	return true;
}

void CaptureJsError(Env *env, v8::TryCatch &tc, JsError *out) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	memset(out, 0, sizeof(*out));
	out->set = true;
	v8::Local<v8::Value> ex = tc.Exception();
	v8::Local<v8::Message> msg = tc.Message();
	v8::TryCatch inner(isolate);

	bool ok = false;
	std::string text;
	if (!ex.IsEmpty()) text = ToStdString(isolate, ex, &ok);
	if (!ok && !msg.IsEmpty()) text = ToStdString(isolate, msg->Get(), &ok);
	if (text.compare(0, 7, "Error: ") == 0) text = text.substr(7);
	out->message = pstrdup(ClipErrorText(std::move(text)).c_str());

	if (!ex.IsEmpty() && ex->IsObject()) {
		v8::Local<v8::Object> obj = ex.As<v8::Object>();
		char *code = GetStringProp(isolate, cx, obj, "sqlerrcode");
		if (!IsSqlState(code)) code = GetStringProp(isolate, cx, obj, "code");
		if (IsSqlState(code))
			out->sqlerrcode = MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4]);
		out->detail = GetStringProp(isolate, cx, obj, "detail");
		out->hint = GetStringProp(isolate, cx, obj, "hint");
		out->schema_name = GetStringProp(isolate, cx, obj, "schema_name");
		out->table_name = GetStringProp(isolate, cx, obj, "table_name");
		out->column_name = GetStringProp(isolate, cx, obj, "column_name");
		out->datatype_name = GetStringProp(isolate, cx, obj, "datatype_name");
		out->constraint_name = GetStringProp(isolate, cx, obj, "constraint_name");
		// A context given by the script wins; one copied from a PostgreSQL error does not,
		// since PLV8 reports where the script was when it failed.
		char *ctx = GetStringProp(isolate, cx, obj, "context");
		if (ctx != nullptr && out->sqlerrcode == 0) out->context = ctx;
	}
	if (out->context == nullptr && !msg.IsEmpty()) {
		int line = msg->GetLineNumber(cx).FromMaybe(0);
		v8::Local<v8::String> src;
		if (line > 0 && msg->GetSourceLine(cx).ToLocal(&src)) {
			std::string name = ToStdString(isolate, msg->GetScriptResourceName(), &ok);
			std::string source = ToStdString(isolate, src, &ok);
			std::string c = name + "() LINE " + std::to_string(line) + ": " + source;
			out->context = pstrdup(ClipErrorText(std::move(c)).c_str());
		}
	}
}

void RaiseJsError(const JsError *err) {
	int code = err->sqlerrcode ? err->sqlerrcode : ERRCODE_INTERNAL_ERROR;
	ereport(ERROR,
	        (errcode(code), errmsg("%s", err->message ? err->message : ""),
	         err->detail ? errdetail("%s", err->detail) : 0,
	         err->hint ? errhint("%s", err->hint) : 0,
	         err->context ? errcontext("%s", err->context) : 0,
	         err->schema_name ? err_generic_string(PG_DIAG_SCHEMA_NAME, err->schema_name) : 0,
	         err->table_name ? err_generic_string(PG_DIAG_TABLE_NAME, err->table_name) : 0,
	         err->column_name ? err_generic_string(PG_DIAG_COLUMN_NAME, err->column_name) : 0,
	         err->datatype_name ? err_generic_string(PG_DIAG_DATATYPE_NAME, err->datatype_name) : 0,
	         err->constraint_name ? err_generic_string(PG_DIAG_CONSTRAINT_NAME, err->constraint_name) : 0));
	pg_unreachable();
}

}  // namespace plv8
