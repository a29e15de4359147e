import { describe, expect, it } from "vitest";
import { parseLock } from "../../../src/core/images/lock.ts";
import { BuildTracker, buildFailure, findAptProblems, type BuildEvent } from "../../../src/core/images/stream.ts";

const lock = parseLock(
  `
schema: 1
images:
  sysbench-1.0:
    family: sysbench
    version: 1.0.20
    suites: [bookworm, bookworm-security]
    package: sysbench
    packages: { sysbench: "1.0.20+ds-5", libmariadb3: "1:10.11.19-0+deb12u1" }
    official: { ref: "debian:bookworm", digest: PLACEHOLDER }
`,
  "images/lock.yaml",
);
const entry = lock.images["sysbench-1.0"]!;

function track(events: BuildEvent[]): BuildTracker {
  const t = new BuildTracker();
  for (const e of events) t.push(e);
  t.flush();
  return t;
}

const runCmd = "The command '/bin/bash -o pipefail -c apt-get install -y sysbench=9.9' returned a non-zero code: 100";

describe("BuildTracker", () => {
  it("splits partial stream chunks into lines, tracks steps and the image id", () => {
    const t = new BuildTracker();
    const lines = [
      ...t.push({ stream: "Step 1/2 : FROM x\n ---> abc\nStep 2/2 : RUN echo hi" }),
      ...t.push({ stream: "\n ---> Running in 123\nh" }),
      ...t.push({ stream: "i\n" }),
      ...t.push({ aux: { ID: "sha256:feed" } }),
      ...t.push({ stream: "Successfully built feed\n" }),
    ];
    expect(lines.map((l) => l.line)).toEqual([
      "Step 1/2 : FROM x",
      " ---> abc",
      "Step 2/2 : RUN echo hi",
      " ---> Running in 123",
      "hi",
      "Successfully built feed",
    ]);
    expect(lines[4]!.step).toBe("Step 2/2 : RUN echo hi");
    expect(t.imageId).toBe("sha256:feed");
    expect(t.error).toBeUndefined();
  });

  it("records an error event (which followProgress would not report) and strips ANSI colours", () => {
    const t = track([
      { stream: "Step 3/9 : RUN apt-get install\n" },
      { stream: "\u001b[91mE: boom\u001b[0m\n" },
      { errorDetail: { code: 100, message: runCmd }, error: runCmd },
    ]);
    expect(t.error).toBe(runCmd);
    expect(t.tail).toContain("E: boom");
    expect(t.imageId).toBeUndefined();
  });

  it("keeps only the current step's last lines", () => {
    const events: BuildEvent[] = [
      { stream: "Step 1/2 : RUN a\n" },
      { stream: "old\n" },
      { stream: "Step 2/2 : RUN b\n" },
    ];
    for (let i = 0; i < 40; i++) events.push({ stream: `line ${i}\n` });
    const t = track(events);
    expect(t.tail).not.toContain("old");
    expect(t.tail.length).toBe(25);
    expect(t.tail.at(-1)).toBe("line 39");
  });
});

describe("findAptProblems", () => {
  it.each([
    ["E: Version '9.9.9-1' for 'sysbench' was not found", { package: "sysbench", version: "9.9.9-1" }],
    ["E: Unable to locate package nosuchpkg", { package: "nosuchpkg" }],
    ["E: Package 'mysql-server' has no installation candidate", { package: "mysql-server" }],
  ])("%s", (line, expected) => {
    expect(findAptProblems(["Reading package lists...", line])[0]).toMatchObject(expected);
  });

  it("ignores other apt errors", () => {
    expect(findAptProblems(["E: Unable to correct problems, you have held broken packages."])).toEqual([]);
  });
});

describe("buildFailure", () => {
  it("a missing pinned version names package, version and suites, with a hint about the lock file", () => {
    const t = track([
      { stream: "Step 4/17 : RUN apt-get install -y sysbench=9.9.9-1\n" },
      { stream: "\u001b[91mE: \u001b[0m\u001b[91mVersion '9.9.9-1' for 'sysbench' was not found\u001b[0m\n" },
      { error: runCmd, errorDetail: { message: runCmd } },
    ]);
    const e = buildFailure("sysbench-1.0", entry, "images/lock.yaml", t);
    expect(e.code).toBe("IMAGE_PACKAGE_NOT_FOUND");
    expect(e.message).toBe(
      'image "sysbench-1.0": package sysbench 9.9.9-1 not found in suite bookworm + bookworm-security',
    );
    expect(e.hint).toContain("images.sysbench-1.0.packages in images/lock.yaml");
    expect(e.hint).toContain("apt-cache madison sysbench");
  });

  it("an unknown package takes its pinned version from the lock", () => {
    const t = track([{ stream: "E: Unable to locate package libmariadb3\n" }, { error: runCmd }]);
    expect(buildFailure("sysbench-1.0", entry, "images/lock.yaml", t).message).toContain(
      "libmariadb3 1:10.11.19-0+deb12u1",
    );
  });

  it("a full disk says so", () => {
    const t = track([
      { stream: "Step 4/9 : RUN apt-get install\n" },
      { error: "write /var/lib/docker/tmp/x: no space left on device" },
    ]);
    const e = buildFailure("sysbench-1.0", entry, "images/lock.yaml", t);
    expect(e.code).toBe("IMAGE_DISK_FULL");
    expect(e.hint).toContain("nothing was tagged");
  });

  it("any other failure shows the failing step and its last lines, with a short message", () => {
    const t = track([
      { stream: "Step 2/9 : RUN false\n" },
      { stream: " ---> Running in 1\n" },
      { stream: "something broke\n" },
      { error: runCmd, errorDetail: { message: runCmd } },
    ]);
    const e = buildFailure("sysbench-1.0", entry, "images/lock.yaml", t);
    expect(e.code).toBe("IMAGE_BUILD_FAILED");
    expect(e.message).toBe(
      'image "sysbench-1.0": build failed at Step 2/9 : RUN false: the RUN command exited with code 100',
    );
    expect(e.details[0]).toBe("Step 2/9 : RUN false");
    expect(e.details).toContain("  something broke");
  });

  it("a stream that ends without an image id is a failure too", () => {
    const t = track([{ stream: "Step 1/1 : FROM x\n" }]);
    expect(buildFailure("sysbench-1.0", entry, "images/lock.yaml", t).message).toContain("ended without an image id");
  });
});
