// Util: JSON text → JS value, as JSON.parse gives it, except that an integer too large for a
// JS number comes back as a BigInt, every digit kept (a BigInt variable past 2^53 must reach
// the database as written); or, given `number`, every number as that function makes of its text.

const SAFE_DIGITS = /\d{16}/;

/** A number's value from its JSON text. */
export type NumberReader = (text: string) => unknown;

/** Integers past 2^53 as BigInt, other numbers as JS numbers. */
function exactInteger(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(text) ? n : BigInt(text);
}

export function parseJsonExact(text: string, number?: NumberReader): unknown {
  // Only a run of 16 digits can be an integer past 2^53; JSON.parse serves everything else.
  if (number === undefined && !SAFE_DIGITS.test(text)) return JSON.parse(text);
  const parser = new Parser(text, number ?? exactInteger);
  const value = parser.value();
  parser.end();
  return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;

class Parser {
  private at = 0;

  constructor(
    private readonly text: string,
    private readonly readNumber: NumberReader,
  ) {}

  value(): unknown {
    this.skipWhitespace();
    const c = this.text[this.at];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.word("true", true);
      case "f":
        return this.word("false", false);
      case "n":
        return this.word("null", null);
      default:
        return this.number();
    }
  }

  end(): void {
    this.skipWhitespace();
    if (this.at !== this.text.length) this.fail();
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.items("}", () => {
      this.skipWhitespace();
      const key = this.string();
      this.skipWhitespace();
      this.expect(":");
      // Defined as an own property even for "__proto__", as JSON.parse does.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    });
    return out;
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.items("]", () => out.push(this.value()));
    return out;
  }

  /** The comma-separated items after an opening bracket, up to `close`. */
  private items(close: string, item: () => void): void {
    this.at++;
    this.skipWhitespace();
    if (this.text[this.at] === close) {
      this.at++;
      return;
    }
    for (;;) {
      item();
      this.skipWhitespace();
      if (this.text[this.at] !== ",") break;
      this.at++;
    }
    this.expect(close);
  }

  private string(): string {
    STRING.lastIndex = this.at;
    const m = STRING.exec(this.text);
    if (!m) this.fail();
    this.at += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private number(): unknown {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail();
    this.at += m[0].length;
    return this.readNumber(m[0]);
  }

  private word<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.at)) this.fail();
    this.at += word.length;
    return value;
  }

  private expect(c: string): void {
    if (this.text[this.at] !== c) this.fail();
    this.at++;
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }

  private fail(): never {
    throw new SyntaxError(`Unexpected token in JSON at position ${this.at}`);
  }
}
