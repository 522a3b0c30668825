// Platform stage: a change one server process makes to how a project's data API runs (its
// settings, network restrictions, read-only mode, database, bans) → every other process over the
// same platform database, by NOTIFY on that database, so they act on it before their next request
// instead of at their next sweep. pg-listen keeps the LISTEN connection (reconnecting when it
// drops); notifications missed meanwhile are made up for at once on reconnection, and by the sweep.
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import createSubscriber, { type Subscriber } from "pg-listen";
import type { Sql } from "./sql";

export const changeChannel = "pg_graphql_project_changes";
/** The application_name of each process's listening connection. */
export const listenerName = "pg_graphql_platform_changes";

export type ProjectChange =
  /** Its data API settings or its database changed: reopen its pool. */
  | { kind: "dataApi"; ref: string }
  /** An address was banned from it or unbanned. */
  | { kind: "bans"; ref: string }
  /** Its database is being copied: close its pool and hold new requests for at most `ms`. */
  | { kind: "hold"; ref: string; ms: number }
  /** The copy is done: held requests go on. */
  | { kind: "resume"; ref: string };

interface Envelope {
  origin: string;
  change: ProjectChange;
}

export interface ChangeHandlers {
  changed(change: ProjectChange): Promise<void>;
  /** Called after the listener reconnected: notifications may have been missed. */
  resync(): Promise<void>;
}

export class ChangeFeed {
  /** This process: its own notifications come back to it and are skipped. */
  private readonly origin = randomUUID();
  private subscriber: Subscriber | undefined;

  constructor(
    private readonly platform: Sql,
    private readonly platformUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Tells the other processes; a failure is logged only (their sweep finds the change). */
  async announce(change: ProjectChange): Promise<void> {
    const envelope: Envelope = { origin: this.origin, change };
    try {
      await this.platform.rows("select pg_notify($1, $2)", [changeChannel, JSON.stringify(envelope)]);
    } catch (e) {
      this.log.warn({ err: e, change }, "could not tell other server processes about a project change");
    }
  }

  async listen(handlers: ChangeHandlers): Promise<void> {
    const subscriber = createSubscriber(
      { connectionString: this.platformUrl, application_name: listenerName },
      { retryTimeout: 0, retryInterval: (attempt) => Math.min(250 * 2 ** attempt, 10_000) },
    );
    const run = (work: Promise<void>) => work.catch((e: unknown) => this.log.warn({ err: e }, "acting on a project change failed"));
    let connections = 0;
    subscriber.events.on("connected", () => {
      connections += 1;
      if (connections > 1) void run(handlers.resync());
    });
    subscriber.events.on("error", (e) => this.log.warn({ err: e }, "listening for project changes failed"));
    subscriber.notifications.on(changeChannel, (envelope: Envelope | undefined) => {
      if (envelope?.change && envelope.origin !== this.origin) void run(handlers.changed(envelope.change));
    });
    await subscriber.connect();
    await subscriber.listenTo(changeChannel);
    this.subscriber = subscriber;
  }

  async close(): Promise<void> {
    await this.subscriber?.close().catch(() => {});
    this.subscriber = undefined;
  }
}
