import { StringDecoder } from 'node:string_decoder'

/**
 * The slab size: large enough that a slab boundary is rare (a text across one is decoded in
 * pieces), small enough that a small store does not reserve much it never fills.
 */
export const SLAB_BYTES = 4 * 1024 * 1024

/**
 * UTF-8 texts in one ring of bytes for a whole store, outside V8's heap, so that neither young
 * collections copy them nor full collections move them. The ring is made of slabs allocated the
 * first time the write position reaches them, never more than the budget needs, and then reused in
 * ring order: external memory grows while the store fills and not after, so it does not keep
 * starting full collections (a Buffer per text did).
 *
 * Positions are absolute byte counts since the arena opened (they only grow; a position's byte is
 * at `position mod capacity`). What is held is `[tail, head)`: the owner writes at the head and
 * releases from the tail, oldest first, which is the order a store evicts in. A text may cross
 * slab boundaries (any size works: a text bigger than a slab spans several); such a text is
 * decoded piece by piece.
 */
export class TextArena {
  readonly slabBytes: number
  readonly capacity: number
  private readonly slabCount: number
  private readonly slabs: Buffer[] = []
  private head = 0
  private tail = 0

  /**
   * `reclaim` is called when a write needs room the ring has not got: the owner releases its
   * oldest texts (`release`) and returns true, or returns false when it has nothing left to give.
   */
  constructor(
    budget: number,
    private readonly reclaim: () => boolean,
    slabBytes = SLAB_BYTES,
  ) {
    this.slabBytes = Math.max(1, Math.min(slabBytes, Math.ceil(budget)))
    this.slabCount = Math.max(1, Math.ceil(budget / this.slabBytes))
    this.capacity = this.slabBytes * this.slabCount
  }

  /** Where the next text will start. */
  get position(): number {
    return this.head
  }

  /** Bytes held, from the oldest kept to the newest. */
  get used(): number {
    return this.head - this.tail
  }

  /** Bytes of slabs allocated so far (external memory). */
  get allocated(): number {
    return this.slabs.length * this.slabBytes
  }

  /**
   * Write `text` at the head; returns its byte length, or undefined when the ring cannot hold it
   * even after `reclaim` gave all it could (then nothing is written).
   */
  write(text: string): number | undefined {
    // Three bytes per UTF-16 unit at most: when that fits no measuring is needed.
    let need = text.length * 3
    if (need > this.capacity - this.used) {
      need = Buffer.byteLength(text)
      while (need > this.capacity - this.used) if (!this.reclaim()) return undefined
    }
    const offset = this.head % this.slabBytes
    if (need <= this.slabBytes - offset) {
      const written = this.slabAt(this.head).write(text, offset, 'utf8')
      this.head += written
      return written
    }
    // Across a slab boundary (once per slab filled, or a text bigger than a slab): encoded whole,
    // then copied slab by slab.
    const bytes = Buffer.from(text, 'utf8')
    return this.copy([bytes], bytes.length) ? bytes.length : undefined
  }

  /**
   * Write `bytes` (`length` of them in all, UTF-8) at the head, one chunk after another; false
   * when the ring cannot hold them even after `reclaim` gave all it could (then nothing is written).
   */
  copy(chunks: readonly Buffer[], length: number): boolean {
    while (length > this.capacity - this.used) if (!this.reclaim()) return false
    for (const chunk of chunks) {
      for (let done = 0; done < chunk.length; ) {
        const at = this.head % this.slabBytes
        const n = Math.min(chunk.length - done, this.slabBytes - at)
        chunk.copy(this.slabAt(this.head), at, done, done + n)
        done += n
        this.head += n
      }
    }
    return true
  }

  /**
   * The text of `bytes` bytes written at `position`. `ascii`: the writer saw one byte per
   * character, so the bytes are ASCII, which decodes exactly and about three times faster so.
   */
  read(position: number, bytes: number, ascii = false): string {
    const offset = position % this.slabBytes
    if (offset + bytes <= this.slabBytes) return this.slabAt(position).toString(ascii ? 'ascii' : 'utf8', offset, offset + bytes)
    // The slab boundary may fall inside a character: the decoder carries its first bytes over.
    const decoder = new StringDecoder('utf8')
    let text = ''
    for (let at = position, left = bytes; left > 0; ) {
      const start = at % this.slabBytes
      const n = Math.min(left, this.slabBytes - start)
      text += decoder.write(this.slabAt(at).subarray(start, start + n))
      at += n
      left -= n
    }
    return text + decoder.end()
  }

  /** Everything before `position` is no longer held. */
  release(position: number): void {
    this.tail = Math.min(Math.max(this.tail, position), this.head)
  }

  /**
   * Move `bytes` bytes from `from` back to `to` (`to` < `from`, both held): how the owner closes
   * the gaps texts deleted out of order leave. Copied front to back, so a copy never overwrites
   * bytes not yet moved.
   */
  move(from: number, to: number, bytes: number): void {
    for (let left = bytes; left > 0; ) {
      const source = from % this.slabBytes
      const target = to % this.slabBytes
      const n = Math.min(left, this.slabBytes - source, this.slabBytes - target)
      // Within one slab the regions may overlap: Buffer#copy copies as memmove does.
      this.slabAt(from).copy(this.slabAt(to), target, source, source + n)
      from += n
      to += n
      left -= n
    }
  }

  /** After `move`s: what is held is `[tail, position)`. */
  truncate(position: number): void {
    this.head = Math.max(this.tail, Math.min(position, this.head))
  }

  /** Forget everything and give the slabs back (the store closed). */
  free(): void {
    this.head = 0
    this.tail = 0
    this.slabs.length = 0
  }

  private slabAt(position: number): Buffer {
    const index = Math.floor(position / this.slabBytes) % this.slabCount
    // Slabs are reached in order, so the next one missing is always the one at the end.
    while (this.slabs.length <= index) this.slabs.push(Buffer.allocUnsafeSlow(this.slabBytes))
    return this.slabs[index] as Buffer
  }
}
