// Conversion stage: type information, and PostgreSQL Datums -> JavaScript values, following
// PLV8's mapping (int8 as BigInt, json parsed, jsonb structural, bytea as Uint8Array, rows as
// objects). The way back is in todatum.cpp.
#include <cmath>

#include "plv8.h"

extern "C" {
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "datatype/timestamp.h"
}

namespace plv8 {

namespace {

TypeKind KindOfBuiltin(Oid typid) {
	switch (typid) {
		case BOOLOID: return TypeKind::Bool;
		case INT2OID: return TypeKind::Int2;
		case INT4OID: return TypeKind::Int4;
		case INT8OID: return TypeKind::Int8;
		case OIDOID: return TypeKind::Oid;
		case FLOAT4OID: return TypeKind::Float4;
		case FLOAT8OID: return TypeKind::Float8;
		case NUMERICOID: return TypeKind::Numeric;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID: return TypeKind::Text;
		case JSONOID: return TypeKind::Json;
		case JSONBOID: return TypeKind::Jsonb;
		case BYTEAOID: return TypeKind::Bytea;
		case DATEOID: return TypeKind::Date;
		case TIMESTAMPOID: return TypeKind::Timestamp;
		case TIMESTAMPTZOID: return TypeKind::TimestampTz;
		case VOIDOID: return TypeKind::Void;
		case RECORDOID: return TypeKind::Record;
		default: return TypeKind::Other;
	}
}

char *TypeName(Oid typid) {
	HeapTuple tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tup)) return nullptr;
	char *name = pstrdup(NameStr(reinterpret_cast<Form_pg_type>(GETSTRUCT(tup))->typname));
	ReleaseSysCache(tup);
	return name;
}


}  // namespace

void EnsureIo(TypeInfo *ti) {
	if (ti->io_ready) return;
	Oid infn, outfn;
	bool varlena;
	getTypeInputInfo(ti->typid, &infn, &ti->ioparam);
	getTypeOutputInfo(ti->typid, &outfn, &varlena);
	fmgr_info_cxt(infn, &ti->in, ti->cxt);
	fmgr_info_cxt(outfn, &ti->out, ti->cxt);
	ti->io_ready = true;
}

void TypeInfoInit(TypeInfo *ti, Oid typid, int32 typmod, MemoryContext cxt) {
	memset(ti, 0, sizeof(*ti));
	ti->typid = typid;
	ti->typmod = typmod;
	ti->cxt = cxt;
	get_typlenbyvalalign(typid, &ti->len, &ti->byval, &ti->align);
	ti->kind = KindOfBuiltin(typid);
	if (ti->kind != TypeKind::Other) return;

	char typtype = get_typtype(typid);
	if (typtype == TYPTYPE_DOMAIN) {
		char *name = TypeName(typid);
		if (name != nullptr) {
			Oid elem = InvalidOid;
			if (strcmp(name, "plv8_int2array") == 0) elem = INT2OID;
			else if (strcmp(name, "plv8_int4array") == 0) elem = INT4OID;
			else if (strcmp(name, "plv8_float4array") == 0) elem = FLOAT4OID;
			else if (strcmp(name, "plv8_float8array") == 0) elem = FLOAT8OID;
			if (elem != InvalidOid) {
				ti->kind = TypeKind::TypedArray;
				ti->typed_elem = elem;
				ti->elem = TypeInfoNew(elem, -1, cxt);
				return;
			}
		}
		// Other domains convert as their base type; input goes through the domain's own
		// input function so that its constraints hold.
		int32 basemod = typmod;
		Oid base = getBaseTypeAndTypmod(typid, &basemod);
		TypeKind k = KindOfBuiltin(base);
		if (k != TypeKind::Other && k != TypeKind::Record && k != TypeKind::Void) {
			ti->kind = k;
			ti->domain = true;
			return;
		}
		typid = base;
		typtype = get_typtype(base);
	}
	if (typtype == TYPTYPE_COMPOSITE) {
		ti->kind = TypeKind::Composite;
		return;
	}
	Oid elem = get_element_type(typid);
	if (elem != InvalidOid && ti->len == -1) {
		ti->kind = TypeKind::Array;
		ti->elem = TypeInfoNew(elem, typmod, cxt);
	}
}

TypeInfo *TypeInfoNew(Oid typid, int32 typmod, MemoryContext cxt) {
	TypeInfo *ti = static_cast<TypeInfo *>(MemoryContextAlloc(cxt, sizeof(TypeInfo)));
	TypeInfoInit(ti, typid, typmod, cxt);
	return ti;
}

TypeInfo **AttrTypeInfos(TupleDesc desc, MemoryContext cxt) {
	TypeInfo **attrs = static_cast<TypeInfo **>(MemoryContextAllocZero(cxt, sizeof(TypeInfo *) * (desc->natts + 1)));
	for (int i = 0; i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		if (att->attisdropped) continue;
		attrs[i] = TypeInfoNew(att->atttypid, att->atttypmod, cxt);
	}
	return attrs;
}

// ---------------------------------------------------------------------------
// Datum -> JavaScript

static v8::MaybeLocal<v8::Value> OutputString(Env *env, Datum value, TypeInfo *ti) {
	char *s = nullptr;
	if (!PgTry(env, [&] {
		    EnsureIo(ti);
		    s = OutputFunctionCall(&ti->out, value);
	    }))
		return {};
	v8::Local<v8::String> out;
	bool made = NewText(env, s, strlen(s)).ToLocal(&out);
	pfree(s);
	if (!made) return {};
	return out;
}

v8::Local<v8::Array> NewArray(v8::Isolate *isolate, uint64 n) {
	// Array::New(n) allocates all n slots at once and ends the process when V8 cannot (past
	// ~134 million elements); a larger array grows as it is filled, where the heap limit and
	// V8's own limits stop it cleanly.
	const uint64 kPreallocMax = 1 << 24;
	return v8::Array::New(isolate, n <= kPreallocMax ? static_cast<int>(n) : 0);
}

// Reads (or re-reads after ALTER TYPE) the row type of a named composite into `ti`.
void RefreshRowType(TypeInfo *ti, Oid typid, int32 typmod) {
	TypeCacheEntry *tce = lookup_type_cache(typid, TYPECACHE_TUPDESC);
	if (tce->tupDesc == nullptr) elog(ERROR, "type %u is not composite", typid);
	if (ti->tupdesc != nullptr && ti->tupdesc->tdtypeid == typid && ti->tupdesc_id == tce->tupDesc_identifier) return;
	MemoryContext old = MemoryContextSwitchTo(ti->cxt);
	ti->tupdesc = CreateTupleDescCopy(tce->tupDesc);
	ti->tupdesc->tdtypeid = typid;
	ti->tupdesc->tdtypmod = typmod;
	MemoryContextSwitchTo(old);
	ti->attrs = AttrTypeInfos(ti->tupdesc, ti->cxt);
	ti->tupdesc_id = tce->tupDesc_identifier;
}

static v8::MaybeLocal<v8::Value> CompositeToJs(Env *env, Datum value, TypeInfo *ti) {
	HeapTupleHeader th = nullptr;
	TupleDesc desc = nullptr;
	TypeInfo **attrs = nullptr;
	if (!PgTry(env, [&] {
		    th = DatumGetHeapTupleHeader(value);
		    Oid typid = HeapTupleHeaderGetTypeId(th);
		    int32 typmod = HeapTupleHeaderGetTypMod(th);
		    if (typid != RECORDOID) {
			    // Named row types are cached in the TypeInfo (which lives as long as its owner).
			    RefreshRowType(ti, typid, typmod);
			    desc = ti->tupdesc;
			    attrs = ti->attrs;
			    return;
		    }
		    TupleDesc d = lookup_rowtype_tupdesc(typid, typmod);
		    desc = CreateTupleDescCopy(d);
		    attrs = AttrTypeInfos(desc, CurrentMemoryContext);
		    ReleaseTupleDesc(d);
	    }))
		return {};
	HeapTupleData tuple;
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	v8::Local<v8::Object> obj;
	if (!TupleToJs(env, &tuple, desc, attrs, nullptr).ToLocal(&obj)) return {};
	return obj;
}

v8::MaybeLocal<v8::Value> ToJs(Env *env, Datum value, bool isnull, TypeInfo *ti) {
	v8::Isolate *isolate = env->isolate;
	if (isnull) return v8::Null(isolate);
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	switch (ti->kind) {
		case TypeKind::Bool: return v8::Boolean::New(isolate, DatumGetBool(value));
		case TypeKind::Int2: return v8::Integer::New(isolate, DatumGetInt16(value));
		case TypeKind::Int4: return v8::Integer::New(isolate, DatumGetInt32(value));
		case TypeKind::Int8: return v8::BigInt::New(isolate, DatumGetInt64(value));
		case TypeKind::Oid: return v8::Integer::NewFromUnsigned(isolate, DatumGetObjectId(value));
		case TypeKind::Float4: return v8::Number::New(isolate, DatumGetFloat4(value));
		case TypeKind::Float8: return v8::Number::New(isolate, DatumGetFloat8(value));
		case TypeKind::Numeric: {
			double d = 0;
			if (!PgTry(env, [&] { d = DatumGetFloat8(DirectFunctionCall1(numeric_float8, value)); })) return {};
			return v8::Number::New(isolate, d);
		}
		case TypeKind::Text:
		case TypeKind::Json: {
			struct varlena *t = nullptr;
			if (!PgTry(env, [&] { t = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(value))); }))
				return {};
			v8::Local<v8::String> s;
			if (!NewText(env, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)).ToLocal(&s)) return {};
			if (ti->kind == TypeKind::Text) return s;
			v8::Local<v8::Value> parsed;
			if (!v8::JSON::Parse(cx, s).ToLocal(&parsed)) return {};
			return parsed;
		}
		case TypeKind::Jsonb: {
			char *text = nullptr;
			if (!PgTry(env, [&] { text = DatumGetCString(DirectFunctionCall1(jsonb_out, value)); })) return {};
			v8::Local<v8::String> s;
			bool made = NewText(env, text, strlen(text)).ToLocal(&s);
			pfree(text);
			v8::Local<v8::Value> parsed;
			if (!made || !v8::JSON::Parse(cx, s).ToLocal(&parsed)) return {};
			return parsed;
		}
		case TypeKind::Bytea: {
			struct varlena *t = nullptr;
			if (!PgTry(env, [&] { t = pg_detoast_datum_packed(reinterpret_cast<struct varlena *>(DatumGetPointer(value))); }))
				return {};
			size_t n = VARSIZE_ANY_EXHDR(t);
			v8::Local<v8::ArrayBuffer> ab;
			if (!NewArrayBuffer(env, VARDATA_ANY(t), n).ToLocal(&ab)) return {};
			return v8::Uint8Array::New(ab, 0, n);
		}
		case TypeKind::Date: {
			DateADT d = DatumGetDateADT(value);
			double ms = DATE_NOT_FINITE(d) ? NAN : (double)d * 86400000.0 + kEpochOffsetMs;
			return v8::Date::New(cx, ms);
		}
		case TypeKind::Timestamp:
		case TypeKind::TimestampTz: {
			Timestamp ts = DatumGetTimestamp(value);
			double ms = TIMESTAMP_NOT_FINITE(ts) ? NAN : (double)ts / 1000.0 + kEpochOffsetMs;
			return v8::Date::New(cx, ms);
		}
		case TypeKind::Array: {
			Datum *elems = nullptr;
			bool *nulls = nullptr;
			int n = 0;
			TypeInfo *et = ti->elem;
			if (!PgTry(env, [&] {
				    ArrayType *arr = DatumGetArrayTypeP(value);
				    deconstruct_array(arr, ARR_ELEMTYPE(arr), et->len, et->byval, et->align, &elems, &nulls, &n);
			    }))
				return {};
			v8::Local<v8::Array> out = NewArray(isolate, n);
			for (int i = 0; i < n; i++) {
				v8::Local<v8::Value> v;
				if (!ToJs(env, elems[i], nulls[i], et).ToLocal(&v)) return {};
				if (out->Set(cx, i, v).IsNothing()) return {};
			}
			return out;
		}
		case TypeKind::TypedArray: {
			ArrayType *arr = nullptr;
			if (!PgTry(env, [&] { arr = DatumGetArrayTypeP(value); })) return {};
			if (ARR_NDIM(arr) > 1 || ARR_HASNULL(arr)) {
				ThrowJsError(isolate, "NULL element, or multi-dimension array not allowed in external array type");
				return {};
			}
			int n = ARR_NDIM(arr) == 0 ? 0 : ARR_DIMS(arr)[0];
			size_t width = ti->elem->len;
			v8::Local<v8::ArrayBuffer> ab;
			if (!NewArrayBuffer(env, ARR_DATA_PTR(arr), n * width).ToLocal(&ab)) return {};
			switch (ti->typed_elem) {
				case INT2OID: return v8::Int16Array::New(ab, 0, n);
				case INT4OID: return v8::Int32Array::New(ab, 0, n);
				case FLOAT4OID: return v8::Float32Array::New(ab, 0, n);
				default: return v8::Float64Array::New(ab, 0, n);
			}
		}
		case TypeKind::Composite:
		case TypeKind::Record: return CompositeToJs(env, value, ti);
		case TypeKind::Void: return v8::Undefined(isolate);
		case TypeKind::Other: return OutputString(env, value, ti);
	}
	pg_unreachable();
}

v8::MaybeLocal<v8::Object> TupleToJs(Env *env, HeapTuple tuple, TupleDesc desc, TypeInfo **attrs,
                                     v8::Local<v8::String> *names) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	v8::Local<v8::Object> obj = v8::Object::New(isolate);
	for (int i = 0; i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		if (att->attisdropped) continue;
		bool isnull;
		Datum d = heap_getattr(tuple, i + 1, desc, &isnull);
		v8::Local<v8::Value> v;
		if (!ToJs(env, d, isnull, attrs[i]).ToLocal(&v)) return {};
		v8::Local<v8::String> key = names ? names[i] : NewString(isolate, NameStr(att->attname));
		if (obj->Set(cx, key, v).IsNothing()) return {};
	}
	return obj;
}

}  // namespace plv8
