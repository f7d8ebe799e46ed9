/**
 * Server-sent event frames as the wire formats write them: each a complete frame, written in one
 * call (traffic capture records one frame per write). A frame's JSON is already serialized and
 * holds no raw line breaks (JSON.stringify escapes them).
 */

/** What an encoder writes for one event: one frame (the common case), or a few in order. */
export type Frames = string | readonly string[]

/** `data: …` — the OpenAI style, where the JSON names its own type. */
export const sseData = (json: string): string => 'data: ' + json + '\n\n'

/** `event: name` and `data: …` — the Responses and Anthropic style. */
export const sseEvent = (name: string, json: string): string => 'event: ' + name + '\ndata: ' + json + '\n\n'

/** A comment, which every client ignores (the inspector reads Mortar's own). */
export const sseComment = (text: string): string => ': ' + text.replace(/[\r\n]/g, ' ') + '\n\n'
