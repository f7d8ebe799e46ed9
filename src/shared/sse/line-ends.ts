/**
 * The line ends (LF or CR) of one text, found left to right with native searches rather than a
 * loop over its characters: a frame of an event stream may be a whole response object (a
 * Responses API server repeats the request's instructions, an agent's system prompt, in three
 * events), and a character-by-character scan of it cost milliseconds where `indexOf` costs
 * microseconds. Each of the two characters is searched for again only once it is passed, so the
 * text is read about once whatever is asked.
 */
export class LineEnds {
  /** The next LF at or after the last search's start, -1 when there is none; -2 before the first search. */
  private lf = -2
  private cr = -2

  constructor(private readonly text: string) {}

  /** Where the first LF or CR at or after `from` is; -1 when none is. `from` never decreases between calls. */
  next(from: number): number {
    if (this.lf !== -1 && this.lf < from) this.lf = this.text.indexOf('\n', from)
    if (this.cr !== -1 && this.cr < from) this.cr = this.text.indexOf('\r', from)
    if (this.lf === -1) return this.cr
    if (this.cr === -1) return this.lf
    return Math.min(this.lf, this.cr)
  }
}
