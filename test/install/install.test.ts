// `make install` on a machine that already runs PostgreSQL: it leaves a running Debian cluster
// running, keeps a PLV8 made elsewhere (installing only pg_graphql for it) unless PLV8=handler
// asks for this repository's handler, and `make test` then still tests the handler. Each case
// works on a copy of the PostgreSQL tree (scripts/pgtree.sh), never on the tree in use.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../harness/tcpCluster";

const root = join(import.meta.dirname, "..", "..");
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const hasDebianTools = spawnSync("which", ["pg_createcluster"]).status === 0;

// The outer test run's own variables would make a nested vitest think it is a worker.
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("VITEST") && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, NO_COLOR: "1", ...extra };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  const out = spawnSync(cmd, args, { cwd: root, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { status: out.status, output: `${out.stdout}${out.stderr}` };
}

// A stand-in for a PLV8 built from its own sources: its control file names its own library.
const foreignControl = `# plv8 extension
comment = 'PL/JavaScript (v8) trusted procedural language'
default_version = '3.2.3'
module_pathname = '$libdir/plv8-3.2.3'
relocatable = false
schema = pg_catalog
superuser = true
`;

describe("make install beside an existing PostgreSQL", () => {
  let work: string;
  let bin: string;
  let extdir: string;
  let libdir: string;
  let env: NodeJS.ProcessEnv;
  const debianCluster = { confRoot: "", name: "graphqltest", started: false };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "install-test-"));
    chmodSync(work, 0o755);
    bin = execFileSync(join(root, "scripts", "pgtree.sh"), [join(work, "tree")], { encoding: "utf8" }).trim();
    const pgConfig = (flag: string) => execFileSync(join(bin, "pg_config"), [flag], { encoding: "utf8" }).trim();
    extdir = join(pgConfig("--sharedir"), "extension");
    libdir = pgConfig("--pkglibdir");
    // The copied tree holds whatever the tree in use had; make it a tree with another PLV8.
    for (const f of [join(extdir, "plv8--0.1.0.sql"), join(libdir, "plv8.so"), join(libdir, "libnode.so.108"), join(extdir, "pg_graphql.control")]) {
      if (existsSync(f)) unlinkSync(f);
    }
    writeFileSync(join(extdir, "plv8.control"), foreignControl);
    writeFileSync(join(extdir, "plv8--3.2.3.sql"), "-- PLV8 3.2.3\n");
    writeFileSync(join(libdir, "plv8-3.2.3.so"), "not this repository's library\n");
    env = cleanEnv({ PATH: `${bin}:${process.env.PATH}` });

    if (isRoot && hasDebianTools) {
      // A Debian-managed cluster, as an operator's database server runs it (pg_lsclusters and
      // pg_ctlcluster look in PG_CLUSTER_CONF_ROOT instead of /etc/postgresql).
      debianCluster.confRoot = join(work, "etc");
      const socketDir = join(work, "sock");
      execFileSync("mkdir", ["-p", debianCluster.confRoot, socketDir]);
      execFileSync("chown", ["postgres:postgres", socketDir]);
      const port = String(await freePort());
      execFileSync(
        "pg_createcluster",
        ["15", debianCluster.name, "-u", "postgres", "-d", join(work, "data"), "-s", socketDir, "-l", join(work, "cluster.log"), "-p", port, "--start"],
        { env: { ...process.env, PG_CLUSTER_CONF_ROOT: debianCluster.confRoot }, stdio: "ignore" },
      );
      debianCluster.started = true;
      env.PG_CLUSTER_CONF_ROOT = debianCluster.confRoot;
    }
  });

  afterAll(() => {
    if (debianCluster.started) {
      spawnSync("pg_ctlcluster", ["15", debianCluster.name, "stop", "-m", "immediate"], {
        env: { ...process.env, PG_CLUSTER_CONF_ROOT: debianCluster.confRoot },
        stdio: "ignore",
      });
    }
    rmSync(work, { recursive: true, force: true });
  });

  const clusterStatus = () =>
    execFileSync("pg_lsclusters", ["-h"], { env: { ...process.env, PG_CLUSTER_CONF_ROOT: debianCluster.confRoot }, encoding: "utf8" });

  it("keeps a PLV8 made elsewhere, installs pg_graphql for it, and leaves a running cluster running", () => {
    if (debianCluster.started) expect(clusterStatus()).toMatch(/\bonline\b/);
    // The bundles are already built by this run's `make install`; rebuilding them here would
    // rewrite files other test files are reading.
    const { status, output } = run("make", ["-o", "build-extension", "-o", "build-server", "install"], env);
    expect(output).toContain("install: keeping the installed PLV8 (3.2.3)");
    expect(status).toBe(0);
    expect(readFileSync(join(extdir, "plv8.control"), "utf8")).toBe(foreignControl);
    expect(readFileSync(join(libdir, "plv8-3.2.3.so"), "utf8")).toBe("not this repository's library\n");
    expect(existsSync(join(libdir, "plv8.so"))).toBe(false);
    expect(existsSync(join(extdir, "pg_graphql.control"))).toBe(true);
    if (debianCluster.started) expect(clusterStatus()).toMatch(/\bonline\b/);
  });

  it("says which plv8 is installed", () => {
    const said = execFileSync(join(root, "scripts", "plv8-installed.sh"), [extdir], { encoding: "utf8" }).trim();
    expect(said).toBe("other 3.2.3");
  });

  it("still runs the handler's own tests on this repository's handler, leaving the other PLV8 in place", () => {
    const { status, output } = run(join(root, "scripts", "test.sh"), ["test/plv8/recursion.test.ts"], env);
    expect(output).toContain("is a PLV8 made elsewhere (3.2.3): testing on a copy of that tree");
    expect(output).toContain("install: plv8 is this repository's handler");
    expect(output).toMatch(/Tests\s+3 passed/);
    expect(status).toBe(0);
    expect(readFileSync(join(extdir, "plv8.control"), "utf8")).toBe(foreignControl);
    expect(existsSync(join(libdir, "plv8.so"))).toBe(false);
  });

  it("installs this repository's handler over it when asked with PLV8=handler", () => {
    const { status, output } = run("make", ["-o", "build-extension", "-o", "build-server", "install", "PLV8=handler"], env);
    expect(output).toContain("install: replacing the installed PLV8 (3.2.3) with this repository's handler");
    expect(status).toBe(0);
    expect(readFileSync(join(extdir, "plv8.control"), "utf8")).toMatch(/^# pg_graphql plv8 handler/);
    expect(existsSync(join(libdir, "plv8.so"))).toBe(true);
    expect(execFileSync(join(root, "scripts", "plv8-installed.sh"), [extdir], { encoding: "utf8" }).trim()).toBe("handler");
  });

  it("refuses an unknown PLV8 choice before installing anything", () => {
    const { status, output } = run("make", ["-o", "build-extension", "-o", "build-server", "install", "PLV8=newest"], env);
    expect(status).not.toBe(0);
    expect(output).toContain('install: PLV8 must be auto or handler, got "newest"');
  });
});
