import { Fragment, type ReactElement } from 'react'
import { gridStyle, type GridColumn } from '../../lib/grid-columns'
import type { StopNotes } from '../../hooks/use-stop-notes'
import { VirtualList } from '../common/VirtualList'
import { TableHeaderRow } from './TableHeaderRow'

const ROW_HEIGHT = 30

/** A column: its title and grid track, and its cell of a row — one element, the grid item. */
export interface TrafficColumn<Row> extends GridColumn {
  cell(row: Row): ReactElement
}

/** What the table needs to know of a row beyond its cells. */
export interface TrafficRowFacts {
  /** Unique among the rows: what selection and React's key use. */
  key: string
  /** The completion ID to stop, while the row's generation runs; null otherwise. */
  stoppable: string | null
  /** The completion ID whose stop note the row shows once it is not running. */
  completionId: string | null
  /** `data-*` attributes tests and styles read (outcome, status). */
  attributes: Readonly<Record<`data-${string}`, string>>
}

export interface TrafficTableProps<Row> {
  label: string
  /** The first two are Time and Status: Stop follows them, next to the status it changes. */
  columns: readonly TrafficColumn<Row>[]
  rows: readonly Row[]
  facts(row: Row): TrafficRowFacts
  selectedKey: string | null
  stops: StopNotes
  onSelect(key: string): void
}

const STOP_AFTER = 2
// As wide as the small Stop button; a longer note after it is cut, and whole in its tooltip.
const STOP_COLUMN: GridColumn = { title: '', track: '50px', min: 50 }

/** Every request Traffic lists, newest first: one row each, virtualized, with Stop beside its status. */
export function TrafficTable<Row>({ label, columns, rows, facts, selectedKey, stops, onSelect }: TrafficTableProps<Row>) {
  const before = columns.slice(0, STOP_AFTER)
  const after = columns.slice(STOP_AFTER)
  const grid: readonly GridColumn[] = [...before, STOP_COLUMN, ...after]
  return (
    <div className="traffic" role="table" aria-label={label} style={gridStyle(grid)}>
      <VirtualList
        testId="traffic-table"
        header={<TableHeaderRow columns={grid} />}
        count={rows.length}
        rowHeight={ROW_HEIGHT}
        renderRow={(index) => {
          const row = rows[index]
          if (row === undefined) return null
          const { key, stoppable, completionId, attributes } = facts(row)
          const note = completionId === null ? undefined : stops.notes[completionId]
          return (
            <div
              key={key}
              role="row"
              className={`traffic__row ${key === selectedKey ? 'traffic__row--selected' : ''}`}
              style={{ height: ROW_HEIGHT }}
              onClick={() => onSelect(key)}
              data-testid="traffic-row"
              data-id={key}
              {...attributes}
            >
              {before.map((column, i) => (
                <Fragment key={i}>{column.cell(row)}</Fragment>
              ))}
              <span>
                {stoppable !== null ? (
                  <button
                    type="button"
                    className="button button--small button--danger"
                    onClick={(e) => {
                      e.stopPropagation()
                      stops.onStop(stoppable)
                    }}
                    data-testid="traffic-stop"
                  >
                    Stop
                  </button>
                ) : note !== undefined ? (
                  <span className="muted" title={note}>
                    {note}
                  </span>
                ) : null}
              </span>
              {after.map((column, i) => (
                <Fragment key={STOP_AFTER + i}>{column.cell(row)}</Fragment>
              ))}
            </div>
          )
        }}
      />
    </div>
  )
}
