// Shim for the one import of @deepseek-ai/dsh-session-format-v1-to-v2 that no
// published dsh-llm provides: `AssistantStreamAccumulator` (dsh-llm >= 0.1.3
// is unpublished). The v1->v2 edge pushes `{time, chunk}` for each unpacked
// `assistant/chunk` event and reads `snapshot()` as stream records, which it
// merges with the packed rows it already has (`recordLastTime`,
// `appendStreamRecord`): a run of deltas of one kind and index (and, for tool
// calls, one id and name) is a packed record `{type, time0, index, dt, texts}`
// or `{type, time0, index, dt, id, name?, args}`; any other chunk is
// `{type:"chunk", time, chunk}`. This is that reading of the edge's code,
// not dsh-llm's source: a stream record only feeds `assistant/attempt` and
// `assistant/message` `stream` data, which no listing reads.
const PACKED = {
  "text-delta": ["text-chunks", "texts", "text"],
  "reasoning-delta": ["reasoning-chunks", "texts", "text"],
  "tool-call-delta": ["tool-call-chunks", "args", "argumentsDelta"],
};

export class AssistantStreamAccumulator {
  #records = [];
  #last = undefined;

  push({ time, chunk }) {
    const packed = PACKED[chunk.type];
    if (packed === undefined) {
      this.#records.push({ type: "chunk", time, chunk });
      this.#last = undefined;
      return;
    }
    const [type, field, member] = packed;
    const prev = this.#last;
    if (
      prev !== undefined &&
      prev.record.type === type &&
      prev.record.index === chunk.index &&
      (type !== "tool-call-chunks" || (prev.record.id === chunk.id && prev.record.name === chunk.name))
    ) {
      prev.record.dt.push(time - prev.time);
      prev.record[field].push(chunk[member]);
      prev.time = time;
      return;
    }
    const record =
      type === "tool-call-chunks"
        ? { type, time0: time, index: chunk.index, dt: [], id: chunk.id, ...(chunk.name === undefined ? {} : { name: chunk.name }), args: [chunk[member]] }
        : { type, time0: time, index: chunk.index, dt: [], texts: [chunk[member]] };
    this.#records.push(record);
    this.#last = { record, time };
  }

  snapshot() {
    return this.#records;
  }
}
