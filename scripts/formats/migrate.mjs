// Migrate every v0 session of a DSH store to format generation N with DSH's
// own published edges (setup.sh), writing `session.vN.jsonl` beside the
// source log as DSH does (the source stays, as its backup).
//   node migrate.mjs STORE N [--upgrade-descriptors] [--drop-source]
// --drop-source: remove the generation-0 log after writing generation N (a
// store DSH migrated and then cleaned of its backups).
// --upgrade-descriptors: DSH 0.1.3's v0->v1 edge refuses every rc.8
// `subagent/descriptor` ("uses unsupported descriptor version 2"; it has no
// v2->v3 descriptor upgrader). With this flag the source's descriptors are
// given `version: 3` first (v3 is v2 plus an optional field), and the
// migration is DSH's from there on.
import { readFileSync, writeFileSync, readdirSync, statSync, existsSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { createSessionFormatChain, SessionFormatEventCollector } from "@deepseek-ai/dsh-session-format";
import { releasedV0SessionFormatCodec, sessionFormatV0ToV1 } from "@deepseek-ai/dsh-session-format-v0-to-v1";
import { releasedV2SessionFormatCodec, sessionFormatV1ToV2 } from "@deepseek-ai/dsh-session-format-v1-to-v2";
import { releasedV3SessionFormatCodec, sessionFormatV2ToV3 } from "@deepseek-ai/dsh-session-format-v2-to-v3";

const [store, nText, ...flags] = process.argv.slice(2);
const target = Number(nText);
if (!store || ![1, 2, 3].includes(target)) {
  console.error("usage: node migrate.mjs STORE 1|2|3 [--upgrade-descriptors]");
  process.exit(2);
}
const upgrade = flags.includes("--upgrade-descriptors");
const dropSource = flags.includes("--drop-source");
const all = [sessionFormatV0ToV1, sessionFormatV1ToV2, sessionFormatV2ToV3];
const chainTo = (n) => createSessionFormatChain({ currentVersion: n, migrations: all.slice(0, n), restoreCurrentHeader: (h) => h });

// Generation 1 has no encoder of its own: it is the v0 physical layout with
// `version: 1` (createReleasedCodec(1)), so its header is written the v0 way.
function encodeV1Header(h, cut) {
  return {
    type: "session", version: 1, id: h.id, createdAt: h.createdAt,
    ...(h.cwd === undefined ? {} : { cwd: h.cwd }),
    ...(h.parentSession === undefined ? {} : { parentSession: h.parentSession }),
    ...(h.isSeeded ? { seedLength: cut } : {}),
    ...(h.origin === undefined ? {} : { origin: h.origin }),
    delegationDepth: h.delegationDepth,
    ...(h.agentPreset === undefined ? {} : { agentPreset: h.agentPreset }),
  };
}
const encoder = { 2: releasedV2SessionFormatCodec, 3: releasedV3SessionFormatCodec }[target];

// One pass of `chain` over decoded rows: the logical header, the inherited
// cut and the events.
function run(chain, decoder, rows) {
  const collector = new SessionFormatEventCollector();
  const stream = chain.createStream(decoder.header, decoder.headerInheritedEventCount ?? 0, collector);
  for (const row of rows) decoder.decodeRow(row, stream);
  decoder.finish(stream);
  const cut = stream.finish();
  return { header: stream.header, cut, events: collector.values };
}

function migrate(dir) {
  const src = join(dir, "session.jsonl");
  const lines = readFileSync(src, "utf8").split("\n").filter((l) => l.length > 0);
  const rows = lines.slice(1).map((line) => {
    const row = JSON.parse(line);
    if (upgrade && row.type === "subagent/descriptor" && row.data?.version === 2) row.data = { ...row.data, version: 3 };
    return row;
  });
  // The 0.1.3 chain cannot run v1->v2 and v2->v3 in one stream (v1->v2
  // learns its inherited cut only at the end, and the chain asks for it
  // before the next edge), so v3 is made from the v2 artifact, as a DSH
  // that upgraded twice would have done.
  let step = run(chainTo(Math.min(target, 2)), releasedV0SessionFormatCodec.createDecoder(JSON.parse(lines[0]), "strict"), rows);
  if (target === 3) {
    const v2 = [releasedV2SessionFormatCodec.encodeHeader(step.header, step.cut), ...step.events.map((e) => releasedV2SessionFormatCodec.encodeEvent(e))];
    const cloned = JSON.parse(JSON.stringify(v2));
    step = run(chainTo(3), releasedV2SessionFormatCodec.createDecoder(cloned[0], "strict"), cloned.slice(1));
  }
  const { header: logical, cut, events: migrated } = step;
  const header = target === 1 ? encodeV1Header(logical, cut) : encoder.encodeHeader(logical, cut);
  const events = migrated.map((e) => (target === 1 ? e : encoder.encodeEvent(e)));
  const out = [header, ...events].map((v) => JSON.stringify(v) + "\n").join("");
  writeFileSync(join(dir, `session.v${target}.jsonl`), out);
  if (dropSource) unlinkSync(src);
  return events.length;
}

let failed = 0;
for (const project of readdirSync(store)) {
  const p = join(store, project);
  if (!statSync(p).isDirectory()) continue;
  for (const session of readdirSync(p)) {
    const dir = join(p, session);
    if (!existsSync(join(dir, "session.jsonl"))) continue;
    try {
      const n = migrate(dir);
      console.log(`${project}/${session}: v0 -> v${target}, ${n} events`);
    } catch (e) {
      failed += 1;
      console.log(`${project}/${session}: refused: ${e.message}`);
    }
  }
}
process.exit(failed ? 1 : 0);
