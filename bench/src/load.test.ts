import assert from "node:assert/strict";
import { test } from "node:test";
import { median, steadyFigures, wrkRun, wrkScript } from "./load";

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

test("steady figures leave out each client's first transaction, and the warm-up when asked", () => {
  const client = (ends: number[]) => ends.map((endUs, i) => ({ endUs, latencyUs: 100 + i }));
  // Two clients, a transaction every 1 ms from 1 ms on; the first ones are slow cold starts.
  const runs = () => [client([1000, 2000, 3000, 4000, 5000]), client([1500, 2500, 3500, 4500])];
  const cold = steadyFigures(runs(), 0);
  assert.equal(cold.transactions, 9);
  assert.equal(cold.latencies.length, 7);
  assert.equal(cold.steadyRps, 2000);
  // A warm-up of 2 ms from the first end (1 ms): counted from 3 ms on, spans anchored before that.
  const warm = steadyFigures(runs(), 0.002);
  assert.equal(warm.transactions, 9);
  assert.deepEqual(warm.latencies, [102, 103, 103, 104]);
  assert.equal(warm.steadyRps, 2000);
  // A client with nothing after its first transaction has no steady rate.
  assert.equal(steadyFigures([client([1000])], 0).steadyRps, undefined);
});
