import { describe, expect, it } from "vitest";
import { parseCidr } from "./cidr";

// Expected values are PostgreSQL 15's `select '<text>'::cidr::text` and its error messages.
describe("parseCidr", () => {
  it.each([
    ["10.0.0.0/8", 4, "10.0.0.0/8"],
    ["192.168.1.0/24", 4, "192.168.1.0/24"],
    ["10.1.2.3", 4, "10.1.2.3/32"],
    ["10", 4, "10.0.0.0/8"],
    ["10.1", 4, "10.1.0.0/16"],
    ["192.168.1", 4, "192.168.1.0/24"],
    ["128.1", 4, "128.1.0.0/16"],
    ["0.0.0.0/0", 4, "0.0.0.0/0"],
    ["192.168.0.0", 4, "192.168.0.0/32"],
    ["224.1", 4, "224.1.0.0/16"],
    ["::/0", 6, "::/0"],
    ["2001:DB8::/32", 6, "2001:db8::/32"],
    ["2001:db8:0:0:0:0:0:1", 6, "2001:db8::1/128"],
    ["::1", 6, "::1/128"],
    ["fe80::/10", 6, "fe80::/10"],
    ["::ffff:10.0.0.0/104", 6, "::ffff:10.0.0.0/104"],
    ["1:0:0:2:0:0:0:3", 6, "1:0:0:2::3/128"],
    ["::2:3", 6, "::0.2.0.3/128"],
  ])("reads %s as IPv%s %s", (text, family, canonical) => {
    expect(parseCidr(text)).toEqual({ kind: "cidr", family, text: canonical });
  });

  it.each([
    ["10.0.0.1/8", 'invalid cidr value: "10.0.0.1/8"'],
    ["2001:db8::1/32", 'invalid cidr value: "2001:db8::1/32"'],
    ["nonsense", 'invalid input syntax for type cidr: "nonsense"'],
    ["10.0.0.0/33", 'invalid input syntax for type cidr: "10.0.0.0/33"'],
    ["256.0.0.0/8", 'invalid input syntax for type cidr: "256.0.0.0/8"'],
    ["10.0.0.0/8\nhost all all 0.0.0.0/0 trust", 'invalid input syntax for type cidr: "10.0.0.0/8\nhost all all 0.0.0.0/0 trust"'],
    ["1::2::3", 'invalid input syntax for type cidr: "1::2::3"'],
    ["", 'invalid input syntax for type cidr: ""'],
    [" 10.0.0.0/8 ", 'invalid input syntax for type cidr: " 10.0.0.0/8 "'],
  ])("refuses %j", (text, message) => {
    expect(parseCidr(text)).toEqual({ kind: "invalid", message });
  });
});
