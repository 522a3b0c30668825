// Bench entry: the platform section alone (`make -C bench platform`), for the large run with
// BENCH_PLATFORM_PROJECTS=1000. Output: its table and targets on stdout and in
// bench/.out/<date>/platform.md; the published report is left as it is.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchDir, repoDir } from "./engines";
import { measurePlatform, platformSettings, renderPlatform } from "./platform";
import { platformTargets } from "./platformTargets";
import { commitDescription, loadAverage, machineDescription } from "./report";

const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

async function main(): Promise<number> {
  const outDir = join(benchDir, ".out", new Date().toISOString().replace(/[:.]/g, "-"));
  mkdirSync(outDir, { recursive: true });
  const workDir = mkdtempSync(join(outDir, "work-"));
  const load = loadAverage();
  const commit = commitDescription(repoDir);
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  try {
    const f = await measurePlatform({ ...platformSettings(), seconds, workDir, log });
    const targets = platformTargets(f);
    const markdown = [
      "## Platform run",
      "",
      `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}`,
      `- Commit: ${commit}`,
      `- Machine: ${machineDescription()}`,
      `- Load average (1 min) before the run: ${load.toFixed(2)}`,
      "",
      "| Target | Measured | Result |",
      "| --- | --- | --- |",
      ...targets.map((t) => `| ${t.name} | ${t.measured} | ${t.pass ? "PASS" : "MISS"} |`),
      "",
      ...renderPlatform(f),
    ].join("\n");
    writeFileSync(join(outDir, "platform.md"), markdown);
    process.stdout.write(`${markdown}\n`);
    return targets.every((t) => t.pass) ? 0 : 1;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(`failed: ${(e as Error).stack ?? String(e)}`);
    process.exit(2);
  },
);
