import assert from "node:assert/strict";
import { test } from "node:test";
import { fileLabel, summarizeProfile } from "./cpuProfile";

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });

test("self time goes to each sample's frame, idle time to none", () => {
  const summary = summarizeProfile({
    nodes: [
      { id: 1, callFrame: frame("(idle)", "") },
      { id: 2, callFrame: frame("query", "file:///app/node_modules/pg/lib/client.js") },
      { id: 3, callFrame: frame("answer", "file:///app/server/src/graphqlRoutes.ts") },
    ],
    samples: [1, 2, 3, 2, 1],
    timeDeltas: [5000, 1000, 1000, 2000, 9000],
  });
  assert.equal(summary.totalMs, 4);
  assert.deepEqual(summary.byFile, [
    { name: "pg", share: 0.75 },
    { name: "src/graphqlRoutes.ts", share: 0.25 },
  ]);
  assert.deepEqual(summary.byFunction[0], { name: "query pg:10", share: 0.75 });
});

test("files read as their package, a Node module or the end of their path", () => {
  assert.equal(fileLabel("file:///x/node_modules/@fastify/cors/index.js"), "@fastify/cors");
  assert.equal(fileLabel("node:events"), "node:events");
  assert.equal(fileLabel("file:///repo/server/dist/main.mjs"), "dist/main.mjs");
  assert.equal(fileLabel(""), "(native or V8)");
});
