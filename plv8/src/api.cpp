// API stage: the `plv8` object and level constants seen by JavaScript. Each database call runs
// inside a subtransaction so that a caught SQL error leaves the transaction usable.
#include <unordered_map>

#include "plv8.h"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_proc.h"
#include "commands/proclang.h"
#include "parser/parse_param.h"
#include "parser/parse_type.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/portal.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

namespace plv8 {

namespace {

using Args = v8::FunctionCallbackInfo<v8::Value>;

Env *EnvOf(const Args &args) { return static_cast<Env *>(args.Data().As<v8::External>()->Value()); }

// --- subtransactions ------------------------------------------------------

struct SubXact {
	MemoryContext cxt;
	ResourceOwner owner;
};

bool BeginSub(Env *env, SubXact *s) {
	s->cxt = CurrentMemoryContext;
	s->owner = CurrentResourceOwner;
	MemoryContext cxt = s->cxt;
	return PgTry(env, [&] {
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(cxt);
	});
}

bool CommitSub(Env *env, SubXact *s) {
	bool ok = PgTry(env, [&] { ReleaseCurrentSubTransaction(); }, true);
	MemoryContextSwitchTo(s->cxt);
	CurrentResourceOwner = s->owner;
	return ok;
}

void AbortSub(Env *env, SubXact *s) {
	v8::TryCatch keep(env->isolate);  // the original exception stays the one reported
	PgTry(env, [&] { RollbackAndReleaseCurrentSubTransaction(); }, true);
	MemoryContextSwitchTo(s->cxt);
	CurrentResourceOwner = s->owner;
}

// A scratch memory context per database call, so that long loops in one function do not
// accumulate conversion garbage until the function returns.
struct Scratch {
	MemoryContext old;
	MemoryContext cxt;
	explicit Scratch() {
		cxt = AllocSetContextCreate(CurrentMemoryContext, "plv8 database call", ALLOCSET_SMALL_SIZES);
		old = MemoryContextSwitchTo(cxt);
	}
	~Scratch() {
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
	}
};

// --- parameters -----------------------------------------------------------

struct VarParams {
	Oid *types;
	int n;
};

void VarParamSetup(ParseState *pstate, void *arg) {
	VarParams *v = static_cast<VarParams *>(arg);
	setup_parse_variable_parameters(pstate, &v->types, &v->n);
}

// Parameters come as an array or as the remaining arguments.
std::vector<v8::Local<v8::Value>> ParamValues(const Args &args, int first, bool *ok) {
	std::vector<v8::Local<v8::Value>> out;
	*ok = true;
	if (args.Length() <= first) return out;
	if (args.Length() == first + 1 && args[first]->IsArray()) {
		v8::Local<v8::Array> arr = args[first].As<v8::Array>();
		v8::Local<v8::Context> cx = args.GetIsolate()->GetCurrentContext();
		for (uint32_t i = 0; i < arr->Length(); i++) {
			v8::Local<v8::Value> v;
			if (!arr->Get(cx, i).ToLocal(&v)) {
				*ok = false;
				return out;
			}
			out.push_back(v);
		}
		return out;
	}
	if (args.Length() == first + 1 && args[first]->IsUndefined()) return out;
	for (int i = first; i < args.Length(); i++) out.push_back(args[i]);
	return out;
}

bool ConvertParams(Env *env, const std::vector<v8::Local<v8::Value>> &vals, TypeInfo **types, Datum *values,
                   char *nulls) {
	for (size_t i = 0; i < vals.size(); i++) {
		bool isnull;
		if (!ToDatum(env, vals[i], types[i], &values[i], &isnull)) return false;
		nulls[i] = isnull ? 'n' : ' ';
	}
	return true;
}

// --- results --------------------------------------------------------------

// Conversion info of a plan's result columns, kept with the plan and rebuilt only when the
// result's column types change.
struct ResultTypes {
	int natts;
	Oid *typids;
	TypeInfo **attrs;
	MemoryContext cxt;
};

TypeInfo **ResultAttrs(TupleDesc desc, ResultTypes *rt) {
	if (rt == nullptr) return AttrTypeInfos(desc, CurrentMemoryContext);
	bool same = rt->attrs != nullptr && rt->natts == desc->natts;
	for (int i = 0; same && i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		same = rt->typids[i] == (att->attisdropped ? InvalidOid : att->atttypid);
	}
	if (same) return rt->attrs;
	if (rt->cxt == nullptr) rt->cxt = AllocSetContextCreate(TopMemoryContext, "plv8 result types", ALLOCSET_SMALL_SIZES);
	else MemoryContextReset(rt->cxt);
	rt->attrs = nullptr;
	rt->natts = desc->natts;
	rt->typids = static_cast<Oid *>(MemoryContextAllocZero(rt->cxt, sizeof(Oid) * (desc->natts + 1)));
	for (int i = 0; i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		rt->typids[i] = att->attisdropped ? InvalidOid : att->atttypid;
	}
	rt->attrs = AttrTypeInfos(desc, rt->cxt);
	return rt->attrs;
}

v8::MaybeLocal<v8::Value> RowsToJs(Env *env, SPITupleTable *tt, uint64 n, ResultTypes *rt = nullptr) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	TupleDesc desc = tt->tupdesc;
	TypeInfo **attrs = nullptr;
	if (!PgTry(env, [&] { attrs = ResultAttrs(desc, rt); })) return {};
	std::vector<v8::Local<v8::String>> names(desc->natts);
	for (int i = 0; i < desc->natts; i++) names[i] = NewString(isolate, NameStr(TupleDescAttr(desc, i)->attname));
	v8::Local<v8::Array> rows = v8::Array::New(isolate, (int)n);
	for (uint64 r = 0; r < n; r++) {
		v8::Local<v8::Object> row;
		if (!TupleToJs(env, tt->vals[r], desc, attrs, names.data()).ToLocal(&row)) return {};
		if (rows->Set(cx, (uint32_t)r, row).IsNothing()) return {};
	}
	return rows;
}

v8::MaybeLocal<v8::Value> SpiResult(Env *env, int rc, SPITupleTable *tt, uint64 n, ResultTypes *rt = nullptr) {
	if (rc < 0) {
		ThrowJsError(env->isolate, SPI_result_code_string(rc));
		return {};
	}
	if (tt != nullptr) return RowsToJs(env, tt, n, rt);
	return v8::Number::New(env->isolate, (double)n);
}

// --- cached plans of plv8.execute ---------------------------------------------
// plv8.execute(sql, params) is called with the same texts over and over (a resolver runs the
// same statements on every request), so their plans are kept, keyed by the SQL text. The
// plan cache of PostgreSQL revalidates them after DDL or a search_path change.

struct ExecPlan {
	SPIPlanPtr plan;
	int nargs;
	TypeInfo **types;
	MemoryContext cxt;
	ResultTypes result;
	int busy;  // executions in progress; a busy plan is never evicted
};

const size_t kExecPlanCacheSize = 256;
std::unordered_map<std::string, ExecPlan *> &exec_plans = *new std::unordered_map<std::string, ExecPlan *>();

void EvictExecPlans() {
	for (auto it = exec_plans.begin(); it != exec_plans.end();) {
		ExecPlan *ep = it->second;
		if (ep->busy > 0) {
			++it;
			continue;
		}
		SPI_freeplan(ep->plan);
		if (ep->result.cxt != nullptr) MemoryContextDelete(ep->result.cxt);
		MemoryContextDelete(ep->cxt);
		it = exec_plans.erase(it);
	}
}

// Prepares `sql` with parameter types deduced from the statement, once. May raise errors.
ExecPlan *GetExecPlan(const std::string &sql, int nvals) {
	auto it = exec_plans.find(sql);
	if (it != exec_plans.end()) return it->second;
	VarParams vp = {nullptr, 0};
	SPIPlanPtr probe = SPI_prepare_params(sql.c_str(), VarParamSetup, &vp, 0);
	if (probe == nullptr) elog(ERROR, "SPI_prepare_params failed: %s", SPI_result_code_string(SPI_result));
	int n = vp.n;
	Oid *types = static_cast<Oid *>(palloc0(sizeof(Oid) * (n + 1)));
	for (int i = 0; i < n; i++)
		types[i] = vp.types[i] == InvalidOid || vp.types[i] == UNKNOWNOID ? TEXTOID : vp.types[i];
	SPI_freeplan(probe);
	if (n != nvals) return nullptr;  // the caller reports the mismatch
	SPIPlanPtr plan = SPI_prepare(sql.c_str(), n, types);
	if (plan == nullptr) elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	SPI_keepplan(plan);
	if (exec_plans.size() >= kExecPlanCacheSize) EvictExecPlans();
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "plv8 execute plan", ALLOCSET_SMALL_SIZES);
	ExecPlan *ep = static_cast<ExecPlan *>(MemoryContextAllocZero(cxt, sizeof(ExecPlan)));
	ep->plan = plan;
	ep->nargs = n;
	ep->cxt = cxt;
	ep->types = static_cast<TypeInfo **>(MemoryContextAllocZero(cxt, sizeof(TypeInfo *) * (n + 1)));
	for (int i = 0; i < n; i++) ep->types[i] = TypeInfoNew(types[i], -1, cxt);
	exec_plans[sql] = ep;
	return ep;
}

// --- plv8.execute -----------------------------------------------------------

bool ExecuteIn(Env *env, const char *sql, const std::vector<v8::Local<v8::Value>> &vals, v8::Local<v8::Value> *result) {
	int rc = 0;
	SPITupleTable *tt = nullptr;
	uint64 n = 0;
	if (vals.empty()) {
		if (!PgTry(env, [&] {
			    rc = SPI_execute(sql, false, 0);
			    tt = SPI_tuptable;
			    n = SPI_processed;
		    }))
			return false;
	} else {
		ExecPlan *ep = nullptr;
		const std::string text(sql);
		if (!PgTry(env, [&] { ep = GetExecPlan(text, (int)vals.size()); })) return false;
		if (ep == nullptr) {
			ThrowJsError(env->isolate, "parameter numbers mismatch");
			return false;
		}
		Datum *values = static_cast<Datum *>(palloc(sizeof(Datum) * ep->nargs));
		char *nulls = static_cast<char *>(palloc(ep->nargs + 1));
		if (!ConvertParams(env, vals, ep->types, values, nulls)) return false;
		ep->busy++;
		bool ran = PgTry(env, [&] {
			rc = SPI_execute_plan(ep->plan, values, nulls, false, 0);
			tt = SPI_tuptable;
			n = SPI_processed;
		});
		v8::Local<v8::Value> out;
		bool ok = ran && SpiResult(env, rc, tt, n, &ep->result).ToLocal(&out);
		ep->busy--;
		if (tt != nullptr) PgTry(env, [&] { SPI_freetuptable(tt); }, true);
		if (!ok) return false;
		*result = out;
		return true;
	}
	v8::Local<v8::Value> out;
	bool ok = SpiResult(env, rc, tt, n).ToLocal(&out);
	if (tt != nullptr) PgTry(env, [&] { SPI_freetuptable(tt); }, true);
	if (!ok) return false;
	*result = out;
	return true;
}

void Execute(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	if (args.Length() < 1) {
		ThrowJsError(isolate, "execute requires a query");
		return;
	}
	bool ok;
	std::string sql = ToStdString(isolate, args[0], &ok);
	if (!ok) return;
	std::vector<v8::Local<v8::Value>> vals = ParamValues(args, 1, &ok);
	if (!ok) return;
	Scratch scratch;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	v8::Local<v8::Value> result;
	if (ExecuteIn(env, sql.c_str(), vals, &result)) {
		if (CommitSub(env, &sx)) args.GetReturnValue().Set(result);
	} else {
		AbortSub(env, &sx);
	}
}

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

void Prepare(const Args &args) {
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

// --- other functions ----------------------------------------------------------

void Subtransaction(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	if (args.Length() < 1 || !args[0]->IsFunction()) {
		ThrowJsError(isolate, "argument must be a function");
		return;
	}
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	v8::Local<v8::Value> result;
	std::string message;
	bool failed = false, rethrow = false;
	{
		v8::TryCatch tc(isolate);
		if (args[0].As<v8::Function>()->Call(cx, v8::Undefined(isolate), 0, nullptr).ToLocal(&result)) {
			// fall through to commit
		} else if (tc.HasTerminated() || isolate->IsExecutionTerminating()) {
			rethrow = true;
			tc.ReThrow();
		} else {
			failed = true;
			bool ok;
			message = tc.HasCaught() ? ToStdString(isolate, tc.Exception(), &ok) : std::string();
			if (message.compare(0, 7, "Error: ") == 0) message = message.substr(7);
		}
	}
	if (rethrow || failed) {
		AbortSub(env, &sx);
		if (failed) ThrowJsError(isolate, message.c_str());
		return;
	}
	if (CommitSub(env, &sx)) args.GetReturnValue().Set(result);
}

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

void QuoteLiteral(const Args &args) {
	Env *env = EnvOf(args);
	bool ok;
	std::string s = ToStdString(env->isolate, args.Length() ? args[0] : v8::Undefined(env->isolate).As<v8::Value>(), &ok);
	if (!ok) return;
	char *q = quote_literal_cstr(s.c_str());
	args.GetReturnValue().Set(NewString(env->isolate, q));
	pfree(q);
}

void QuoteNullable(const Args &args) {
	Env *env = EnvOf(args);
	if (args.Length() < 1 || args[0]->IsNull() || args[0]->IsUndefined()) {
		args.GetReturnValue().Set(NewString(env->isolate, "NULL"));
		return;
	}
	QuoteLiteral(args);
}

void QuoteIdent(const Args &args) {
	Env *env = EnvOf(args);
	bool ok;
	std::string s = ToStdString(env->isolate, args.Length() ? args[0] : v8::Undefined(env->isolate).As<v8::Value>(), &ok);
	if (!ok) return;
	const char *q = quote_identifier(s.c_str());
	args.GetReturnValue().Set(NewString(env->isolate, q));
}

void FindFunction(const Args &args) {
	Env *env = EnvOf(args);
	v8::Isolate *isolate = env->isolate;
	bool ok;
	std::string sig = ToStdString(isolate, args.Length() ? args[0] : v8::Undefined(isolate).As<v8::Value>(), &ok);
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
	ReturnNext(env, args.Length() ? args[0] : v8::Undefined(env->isolate).As<v8::Value>());
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

void SetMethod(v8::Isolate *isolate, v8::Local<v8::ObjectTemplate> t, const char *name, v8::FunctionCallback cb,
               v8::Local<v8::External> data) {
	t->Set(NewString(isolate, name), v8::FunctionTemplate::New(isolate, cb, data));
}

}  // namespace

void InstallGlobals(Env *env, v8::Local<v8::Context> context) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::External> data = v8::External::New(isolate, env);

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
		env->json_stringify.Reset(isolate, fn.As<v8::Function>());
}

}  // namespace plv8
