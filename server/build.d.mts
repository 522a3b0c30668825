// Types for build.mjs, so tests can build the bundles into a folder of their own.
export function buildServer(outDir?: string): Promise<void>;
export function buildGraphiql(outDir?: string): Promise<void>;
export function buildDashboard(outDir?: string): Promise<void>;
