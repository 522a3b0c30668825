// Bench stage: profiles. Input: V8 .cpuprofile files (`node --cpu-prof`). Output: self time
// shares by function and by file, the heaviest first, so a profile reads as where the CPU went.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  /** Of the profile's sampled time, 0–1. */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  byFunction: Share[];
  byFile: Share[];
}

/** A file's name as it reads best: the package for dependencies, the path below the repo otherwise. */
export function fileLabel(url: string): string {
  if (url === "") return "(native or V8)";
  const path = url.replace(/^file:\/\//, "");
  const inPackage = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inPackage) return inPackage[1]!;
  if (path.startsWith("node:")) return path;
  return path.split("/").slice(-2).join("/");
}

function ranked(times: Map<string, number>, total: number, top: number): Share[] {
  return [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, t]) => ({ name, share: total === 0 ? 0 : t / total }));
}

export function summarizeProfile(profile: Profile, top = 25): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    // A sample's delta is the time since the previous sample: it belongs to this sample's frame.
    const dt = profile.timeDeltas[i] ?? 0;
    const frame = nodes.get(id)!.callFrame;
    // Waiting for I/O is not CPU time.
    if (frame.functionName === "(idle)") return;
    const file = fileLabel(frame.url);
    const fn = `${frame.functionName || "(anonymous)"} ${file}${frame.url === "" ? "" : `:${frame.lineNumber + 1}`}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + dt);
    byFile.set(file, (byFile.get(file) ?? 0) + dt);
    total += dt;
  });
  return { totalMs: total / 1000, byFunction: ranked(byFunction, total, top), byFile: ranked(byFile, total, top) };
}

export function readProfile(path: string): Profile {
  return JSON.parse(readFileSync(path, "utf8")) as Profile;
}

export function renderSummary(title: string, s: ProfileSummary): string {
  const rows = (shares: Share[]) => shares.map((x) => `  ${(x.share * 100).toFixed(1).padStart(5)}%  ${x.name}`).join("\n");
  return `${title}: ${s.totalMs.toFixed(0)} ms sampled\n by file:\n${rows(s.byFile)}\n by function:\n${rows(s.byFunction)}\n`;
}
