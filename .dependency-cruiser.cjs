/**
 * The layer rules of twinbench (docs/architecture.md), checked by `npm run lint:arch` and by `npm test`.
 *   core      pure: no I/O, imports only core
 *   adapters  the only I/O: may import core
 *   app       orchestration: may import core and adapters
 *   cli, tui  front ends: tui never imports cli
 */
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
      name: "core-is-pure",
      severity: "error",
      comment: "core/ holds pure logic: it imports no adapter, orchestration or front end.",
      from: { path: "^src/core/" },
      to: { path: "^src/(adapters|app|cli|tui)/" },
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
