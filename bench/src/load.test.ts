import assert from "node:assert/strict";
import { test } from "node:test";
import { median, wrkRun, wrkScript } from "./load";

test("the wrk script quotes bodies so that no text can end the Lua string early", () => {
  const script = wrkScript({ url: "http://127.0.0.1:1/", headers: { apikey: "k]]x" }, body: '{"query":"]=] ]]"}' }, 10);
  assert.match(script, /wrk\.body = \[==\[\{"query":"\]=\] \]\]"\}\]==\]/);
  // A header key never sits right after `[`, where `[[` would open a long string.
  assert.match(script, /wrk\.headers\[ \[=\[apikey\]=\] \] = \[=\[k\]\]x\]=\]/);
  assert.match(script, /if count >= 10 then wrk\.thread:stop\(\) end/);
});

test("load is refused for anything but loopback", () => {
  assert.throws(() => wrkRun({ url: "http://10.0.0.1/graphql", headers: {}, body: "{}" }, 1, { seconds: 1, maxRequests: 1 }, "."), /loopback only/);
});

test("median of odd and even counts", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});
