import { EditOutlined, PlusOutlined } from '@ant-design/icons'
import { Button, Form, Input, Space, Table, type TableColumnsType } from 'antd'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { removeItems, saveItem } from '../../../api/inspection/inspection'
import { inspectionKeys, itemPageQuery } from '../../../api/inspection/queries'
import type { InspectItem } from '../../../api/inspection/types'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import { usePagedList } from '../../../hooks/usePagedList'
import { DeleteButton, PageBox } from '../common'
import { useCan, useDelete } from '../hooks'
import ItemDialog from '../ItemDialog'
import { pageAfterDelete } from '../logic'

interface ListState {
  title: string
  current: number
  size: number
}

const firstPage: ListState = { title: '', current: 1, size: defaultPageSize }

/** `/intelligentOperation/inspectionItem`: reusable inspection items, each a title and its checks. */
export default function InspectionItemPage() {
  const { t } = useTranslation()
  const can = useCan('inspectionItem')
  const client = useQueryClient()
  const [search] = Form.useForm<{ title?: string }>()
  const paged = usePagedList(firstPage, (s) =>
    itemPageQuery({ current: s.current, size: s.size, ...(s.title ? { title: s.title } : {}) }),
  )
  const { list, page } = paged
  const [selected, setSelected] = useState<string[]>([])
  /** undefined: closed; null: new. */
  const [editing, setEditing] = useState<InspectItem | null | undefined>(undefined)

  const reload = (next: Partial<ListState> = {}) => {
    void client.invalidateQueries({ queryKey: inspectionKeys.items })
    paged.go(next)
  }
  const askDelete = useDelete(removeItems, (ids) => {
    setSelected((s) => s.filter((id) => !ids.includes(id)))
    reload({ current: pageAfterDelete(list.current, page.records.length, ids.length) })
  })

  const columns: TableColumnsType<InspectItem> = [
    { key: 'title', dataIndex: 'title', title: t('inspection.field.title') },
    {
      key: 'checkItems',
      dataIndex: 'checkItems',
      title: t('inspection.field.checkItems'),
      render: (checks: string[]) => (
        <ol style={{ margin: 0, paddingInlineStart: 18 }}>
          {checks.map((c, i) => (
            <li key={i}>{c}</li>
          ))}
        </ol>
      ),
    },
    { key: 'remark', dataIndex: 'remark', title: t('inspection.field.remark') },
    { key: 'updateTime', dataIndex: 'updateTime', title: t('inspection.field.updateTime') },
    {
      key: '__actions',
      title: t('crud.actions'),
      render: (_: unknown, row) => (
        <Space size={0} wrap>
          {can('edit') && (
            <Button
              type="link"
              size="small"
              icon={<EditOutlined />}
              data-testid="item-row-edit"
              onClick={() => setEditing(row)}
            >
              {t('inspection.action.edit')}
            </Button>
          )}
          {can('delete') && (
            <DeleteButton testId="item-row-delete" onClick={() => askDelete([row.id])} />
          )}
        </Space>
      ),
    },
  ]

  return (
    <PageBox testId="inspection-item-page">
      <Form
        form={search}
        layout="inline"
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={(v) => paged.go({ title: (v.title ?? '').trim(), current: 1 })}
      >
        <Form.Item name="title" label={t('inspection.field.title')}>
          <Input
            data-testid="item-search-title"
            allowClear
            placeholder={t('inspection.placeholder.title')}
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="item-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="item-reset"
              onClick={() => {
                search.resetFields()
                paged.go({ title: '', current: 1 })
              }}
            >
              {t('crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Space style={{ marginBottom: 16 }} wrap>
        {can('add') && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            data-testid="item-add"
            onClick={() => setEditing(null)}
          >
            {t('inspection.action.add')}
          </Button>
        )}
        {can('delete') && (
          <Button danger data-testid="item-bulk-delete" onClick={() => askDelete(selected)}>
            {t('inspection.action.delete')}
          </Button>
        )}
      </Space>
      <Table<InspectItem>
        data-testid="item-table"
        rowKey="id"
        size="middle"
        bordered
        loading={paged.loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
        rowSelection={
          can('delete')
            ? { selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)) }
            : undefined
        }
        pagination={{
          current: list.current,
          pageSize: list.size,
          total: page.total,
          showSizeChanger: true,
          pageSizeOptions: pageSizeOptions.map(String),
          showTotal: (total) => t('crud.total', { total }),
          onChange: (current, size) =>
            paged.go(size !== list.size ? { current: 1, size } : { current }),
        }}
      />
      {editing !== undefined && (
        <ItemDialog
          item={editing}
          save={saveItem}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined)
            reload()
          }}
        />
      )}
    </PageBox>
  )
}
