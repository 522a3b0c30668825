// Start procedure stage: plv8.boot_proc / plv8.start_proc -> the plv8 function a new default
// context runs once, after the name lookup and the permission checks PLV8 makes.
#include "plv8.h"

extern "C" {
#include "catalog/pg_proc.h"
#include "commands/proclang.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

namespace plv8 {

char *start_proc = nullptr;
char *boot_proc = nullptr;

namespace {

// The function a name or signature denotes, or InvalidOid when there is none (or it is not a
// plv8 function). Never raises: a bad setting only skips the procedure.
Oid LookupProc(const char *name) {
	Oid fn = InvalidOid;
	MemoryContext oldcxt = CurrentMemoryContext;
	PG_TRY();
	{
		PGFunction in = strchr(name, '(') != nullptr ? regprocedurein : regprocin;
		fn = DatumGetObjectId(DirectFunctionCall1(in, CStringGetDatum(name)));
		HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
		if (!HeapTupleIsValid(tup)) {
			fn = InvalidOid;
		} else {
			if (reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->prolang != get_language_oid("plv8", true)) fn = InvalidOid;
			ReleaseSysCache(tup);
		}
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
		fn = InvalidOid;
	}
	PG_END_TRY();
	return fn;
}

// Whether the current user may run `fn` as the start procedure of its own environment. Besides
// EXECUTE, since any role can set start_proc (and a database owner for a whole database): code
// owned by another role runs with a superuser's rights only if a superuser owns it, and under
// SECURITY DEFINER (or any other switch of the current user below the session's role) only if
// the definer owns it or the session's role holds the definer's privileges anyway.
bool MayRun(Oid fn, bool boot) {
	Oid user = GetUserId();
	if (pg_proc_aclcheck(fn, user, ACL_EXECUTE) != ACLCHECK_OK) return false;
	if (boot) return true;
	HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup)) return false;
	Oid owner = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->proowner;
	ReleaseSysCache(tup);
	if (owner == user || superuser_arg(owner)) return true;
	if (superuser_arg(user)) return false;
	return user == GetOuterUserId() || has_privs_of_role(GetOuterUserId(), user);
}

}  // namespace

void RunStartProc(Env *env, v8::Local<v8::Context> context) {
	bool boot = boot_proc != nullptr && boot_proc[0] != '\0';
	const char *name = boot ? boot_proc : start_proc;
	if (name == nullptr || name[0] == '\0') return;
	Oid fn = InvalidOid;
	bool allowed = false;
	if (!PgTry(env, [&] {
		    fn = LookupProc(name);
		    if (!OidIsValid(fn)) ereport(WARNING, (errmsg("failed to find js function %s", name)));
		    else if (!(allowed = MayRun(fn, boot)))
			    ereport(WARNING, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("no permission to execute js function %s", name)));
	    }))
		return;
	if (!allowed) return;
	v8::Local<v8::Function> f;
	if (!FindCompiled(env, fn).ToLocal(&f)) return;
	v8::Local<v8::Value> ignored;
	if (!f->Call(context, context->Global(), 0, nullptr).ToLocal(&ignored)) return;  // the caller reports it
}

}  // namespace plv8
