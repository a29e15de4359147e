import { ScenarioSchema } from "./src/core/scenario/schema.ts";
const r = ScenarioSchema.safeParse({ name: "x", servers: [], ordr: 1, workload: {tests:["a"], threads:[1]} }, { error: (iss: any) => { console.log("MAP", iss.code, iss.path, iss.inst?._zod?.def?.type); return undefined; } });
console.log(JSON.stringify(r.error?.issues));
