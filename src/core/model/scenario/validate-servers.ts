/**
 * The scenario's servers, what they compare and the hosts they run on: unique ids, server images from the image
 * lock, a compare that names servers, deliberate per-server asymmetry flagged, and sharding over enough hosts.
 */
import type { Scenario } from "./schema.ts";
import { didYouMean, show } from "./suggest.ts";
import type { Path, Problems, ValidateContext } from "./validate-problems.ts";

/** servers and compare: the ratio's two sides (or a ladder's base) are servers of this scenario. */
export function checkServers(s: Scenario, ctx: ValidateContext, problems: Problems): void {
  const { err, warn } = problems;
  const single = s.compare === "hosts" || s.compare === "runs";
  if (s.servers.length < 2 && !single)
    err(
      ["servers"],
      `expected at least 2 servers (the first two are the ratio's numerator and denominator), got ${s.servers.length}; ` +
        `one server is enough with compare: hosts or compare: runs`,
    );
  const firstById = new Map<string, number>();
  s.servers.forEach((srv, i) => {
    const prev = firstById.get(srv.id);
    if (prev !== undefined)
      err(["servers", i, "id"], `duplicate server id ${show(srv.id)} (already used by servers.${prev})`);
    else firstById.set(srv.id, i);
    if (/^sysbench/.test(srv.image))
      err(["servers", i, "image"], `${show(srv.image)} is the load (sysbench) image, not a server image`);
    else if (!ctx.lockImages.includes(srv.image))
      err(
        ["servers", i, "image"],
        `image ${show(srv.image)} is not in the image lock (${ctx.lockImages.length ? ctx.lockImages.join(", ") : "the lock is empty"})` +
          didYouMean(srv.image, ctx.lockImages),
      );
  });
  // Resource names are tb-RUN-ID-holder, tb-RUN-ID-net, tb-RUN-ID-load-XXXXXX ...: an id that is another id plus
  // "-..." could name the same container, network or volume.
  s.servers.forEach((srv, i) => {
    const other = s.servers.find((o) => o.id !== srv.id && srv.id.startsWith(`${o.id}-`));
    if (other)
      err(
        ["servers", i, "id"],
        `${show(srv.id)} begins with the server id ${show(other.id)} and "-", so their container, network and volume ` +
          `names can collide (the holder of ${show(other.id)} is named …-${other.id}-holder); choose ids where neither is the other plus "-…"`,
      );
  });
  const ids = s.servers.map((x) => x.id);
  if (s.compare && typeof s.compare === "object" && "base" in s.compare) {
    const v = s.compare.base;
    if (!ids.includes(v))
      err(["compare", "base"], `${show(v)} is not a server id (servers: ${ids.join(", ")})${didYouMean(v, ids)}`);
    else if (ids.length < 2)
      err(
        ["compare", "base"],
        `${show(v)} is the only server; a ladder needs at least one other server to compare with the base`,
      );
  } else if (s.compare && typeof s.compare === "object") {
    for (const side of ["numerator", "denominator"] as const) {
      const v = s.compare[side];
      if (!ids.includes(v))
        err(["compare", side], `${show(v)} is not a server id (servers: ${ids.join(", ")})${didYouMean(v, ids)}`);
    }
    if (s.compare.numerator === s.compare.denominator)
      err(
        ["compare", "denominator"],
        `${show(s.compare.denominator)} is also the numerator; compare two different servers`,
      );
  }
  s.servers.forEach((srv, i) => {
    const keys = Object.keys(srv.config?.set ?? {});
    if (keys.length)
      warn(
        ["servers", i, "config", "set"],
        `deliberate asymmetry: ${keys.join(", ")} set for ${srv.id} only; every report flags it`,
      );
  });
}

/** config.set values (global and per server): one my.cnf line each, so no value can add lines of its own. */
export function checkConfigLines(s: Scenario, problems: Problems): void {
  const check = (path: Path, set: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(set)) {
      if (/[\r\n\0]/.test(k))
        problems.err([...path, k], `an option name cannot hold a line break or NUL, got ${show(k)}`);
      else if (typeof v === "string" && /[\r\n\0]/.test(v))
        problems.err([...path, k], `a value is one my.cnf line: it cannot hold a line break or NUL, got ${show(v)}`);
    }
  };
  check(["config", "set"], s.config.set);
  s.servers.forEach((srv, i) => check(["servers", i, "config", "set"], srv.config?.set ?? {}));
}

/** hosts: unique ids; shard needs at least two hosts and excludes compare: hosts. */
export function checkHosts(s: Scenario, problems: Problems): void {
  const { err } = problems;
  const hosts = s.hosts ?? [];
  const hostIdx = new Map<string, number>();
  hosts.forEach((h, i) => {
    if (hostIdx.has(h.id))
      err(["hosts", i, "id"], `duplicate host id ${show(h.id)} (already used by hosts.${hostIdx.get(h.id)})`);
    else hostIdx.set(h.id, i);
  });
  if (s.shard) {
    if (hosts.length < 2)
      err(["shard"], `shard: true spreads cells over hosts and needs at least 2 hosts, got ${hosts.length}`);
    if (s.compare === "hosts")
      err(["shard"], `shard: true and compare: hosts exclude each other (compare runs every cell on every host)`);
  }
}
