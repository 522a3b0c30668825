// Setup stage: a superuser connection → plv8 added to shared_preload_libraries (appended to what
// is there, with ALTER SYSTEM), or advice to do so. Preloaded, plv8 is not loaded again by each
// new connection on its first request (~0.3 s, visible in p99 latency).
import format from "pg-format";
import type pg from "pg";

const restart = "restart PostgreSQL for it to take effect";

/** The libraries a list setting names, as PostgreSQL splits them. */
function libraries(setting: string): string[] {
  return setting.split(",").map((s) => s.trim().replace(/^"(.*)"$/, "$1")).filter((s) => s.length > 0);
}

/** Adds plv8 when `apply` is set; either way says what the server has and what to do. */
export async function preloadPlv8(client: pg.Client, apply: boolean): Promise<string> {
  // The value the next start will use: a pending ALTER SYSTEM counts, the running value otherwise.
  const { rows } = await client.query<{ setting: string; pending: boolean }>(`
    select coalesce((select setting from pg_file_settings
                      where name = 'shared_preload_libraries' and applied is not null
                      order by seqno desc limit 1),
                    current_setting('shared_preload_libraries')) as setting,
           exists (select 1 from pg_file_settings where name = 'shared_preload_libraries' and not applied) as pending`);
  const current = libraries(rows[0]!.setting);
  if (current.includes("plv8")) {
    return rows[0]!.pending
      ? `plv8 is in shared_preload_libraries from the next start: ${restart}`
      : "plv8 is preloaded (shared_preload_libraries)";
  }
  if (!apply) {
    return "plv8 is not in shared_preload_libraries, so each new connection loads it on its first request (~0.3 s): " +
      "run setup again with --preload-plv8 (as a superuser), then restart PostgreSQL";
  }
  const wanted = [...current, "plv8"];
  await client.query(format("alter system set shared_preload_libraries = %s", wanted.map((l) => format.literal(l)).join(", ")));
  return `shared_preload_libraries is now '${wanted.join(", ")}' (postgresql.auto.conf): ${restart}`;
}
