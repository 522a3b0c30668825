// Trigger stage: TriggerData -> the arguments of a trigger function (NEW, OLD, TG_*), and its
// return value -> the row PostgreSQL goes on with.
#include "plv8.h"

extern "C" {
#include "commands/trigger.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace plv8 {

// The parameter names of every trigger function, in argument order.
const char *const kTriggerArgNames[kTriggerArgCount] = {
    "NEW", "OLD", "TG_NAME", "TG_WHEN", "TG_LEVEL", "TG_OP", "TG_RELID", "TG_TABLE_NAME", "TG_TABLE_SCHEMA", "TG_ARGV"};

bool TriggerArgs(Env *env, TriggerData *td, TypeInfo **attrs, v8::Local<v8::Value> *argv) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	Relation rel = td->tg_relation;
	TupleDesc desc = RelationGetDescr(rel);
	for (int i = 0; i < kTriggerArgCount; i++) argv[i] = v8::Undefined(isolate);
	bool row = TRIGGER_FIRED_FOR_ROW(td->tg_event);
	if (row) {
		v8::Local<v8::Object> o;
		if (TRIGGER_FIRED_BY_INSERT(td->tg_event)) {
			if (!TupleToJs(env, td->tg_trigtuple, desc, attrs, nullptr).ToLocal(&o)) return false;
			argv[0] = o;
		} else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event)) {
			if (!TupleToJs(env, td->tg_newtuple, desc, attrs, nullptr).ToLocal(&o)) return false;
			argv[0] = o;
			if (!TupleToJs(env, td->tg_trigtuple, desc, attrs, nullptr).ToLocal(&o)) return false;
			argv[1] = o;
		} else if (TRIGGER_FIRED_BY_DELETE(td->tg_event)) {
			if (!TupleToJs(env, td->tg_trigtuple, desc, attrs, nullptr).ToLocal(&o)) return false;
			argv[1] = o;
		}
	}
	argv[2] = NewString(isolate, td->tg_trigger->tgname);
	argv[3] = NewString(isolate, TRIGGER_FIRED_BEFORE(td->tg_event)    ? "BEFORE"
	                            : TRIGGER_FIRED_AFTER(td->tg_event)   ? "AFTER"
	                                                                  : "INSTEAD OF");
	argv[4] = NewString(isolate, row ? "ROW" : "STATEMENT");
	argv[5] = NewString(isolate, TRIGGER_FIRED_BY_INSERT(td->tg_event)   ? "INSERT"
	                            : TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? "UPDATE"
	                            : TRIGGER_FIRED_BY_DELETE(td->tg_event) ? "DELETE"
	                                                                    : "TRUNCATE");
	argv[6] = v8::Integer::NewFromUnsigned(isolate, RelationGetRelid(rel));
	argv[7] = NewString(isolate, RelationGetRelationName(rel));
	char *nsp = nullptr;
	if (!PgTry(env, [&] { nsp = get_namespace_name(RelationGetNamespace(rel)); })) return false;
	argv[8] = NewString(isolate, nsp ? nsp : "");
	v8::Local<v8::Array> targv = v8::Array::New(isolate, td->tg_trigger->tgnargs);
	for (int i = 0; i < td->tg_trigger->tgnargs; i++) {
		const char *arg = td->tg_trigger->tgargs[i];
		v8::Local<v8::String> s;
		if (!NewText(env, arg, strlen(arg)).ToLocal(&s) || targv->Set(cx, i, s).IsNothing()) return false;
	}
	argv[9] = targv;
	return true;
}

bool TriggerResult(Env *env, TriggerData *td, TypeInfo **attrs, v8::Local<v8::Value> result,
                   MemoryContext callercxt, Datum *out) {
	if (!TRIGGER_FIRED_FOR_ROW(td->tg_event) || TRIGGER_FIRED_AFTER(td->tg_event)) {
		*out = PointerGetDatum(nullptr);
		return true;
	}
	HeapTuple orig = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
	if (result->IsNull()) {
		*out = PointerGetDatum(nullptr);
		return true;
	}
	if (result->IsUndefined() || TRIGGER_FIRED_BY_DELETE(td->tg_event)) {
		*out = PointerGetDatum(orig);
		return true;
	}
	HeapTuple tuple;
	MemoryContext old = MemoryContextSwitchTo(callercxt);
	bool ok = ObjectToTuple(env, result, RelationGetDescr(td->tg_relation), attrs, &tuple, true);
	MemoryContextSwitchTo(old);
	if (!ok) return false;
	*out = PointerGetDatum(tuple);
	return true;
}

}  // namespace plv8
