import type { FinishReason, ToolCallDelta, Usage } from '../../../shared/api/chat-response'

/**
 * Serializes the `chat.completion.chunk` events of one completion. The fields that never change
 * (id, object, created, model) are serialized once; each chunk adds only its choice. The bytes are
 * exactly what JSON.stringify of the whole chunk object would give.
 */
export class ChunkEncoder {
  private readonly head: string
  private readonly finishDelta: string

  /** `finishChunkHasDelta`: the OpenAI dialect's finish chunk carries `"delta": {}`; the Mortar dialect's has none. */
  constructor(id: string, created: number, model: string, finishChunkHasDelta = false) {
    this.finishDelta = finishChunkHasDelta ? '"delta":{},' : ''
    this.head =
      `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},` +
      `"model":${JSON.stringify(model)},"choices":`
  }

  role(): string {
    return this.head + '[{"index":0,"delta":{"role":"assistant"},"logprobs":null,"finish_reason":null}]}'
  }

  content(text: string): string {
    return this.head + `[{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}`
  }

  /** Reasoning goes out as `reasoning_content`, whatever the model server called it (docs/forwarding.md). */
  reasoning(text: string): string {
    return this.head + `[{"index":0,"delta":{"reasoning_content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}`
  }

  toolCall(delta: ToolCallDelta): string {
    return this.head + `[{"index":0,"delta":{"tool_calls":[${JSON.stringify(delta)}]},"logprobs":null,"finish_reason":null}]}`
  }

  /** The finish chunk: no `delta` in the Mortar dialect, an empty one in the OpenAI dialect. */
  finish(reason: FinishReason): string {
    return this.head + `[{"index":0,${this.finishDelta}"logprobs":null,"finish_reason":${JSON.stringify(reason)}}]}`
  }

  usage(usage: Usage): string {
    return this.head + `[],"usage":${JSON.stringify(usage)}}`
  }
}
