// Management API start-up: the configuration → the opened services (platform database made and
// migrated, project servers ready, half-made projects finished), retried with a bounded, logged
// back-off while the databases are unreachable or busy. It runs before the Management API's
// plugin is registered, so a slow start is slow, never cut short by the plugin's load timeout.
import type { ManagementConfig } from "./managementConfig";
import { openServices, type ServiceOptions, type Services } from "./services";

export interface StartRetries {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled after each failure, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

export const startRetries: StartRetries = { attempts: 8, firstDelayMs: 500, maxDelayMs: 15_000 };

// Connection exceptions, too many connections and the like, a server starting or shutting
// down, and the conflicts of two processes migrating at once: worth another try.
const transientStates = /^(08|53|57P0[1-4]|40001|40P01|55P03)/;
const transientNodeCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOENT", "EAI_AGAIN"]);

export function isTransient(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === "string" && (transientStates.test(code) || transientNodeCodes.has(code))) return true;
  const message = e instanceof Error ? e.message : String(e);
  return /timeout exceeded when trying to connect|Connection terminated|the database system is (starting up|shutting down)/i.test(message);
}

export async function startServices(
  config: ManagementConfig,
  options: ServiceOptions,
  retries: StartRetries = startRetries,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<Services> {
  let delay = retries.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    try {
      const services = await openServices(config, options);
      options.log.info({ attempt, ms: Date.now() - started }, "Management API services started");
      return services;
    } catch (e) {
      if (attempt >= retries.attempts || !isTransient(e)) throw e;
      options.log.warn(
        { attempt, of: retries.attempts, retryInMs: delay, err: e },
        "Management API start-up failed for a reason that may pass; trying again",
      );
      await sleep(delay);
      delay = Math.min(delay * 2, retries.maxDelayMs);
    }
  }
}
