// Property test support: compares an answer with the oracle's expectation and names the first
// difference by its path. Cursors are opaque (any string where the oracle expects one); nodeIds
// are compared decoded; aggregate values numerically (they print as JSON numbers).

function decodeNodeId(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(Buffer.from(v, "base64").toString("utf8"));
  } catch {
    return v;
  }
}

function closeEnough(expected: string, actual: number): boolean {
  const e = Number(expected);
  if (e === actual) return true;
  return Math.abs(e - actual) <= 1e-12 * Math.max(Math.abs(e), Math.abs(actual));
}

export function firstDifference(expected: unknown, actual: unknown, path = "$"): string | null {
  if (expected === "<cursor>") return typeof actual === "string" && actual.length > 0 ? null : `${path}: expected a cursor, got ${JSON.stringify(actual)}`;
  if (expected !== null && typeof expected === "object" && "approx" in expected) {
    const approx = (expected as { approx: string | null }).approx;
    if (approx === null) return actual === null ? null : `${path}: expected null, got ${JSON.stringify(actual)}`;
    if (typeof actual !== "number") return `${path}: expected the JSON number ${approx}, got ${JSON.stringify(actual)}`;
    return closeEnough(approx, actual) ? null : `${path}: expected ${approx}, got ${actual}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected a list, got ${JSON.stringify(actual)}`;
    if (expected.length !== actual.length) return `${path}: expected ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = Object.keys(e);
    const extra = Object.keys(a).filter((k) => !(k in e));
    if (extra.length > 0) return `${path}: unexpected keys ${extra.join(", ")}`;
    for (const k of keys) {
      if (!(k in a)) return `${path}.${k}: missing`;
      const d = firstDifference(e[k], k === "nodeId" ? decodeNodeId(a[k]) : a[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(expected, actual) || expected === actual ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
