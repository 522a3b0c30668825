// API stage, database access: plv8.execute and plv8.subtransaction, and the helpers shared
// with prepared plans. Each call runs in a subtransaction, so a caught SQL error leaves the
// transaction usable.
#include <unordered_map>

#include "spi.h"

extern "C" {
#include "access/xact.h"
#include "parser/parse_param.h"
}

namespace plv8 {

// --- subtransactions ------------------------------------------------------

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

void EndSub(Env *env, SubXact *s, bool ok, const Args &args, v8::Local<v8::Value> result) {
	if (!ok) {
		AbortSub(env, s);
		return;
	}
	if (CommitSub(env, s)) args.GetReturnValue().Set(result);
}

// --- parameters -----------------------------------------------------------

void VarParamSetup(ParseState *pstate, void *arg) {
	VarParams *v = static_cast<VarParams *>(arg);
	setup_parse_variable_parameters(pstate, &v->types, &v->n);
}

bool QueryArg(const Args &args, const char *fn, std::string *sql) {
	v8::Isolate *isolate = args.GetIsolate();
	if (args.Length() < 1) {
		std::string m = std::string(fn) + " requires a query";
		ThrowJsError(isolate, m.c_str());
		return false;
	}
	bool ok;
	*sql = ToStdString(isolate, args[0], &ok);
	return ok;
}

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

v8::MaybeLocal<v8::Value> RowsToJs(Env *env, SPITupleTable *tt, uint64 n, ResultTypes *rt) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	TupleDesc desc = tt->tupdesc;
	TypeInfo **attrs = nullptr;
	if (!PgTry(env, [&] { attrs = ResultAttrs(desc, rt); })) return {};
	std::vector<v8::Local<v8::String>> names(desc->natts);
	for (int i = 0; i < desc->natts; i++) names[i] = NewString(isolate, NameStr(TupleDescAttr(desc, i)->attname));
	v8::Local<v8::Array> rows = NewArray(isolate, n);
	for (uint64 r = 0; r < n; r++) {
		v8::Local<v8::Object> row;
		if (!TupleToJs(env, tt->vals[r], desc, attrs, names.data()).ToLocal(&row)) return {};
		if (rows->Set(cx, (uint32_t)r, row).IsNothing()) return {};
	}
	return rows;
}

void FreeRows(Env *env, const SpiOutput &o) {
	if (o.tt != nullptr) PgTry(env, [&] { SPI_freetuptable(o.tt); }, true);
}

bool TakeResult(Env *env, const SpiOutput &o, ResultTypes *rt, v8::Local<v8::Value> *out) {
	bool ok = true;
	if (o.rc < 0) {
		ThrowJsError(env->isolate, SPI_result_code_string(o.rc));
		ok = false;
	} else if (o.tt != nullptr) {
		ok = RowsToJs(env, o.tt, o.n, rt).ToLocal(out);
	} else {
		*out = v8::Number::New(env->isolate, (double)o.n);
	}
	FreeRows(env, o);
	return ok;
}


namespace {

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


}  // namespace

// --- plv8.execute -----------------------------------------------------------

bool ExecuteIn(Env *env, const char *sql, const std::vector<v8::Local<v8::Value>> &vals, v8::Local<v8::Value> *result) {
	SpiOutput o;
	if (vals.empty())  // no parameters: run as text, so that several statements may be given
		return PgTry(env, [&] { o.Take(SPI_execute(sql, false, 0)); }) && TakeResult(env, o, nullptr, result);
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
	bool ok = PgTry(env, [&] { o.Take(SPI_execute_plan(ep->plan, values, nulls, false, 0)); }) &&
	          TakeResult(env, o, &ep->result, result);
	ep->busy--;
	return ok;
}

void Execute(const Args &args) {
	Env *env = EnvOf(args);
	std::string sql;
	if (!QueryArg(args, "execute", &sql)) return;
	bool ok;
	std::vector<v8::Local<v8::Value>> vals = ParamValues(args, 1, &ok);
	if (!ok) return;
	Scratch scratch;
	SubXact sx;
	if (!BeginSub(env, &sx)) return;
	v8::Local<v8::Value> result;
	bool done = ExecuteIn(env, sql.c_str(), vals, &result);
	EndSub(env, &sx, done, args, result);
}


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


}  // namespace plv8
