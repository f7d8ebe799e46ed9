import type { ToolCallDelta } from '../../../shared/api/chat-response'
import { randomHex } from '../../random-id'
import { isRecord } from '../../../shared/narrow'

/**
 * Turns the tool-call pieces of one streamed reply into the pieces clients expect: `index` on
 * every piece; `id`, `type` and `function.name` on the first piece of each call only; never
 * `null` for an absent field. Real servers differ:
 * - Ollama (2024) sends whole calls without `index`: the index is the call's by its `id` (a new
 *   id is the next call), else the piece's position in its chunk's `tool_calls`. A new id at an
 *   index that already has a call with another id is the next call, too (SGLang has numbered
 *   every call 0).
 * - TGI 3.x repeats `type` and `id: "0"` on every piece, with `name: null` after the first; SGLang
 *   sends `id`, `type` and `name` as `null` after the first: both are dropped after the first.
 * - TGI's JSON replies give `arguments` as an object: it is sent as its JSON text.
 * - A call whose first piece has no usable id (none, or empty) gets one, `call_` + 24 hex digits,
 *   because clients key the tool result on it.
 */
/**
 * Indexes from here on are not believed (and are inferred instead): a reply's calls are gathered in
 * an array by index, and an index of 1e9 would make one of a billion slots.
 */
const MAX_INDEX = 1024

export class ToolCallPieces {
  // Made with the first piece: most replies carry no tool call, and every reply makes a ToolCallPieces.
  private indexById: Map<string, number> | undefined
  private idAt: Map<number, string> | undefined
  private started: Set<number> | undefined
  private calls = 0

  /** One raw piece from the server, at `position` in its chunk's list; undefined when it is no piece. */
  piece(raw: unknown, position: number): ToolCallDelta | undefined {
    if (!isRecord(raw)) return undefined
    const { index: rawIndex, id: rawId, type, function: fn } = raw
    const id = typeof rawId === 'string' && rawId !== '' ? rawId : undefined
    const index = this.indexOf(rawIndex, id, position)
    const started = (this.started ??= new Set())
    const first = !started.has(index)
    if (first) {
      started.add(index)
      this.calls = Math.max(this.calls, index + 1)
    }
    const piece: ToolCallDelta = { index }
    const { name, arguments: args } = isRecord(fn) ? fn : {}
    if (first) {
      piece.id = id ?? `call_${randomHex(12)}`
      if (id !== undefined) {
        ;(this.indexById ??= new Map()).set(id, index)
        ;(this.idAt ??= new Map()).set(index, id)
      }
      piece.type = 'function'
    } else if (type === undefined && fn === undefined) {
      return undefined
    }
    piece.function = { arguments: argumentsText(args) }
    if (first && typeof name === 'string') piece.function = { name, arguments: piece.function.arguments }
    return piece
  }

  /** Whether any call was made: a stream that ends without a finish reason then ended with `tool_calls`. */
  get madeCalls(): boolean {
    return this.calls > 0
  }

  private indexOf(rawIndex: unknown, id: string | undefined, position: number): number {
    const known = id === undefined ? undefined : this.indexById?.get(id)
    if (typeof rawIndex === 'number' && Number.isInteger(rawIndex) && rawIndex >= 0 && rawIndex < MAX_INDEX) {
      const idThere = this.idAt?.get(rawIndex)
      return id !== undefined && idThere !== undefined && idThere !== id ? (known ?? this.calls) : rawIndex
    }
    if (id !== undefined) return known ?? this.calls
    return position
  }
}

function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args
  return typeof args === 'object' && args !== null ? JSON.stringify(args) : ''
}
