// Entry stage: the SQL-callable functions of the extension (language handlers, validator,
// plv8_version/plv8_reset/plv8_info) and the plv8.* settings. V8 itself starts on first use.
#include "plv8.h"

extern "C" {
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/fmgrprotos.h"
#include "nodes/parsenodes.h"

PG_MODULE_MAGIC;

void _PG_init(void);
PG_FUNCTION_INFO_V1(plv8_call_handler);
PG_FUNCTION_INFO_V1(plv8_inline_handler);
PG_FUNCTION_INFO_V1(plv8_call_validator);
PG_FUNCTION_INFO_V1(plv8_version);
PG_FUNCTION_INFO_V1(plv8_reset);
PG_FUNCTION_INFO_V1(plv8_info);
}

namespace plv8 {
char *icu_data = nullptr;
Datum CallHandler(FunctionCallInfo fcinfo);
Datum InlineHandler(const char *source, bool atomic);
void Validate(Oid fn_oid);
void MapLibraryPages();
}  // namespace plv8

void _PG_init(void) {
	DefineCustomStringVariable("plv8.start_proc", "PLV8 function to run once when PLV8 is first used.", NULL,
	                           &plv8::start_proc, NULL, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("plv8.boot_proc",
	                           "PLV8 function to run once when PLV8 is first used; set by superusers, wins over start_proc.",
	                           NULL, &plv8::boot_proc, NULL, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("plv8.context", "Name of the global object plv8 functions run in (empty: the default one).",
	                           NULL, &plv8::context_name, NULL, PGC_USERSET, 0, plv8::CheckContextName, NULL, NULL);
	DefineCustomIntVariable("plv8.context_cache_size", "Named contexts kept per user, least recently used dropped first.",
	                        NULL, &plv8::context_cache_size, 8, 1, 1024, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("plv8.v8_flags", "V8 engine initialization flags.", NULL, &plv8::v8_flags, NULL,
	                           PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("plv8.memory_limit", "Per-user JavaScript heap limit of a connection, in MB.", NULL,
	                        &plv8::memory_limit_mb, 256, 16, 3072, PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("plv8.heap_reduce_interval",
	                        "Outermost calls between collections that give V8's idle memory back (0: never).", NULL,
	                        &plv8::heap_reduce_interval, 128, 0, INT_MAX, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("plv8.execution_timeout", "Longest time a plv8 call may run JavaScript, in seconds.", NULL,
	                        &plv8::execution_timeout_s, 300, 1, 65536, PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
	// Accepted for PLV8 compatibility: the V8 of libnode uses the system's ICU and its data.
	DefineCustomStringVariable("plv8.icu_data", "ICU data file directory (ignored: the system ICU is used).", NULL,
	                           &plv8::icu_data, NULL, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("plv8.code_cache",
	                         "Keeps compiled function bodies in files under the data directory for new connections.",
	                         NULL, &plv8::code_cache_enabled, true, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("plv8.code_cache_max_size", "Total size of a database's code cache files kept; least recently used go first.",
	                        NULL, &plv8::code_cache_max_size_kb, 256 * 1024, 64, INT_MAX, PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("plv8.code_cache_max_age", "Code cache files unused for longer are removed.", NULL,
	                        &plv8::code_cache_max_age_s, 30 * 24 * 3600, 1, INT_MAX, PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
	MarkGUCPrefixReserved("plv8");
	// In the postmaster only: every backend forked from it then shares V8's read-only pages.
	if (process_shared_preload_libraries_in_progress) plv8::MapLibraryPages();
}

extern "C" Datum plv8_call_handler(PG_FUNCTION_ARGS) { return plv8::CallHandler(fcinfo); }

extern "C" Datum plv8_inline_handler(PG_FUNCTION_ARGS) {
	InlineCodeBlock *block = reinterpret_cast<InlineCodeBlock *>(DatumGetPointer(PG_GETARG_DATUM(0)));
	return plv8::InlineHandler(block->source_text, block->atomic);
}

extern "C" Datum plv8_call_validator(PG_FUNCTION_ARGS) {
	Oid fn_oid = PG_GETARG_OID(0);
	if (!CheckFunctionValidatorAccess(fcinfo->flinfo->fn_oid, fn_oid)) PG_RETURN_VOID();
	if (check_function_bodies) plv8::Validate(fn_oid);
	PG_RETURN_VOID();
}

extern "C" Datum plv8_version(PG_FUNCTION_ARGS) { PG_RETURN_TEXT_P(cstring_to_text(PLV8_VERSION_STR)); }

extern "C" Datum plv8_reset(PG_FUNCTION_ARGS) {
	plv8::ResetEnv(InvalidOid);
	PG_RETURN_VOID();
}

extern "C" Datum plv8_info(PG_FUNCTION_ARGS) {
	if (!superuser())
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("only superusers can call plv8_info()")));
	std::string json = plv8::EnvInfoJson();
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(pstrdup(json.c_str()))));
}
