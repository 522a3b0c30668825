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
// plv8 function). Never raises: a bad setting only skips the procedure. When the name itself
// does not resolve, `*why` is PostgreSQL's message, which PLV8's warning quotes.
Oid LookupProc(const char *name, char **why) {
	Oid fn = InvalidOid;
	*why = nullptr;
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
		ErrorData *edata = CopyErrorData();
		FlushErrorState();
		*why = pstrdup(edata->message);
		FreeErrorData(edata);
		fn = InvalidOid;
	}
	PG_END_TRY();
	return fn;
}

// Whether the code of `fn`, which the current user may execute, may run as the start procedure
// of that user's environment. Since any role can set start_proc (and a database owner for a
// whole database): code owned by another role runs with a superuser's rights only if a superuser
// owns it, and under SECURITY DEFINER (or any other switch of the current user below the
// session's role) only if the definer owns it or the session's role holds the definer's
// privileges anyway.
bool OwnerMayRun(Oid fn) {
	Oid user = GetUserId();
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
		    char *why = nullptr;
		    fn = LookupProc(name, &why);
		    // PLV8's wording: its lookup's error quoted after the name, and a function the user
		    // may not execute taken for one it did not find.
		    if (why != nullptr) ereport(WARNING, (errmsg("failed to find js function %s", why)));
		    else if (!OidIsValid(fn) || pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
			    ereport(WARNING, (errmsg("failed to find js function %s", name)));
		    else if (!(allowed = boot || OwnerMayRun(fn)))
			    ereport(WARNING, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			                      errmsg("start procedure %s is not run for role \"%s\"", name, GetUserNameFromId(GetUserId(), false)),
			                      errdetail("Its owner is neither that role nor a superuser.")));
	    }))
		return;
	if (!allowed) return;
	v8::Local<v8::Function> f;
	if (!FindCompiled(env, fn).ToLocal(&f)) return;
	v8::Local<v8::Value> ignored;
	if (!f->Call(context, context->Global(), 0, nullptr).ToLocal(&ignored)) return;  // the caller reports it
}

}  // namespace plv8
