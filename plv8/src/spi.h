// Shared pieces of the database-access callbacks (spi.cpp, plans.cpp): subtransactions,
// scratch memory, parameters and result conversion.
#pragma once

#include "plv8.h"

extern "C" {
#include "parser/parse_node.h"
}

namespace plv8 {

struct SubXact {
	MemoryContext cxt;
	ResourceOwner owner;
};

bool BeginSub(Env *env, SubXact *s);
bool CommitSub(Env *env, SubXact *s);
void AbortSub(Env *env, SubXact *s);

// A scratch memory context per database call, so that long loops in one function do not
// accumulate conversion garbage until the function returns.
struct Scratch {
	MemoryContext old;
	MemoryContext cxt;
	Scratch() {
		cxt = AllocSetContextCreate(CurrentMemoryContext, "plv8 database call", ALLOCSET_SMALL_SIZES);
		old = MemoryContextSwitchTo(cxt);
	}
	~Scratch() {
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
	}
};

struct VarParams {
	Oid *types;
	int n;
};

void VarParamSetup(ParseState *pstate, void *arg);
// The SQL text of plv8.execute / plv8.prepare; false (with an exception) when there is none.
bool QueryArg(const Args &args, const char *fn, std::string *sql);
// Parameters come as an array or as the remaining arguments.
std::vector<v8::Local<v8::Value>> ParamValues(const Args &args, int first, bool *ok);
bool ConvertParams(Env *env, const std::vector<v8::Local<v8::Value>> &vals, TypeInfo **types, Datum *values,
                   char *nulls);

// Conversion info of a plan's result columns, kept with the plan and rebuilt only when the
// result's column types change.
struct ResultTypes {
	int natts;
	Oid *typids;
	TypeInfo **attrs;
	MemoryContext cxt;
};

v8::MaybeLocal<v8::Value> RowsToJs(Env *env, SPITupleTable *tt, uint64 n, ResultTypes *rt = nullptr);

// What one SPI call left behind: its return code, rows and row count.
struct SpiOutput {
	int rc = 0;
	SPITupleTable *tt = nullptr;
	uint64 n = 0;
	void Take(int code) {
		rc = code;
		tt = SPI_tuptable;
		n = SPI_processed;
	}
};

// The result for JavaScript (rows, or the row count); frees the rows either way.
bool TakeResult(Env *env, const SpiOutput &o, ResultTypes *rt, v8::Local<v8::Value> *out);
void FreeRows(Env *env, const SpiOutput &o);
// Ends a call's subtransaction: committed, with `result` returned to JavaScript, when the call
// succeeded; rolled back when not.
void EndSub(Env *env, SubXact *s, bool ok, const Args &args, v8::Local<v8::Value> result);

// Callbacks of the plv8 object.
void Execute(const Args &args);
void Subtransaction(const Args &args);
void Prepare(const Args &args);
void InstallPlanTemplates(Env *env, v8::Local<v8::External> data);

}  // namespace plv8
