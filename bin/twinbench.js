#!/usr/bin/env node
// Entry shim: runs the compiled CLI (dist/, built by `npm run build`, which `npm ci`, `npm install` from git and
// `npm pack` run through the prepare script). No TypeScript loader at runtime.
import { setTimeout } from "node:timers";
import { main } from "../dist/cli/main.js";
const code = await main(process.argv.slice(2));
process.exitCode = code;
// The command is done. A request still waiting on an engine that stopped answering (a stopped dockerd keeps its
// socket open) must not keep the process alive: it exits anyway. The output is written by then (stdout and stderr
// to pipes and files are synchronous on Linux).
setTimeout(() => process.exit(code), 2000).unref();
