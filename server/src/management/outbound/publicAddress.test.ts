// Unit tests of the address rule: only ordinary public unicast addresses pass; loopback too when
// the operator allows it, nothing else.
import { describe, expect, it } from "vitest";
import { classifyAddress } from "./publicAddress";

const strict = { allowLoopback: false };
const local = { allowLoopback: true };

describe("classifyAddress", () => {
  it("passes public unicast addresses, and IPv4-mapped forms of them", () => {
    for (const address of ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(classifyAddress(address, strict), address).toEqual({ kind: "public" });
    }
  });

  it("refuses every special range, naming it", () => {
    const cases: [string, string][] = [
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["::1", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["10.1.2.3", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["::ffff:10.0.0.1", "private"],
      ["169.254.169.254", "linkLocal"],
      ["fe80::1", "linkLocal"],
      ["fe80::1%eth0", "linkLocal"],
      ["100.64.0.1", "carrierGradeNat"],
      ["100.100.100.200", "carrierGradeNat"],
      ["fd00:ec2::254", "uniqueLocal"],
      ["fc00::1", "uniqueLocal"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["192.0.0.192", "reserved"],
      ["255.255.255.255", "broadcast"],
      ["224.0.0.1", "multicast"],
      ["ff02::1", "multicast"],
      ["::7f00:1", "IPv4-compatible"],
      ["::808:808", "IPv4-compatible"],
      ["64:ff9b::7f00:1", "rfc6052"],
      ["2002:7f00:1::1", "6to4"],
      ["2001::1", "teredo"],
      ["localhost", "not an IP address"],
    ];
    for (const [address, range] of cases) expect(classifyAddress(address, strict), address).toEqual({ kind: "refused", range });
  });

  it("lets loopback through when allowed, and nothing else", () => {
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) expect(classifyAddress(address, local), address).toEqual({ kind: "public" });
    for (const address of ["10.0.0.1", "169.254.169.254", "fd00:ec2::254", "0.0.0.0"]) expect(classifyAddress(address, local).kind, address).toBe("refused");
  });
});
