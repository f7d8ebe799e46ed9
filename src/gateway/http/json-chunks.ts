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
 * Where `piece` begins within `whole` when it is a view of `whole`'s memory (a piece spliced from
 * the client's body is one), else -1.
 */
export function viewOffset(piece: Buffer, whole: Buffer): number {
  const offset = piece.byteOffset - whole.byteOffset
  return piece.buffer === whole.buffer && offset >= 0 && offset + piece.length <= whole.length ? offset : -1
}

/** Whether `piece` is a view of (some of) the very memory `whole` views: then its bytes are some of `whole`'s. */
export const isViewOf = (piece: Buffer, whole: Buffer): boolean => viewOffset(piece, whole) >= 0

/**
 * A JSON text written partly from bytes at hand: `bytes` is what goes on the wire, `text` the
 * body (what capture keeps), made when first read: its pieces joined with `+`, so nothing is
 * copied, and a piece whose text was not at hand (bytes the reader did not decode) decoded then.
 */
export class SplicedJson {
  private joined: string | undefined

  constructor(
    private pieces: readonly TextPiece[],
    readonly bytes: ByteChunks,
  ) {}

  get text(): string {
    if (this.joined === undefined) {
      let text = ''
      for (const piece of this.pieces) text += typeof piece === 'string' ? piece : piece()
      this.joined = text
      // The functions hold what they decode from: not kept once the text is made.
      this.pieces = []
    }
    return this.joined
  }
}

/** A piece of text, or a function that makes it. */
type TextPiece = string | (() => string)

/** A stretch of written JSON as text pieces and their bytes, to write again as it is (`JsonChunkWriter.segment`). */
export interface WrittenSegment {
  readonly pieces: readonly TextPiece[]
  readonly chunks: readonly Buffer[]
}

/** Where a segment starts in a writer (`JsonChunkWriter.mark`). */
export interface SegmentStart {
  readonly pieces: number
  readonly chunks: number
}

/**
 * Builds a SplicedJson: text written with `text()` is gathered and encoded once per run, text
 * whose bytes are at hand (`bytes()`) takes them as they are.
 */
export class JsonChunkWriter {
  private readonly pieces: TextPiece[] = []
  private pending = ''
  private readonly chunks: Buffer[] = []
  private spliced = false

  text(text: string): void {
    this.pending += text
  }

  /** Bytes at hand, and their text (or a function that decodes it when the text is first read). */
  bytes(text: TextPiece, bytes: Buffer): void {
    this.flush()
    this.pieces.push(text)
    this.chunks.push(bytes)
    this.spliced = true
  }

  /** Where a segment starts: here, with the text written so far ended as a chunk of its own. */
  mark(): SegmentStart {
    this.flush()
    // Text ended as a chunk is no longer in `pending`: the JSON is now its chunks.
    this.spliced = true
    return { pieces: this.pieces.length, chunks: this.chunks.length }
  }

  /** What was written since `start`, as a segment to write again (its text ended as a chunk). */
  since(start: SegmentStart): WrittenSegment {
    this.flush()
    return { pieces: this.pieces.slice(start.pieces), chunks: this.chunks.slice(start.chunks) }
  }

  /** A segment written before, as it was. */
  segment({ pieces, chunks }: WrittenSegment): void {
    if (chunks.length === 0) return
    this.flush()
    for (const piece of pieces) this.pieces.push(piece)
    for (const chunk of chunks) this.chunks.push(chunk)
    this.spliced = true
  }

  /** The JSON as written: only text (no bytes at hand) is that text, else text and chunks. */
  finish(): string | SplicedJson {
    if (!this.spliced) return this.pending
    this.flush()
    return new SplicedJson(this.pieces, new ByteChunks(this.chunks))
  }

  private flush(): void {
    if (this.pending === '') return
    this.pieces.push(this.pending)
    this.chunks.push(Buffer.from(this.pending))
    this.pending = ''
  }
}
