/**
 * JSON bytes in pieces, written to a socket one after another (one writev), never joined: joining
 * a 128 KB body copies it, and a long string's bytes may already be at hand (the client's own,
 * or remembered from an earlier request).
 */
export class ByteChunks {
  /** The bytes in all: the body's Content-Length. */
  readonly length: number

  constructor(readonly chunks: readonly Buffer[]) {
    let length = 0
    for (const chunk of chunks) length += chunk.length
    this.length = length
  }

  /** The bytes as one buffer (a copy): for tests, and for a caller that needs one. */
  joined(): Buffer {
    return Buffer.concat(this.chunks, this.length)
  }
}

/**
 * A JSON text written partly from bytes at hand: `text` is the body (what capture keeps, pieces
 * joined with `+`, so nothing is copied), `bytes` what goes on the wire.
 */
export class SplicedJson {
  constructor(
    readonly text: string,
    readonly bytes: ByteChunks,
  ) {}
}

/**
 * Builds a SplicedJson: text written with `text()` is gathered and encoded once per run, text
 * whose bytes are at hand (`bytes()`) takes them as they are.
 */
export class JsonChunkWriter {
  private done = ''
  private pending = ''
  private readonly chunks: Buffer[] = []
  private spliced = false

  text(text: string): void {
    this.pending += text
  }

  bytes(text: string, bytes: Buffer): void {
    this.flush()
    this.done += text
    this.chunks.push(bytes)
    this.spliced = true
  }

  /** The JSON as written: only text (no bytes at hand) is that text, else text and chunks. */
  finish(): string | SplicedJson {
    if (!this.spliced) return this.done + this.pending
    this.flush()
    return new SplicedJson(this.done, new ByteChunks(this.chunks))
  }

  private flush(): void {
    if (this.pending === '') return
    this.done += this.pending
    this.chunks.push(Buffer.from(this.pending))
    this.pending = ''
  }
}
