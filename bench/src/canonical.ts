// Bench stage: answer checking. Input: a GraphQL response from any engine, or the JSON of the
// hand-written SQL. Output: canonical rows (connection wrappers removed, ids as numbers, enum
// values lower-case, timestamps in ISO form) that compare equal when the answers agree.
import { isDeepStrictEqual } from "node:util";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function canonicalValue(value: Json): Json {
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (!isObject(value)) return value;
  // Connections differ by engine (edges/node, nodes, records); the rows inside them are the answer.
  if (Array.isArray(value.edges)) return value.edges.map((e) => canonicalValue(isObject(e) ? (e.node ?? null) : null));
  if (Array.isArray(value.nodes)) return value.nodes.map(canonicalValue);
  if (Array.isArray(value.records)) return value.records.map(canonicalValue);
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key]!;
    if ((key === "id" || key === "blogId") && typeof v === "string" && /^\d+$/.test(v)) out[key] = Number(v);
    else if (key === "status" && typeof v === "string") out[key] = v.toLowerCase();
    else if (key === "createdAt" && typeof v === "string") out[key] = new Date(v).toISOString();
    else out[key] = canonicalValue(v);
  }
  return out;
}

/** Canonical rows of a GraphQL `data` object: the `result` alias, or the m1..mN mutations. */
export function canonicalFromGraphql(data: Json): Json {
  if (!isObject(data)) throw new Error(`response has no data object: ${JSON.stringify(data)}`);
  if ("result" in data) return canonicalValue(data.result!);
  const keys = Object.keys(data).filter((k) => /^m\d+$/.test(k));
  keys.sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return keys.map((k) => {
    const payload = data[k]!;
    if (!isObject(payload)) return canonicalValue(payload);
    const row = Object.values(payload)[0] ?? null;
    return canonicalValue(row);
  });
}

export function sameAnswer(a: Json, b: Json): boolean {
  return isDeepStrictEqual(a, b);
}

/** A short description of where two canonical answers first differ, for the failure report. */
export function firstDifference(expected: Json, actual: Json, path = "$"): string {
  if (isDeepStrictEqual(expected, actual)) return "";
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return `${path}: ${expected.length} rows expected, ${actual.length} received`;
    for (let i = 0; i < expected.length; i++) {
      const d = firstDifference(expected[i]!, actual[i]!, `${path}[${i}]`);
      if (d) return d;
    }
  }
  if (isObject(expected) && isObject(actual)) {
    for (const k of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const d = firstDifference(expected[k] ?? null, actual[k] ?? null, `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: expected ${JSON.stringify(expected)?.slice(0, 200)}, received ${JSON.stringify(actual)?.slice(0, 200)}`;
}

export type { Json };
