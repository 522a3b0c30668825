// Function stage: a pg_proc row -> what calling the function needs (argument and result types,
// names, and its source wrapped as a function expression), kept per function oid until the row
// changes.
#include <unordered_map>

#include "fninfo.h"

extern "C" {
#include "catalog/pg_proc.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace plv8 {
namespace {

std::unordered_map<Oid, FnInfo *> fn_infos;

std::string FunctionSource(FnInfo *info, const char *body) {
	std::string s = "(function (";
	if (info->is_trigger) {
		for (int i = 0; i < kTriggerArgCount; i++) {
			if (i) s += ", ";
			s += kTriggerArgNames[i];
		}
	} else {
		for (int i = 0; i < info->nargs; i++) {
			if (i) s += ", ";
			s += info->argnames[i];
		}
	}
	s += ") {\n";
	s += body;
	s += "\n})";
	return s;
}

}  // namespace

FnInfo *GetFnInfo(Oid fn_oid) {
	HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for function %u", fn_oid);
	auto it = fn_infos.find(fn_oid);
	if (it != fn_infos.end()) {
		FnInfo *info = it->second;
		if (info->xmin == HeapTupleHeaderGetRawXmin(tup->t_data) && ItemPointerEquals(&info->tid, &tup->t_self)) {
			ReleaseSysCache(tup);
			return info;
		}
		// The old entry may still be in use by an outer call; it stays allocated.
		fn_infos.erase(it);
	}
	Form_pg_proc proc = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup));
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "plv8 function", ALLOCSET_SMALL_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	FnInfo *info = static_cast<FnInfo *>(palloc0(sizeof(FnInfo)));
	info->oid = fn_oid;
	info->xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
	info->tid = tup->t_self;
	info->cxt = cxt;
	info->proname = pstrdup(NameStr(proc->proname));
	bool isnull;
	Datum src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
	char *body = isnull ? pstrdup("") : TextDatumGetCString(src);
	info->prokind = proc->prokind;
	info->rettype = proc->prorettype;
	info->retset = proc->proretset;
	info->is_trigger = proc->prorettype == TRIGGEROID;

	Oid *types;
	char **names;
	char *modes;
	int total = get_func_arg_info(tup, &types, &names, &modes);
	info->argtypes = static_cast<Oid *>(palloc0(sizeof(Oid) * (total + 1)));
	info->argnames = static_cast<char **>(palloc0(sizeof(char *) * (total + 1)));
	info->args = static_cast<TypeInfo **>(palloc0(sizeof(TypeInfo *) * (total + 1)));
	int n = 0;
	for (int i = 0; i < total; i++) {
		char mode = modes ? modes[i] : PROARGMODE_IN;
		if (mode == PROARGMODE_OUT || mode == PROARGMODE_TABLE) {
			info->has_out = true;
			continue;
		}
		info->argtypes[n] = types[i];
		if (names && names[i] && names[i][0]) info->argnames[n] = pstrdup(names[i]);
		else info->argnames[n] = psprintf("$%d", n + 1);
		if (!IsPolymorphicType(types[i])) info->args[n] = TypeInfoNew(types[i], -1, cxt);
		n++;
	}
	info->nargs = n;
	if (!info->retset && !info->is_trigger && !IsPolymorphicType(info->rettype) &&
	    !(info->rettype == RECORDOID && info->has_out))
		info->ret = TypeInfoNew(info->rettype, -1, cxt);
	// Kept wrapped, the one copy V8 compiles from: the context is never freed (see above).
	std::string wrapped = FunctionSource(info, body);
	pfree(body);
	info->source = static_cast<char *>(palloc(wrapped.size() + 1));
	memcpy(info->source, wrapped.c_str(), wrapped.size() + 1);
	info->source_len = wrapped.size();
	MemoryContextSwitchTo(old);
	ReleaseSysCache(tup);
	fn_infos[fn_oid] = info;
	return info;
}

}  // namespace plv8
