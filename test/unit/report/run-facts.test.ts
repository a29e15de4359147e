/** The run's facts for the title line (src/core/report/run-facts.ts). */
import { describe, expect, it } from "vitest";
import { hostWords, wallSeconds } from "../../../src/core/report/run-facts.ts";

describe("run facts", () => {
  it("the host's CPU model and count, or null", () => {
    expect(hostWords({ hosts: [{ cpuModel: "AMD  EPYC 7B13", cpus: 2 }] } as never)).toBe("AMD EPYC 7B13, 2 CPUs");
    expect(hostWords({ hosts: [{ cpus: 1 }] } as never)).toBe("1 CPU");
    expect(hostWords({ hosts: [] } as never)).toBeNull();
  });
  it("the wall time from start to end; null without an end", () => {
    expect(wallSeconds({ startedAt: "2025-01-01T10:00:00.000Z", endedAt: "2025-01-01T10:09:12.000Z" })).toBe(552);
    expect(wallSeconds({ startedAt: "2025-01-01T10:00:00.000Z" })).toBeNull();
  });
});
