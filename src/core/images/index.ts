export * from "./lock.ts";
export * from "./context.ts";
export * from "./base.ts";
export * from "./stream.ts";
export * from "./pin.ts";
