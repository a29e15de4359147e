/** The mysql2 probe: only the server's own SQL error means "no counter"; a lost connection is a failure. */
import { describe, expect, it } from "vitest";
import { isServerAnswer } from "../../../../src/adapters/mysql/probe.ts";

describe("the mysql2 probe", () => {
  it("only the server's own SQL error means 'no counter'; a lost connection or timeout is a failure", () => {
    expect(isServerAnswer(Object.assign(new Error("denied"), { errno: 1227, sqlState: "42000", fatal: false }))).toBe(
      true,
    );
    expect(
      isServerAnswer(Object.assign(new Error("Connection lost"), { code: "PROTOCOL_CONNECTION_LOST", fatal: true })),
    ).toBe(false);
    expect(
      isServerAnswer(Object.assign(new Error("timeout"), { code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true })),
    ).toBe(false);
    expect(isServerAnswer(new TypeError("bug"))).toBe(false);
  });
});
