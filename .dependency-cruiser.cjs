/**
 * The layer rules of twinbench (docs/architecture.md), checked by `npm run lint:arch` and by `npm test`.
 *
 * Outside:  core (pure) <- adapters (the only I/O) <- app (orchestration) <- cli, tui (front ends)
 * Inside core, each layer imports only the layers before it in this list:
 *   base     errors, units, formatters, text tables, deadlines, labels, numerical primitives
 *   model    what a run is made of: scenario, sysbench, results, events, verdicts and their words
 *   config, storage, images, hosts, measure   the lab's domains, in this order
 *   stats    estimators, verdict rules, the stop rule, simulations, the ratio and cost tables
 *   plan     plan, budget design, forecast, precision, adaptive rounds, calibration model
 *   report   every renderer: text, markdown, csv, json, html, and the printed lines of plan, doctor, hosts
 */
const CORE_LAYERS = ["base", "model", "config", "storage", "images", "hosts", "measure", "stats", "plan", "report"];

/** One rule per layer: it may not import any layer that comes after it. */
const layerRules = CORE_LAYERS.slice(0, -1).map((layer, i) => ({
  name: `core-${layer}-imports-only-earlier-layers`,
  severity: "error",
  comment: `src/core/${layer}/ may import only ${CORE_LAYERS.slice(0, i).join(", ") || "nothing else in core"}.`,
  from: { path: `^src/core/${layer}/` },
  to: { path: `^src/core/(${CORE_LAYERS.slice(i + 1).join("|")})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make the load order fragile and the layers meaningless.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-folder-cycles",
      severity: "error",
      comment: "Two folders that import each other are one concern split in two, or a layer inverted.",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-is-in-layers",
      severity: "error",
      comment: "Every file of src/core lives in one of the stated layers.",
      from: { path: "^src/core/", pathNot: `^src/core/(${CORE_LAYERS.join("|")})/` },
      to: {},
    },
    ...layerRules,
    {
      name: "core-is-pure",
      severity: "error",
      comment: "core/ holds pure logic: it imports no adapter, orchestration or front end.",
      from: { path: "^src/core/" },
      to: { path: "^src/(adapters|app|cli|tui)/" },
    },
    {
      name: "core-does-no-io",
      severity: "error",
      comment: "core/ is pure: Node's I/O modules belong to adapters/.",
      from: { path: "^src/core/" },
      to: {
        dependencyTypes: ["core"],
        path: "^(node:)?(fs|fs/promises|child_process|net|http|https|dgram|os|process)$",
      },
    },
    {
      name: "adapters-do-not-drive",
      severity: "error",
      comment: "adapters/ do I/O for the layers above; they never import app/, cli/ or tui/.",
      from: { path: "^src/adapters/" },
      to: { path: "^src/(app|cli|tui)/" },
    },
    {
      name: "app-has-no-front-end",
      severity: "error",
      comment: "app/ emits events; the front ends (cli/, tui/) consume them.",
      from: { path: "^src/app/" },
      to: { path: "^src/(cli|tui)/" },
    },
    {
      name: "tui-uses-the-library",
      severity: "error",
      comment: "The TUI drives runs through the library API (app/), never through the CLI.",
      from: { path: "^src/tui/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "dockerode-only-in-the-docker-adapter",
      severity: "error",
      comment: "The engine port is closed: only src/adapters/docker/ talks to dockerode.",
      from: { path: "^src/", pathNot: "^src/adapters/docker/" },
      to: { path: "node_modules/(dockerode|docker-modem)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] },
  },
};
