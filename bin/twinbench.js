#!/usr/bin/env node
// Entry shim: runs the TypeScript CLI through tsx's loader, so `npm ci` is enough (no build step).
import { register } from "tsx/esm/api";
register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
