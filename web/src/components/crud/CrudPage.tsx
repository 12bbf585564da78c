import { DeleteOutlined, EditOutlined, EyeOutlined, PlusOutlined } from '@ant-design/icons'
import {
  App,
  Button,
  Card,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Table,
  type TableColumnsType,
} from 'antd'
import { useEffect, useMemo, useState } from 'react'
import type { TOptions } from 'i18next'
import { useTranslation } from 'react-i18next'
import type { Entity } from '../../api/crud'
import type { Page } from '../../api/types'
import { useSessionStore } from '../../stores/session'
import {
  buildListQuery,
  bulkDeleteAction,
  crudPermissions,
  defaultPageSize,
  optionLabel,
  pageAfterDelete,
  pageSizeOptions,
  submitPayload,
  type SearchValues,
} from './logic'
import CrudDialog, { type DialogMode } from './CrudDialog'
import type { CrudConfig, CrudField, Translate } from './types'

interface ListState {
  search: SearchValues
  current: number
  size: number
  /** Bumped to reload the same page. */
  tick: number
}

interface DialogState<T> {
  mode: DialogMode
  record?: T
  /** False while it closes (the record stays for the closing animation). */
  open: boolean
  /** Each opening gets a fresh dialog and form. */
  seq: number
}

const emptyPage = <T,>(size: number): Page<T> => ({
  records: [],
  total: 0,
  size,
  current: 1,
  pages: 0,
})

/**
 * The generic, declarative list/form screen (spec §2 "Generic CRUD screens"): a search form over
 * the fields marked `search`, a paged table (10/30/50/100/200, total shown), add / edit / view
 * dialogs built from the fields and their rules, delete of one row and bulk delete (both confirmed).
 * Buttons show only with the permission codes `{menuCode}_add|_edit|_delete|_view`. Server errors
 * toast through the request client; nothing extra is shown here.
 */
export default function CrudPage<T extends Entity>({ config }: { config: CrudConfig<T> }) {
  const { api, fields, menuCode } = config
  const { t } = useTranslation()
  const { message, modal } = App.useApp()
  const translate: Translate = (key, options) => t(key, options as TOptions)
  const permission = useSessionStore((s) => s.permission)
  const can = useMemo(() => crudPermissions(menuCode, permission), [menuCode, permission])

  const [searchForm] = Form.useForm<SearchValues>()
  const [list, setList] = useState<ListState>({
    search: {},
    current: 1,
    size: defaultPageSize,
    tick: 0,
  })
  const [result, setResult] = useState<{ list: ListState; page: Page<T> } | null>(null)
  const [selected, setSelected] = useState<string[]>([])
  const [dialog, setDialog] = useState<DialogState<T> | null>(null)
  const loading = result?.list !== list
  const page = result?.page ?? emptyPage<T>(list.size)

  useEffect(() => {
    let live = true
    const query = buildListQuery(fields, list.search, { current: list.current, size: list.size })
    api.list(query).then(
      (next) => live && setResult({ list, page: next }),
      // The request client has shown the error; keep the rows shown so far.
      () => live && setResult((prev) => ({ list, page: prev?.page ?? emptyPage<T>(list.size) })),
    )
    return () => {
      live = false
    }
  }, [api, fields, list])

  /** Changes the list query; the selection belongs to the rows shown, so it is cleared. */
  const go = (next: Partial<ListState>) => {
    setSelected([])
    setList((prev) => ({ ...prev, ...next, tick: prev.tick + 1 }))
  }

  const search = () => go({ search: { ...searchForm.getFieldsValue() }, current: 1 })
  const reset = () => {
    searchForm.resetFields()
    go({ search: {}, current: 1 })
  }

  const openRecord = async (mode: 'edit' | 'view', row: T) => {
    if (!row.id) return
    try {
      const record = await api.detail(row.id)
      openDialog(mode, record)
    } catch {
      // shown by the request client
    }
  }

  const openDialog = (mode: DialogMode, record?: T) =>
    setDialog((prev) => ({ mode, record, open: true, seq: (prev?.seq ?? 0) + 1 }))
  const closeDialog = () => setDialog((prev) => (prev ? { ...prev, open: false } : prev))

  /** Saves the dialog's values; rejects (dialog stays open) when the server refuses. */
  const submit = async (values: Record<string, unknown>) => {
    if (!dialog || dialog.mode === 'view') return
    const editingId = dialog.mode === 'edit' ? dialog.record?.id : undefined
    await api.submit(submitPayload<T>(fields, values, editingId))
    void message.success(t(dialog.mode === 'add' ? 'crud.added' : 'crud.updated'))
    closeDialog()
    go({})
  }

  const confirmRemove = (ids: string[]) => {
    modal.confirm({
      title: t('crud.deleteConfirm'),
      okButtonProps: { 'data-testid': 'crud-delete-ok' },
      onOk: async () => {
        try {
          await api.remove(ids)
        } catch {
          return // shown by the request client
        }
        void message.success(t('crud.deleted'))
        go({ current: pageAfterDelete(list.current, page.records.length, ids.length) })
      },
    })
  }

  const bulkRemove = () => {
    const action = bulkDeleteAction(selected)
    if (action.kind === 'warn') void message.warning(t(action.message))
    else confirmRemove(action.ids)
  }

  const searchFields = fields.filter((field) => field.search)
  const formFields = fields.filter(
    (field) => !field.hideInForm && field.type !== 'dateRange' && field.name !== 'id',
  )

  const columns: TableColumnsType<T> = fields
    .filter((field) => !field.hideInTable && field.type !== 'dateRange' && field.name !== 'id')
    .map((field) => ({
      key: field.name,
      dataIndex: field.name,
      title: t(field.label),
      width: field.width,
      ellipsis: true,
      render: (value: unknown) =>
        field.type === 'select' ? optionLabel(field, value, translate) : (value as string),
    }))
  if (can.view || can.edit || can.delete) {
    columns.push({
      key: '__actions',
      title: t('crud.actions'),
      fixed: 'right',
      width: 220,
      render: (_: unknown, row: T) => (
        <Space size={0}>
          {can.view && (
            <Button
              type="link"
              size="small"
              icon={<EyeOutlined />}
              data-testid="crud-row-view"
              onClick={() => void openRecord('view', row)}
            >
              {t('crud.view')}
            </Button>
          )}
          {can.edit && (
            <Button
              type="link"
              size="small"
              icon={<EditOutlined />}
              data-testid="crud-row-edit"
              onClick={() => void openRecord('edit', row)}
            >
              {t('crud.edit')}
            </Button>
          )}
          {can.delete && (
            <Button
              type="link"
              size="small"
              danger
              icon={<DeleteOutlined />}
              data-testid="crud-row-delete"
              onClick={() => row.id && confirmRemove([row.id])}
            >
              {t('crud.delete')}
            </Button>
          )}
        </Space>
      ),
    })
  }

  return (
    <Card data-testid="crud-page" data-menu-code={menuCode}>
      {searchFields.length > 0 && (
        <Form
          form={searchForm}
          layout="inline"
          onFinish={search}
          data-testid="crud-search-form"
          style={{ marginBottom: 16, rowGap: 12 }}
        >
          {searchFields.map((field) => (
            <Form.Item key={field.name} name={field.name} label={t(field.label)}>
              {renderSearchInput(field, translate)}
            </Form.Item>
          ))}
          <Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" data-testid="crud-search">
                {t('crud.search')}
              </Button>
              <Button onClick={reset} data-testid="crud-reset">
                {t('crud.reset')}
              </Button>
            </Space>
          </Form.Item>
        </Form>
      )}
      {(can.add || can.delete) && (
        <Space style={{ marginBottom: 16 }}>
          {can.add && (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              data-testid="crud-add"
              onClick={() => openDialog('add')}
            >
              {t('crud.add')}
            </Button>
          )}
          {can.delete && (
            <Button
              danger
              icon={<DeleteOutlined />}
              data-testid="crud-bulk-delete"
              onClick={bulkRemove}
            >
              {t('crud.bulkDelete')}
            </Button>
          )}
        </Space>
      )}
      <Table<T>
        data-testid="crud-table"
        rowKey={(row) => row.id ?? ''}
        size="middle"
        bordered
        loading={loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
        rowSelection={
          can.delete
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys.map(String)),
              }
            : undefined
        }
        pagination={{
          current: list.current,
          pageSize: list.size,
          total: page.total,
          showSizeChanger: true,
          pageSizeOptions: pageSizeOptions.map(String),
          showTotal: (total) => t('crud.total', { total }),
          onChange: (current, size) => go(size !== list.size ? { current: 1, size } : { current }),
        }}
      />
      {dialog && (
        <CrudDialog<T>
          key={dialog.seq}
          fields={formFields}
          mode={dialog.mode}
          record={dialog.record}
          open={dialog.open}
          width={config.dialogWidth}
          onClose={closeDialog}
          onSubmit={submit}
        />
      )}
    </Card>
  )
}

function renderSearchInput(field: CrudField, t: Translate) {
  const testId = `search-${field.name}`
  switch (field.type) {
    case 'dateRange':
      return (
        <DatePicker.RangePicker
          data-testid={testId}
          placeholder={[t('crud.startDate'), t('crud.endDate')]}
        />
      )
    case 'select':
      return (
        <Select
          data-testid={testId}
          allowClear
          style={{ minWidth: 160 }}
          placeholder={t('crud.selectPlaceholder', { label: t(field.label) })}
          options={field.options?.map((option) => ({
            value: option.value,
            label: t(option.label),
          }))}
        />
      )
    case 'number':
      return <InputNumber data-testid={testId} />
    default:
      return (
        <Input
          data-testid={testId}
          allowClear
          placeholder={t('crud.placeholder', { label: t(field.label) })}
        />
      )
  }
}
