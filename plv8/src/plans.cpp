// API stage, prepared statements: plv8.prepare, PreparedPlan (execute, cursor, free) and
// Cursor (fetch, move, close).
#include "spi.h"

extern "C" {
#include "access/xact.h"
#include "parser/parse_type.h"
#include "utils/builtins.h"
#include "utils/portal.h"
}

namespace plv8 {

namespace {

// --- plv8.prepare / PreparedPlan ------------------------------------------

struct Plan {
	SPIPlanPtr plan;
	int nargs;
	MemoryContext cxt;
	TypeInfo **types;
	ResultTypes result;
};

// What a freed plan points to: PLV8 reports such a plan as expecting -1 arguments.
Plan freed_plan = {nullptr, -1, nullptr, nullptr, {0, nullptr, nullptr, nullptr}};

Plan *PlanOf(const Args &args) {
	v8::Local<v8::Object> self = args.This();
	if (self->InternalFieldCount() < 1) return &freed_plan;
	Plan *p = static_cast<Plan *>(self->GetAlignedPointerFromInternalField(0));
	return p ? p : &freed_plan;
}

bool PlanParams(Env *env, Plan *plan, const Args &args, Datum **values, char **nulls) {
	bool ok;
	std::vector<v8::Local<v8::Value>> vals = ParamValues(args, 0, &ok);
	if (!ok) return false;
	// A freed plan expects -1 arguments, so no call gets past here with it.
	int nargs = plan->plan ? plan->nargs : -1;
	if ((int)vals.size() != nargs) {
		char buf[128];
		snprintf(buf, sizeof buf, "plan expected %d argument(s), given is %d", nargs, (int)vals.size());
		ThrowJsError(env->isolate, buf);
		return false;
	}
	*values = static_cast<Datum *>(palloc(sizeof(Datum) * (nargs + 1)));
	*nulls = static_cast<char *>(palloc(nargs + 1));
	return ConvertParams(env, vals, plan->types, *values, *nulls);
}

// A PreparedPlan or Cursor object around `p`; undefined when JavaScript is being stopped.
v8::Local<v8::Value> Wrap(Env *env, const v8::Global<v8::ObjectTemplate> &tmpl, void *p) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Object> obj;
	if (!tmpl.Get(isolate)->NewInstance(isolate->GetCurrentContext()).ToLocal(&obj)) return v8::Undefined(isolate);
	obj->SetAlignedPointerInInternalField(0, p);
	return obj;
}

}  // namespace

void Prepare(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	std::string sql;
	if (!QueryArg(args, "prepare", &sql)) return;
	bool ok;
	std::vector<std::string> typenames;
	bool typed = args.Length() > 1 && args[1]->IsArray();
	if (typed) {
		v8::Local<v8::Array> arr = args[1].As<v8::Array>();
		for (uint32_t i = 0; i < arr->Length(); i++) {
			v8::Local<v8::Value> v;
			if (!arr->Get(cx, i).ToLocal(&v)) return;
			typenames.push_back(ToStdString(isolate, v, &ok));
			if (!ok) return;
		}
	}
	Scratch scratch;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	Plan *plan = nullptr;
	const char *csql = sql.c_str();
	bool done = PgTry(env, [&] {
		int n = (int)typenames.size();
		Oid *types = static_cast<Oid *>(palloc0(sizeof(Oid) * (n + 1)));
		for (int i = 0; i < n; i++) {
			int32 typmod;
			parseTypeString(typenames[i].c_str(), &types[i], &typmod, false);
		}
		SPIPlanPtr p;
		if (typed) {
			p = SPI_prepare(csql, n, types);
		} else {
			// Deduce the parameter types once, then keep a plan with fixed types: a kept plan
			// must not refer back to this frame when it is revalidated.
			VarParams vp = {nullptr, 0};
			SPIPlanPtr probe = SPI_prepare_params(csql, VarParamSetup, &vp, 0);
			if (probe == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
			n = vp.n;
			types = static_cast<Oid *>(palloc0(sizeof(Oid) * (n + 1)));
			if (n > 0) memcpy(types, vp.types, sizeof(Oid) * n);
			SPI_freeplan(probe);
			for (int i = 0; i < n; i++)
				if (types[i] == InvalidOid || types[i] == UNKNOWNOID) types[i] = TEXTOID;
			p = SPI_prepare(csql, n, types);
		}
		if (p == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
		SPI_keepplan(p);
		MemoryContext pc = AllocSetContextCreate(TopMemoryContext, "plv8 plan", ALLOCSET_SMALL_SIZES);
		plan = static_cast<Plan *>(MemoryContextAllocZero(TopMemoryContext, sizeof(Plan)));
		plan->plan = p;
		plan->nargs = n;
		plan->cxt = pc;
		plan->types = static_cast<TypeInfo **>(MemoryContextAllocZero(pc, sizeof(TypeInfo *) * (n + 1)));
		for (int i = 0; i < n; i++) {
			Oid t = types[i] == InvalidOid || types[i] == UNKNOWNOID ? TEXTOID : types[i];
			plan->types[i] = TypeInfoNew(t, -1, pc);
		}
	});
	EndSub(env, &sx, done, args, done ? Wrap(env, env->plan_template, plan) : v8::Local<v8::Value>());
}

namespace {

void PlanExecute(const Args &args) {
	Env *env = EnvOf(args);
	Plan *plan = PlanOf(args);
	Scratch scratch;
	Datum *values;
	char *nulls;
	if (!PlanParams(env, plan, args, &values, &nulls)) return;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	SpiOutput o;
	v8::Local<v8::Value> result;
	bool ok = PgTry(env, [&] {
		o.Take(SPI_execute_plan(plan->plan, values, nulls, false, 0));
	}) && TakeResult(env, o, &plan->result, &result);
	EndSub(env, &sx, ok, args, result);
}

void PlanFree(const Args &args) {
	Env *env = EnvOf(args);
	Plan *plan = PlanOf(args);
	if (plan->plan == nullptr) return;
	args.This()->SetAlignedPointerInInternalField(0, nullptr);
	SPIPlanPtr p = plan->plan;
	MemoryContextDelete(plan->cxt);
	if (plan->result.cxt != nullptr) MemoryContextDelete(plan->result.cxt);
	pfree(plan);
	PgTry(env, [&] { SPI_freeplan(p); });
}

// --- cursors --------------------------------------------------------------

struct Cursor {
	char name[NAMEDATALEN];
};

void PlanCursor(const Args &args) {
	Env *env = EnvOf(args);
	Plan *plan = PlanOf(args);
	Cursor *cur = nullptr;
	Scratch scratch;
	Datum *values;
	char *nulls;
	if (!PlanParams(env, plan, args, &values, &nulls)) return;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	bool ok = PgTry(env, [&] {
		Portal portal = SPI_cursor_open(NULL, plan->plan, values, nulls, false);
		// The portal outlives this call; JavaScript finds it again by name.
		cur = static_cast<Cursor *>(MemoryContextAllocZero(TopMemoryContext, sizeof(Cursor)));
		strlcpy(cur->name, portal->name, NAMEDATALEN);
	});
	EndSub(env, &sx, ok, args, ok ? Wrap(env, env->cursor_template, cur) : v8::Local<v8::Value>());
}

Cursor *CursorOf(const Args &args) {
	v8::Local<v8::Object> self = args.This();
	if (self->InternalFieldCount() < 1) return nullptr;
	return static_cast<Cursor *>(self->GetAlignedPointerFromInternalField(0));
}

Portal FindPortal(Env *env, const Args &args) {
	Cursor *cur = CursorOf(args);
	Portal portal = cur ? SPI_cursor_find(cur->name) : nullptr;
	if (portal == nullptr) ThrowJsError(env->isolate, "cannot find cursor");
	return portal;
}

void CursorFetch(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	Portal portal = FindPortal(env, args);
	if (portal == nullptr) return;
	bool single = args.Length() < 1 || args[0]->IsUndefined();
	long count = 1;
	if (!single) {
		double d;
		if (!args[0]->NumberValue(cx).To(&d)) return;
		count = (long)d;
	}
	bool forward = count >= 0;
	if (count < 0) count = -count;
	Scratch scratch;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	SpiOutput o;
	bool ok = PgTry(env, [&] {
		SPI_cursor_fetch(portal, forward, count);
		o.Take(SPI_OK_FETCH);
	});
	v8::Local<v8::Value> result = v8::Undefined(isolate);  // no rows left
	if (ok && o.tt != nullptr && o.n > 0) {
		v8::Local<v8::Value> rows;
		ok = RowsToJs(env, o.tt, o.n).ToLocal(&rows);
		if (ok && single) ok = rows.As<v8::Array>()->Get(cx, 0).ToLocal(&result);
		else if (ok) result = rows;
	}
	FreeRows(env, o);
	EndSub(env, &sx, ok, args, result);
}

void CursorMove(const Args &args) {
	Env *env = EnvOf(args);
	v8::Local<v8::Context> cx = env->isolate->GetCurrentContext();
	Portal portal = FindPortal(env, args);
	if (portal == nullptr) return;
	double d = 1;
	if (args.Length() > 0 && !args[0]->NumberValue(cx).To(&d)) return;
	long count = (long)d;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	if (PgTry(env, [&] { SPI_cursor_move(portal, count >= 0, count >= 0 ? count : -count); }))
		CommitSub(env, &sx);
	else
		AbortSub(env, &sx);
}

void CursorClose(const Args &args) {
	Env *env = EnvOf(args);
	Cursor *cur = CursorOf(args);
	Portal portal = FindPortal(env, args);
	if (portal == nullptr) return;
	if (PgTry(env, [&] { SPI_cursor_close(portal); })) {
		args.This()->SetAlignedPointerInInternalField(0, nullptr);
		pfree(cur);
	}
}

}  // namespace

void InstallPlanTemplates(Env *env, v8::Local<v8::External> data) {
	v8::Isolate *isolate = env->isolate;
	env->plan_template.Reset(
	    isolate, WrapperTemplate(isolate, "PreparedPlan",
	                             {{"execute", PlanExecute}, {"cursor", PlanCursor}, {"free", PlanFree}}, data));
	env->cursor_template.Reset(
	    isolate, WrapperTemplate(isolate, "Cursor", {{"fetch", CursorFetch}, {"move", CursorMove}, {"close", CursorClose}},
	                             data));
}

}  // namespace plv8
