// Unit tests of the network filter a project's data API applies to client addresses.
import { describe, expect, it } from "vitest";
import { networkFilter } from "./networkRestrictions";

describe("networkFilter", () => {
  it("lets every address of a family through its /0 network", () => {
    const allows = networkFilter({ v4: ["0.0.0.0/0"], v6: ["::/0"] });
    for (const ip of ["127.0.0.1", "203.0.113.9", "::1", "2001:db8::1", "::ffff:10.0.0.1"]) expect(allows(ip), ip).toBe(true);
  });

  it("checks the other family's list when only one family is open", () => {
    const allows = networkFilter({ v4: ["0.0.0.0/0"], v6: ["2001:db8::/32"] });
    expect(allows("198.51.100.7")).toBe(true);
    expect(allows("2001:db8::5")).toBe(true);
    expect(allows("2001:db9::5")).toBe(false);
  });

  it("allows only the listed networks, an IPv4-mapped address counting as IPv4", () => {
    const allows = networkFilter({ v4: ["10.1.2.0/24"], v6: [] });
    expect(allows("10.1.2.200")).toBe(true);
    expect(allows("::ffff:10.1.2.3")).toBe(true);
    expect(allows("10.1.3.1")).toBe(false);
    expect(allows("::1")).toBe(false);
    expect(allows("not an address")).toBe(false);
  });
});
