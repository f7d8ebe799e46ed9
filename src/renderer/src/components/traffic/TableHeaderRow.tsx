import type { GridColumn } from '../../lib/grid-columns'

/** The title row of a grid table, on the same tracks as its body rows. */
export function TableHeaderRow({ columns }: { columns: readonly GridColumn[] }) {
  return (
    <div className="traffic__row traffic__row--head" role="row">
      {columns.map((column, i) => (
        <span key={i} role="columnheader">
          {column.title}
        </span>
      ))}
    </div>
  )
}
