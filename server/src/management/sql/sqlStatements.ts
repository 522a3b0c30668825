// Project stage: SQL text → its statements (text and kind) with PostgreSQL's own parser
// (libpg-query), as the supabase CLI records them, and the ones a migration cannot contain.
import { loadModule, parseSync } from "libpg-query";
import { invalid } from "../errors/domainError";

export interface Statement {
  text: string;
  /** The parse node's type, e.g. `CreateStmt`, `IndexStmt`. */
  kind: string;
  node: Record<string, unknown>;
}

interface RawStatement {
  stmt?: Record<string, Record<string, unknown>>;
  stmt_location?: number;
  stmt_len?: number;
}

let loaded: Promise<void> | undefined;

/** The statements of `text`; a syntax error is the caller's (400 with the parser's message). */
export async function splitStatements(text: string): Promise<Statement[]> {
  loaded ??= loadModule();
  await loaded;
  let parsed: { stmts?: RawStatement[] };
  try {
    parsed = parseSync(text) as { stmts?: RawStatement[] };
  } catch (e) {
    throw invalid(`Failed to parse the SQL: ${(e as Error).message}`);
  }
  // Locations are byte offsets into the UTF-8 text.
  const bytes = Buffer.from(text, "utf8");
  return (parsed.stmts ?? []).map((raw) => {
    const start = raw.stmt_location ?? 0;
    const end = raw.stmt_len ? start + raw.stmt_len : bytes.length;
    const [kind, node] = Object.entries(raw.stmt ?? {})[0] ?? ["Unknown", {}];
    return { text: bytes.subarray(start, end).toString("utf8").trim(), kind, node };
  });
}

// Transaction control other than savepoints would end the migration's own transaction.
const allowedTransactionKinds = new Set(["TRANS_STMT_SAVEPOINT", "TRANS_STMT_RELEASE", "TRANS_STMT_ROLLBACK_TO"]);

/** Why a statement cannot be part of a migration (which runs in one transaction), if it cannot. */
export function notInMigration(statement: Statement): string | undefined {
  const { kind, node } = statement;
  const options = (node["params"] as { DefElem?: { defname?: string } }[] | undefined) ?? [];
  switch (kind) {
    case "TransactionStmt":
      return allowedTransactionKinds.has(String(node["kind"])) ? undefined : "transaction control (BEGIN, COMMIT, ROLLBACK)";
    case "IndexStmt":
      return node["concurrent"] ? "CREATE INDEX CONCURRENTLY" : undefined;
    case "DropStmt":
      return node["concurrent"] ? "DROP INDEX CONCURRENTLY" : undefined;
    case "ReindexStmt":
      return options.some((o) => o.DefElem?.defname === "concurrently") ? "REINDEX CONCURRENTLY" : undefined;
    case "VacuumStmt":
      return node["is_vacuumcmd"] ? "VACUUM" : undefined;
    case "CreatedbStmt":
    case "DropdbStmt":
    case "AlterSystemStmt":
    case "CreateTableSpaceStmt":
    case "DropTableSpaceStmt":
      return kind.replace(/Stmt$/, "");
    default:
      return undefined;
  }
}
