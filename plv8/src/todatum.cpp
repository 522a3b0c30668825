// Conversion stage: JavaScript values -> PostgreSQL Datums, the way back of convert.cpp's
// mapping (a string goes through the type's input function where no direct form exists).
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

static bool Lexical(Env *env, v8::Local<v8::Value> value, TypeInfo *ti, Datum *out) {
	bool ok;
	std::string s = ToStdString(env->isolate, value, &ok);
	if (!ok) return false;
	const char *cs = s.c_str();
	return PgTry(env, [&] {
		EnsureIo(ti);
		*out = InputFunctionCall(&ti->in, const_cast<char *>(cs), ti->ioparam, ti->typmod);
	});
}

static bool StringifyJson(Env *env, v8::Local<v8::Value> value, std::string *out, bool *isnull) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	v8::Local<v8::Function> f = env->cx->json_stringify.Get(isolate);
	v8::Local<v8::Value> r;
	if (!f->Call(cx, v8::Undefined(isolate), 1, &value).ToLocal(&r)) return false;
	if (r->IsUndefined()) {
		*isnull = true;
		return true;
	}
	bool ok;
	*out = ToStdString(isolate, r, &ok);
	return ok;
}

// The bytes of an ArrayBuffer or a view of one. A small typed array V8 keeps inside its heap is
// copied into `scratch` rather than given a buffer of its own (Buffer() would allocate one, and
// V8 takes a refused allocation there for a fatal error).
static bool BytesOf(v8::Local<v8::Value> value, std::string *scratch, const char **data, size_t *len) {
	if (value->IsArrayBufferView()) {
		v8::Local<v8::ArrayBufferView> view = value.As<v8::ArrayBufferView>();
		if (!view->HasBuffer()) {
			scratch->resize(view->ByteLength());
			*len = view->CopyContents(scratch->data(), scratch->size());
			*data = scratch->data();
			return true;
		}
		std::shared_ptr<v8::BackingStore> bs = view->Buffer()->GetBackingStore();
		*data = static_cast<const char *>(bs->Data()) + view->ByteOffset();
		*len = view->ByteLength();
		return true;
	}
	if (value->IsArrayBuffer()) {
		std::shared_ptr<v8::BackingStore> bs = value.As<v8::ArrayBuffer>()->GetBackingStore();
		*data = static_cast<const char *>(bs->Data());
		*len = bs->ByteLength();
		return true;
	}
	return false;
}

bool ObjectToTuple(Env *env, v8::Local<v8::Value> value, TupleDesc desc, TypeInfo **attrs, HeapTuple *out,
                   bool strict_names) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	if (!value->IsObject()) {
		ThrowJsError(isolate, "argument must be an object");
		return false;
	}
	v8::Local<v8::Object> obj = value.As<v8::Object>();
	Datum *values = static_cast<Datum *>(palloc0(sizeof(Datum) * (desc->natts + 1)));
	bool *nulls = static_cast<bool *>(palloc0(sizeof(bool) * (desc->natts + 1)));
	for (int i = 0; i < desc->natts; i++) {
		Form_pg_attribute att = TupleDescAttr(desc, i);
		nulls[i] = true;
		if (att->attisdropped) continue;
		v8::Local<v8::String> key = NewString(isolate, NameStr(att->attname));
		if (strict_names) {
			v8::Maybe<bool> has = obj->Has(cx, key);
			if (has.IsNothing()) return false;
			if (!has.FromJust()) {
				ThrowJsError(isolate, "field name / property name mismatch");
				return false;
			}
		}
		v8::Local<v8::Value> v;
		if (!obj->Get(cx, key).ToLocal(&v)) return false;
		if (!ToDatum(env, v, attrs[i], &values[i], &nulls[i])) return false;
	}
	return PgTry(env, [&] { *out = heap_form_tuple(desc, values, nulls); });
}

// A varlena (text, json, bytea) holding `len` bytes. PostgreSQL values stop at 1 GB; a longer
// JavaScript string or buffer is an error of the statement, not a failed allocation.
static bool TextToDatum(Env *env, const char *data, size_t len, TypeInfo *ti, Datum *out) {
	return PgTry(env, [&] {
		if (len > MaxAllocSize - VARHDRSZ - 1)
			ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			                errmsg("JavaScript value is too long for type %s", format_type_be(ti->typid)),
			                errdetail("The value has %zu bytes; a PostgreSQL value holds at most %zu bytes.", len,
			                          (size_t)(MaxAllocSize - VARHDRSZ - 1))));
		struct varlena *v = static_cast<struct varlena *>(palloc(len + VARHDRSZ));
		SET_VARSIZE(v, len + VARHDRSZ);
		if (len > 0) memcpy(VARDATA(v), data, len);
		*out = PointerGetDatum(v);
	});
}

static bool CompositeToDatum(Env *env, v8::Local<v8::Value> value, TypeInfo *ti, Datum *out) {
	// A result whose row type came from the call site (a column definition list) is used as is.
	if (ti->tupdesc == nullptr || ti->tupdesc_id != 0) {
		if (!PgTry(env, [&] {
			    int32 mod = ti->typmod;
			    Oid base = getBaseTypeAndTypmod(ti->typid, &mod);
			    RefreshRowType(ti, base, mod);
		    }))
			return false;
	}
	HeapTuple tuple;
	if (!ObjectToTuple(env, value, ti->tupdesc, ti->attrs, &tuple, true)) return false;
	*out = HeapTupleGetDatum(tuple);
	return true;
}

static bool ToDatumBase(Env *env, v8::Local<v8::Value> value, TypeInfo *ti, Datum *out, bool *isnull);

bool ToDatum(Env *env, v8::Local<v8::Value> value, TypeInfo *ti, Datum *out, bool *isnull) {
	if (!ToDatumBase(env, value, ti, out, isnull)) return false;
	if (!ti->domain) return true;
	Datum d = *out;
	bool n = *isnull;
	return PgTry(env, [&] { domain_check(d, n, ti->typid, &ti->domain_extra, ti->cxt); });
}

static bool ToDatumBase(Env *env, v8::Local<v8::Value> value, TypeInfo *ti, Datum *out, bool *isnull) {
	v8::Isolate *isolate = env->isolate;
	v8::Local<v8::Context> cx = isolate->GetCurrentContext();
	*isnull = false;
	*out = (Datum)0;
	if (ti->kind == TypeKind::Void) return true;
	if (value->IsUndefined() || value->IsNull()) {
		*isnull = true;
		return true;
	}
	switch (ti->kind) {
		case TypeKind::Bool:
			*out = BoolGetDatum(value->BooleanValue(isolate));
			return true;
		case TypeKind::Int2:
		case TypeKind::Int4:
		case TypeKind::Oid:
		case TypeKind::Int8:
		case TypeKind::Float4:
		case TypeKind::Float8:
			if (value->IsNumber() || value->IsBoolean() || value->IsNumberObject()) {
				double d;
				if (!value->NumberValue(cx).To(&d)) return false;
				switch (ti->kind) {
					case TypeKind::Int2: *out = Int16GetDatum(static_cast<int16>(std::trunc(d))); break;
					case TypeKind::Int4: *out = Int32GetDatum(static_cast<int32>(std::trunc(d))); break;
					case TypeKind::Oid: *out = ObjectIdGetDatum(static_cast<Oid>(std::trunc(d))); break;
					case TypeKind::Int8: *out = Int64GetDatum(static_cast<int64>(std::trunc(d))); break;
					case TypeKind::Float4: *out = Float4GetDatum(static_cast<float4>(d)); break;
					default: *out = Float8GetDatum(d); break;
				}
				return true;
			}
			if (value->IsBigInt() && ti->kind == TypeKind::Int8) {
				bool lossless;
				*out = Int64GetDatum(value.As<v8::BigInt>()->Int64Value(&lossless));
				if (lossless) return true;
			}
			return Lexical(env, value, ti, out);
		case TypeKind::Numeric:
			if (value->IsNumber()) {
				double d = value.As<v8::Number>()->Value();
				return PgTry(env, [&] { *out = DirectFunctionCall1(float8_numeric, Float8GetDatum(d)); });
			}
			return Lexical(env, value, ti, out);
		case TypeKind::Text: {
			bool ok;
			std::string s = ToStdString(isolate, value, &ok);
			return ok && TextToDatum(env, s.data(), s.size(), ti, out);
		}
		case TypeKind::Json: {
			std::string s;
			if (!StringifyJson(env, value, &s, isnull)) return false;
			return *isnull || TextToDatum(env, s.data(), s.size(), ti, out);
		}
		case TypeKind::Jsonb: {
			std::string s;
			if (!StringifyJson(env, value, &s, isnull)) return false;
			if (*isnull) return true;
			const char *cs = s.c_str();
			return PgTry(env, [&] { *out = DirectFunctionCall1(jsonb_in, CStringGetDatum(cs)); });
		}
		case TypeKind::Bytea: {
			std::string scratch;
			const char *data;
			size_t len;
			if (BytesOf(value, &scratch, &data, &len)) return TextToDatum(env, data, len, ti, out);
			return Lexical(env, value, ti, out);
		}
		case TypeKind::Date:
		case TypeKind::Timestamp:
		case TypeKind::TimestampTz:
			if (value->IsDate()) {
				double ms = value.As<v8::Date>()->ValueOf();
				if (std::isnan(ms)) {
					*isnull = true;
					return true;
				}
				if (ti->kind == TypeKind::Date) {
					*out = DateADTGetDatum(static_cast<DateADT>(std::floor((ms - kEpochOffsetMs) / 86400000.0)));
				} else {
					*out = TimestampGetDatum(static_cast<Timestamp>(std::llround((ms - kEpochOffsetMs) * 1000.0)));
				}
				return true;
			}
			return Lexical(env, value, ti, out);
		case TypeKind::Array:
		case TypeKind::TypedArray: {
			if (!value->IsArray() && !(ti->kind == TypeKind::TypedArray && value->IsTypedArray())) {
				ThrowJsError(isolate, "value is not an Array");
				return false;
			}
			v8::Local<v8::Object> arr = value.As<v8::Object>();
			uint32_t n;
			if (value->IsArray()) n = value.As<v8::Array>()->Length();
			else n = static_cast<uint32_t>(value.As<v8::TypedArray>()->Length());
			Datum *elems = nullptr;
			bool *nulls = nullptr;
			if (!PgTry(env, [&] {
				    if (n > MaxArraySize)
					    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					                    errmsg("array size exceeds the maximum allowed (%d)", (int)MaxArraySize)));
				    elems = static_cast<Datum *>(palloc(sizeof(Datum) * (n + 1)));
				    nulls = static_cast<bool *>(palloc(sizeof(bool) * (n + 1)));
			    }))
				return false;
			TypeInfo *et = ti->elem;
			for (uint32_t i = 0; i < n; i++) {
				v8::Local<v8::Value> v;
				if (!arr->Get(cx, i).ToLocal(&v)) return false;
				if (!ToDatum(env, v, et, &elems[i], &nulls[i])) return false;
			}
			Oid elemtype = ti->kind == TypeKind::TypedArray ? ti->typed_elem : et->typid;
			return PgTry(env, [&] {
				int dims[1] = {static_cast<int>(n)};
				int lbs[1] = {1};
				*out = PointerGetDatum(construct_md_array(elems, nulls, n == 0 ? 0 : 1, dims, lbs, elemtype, et->len,
				                                          et->byval, et->align));
			});
		}
		case TypeKind::Composite:
			if (value->IsObject() && !value->IsString()) return CompositeToDatum(env, value, ti, out);
			return Lexical(env, value, ti, out);
		case TypeKind::Record:
		case TypeKind::Other: return Lexical(env, value, ti, out);
		case TypeKind::Void: return true;
	}
	pg_unreachable();
}

}  // namespace plv8
