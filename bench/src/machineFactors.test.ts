import assert from "node:assert/strict";
import { test } from "node:test";
import { cpuTicks, stolenShares, type MachineFactors } from "./machineFactors";

const factors = (marks: Array<[string, { steal: number; total: number }]>): MachineFactors => ({
  cpu: "",
  nodeShaMs: 0,
  backendCountMs: 0,
  pageCacheMiB: 0,
  availableMiB: 0,
  sharedBuffersMiB: 0,
  loadBySection: [],
  cpuBySection: marks,
});

test("each section's steal runs from its start to the next section's, the last one to the end", () => {
  const f = factors([["a", { steal: 10, total: 1000 }], ["b", { steal: 60, total: 1200 }]]);
  assert.deepEqual(stolenShares(f, { steal: 60, total: 1400 }), [["a", 0.25], ["b", 0]]);
});

test("a section with no ticks counted has no steal", () => {
  assert.deepEqual(stolenShares(factors([["a", { steal: 5, total: 100 }]]), { steal: 5, total: 100 }), [["a", 0]]);
});

test("the machine's counters are read from /proc/stat", () => {
  const t = cpuTicks();
  assert.ok(t.total > 0 && t.steal >= 0 && t.steal <= t.total);
});
