/** `twinbench images build|pin|list|rm`: the pinned images from images/lock.yaml. */
import type { Command } from "commander";
import { formatBytes } from "../../core/base/units.ts";
import { textTable, type TextColumn } from "../../core/base/text-table.ts";
import type { ImagePort } from "../../core/model/engine/images.ts";
import {
  currentImageTags,
  ensureImages,
  listImages,
  loadLock,
  parseModeChoice,
  pinImages,
  removeImages,
  type ImageProgress,
} from "../../adapters/images/index.ts";

export interface ImagesCommandContext {
  images: () => ImagePort;
  out: (line: string) => void;
}

const formatSize = (bytes: number) => formatBytes(bytes, "coarse");

/** One line per build step, and the step's output lines indented (plain, for logs and non-TTY use). */
function progressPrinter(out: (line: string) => void): (ev: ImageProgress) => void {
  const lastStep = new Map<string, string>();
  return (ev) => {
    if (ev.step && lastStep.get(ev.image) !== ev.step) {
      lastStep.set(ev.image, ev.step);
      if (ev.line === ev.step) {
        out(`[${ev.image}] ${ev.step}`);
        return;
      }
      if (ev.step !== "debootstrap" && ev.step !== "import" && ev.step !== "mode") out(`[${ev.image}] ${ev.step}`);
    }
    if (ev.line !== ev.step) out(`[${ev.image}]   ${ev.line}`);
  };
}

export function registerImagesCommands(program: Command, ctx: ImagesCommandContext): void {
  const images = program.command("images").description("build, list and remove the pinned server and load images");

  images
    .command("build")
    .description("build the pinned images that are missing (all of them by default); present ones are cache hits")
    .argument("[name...]", "image names from images/lock.yaml")
    .option("--mode <mode>", "auto (official when a registry answers, else debian), debian or official", "auto")
    .option("--lock <file>", "the image lock file (default: images/lock.yaml of this checkout)")
    .option("--force", "rebuild even when the content-hash tag exists")
    .option("-q, --quiet", "print only the result lines")
    .action(async (names: string[], o: { mode: string; lock?: string; force?: boolean; quiet?: boolean }) => {
      const mode = parseModeChoice(o.mode);
      const lock = await loadLock(o.lock);
      const built = await ensureImages(ctx.images(), names, {
        lock,
        mode,
        force: o.force,
        onProgress: o.quiet ? undefined : progressPrinter(ctx.out),
      });
      const rows = built.map((b) => [
        b.cacheHit ? "cached" : "built",
        b.name,
        `${b.tag}  (${b.mode}, ${b.labels["twinbench.package-version"] ?? "?"})`,
      ]);
      for (const line of textTable(rows, { columns: [{ width: 6 }, { width: 14 }], gap: " ", trimEnd: false }))
        ctx.out(line);
    });

  images
    .command("pin")
    .description(
      "resolve the official tags to digests through the registry (via the engine) and write them into the lock; shows the diff",
    )
    .argument("[name...]", "image names from images/lock.yaml (default: all)")
    .option("--lock <file>", "the image lock file (default: images/lock.yaml of this checkout)")
    .option("--dry-run", "show the diff, leave the file as it is")
    .action(async (names: string[], o: { lock?: string; dryRun?: boolean }) => {
      const lock = await loadLock(o.lock);
      const r = await pinImages(ctx.images(), lock, { names, dryRun: o.dryRun });
      for (const line of r.diff) ctx.out(line);
      for (const n of r.unchanged)
        ctx.out(`unchanged ${n} (${lock.images[n]!.official.ref}@${lock.images[n]!.official.digest})`);
      if (r.edits.length === 0) ctx.out(`${r.file}: every digest is current`);
      else
        ctx.out(
          `${r.written ? "wrote" : "would write (--dry-run)"} ${r.edits.length} digest${r.edits.length === 1 ? "" : "s"} to ${r.file}`,
        );
    });

  images
    .command("list")
    .description("list the images twinbench built (labelled twinbench.image)")
    .option("--json", "print JSON")
    .action(async (o: { json?: boolean }) => {
      const list = await listImages(ctx.images());
      if (o.json) {
        ctx.out(JSON.stringify(list, null, 2));
        return;
      }
      if (list.length === 0) {
        ctx.out("no twinbench images; build them with `twinbench images build`");
        return;
      }
      const rows = list.map((i) => [
        i.name,
        i.tags[0] ?? i.id.slice(0, 19),
        i.labels["twinbench.mode"] ?? "",
        i.labels["twinbench.package-version"] ?? i.labels["twinbench.suite"] ?? "",
        formatSize(i.size),
        i.labels["twinbench.build-time"] ?? "",
      ]);
      const columns: TextColumn[] = [
        { width: 14 },
        { width: 40 },
        { width: 8 },
        { width: 24 },
        { width: 9, align: "right" },
        { gap: "  " },
      ];
      const head = [["NAME", "TAG", "MODE", "PACKAGE VERSION", "SIZE", "BUILT"]];
      for (const line of textTable(rows, { head, columns, gap: " ", trimEnd: false })) ctx.out(line);
    });

  images
    .command("rm")
    .description('remove twinbench images: the named ones ("base" for the debootstrap base images), or all')
    .argument("[name...]", "image names from images/lock.yaml, or base")
    .option("--stale", "remove only images the current lock and contexts no longer produce")
    .option("--lock <file>", "the image lock file, for --stale (default: images/lock.yaml of this checkout)")
    .action(async (names: string[], o: { stale?: boolean; lock?: string }) => {
      const images = ctx.images();
      const keep = o.stale ? await currentImageTags(images, await loadLock(o.lock)) : undefined;
      const removed = await removeImages(images, names, { keep });
      if (removed.length === 0) ctx.out("no matching twinbench images");
      for (const r of removed) ctx.out(`removed ${r.tags.join(", ") || r.id}`);
    });
}
