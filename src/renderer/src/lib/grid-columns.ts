// One definition of a table's columns for a CSS grid: the header row and every body row take
// their tracks and their smallest width from it, so each title sits over its column at any
// window width; a narrower window scrolls the header and the rows sideways together.
import type { CSSProperties } from 'react'

export interface GridColumn {
  title: string
  /** The grid track, whose smallest width is `min` px. */
  track: string
  min: number
}

export const fixedColumn = (title: string, px: number): GridColumn => ({ title, track: `${px}px`, min: px })
export const growingColumn = (title: string, px: number, fr: number): GridColumn => ({ title, track: `minmax(${px}px, ${fr}fr)`, min: px })

const GAP_PX = 8
const PADDING_PX = 8

/** The CSS variables `.traffic__row` reads: the tracks, the gap and the rows' smallest width. */
export function gridStyle(columns: readonly GridColumn[]): CSSProperties & Record<`--traffic-${string}`, string> {
  return {
    '--traffic-columns': columns.map((c) => c.track).join(' '),
    '--traffic-gap': `${GAP_PX}px`,
    '--traffic-min-width': `${columns.reduce((sum, c) => sum + c.min, 0) + GAP_PX * (columns.length - 1) + 2 * PADDING_PX}px`,
  }
}
