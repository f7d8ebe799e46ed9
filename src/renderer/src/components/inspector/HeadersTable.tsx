interface HeadersTableProps {
  headers: ReadonlyArray<[string, string]>
  testId: string
  caption: string
}

export function HeadersTable({ headers, testId, caption }: HeadersTableProps) {
  return (
    <table className="headers" data-testid={testId}>
      <caption>{caption}</caption>
      <tbody>
        {headers.map(([name, value], i) => (
          <tr key={`${name}-${i}`} className={name.toLowerCase().startsWith('x-mortar-') ? 'headers__mortar' : ''} data-header={name.toLowerCase()}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
