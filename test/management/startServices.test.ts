// Management API start-up: while the platform database cannot be reached the start is retried
// with a logged back-off, and it starts once the database answers; a lasting or non-transient
// failure still fails the start, after the bounded tries.
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { defaultSettings } from "../../server/src/config";
import { dataApiSettings } from "../../server/src/management/plugin";
import { isTransient, startServices } from "../../server/src/management/startServices";
import type { ManagementConfig } from "../../server/src/management/managementConfig";
import { clusterInfo } from "../harness/db";
import { adminQuery, clusterUrl } from "./support";
import { dropLogsDatabase } from "../../server/src/management/logs/logsDatabase";

const info = clusterInfo();
const folder = mkdtempSync(join(tmpdir(), "start-retries-"));
const database = `platform_start_${process.pid}`;
const servers: Server[] = [];

afterAll(async () => {
  for (const s of servers) s.close();
  await adminQuery(clusterUrl(info), `drop database if exists "${database}" with (force)`);
  await dropLogsDatabase(clusterUrl(info), database);
  rmSync(folder, { recursive: true, force: true });
});

/** A log that keeps what was said. */
function recordingLog() {
  const lines: Array<{ level: string; fields: any; message: string }> = [];
  const at = (level: string) => (fields: any, message: string) => lines.push({ level, fields, message });
  const log: any = { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug"), trace: () => {}, fatal: at("fatal") };
  log.child = () => log;
  return { log, lines };
}

/** The platform database behind a socket folder with no server in it until `open` is called. */
function lateDatabase(): { config: ManagementConfig; open(): Promise<void> } {
  const port = 6000 + (process.pid % 1000);
  const platformDatabaseUrl = `postgresql://postgres@/${database}?host=${encodeURIComponent(folder)}&port=${port}`;
  return {
    config: configAt(platformDatabaseUrl),
    open: () =>
      new Promise((resolve) => {
        // Passes each connection on to the run's cluster.
        const proxy = createServer((client) => {
          const upstream = connect(join(info.host, `.s.PGSQL.${info.port}`));
          client.pipe(upstream).pipe(client);
          client.on("error", () => upstream.destroy());
          upstream.on("error", () => client.destroy());
        });
        servers.push(proxy);
        proxy.listen(join(folder, `.s.PGSQL.${port}`), () => resolve());
      }),
  };
}

const options = (log: any) => ({ log, dataApi: dataApiSettings({ ...defaultSettings(), management: {} }) });
const configAt = (platformDatabaseUrl: string): ManagementConfig => ({ platformDatabaseUrl, projectServers: [clusterUrl(info)], rateLimit: 1000, now: Date.now });

it("tries again, logging each failure, and starts once the platform database answers", async () => {
  const late = lateDatabase();
  const { log, lines } = recordingLog();
  const waits: number[] = [];
  const services = await startServices(late.config, options(log), { attempts: 5, firstDelayMs: 100, maxDelayMs: 150 }, async (ms) => {
    waits.push(ms);
    if (waits.length === 2) await late.open();
  });
  try {
    expect(waits).toEqual([100, 150]);
    const warnings = lines.filter((l) => l.level === "warn");
    expect(warnings.map((w) => [w.fields.attempt, w.fields.of, w.fields.retryInMs])).toEqual([[1, 5, 100], [2, 5, 150]]);
    expect(warnings[0]!.message).toBe("Management API start-up failed for a reason that may pass; trying again");
    expect(lines.find((l) => l.message === "Management API services started")?.fields.attempt).toBe(3);
    expect(await services.platform.rows("select 1 as one")).toEqual([{ one: 1 }]);
  } finally {
    await services.close();
  }
});

it("gives up after the bounded tries with the last error", async () => {
  const { log, lines } = recordingLog();
  const config = configAt(`postgresql://postgres@/${database}?host=${encodeURIComponent(join(folder, "nowhere"))}&port=5432`);
  let slept = 0;
  await expect(startServices(config, options(log), { attempts: 3, firstDelayMs: 1, maxDelayMs: 1 }, async () => void (slept += 1))).rejects.toMatchObject({
    code: "ENOENT",
  });
  expect(slept).toBe(2);
  expect(lines.filter((l) => l.level === "warn")).toHaveLength(2);
});

it("does not retry a failure that will not pass", async () => {
  const { log } = recordingLog();
  const config = configAt(clusterUrl(info, database, "no_such_login"));
  let slept = 0;
  await expect(startServices(config, options(log), { attempts: 3, firstDelayMs: 1, maxDelayMs: 1 }, async () => void (slept += 1))).rejects.toMatchObject({
    code: "28000",
  });
  expect(slept).toBe(0);
  expect(isTransient(Object.assign(new Error("too many clients already"), { code: "53300" }))).toBe(true);
  expect(isTransient(Object.assign(new Error("syntax error"), { code: "42601" }))).toBe(false);
});
