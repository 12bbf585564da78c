import { Card, Descriptions, List, Pagination, Table, type TableColumnsType } from 'antd'
import type { ReactNode } from 'react'
import type { Page } from '../../api/types'
import { pageSizeOptions } from '../../components/crud/logic'
import { usePhone } from '../../hooks/usePhone'

export interface Column<T> {
  key: string
  title: string
  render: (row: T) => ReactNode
}

/**
 * A paged list: a table on wide screens, one card per row on phones (390 px wide), with the row's
 * actions under each card.
 */
export default function FlowTable<T>({
  rows,
  rowKey,
  columns,
  actions,
  loading,
  onPage,
  testId,
}: {
  rows: Page<T>
  rowKey: (row: T) => string
  columns: Column<T>[]
  actions?: (row: T) => ReactNode
  loading: boolean
  onPage: (current: number, size: number) => void
  testId?: string
}) {
  const phone = usePhone()
  const pager = (
    <Pagination
      size="small"
      style={{ marginTop: 12, textAlign: 'right' }}
      current={rows.current}
      pageSize={rows.size}
      total={rows.total}
      pageSizeOptions={[...pageSizeOptions]}
      showSizeChanger={!phone}
      onChange={onPage}
    />
  )
  if (phone) {
    return (
      <div data-testid={testId}>
        <List
          loading={loading}
          dataSource={rows.records}
          rowKey={rowKey}
          renderItem={(row) => (
            <Card
              size="small"
              style={{ marginBottom: 8 }}
              actions={actions ? [<div key="a">{actions(row)}</div>] : undefined}
            >
              <Descriptions size="small" column={1}>
                {columns.map((c) => (
                  <Descriptions.Item key={c.key} label={c.title}>
                    {c.render(row)}
                  </Descriptions.Item>
                ))}
              </Descriptions>
            </Card>
          )}
        />
        {pager}
      </div>
    )
  }
  const cols: TableColumnsType<T> = columns.map((c) => ({
    key: c.key,
    title: c.title,
    render: (_: unknown, r: T) => c.render(r),
  }))
  if (actions) cols.push({ key: '_actions', title: '', render: (_: unknown, r: T) => actions(r) })
  return (
    <div data-testid={testId}>
      <Table<T>
        size="small"
        loading={loading}
        rowKey={rowKey}
        dataSource={rows.records}
        columns={cols}
        pagination={false}
        scroll={{ x: true }}
      />
      {pager}
    </div>
  )
}
