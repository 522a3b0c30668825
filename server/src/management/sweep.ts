// Settings stage: the periodic pass that keeps time-bound settings true: each active project's
// read-only mode measured and applied (an ended override puts it back), its daily backup taken
// when due, other processes' bans loaded and pools whose stored settings changed reopened (when
// another process's announcement was missed), expired login roles dropped and just-in-time grants
// past their time revoked. Tests call `sweep` with
// a fake clock instead of waiting for the timer.
import type { FastifyBaseLogger } from "fastify";
import { runEvery } from "./platform/periodic";
import type { Services } from "./services";

export async function sweep(services: Services, log?: FastifyBaseLogger): Promise<void> {
  const active = await services.projects.withStatus(["ACTIVE_HEALTHY"]);
  for (const project of active) {
    try {
      await services.readOnly.refresh(project);
    } catch (e) {
      log?.warn({ err: e, ref: project.ref }, "read-only mode check failed");
    }
    try {
      await services.backups.takeIfDue(project);
    } catch (e) {
      log?.warn({ err: e, ref: project.ref }, "scheduled backup failed");
    }
  }
  try {
    await services.bans.refresh();
    await services.pools.dropStale();
    await services.loginRoles.dropExpired();
    await services.jit.revokeExpired(active);
  } catch (e) {
    log?.warn({ err: e }, "refreshing bans or dropping expired roles and grants failed");
  }
}

/** Runs `sweep` every `everyMs` until the returned function is called. */
export function startSweeps(services: Services, log: FastifyBaseLogger, everyMs = 30_000): () => void {
  return runEvery(everyMs, () => sweep(services, log));
}
