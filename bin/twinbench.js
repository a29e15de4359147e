#!/usr/bin/env node
// Entry shim: runs the compiled CLI (dist/, built by `npm run build`, which `npm ci`, `npm install` from git and
// `npm pack` run through the prepare script). No TypeScript loader at runtime.
import { main } from "../dist/cli/main.js";
process.exitCode = await main(process.argv.slice(2));
