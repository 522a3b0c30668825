// Stress support: a seeded generator of random and hostile GraphQL requests (documents, variable
// sets, bodies, query strings, headers) for the server's no-500 run.

export interface HostileRequest {
  method: "GET" | "POST";
  /** Query string for GET (without `?`), body text for POST. */
  payload: string;
  contentType: string;
  /** Replace the API key with this text (a bad key) when set. */
  apiKey?: string;
}

/** mulberry32: small, seeded, repeatable. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fields = ["itemCollection", "item", "__typename", "__schema", "__type", "node", "nope", "insertIntoItemCollection",
  "updateItemCollection", "deleteFromItemCollection", "edges", "id", "label", "amount", "big", "tags", "created", "pageInfo",
  "totalCount", "cursor", "hasNextPage", "endCursor", "nodeId"];
const argValues = ["1", "-1", "0", "2147483648", "9007199254740993", "1e400", '"x"', '"\\u0000"', '"\\ud800"', "null", "true",
  "[1, 2]", "{eq: 1}", "{id: {eq: 1}}", "{or: [{id: {eq: 1}}]}", "$v", "$missing", "AscNullsFirst", '"' + "a".repeat(3000) + '"',
  "{label: {like: \"%\"}}", "[{label: \"x\"}]", "{label: \"y\"}"];
const argNames = ["first", "last", "offset", "after", "before", "filter", "orderBy", "objects", "set", "atMost", "id", "nodeId", "name"];
const junk = ["{", "}", "(", ")", "...", "@skip(if: true)", "@include(if: $v)", "fragment", "on", "query", "mutation",
  "subscription", "$", ":", "!", "[", "]", "\"", "#", "\u0000", "\ud83d", "é", "\\", "=", "|", "&"];

export function hostileRequests(count: number, seed = 1): HostileRequest[] {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (n: number) => Math.floor(rnd() * n);

  const selection = (depth: number): string => {
    const parts: string[] = [];
    const n = 1 + int(4);
    for (let i = 0; i < n; i++) {
      const alias = rnd() < 0.2 ? `a${int(100)}: ` : "";
      const args = rnd() < 0.3 ? `(${pick(argNames)}: ${pick(argValues)})` : "";
      const sub = depth > 0 && rnd() < 0.6 ? ` { ${selection(depth - 1)} }` : "";
      parts.push(`${alias}${pick(fields)}${args}${sub}`);
    }
    if (rnd() < 0.1) parts.push(`...F${int(3)}`);
    if (rnd() < 0.05) parts.push("... on Query { __typename }");
    return parts.join(" ");
  };

  const document = (): string => {
    switch (int(10)) {
      case 0: // random tokens
        return Array.from({ length: 1 + int(40) }, () => (rnd() < 0.5 ? pick(junk) : pick(fields))).join(" ");
      case 1: // deep nesting
        return "{ a ".repeat(1 + int(5000)) + "}".repeat(int(5000));
      case 2: // wide aliases
        return `{ ${Array.from({ length: int(5000) }, (_, i) => `a${i}: __typename`).join(" ")} }`;
      case 3: // fragment cycles and chains
        return `{ ...F0 } fragment F0 on Query { ...F1 ...F1 } fragment F1 on Query { ...F2 ...F2 } fragment F2 on Query { ...F0 __typename }`;
      case 4:
        return `mutation($v: ${pick(["Int", "BigInt", "String", "[Int!]!", "JSON", "Nope"])}) { ${selection(2)} }`;
      default:
        return `${pick(["", "query", "query Q", "query($v: Int)", "query($v: String!)", "mutation"])} { ${selection(3)} } ${
          rnd() < 0.2 ? `fragment F${int(3)} on ${pick(["Query", "item", "Nope"])} { ${selection(1)} }` : ""
        }`;
    }
  };

  const variables = (): string => {
    switch (int(8)) {
      case 0:
        return `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`;
      case 1:
        return '{"v": 9007199254740993123456789, "w": 1e400, "x": -0.0000000000000000000000000000001}';
      case 2:
        return '{"__proto__": {"polluted": true}, "constructor": {"prototype": {}}}';
      case 3:
        return `{"v": "${"\\u0000".repeat(int(3))}\\ud800"}`;
      case 4:
        return JSON.stringify({ v: rnd() < 0.5 ? int(1e6) : "x".repeat(int(100_000)) });
      case 5:
        return pick(["[1]", "1", '"x"', "null", "{", "{}}", '{"v": NaN}', '{"v": undefined}']);
      default:
        return JSON.stringify({ v: pick([1, "1", null, true, [1, 2], { eq: 1 }]) });
    }
  };

  const requests: HostileRequest[] = [];
  for (let i = 0; i < count; i++) {
    const query = document();
    const vars = rnd() < 0.6 ? variables() : undefined;
    const operationName = rnd() < 0.1 ? pick(['"Q"', "1", "null", '"nope"']) : undefined;
    const apiKey = rnd() < 0.03 ? pick(["", "x", "a.b.c", "eyJhbGciOiJub25lIn0.e30."]) : undefined;
    if (rnd() < 0.2) {
      const search = new URLSearchParams({ query });
      if (vars !== undefined) search.set("variables", vars.slice(0, 2000));
      requests.push({ method: "GET", payload: search.toString().slice(0, 6000), contentType: "application/json", apiKey });
      continue;
    }
    let body = `{"query": ${JSON.stringify(query)}${vars === undefined ? "" : `, "variables": ${vars}`}${
      operationName === undefined ? "" : `, "operationName": ${operationName}`
    }}`;
    if (rnd() < 0.05) body = body.slice(0, int(body.length)); // truncated
    const contentType = rnd() < 0.03 ? pick(["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"]) : "application/json";
    requests.push({ method: "POST", payload: body, contentType, apiKey });
  }
  return requests;
}
