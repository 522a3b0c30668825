// OpenAPI stage: the adjusted document → the generated operation types (server/tools/
// managementTypes.mjs): every operation a handler serves is typed, and the two changes made for
// the generator hold (the logs alias left out, a defaulted parameter typed as present).
import { describe, expect, it } from "vitest";
import { managementTypes } from "../../../tools/managementTypes.mjs";
import { allHandlers } from "../areas";

describe("generated Management API types", () => {
  it("types every implemented operation once, with defaulted parameters present", async () => {
    const text = await managementTypes();
    for (const operationId of allHandlers().keys()) {
      expect(text.split(`\n    "${operationId}": {\n`).length - 1, operationId).toBe(1);
    }
    expect(text).not.toContain('"/v1/projects/{ref}/analytics/endpoints/logs": {');
    const listing = text.slice(text.indexOf('\n    "v1-get-all-projects-for-organization": {'));
    expect(listing.slice(0, listing.indexOf("header?"))).toMatch(/\n\s+offset: number;[\s\S]*\n\s+limit: number;[\s\S]*\n\s+search\?: string;/);
  }, 60_000);
});
