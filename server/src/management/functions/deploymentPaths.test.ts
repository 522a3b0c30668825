import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deployedFileName, deployedFileUrl, storedPath } from "./deploymentPaths";

const d = { ref: "abcdefghijklmnopqrst", id: "2b1e7c8e-0000-4000-8000-000000000001", version: 3 };
const base = `/tmp/user_fn_${d.ref}_${d.id}_3/source/`;

describe("deployment paths", () => {
  it("names a stored path as a file URL and a body part under the deployment's base", () => {
    expect(deployedFileUrl(d, "supabase/functions/hi/index.ts")).toBe(`file://${base}supabase/functions/hi/index.ts`);
    expect(fileURLToPath(deployedFileUrl(d, "a b/ü.ts"))).toBe(`${base}a b/ü.ts`);
    expect(deployedFileName(d, "index.ts")).toBe(`${base}index.ts`);
  });

  it("takes what clients send back for the stored path", () => {
    expect(storedPath(deployedFileUrl(d, "a b/ü.ts"))).toBe("a b/ü.ts");
    expect(storedPath(`${base}deno.json`)).toBe("deno.json");
    expect(storedPath("file:///tmp/user_fn_other_x_1/source/index.ts")).toBe("index.ts");
    expect(storedPath("index.ts")).toBe("index.ts");
    expect(storedPath("file:///home/me/index.ts")).toBe("file:///home/me/index.ts");
    expect(storedPath("file://host/share/x.ts")).toBe("file://host/share/x.ts");
  });
});
