// Bench stage: verdicts of the platform section. Input: its figures (platform.ts). Output:
// PASS/MISS for each of its targets; "not measured" (MISS) when the section did not run.
import type { PlatformFigures } from "./platform";
import type { Target } from "./report";

/** Projects in rotation whose req/s is judged, and the least share of one project's req/s. */
const judgedRotation = 100;
const minRotationShare = 0.7;
/** With many projects held and some active: the p99 bound, as a multiple of one project's. */
const maxP99Times = 4;
const maxBranchMs = 3000;

export function platformTargets(f: PlatformFigures | undefined): Target[] {
  const unmeasured = (name: string): Target => ({ name, measured: "not measured", pass: false });
  const burstName = "Platform: 50 project operations at once (40 creates, 5 deletes, 5 branch creates) all answered";
  const rotationName = `Platform: ${judgedRotation} projects in rotation (8 clients) at least ${minRotationShare}× one project's req/s, no request failed`;
  const largeName = (n: number) => `Platform: ${n} projects held, 50 of them in rotation: p99 under ${maxP99Times}× one project's p99, no request failed`;
  const restName = "Platform: an idle project holds no backend (data API connections at rest)";
  const loadName = "Platform: data API connections under load within the server's budget";
  const branchName = `Platform: branch with data of a ~100 MB project at most ${maxBranchMs / 1000} s while the parent is in use (its requests all answered)`;
  if (!f) return [burstName, rotationName, largeName(200), restName, loadName, branchName].map(unmeasured);
  const rotation = f.rotation.get(judgedRotation);
  const failures = (rotation?.failures ?? 0) + f.one.failures;
  return [
    {
      name: burstName,
      measured: `${f.concurrent.requests - f.concurrent.failed.length} of ${f.concurrent.requests} (creates p50 ${(f.concurrent.creates.p50Ms / 1000).toFixed(1)} s, slowest answer ${(f.concurrent.all.maxMs / 1000).toFixed(1)} s)`,
      pass: f.concurrent.requests === 50 && f.concurrent.failed.length === 0,
    },
    rotation
      ? {
          name: rotationName,
          measured: `${rotation.ratio.median.toFixed(2)}× (${rotation.ratio.low.toFixed(2)}–${rotation.ratio.high.toFixed(2)}, ${rotation.ratio.n} rounds; ${rotation.rps.toFixed(0)} against ${f.one.rps.toFixed(0)} req/s), ${failures} failed (\`{ __typename }\`, no table read: ${f.empty.ratio.median.toFixed(2)}×)`,
          pass: rotation.ratio.median >= minRotationShare && failures === 0,
        }
      : unmeasured(rotationName),
    {
      name: largeName(f.projects),
      measured: `${f.large.p99Ratio.median.toFixed(2)}× (${f.large.p99Ms.toFixed(1)} against ${f.one.p99Ms.toFixed(1)} ms), ${f.large.failures} failed`,
      pass: f.large.p99Ratio.median < maxP99Times && f.large.failures === 0,
    },
    { name: restName, measured: `${f.connections.atRest} backends`, pass: f.connections.atRest === 0 },
    { name: loadName, measured: `at most ${f.connections.underLoadMax} of ${f.budget}`, pass: f.connections.underLoadMax <= f.budget },
    {
      name: branchName,
      measured: `${(f.branch.inUseMs / 1000).toFixed(2)} s for ${f.branch.sizeMiB.toFixed(0)} MiB, ${f.branch.inUseCopy === "template" ? "a template copy" : "by dump"} (parent idle: ${(f.branch.idleMs / 1000).toFixed(2)} s); ${f.branch.parentFailures} of the parent's requests failed`,
      pass: f.branch.inUseMs <= maxBranchMs && f.branch.parentFailures === 0,
    },
  ];
}
