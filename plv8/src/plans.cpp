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

void PrepareImpl(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	if (args.Length() < 1) {
		ThrowJsError(isolate, "prepare requires a query");
		return;
	}
	bool ok;
	std::string sql = ToStdString(isolate, args[0], &ok);
	if (!ok) return;
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
	if (!done) {
		AbortSub(env, &sx);
		return;
	}
	if (!CommitSub(env, &sx)) return;
	v8::Local<v8::Object> obj;
	if (!env->plan_template.Get(isolate)->NewInstance(cx).ToLocal(&obj)) return;
	obj->SetAlignedPointerInInternalField(0, plan);
	args.GetReturnValue().Set(obj);
}

void PlanExecute(const Args &args) {
	Env *env = EnvOf(args);
	Plan *plan = PlanOf(args);
	Scratch scratch;
	Datum *values;
	char *nulls;
	if (!PlanParams(env, plan, args, &values, &nulls)) return;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	int rc = 0;
	SPITupleTable *tt = nullptr;
	uint64 n = 0;
	bool ok = PgTry(env, [&] {
		if (plan->plan == nullptr) elog(ERROR, "plan has been freed");
		rc = SPI_execute_plan(plan->plan, values, nulls, false, 0);
		tt = SPI_tuptable;
		n = SPI_processed;
	});
	v8::Local<v8::Value> result;
	if (ok) ok = SpiResult(env, rc, tt, n, &plan->result).ToLocal(&result);
	if (tt != nullptr) PgTry(env, [&] { SPI_freetuptable(tt); }, true);
	if (ok) {
		if (CommitSub(env, &sx)) args.GetReturnValue().Set(result);
	} else {
		AbortSub(env, &sx);
	}
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
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	Plan *plan = PlanOf(args);
	Cursor *cur = nullptr;
	{
		Scratch scratch;
		Datum *values;
		char *nulls;
		if (!PlanParams(env, plan, args, &values, &nulls)) return;
		SubXact sx;
		if (!BeginSub(env, &sx)) return;
		bool ok = PgTry(env, [&] {
			if (plan->plan == nullptr) elog(ERROR, "plan has been freed");
			Portal portal = SPI_cursor_open(NULL, plan->plan, values, nulls, false);
			cur = static_cast<Cursor *>(MemoryContextAllocZero(TopMemoryContext, sizeof(Cursor)));
			strlcpy(cur->name, portal->name, NAMEDATALEN);
		});
		if (!ok) {
			AbortSub(env, &sx);
			return;
		}
		if (!CommitSub(env, &sx)) return;
	}
	v8::Local<v8::Object> obj;
	if (!env->cursor_template.Get(isolate)->NewInstance(cx).ToLocal(&obj)) return;
	obj->SetAlignedPointerInInternalField(0, cur);
	args.GetReturnValue().Set(obj);
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
	SPITupleTable *tt = nullptr;
	uint64 n = 0;
	bool ok = PgTry(env, [&] {
		SPI_cursor_fetch(portal, forward, count);
		tt = SPI_tuptable;
		n = SPI_processed;
	});
	v8::Local<v8::Value> result = v8::Undefined(isolate);
	if (ok && tt != nullptr && n > 0) {
		v8::Local<v8::Value> rows;
		ok = RowsToJs(env, tt, n).ToLocal(&rows);
		if (ok) {
			if (single) ok = rows.As<v8::Array>()->Get(cx, 0).ToLocal(&result);
			else result = rows;
		}
	}
	if (tt != nullptr) PgTry(env, [&] { SPI_freetuptable(tt); }, true);
	if (ok) {
		if (CommitSub(env, &sx)) args.GetReturnValue().Set(result);
	} else {
		AbortSub(env, &sx);
	}
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


void SetMethod(v8::Isolate *isolate, v8::Local<v8::ObjectTemplate> t, const char *name, v8::FunctionCallback cb,
               v8::Local<v8::External> data) {
	t->Set(NewString(isolate, name), v8::FunctionTemplate::New(isolate, cb, data));
}

}  // namespace

void Prepare(const Args &args) { PrepareImpl(args); }

void InstallPlanTemplates(Env *env, v8::Local<v8::External> data) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::ObjectTemplate> plan = v8::ObjectTemplate::New(isolate);
	plan->SetInternalFieldCount(1);
	SetMethod(isolate, plan, "execute", PlanExecute, data);
	SetMethod(isolate, plan, "cursor", PlanCursor, data);
	SetMethod(isolate, plan, "free", PlanFree, data);
	plan->Set(v8::Symbol::GetToStringTag(isolate), NewString(isolate, "PreparedPlan"));
	env->plan_template.Reset(isolate, plan);

	v8::Local<v8::ObjectTemplate> cursor = v8::ObjectTemplate::New(isolate);
	cursor->SetInternalFieldCount(1);
	SetMethod(isolate, cursor, "fetch", CursorFetch, data);
	SetMethod(isolate, cursor, "move", CursorMove, data);
	SetMethod(isolate, cursor, "close", CursorClose, data);
	cursor->Set(v8::Symbol::GetToStringTag(isolate), NewString(isolate, "Cursor"));
	env->cursor_template.Reset(isolate, cursor);
}

}  // namespace plv8
