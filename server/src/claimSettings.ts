// Execute stage (server side): a request's JWT claims → the `request.jwt.claim.<name>` settings
// the resolve statement makes, as two arrays (names, values). Worked out once per identity here
// rather than by the statement on every request (parsing the claims into jsonb, a regular
// expression per claim, each value printed back): the settings' values are exactly those.

export interface ClaimSettings {
  names: string[];
  values: string[];
}

/** Only a claim whose name is a valid setting name gets a setting of its own. */
const settingName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A string claim is set as itself; any other value as PostgreSQL prints it as `jsonb`. */
export function claimSettings(claims: Record<string, unknown>): ClaimSettings {
  const names: string[] = [];
  const values: string[] = [];
  for (const [name, value] of Object.entries(claims)) {
    if (value === undefined || !settingName.test(name)) continue;
    names.push(name);
    values.push(typeof value === "string" ? value : jsonbText(value));
  }
  return { names, values };
}

/**
 * `value::jsonb::text` for a JSON value as `JSON.stringify` writes it: keys ordered as jsonb keeps
 * them (shorter first, then by their UTF-8 bytes), `", "` and `": "` between items, numbers as
 * `numeric` prints them (never in exponent form).
 */
export function jsonbText(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return Number.isFinite(value) ? numericText(JSON.stringify(value)) : "null";
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map((item) => jsonbText(item === undefined ? null : item)).join(", ")}]`;
      const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
      entries.sort(([a], [b]) => compareKeys(a, b));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${jsonbText(v)}`).join(", ")}}`;
    }
    default:
      // Functions, symbols and bigints never come out of a parsed token.
      return "null";
  }
}

function compareKeys(a: string, b: string): number {
  const byLength = Buffer.byteLength(a) - Buffer.byteLength(b);
  return byLength !== 0 ? byLength : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A JavaScript number's JSON text as `numeric` prints it: an exponent is written out in full. */
export function numericText(json: string): string {
  const e = json.search(/e/i);
  if (e < 0) return json;
  const negative = json.startsWith("-");
  const mantissa = json.slice(negative ? 1 : 0, e);
  const exponent = Number(json.slice(e + 1));
  const point = mantissa.indexOf(".");
  const digits = mantissa.replace(".", "");
  // Where the decimal point falls in `digits` once the exponent is applied.
  const at = (point < 0 ? mantissa.length : point) + exponent;
  let text: string;
  if (at <= 0) text = `0.${"0".repeat(-at)}${digits}`;
  else if (at >= digits.length) text = digits + "0".repeat(at - digits.length);
  else text = `${digits.slice(0, at)}.${digits.slice(at)}`;
  text = text.replace(/^0+(?=\d)/, "");
  return negative ? `-${text}` : text;
}
