// Function stage, a function's catalog row as the call paths need it (fninfo.cpp).
#pragma once

#include "plv8.h"

namespace plv8 {

struct FnInfo {
	Oid oid;
	TransactionId xmin;
	ItemPointerData tid;
	MemoryContext cxt;
	char *proname;
	char *source;  // the body wrapped as `(function (args) {\n body \n})`
	size_t source_len;
	char prokind;
	int nargs;            // input arguments
	Oid *argtypes;
	TypeInfo **args;      // null entries for polymorphic arguments
	char **argnames;
	Oid rettype;
	TypeInfo *ret;        // null for polymorphic / set / trigger results
	bool retset;
	bool is_trigger;
	bool has_out;
};


// Reads (or re-reads after CREATE OR REPLACE) a function's catalog row. May raise errors.
FnInfo *GetFnInfo(Oid fn_oid);

}  // namespace plv8
