// Strings between PostgreSQL and V8: user data (which can be longer than a V8 string may be)
// and error texts (clipped, so that an error about a huge value stays a small error).
#include "plv8.h"

namespace plv8 {

v8::Local<v8::String> NewString(v8::Isolate *isolate, const char *s, int len) {
	v8::Local<v8::String> out;
	// Callers pass names and fixed texts, far below V8's limit; an empty string is only a
	// last resort that keeps a bug from crashing the backend.
	if (!v8::String::NewFromUtf8(isolate, s, v8::NewStringType::kNormal, len).ToLocal(&out))
		return v8::String::Empty(isolate);
	return out;
}

v8::MaybeLocal<v8::String> NewText(Env *env, const char *s, size_t len) {
	v8::Local<v8::String> out;
	// V8 refuses a string longer than String::kMaxLength by returning an empty handle; that
	// must become an error, never a silently empty value.
	if (len <= static_cast<size_t>(v8::String::kMaxLength) &&
	    v8::String::NewFromUtf8(env->isolate, s, v8::NewStringType::kNormal, static_cast<int>(len)).ToLocal(&out))
		return out;
	PgTry(env, [&] {
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("value is too long for a JavaScript string"),
		                errdetail("The value has %zu bytes; a JavaScript string holds at most %d characters.", len,
		                          v8::String::kMaxLength)));
	});
	return {};
}

namespace {

// V8's view of text that the handler keeps for the life of the backend anyway (a function's
// source in its catalog entry): V8 reads it in place instead of holding a copy in its heap.
class KeptOneByteText : public v8::String::ExternalOneByteStringResource {
  public:
	KeptOneByteText(const char *data, size_t length) : data_(data), length_(length) {}
	const char *data() const override { return data_; }
	size_t length() const override { return length_; }

  private:
	const char *data_;
	size_t length_;
};

}  // namespace

v8::MaybeLocal<v8::String> NewKeptText(Env *env, const char *s, size_t len) {
	// One byte per character holds only ASCII text as UTF-8; other text is copied as usual.
	bool ascii = len <= static_cast<size_t>(v8::String::kMaxLength);
	for (size_t i = 0; ascii && i < len; i++) ascii = static_cast<unsigned char>(s[i]) < 0x80;
	v8::Local<v8::String> out;
	if (ascii && v8::String::NewExternalOneByte(env->isolate, new KeptOneByteText(s, len)).ToLocal(&out)) return out;
	return NewText(env, s, len);
}

std::string ToStdString(v8::Isolate *isolate, v8::Local<v8::Value> value, bool *ok) {
	v8::Local<v8::String> str;
	if (value->IsString()) {
		str = value.As<v8::String>();
	} else if (!value->ToString(isolate->GetCurrentContext()).ToLocal(&str)) {
		if (ok) *ok = false;
		return std::string();
	}
	v8::String::Utf8Value s(isolate, str);
	if (ok) *ok = true;
	return std::string(*s ? *s : "", *s ? s.length() : 0);
}

std::string ClipErrorText(std::string text) {
	// An error quoting a huge value would otherwise need that value's size again in the
	// message, the log and on the wire; PostgreSQL's own buffers stop at 1 GB.
	const size_t kMaxErrorText = 1024 * 1024;
	if (text.size() <= kMaxErrorText) return text;
	size_t n = kMaxErrorText;
	while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) n--;  // a whole UTF-8 character
	text.resize(n);
	text += "...";
	return text;
}

void ThrowJsError(v8::Isolate *isolate, const char *message) {
	isolate->ThrowException(v8::Exception::Error(NewString(isolate, ClipErrorText(message).c_str())));
}

std::string JsonString(const std::string &text) {
	std::string out = "\"";
	for (unsigned char c : text) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += static_cast<char>(c);
		} else if (c < 0x20) {
			char buf[8];
			snprintf(buf, sizeof(buf), "\\u%04x", c);
			out += buf;
		} else {
			out += static_cast<char>(c);
		}
	}
	return out + "\"";
}

}  // namespace plv8
