import { describe, expect, it } from "vitest";
import { withBlock } from "./hbaBlock";

const general = "# TYPE DATABASE USER ADDRESS METHOD\nlocal all all trust\nhost all all 0.0.0.0/0 scram-sha-256";
const open = { v4: ["0.0.0.0/0"], v6: ["::/0"] };

describe("withBlock", () => {
  it("puts the project's block before the general rules, with SSL refusal first", () => {
    const text = withBlock(general, "db", { networks: { v4: ["10.0.0.0/8"], v6: [] }, sslOnly: true });
    expect(text.split("\n").slice(0, 6)).toEqual([
      "# BEGIN managed network restrictions of database db",
      'hostnossl "db" all all reject',
      'host "db" all 10.0.0.0/8 scram-sha-256',
      'host "db" all 0.0.0.0/0 reject',
      'host "db" all ::/0 reject',
      "# END managed network restrictions of database db",
    ]);
    expect(text.endsWith(general)).toBe(true);
  });

  it("replaces the block on a change and removes it when nothing is restricted, leaving other blocks", () => {
    const other = withBlock(general, "other", { networks: { v4: ["10.0.0.0/8"], v6: [] }, sslOnly: false });
    const once = withBlock(other, "db", { networks: open, sslOnly: true });
    const twice = withBlock(once, "db", { networks: open, sslOnly: true });
    expect(twice).toBe(once);
    expect(withBlock(twice, "db", { networks: open, sslOnly: false })).toBe(other);
  });
});
