import { Table } from 'antd'
import type { ColumnsType } from 'antd/es/table'
import { cellText, withUnit, type FigureColumn } from './format'

export type { FigureColumn }

export interface ReportTableProps<R> {
  testId: string
  /** Header of the first column (the period's slot). */
  labelTitle: string
  label: (row: R) => string
  rows: readonly R[]
  columns: readonly FigureColumn<R>[]
  /** The totals row (the hub's `total`, or a sum made here). */
  total?: R
  totalLabel: string
  rowKey: (row: R) => string
}

/**
 * The table of a report: one row per slot, figures right-aligned with their units in the headers,
 * the totals row pinned under the rows, scrolling sideways on a phone.
 */
export default function ReportTable<R extends object>({
  testId,
  labelTitle,
  label,
  rows,
  columns,
  total,
  totalLabel,
  rowKey,
}: ReportTableProps<R>) {
  const cols: ColumnsType<R> = [
    {
      key: 'label',
      title: labelTitle,
      fixed: 'left',
      width: 110,
      render: (_: unknown, row: R) => label(row),
    },
    ...columns.map((c) => ({
      key: c.key,
      title: withUnit(c.title, c.unit),
      align: 'right' as const,
      render: (_: unknown, row: R) => cellText(c, row),
    })),
  ]
  return (
    <Table<R>
      data-testid={testId}
      size="small"
      rowKey={rowKey}
      pagination={false}
      columns={cols}
      dataSource={[...rows]}
      scroll={{ x: 'max-content', y: 480 }}
      onRow={(row) => ({ 'data-row': rowKey(row) }) as React.HTMLAttributes<HTMLElement>}
      summary={() =>
        total ? (
          <Table.Summary fixed="bottom">
            <Table.Summary.Row>
              <Table.Summary.Cell index={0}>
                <strong data-testid={`${testId}-total`}>{totalLabel}</strong>
              </Table.Summary.Cell>
              {columns.map((c, i) => (
                <Table.Summary.Cell key={c.key} index={i + 1} align="right">
                  <strong data-testid={`${testId}-total-${c.key}`}>{cellText(c, total)}</strong>
                </Table.Summary.Cell>
              ))}
            </Table.Summary.Row>
          </Table.Summary>
        ) : null
      }
    />
  )
}
