// Execute stage (server side): an operation's kind → the database that runs it. Queries go to a
// read replica that is up and within the allowed lag (in turn), everything else to the primary.
// Replicas are checked in the background; a replica that fails a request is skipped at once and
// the request runs on the primary.
import { OperationTypeNode } from "graphql";
import type { ServerConfig } from "./config";
import { Database, type Outcome } from "./database";

export interface ReplicaState {
  url: string;
  usable: boolean;
  /** Why it is skipped, when it is. */
  reason: string | undefined;
}

// How far behind the primary a standby is: nothing when it has replayed all it received,
// otherwise the age of the last transaction it replayed.
const lagSql = `select pg_is_in_recovery() as standby,
  case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
       else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000, 'Infinity') end::float8 as lag_ms`;

class Replica {
  usable = false;
  reason: string | undefined = "not checked yet";

  constructor(
    readonly url: string,
    readonly database: Database,
  ) {}
}

export class ReplicaRouter {
  private readonly replicas: Replica[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly primary: Database,
    replicas: Array<{ url: string; database: Database }>,
    private readonly maxLagMs: number,
  ) {
    this.replicas = replicas.map((r) => new Replica(r.url, r.database));
  }

  /** Checks every replica now, then every `intervalMs` (the timer does not hold the process). */
  async start(intervalMs = 1000): Promise<void> {
    await this.check();
    if (this.replicas.length === 0) return;
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  async check(): Promise<void> {
    await Promise.all(this.replicas.map((r) => this.checkOne(r)));
  }

  private async checkOne(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.database.pool.query<{ standby: boolean; lag_ms: number }>(lagSql);
      const { standby, lag_ms: lag } = rows[0]!;
      replica.reason = lag > this.maxLagMs ? `${Math.round(lag)} ms behind the primary` : undefined;
      // A primary listed as a replica (e.g. after a failover) is as current as it gets.
      replica.usable = replica.reason === undefined || !standby;
    } catch (e) {
      replica.usable = false;
      replica.reason = `unreachable: ${(e as Error).message}`;
    }
  }

  states(): ReplicaState[] {
    return this.replicas.map((r) => ({ url: redact(r.url), usable: r.usable, reason: r.reason }));
  }

  /** Every database the router uses, the primary first. */
  databases(): Database[] {
    return [this.primary, ...this.replicas.map((r) => r.database)];
  }

  resolve(...args: Parameters<Database["resolve"]>): Promise<Outcome> {
    const replica = args[0] === OperationTypeNode.QUERY ? this.pickReplica() : undefined;
    // Without a usable replica the primary's promise is the answer: no extra step per request.
    return replica ? this.onReplica(replica, args) : this.primary.resolve(...args);
  }

  private async onReplica(replica: Replica, args: Parameters<Database["resolve"]>): Promise<Outcome> {
    const outcome = await replica.database.resolve(...args);
    if (outcome.kind !== "unavailable" && outcome.kind !== "missingExtension") return outcome;
    replica.usable = false;
    replica.reason = `failed a request: ${outcome.kind === "unavailable" ? outcome.message : outcome.kind}`;
    return this.primary.resolve(...args);
  }

  private pickReplica(): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length]!;
      if (replica.usable) {
        this.next = (this.next + i + 1) % this.replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  async end(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.database.end()));
  }
}

/** The primary's and replicas' pools, as the configuration sets them (not checked yet: start()). */
export function connectRouter(config: ServerConfig): ReplicaRouter {
  const connect = (connectionString: string) =>
    new Database({
      connectionString,
      poolSize: config.poolSize,
      statementTimeoutMs: config.statementTimeoutMs,
      preparedStatements: config.preparedStatements,
    });
  const replicas = config.replicaUrls.map((url) => ({ url, database: connect(url) }));
  return new ReplicaRouter(connect(config.databaseUrl), replicas, config.replicaMaxLagMs);
}

/** A connection string without its password, for logs and status. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@]*@/, "$1:***@");
}
